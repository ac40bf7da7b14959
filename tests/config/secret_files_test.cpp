// Files that hold secrets: a configuration with hosts[] secrets, and key files given to the
// programs (--dhchap-key-file, --tls-psk-file, ...). Readable by other users they still load,
// with a warning naming the file, its mode and the fix; `save` writes the configuration 0600
// whatever the umask, and leaves nothing behind.
#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skiff::config {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kKey = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";

json config(bool with_secret) {
    json doc = {{"backends", {{{"name", "d"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                {"subsystems",
                 {{{"nqn", "nqn.2026-11.io.skiff:s"}, {"namespaces", {{{"nsid", 1}, {"backend", "d"}}}}}}},
                {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", 4420}}}}};
    if (with_secret)
        doc["hosts"] = {{{"nqn", "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000a"},
                         {"dhchap_key", kKey}}};
    return doc;
}

class SecretFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-secret-files-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string write(const std::string &name, const std::string &text, mode_t mode) {
        std::string path = dir_ + "/" + name;
        std::ofstream(path) << text;
        ::chmod(path.c_str(), mode);
        return path;
    }
    static bool warns_about(const LoadResult &r, const std::string &path) {
        for (auto &w : r.warnings)
            if (w.find(path) != std::string::npos && w.find("holds secrets") != std::string::npos)
                return true;
        return false;
    }
    std::string dir_;
};

TEST_F(SecretFiles, AConfigurationWithSecretsReadableByOthersDrawsAWarning) {
    std::string loose = write("loose.json", config(true).dump(), 0644);
    LoadResult r = load_config_file(loose);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(warns_about(r, loose)) << "warnings: " << ::testing::PrintToString(r.warnings);
    EXPECT_NE(r.warnings.empty() ? std::string::npos : r.warnings[0].find("0644"), std::string::npos);

    // Group-writable is as bad: that group can add hosts or change their keys.
    EXPECT_TRUE(
        warns_about(load_config_file(write("gw.json", config(true).dump(), 0660)), dir_ + "/gw.json"));
    // What the package installs (0640 root:skiff) and what save writes (0600) are quiet.
    EXPECT_FALSE(
        warns_about(load_config_file(write("pkg.json", config(true).dump(), 0640)), dir_ + "/pkg.json"));
    EXPECT_FALSE(
        warns_about(load_config_file(write("own.json", config(true).dump(), 0600)), dir_ + "/own.json"));
    // Without secrets the mode does not matter.
    EXPECT_FALSE(
        warns_about(load_config_file(write("plain.json", config(false).dump(), 0644)), dir_ + "/plain.json"));
}

TEST_F(SecretFiles, AKeyFileGivesItsFirstLineAndAWarningWhenOthersCanReadIt) {
    auto ok = nvmeof::auth::read_secret_file(write("k0600", kKey + "\r\nsecond line\n", 0600));
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok->text, kKey);
    EXPECT_EQ(ok->warning, "");

    std::string loose = write("k0644", kKey + "\n", 0644);
    auto warned = nvmeof::auth::read_secret_file(loose);
    ASSERT_TRUE(warned.ok());
    EXPECT_EQ(warned->text, kKey);
    EXPECT_NE(warned->warning.find(loose), std::string::npos) << warned->warning;
    EXPECT_NE(warned->warning.find("chmod 0600"), std::string::npos) << warned->warning;

    auto missing = nvmeof::auth::read_secret_file(dir_ + "/none");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find(dir_ + "/none"), std::string::npos);
    auto empty = nvmeof::auth::read_secret_file(write("empty", "\n", 0600));
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
}

TEST_F(SecretFiles, SaveWritesMode0600UnderAnyUmaskAndLeavesNoTemporaryFile) {
    LoadResult r = parse_config(config(true));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const std::string path = dir_ + "/saved.json";
    // A symbolic link someone put at the destination is replaced, not written through.
    const std::string victim = write("victim", "untouched\n", 0644);
    ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);

    mode_t old = ::umask(0);
    Status st = save_config_file(*r.config, path);
    ::umask(old);
    ASSERT_TRUE(st.ok()) << st.error().message;

    struct stat s {};
    ASSERT_EQ(::lstat(path.c_str(), &s), 0);
    EXPECT_TRUE(S_ISREG(s.st_mode));
    EXPECT_EQ(s.st_mode & 07777, 0600u);
    std::ifstream victim_in(victim);
    std::string victim_text((std::istreambuf_iterator<char>(victim_in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(victim_text, "untouched\n");
    LoadResult back = load_config_file(path);
    ASSERT_TRUE(back.ok()) << back.error_text();
    EXPECT_EQ(back.config->hosts.at(0).dhchap_key, kKey);
    size_t files = 0;
    for ([[maybe_unused]] auto &e : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 2u) << "only victim and saved.json";

    // A destination that cannot be written leaves no temporary file either.
    Status bad = save_config_file(*r.config, dir_ + "/no-such-folder/saved.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("no-such-folder"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace skiff::config
