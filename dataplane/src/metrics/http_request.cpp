#include "skiff/dataplane/metrics/http_request.hpp"

#include <cstring>
#include <vector>

namespace skiff::dataplane::metrics {
namespace {

// RFC 9110 token characters (methods and header field names).
bool is_tchar(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_tchar(c)) return false;
    return true;
}

// Visible ASCII and tab: no control bytes, no bytes above 0x7E in what we parse.
bool is_visible_text(std::string_view s) {
    for (unsigned char c : s)
        if ((c < 0x20 && c != '\t') || c > 0x7E) return false;
    return true;
}

// The head's lines without their line ends (the last, empty line excluded).
std::vector<std::string_view> head_lines(std::string_view head) {
    std::vector<std::string_view> lines;
    while (!head.empty()) {
        size_t nl = head.find('\n');
        std::string_view l = head.substr(0, nl);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (l.empty()) break;
        lines.push_back(l);
        if (nl == std::string_view::npos) break;
        head.remove_prefix(nl + 1);
    }
    return lines;
}

Error bad(const std::string &why) {
    return make_error(DOCA_ERROR_INVALID_VALUE, why);
}

Result<RequestHead> parse_request_line(std::string_view line) {
    const size_t sp1 = line.find(' ');
    const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return bad("the request line is not METHOD TARGET VERSION");
    const std::string_view method = line.substr(0, sp1);
    const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    if (!is_token(method) || method.size() > 32) return bad("the method is not a token");
    if (target.empty() || target[0] != '/') return bad("the request target is not an absolute path");
    if (version != "HTTP/1.1" && version != "HTTP/1.0") return bad("not HTTP/1.0 or HTTP/1.1");
    return RequestHead{std::string(method), std::string(target.substr(0, target.find('?')))};
}

bool valid_field(std::string_view line) {
    const size_t colon = line.find(':');
    return colon != std::string_view::npos && is_token(line.substr(0, colon));
}

} // namespace

std::optional<size_t> request_head_length(std::string_view received) {
    for (size_t i = 0; i < received.size(); ++i) {
        if (received[i] != '\n') continue;
        // An empty line: LF LF or LF CR LF.
        if (i + 1 < received.size() && received[i + 1] == '\n') return i + 2;
        if (i + 2 < received.size() && received[i + 1] == '\r' && received[i + 2] == '\n') return i + 3;
    }
    return std::nullopt;
}

Result<RequestHead> parse_request_head(std::string_view head) {
    const std::vector<std::string_view> lines = head_lines(head);
    if (lines.empty()) return bad("no request line");
    for (std::string_view l : lines)
        if (!is_visible_text(l)) return bad("control or non-ASCII bytes in the head");
    auto request = parse_request_line(lines[0]);
    if (!request) return request;
    for (size_t i = 1; i < lines.size(); ++i) {
        // A folded continuation line (leading space) is obsolete and refused (RFC 9112 5.2).
        if (lines[i][0] == ' ' || lines[i][0] == '\t') return bad("a folded header line");
        if (!valid_field(lines[i])) return bad("a header line is not NAME: VALUE");
    }
    return request;
}

} // namespace skiff::dataplane::metrics
