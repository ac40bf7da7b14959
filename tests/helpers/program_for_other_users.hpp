// A copy of one of the build's programs that another user (the tests' attacker, nobody) can run.
// The build tree may sit where nobody cannot enter: a clone in a 0700 temporary folder (CI's), or
// in a 0700 home folder (Debian 12's default). Run from there, the attacker's exec fails, and a
// test that expects the attack to fail would pass without the attack ever running. The copy is
// made once per test process into a fresh 0755 folder under /tmp and removed at exit, with the
// build's shared library beside it: the build's RUNPATH names the build tree, which nobody may not
// enter, so the copy runs with LD_LIBRARY_PATH set to that folder (other_users_environment()).
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

extern char **environ;

namespace skiff::test {

namespace detail {

class OtherUsersFolder {
  public:
    OtherUsersFolder() {
        char tmpl[] = "/tmp/skiff-programs-XXXXXX";
        if (::mkdtemp(tmpl)) {
            path_ = tmpl;
            ::chmod(path_.c_str(), 0755);
        }
    }
    ~OtherUsersFolder() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    // The path of the copy of `program`; "" when it could not be made.
    std::string copy_of(const std::string &program) {
        if (path_.empty()) return "";
        auto known = copies_.find(program);
        if (known != copies_.end()) return known->second;
        const std::string copy = path_ + "/" + std::filesystem::path(program).filename().string();
        std::error_code ec;
        std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing, ec);
        if (ec || ::chmod(copy.c_str(), 0755) != 0) return "";
        // The build's shared library (the program's RUNPATH points into the build tree).
        const auto lib =
            std::filesystem::path(program).parent_path().parent_path() / "lib" / "libskiff-core.so.0";
        if (std::filesystem::exists(lib))
            std::filesystem::copy_file(lib, path_ + "/libskiff-core.so.0",
                                       std::filesystem::copy_options::overwrite_existing, ec);
        return copies_[program] = copy;
    }
    const std::string &path() const { return path_; }

  private:
    std::string path_;
    std::map<std::string, std::string> copies_;
};

inline OtherUsersFolder &folder() {
    static OtherUsersFolder one;
    return one;
}

} // namespace detail

// `program` (an absolute path in the build tree) as a path every user can execute.
inline std::string program_for_other_users(const std::string &program) {
    return detail::folder().copy_of(program);
}

// This process's environment with LD_LIBRARY_PATH naming the copies' folder: for execve of a copy.
inline std::vector<std::string> other_users_environment() {
    std::vector<std::string> env;
    for (char **e = environ; *e; ++e)
        if (std::string(*e).rfind("LD_LIBRARY_PATH=", 0) != 0) env.push_back(*e);
    env.push_back("LD_LIBRARY_PATH=" + detail::folder().path());
    return env;
}

// The same for a command line: "LD_LIBRARY_PATH='<the copies' folder>'" (after `env`, or as a shell
// assignment).
inline std::string other_users_library_path_assignment() {
    return "LD_LIBRARY_PATH='" + detail::folder().path() + "'";
}

} // namespace skiff::test
