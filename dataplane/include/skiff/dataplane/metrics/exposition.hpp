// The Prometheus text exposition format, version 0.0.4: HELP and TYPE lines, samples with
// escaped label values, histograms as cumulative buckets. Nothing here knows what skiff
// measures (target_metrics.hpp does); it only writes the format right.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::dataplane::metrics {

// What an HTTP response carrying this format says it is.
inline constexpr const char *kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

// Label names are fixed by the code (valid by construction); values are anything (escaped).
using Labels = std::vector<std::pair<std::string, std::string>>;

// A label value as the format needs it: backslash, double quote and line feed escaped.
std::string escape_label_value(std::string_view value);
// HELP text: backslash and line feed escaped (quotes stay as they are).
std::string escape_help(std::string_view text);
// A sample value or bucket bound: the shortest text that reads back as the same double, and
// "+Inf", "-Inf", "NaN" as the format spells them.
std::string format_value(double value);

class Exposition {
  public:
    // Starts a metric family (type "counter", "gauge" or "histogram"). Every sample of a family
    // must follow its family() call before the next family starts.
    void family(std::string_view name, std::string_view type, std::string_view help);
    void sample(std::string_view name, const Labels &labels, uint64_t value);
    void sample(std::string_view name, const Labels &labels, double value);
    // One histogram series: `counts` holds one count per bucket, not cumulative, bounds.size() + 1
    // of them (the last for values above every bound). Writes name_bucket{le=...} cumulatively,
    // ending with le="+Inf" (the total count), then name_sum and name_count.
    void histogram(std::string_view name, const Labels &labels, std::span<const double> bounds,
                   std::span<const uint64_t> counts, double sum);

    const std::string &text() const { return out_; }
    std::string take() { return std::move(out_); }

  private:
    void line(std::string_view name, std::string_view suffix, const Labels &labels, std::string_view le,
              std::string_view value);

    std::string out_;
};

} // namespace skiff::dataplane::metrics
