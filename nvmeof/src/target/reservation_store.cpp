// Persist Through Power Loss: a namespace's reservation state in a small text file, rewritten
// atomically (new file, fsync, rename over the old one, fsync the directory) after every change
// while PTPL is on, and read back when the namespace is created again.
//
//   skiff-reservations 1
//   ptpl 1
//   generation 7
//   type 3 holder <32 hex digits>
//   registrant <32 hex digits> <key, decimal>
#include "skiff/nvmeof/target/reservation.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace skiff::nvmeof::target {
namespace {

std::string to_hex(const HostId &h) {
    static const char *digits = "0123456789abcdef";
    std::string s;
    for (uint8_t b : h) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

bool from_hex(const std::string &s, HostId &out) {
    if (s.size() != 32) return false;
    for (size_t i = 0; i < 16; ++i) {
        unsigned v;
        if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return false;
        out[i] = static_cast<uint8_t>(v);
    }
    return true;
}

bool write_all(int fd, const std::string &data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

std::string directory_of(const std::string &path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

bool Reservation::save(const State &s) const {
    std::ostringstream text;
    text << "skiff-reservations 1\nptpl " << (s.ptpl ? 1 : 0) << "\ngeneration " << s.generation << "\n";
    text << "type " << unsigned(s.rtype) << " holder " << to_hex(s.holder) << "\n";
    for (size_t i = 0; i < s.count; ++i)
        text << "registrant " << to_hex(s.regs[i].host) << " " << s.regs[i].key << "\n";
    std::string tmp = store_path_ + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write_all(fd, text.str()) && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    ok = ok && ::rename(tmp.c_str(), store_path_.c_str()) == 0;
    if (ok) {
        // The rename itself must survive a power loss too.
        int dfd = ::open(directory_of(store_path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
    } else {
        skiff::log::get("nvmeof")->error("reservations: cannot write {}: {}", store_path_,
                                         std::strerror(errno));
        ::unlink(tmp.c_str());
    }
    return ok;
}

std::string Reservation::attach_store(const std::string &path) {
    std::lock_guard lock(mu_);
    store_path_ = path;
    if (path.empty()) return {};
    std::ifstream in(path);
    if (!in) {
        if (errno == ENOENT) return {}; // nothing persisted yet
        return "cannot read reservation file " + path + ": " + std::strerror(errno);
    }
    State s;
    std::string line, word;
    int lineno = 0;
    auto bad = [&](const std::string &what) {
        return "reservation file " + path + " line " + std::to_string(lineno) + ": " + what;
    };
    while (std::getline(in, line)) {
        ++lineno;
        std::istringstream ls(line);
        if (!(ls >> word)) continue;
        if (word == "skiff-reservations") {
            int version = 0;
            if (!(ls >> version) || version != 1) return bad("expected format version 1");
        } else if (word == "ptpl") {
            int v = -1;
            if (!(ls >> v) || (v != 0 && v != 1)) return bad("expected \"ptpl 0\" or \"ptpl 1\"");
            s.ptpl = v == 1;
        } else if (word == "generation") {
            if (!(ls >> s.generation)) return bad("expected a generation number");
        } else if (word == "type") {
            unsigned t = 99;
            std::string kw, hex;
            if (!(ls >> t >> kw >> hex) || t > NVME_RESERVATION_RTYPE_EAAR || kw != "holder" ||
                !from_hex(hex, s.holder))
                return bad("expected \"type <0..6> holder <32 hex digits>\"");
            s.rtype = static_cast<uint8_t>(t);
        } else if (word == "registrant") {
            std::string hex;
            Registrant r;
            if (!(ls >> hex >> r.key) || !from_hex(hex, r.host))
                return bad("expected \"registrant <32 hex digits> <key>\"");
            if (s.count == s.regs.size())
                return bad("more than " + std::to_string(kMaxRegistrants) + " registrants");
            s.regs[s.count++] = r;
        } else {
            return bad("unknown keyword \"" + word + "\"");
        }
    }
    if (s.rtype && !s.find(s.holder) &&
        !(s.rtype == NVME_RESERVATION_RTYPE_WEAR || s.rtype == NVME_RESERVATION_RTYPE_EAAR))
        return bad("the reservation holder is not a registrant");
    if (!s.ptpl) {
        // Written while PTPL was off: what it holds does not survive a restart.
        state_ = State{};
        publish(state_);
        return {};
    }
    state_ = s;
    publish(state_);
    skiff::log::get("nvmeof")->info("reservations restored from {}: {} registrant(s), type {}", path, s.count,
                                    unsigned(s.rtype));
    return {};
}

} // namespace skiff::nvmeof::target
