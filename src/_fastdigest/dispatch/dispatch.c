/* Every kernel table, and the one select.
 *
 * Adding a kernel is one file under kernels/, one declaration in its
 * instruction set's header, and one row here. Rows are fastest first, each
 * under its instruction set's FD_HAVE_* macro, with the features it
 * requires spelled by that instruction set's header; a row names the
 * optional capabilities its kernel has (designated initializers leave the
 * rest NULL). */
#include "dispatch/dispatch.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernels/arm/armv8.h"
#include "kernels/portable/portable.h"
#include "kernels/x86/avx2/avx2.h"
#include "kernels/x86/avx512/avx512.h"
#include "kernels/x86/sha512ni/sha512ni.h"
#include "kernels/x86/shani/shani.h"
#include "kernels/x86/ssse3/ssse3.h"
#include "platform/atomic.h"
#include "platform/parallel.h"

/* A lane count, checked by the compiler: 2 to FD_BATCH_MAX_LANES, the most
 * the batch driver's lanes and PBKDF2's rows hold (hash/batch.c,
 * hash/hmac.c). A count outside is an array of negative size, an error:
 * C11 has no _Static_assert inside an expression. */
#define LANES(n) ((unsigned)sizeof(char[(n) >= 2 && (n) <= FD_BATCH_MAX_LANES ? (n) : -1]))

/* A family's portable kernel, as a row. */
#define PORTABLE_ROW(fam)                                            \
    {                                                                \
        .name = "portable", .blocks.fam = fd_##fam##_blocks_portable \
    }

/* ---- single-stream kernels ---------------------------------------------
 *
 * Each family's list ends with its portable kernel, fd_name_blocks_portable
 * (kernels/portable/portable.h), which every CPU runs, and then {NULL}.
 *
 * pbkdf2_lanes' min_blocks: SHA-NI's two streams take two blocks or none,
 * as an odd last block ran faster alone through the kernel's one-block
 * loop than beside an idle stream; the SHA-512 family's four AVX-512 lanes
 * take two to four, one block running faster through the scalar rounds. */

static const fd_kernel md5_kernels[] = {
    {.name = "tuned", .blocks.md5 = fd_md5_blocks_tuned},
    PORTABLE_ROW(md5),
    {.name = NULL},
};

static const fd_kernel sha1_kernels[] = {
#ifdef FD_HAVE_ARM_SHA1
    {.name = "armv8",
     .required_features = FD_ARM_SHA1_FEATURES,
     .blocks.sha1 = fd_sha1_blocks_armv8,
     .pbkdf2.sha1 = fd_sha1_pbkdf2_armv8,
     .hmac_finish.sha1 = fd_sha1_hmac_finish_armv8},
#endif
#ifdef FD_HAVE_SHANI
    {.name = "shani",
     .required_features = FD_SHANI_FEATURES,
     .blocks.sha1 = fd_sha1_blocks_shani,
     .pbkdf2.sha1 = fd_sha1_pbkdf2_shani,
     .hmac_finish.sha1 = fd_sha1_hmac_finish_shani,
     .hmac_key.sha1 = fd_sha1_hmac_key_shani_x2,
     .pbkdf2_lanes = {.lanes = LANES(2), .min_blocks = 2, .run.sha1 = fd_sha1_pbkdf2_shani_x2}},
#endif
#ifdef FD_HAVE_AVX2
    {.name = "avx2",
     .required_features = FD_AVX2_FEATURES,
     .blocks.sha1 = fd_sha1_blocks_avx2,
     .pbkdf2.sha1 = fd_sha1_pbkdf2_avx2},
#endif
#ifdef FD_HAVE_SSSE3
    {.name = "ssse3",
     .required_features = FD_SSSE3_FEATURES,
     .blocks.sha1 = fd_sha1_blocks_ssse3,
     .pbkdf2.sha1 = fd_sha1_pbkdf2_ssse3},
#endif
    PORTABLE_ROW(sha1),
    {.name = NULL},
};

