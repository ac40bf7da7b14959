// The backend kinds a configuration may name, one table entry each: adding a kind is one entry
// here (which fields it takes and how they are checked) plus one in the dataplane's backend
// factory (dataplane/src/backend/backend_factory.cpp).
#pragma once

#include "json_reader.hpp"
#include "skiff/config/config.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace skiff::config::detail {

struct BackendKind {
    const char *name;
    const char *what;                 // one line for the docs and messages
    std::vector<const char *> fields; // besides name and kind
    // Reads size and the kind's own fields from `in` into `out` (errors go to the reader).
    void (*read)(JsonReader &r, const json &in, const std::string &path, BackendConfig &out);
};

const std::vector<BackendKind> &backend_kinds();
const BackendKind *find_backend_kind(const std::string &name);
// "ram, null, aio"
std::string backend_kind_names();

} // namespace skiff::config::detail
