// Walks a JSON document and collects every problem as "<path>: <message>". Each getter checks
// one field's type and range and returns nullopt (after recording the error) when it is wrong,
// so one pass over a file reports everything instead of stopping at the first mistake.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace skiff::config::detail {

using nlohmann::json;

// "subsystems[0]" + "nqn" -> "subsystems[0].nqn"; "" + "target" -> "target".
std::string join(const std::string &path, const std::string &key);
std::string index(const std::string &path, size_t i);
// A short quote of a JSON value for messages: "ram9", 12, true, an object.
std::string quote(const json &value);

class JsonReader {
  public:
    void error(const std::string &path, const std::string &message);
    void warning(const std::string &path, const std::string &message);
    const std::vector<std::string> &errors() const { return errors_; }
    const std::vector<std::string> &warnings() const { return warnings_; }

    // True when j is an object whose keys are all in `allowed` (unknown keys are errors).
    bool object(const json &j, const std::string &path, const std::vector<const char *> &allowed);
    // True when j is an array (else an error naming `what` the elements should be).
    bool array(const json &j, const std::string &path, const char *what);

    // Field getters: absent -> nullopt, plus an error when required.
    std::optional<std::string> string(const json &obj, const std::string &path, const char *key,
                                      bool required, const char *example = nullptr);
    std::optional<uint64_t> integer(const json &obj, const std::string &path, const char *key, uint64_t min,
                                    uint64_t max, bool required);
    std::optional<bool> boolean(const json &obj, const std::string &path, const char *key);
    // A byte count: an integer or a string with a unit ("512MiB", "1TiB").
    std::optional<uint64_t> size(const json &obj, const std::string &path, const char *key, uint64_t min,
                                 uint64_t max, bool required);
    std::optional<std::vector<std::string>> strings(const json &obj, const std::string &path, const char *key,
                                                    const char *what);

  private:
    std::vector<std::string> errors_, warnings_;
};

} // namespace skiff::config::detail
