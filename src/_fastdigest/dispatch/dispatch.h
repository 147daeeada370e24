/* The dispatcher: which kernel each hash family runs.
 *
 * The CPU's features are read once (features.h); every kernel of the build
 * is listed in one table per family (dispatch.c), single-stream and
 * multi-buffer, with the optional capabilities it has; one select installs,
 * for every family, the first kernel of each table whose features the CPU
 * has. Hashing then costs one indirect call per update, never a feature
 * test. Plain C: no Python.h. */
#ifndef FD_DISPATCH_DISPATCH_H
#define FD_DISPATCH_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch/features.h"
#include "kernels/kernel.h"

/* ---- kernels (dispatch.c) ------------------------------------------------ */

/* Each union below has one member per family (kernels/kernel.h's
 * FD_FAMILIES), named after it, of that family's function type: a row sets
 * the members of its own family, `.blocks.sha256 = ...`. */
#define FD_FAMILY_MEMBER(name, type) fd_##name##_##type *name;
#define FD_BLOCKS_MEMBER(name, ...) FD_FAMILY_MEMBER(name, blocks_fn)
#define FD_PBKDF2_MEMBER(name, ...) FD_FAMILY_MEMBER(name, pbkdf2_fn)
#define FD_PBKDF2_LANES_MEMBER(name, ...) FD_FAMILY_MEMBER(name, pbkdf2_lanes_fn)
#define FD_HMAC_FINISH_MEMBER(name, ...) FD_FAMILY_MEMBER(name, hmac_finish_fn)
#define FD_HMAC_KEY_MEMBER(name, ...) FD_FAMILY_MEMBER(name, hmac_key_fn)
#define FD_BLOCKS_MULTI_MEMBER(name, ...) FD_FAMILY_MEMBER(name, blocks_multi_fn)

/* A kernel's PBKDF2 loop over several output blocks at once (kernel.h's
 * fd_*_pbkdf2_lanes_fn), for its family. */
typedef union fd_pbkdf2_lanes_run {
    FD_FAMILIES(FD_PBKDF2_LANES_MEMBER)
} fd_pbkdf2_lanes_run;

/* A single-stream kernel and its optional capabilities: a capability it
 * lacks is NULL, and core/hmac.c then does that part over `blocks`. */
typedef struct fd_kernel {
    const char *name; /* "portable", "shani", "avx2", ... */
    uint32_t required_features;
    union {
        FD_FAMILIES(FD_BLOCKS_MEMBER)
    } blocks;
    /* PBKDF2's loop of iterations 2..c with the digest in registers. */
    union {
        FD_FAMILIES(FD_PBKDF2_MEMBER)
    } pbkdf2;
    /* PBKDF2's loop for several output blocks at once: up to `lanes` of
     * them per call, and never fewer than `min_blocks` (measured: below
     * that, blocks one at a time are faster); a derivation's blocks go
     * through it in rounds while that many are left. */
    struct {
        unsigned lanes;
        unsigned min_blocks;
        fd_pbkdf2_lanes_run run;
    } pbkdf2_lanes;
    /* The end of an HMAC: the inner hash's last blocks and the outer block. */
    union {
        FD_FAMILIES(FD_HMAC_FINISH_MEMBER)
    } hmac_finish;
    /* HMAC's two keyed blocks compressed together. */
    union {
        FD_FAMILIES(FD_HMAC_KEY_MEMBER)
    } hmac_key;
} fd_kernel;

/* A multi-buffer kernel: `lanes` independent messages side by side. */
typedef struct fd_multi_kernel {
    const char *name; /* "shani_x2", "avx2_x8", ... */
    uint32_t required_features;
    unsigned lanes; /* 2..FD_BATCH_MAX_LANES */
    /* At the end of a batch, the fewest busy lanes for which a call of this
     * kernel, idle lanes included, still beats hashing the busy lanes' messages
     * one at a time: lanes divided by the kernel's speed-up over the
     * single-stream kernel (tests/c/test_batch.c --bench measures it),
     * rounded up; lanes itself where it never does. */
    unsigned drain_min_busy;
    /* PBKDF2's output blocks side by side through these lanes, for a family
     * whose single-stream kernel has no pbkdf2_lanes: min_blocks is the
     * fewest blocks worth a round through them (0: never; measured on Zen
     * 4), run the kernel's own loop with the digests in registers, or NULL
     * for core/hmac.c's loop over `blocks`, which moves each iteration's
     * digests through memory. */
    struct {
        unsigned min_blocks;
        fd_pbkdf2_lanes_run run;
    } pbkdf2;
    union {
        FD_FAMILIES(FD_BLOCKS_MULTI_MEMBER)
    } blocks;
} fd_multi_kernel;

#undef FD_FAMILY_MEMBER
#undef FD_BLOCKS_MEMBER
#undef FD_PBKDF2_MEMBER
#undef FD_PBKDF2_LANES_MEMBER
#undef FD_HMAC_FINISH_MEMBER
#undef FD_HMAC_KEY_MEMBER
#undef FD_BLOCKS_MULTI_MEMBER

/* The kernels compiled into this build for each family, fastest first. Each
 * single-stream list ends with the portable C (no required features) and
 * then {NULL}; each multi-buffer list ends with {NULL}, and may hold no
 * other entry. */
extern const fd_kernel *const fd_kernel_lists[FD_FAMILY_COUNT];
extern const fd_multi_kernel *const fd_multi_kernel_lists[FD_FAMILY_COUNT];

/* What each family hashes with: until fd_select_kernels runs, the portable
 * C and no multi-buffer kernel (name NULL, lanes 0: every message of a batch
 * goes through the single-stream kernel). Written only by fd_select_kernels,
 * fd_use_kernel and fd_use_multi_kernel. */
extern fd_kernel fd_active_kernels[FD_FAMILY_COUNT];
extern fd_multi_kernel fd_active_multi_kernels[FD_FAMILY_COUNT];

/* The multi-buffer kernel of a family for a CPU with these features and
 * this model: the first of the family's list whose features it has, unless
 * the dispatcher's table of measured exceptions names another for that
 * model; NULL for none. Pure: tests ask it about other CPUs. */
const fd_multi_kernel *fd_choose_multi_kernel(enum fd_family family, uint32_t features,
                                              fd_cpu_model model);

/* Installs, for every family, the first single-stream kernel whose features
 * fd_cpu_features() reports and fd_choose_multi_kernel's choice for them and
 * the CPU's model; with portable_only, the portable C and no multi-buffer
 * kernel. Not thread-safe: call it before any other thread hashes (the
 * extension calls it at import). */
void fd_select_kernels(bool portable_only);

/* Install one kernel for one family (tests and benchmarks run every
 * backend so); a NULL multi-buffer kernel means none. The caller guarantees
 * the CPU has kernel->required_features (the CPU's own, FASTDIGEST_DISABLE
 * aside), which an assert() checks where they are compiled in. */
void fd_use_kernel(enum fd_family family, const fd_kernel *kernel);
void fd_use_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel);

#endif /* FD_DISPATCH_DISPATCH_H */
