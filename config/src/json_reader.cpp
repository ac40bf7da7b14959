#include "json_reader.hpp"

#include "skiff/config/units.hpp"

namespace skiff::config::detail {

std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
}

std::string index(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

std::string quote(const json &value) {
    if (value.is_object()) return "an object";
    if (value.is_array()) return "an array";
    if (value.is_null()) return "null";
    std::string s = value.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

void JsonReader::error(const std::string &path, const std::string &message) {
    errors_.push_back(path + ": " + message);
}

void JsonReader::warning(const std::string &path, const std::string &message) {
    warnings_.push_back(path + ": " + message);
}

bool JsonReader::object(const json &j, const std::string &path, const std::vector<const char *> &allowed) {
    if (!j.is_object()) {
        error(path.empty() ? "(top level)" : path, "expected an object, got " + quote(j));
        return false;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const char *k : allowed) known |= it.key() == k;
        if (known) continue;
        std::string list;
        for (const char *k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
        error(join(path, it.key()), "unknown key; expected one of " + list);
    }
    return true;
}

bool JsonReader::array(const json &j, const std::string &path, const char *what) {
    if (j.is_array()) return true;
    error(path, std::string("expected an array of ") + what + ", got " + quote(j));
    return false;
}

std::optional<std::string> JsonReader::string(const json &obj, const std::string &path, const char *key,
                                              bool required, const char *example) {
    std::string p = join(path, key);
    auto it = obj.find(key);
    std::string expected = example ? std::string("a string such as \"") + example + "\"" : "a string";
    if (it == obj.end()) {
        if (required) error(p, "missing; expected " + expected);
        return std::nullopt;
    }
    if (!it->is_string()) {
        error(p, "expected " + expected + ", got " + quote(*it));
        return std::nullopt;
    }
    return it->get<std::string>();
}

std::optional<uint64_t> JsonReader::integer(const json &obj, const std::string &path, const char *key,
                                            uint64_t min, uint64_t max, bool required) {
    std::string p = join(path, key);
    std::string expected = "an integer " + std::to_string(min) + ".." + std::to_string(max);
    auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) error(p, "missing; expected " + expected);
        return std::nullopt;
    }
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
        error(p, "expected " + expected + ", got " + quote(*it));
        return std::nullopt;
    }
    uint64_t v = it->get<uint64_t>();
    if (v < min || v > max) {
        error(p, "expected " + expected + ", got " + std::to_string(v));
        return std::nullopt;
    }
    return v;
}

std::optional<bool> JsonReader::boolean(const json &obj, const std::string &path, const char *key) {
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!it->is_boolean()) {
        error(join(path, key), "expected true or false, got " + quote(*it));
        return std::nullopt;
    }
    return it->get<bool>();
}

std::optional<uint64_t> JsonReader::size(const json &obj, const std::string &path, const char *key,
                                         uint64_t min, uint64_t max, bool required) {
    std::string p = join(path, key);
    std::string expected = "a size such as \"512MiB\" or \"1TiB\" (or a byte count) from " +
                           format_size(min) + " to " + format_size(max);
    auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) error(p, "missing; expected " + expected);
        return std::nullopt;
    }
    std::optional<uint64_t> v;
    if (it->is_number_integer() && it->get<int64_t>() >= 0) v = it->get<uint64_t>();
    if (it->is_string()) v = parse_size(it->get<std::string>());
    if (!v || *v < min || *v > max) {
        error(p, "expected " + expected + ", got " + quote(*it));
        return std::nullopt;
    }
    return v;
}

std::optional<std::vector<std::string>> JsonReader::strings(const json &obj, const std::string &path,
                                                            const char *key, const char *what) {
    std::string p = join(path, key);
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!array(*it, p, what)) return std::nullopt;
    std::vector<std::string> out;
    bool ok = true;
    for (size_t i = 0; i < it->size(); ++i) {
        const json &v = (*it)[i];
        if (!v.is_string()) {
            error(index(p, i), std::string("expected ") + what + ", got " + quote(v));
            ok = false;
            continue;
        }
        out.push_back(v.get<std::string>());
    }
    if (!ok) return std::nullopt;
    return out;
}

} // namespace skiff::config::detail