static const fd_kernel sha256_kernels[] = {
#ifdef FD_HAVE_ARM_SHA256
    {.name = "armv8",
     .required_features = FD_ARM_SHA256_FEATURES,
     .blocks.sha256 = fd_sha256_blocks_armv8,
     .pbkdf2.sha256 = fd_sha256_pbkdf2_armv8,
     .hmac_finish.sha256 = fd_sha256_hmac_finish_armv8},
#endif
#ifdef FD_HAVE_SHANI
    {.name = "shani",
     .required_features = FD_SHANI_FEATURES,
     .blocks.sha256 = fd_sha256_blocks_shani,
     .pbkdf2.sha256 = fd_sha256_pbkdf2_shani,
     .hmac_finish.sha256 = fd_sha256_hmac_finish_shani,
     .hmac_key.sha256 = fd_sha256_hmac_key_shani_x2,
     .pbkdf2_lanes = {.lanes = LANES(2), .min_blocks = 2, .run.sha256 = fd_sha256_pbkdf2_shani_x2}},
#endif
#ifdef FD_HAVE_AVX2
    {.name = "avx2", .required_features = FD_AVX2_FEATURES, .blocks.sha256 = fd_sha256_blocks_avx2},
#endif
#ifdef FD_HAVE_SSSE3
    {.name = "ssse3",
     .required_features = FD_SSSE3_FEATURES,
     .blocks.sha256 = fd_sha256_blocks_ssse3},
#endif
    PORTABLE_ROW(sha256),
    {.name = NULL},
};

static const fd_kernel sha512_kernels[] = {
#ifdef FD_HAVE_ARM_SHA512
    {.name = "armv8",
     .required_features = FD_ARM_SHA512_FEATURES,
     .blocks.sha512 = fd_sha512_blocks_armv8},
#endif
#ifdef FD_HAVE_AVX512
    {.name = "avx512",
     .required_features = FD_AVX512_FEATURES,
     .blocks.sha512 = fd_sha512_blocks_avx512,
     .pbkdf2_lanes = {.lanes = LANES(4),
                      .min_blocks = 2,
                      .run.sha512 = fd_sha512_pbkdf2_avx512_x4}},
#endif
#ifdef FD_HAVE_SHA512NI
    /* After AVX-512, as OpenSSL 3.6 puts it before its AVX2 code (it has no
     * AVX-512 SHA-512): where a CPU has both, AVX-512 stays first until
     * that CPU is measured. */
    {.name = "sha512ni",
     .required_features = FD_SHA512NI_FEATURES,
     .blocks.sha512 = fd_sha512_blocks_sha512ni},
#endif
#ifdef FD_HAVE_AVX2
    {.name = "avx2", .required_features = FD_AVX2_FEATURES, .blocks.sha512 = fd_sha512_blocks_avx2},
#endif
    PORTABLE_ROW(sha512),
    {.name = NULL},
};

/* Every family of FD_FAMILIES (kernels/kernel.h) has its name_kernels. */
#define KERNEL_LIST(fam, FAM, ...) [FD_FAMILY_##FAM] = fam##_kernels,
const fd_kernel *const fd_kernel_lists[FD_FAMILY_COUNT] = {FD_FAMILIES(KERNEL_LIST)};
#undef KERNEL_LIST

/* ---- multi-buffer kernels -----------------------------------------------
 *
 * Each list puts first the faster of two kernels a CPU may both have, and
 * each drain_min_busy follows from the kernel's speed-up over the family's
 * single-stream kernel on batches of equal messages (dispatch.h), which
 * tests/c/test_batch.c --bench measures; the figures belong to the
 * benchmark docs. pbkdf2.min_blocks is the fewest PBKDF2 output blocks for
 * which one round through the lanes takes less time than those blocks one
 * after another through the single-stream kernel picked beside it (with
 * SHA-NI hidden where the CPU has it); it is 0 where that kernel has PBKDF2
 * lanes of its own (SHA-NI). MD5's kernels run PBKDF2 in their own loops,
 * at about the cost of one scalar block for any number of busy lanes: from
 * two blocks on. */

/* MD5's avx512_x8 is avx512_x16 at eight lanes of ymm, its narrower
 * kernel: on the CPUs where that pays (narrower_kernel_cpus, below), eight
 * lanes on each of two threads beat sixteen on one, and sixteen beat eight
 * on one thread (batch_threads.c chooses). It is the row right after
 * avx512_x16, with the same features, so that it is never chosen first
 * while avx512_x16 passes its check. */
