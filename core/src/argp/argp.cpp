// doca_argp: DOCA's command-line parser. The state is process-wide (DOCA's API has no handle);
// parameters are kept in registration order, which is also the order of the usage text.
#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct doca_argp_param {
    std::string short_name;
    std::string long_name;
    std::string arguments;
    std::string description;
    doca_argp_param_cb_t callback = nullptr;
    doca_argp_type type = DOCA_ARGP_TYPE_UNKNOWN;
    bool mandatory = false;
    bool multiple = false;
    int seen = 0;
};

namespace {

constexpr int kDefaultLogLevel = DOCA_LOG_LEVEL_INFO;
constexpr int kDefaultSdkLogLevel = DOCA_LOG_LEVEL_WARNING;

struct Parser {
    bool initialized = false;
    std::string program;
    void *config = nullptr;
    std::vector<std::unique_ptr<doca_argp_param>> params;
    doca_argp_param_cb_t version_cb = nullptr;
    doca_argp_validation_cb_t validation_cb = nullptr;
    doca_argp_dpdk_cb_t dpdk_cb = nullptr;
    int log_level = kDefaultLogLevel;
    int sdk_log_level = kDefaultSdkLogLevel;
};

Parser &parser() {
    static Parser p;
    return p;
}

// The flags every program has, shown first in the usage.
struct Builtin {
    const char *short_name;
    const char *long_name;
    const char *arguments;
    const char *description;
};
constexpr Builtin kBuiltins[] = {
    {"h", "help", "", "Print a help synopsis"},
    {"v", "version", "", "Print program version information"},
    {"l", "log-level", "<value>",
     "Set the (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, "
     "60=DEBUG, 70=TRACE>"},
    {"", "sdk-log-level", "<value>",
     "Set the SDK (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, "
     "50=INFO, "
     "60=DEBUG, 70=TRACE>"},
    {"j", "json", "<path>", "Parse command line flags from an input json file (not supported by skiff)"},
};

std::string flag_text(const std::string &short_name, const std::string &long_name, const std::string &args) {
    std::string s = "  ";
    if (!short_name.empty()) s += "-" + short_name + (long_name.empty() ? "" : ", ");
    if (!long_name.empty()) s += "--" + long_name;
    if (!args.empty()) s += " " + args;
    return s;
}

void print_line(FILE *out, const std::string &flag, const std::string &description) {
    if (flag.size() < 40)
        std::fprintf(out, "%-40s%s\n", flag.c_str(), description.c_str());
    else
        std::fprintf(out, "%s\n%-40s%s\n", flag.c_str(), "", description.c_str());
}

const char *default_arguments(doca_argp_type type) {
    switch (type) {
    case DOCA_ARGP_TYPE_INT:
        return "<num>";
    case DOCA_ARGP_TYPE_STRING:
        return "<str>";
    default:
        return "";
    }
}

void print_usage(FILE *out) {
    Parser &p = parser();
    std::fprintf(out, "Usage: %s [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n", p.program.c_str());
    for (const Builtin &b : kBuiltins)
        print_line(out, flag_text(b.short_name, b.long_name, b.arguments), b.description);
    if (!p.params.empty()) std::fprintf(out, "\nProgram Flags:\n");
    for (const auto &param : p.params) {
        std::string args = param->arguments.empty() ? default_arguments(param->type) : param->arguments;
        std::string desc = param->description;
        if (param->mandatory) desc += " (mandatory)";
        if (param->multiple) desc += " (may be repeated)";
        print_line(out, flag_text(param->short_name, param->long_name, args), desc);
    }
}

std::string display_name(const doca_argp_param &param) {
    return param.long_name.empty() ? "-" + param.short_name : "--" + param.long_name;
}

doca_error_t parse_int(std::string_view flag, const char *text, int *out) {
    errno = 0;
    char *end = nullptr;
    long v = std::strtol(text, &end, 0);
    if (*text == '\0' || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) {
        std::fprintf(stderr, "%.*s: \"%s\" is not an integer (decimal, 0x hex or 0 octal, fitting an int)\n",
                     int(flag.size()), flag.data(), text);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *out = int(v);
    return DOCA_SUCCESS;
}

doca_error_t parse_log_level(std::string_view flag, const char *text, int *out) {
    int level = 0;
    if (doca_error_t err = parse_int(flag, text, &level); err != DOCA_SUCCESS) return err;
    if (level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE) {
        std::fprintf(stderr, "%.*s: %d is not a log level; use 10 (DISABLE) to 70 (TRACE)\n",
                     int(flag.size()), flag.data(), level);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *out = level;
    return DOCA_SUCCESS;
}

doca_argp_param *find_param(std::string_view name, bool long_form) {
    for (auto &param : parser().params)
        if ((long_form ? param->long_name : param->short_name) == name) return param.get();
    // Accept the other form too (DOCA programs are called both ways, e.g. -pci-addr).
    for (auto &param : parser().params)
        if ((long_form ? param->short_name : param->long_name) == name) return param.get();
    return nullptr;
}

const Builtin *find_builtin(std::string_view name) {
    if (name.empty()) return nullptr; // a parameter without a short (or long) name
    for (const Builtin &b : kBuiltins)
        if (name == b.short_name || name == b.long_name) return &b;
    return nullptr;
}

[[noreturn]] void print_version_and_exit() {
    Parser &p = parser();
    if (p.version_cb) {
        p.version_cb(nullptr, p.config);
    } else {
        std::printf("DOCA SDK     Version (Compilation): %s\n", doca_version());
        std::printf("DOCA Runtime Version (Runtime):     %s\n", doca_version_runtime());
    }
    std::exit(EXIT_SUCCESS);
}

// Splits "-name=value" / "--name=value"; value is nullptr without '='.
struct Flag {
    std::string name;
    const char *value = nullptr;
    bool long_form = false;
};

Flag split_flag(const char *arg) {
    Flag f;
    f.long_form = arg[1] == '-';
    const char *name = arg + (f.long_form ? 2 : 1);
    if (const char *eq = std::strchr(name, '='); eq != nullptr) {
        f.name.assign(name, eq);
        f.value = eq + 1;
    } else {
        f.name = name;
    }
    return f;
}

doca_error_t usage_error(doca_error_t err) {
    std::fprintf(stderr, "\n");
    print_usage(stderr);
    return err;
}

doca_error_t take_value(const Flag &f, int argc, char **argv, int *i, const char **value) {
    if (f.value != nullptr) {
        *value = f.value;
        return DOCA_SUCCESS;
    }
    if (*i + 1 >= argc) {
        std::fprintf(stderr, "%s%s: a value is missing\n", f.long_form ? "--" : "-", f.name.c_str());
        return DOCA_ERROR_INVALID_VALUE;
    }
    *value = argv[++*i];
    return DOCA_SUCCESS;
}

doca_error_t handle_builtin(const Builtin &b, const Flag &f, int argc, char **argv, int *i) {
    Parser &p = parser();
    std::string_view name = b.long_name;
    if (name == "help") {
        print_usage(stdout);
        std::exit(EXIT_SUCCESS);
    }
    if (name == "version") print_version_and_exit();
    if (name == "json") {
        std::fprintf(stderr,
                     "-j/--json: JSON configuration files are not supported by skiff; pass the flags on "
                     "the command line\n");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    const char *value = nullptr;
    if (doca_error_t err = take_value(f, argc, argv, i, &value); err != DOCA_SUCCESS) return err;
    if (name == "log-level") {
        if (doca_error_t err = parse_log_level("--log-level", value, &p.log_level); err != DOCA_SUCCESS)
            return err;
        return doca_log_level_set_global_lower_limit(uint32_t(p.log_level));
    }
    if (doca_error_t err = parse_log_level("--sdk-log-level", value, &p.sdk_log_level); err != DOCA_SUCCESS)
        return err;
    return doca_log_level_set_global_sdk_limit(uint32_t(p.sdk_log_level));
}

doca_error_t handle_param(doca_argp_param &param, const Flag &f, int argc, char **argv, int *i) {
    Parser &p = parser();
    std::string flag = display_name(param);
    if (param.seen > 0 && !param.multiple) {
        std::fprintf(stderr, "%s: given more than once (it takes one value)\n", flag.c_str());
        return DOCA_ERROR_INVALID_VALUE;
    }
    ++param.seen;
    if (param.type == DOCA_ARGP_TYPE_BOOLEAN) {
        if (f.value != nullptr) {
            std::fprintf(stderr, "%s: a boolean flag takes no value (got \"%s\")\n", flag.c_str(), f.value);
            return DOCA_ERROR_INVALID_VALUE;
        }
        bool yes = true;
        return param.callback(&yes, p.config);
    }
    const char *value = nullptr;
    if (doca_error_t err = take_value(f, argc, argv, i, &value); err != DOCA_SUCCESS) return err;
    if (param.type == DOCA_ARGP_TYPE_INT) {
        int n = 0;
        if (doca_error_t err = parse_int(flag, value, &n); err != DOCA_SUCCESS) return err;
        return param.callback(&n, p.config);
    }
    // The callback gets a copy it may keep only for the call, as DOCA documents.
    std::string copy = value;
    return param.callback(copy.data(), p.config);
}

doca_error_t check_mandatory() {
    for (const auto &param : parser().params) {
        if (param->mandatory && param->seen == 0) {
            std::fprintf(stderr, "%s is mandatory and was not given\n", display_name(*param).c_str());
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    return DOCA_SUCCESS;
}

bool valid_for_registration(const doca_argp_param &param) {
    const char *problem = nullptr;
    if (param.short_name.empty() && param.long_name.empty())
        problem = "has no name (set a short or a long name)";
    else if (param.description.empty())
        problem = "has no description (doca_argp_param_set_description)";
    else if (param.callback == nullptr)
        problem = "has no callback (doca_argp_param_set_callback)";
    else if (param.type == DOCA_ARGP_TYPE_UNKNOWN)
        problem = "has no type (doca_argp_param_set_type)";
    else if (param.type == DOCA_ARGP_TYPE_JSON_OBJ)
        problem = "is a JSON object, which only JSON mode knows (not supported)";
    else if (find_builtin(param.short_name) || find_builtin(param.long_name))
        problem = "uses the name of a built-in DOCA flag";
    else {
        for (const auto &other : parser().params) {
            if ((!param.short_name.empty() && other->short_name == param.short_name) ||
                (!param.long_name.empty() && other->long_name == param.long_name))
                problem = "uses a name registered already";
        }
    }
    if (problem == nullptr) return true;
    std::fprintf(stderr, "doca_argp_register_param: parameter %s %s\n", display_name(param).c_str(), problem);
    return false;
}

} // namespace

void doca_argp_usage(void) {
    print_usage(stdout);
    std::exit(EXIT_SUCCESS);
}

doca_error_t doca_argp_init(const char *program_name, void *program_config) {
    Parser &p = parser();
    if (p.initialized) return DOCA_ERROR_BAD_STATE;
    p = Parser{};
    p.initialized = true;
    p.program = program_name != nullptr ? program_name : "";
    p.config = program_config;
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param) {
    if (input_param == nullptr) return DOCA_ERROR_INVALID_VALUE;
    std::unique_ptr<doca_argp_param> param(input_param); // ours from now on, also on failure
    if (!parser().initialized) return DOCA_ERROR_BAD_STATE;
    if (!valid_for_registration(*param)) return DOCA_ERROR_INVALID_VALUE;
    parser().params.push_back(std::move(param));
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback) {
    if (callback == nullptr) return DOCA_ERROR_INVALID_VALUE;
    parser().version_cb = callback;
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback) {
    if (callback == nullptr) return DOCA_ERROR_INVALID_VALUE;
    parser().validation_cb = callback;
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_start(int argc, char **argv) {
    Parser &p = parser();
    if (!p.initialized) return DOCA_ERROR_BAD_STATE;
    if (argc < 1 || argv == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (p.program.empty()) {
        const char *slash = std::strrchr(argv[0], '/');
        p.program = slash != nullptr ? slash + 1 : argv[0];
    }
    for (auto &param : p.params) param->seen = 0;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (std::strcmp(arg, "--") == 0) {
            if (p.dpdk_cb == nullptr) {
                std::fprintf(stderr, "\"--\": this program takes no DPDK flags\n");
                return usage_error(DOCA_ERROR_NOT_SUPPORTED);
            }
            std::vector<char *> dpdk_argv{argv[0]};
            for (int j = i + 1; j < argc; ++j) dpdk_argv.push_back(argv[j]);
            dpdk_argv.push_back(nullptr);
            if (doca_error_t err = p.dpdk_cb(int(dpdk_argv.size() - 1), dpdk_argv.data());
                err != DOCA_SUCCESS)
                return err;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            std::fprintf(stderr, "\"%s\": unexpected argument (every value follows its flag)\n", arg);
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
        Flag f = split_flag(arg);
        doca_error_t err = DOCA_SUCCESS;
        if (doca_argp_param *param = find_param(f.name, f.long_form); param != nullptr) {
            err = handle_param(*param, f, argc, argv, &i);
        } else if (const Builtin *b = find_builtin(f.name); b != nullptr) {
            err = handle_builtin(*b, f, argc, argv, &i);
        } else {
            std::fprintf(stderr, "%s: unknown flag\n", arg);
            err = DOCA_ERROR_NOT_SUPPORTED;
        }
        if (err != DOCA_SUCCESS) return usage_error(err);
    }
    if (doca_error_t err = check_mandatory(); err != DOCA_SUCCESS) return usage_error(err);
    if (p.validation_cb != nullptr) {
        if (doca_error_t err = p.validation_cb(p.config); err != DOCA_SUCCESS) {
            std::fprintf(stderr, "the program's validation of its flags failed: %s\n",
                         doca_error_get_descr(err));
            return err;
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_destroy(void) {
    parser() = Parser{};
    return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback) {
    parser().dpdk_cb = callback;
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param) {
    if (param == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *param = new (std::nothrow) doca_argp_param();
    return *param != nullptr ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name) {
    param->short_name = name != nullptr ? name : "";
}
void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name) {
    param->long_name = name != nullptr ? name : "";
}
void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments) {
    param->arguments = arguments != nullptr ? arguments : "";
}
void doca_argp_param_set_description(struct doca_argp_param *param, const char *description) {
    param->description = description != nullptr ? description : "";
}
void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback) {
    param->callback = callback;
}
void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type) {
    param->type = type;
}
void doca_argp_param_set_mandatory(struct doca_argp_param *param) {
    param->mandatory = true;
}
void doca_argp_param_set_cli_only(struct doca_argp_param *) {}
void doca_argp_param_set_multiplicity(struct doca_argp_param *param) {
    param->multiple = true;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param) {
    if (param == nullptr) return DOCA_ERROR_INVALID_VALUE;
    delete param;
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_log_level(int *log_level) {
    if (log_level == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *log_level = parser().log_level;
    return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level) {
    if (log_level == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *log_level = parser().sdk_log_level;
    return DOCA_SUCCESS;
}
