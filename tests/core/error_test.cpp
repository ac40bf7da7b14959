// doca_error_get_name/descr cover every code (spec 5.1 #5). Unknown values are "unrecognized":
// tests/c/unknown_enum_values.c, since only a C caller can pass one.
#include <doca_error.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(DocaError, EveryCodeHasADistinctNameAndDescription) {
    std::set<std::string> names;
    for (int code = DOCA_SUCCESS; code <= DOCA_ERROR_DEVICE_FATAL_ERROR; ++code) {
        auto err = static_cast<doca_error_t>(code);
        std::string name = doca_error_get_name(err);
        std::string descr = doca_error_get_descr(err);
        EXPECT_NE(name, "unrecognized error code") << code;
        EXPECT_NE(descr, "unrecognized error code") << code;
        EXPECT_EQ(name.rfind("DOCA_", 0), 0u) << name;
        names.insert(name);
    }
    EXPECT_EQ(names.size(), 32u);
    EXPECT_STREQ(doca_error_get_name(DOCA_ERROR_IN_USE), "DOCA_ERROR_IN_USE");
    EXPECT_STREQ(doca_error_get_name(DOCA_ERROR_TOO_BIG), "DOCA_ERROR_TOO_BIG");
    EXPECT_EQ(DOCA_ERROR_EMPTY, 25);
    EXPECT_EQ(DOCA_ERROR_IN_PROGRESS, 26);
    EXPECT_EQ(DOCA_ERROR_BAD_CONFIG, 29); // DOCA 3.0's codes, used by its samples
    EXPECT_EQ(DOCA_ERROR_DEVICE_FATAL_ERROR, 31);
}

TEST(DocaError, PropagateKeepsTheFirstError) {
    doca_error_t r = DOCA_SUCCESS;
    DOCA_ERROR_PROPAGATE(r, DOCA_SUCCESS);
    EXPECT_EQ(r, DOCA_SUCCESS);
    DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_BAD_STATE);
    DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_IN_USE);
    EXPECT_EQ(r, DOCA_ERROR_BAD_STATE);
    EXPECT_TRUE(DOCA_IS_ERROR(r));
}