static const fd_multi_kernel md5_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {.name = "avx512_x16",
     .required_features = FD_AVX512_FEATURES,
     .lanes = LANES(16),
     .drain_min_busy = 4,
     .narrower = &md5_multi_kernels[1],
     .pbkdf2 = {.min_blocks = 2, .run.md5 = fd_md5_pbkdf2_avx512_x16},
     .blocks.md5 = fd_md5_blocks_avx512_x16},
    {.name = "avx512_x8",
     .required_features = FD_AVX512_FEATURES,
     .lanes = LANES(8),
     .drain_min_busy = 3,
     .blocks.md5 = fd_md5_blocks_avx512_x8},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    {.name = "avx2_x8",
     .required_features = FD_AVX2_FEATURES,
     .lanes = LANES(8),
     .drain_min_busy = 3,
     .pbkdf2 = {.min_blocks = 2, .run.md5 = fd_md5_pbkdf2_avx2_x8},
     .blocks.md5 = fd_md5_blocks_avx2_x8},
#endif
    {.name = NULL},
};

/* SHA-1's shani_x2 is avx512_x16's narrower kernel: on the CPUs where
 * that pays (narrower_kernel_cpus, below) its two SHA-NI streams hash a
 * message in well under twice the sixteen lanes' time, so that a batch of
 * too few messages for a group of sixteen on half the threads runs as
 * pairs on every thread instead (narrower_shares_threads). A CPU with
 * AVX-512 and no SHA-NI runs avx512_x16 without it (dispatch.h). */
static const fd_multi_kernel sha1_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {.name = "avx512_x16",
     .required_features = FD_AVX512_FEATURES,
     .lanes = LANES(16),
     .drain_min_busy = 12,
#ifdef FD_HAVE_SHANI_X2
     .narrower = &sha1_multi_kernels[1],
     .narrower_shares_threads = true,
#endif
     .pbkdf2 = {.min_blocks = 6},
     .blocks.sha1 = fd_sha1_blocks_avx512_x16},
#endif
#ifdef FD_HAVE_SHANI_X2
    {.name = "shani_x2",
     .required_features = FD_SHANI_FEATURES,
     .lanes = LANES(2),
     .drain_min_busy = 2,
     .blocks.sha1 = fd_sha1_blocks_shani_x2},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    /* For CPUs with neither of the above, several times the portable
     * kernel's speed; on Zen 3 with SHA-NI it ties shani_x2. */
    {.name = "avx2_x8",
     .required_features = FD_AVX2_FEATURES,
     .lanes = LANES(8),
     .drain_min_busy = 2,
     .pbkdf2 = {.min_blocks = 4},
     .blocks.sha1 = fd_sha1_blocks_avx2_x8},
#endif
    {.name = NULL},
};

/* SHA-NI first: on Zen 4 two SHA-NI streams and sixteen AVX-512 lanes hash
 * SHA-256 batches about equally fast, and two streams need fewer messages
 * to fill; for SHA-1, whose rounds are cheaper in vector code, the sixteen
 * lanes win. The AVX-512 kernel serves CPUs with AVX-512 and no SHA-NI. On
 * Zen 3 (SHA-NI, no AVX-512) two SHA-NI streams hash SHA-256 batches
 * clearly faster than eight AVX2 lanes. */
static const fd_multi_kernel sha256_multi_kernels[] = {
#ifdef FD_HAVE_SHANI_X2
    {.name = "shani_x2",
     .required_features = FD_SHANI_FEATURES,
     .lanes = LANES(2),
     .drain_min_busy = 2,
     .blocks.sha256 = fd_sha256_blocks_shani_x2},
#endif
#ifdef FD_HAVE_AVX512_MULTI
    {.name = "avx512_x16",
     .required_features = FD_AVX512_FEATURES,
     .lanes = LANES(16),
     .drain_min_busy = 16,
     .pbkdf2 = {.min_blocks = 4},
     .blocks.sha256 = fd_sha256_blocks_avx512_x16},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    /* For CPUs with neither of the above, several times the portable
     * kernel's speed. */
    {.name = "avx2_x8",
     .required_features = FD_AVX2_FEATURES,
     .lanes = LANES(8),
     .drain_min_busy = 2,
     .pbkdf2 = {.min_blocks = 3},
     .blocks.sha256 = fd_sha256_blocks_avx2_x8},
#endif
    {.name = NULL},
};

