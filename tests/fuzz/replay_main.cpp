// The main of a fuzz harness in a normal (non-libFuzzer) build: runs every file named on the
// command line, or found in a folder named there, through LLVMFuzzerTestOneInput once. A crash,
// a sanitizer report or an abort fails the test that runs it (fuzz-replay.<harness>); so an input
// that once crashed a fuzzer, committed under regressions/, is replayed by every test run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

namespace {

void run_file(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A copy of exactly `size` bytes on the heap, as libFuzzer gives it: ASan sees a read past the end.
    std::vector<uint8_t> exact(bytes);
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2 || std::string_view(argv[1]) == "--help") {
        std::fprintf(stderr,
                     "usage: %s FILE|FOLDER...\n"
                     "Runs each input file (every regular file of each FOLDER) through this fuzz\n"
                     "harness once. A missing folder is skipped. Exit status 0 when every input ran.\n",
                     argv[0]);
        return argc < 2 ? 2 : 0;
    }
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    size_t runs = 0;
    for (int i = 1; i < argc; ++i) {
        std::filesystem::path p(argv[i]);
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec)) {
            std::vector<std::filesystem::path> files;
            for (auto &e : std::filesystem::directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (auto &f : files) {
                run_file(f);
                ++runs;
            }
        } else if (std::filesystem::exists(p, ec)) {
            run_file(p);
            ++runs;
        }
    }
    std::printf("replayed %zu inputs\n", runs);
    return 0;
}
