// `--help` laid out like a manual page for skiff's command-line tools (skiff-target, skiff-host,
// skiff-ctl, skiff-perf): NAME, SYNOPSIS, DESCRIPTION, then CLI11's OPTIONS (and COMMANDS),
// then FILES, EXAMPLES and SEE ALSO. Header-only; the tools that include it link CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace skiff::cli {

struct ManPage {
    std::string name;        // "skiff-x - what it is", one line
    std::string synopsis;    // one usage form per line
    std::string description; // paragraphs
    std::string files;       // "PATH\n    what it is" entries; empty: no section
    std::string examples;    // commands with a line saying what each does
    std::string see_also;
};

// Indents every line of `text` by four spaces under an upper-case heading.
inline std::string man_section(const std::string &heading, const std::string &text) {
    if (text.empty()) return "";
    std::string out = heading + "\n";
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        out += line.empty() ? "\n" : "    " + line + "\n";
        start = end + 1;
    }
    return out + "\n";
}

// The top-level page drops CLI11's "Usage:" line (SYNOPSIS says it) and names its groups the
// manual-page way; subcommands keep CLI11's own layout.
class ManFormatter : public CLI::Formatter {
  public:
    std::string make_usage(const CLI::App *app, std::string name) const override {
        return app->get_parent() ? CLI::Formatter::make_usage(app, name) : "";
    }
    std::string make_group(std::string group, bool is_positional,
                           std::vector<const CLI::Option *> opts) const override {
        if (group == "Options") group = "OPTIONS";
        if (group == "Positionals") group = "ARGUMENTS";
        return CLI::Formatter::make_group(group, is_positional, opts);
    }
    std::string make_subcommands(const CLI::App *app, CLI::AppFormatMode mode) const override {
        std::string out = CLI::Formatter::make_subcommands(app, mode);
        if (auto at = out.find("Subcommands:"); at != std::string::npos && !app->get_parent())
            out.replace(at, 12, "COMMANDS:");
        return out;
    }
};

inline void set_man_page(CLI::App &app, const ManPage &page) {
    std::string top = man_section("NAME", page.name) + man_section("SYNOPSIS", page.synopsis) +
                      man_section("DESCRIPTION", page.description);
    while (!top.empty() && top.back() == '\n') top.pop_back(); // CLI11 adds the line break
    app.description(top);
    app.footer(man_section("FILES", page.files) + man_section("EXAMPLES", page.examples) +
               man_section("SEE ALSO", page.see_also));
    auto formatter = std::make_shared<ManFormatter>();
    formatter->column_width(36);
    app.formatter(formatter);
}

} // namespace skiff::cli