static const fd_multi_kernel sha512_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {.name = "avx512_x8",
     .required_features = FD_AVX512_FEATURES,
     .lanes = LANES(8),
     .drain_min_busy = 4,
     .pbkdf2 = {.min_blocks = 3},
     .blocks.sha512 = fd_sha512_blocks_avx512_x8},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    {.name = "avx2_x4",
     .required_features = FD_AVX2_FEATURES,
     .lanes = LANES(4),
     .drain_min_busy = 3,
     .pbkdf2 = {.min_blocks = 3},
     .blocks.sha512 = fd_sha512_blocks_avx2_x4},
#endif
    {.name = NULL},
};

/* And its name_multi_kernels. */
#define MULTI_KERNEL_LIST(fam, FAM, ...) [FD_FAMILY_##FAM] = fam##_multi_kernels,
const fd_multi_kernel *const fd_multi_kernel_lists[FD_FAMILY_COUNT] = {
    FD_FAMILIES(MULTI_KERNEL_LIST)};
#undef MULTI_KERNEL_LIST

/* A failure of every row of the build's lists fits the record. */
#define ROWS_OF_FAMILY(fam, ...)                      \
    +sizeof fam##_kernels / sizeof fam##_kernels[0] + \
        sizeof fam##_multi_kernels / sizeof fam##_multi_kernels[0]
_Static_assert(0 FD_FAMILIES(ROWS_OF_FAMILY) <= FD_MAX_KERNEL_FAILURES,
               "FD_MAX_KERNEL_FAILURES holds a failure of every kernel");
#undef ROWS_OF_FAMILY

/* Where the lists' order is wrong for a CPU, measured: the multi-buffer
 * kernel to prefer on it, when its features are there. */
static const struct multi_kernel_exception {
    enum fd_cpu_vendor vendor;
    unsigned family, model;
    enum fd_family hash_family;
    const char *kernel;
} multi_kernel_exceptions[] = {
    /* Intel Xeon family 6 model 207 (Emerald Rapids): there sixteen
     * AVX-512 lanes hash short SHA-256 messages faster than two SHA-NI
     * streams, which gain nothing over one stream. Zen 4 has the two about
     * equally fast, Zen 3 has no AVX-512: both keep the list's order. */
    {FD_CPU_VENDOR_INTEL, 6, 207, FD_FAMILY_SHA256, "avx512_x16"},
};

/* The CPUs on which a kernel's narrower kernel pays (dispatch.h), by
 * vendor and family. AMD's family 25 with AVX-512 is Zen 4 (Zen 3, the same
 * family, has none, and so no kernel with a narrower one): it runs a
 * 512-bit operation as two passes through 256-bit units, so the sixteen
 * lanes of zmm issue twice the work of eight of ymm through the same
 * units, and eight lanes hash a block in clearly less time than sixteen,
 * if in well over half of it: two threads of eight lanes then beat one of
 * sixteen. For the same reason SHA-1's sixteen lanes there hash a message
 * in well over half the time two SHA-NI streams take, and two threads of
 * those beat one of sixteen lanes. Intel's cores with 512-bit units
 * (family 6: Ice Lake, Rocket Lake, Sapphire and Emerald Rapids) are left
 * out: there a zmm
 * addition, rotate or vpternlogd has the latency of a ymm one and two
 * ports for it, enough for sixteen lanes of MD5 to be bound by the chain
 * of a step as eight are, so eight lanes would take as long as sixteen,
 * and two threads of eight would only match one of sixteen, at twice the
 * processor time; and sixteen lanes of SHA-1 in one pass would hash a
 * message in about half the time they take on Zen 4, against SHA-NI
 * streams no faster, so two threads of those would at best match one of
 * sixteen lanes (not measured there: the reasoning holds until a
 * measurement says otherwise). */
