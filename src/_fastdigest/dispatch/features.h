/* The CPU's features (features.c): the instruction sets the CPU has and the
 * OS enables, as the FD_CPU_* bits of kernels/kernel.h, less those
 * FASTDIGEST_DISABLE masks; and the CPU's maker and model. features.c is the
 * only code that asks the CPU or the OS. Plain C: no Python.h. */
#ifndef FD_DISPATCH_FEATURES_H
#define FD_DISPATCH_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

/* The features of the CPU this process runs on, less those fd_cpu_disable
 * masked: what every kernel selection reads. */
uint32_t fd_cpu_features(void);

/* The features the CPU and OS report, before any mask. */
uint32_t fd_cpu_detected_features(void);

/* The names FASTDIGEST_DISABLE takes and fastdigest.cpu_features reports,
 * with the FD_CPU_* bits each stands for (one bit, but three for "avx512").
 * Every name is known on every architecture, so one setting serves all
 * machines; a name of the other architecture masks bits this CPU never
 * has. The list ends with {NULL, 0}. */
typedef struct fd_cpu_feature_name {
    const char *name;
    uint32_t bits;
} fd_cpu_feature_name;

extern const fd_cpu_feature_name fd_cpu_feature_names[];

/* Parses a FASTDIGEST_DISABLE value, a comma-separated list of the names
 * above (white space around a name and empty items are ignored; NULL is an
 * empty list), and ORs the bits of the names into *mask. On an unknown name
 * returns false and writes the reason, naming the valid names, into
 * `reason` (NUL-terminated, cut to reason_len). */
bool fd_cpu_parse_disable(const char *list, uint32_t *mask, char *reason, size_t reason_len);

/* From now on fd_cpu_features() reports the detected features less `mask`.
 * Not thread-safe: call it before selecting kernels (the extension does, at
 * import, from FASTDIGEST_DISABLE). */
void fd_cpu_disable(uint32_t mask);

/* The CPU's maker and model, where the best kernel differs by them. */
enum fd_cpu_vendor { FD_CPU_VENDOR_OTHER, FD_CPU_VENDOR_INTEL, FD_CPU_VENDOR_AMD };

typedef struct fd_cpu_model {
    enum fd_cpu_vendor vendor;
    unsigned family; /* CPUID's display family and model (x86; 0 elsewhere) */
    unsigned model;
} fd_cpu_model;

fd_cpu_model fd_cpu_model_detected(void);

#endif /* FD_DISPATCH_FEATURES_H */
