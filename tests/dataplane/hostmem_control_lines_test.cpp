// The hostmem control channel's lines and their split into comch messages of at most 4080 bytes.
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace skiff::dataplane::hostmem;

namespace {

// Feeds fragments to an assembler; the lines it completed.
std::vector<std::string> assemble(LineAssembler &a, const std::vector<std::string> &parts) {
    std::vector<std::string> lines;
    for (const std::string &p : parts) {
        std::string line;
        if (a.add(reinterpret_cast<const uint8_t *>(p.data()), p.size(), line)) lines.push_back(line);
    }
    return lines;
}

} // namespace

TEST(HostmemControlLines, ALongLineTravelsAsFragmentsOfAtMostTheMessageSizeAndComesBackWhole) {
    std::string line(10000, 'a');
    for (size_t i = 0; i < line.size(); ++i) line[i] = static_cast<char>('a' + i % 26);
    std::vector<std::string> parts = split_line(line, 4080);
    ASSERT_EQ(parts.size(), 3u); // 4079 + 4079 + 1842 bytes of line
    for (const std::string &p : parts) EXPECT_LE(p.size(), 4080u);
    EXPECT_EQ(parts[0][0], '+');
    EXPECT_EQ(parts[1][0], '+');
    EXPECT_EQ(parts[2][0], '.');
    LineAssembler a;
    EXPECT_EQ(assemble(a, parts), std::vector<std::string>{line});
    // A short line is one fragment; an empty one too.
    EXPECT_EQ(split_line("REVOKED 7", 4080), std::vector<std::string>{".REVOKED 7"});
    EXPECT_EQ(split_line("", 4080), std::vector<std::string>{"."});
    // Exactly one message's room: still one fragment.
    EXPECT_EQ(split_line(std::string(4079, 'x'), 4080).size(), 1u);
    EXPECT_EQ(split_line(std::string(4080, 'x'), 4080).size(), 2u);
}

TEST(HostmemControlLines, AMalformedFragmentOrAnOversizedLineIsDroppedAndTheNextLineStillArrives) {
    LineAssembler a;
    EXPECT_TRUE(assemble(a, {"+half of a line", "garbage without a marker"}).empty());
    EXPECT_EQ(assemble(a, {".REVOKED 1"}), std::vector<std::string>{"REVOKED 1"});
    std::vector<std::string> huge = split_line(std::string(LineAssembler::kMaxLine + 20000, 'x'), 4080);
    EXPECT_TRUE(assemble(a, huge).empty());
    EXPECT_EQ(assemble(a, {".REVOKED 2"}), std::vector<std::string>{"REVOKED 2"});
}

TEST(HostmemControlLines, TheExportLineRoundTripsAndABadOneIsRefusedWithWhatWasExpected) {
    ExportRecord r;
    r.descriptor = {0x00, 0x01, 0xab, 0xff};
    r.host_addr = 0x7f0000001000;
    r.length = 8 << 20;
    r.generation = 42;
    auto back = parse_export_line(export_line(r));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->descriptor, r.descriptor);
    EXPECT_EQ(back->host_addr, r.host_addr);
    EXPECT_EQ(back->length, r.length);
    EXPECT_EQ(back->generation, r.generation);
    auto bad = parse_export_line("EXPORT zz 1 2 3");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("expected \"EXPORT <hex descriptor>"), std::string::npos)
        << bad.error().message;
}
