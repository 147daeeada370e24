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
 * lacks is NULL, and hash/hmac.c then does that part over `blocks`. */
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
    /* A kernel of fewer lanes, a later row of the same list, or NULL: what
     * a batch on several threads runs instead when it has fewer groups of
     * `lanes` messages than threads and so leaves a thread idle
     * (hash/batch_threads.c). It may need other features than this kernel
     * (SHA-1's shani_x2 beside avx512_x16): installed only where the CPU
     * has them (fd_use_multi_kernel, and the selection, under the
     * FASTDIGEST_DISABLE mask too), on the CPUs where it pays
     * (fd_narrower_kernel_pays), and when it passes the checks too. */
    const struct fd_multi_kernel *narrower;
    /* Whether a thread may run several groups of the narrower kernel
     * (fd_batch_kernel_for_threads). True where the narrower kernel hashes
     * a message in less than twice this one's time (SHA-1's two SHA-NI
     * streams beside its sixteen AVX-512 lanes on Zen 4): where this
     * kernel leaves half the threads idle or more, its small groups on
     * every thread then end sooner. False where each of its groups costs
     * most of the time of a group of this kernel (MD5's eight lanes of ymm
     * beside sixteen of zmm): it pays only with a group of its own on each
     * thread. */
    bool narrower_shares_threads;
    /* PBKDF2's output blocks side by side through these lanes, for a family
     * whose single-stream kernel has no pbkdf2_lanes: min_blocks is the
     * fewest blocks worth a round through them (0: never; measured on Zen
     * 4), run the kernel's own loop with the digests in registers, or NULL
     * for hash/hmac.c's loop over `blocks`, which moves each iteration's
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

/* Whether a multi-buffer kernel's narrower kernel pays on a CPU of this
 * model: hashes a block in enough less time than the kernel that two
 * threads of it beat one thread of the kernel (dispatch.c's table says
 * where, and why). Pure: tests ask it about other CPUs. */
bool fd_narrower_kernel_pays(fd_cpu_model model);

/* Installs, for every family, the first single-stream kernel whose features
 * fd_cpu_features() reports and fd_choose_multi_kernel's choice for them and
 * the CPU's model; with portable_only, the portable C and no multi-buffer
 * kernel. Nothing is checked: the tests, fuzzers and benchmarks select so;
 * the extension selects with fd_select_checked_kernels (hash/
 * known_answers.h), which checks each kernel before it installs it. Not
 * thread-safe: call it before any other thread hashes. */
void fd_select_kernels(bool portable_only);

/* ---- selection with checks ----------------------------------------------- */

/* A check of a kernel before the selection installs it: true when the
 * kernel hashes right; otherwise false, with why written to reason
 * (NUL-terminated, cut to reason_len). The multi-buffer check is given the
 * single-stream kernel the family will run beside it. context is
 * fd_kernel_checks.context. hash/known_answers.c has the checks the
 * extension runs; the C tests give others. */
typedef bool fd_kernel_check_fn(void *context, enum fd_family family, const fd_kernel *kernel,
                                char *reason, size_t reason_len);
typedef bool fd_multi_kernel_check_fn(void *context, enum fd_family family, const fd_kernel *single,
                                      const fd_multi_kernel *multi, char *reason,
                                      size_t reason_len);

typedef struct fd_kernel_checks {
    fd_kernel_check_fn *check_kernel;
    fd_multi_kernel_check_fn *check_multi_kernel;
    void *context;
} fd_kernel_checks;

/* fd_select_kernels over the given lists (fd_kernel_lists and
 * fd_multi_kernel_lists, or a test's), with every kernel checked before it
 * is installed. A kernel that fails is recorded (fd_kernel_failures) and
 * the next one of its family's list that the CPU runs is tried, and
 * checked in turn: for a multi-buffer kernel, down to none (batches then
 * go through the single-stream kernel); for a single-stream one, down to
 * the list's last, the portable C, which is installed even when it fails
 * (recorded with last_resort: no kernel is left).
 *
 * With defer_multi, only the single-stream kernels are selected now: a
 * family's multi-buffer kernel is left pending until fd_settle_multi_kernel
 * selects it, with these lists and checks (which must outlive it), so that
 * a process that never hashes a batch never runs or checks one. The
 * checks are the caller's (hash/known_answers.c registers the extension's
 * at start-up): the dispatcher runs them and never calls back into the
 * code that hashes. Not thread-safe: call it before any other thread
 * hashes. */
void fd_select_checked_kernels_from(const fd_kernel *const lists[FD_FAMILY_COUNT],
                                    const fd_multi_kernel *const multi_lists[FD_FAMILY_COUNT],
                                    bool portable_only, const fd_kernel_checks *checks,
                                    bool defer_multi);

/* ---- the deferred multi-buffer kernels ------------------------------------ */

/* Makes a family's multi-buffer kernel final before a batch reads it: the
 * first call for the family after a selection with defer_multi selects the
 * kernel it left pending (checked, its failures added to the record,
 * installed), under the process's lock (platform/parallel.h), as threads of
 * any interpreter may get there at once; every call after costs one load.
 * Returns true to the one call that selected it, with the failures it
 * added at [*first_failure, *end_failure) of fd_kernel_failures' record, so
 * that its caller may warn of them; false to every other (the range then
 * means nothing). The caller must not hold the process's lock. After a
 * selection without defer_multi there is nothing to select. */
bool fd_settle_multi_kernel(enum fd_family family, size_t *first_failure, size_t *end_failure);

/* Whether fd_settle_multi_kernel has nothing left to do for the family. */
bool fd_multi_kernel_settled(enum fd_family family);

/* The multi-buffer kernel a batch of the family runs, settled first
 * (fd_settle_multi_kernel, its failures left to the record), or NULL
 * where there is none: what the batch driver and PBKDF2 run. */
const fd_multi_kernel *fd_batch_multi_kernel(enum fd_family family);

/* One kernel the last selection refused. */
#define FD_KERNEL_FAILURE_REASON_LEN 240

typedef struct fd_kernel_failure {
    enum fd_family family;
    const char *kernel; /* its row's name */
    bool multi_buffer;
    /* The single-stream list's last kernel, installed nevertheless. */
    bool last_resort;
    char reason[FD_KERNEL_FAILURE_REASON_LEN];
} fd_kernel_failure;

/* The most failures one selection records: one per row of the build's
 * lists (dispatch.c checks its tables against it). */
#define FD_MAX_KERNEL_FAILURES 40

/* The kernels the last selection refused, in the order it tried them, and
 * their count in *count: none before any selection, and none after an
 * unchecked one; the multi-buffer ones of a deferred selection follow as
 * fd_settle_multi_kernel selects them. count may be NULL. Safe to call
 * while another thread settles: *count covers the entries complete when it
 * was read. */
const fd_kernel_failure *fd_kernel_failures(size_t *count);

/* Install one kernel for one family (tests and benchmarks run every
 * backend so); a NULL multi-buffer kernel means none. The caller guarantees
 * the CPU has kernel->required_features (the CPU's own, FASTDIGEST_DISABLE
 * aside), which an assert() checks where they are compiled in. */
void fd_use_kernel(enum fd_family family, const fd_kernel *kernel);
void fd_use_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel);

#endif /* FD_DISPATCH_DISPATCH_H */
