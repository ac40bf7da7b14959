// target_loopback_load: a small load generator for measuring skiff-target over loopback with
// raw NVMe/TCP PDUs (one admin + one I/O connection, 4 KiB random reads or writes at a fixed
// queue depth). Prints IOPS; it measures, it never passes or fails on a number.
//   target_loopback_load PORT [read|write] [QD] [SECONDS] [NQN]
#include "../nvmeof/raw_tcp_client.hpp"

#include <chrono>
#include <cstdio>
#include <random>

using namespace skiff::test;

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PORT [read|write] [QD] [SECONDS] [NQN]\n", argv[0]);
        return 2;
    }
    uint16_t port = static_cast<uint16_t>(std::atoi(argv[1]));
    bool write = argc > 2 && std::string(argv[2]) == "write";
    int qd = argc > 3 ? std::atoi(argv[3]) : 32;
    double seconds = argc > 4 ? std::atof(argv[4]) : 5;
    std::string nqn = argc > 5 ? argv[5] : "nqn.2026-11.io.skiff:default";
    const std::string host = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-00000000load";

    RawTcpClient admin(port);
    uint16_t cntlid = admin.bring_up_admin(nqn, host);
    RawTcpClient io(port);
    io.icreq();
    if (io.fabrics_connect(1, cntlid, nqn, host, 127).status != 0) {
        std::fprintf(stderr, "I/O queue connect failed\n");
        return 1;
    }
    std::mt19937_64 rng(1);
    std::vector<uint8_t> data(4096, 0xA5);
    auto submit = [&](uint16_t cid) {
        w::Sqe s{};
        s.opcode = write ? nvme_cmd_write : nvme_cmd_read;
        s.cid = cid;
        s.nsid = 1;
        uint64_t slba = (rng() % 200000) * 8;
        s.cdw10 = static_cast<uint32_t>(slba);
        s.cdw11 = static_cast<uint32_t>(slba >> 32);
        s.cdw12 = 7;
        if (write)
            io.send_command(s, data.data(), 4096);
        else
            io.send_command(s, nullptr, 0, 4096);
    };
    for (int i = 0; i < qd; ++i) submit(static_cast<uint16_t>(i));
    uint64_t done = 0;
    auto start = std::chrono::steady_clock::now();
    for (;;) {
        auto pdu = io.recv_pdu();
        if (!pdu) return 1;
        uint16_t cid;
        if (pdu->ch.type == wt::kCapsuleResp) {
            cid = pdu->as<wt::CapsuleResp>().cqe.cid;
        } else if (pdu->ch.type == wt::kC2HData && (pdu->ch.flags & wt::kFlagDataSuccess)) {
            cid = pdu->as<wt::DataPdu>().cccid;
        } else {
            continue;
        }
        ++done;
        std::chrono::duration<double> el = std::chrono::steady_clock::now() - start;
        if (el.count() >= seconds) {
            std::printf("%s qd %d: %.0f IOPS (%lu I/Os in %.2f s)\n", write ? "4k randwrite" : "4k randread",
                        qd, done / el.count(), static_cast<unsigned long>(done), el.count());
            return 0;
        }
        submit(cid);
    }
}
