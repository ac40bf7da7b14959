// The check lines of the lab helper programs: one "ok  what" / "FAIL what: detail" line per check
// on stdout (flushed, so a test that hangs still shows how far it got), and the counts for the
// summary and the exit status.
#pragma once

#include <doca_error.h>

#include <cstdio>
#include <string>

namespace skiff::test {

inline int g_checks_failed = 0, g_checks_passed = 0;

inline bool check(bool ok, const std::string &what, const std::string &detail = "") {
    (ok ? g_checks_passed : g_checks_failed)++;
    std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    std::fflush(stdout);
    return ok;
}

inline bool check_rc(doca_error_t rc, const std::string &what, doca_error_t want = DOCA_SUCCESS) {
    return check(rc == want, what, rc == want ? "" : std::string("got ") + doca_error_get_name(rc));
}

} // namespace skiff::test
