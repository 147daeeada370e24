/* Kernel selection: the CPU's features are read once, and each hash family
 * gets the fastest compress kernel the CPU runs. Hashing then costs one
 * indirect call per update, never a feature test. */
#ifndef FD_CPU_H
#define FD_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "md5.h"
#include "sha1.h"
#include "sha256.h"
#include "sha512.h"

/* Instruction-set features a kernel may require. */
enum fd_cpu_feature {
    FD_CPU_SSSE3 = 1u << 0,
    FD_CPU_SSE41 = 1u << 1,
    FD_CPU_AVX = 1u << 2,  /* with the OS saving YMM state (XGETBV) */
    FD_CPU_AVX2 = 1u << 3, /* likewise */
    FD_CPU_BMI1 = 1u << 4,
    FD_CPU_BMI2 = 1u << 5,
    FD_CPU_SHANI = 1u << 6,
    FD_CPU_AVX512F = 1u << 7,  /* with the OS saving ZMM and opmask state */
    FD_CPU_AVX512VL = 1u << 8, /* likewise */
    FD_CPU_AVX512BW = 1u << 9, /* likewise */
    FD_CPU_ARM_SHA1 = 1u << 16,
    FD_CPU_ARM_SHA2 = 1u << 17,
    FD_CPU_ARM_SHA512 = 1u << 18,
};

/* The features of the CPU this process runs on (read once, then cached). */
uint32_t fd_cpu_features(void);

enum fd_family {
    FD_FAMILY_MD5,
    FD_FAMILY_SHA1,
    FD_FAMILY_SHA256, /* sha224, sha256 */
    FD_FAMILY_SHA512, /* sha384, sha512, sha512_224, sha512_256 */
    FD_FAMILY_COUNT
};

typedef struct fd_kernel {
    const char *name;         /* "portable", "shani", "avx2", ... */
    uint32_t required_features;
    union {
        fd_md5_blocks_fn *md5;
        fd_sha1_blocks_fn *sha1;
        fd_sha256_blocks_fn *sha256;
        fd_sha512_blocks_fn *sha512;
    } blocks;
    /* The PBKDF2 loop and the end of an HMAC run inside the kernel (see
     * fd_sha256_pbkdf2_fn and fd_sha256_hmac_finish_fn), for kernels that
     * have them; NULL elsewhere, where hmac.c's code over `blocks` serves. */
    union {
        fd_sha1_pbkdf2_fn *sha1;
        fd_sha256_pbkdf2_fn *sha256;
    } pbkdf2;
    union {
        fd_sha1_hmac_finish_fn *sha1;
        fd_sha256_hmac_finish_fn *sha256;
    } hmac_finish;
} fd_kernel;

/* The kernels compiled into this build for each family, fastest first; each
 * list ends with the portable C (no required features) and then {NULL}. */
extern const fd_kernel *const fd_kernel_lists[FD_FAMILY_COUNT];

/* The kernel each family hashes with. Until fd_select_kernels runs, the
 * portable C. Written only by fd_select_kernels and fd_use_kernel. */
extern fd_kernel fd_active_kernels[FD_FAMILY_COUNT];

/* Installs, for every family, the first kernel whose features the CPU has;
 * with portable_only, the portable C everywhere. Not thread-safe: call it
 * before any other thread hashes (the extension calls it at import). */
void fd_select_kernels(bool portable_only);

/* Installs one kernel for one family (tests use it to run every backend).
 * The caller guarantees the CPU has kernel->required_features. */
void fd_use_kernel(enum fd_family family, const fd_kernel *kernel);

#endif /* FD_CPU_H */
