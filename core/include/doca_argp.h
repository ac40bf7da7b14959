/*
 * skiff core: DOCA ARGP, the command-line parser DOCA programs use.
 *
 * A program creates its parameters (doca_argp_param_create + setters), registers them, then calls
 * doca_argp_start(argc, argv): every parameter found calls its callback with a pointer to the value
 * (STRING: char *, INT: int *, BOOLEAN: bool *, always true: a boolean flag takes no value) and the
 * program configuration given to doca_argp_init. The pointer is valid only during the callback.
 *
 * Names: `-x`/`-xy` are short names, `--name` long names; a value follows as the next argument or
 * after '=' (`--name=value`, `-x=value`). Built in: -h/--help (usage, exit 0), -v/--version
 * (version, exit 0), -l/--log-level <10-70> and --sdk-log-level <10-70> (DOCA log levels).
 * JSON configuration files (-j/--json) are not supported: DOCA_ERROR_NOT_SUPPORTED.
 *
 * Errors in argv (unknown flag, missing or malformed value, missing mandatory parameter, a
 * callback's error) print what is wrong and the usage to stderr; doca_argp_start returns the
 * error. The parser state is process-wide and not thread-safe (as in DOCA).
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Called for a parameter found: (value, program_config). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);
/** Receives the arguments after "--" (DPDK programs). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
/** Called once after parsing with the program configuration; an error fails doca_argp_start. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

/** Value types. */
enum doca_argp_type {
    DOCA_ARGP_TYPE_UNKNOWN = 0,
    DOCA_ARGP_TYPE_STRING,   /**< char * */
    DOCA_ARGP_TYPE_INT,      /**< int * (decimal, 0x hex or 0 octal; must fit an int) */
    DOCA_ARGP_TYPE_BOOLEAN,  /**< bool *, a flag without a value */
    DOCA_ARGP_TYPE_JSON_OBJ, /**< JSON mode only: not supported */
};

struct doca_argp_param;

/** Prints the usage to stdout and exits the program with status 0. */
DOCA_EXPERIMENTAL void doca_argp_usage(void);

/**
 * Starts a parser for the program (program_name may be NULL: argv[0] is used) and its
 * configuration, passed to every callback. DOCA_ERROR_BAD_STATE when already initialized.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);

/**
 * Registers a parameter; ARGP owns it from now on, also when registration fails.
 * DOCA_ERROR_INVALID_VALUE: no name, no description, no callback, no type, or a name already taken.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);

/** Replaces the built-in -v/--version action (the callback is expected to exit). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);

/** The program's validation of the whole configuration, after every parameter was parsed. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/**
 * Parses argv. DOCA_ERROR_NOT_SUPPORTED (unknown flag or JSON mode), DOCA_ERROR_INVALID_VALUE
 * (bad or missing value, missing mandatory parameter), DOCA_ERROR_BAD_STATE (not initialized), or
 * the error a callback returned.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);

/** Frees every parameter and the parser state; doca_argp_init may be called again. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);

/** The arguments after "--" go to callback instead of being parsed. */
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);
/** Setters: a NULL param is undefined behaviour (as in DOCA). Names are given without dashes. */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
/** How the value is shown in the usage, e.g. "<path>". */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param,
                                                       const char *description);
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param,
                                                    doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
/** CLI only (not in JSON files): no effect here, JSON is not supported. */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
/** The parameter may appear several times (its callback runs for each); otherwise a repeat is an error. */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/** Frees a parameter that was not registered. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/** The -l/--log-level value given (or the default, DOCA_LOG_LEVEL_INFO = 50). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);
/** The --sdk-log-level value given (or the default, DOCA_LOG_LEVEL_WARNING = 40). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
