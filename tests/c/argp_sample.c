/*
 * DOCA's command-line parser as DOCA programs use it, against the public headers only: string, int
 * and boolean parameters with short and long names, a mandatory one, a repeatable one, callbacks
 * that fill the program configuration, a validation callback, the built-in log level; errors for
 * unknown flags, missing values, bad integers, a missing mandatory parameter, a repeat of a
 * parameter that may appear once; --help (usage, exit 0) and --version in a child process. Also
 * doca_version.h and a log source registered with a "::" name, as DOCA's samples write it.
 * Exits non-zero on any failure.
 */
#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_version.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

DOCA_LOG_REGISTER(ARGP_SAMPLE::MAIN);

static int failures;

#define CHECK(cond, what)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what);                                   \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

struct config {
    char pci[32];
    int count;
    bool verbose;
    int tags;
    int validated;
};

static doca_error_t pci_cb(void *param, void *config) {
    struct config *cfg = config;
    const char *value = param;
    if (strlen(value) >= sizeof cfg->pci) return DOCA_ERROR_INVALID_VALUE;
    strcpy(cfg->pci, value);
    return DOCA_SUCCESS;
}

static doca_error_t count_cb(void *param, void *config) {
    struct config *cfg = config;
    int value = *(int *)param;
    if (value < 0) return DOCA_ERROR_INVALID_VALUE; /* the program's own range check */
    cfg->count = value;
    return DOCA_SUCCESS;
}

static doca_error_t verbose_cb(void *param, void *config) {
    ((struct config *)config)->verbose = *(bool *)param;
    return DOCA_SUCCESS;
}

static doca_error_t tag_cb(void *param, void *config) {
    (void)param;
    ((struct config *)config)->tags++;
    return DOCA_SUCCESS;
}

static doca_error_t validate_cb(void *config) {
    struct config *cfg = config;
    cfg->validated++;
    return cfg->count == 13 ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
}

static void add_param(const char *short_name, const char *long_name, enum doca_argp_type type,
                      doca_argp_param_cb_t cb, bool mandatory, bool multiple) {
    struct doca_argp_param *p = NULL;
    CHECK(doca_argp_param_create(&p) == DOCA_SUCCESS, "param_create");
    if (short_name) doca_argp_param_set_short_name(p, short_name);
    doca_argp_param_set_long_name(p, long_name);
    doca_argp_param_set_description(p, "a test parameter");
    doca_argp_param_set_callback(p, cb);
    doca_argp_param_set_type(p, type);
    if (mandatory) doca_argp_param_set_mandatory(p);
    if (multiple) doca_argp_param_set_multiplicity(p);
    CHECK(doca_argp_register_param(p) == DOCA_SUCCESS, long_name);
}

/* A fresh parser with the program's parameters, as a program's main sets it up. */
static void setup(struct config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    CHECK(doca_argp_init("argp_sample", cfg) == DOCA_SUCCESS, "argp_init");
    add_param("p", "pci-addr", DOCA_ARGP_TYPE_STRING, pci_cb, true, false);
    add_param("n", "count", DOCA_ARGP_TYPE_INT, count_cb, false, false);
    add_param(NULL, "verbose", DOCA_ARGP_TYPE_BOOLEAN, verbose_cb, false, false); /* long name only */
    add_param("t", "tag", DOCA_ARGP_TYPE_STRING, tag_cb, false, true);
    CHECK(doca_argp_register_validation_callback(validate_cb) == DOCA_SUCCESS, "validation callback");
}

static doca_error_t parse(struct config *cfg, int argc, char **argv) {
    setup(cfg);
    doca_error_t rc = doca_argp_start(argc, argv);
    doca_argp_destroy();
    return rc;
}

#define ARGV(...) ((char *[]){"argp_sample", __VA_ARGS__})
#define ARGC(...) ((int)(sizeof((char *[]){"argp_sample", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(cfg, ...) parse(cfg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

