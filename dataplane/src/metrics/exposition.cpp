#include "skiff/dataplane/metrics/exposition.hpp"

#include <charconv>
#include <cmath>

namespace skiff::dataplane::metrics {

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string escape_help(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string format_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
    return std::string(buf, end);
}

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
    out_.append("# HELP ").append(name).append(" ").append(escape_help(help)).append("\n");
    out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void Exposition::sample(std::string_view name, const Labels &labels, uint64_t value) {
    line(name, "", labels, "", std::to_string(value));
}

void Exposition::sample(std::string_view name, const Labels &labels, double value) {
    line(name, "", labels, "", format_value(value));
}

void Exposition::histogram(std::string_view name, const Labels &labels, std::span<const double> bounds,
                           std::span<const uint64_t> counts, double sum) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < bounds.size(); ++i) {
        cumulative += i < counts.size() ? counts[i] : 0;
        line(name, "_bucket", labels, format_value(bounds[i]), std::to_string(cumulative));
    }
    for (size_t i = bounds.size(); i < counts.size(); ++i) cumulative += counts[i];
    line(name, "_bucket", labels, "+Inf", std::to_string(cumulative));
    line(name, "_sum", labels, "", format_value(sum));
    line(name, "_count", labels, "", std::to_string(cumulative));
}

// name+suffix{labels...,le="..."} value
void Exposition::line(std::string_view name, std::string_view suffix, const Labels &labels,
                      std::string_view le, std::string_view value) {
    out_.append(name).append(suffix);
    if (!labels.empty() || !le.empty()) {
        out_ += '{';
        bool first = true;
        for (auto &[k, v] : labels) {
            if (!first) out_ += ',';
            first = false;
            out_.append(k).append("=\"").append(escape_label_value(v)).append("\"");
        }
        if (!le.empty()) out_.append(first ? "" : ",").append("le=\"").append(le).append("\"");
        out_ += '}';
    }
    out_.append(" ").append(value).append("\n");
}

} // namespace skiff::dataplane::metrics