static const struct narrower_kernel_cpu {
    enum fd_cpu_vendor vendor;
    unsigned family;
} narrower_kernel_cpus[] = {
    {FD_CPU_VENDOR_AMD, 25},
};

bool fd_narrower_kernel_pays(fd_cpu_model model)
{
    for (size_t i = 0; i < sizeof narrower_kernel_cpus / sizeof narrower_kernel_cpus[0]; i++) {
        if (narrower_kernel_cpus[i].vendor == model.vendor &&
            narrower_kernel_cpus[i].family == model.family)
            return true;
    }
    return false;
}

static bool has_features(uint32_t required, uint32_t features)
{
    return (required & ~features) == 0;
}

/* The rows of a list a selection has refused, one bit each: a list's first
 * MAX_ROWS_PER_LIST rows are its candidates (the build's have a handful). */
typedef uint64_t row_set;
#define MAX_ROWS_PER_LIST 64

static bool is_candidate(row_set refused, size_t row)
{
    return row < MAX_ROWS_PER_LIST && ((refused >> row) & 1) == 0;
}

/* fd_choose_multi_kernel over `list`, passing over the rows in `refused`. */
static const fd_multi_kernel *choose_multi_kernel(const fd_multi_kernel *list,
                                                  enum fd_family family, uint32_t features,
                                                  fd_cpu_model model, row_set refused)
{
    for (size_t i = 0; i < sizeof multi_kernel_exceptions / sizeof multi_kernel_exceptions[0];
         i++) {
        const struct multi_kernel_exception *exception = &multi_kernel_exceptions[i];
        if (exception->hash_family != family || exception->vendor != model.vendor ||
            exception->family != model.family || exception->model != model.model)
            continue;
        for (size_t row = 0; list[row].name != NULL; row++) {
            if (strcmp(list[row].name, exception->kernel) == 0 &&
                has_features(list[row].required_features, features) && is_candidate(refused, row))
                return &list[row];
        }
    }
    for (size_t row = 0; list[row].name != NULL; row++) {
        if (has_features(list[row].required_features, features) && is_candidate(refused, row))
            return &list[row];
    }
    return NULL;
}

const fd_multi_kernel *fd_choose_multi_kernel(enum fd_family family, uint32_t features,
                                              fd_cpu_model model)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    return choose_multi_kernel(fd_multi_kernel_lists[family], family, features, model, 0);
}

/* ---- the select ---------------------------------------------------------- */

/* Until a selection, every family's portable kernel. */
#define PORTABLE_KERNEL(fam, FAM, ...) [FD_FAMILY_##FAM] = PORTABLE_ROW(fam),
fd_kernel fd_active_kernels[FD_FAMILY_COUNT] = {FD_FAMILIES(PORTABLE_KERNEL)};
#undef PORTABLE_KERNEL

fd_multi_kernel fd_active_multi_kernels[FD_FAMILY_COUNT];

void fd_use_kernel(enum fd_family family, const fd_kernel *kernel)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    assert(kernel != NULL && kernel->name != NULL);
    /* The CPU's own features, not less the FASTDIGEST_DISABLE mask: tests
     * may run a kernel the mask hides from the select. */
    assert(has_features(kernel->required_features, fd_cpu_detected_features()));
    fd_active_kernels[family] = *kernel;
}

void fd_use_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel)
{
    static const fd_multi_kernel none = {.name = NULL};

    assert((unsigned)family < FD_FAMILY_COUNT);
    assert(kernel == NULL ||
           (kernel->name != NULL && kernel->lanes >= 2 && kernel->lanes <= FD_BATCH_MAX_LANES &&
            has_features(kernel->required_features, fd_cpu_detected_features())));
    assert(kernel == NULL || kernel->narrower == NULL || kernel->narrower->lanes < kernel->lanes);
    fd_active_multi_kernels[family] = kernel != NULL ? *kernel : none;
    /* A narrower kernel may need features its kernel does not (dispatch.h):
     * never one the CPU lacks, whoever installs the kernel. */
    if (kernel != NULL && kernel->narrower != NULL &&
        !has_features(kernel->narrower->required_features, fd_cpu_detected_features()))
        fd_active_multi_kernels[family].narrower = NULL;
}

