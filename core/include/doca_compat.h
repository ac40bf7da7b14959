/* skiff core: API stability markers used by every public DOCA header. */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

/* DOCA's own doca_compat.h brings <string.h>; programs written against it rely on that. */
#include <string.h>

#define DOCA_EXPORTED __attribute__((visibility("default")))
#define DOCA_STABLE DOCA_EXPORTED
#define DOCA_EXPERIMENTAL DOCA_EXPORTED
#define DOCA_DEPRECATED DOCA_EXPORTED __attribute__((deprecated))

#ifndef doca_likely
#define doca_likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef doca_unlikely
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#endif

#endif /* DOCA_COMPAT_H_ */
