// BackendSettings behaves as the JSON object it holds: empty by default, copied deeply, equal by
// value, and still an empty object after being moved from.
#include "skiff/config/backend_settings.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <utility>

namespace skiff::config {
namespace {

using nlohmann::json;

TEST(BackendSettings, DefaultIsAnEmptyObject) {
    BackendSettings s;
    EXPECT_EQ(std::as_const(s).json(), json::object());
    EXPECT_EQ(s, BackendSettings(json::object()));
    s.json()["path"] = "/var/lib/skiff/d.img";
    EXPECT_EQ(s.json(), json({{"path", "/var/lib/skiff/d.img"}}));
}

TEST(BackendSettings, CopyIsIndependent) {
    BackendSettings a(json{{"path", "/a"}, {"queue_depth", 64}});
    BackendSettings b = a;
    EXPECT_EQ(a, b);
    b.json()["path"] = "/b";
    EXPECT_EQ(a.json()["path"], "/a");
    EXPECT_NE(a, b);
    a = b;
    EXPECT_EQ(a.json()["path"], "/b");
    b.json()["queue_depth"] = 1;
    EXPECT_EQ(a.json()["queue_depth"], 64);
}

TEST(BackendSettings, MovedFromIsEmpty) {
    BackendSettings a(json{{"channel", "skiff-host"}});
    BackendSettings b = std::move(a);
    EXPECT_EQ(b.json()["channel"], "skiff-host");
    EXPECT_EQ(std::as_const(a).json(), json::object()); // the documented moved-from state
}

} // namespace
} // namespace skiff::config