/* Runs a parse in a child with stdout captured; returns the exit status, output in out. */
static int run_child(char **argv, int argc, char *out, size_t out_len) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct config cfg;
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        setup(&cfg);
        doca_argp_start(argc, argv);
        _exit(99); /* --help / --version exit by themselves */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < out_len && (n = read(fds[0], out + got, out_len - 1 - got)) > 0) got += (size_t)n;
    out[got] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void) {
    struct config cfg;
    int level = 0;

    /* doca_version.h */
    CHECK(strcmp(doca_version(), DOCA_VER_STRING) == 0, "doca_version");
    CHECK(strncmp(doca_version_runtime(), DOCA_VER_STRING, strlen(DOCA_VER_STRING)) == 0,
          "doca_version_runtime");
    CHECK(DOCA_VERSION_LTE_CURRENT(2, 7, 0), "DOCA_VERSION_LTE_CURRENT(2, 7, 0)");
    CHECK(!DOCA_VERSION_LTE_CURRENT(DOCA_VER_MAJOR + 1, 0, 0), "a later major is not <= current");
    CHECK(DOCA_VERSION_EQ_CURRENT(DOCA_VER_MAJOR, DOCA_VER_MINOR, DOCA_VER_PATCH), "DOCA_VERSION_EQ_CURRENT");
    DOCA_LOG_INFO("log source registered as ARGP_SAMPLE::MAIN");

    /* Short and long names, '=' values, every type, a repeatable flag. */
    CHECK(PARSE(&cfg, "-p", "03:00.0", "--count=42", "--verbose", "-t", "a", "--tag", "b") == DOCA_SUCCESS,
          "a full command line");
    CHECK(strcmp(cfg.pci, "03:00.0") == 0, "string value");
    CHECK(cfg.count == 42, "int value");
    CHECK(cfg.verbose, "boolean flag");
    CHECK(cfg.tags == 2, "repeatable flag seen twice");
    CHECK(cfg.validated == 1, "validation callback ran once");
    CHECK(PARSE(&cfg, "--pci-addr", "x", "-n", "0x10") == DOCA_SUCCESS && cfg.count == 16, "hex integer");
    CHECK(!cfg.verbose, "boolean flag absent");

    /* Built-in log level. */
    CHECK(PARSE(&cfg, "-p", "x", "-l", "60") == DOCA_SUCCESS, "-l 60");
    CHECK(doca_argp_get_log_level(&level) == DOCA_SUCCESS, "get_log_level");
    CHECK(level == 50, "destroy resets the log level to the default (50)");
    setup(&cfg);
    CHECK(doca_argp_start(ARGC("-p", "x", "--log-level", "60"), ARGV("-p", "x", "--log-level", "60")) ==
              DOCA_SUCCESS,
          "--log-level 60");
    CHECK(doca_argp_get_log_level(&level) == DOCA_SUCCESS && level == 60, "log level 60 while initialized");
    doca_argp_destroy();
    doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO);

    /* Errors: each one fails the parse with the documented code. */
    CHECK(PARSE(&cfg, "-p", "x", "--no-such-flag") == DOCA_ERROR_NOT_SUPPORTED, "unknown flag");
    CHECK(PARSE(&cfg, "-p") == DOCA_ERROR_INVALID_VALUE, "missing value");
    CHECK(PARSE(&cfg, "-p", "x", "-n", "12abc") == DOCA_ERROR_INVALID_VALUE, "malformed integer");
    CHECK(PARSE(&cfg, "-p", "x", "-n", "99999999999") == DOCA_ERROR_INVALID_VALUE,
          "integer out of int range");
    CHECK(PARSE(&cfg, "-n", "1") == DOCA_ERROR_INVALID_VALUE, "missing mandatory parameter");
    CHECK(PARSE(&cfg, "-p", "x", "-p", "y") == DOCA_ERROR_INVALID_VALUE, "a once-only parameter twice");
    CHECK(PARSE(&cfg, "-p", "x", "--verbose=yes") == DOCA_ERROR_INVALID_VALUE, "a value for a boolean flag");
    CHECK(PARSE(&cfg, "-p", "x", "-n", "-5") == DOCA_ERROR_INVALID_VALUE, "the callback's own error");
    CHECK(PARSE(&cfg, "-p", "x", "stray") == DOCA_ERROR_INVALID_VALUE, "a stray argument");
    cfg.validated = 0;
    CHECK(PARSE(&cfg, "-p", "x", "-n", "13") == DOCA_ERROR_INVALID_VALUE && cfg.validated == 1,
          "the validation callback's error");
    CHECK(PARSE(&cfg, "-p", "x", "-l", "99") == DOCA_ERROR_INVALID_VALUE, "log level outside 10..70");
    CHECK(PARSE(&cfg, "-p", "x", "-j", "cfg.json") == DOCA_ERROR_NOT_SUPPORTED, "JSON mode is not supported");

    /* Registration rules. */
    CHECK(doca_argp_init("argp_sample", &cfg) == DOCA_SUCCESS, "init");
    CHECK(doca_argp_init("argp_sample", &cfg) == DOCA_ERROR_BAD_STATE, "a second init");
    struct doca_argp_param *p = NULL;
    doca_argp_param_create(&p);
    doca_argp_param_set_long_name(p, "nameless-callback");
    doca_argp_param_set_description(p, "no callback");
    doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
    CHECK(doca_argp_register_param(p) == DOCA_ERROR_INVALID_VALUE, "a parameter without a callback");
    add_param("x", "dup", DOCA_ARGP_TYPE_INT, count_cb, false, false);
    doca_argp_param_create(&p);
    doca_argp_param_set_long_name(p, "dup");
    doca_argp_param_set_description(p, "same name");
    doca_argp_param_set_callback(p, count_cb);
    doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
    CHECK(doca_argp_register_param(p) == DOCA_ERROR_INVALID_VALUE, "a name registered twice");
    doca_argp_destroy();

    /* --help prints the usage and exits 0; so does --version. */
    char out[8192];
    CHECK(run_child(ARGV("--help"), ARGC("--help"), out, sizeof out) == 0, "--help exits 0");
    CHECK(strstr(out, "Usage: argp_sample") != NULL, "usage names the program");
    CHECK(strstr(out, "-p, --pci-addr") != NULL, "usage lists -p, --pci-addr");
    CHECK(strstr(out, "--verbose") != NULL, "usage lists --verbose");
    CHECK(strstr(out, "(mandatory)") != NULL, "usage marks the mandatory parameter");
    CHECK(strstr(out, "-l, --log-level") != NULL, "usage lists the built-in flags");
    CHECK(run_child(ARGV("-v"), ARGC("-v"), out, sizeof out) == 0, "--version exits 0");
    CHECK(strstr(out, DOCA_VER_STRING) != NULL, "--version prints the version");

    if (failures) {
        fprintf(stderr, "argp_sample: %d check(s) failed\n", failures);
        return EXIT_FAILURE;
    }
    printf("argp_sample: all checks passed\n");
    return EXIT_SUCCESS;
}
