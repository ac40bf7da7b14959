/* doca_types.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_types.h>

int header_doca_types(void);

int header_doca_types(void) {
    return (sizeof(union doca_data)) != 0;
}