/* ---- the record of refused kernels ---------------------------------------- */

/* Written by a selection, and by a settle under the process's lock; the
 * entries below published_failure_count are complete, and a reader that
 * loads it sees them whatever another thread's settle adds meanwhile. */
static fd_kernel_failure kernel_failures[FD_MAX_KERNEL_FAILURES];
static size_t kernel_failure_count;
static fd_published_size published_failure_count;

const fd_kernel_failure *fd_kernel_failures(size_t *count)
{
    if (count != NULL)
        *count = fd_published_size_load(&published_failure_count);
    return kernel_failures;
}

static void record_failure(enum fd_family family, const char *kernel, bool multi_buffer,
                           bool last_resort, const char *reason)
{
    /* The build's lists fit (the _Static_assert above); a test's longer
     * lists would lose only the failures past the record's end. */
    assert(kernel_failure_count < FD_MAX_KERNEL_FAILURES);
    if (kernel_failure_count == FD_MAX_KERNEL_FAILURES)
        return;
    fd_kernel_failure *failure = &kernel_failures[kernel_failure_count++];
    failure->family = family;
    failure->kernel = kernel;
    failure->multi_buffer = multi_buffer;
    failure->last_resort = last_resort;
    snprintf(failure->reason, sizeof failure->reason, "%s", reason);
}

/* ---- the select ----------------------------------------------------------- */

/* The single-stream kernel of a family: the first row of `list` whose
 * features the CPU has (the last row, with portable_only: a kernel in plain
 * C, such as MD5's tuned one, may come before it requiring nothing) that
 * passes the check, or else the last row. */
static const fd_kernel *select_kernel(const fd_kernel *list, enum fd_family family,
                                      uint32_t features, bool portable_only,
                                      const fd_kernel_checks *checks)
{
    char reason[FD_KERNEL_FAILURE_REASON_LEN];

    for (const fd_kernel *kernel = list; kernel->name != NULL; kernel++) {
        const bool last = kernel[1].name == NULL;
        if ((portable_only && !last) || !has_features(kernel->required_features, features))
            continue;
        if (checks == NULL ||
            checks->check_kernel(checks->context, family, kernel, reason, sizeof reason))
            return kernel;
        record_failure(family, kernel->name, false, last, reason);
        if (last)
            return kernel;
    }
    /* Every single-stream list ends with the portable C, which requires
     * nothing: the loop returns at its last row at the latest. */
    assert(false);
    return NULL;
}

/* The multi-buffer kernel of a family beside `single`: choose_multi_kernel's
 * choice that passes the check, trying the next choice without each one
 * that fails, or NULL for none. */
static const fd_multi_kernel *select_multi_kernel(const fd_multi_kernel *list,
                                                  enum fd_family family, const fd_kernel *single,
                                                  uint32_t features, fd_cpu_model model,
                                                  const fd_kernel_checks *checks)
{
    char reason[FD_KERNEL_FAILURE_REASON_LEN];
    row_set refused = 0;

    for (;;) {
        const fd_multi_kernel *multi = choose_multi_kernel(list, family, features, model, refused);
        if (multi == NULL || checks == NULL ||
            checks->check_multi_kernel(checks->context, family, single, multi, reason,
                                       sizeof reason))
            return multi;
        record_failure(family, multi->name, true, false, reason);
        /* A candidate's row is below MAX_ROWS_PER_LIST. */
        refused |= (row_set)1 << (multi - list);
    }
}

/* What a selection left for select_pending_multi_kernel: the lists and
 * checks it was given, and the families whose kernel is pending. */
static struct {
    bool pending[FD_FAMILY_COUNT];
    const fd_multi_kernel *const *lists;
    fd_kernel_checks checks;
} pending_multi;

/* Which families' multi-buffer kernels are settled: installed, or never
 * pending. Set under the process's lock (fd_settle_multi_kernel). */
static fd_published_flag multi_kernel_settled[FD_FAMILY_COUNT];

