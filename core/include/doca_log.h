/*
 * skiff core: DOCA logging (levels, per-source registration, DOCA_LOG_* macros), backed by spdlog.
 * A source is registered once per file with DOCA_LOG_REGISTER(NAME); messages carry its name.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Log levels, from quiet to verbose (same numbers as the DPA device levels, plus TRACE). */
enum doca_log_level {
    DOCA_LOG_LEVEL_DISABLE = 10,
    DOCA_LOG_LEVEL_CRIT = 20,
    DOCA_LOG_LEVEL_ERROR = 30,
    DOCA_LOG_LEVEL_WARNING = 40,
    DOCA_LOG_LEVEL_INFO = 50,
    DOCA_LOG_LEVEL_DEBUG = 60,
    DOCA_LOG_LEVEL_TRACE = 70,
};

/** A destination for log records (a FILE*, an fd, or the standard stdout/stderr pair). */
struct doca_log_backend;

typedef void (*log_flush_callback)(char *buffer);

/* Application message levels. Default lower limit: INFO. */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);
/* SDK (library-internal) message level. Default: INFO. */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr,
                                                                 struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr,
                                                                     struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend,
                                                                      uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
                                                                      uint32_t upper_limit);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend,
                                                              uint32_t level);

/** Emits one application record; prefer the DOCA_LOG_* macros. */
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line,
                                        const char *func, const char *format, ...)
    __attribute__((format(printf, 6, 7)));

#define DOCA_LOG(level, format, ...)                                                                         \
    doca_log(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)
#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_TRC(format, ...) ((void)0)
#endif

/**
 * Registers the file's log source under SOURCE at load time (and unregisters it at exit).
 * Use once per source file, at file scope. SOURCE is only stringified, so any tokens do, such as
 * PE_POLLING::MAIN (the helper functions' names do not depend on it).
 */
#define DOCA_LOG_REGISTER(SOURCE)                                                                            \
    static int log_source;                                                                                   \
    static void __attribute__((constructor(65535), used)) doca_log_source_ctor(void) {                       \
        doca_log_register_source(#SOURCE, &log_source);                                                      \
    }                                                                                                        \
    static void __attribute__((destructor, used)) doca_log_source_dtor(void) {                               \
        doca_log_unregister_source(log_source);                                                              \
    }

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
