// The lines of the hostmem control channel and their split into comch messages (see
// hostmem/control_channel.hpp).
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <sstream>

namespace skiff::dataplane::hostmem {

std::string export_line(const ExportRecord &r) {
    return "EXPORT " + to_hex(r.descriptor.data(), r.descriptor.size()) + " " + std::to_string(r.host_addr) +
           " " + std::to_string(r.length) + " " + std::to_string(r.generation);
}

Result<ExportRecord> parse_export_line(const std::string &line) {
    std::istringstream in(line);
    std::string word, hex;
    ExportRecord r;
    in >> word >> hex >> r.host_addr >> r.length >> r.generation;
    if (word != "EXPORT" || !in || !from_hex(hex, r.descriptor) || r.descriptor.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "malformed EXPORT line (expected \"EXPORT <hex descriptor> <address> <length> "
                          "<generation>\"): " +
                              line.substr(0, 80));
    return r;
}

std::vector<std::string> split_line(const std::string &line, size_t max_msg) {
    std::vector<std::string> out;
    const size_t room = max_msg - 1; // one byte says whether more follow
    size_t at = 0;
    do {
        size_t n = std::min(room, line.size() - at);
        bool last = at + n == line.size();
        out.push_back((last ? "." : "+") + line.substr(at, n));
        at += n;
    } while (at < line.size());
    return out;
}

bool LineAssembler::add(const uint8_t *msg, size_t len, std::string &line) {
    if (len == 0 || (msg[0] != '+' && msg[0] != '.')) {
        pending_.clear();
        return false;
    }
    // An oversized line is skipped to its last fragment, so its tail never passes for a line.
    if (skipping_ || pending_.size() + len - 1 > kMaxLine) {
        pending_.clear();
        skipping_ = msg[0] == '+';
        return false;
    }
    pending_.append(reinterpret_cast<const char *>(msg) + 1, len - 1);
    if (msg[0] == '+') return false;
    line = std::move(pending_);
    pending_.clear();
    return true;
}

std::string to_hex(const uint8_t *data, size_t len) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(len * 2);
    for (size_t i = 0; i < len; ++i) {
        s.push_back(digits[data[i] >> 4]);
        s.push_back(digits[data[i] & 15]);
    }
    return s;
}

bool from_hex(const std::string &text, std::vector<uint8_t> &out) {
    if (text.size() % 2) return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    out.clear();
    for (size_t i = 0; i < text.size(); i += 2) {
        int hi = nibble(text[i]), lo = nibble(text[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.push_back(static_cast<uint8_t>(hi << 4 | lo));
    }
    return true;
}

} // namespace skiff::dataplane::hostmem
