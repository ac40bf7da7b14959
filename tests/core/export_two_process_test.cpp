// PCI export between two processes (spec 5.3 rules 15-17): a host-side exporter process
// (tests/helpers/mem_exporter) and this DPU-side importer, which moves bytes only through
// mmap_read / mmap_write (the path of the DMA engine).
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "../../core/src/mem/mem_access.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

std::vector<uint8_t> from_hex(const std::string &s) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
    return out;
}

uint8_t pattern(size_t i) {
    return static_cast<uint8_t>(i * 7 + 3);
}

// The exporter process, driven line by line over its stdin / stdout.
class Exporter {
  public:
    Exporter(size_t size, const char *mode) {
        int to_child[2], from_child[2];
        EXPECT_EQ(pipe(to_child), 0);
        EXPECT_EQ(pipe(from_child), 0);
        pid_ = fork();
        if (pid_ == 0) {
            dup2(to_child[0], STDIN_FILENO);
            dup2(from_child[1], STDOUT_FILENO);
            close(to_child[1]);
            close(from_child[0]);
            std::string size_arg = std::to_string(size);
            execl(SKIFF_BIN_DIR "/mem_exporter", "mem_exporter", size_arg.c_str(), mode, nullptr);
            _exit(127);
        }
        close(to_child[0]);
        close(from_child[1]);
        in_ = fdopen(to_child[1], "w");
        out_ = fdopen(from_child[0], "r");
        std::istringstream first(line());
        std::string tag, desc_hex, addr_text;
        first >> tag >> desc_hex >> addr_text >> len;
        EXPECT_EQ(tag, "EXPORT");
        desc = from_hex(desc_hex);
        addr = reinterpret_cast<uint8_t *>(std::stoull(addr_text, nullptr, 16));
    }
    ~Exporter() {
        if (pid_ > 0) {
            std::fclose(in_); // EOF ends the command loop
            int status = 0;
            waitpid(pid_, &status, 0);
        }
        std::fclose(out_);
    }

    std::string command(const std::string &cmd) {
        std::fprintf(in_, "%s\n", cmd.c_str());
        std::fflush(in_);
        return line();
    }
    std::vector<uint8_t> bytes(size_t off, size_t n) {
        std::string reply = command("BYTES " + std::to_string(off) + " " + std::to_string(n));
        EXPECT_EQ(reply.rfind("BYTES ", 0), 0u) << reply;
        return from_hex(reply.substr(6));
    }
    void kill_now() {
        ::kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0); // reaped: its address space is gone
        std::fclose(in_);
        pid_ = -1;
    }
    int exit_normally() {
        EXPECT_EQ(std::fprintf(in_, "EXIT\n") > 0, true);
        std::fclose(in_);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    std::vector<uint8_t> desc;
    uint8_t *addr = nullptr;
    size_t len = 0;

  private:
    std::string line() {
        char buf[1 << 16];
        if (std::fgets(buf, sizeof(buf), out_) == nullptr) return "";
        std::string s(buf);
        if (!s.empty() && s.back() == '\n') s.pop_back();
        return s;
    }
    pid_t pid_ = -1;
    FILE *in_ = nullptr;
    FILE *out_ = nullptr;
};

class ExportTwoProcess : public ::testing::Test {
  protected:
    void SetUp() override {
        p0 = skiff::test::open_dpu_p0();
        ASSERT_NE(p0, nullptr);
    }
    void TearDown() override { EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS); }
    doca_mmap *import(const Exporter &ex) {
        doca_mmap *m = nullptr;
        EXPECT_EQ(doca_mmap_create_from_export(nullptr, ex.desc.data(), ex.desc.size(), p0, &m),
                  DOCA_SUCCESS);
        return m;
    }
    doca_dev *p0 = nullptr;
};

} // namespace

TEST_F(ExportTwoProcess, Rule16_ImporterReadsAndWritesTheExportersPages) {
    Exporter ex(1 << 20, "rw");
    ASSERT_EQ(ex.desc.size() > 0, true);
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    uint8_t from_export = 0;
    ASSERT_EQ(doca_mmap_get_from_export(m, &from_export), DOCA_SUCCESS);
    EXPECT_EQ(from_export, 1);
    EXPECT_EQ(skiff::core::mmap_cpu_ptr(m, ex.addr, 16), nullptr); // not CPU-reachable here
    EXPECT_TRUE(skiff::core::mmap_is_imported(m));

    std::vector<uint8_t> got(4096);
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr + 1000, got.data(), got.size()), DOCA_SUCCESS);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], pattern(1000 + i)) << "offset " << 1000 + i;

    std::vector<uint8_t> put(64);
    for (size_t i = 0; i < put.size(); ++i) put[i] = static_cast<uint8_t>(0xa0 + i);
    ASSERT_EQ(skiff::core::mmap_write(m, ex.addr + 2000, put.data(), put.size()), DOCA_SUCCESS);
    EXPECT_EQ(ex.bytes(2000, 64), put);             // verified inside the exporter
    EXPECT_EQ(ex.bytes(1999, 1)[0], pattern(1999)); // neighbours untouched
    EXPECT_EQ(ex.bytes(2064, 1)[0], pattern(2064));

    // Outside the exported range.
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr + ex.len - 8, got.data(), 16), DOCA_ERROR_INVALID_VALUE);

    // Bufs describe the peer memory like any other.
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, ex.addr, 512, &b), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::buf_mmap(b), m);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportTwoProcess, Rule17_ExporterStopRevokesTheImport) {
    Exporter ex(64 * 1024, "rw");
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    uint8_t byte = 0;
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_SUCCESS);
    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    // The descriptor is dead too: importing it again fails the same way.
    doca_mmap *again = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, ex.desc.data(), ex.desc.size(), p0, &again),
              DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(ex.command("DESTROY"), "DESTROYED");
    EXPECT_EQ(ex.exit_normally(), 0);
}

TEST_F(ExportTwoProcess, Rule17_ExporterDestroyWithoutStopRevokesTheImport) {
    Exporter ex(64 * 1024, "rw");
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(ex.command("DESTROY"), "DESTROYED");
    uint8_t byte = 0;
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportTwoProcess, Rule17_ExporterDeathIsNotConnected) {
    Exporter ex(64 * 1024, "rw");
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    std::vector<uint8_t> got(256);
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr, got.data(), got.size()), DOCA_SUCCESS);
    ex.kill_now();
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, got.data(), got.size()), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, got.data(), got.size()), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportTwoProcess, Rule17_ImporterFirstTeardownOrderWorks) {
    Exporter ex(64 * 1024, "rw");
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(ex.command("STOP"), "STOPPED");
    EXPECT_EQ(ex.command("DESTROY"), "DESTROYED");
    EXPECT_EQ(ex.exit_normally(), 0);
}

TEST_F(ExportTwoProcess, ReadOnlyPciExportRefusesWrites) {
    Exporter ex(64 * 1024, "ro");
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(skiff::core::mmap_engine_writable(m));
    uint8_t byte = 0x55;
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr + 10, &byte, 1), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(ex.bytes(10, 1)[0], pattern(10));
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr + 10, &byte, 1), DOCA_SUCCESS);
    EXPECT_EQ(byte, pattern(10));
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}
