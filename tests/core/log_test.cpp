// doca_log: levels, sources and backends behave as DOCA applications expect.
#include <doca_log.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

DOCA_LOG_REGISTER(LOG_TEST);

namespace {

std::string read_all(FILE *f) {
    fflush(f);
    rewind(f);
    std::string out;
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
    return out;
}

} // namespace

TEST(DocaLog, BackendHonoursTheLevelWindowAndNamesTheSource) {
    FILE *f = tmpfile();
    ASSERT_NE(f, nullptr);
    struct doca_log_backend *backend = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_file(f, &backend), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);

    DOCA_LOG_INFO("visible %d", 42);
    DOCA_LOG_DBG("hidden %d", 7);
    std::string text = read_all(f);
    EXPECT_NE(text.find("visible 42"), std::string::npos) << text;
    EXPECT_NE(text.find("LOG_TEST"), std::string::npos) << text;
    EXPECT_EQ(text.find("hidden"), std::string::npos) << text;

    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), (uint32_t)DOCA_LOG_LEVEL_DEBUG);
    DOCA_LOG_DBG("now shown %d", 7);
    text = read_all(f);
    EXPECT_NE(text.find("now shown 7"), std::string::npos) << text;

    ASSERT_EQ(doca_log_backend_set_level_lower_limit(backend, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    DOCA_LOG_ERR("silenced");
    text = read_all(f);
    EXPECT_EQ(text.find("silenced"), std::string::npos) << text;
}

TEST(DocaLog, RejectsLevelsOutsideTheEnum) {
    EXPECT_EQ(doca_log_level_set_global_lower_limit(55), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_level_set_global_lower_limit(80), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_register_source("x", nullptr), DOCA_ERROR_INVALID_VALUE);
}