/* The multi-buffer kernel of a family that a selection left pending: chosen
 * for the CPU beside the family's installed single-stream kernel, checked,
 * its failures added to the record, and installed. Returns true when it was
 * pending, false (doing nothing) when not. */
static bool select_pending_multi_kernel(enum fd_family family)
{
    if (!pending_multi.pending[family])
        return false;
    const fd_kernel_checks *checks = pending_multi.checks.check_multi_kernel != NULL
                                         ? &pending_multi.checks
                                         : NULL;
    const fd_cpu_model model = fd_cpu_model_detected();
    const uint32_t features = fd_cpu_features();
    const fd_multi_kernel *multi = select_multi_kernel(
        pending_multi.lists[family], family, &fd_active_kernels[family], features, model, checks);
    fd_use_multi_kernel(family, multi);
    /* Its narrower kernel runs batches too where it pays and the CPU has
     * its features, less the mask like any kernel's: checked as well, and
     * left out (the wider one alone then runs them) when it fails. */
    const fd_multi_kernel *narrower = multi != NULL ? multi->narrower : NULL;
    if (narrower != NULL &&
        (!fd_narrower_kernel_pays(model) || !has_features(narrower->required_features, features)))
        narrower = NULL;
    char reason[FD_KERNEL_FAILURE_REASON_LEN];
    if (narrower != NULL && checks != NULL &&
        !checks->check_multi_kernel(checks->context, family, &fd_active_kernels[family], narrower,
                                    reason, sizeof reason)) {
        record_failure(family, narrower->name, true, false, reason);
        narrower = NULL;
    }
    if (multi != NULL)
        fd_active_multi_kernels[family].narrower = narrower;
    pending_multi.pending[family] = false;
    return true;
}

void fd_select_checked_kernels_from(const fd_kernel *const lists[FD_FAMILY_COUNT],
                                    const fd_multi_kernel *const multi_lists[FD_FAMILY_COUNT],
                                    bool portable_only, const fd_kernel_checks *checks,
                                    bool defer_multi)
{
    const uint32_t features = fd_cpu_features();

    kernel_failure_count = 0;
    pending_multi.lists = multi_lists;
    pending_multi.checks = checks != NULL ? *checks : (fd_kernel_checks){0};
    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        const enum fd_family family = (enum fd_family)f;
        fd_use_kernel(family, select_kernel(lists[f], family, features, portable_only, checks));
        fd_use_multi_kernel(family, NULL);
        /* The portable C hashes batches one message at a time. */
        pending_multi.pending[f] = !portable_only;
        if (!defer_multi)
            select_pending_multi_kernel(family);
        if (pending_multi.pending[f])
            fd_published_flag_clear(&multi_kernel_settled[f]);
        else
            fd_published_flag_set(&multi_kernel_settled[f]);
    }
    fd_published_size_store(&published_failure_count, kernel_failure_count);
}

bool fd_settle_multi_kernel(enum fd_family family, size_t *first_failure, size_t *end_failure)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    if (fd_published_flag_is_set(&multi_kernel_settled[family]))
        return false;
    fd_parallel_lock_process();
    bool selected = false;
    if (!fd_published_flag_is_set(&multi_kernel_settled[family])) {
        *first_failure = kernel_failure_count;
        selected = select_pending_multi_kernel(family);
        *end_failure = kernel_failure_count;
        fd_published_size_store(&published_failure_count, kernel_failure_count);
        fd_published_flag_set(&multi_kernel_settled[family]);
    }
    fd_parallel_unlock_process();
    return selected;
}

bool fd_multi_kernel_settled(enum fd_family family)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    return fd_published_flag_is_set(&multi_kernel_settled[family]);
}

const fd_multi_kernel *fd_batch_multi_kernel(enum fd_family family)
{
    size_t first_failure, end_failure;

    fd_settle_multi_kernel(family, &first_failure, &end_failure);
    const fd_multi_kernel *multi = &fd_active_multi_kernels[family];
    return multi->name != NULL ? multi : NULL;
}

void fd_select_kernels(bool portable_only)
{
    fd_select_checked_kernels_from(fd_kernel_lists, fd_multi_kernel_lists, portable_only, NULL,
                                   false);
}
