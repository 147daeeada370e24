/* The checked selection's driver (hash/known_answers.h, dispatch.h's
 * fd_select_checked_kernels_from and fd_settle_multi_kernel): that a wrong kernel is refused, recorded
 * with its reason, and the next one of its list installed, and that a
 * right one is kept.
 *
 * Each case selects over tables whose first rows are kernels made wrong on
 * purpose, with the import's own checks, for SHA-256 (the other families
 * keep the build's lists):
 *   - a compress function one bit off;
 *   - a right compress function with a wrong HMAC key setup, or HMAC end;
 *   - a multi-buffer kernel whose two lanes read each other's messages,
 *     ahead of a right one;
 *   - a right multi-buffer kernel whose narrower kernel (dispatch.h) is
 *     wrong: installed without it, and one whose narrower kernel is right:
 *     installed with it; one whose narrower kernel needs a feature the CPU
 *     lacks, or one the mask hides: installed without it;
 *   - a list whose only kernel is wrong: installed as the last resort;
 * then FASTDIGEST_TEST_FAIL_CHECK's list (fd_select_checked_kernels) with
 * the build's own kernels, its refusals of bad lists, and an unchecked
 * selection, which clears the record; and the multi-buffer kernels that
 * the extension's selection defers to the first batch. Kernels right but for their PBKDF2
 * loop, PBKDF2 lanes, or a multi-buffer kernel's PBKDF2 loop pass the
 * import's checks, which leave PBKDF2 out, and fail fd_check_pbkdf2, the
 * self-test's. The wrong kernels are built on the portable C, so every CPU
 * runs them.
 *
 * Usage: test_select. Prints a line per case, then "C select: N passed, N
 * failed"; exits 1 on any failure. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hash/batch.h"
#include "hash/known_answers.h"
#include "dispatch/dispatch.h"
#include "harness.h"
#include "kernels/portable/portable.h"

/* ---- kernels wrong on purpose -------------------------------------------- */

static void sha256_one_bit_off(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_sha256_blocks_portable(chain, blocks, nblocks);
    chain->words[7] ^= 0x100;
}

static void sha256_zero_hmac_key(const uint8_t padded_key[FD_SHA256_BLOCK_LEN],
                                 fd_sha256_chain *inner_chain, fd_sha256_chain *outer_chain)
{
    (void)padded_key;
    memset(inner_chain, 0, sizeof *inner_chain);
    memset(outer_chain, 0, sizeof *outer_chain);
}

static void sha256_zero_hmac_finish(const fd_sha256_chain *inner_chain, const uint8_t *tail,
                                    size_t tail_blocks, const fd_sha256_chain *outer_chain,
                                    size_t digest_len, uint8_t *out)
{
    (void)inner_chain;
    (void)tail;
    (void)tail_blocks;
    (void)outer_chain;
    memset(out, 0, digest_len);
}

/* Leave U_1 as T: right for one iteration only. */
static void sha256_pbkdf2_no_loop(const fd_sha256_chain *inner_chain,
                                  const fd_sha256_chain *outer_chain, size_t digest_len,
                                  fd_sha256_chain *words, uint32_t iterations_left)
{
    (void)inner_chain;
    (void)outer_chain;
    (void)digest_len;
    (void)words;
    (void)iterations_left;
}

static void sha256_pbkdf2_lanes_no_loop(const fd_sha256_chain *inner_chain,
                                        const fd_sha256_chain *outer_chain, size_t digest_len,
                                        fd_sha256_chain *words, size_t count,
                                        uint32_t iterations_left)
{
    (void)inner_chain;
    (void)outer_chain;
    (void)digest_len;
    (void)words;
    (void)count;
    (void)iterations_left;
}

/* Two lanes over the portable C, right and crossed. */
static void sha256_portable_x2(fd_sha256_chain *chains, const uint8_t *const *blocks,
                               size_t nblocks)
{
    for (unsigned lane = 0; lane < 2; lane++)
        fd_sha256_blocks_portable(&chains[lane], blocks[lane], nblocks);
}

static void sha256_crossed_x2(fd_sha256_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    for (unsigned lane = 0; lane < 2; lane++)
        fd_sha256_blocks_portable(&chains[lane], blocks[1 - lane], nblocks);
}

static void sha256_pbkdf2_x2_no_loop(const fd_sha256_chain *inner_chain,
                                     const fd_sha256_chain *outer_chain, size_t digest_len,
                                     fd_sha256_chain *words, size_t count, uint32_t iterations_left)
{
    sha256_pbkdf2_lanes_no_loop(inner_chain, outer_chain, digest_len, words, count,
                                iterations_left);
}

#define PORTABLE_SHA256                                                \
    {                                                                  \
        .name = "portable", .blocks.sha256 = fd_sha256_blocks_portable \
    }

static const fd_kernel wrong_compress[] = {
    {.name = "one_bit_off", .blocks.sha256 = sha256_one_bit_off}, PORTABLE_SHA256, {.name = NULL}};
static const fd_kernel wrong_hmac_key[] = {{.name = "wrong_hmac_key",
                                            .blocks.sha256 = fd_sha256_blocks_portable,
                                            .hmac_key.sha256 = sha256_zero_hmac_key},
                                           PORTABLE_SHA256,
                                           {.name = NULL}};
static const fd_kernel wrong_hmac_finish[] = {{.name = "wrong_hmac_finish",
                                               .blocks.sha256 = fd_sha256_blocks_portable,
                                               .hmac_finish.sha256 = sha256_zero_hmac_finish},
                                              PORTABLE_SHA256,
                                              {.name = NULL}};
static const fd_kernel wrong_pbkdf2[] = {{.name = "wrong_pbkdf2",
                                          .blocks.sha256 = fd_sha256_blocks_portable,
                                          .pbkdf2.sha256 = sha256_pbkdf2_no_loop},
                                         PORTABLE_SHA256,
                                         {.name = NULL}};
static const fd_kernel wrong_pbkdf2_lanes[] = {
    {.name = "wrong_pbkdf2_lanes",
     .blocks.sha256 = fd_sha256_blocks_portable,
     .pbkdf2_lanes = {.lanes = 2, .min_blocks = 2, .run.sha256 = sha256_pbkdf2_lanes_no_loop}},
    PORTABLE_SHA256,
    {.name = NULL}};
static const fd_kernel only_wrong[] = {{.name = "one_bit_off", .blocks.sha256 = sha256_one_bit_off},
                                       {.name = NULL}};
static const fd_kernel only_portable[] = {PORTABLE_SHA256, {.name = NULL}};

#define PORTABLE_X2                                             \
    {                                                           \
        .name = "portable_x2", .lanes = 2, .drain_min_busy = 2, \
        .blocks.sha256 = sha256_portable_x2                     \
    }

static const fd_multi_kernel crossed_lanes[] = {
    {.name = "crossed_x2", .lanes = 2, .drain_min_busy = 2, .blocks.sha256 = sha256_crossed_x2},
    PORTABLE_X2,
    {.name = NULL}};
static const fd_multi_kernel wrong_multi_pbkdf2[] = {
    {.name = "wrong_pbkdf2_x2",
     .lanes = 2,
     .drain_min_busy = 2,
     .pbkdf2 = {.min_blocks = 2, .run.sha256 = sha256_pbkdf2_x2_no_loop},
     .blocks.sha256 = sha256_portable_x2},
    PORTABLE_X2,
    {.name = NULL}};
static const fd_multi_kernel right_lanes[] = {PORTABLE_X2, {.name = NULL}};

/* Four lanes over the portable C, whose narrower kernel is the next row. */
static void sha256_portable_x4(fd_sha256_chain *chains, const uint8_t *const *blocks,
                               size_t nblocks)
{
    for (unsigned lane = 0; lane < 4; lane++)
        fd_sha256_blocks_portable(&chains[lane], blocks[lane], nblocks);
}

/* The four lanes' row of a list whose next row is its narrower kernel. */
#define PORTABLE_X4_NARROWING_TO(list)                                                  \
    {                                                                                   \
        .name = "portable_x4", .lanes = 4, .drain_min_busy = 2, .narrower = &(list)[1], \
        .blocks.sha256 = sha256_portable_x4                                             \
    }

static const fd_multi_kernel crossed_narrower[] = {
    PORTABLE_X4_NARROWING_TO(crossed_narrower),
    {.name = "crossed_x2", .lanes = 2, .drain_min_busy = 2, .blocks.sha256 = sha256_crossed_x2},
    {.name = NULL}};
static const fd_multi_kernel right_narrower[] = {
    PORTABLE_X4_NARROWING_TO(right_narrower), PORTABLE_X2, {.name = NULL}};
/* The same, with a narrower kernel whose features the cases set: a
 * narrower kernel may need other features than its kernel (dispatch.h). */
static fd_multi_kernel featured_narrower[] = {
    PORTABLE_X4_NARROWING_TO(featured_narrower), PORTABLE_X2, {.name = NULL}};
static const fd_multi_kernel no_lanes[] = {{.name = NULL}};

/* ---- the cases ------------------------------------------------------------ */

static bool check_kernel(void *context, enum fd_family family, const fd_kernel *kernel,
                         char *reason, size_t reason_len)
{
    (void)context;
    return fd_check_kernel(family, kernel, false, reason, reason_len);
}

static bool check_multi_kernel(void *context, enum fd_family family, const fd_kernel *single,
                               const fd_multi_kernel *multi, char *reason, size_t reason_len)
{
    (void)context;
    return fd_check_multi_kernel(family, single, multi, false, reason, reason_len);
}

static const fd_kernel_checks known_answers = {check_kernel, check_multi_kernel, NULL};

/* Selects with SHA-256's lists replaced by these, and the known-answer
 * checks. */
static void select_sha256(const fd_kernel *list, const fd_multi_kernel *multi_list)
{
    const fd_kernel *lists[FD_FAMILY_COUNT];
    const fd_multi_kernel *multi_lists[FD_FAMILY_COUNT];

    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        lists[f] = fd_kernel_lists[f];
        multi_lists[f] = fd_multi_kernel_lists[f];
    }
    lists[FD_FAMILY_SHA256] = list;
    multi_lists[FD_FAMILY_SHA256] = multi_list;
    fd_select_checked_kernels_from(lists, multi_lists, false, &known_answers, false);
}

/* The record holds exactly one failure, of this kernel, whose reason
 * contains `words`. */
static void check_one_failure(group_tally *tally, const char *kernel, bool multi_buffer,
                              bool last_resort, const char *words)
{
    size_t count;
    const fd_kernel_failure *failures = fd_kernel_failures(&count);

    check(tally, count == 1, "%zu failures recorded, not 1", count);
    if (count == 0)
        return;
    printf("    refused %s: %s\n", failures[0].kernel, failures[0].reason);
    check(tally, failures[0].family == FD_FAMILY_SHA256, "the failure's family is %d",
          (int)failures[0].family);
    check(tally, strcmp(failures[0].kernel, kernel) == 0, "the failure names %s, not %s",
          failures[0].kernel, kernel);
    check(tally, failures[0].multi_buffer == multi_buffer, "multi_buffer is %d",
          failures[0].multi_buffer);
    check(tally, failures[0].last_resort == last_resort, "last_resort is %d",
          failures[0].last_resort);
    check(tally, strstr(failures[0].reason, words) != NULL, "the reason '%s' lacks '%s'",
          failures[0].reason, words);
}

static void check_installed(group_tally *tally, const char *single, const char *multi)
{
    const char *active_multi = fd_active_multi_kernels[FD_FAMILY_SHA256].name;

    check(tally, strcmp(fd_active_kernels[FD_FAMILY_SHA256].name, single) == 0,
          "sha256 runs %s, not %s", fd_active_kernels[FD_FAMILY_SHA256].name, single);
    check(tally,
          multi == NULL ? active_multi == NULL
                        : active_multi != NULL && strcmp(active_multi, multi) == 0,
          "sha256's batches run %s, not %s", active_multi ? active_multi : "none",
          multi ? multi : "none");
}

/* A wrong single-stream kernel ahead of the portable C. */
static void run_single_case(const char *name, const fd_kernel *list, const char *words)
{
    group_tally tally = {0, 0};

    select_sha256(list, right_lanes);
    check_installed(&tally, "portable", "portable_x2");
    check_one_failure(&tally, list[0].name, false, false, words);
    report_group("sha256", name, "refused", "", &tally);
}

/* A wrong multi-buffer kernel ahead of a right one. */
static void run_multi_case(const char *name, const fd_multi_kernel *list, const char *words)
{
    group_tally tally = {0, 0};

    select_sha256(only_portable, list);
    check_installed(&tally, "portable", "portable_x2");
    check_one_failure(&tally, list[0].name, true, false, words);
    report_group("sha256", name, "refused", "", &tally);
}

/* A kernel right but for its PBKDF2 code: the import's check passes it, the
 * self-test's PBKDF2 check refuses it. */
static void run_pbkdf2_case(const char *name, const fd_kernel *single, const fd_multi_kernel *multi,
                            const char *words)
{
    group_tally tally = {0, 0};
    char reason[FD_KERNEL_FAILURE_REASON_LEN] = "";

    bool imported = multi == NULL
                        ? fd_check_kernel(FD_FAMILY_SHA256, single, false, reason, sizeof reason)
                        : fd_check_multi_kernel(FD_FAMILY_SHA256, single, multi, false, reason,
                                                sizeof reason);
    check(&tally, imported, "the import's check refuses %s: %s", name, reason);
    reason[0] = '\0';
    check(&tally, !fd_check_pbkdf2(FD_FAMILY_SHA256, single, multi, reason, sizeof reason),
          "the PBKDF2 check passes %s", name);
    printf("    refused %s: %s\n", name, reason);
    check(&tally, strstr(reason, words) != NULL, "the reason '%s' lacks '%s'", reason, words);
    report_group("sha256", name, "PBKDF2 refused", "", &tally);
}

static void run_right_case(void)
{
    group_tally tally = {0, 0};
    size_t count;

    select_sha256(only_portable, right_lanes);
    check_installed(&tally, "portable", "portable_x2");
    fd_kernel_failures(&count);
    check(&tally, count == 0, "%zu failures recorded for right kernels", count);
    report_group("sha256", "portable", "kept", "", &tally);
}

/* A right kernel whose narrower kernel is wrong keeps its batches, which
 * then never run the narrower one; a right narrower kernel is kept where
 * it pays. The wrong one is refused only where it pays too, and checked
 * only there: elsewhere nothing runs it. */
static void run_narrower_case(void)
{
    group_tally tally = {0, 0};
    size_t count;

    select_sha256(only_portable, crossed_narrower);
    check_installed(&tally, "portable", "portable_x4");
    check(&tally, fd_active_multi_kernels[FD_FAMILY_SHA256].narrower == NULL,
          "the refused narrower kernel is installed");
    if (fd_narrower_kernel_pays(fd_cpu_model_detected()))
        check_one_failure(&tally, "crossed_x2", true, false, "in lane 0");
    report_group("sha256", "crossed_x2", "refused", "narrower", &tally);

    /* Where narrower kernels do not pay, none is installed, right or not. */
    tally = (group_tally){0, 0};
    const bool pays = fd_narrower_kernel_pays(fd_cpu_model_detected());
    select_sha256(only_portable, right_narrower);
    check_installed(&tally, "portable", "portable_x4");
    check(&tally,
          fd_active_multi_kernels[FD_FAMILY_SHA256].narrower == (pays ? &right_narrower[1] : NULL),
          "the right narrower kernel is %sinstalled on a CPU where it %s", pays ? "not " : "",
          pays ? "pays" : "does not pay");
    fd_kernel_failures(&count);
    check(&tally, count == 0, "%zu failures recorded for right kernels", count);
    report_group("sha256", "portable_x2", "kept", "narrower", &tally);
}

/* A narrower kernel needing a feature the CPU lacks is never installed,
 * nor one needing a feature FASTDIGEST_DISABLE's mask hides; with the
 * feature there and unmasked it is, where narrower kernels pay. */
static void run_narrower_features_case(void)
{
    group_tally tally = {0, 0};
    const uint32_t detected = fd_cpu_detected_features();
    const bool pays = fd_narrower_kernel_pays(fd_cpu_model_detected());

    /* No CPU has both an x86 and an Arm feature. */
    featured_narrower[1].required_features = (detected & FD_CPU_ARM_SHA1) != 0 ? FD_CPU_SSSE3
                                                                               : FD_CPU_ARM_SHA1;
    select_sha256(only_portable, featured_narrower);
    check_installed(&tally, "portable", "portable_x4");
    check(&tally, fd_active_multi_kernels[FD_FAMILY_SHA256].narrower == NULL,
          "a narrower kernel needing a feature the CPU lacks is installed");
    if (detected != 0) {
        /* One of the CPU's features, masked and then not. */
        const uint32_t feature = detected & (~detected + 1);
        featured_narrower[1].required_features = feature;
        fd_cpu_disable(feature);
        select_sha256(only_portable, featured_narrower);
        check(&tally, fd_active_multi_kernels[FD_FAMILY_SHA256].narrower == NULL,
              "a narrower kernel needing a masked feature is installed");
        fd_cpu_disable(0);
        select_sha256(only_portable, featured_narrower);
        check(&tally,
              fd_active_multi_kernels[FD_FAMILY_SHA256].narrower ==
                  (pays ? &featured_narrower[1] : NULL),
              "a narrower kernel needing a feature the CPU has is %sinstalled where it %s",
              pays ? "not " : "", pays ? "pays" : "does not pay");
    }
    report_group("sha256", "portable_x2", "features", "narrower", &tally);
}

static void run_last_resort_case(void)
{
    group_tally tally = {0, 0};

    select_sha256(only_wrong, no_lanes);
    check_installed(&tally, "one_bit_off", NULL);
    check_one_failure(&tally, "one_bit_off", false, true, "\"abc\"");
    report_group("sha256", "one_bit_off", "last resort", "", &tally);
}

/* FASTDIGEST_TEST_FAIL_CHECK's list over the build's kernels: MD5's first
 * kernel, "tuned", plain C that every CPU runs, is refused and the portable
 * C installed; bad lists are refused before anything is selected. */
static void run_spoiled_case(void)
{
    group_tally tally = {0, 0};
    char error[200];
    size_t count;

    check(&tally, fd_select_checked_kernels(false, " md5:tuned ,", error, sizeof error),
          "the list ' md5:tuned ,' is refused: %s", error);
    const fd_kernel_failure *failures = fd_kernel_failures(&count);
    check(&tally,
          count == 1 && failures[0].family == FD_FAMILY_MD5 &&
              strcmp(failures[0].kernel, "tuned") == 0 && !failures[0].last_resort,
          "%zu failures recorded for md5:tuned", count);
    check(&tally, strcmp(fd_active_kernels[FD_FAMILY_MD5].name, "portable") == 0,
          "md5 runs %s with tuned spoiled", fd_active_kernels[FD_FAMILY_MD5].name);

    check(&tally, fd_select_checked_kernels(false, "md5:tuned,md5:portable", error, sizeof error),
          "the list 'md5:tuned,md5:portable' is refused: %s", error);
    failures = fd_kernel_failures(&count);
    check(&tally, count == 2 && failures[1].last_resort,
          "md5's portable C, spoiled, is not recorded as the last resort");

    const char *const bad_lists[] = {"md5", "sha3:portable", "md5:nothing", "md5:avx2_x8x"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++) {
        error[0] = '\0';
        check(&tally, !fd_select_checked_kernels(false, bad_lists[i], error, sizeof error),
              "the list '%s' is accepted", bad_lists[i]);
        check(&tally, error[0] != '\0', "no reason given for refusing '%s'", bad_lists[i]);
    }

    check(&tally, fd_select_checked_kernels(false, NULL, error, sizeof error),
          "no list is refused: %s", error);
    fd_kernel_failures(&count);
    check(&tally, count == 0, "%zu of the build's kernels failed their checks on this CPU", count);
    fd_select_checked_kernels(false, "md5:tuned", error, sizeof error);
    fd_select_kernels(false);
    fd_kernel_failures(&count);
    check(&tally, count == 0, "an unchecked selection left %zu failures recorded", count);
    report_group("all", "build", "spoiled", "FASTDIGEST_TEST_FAIL_CHECK", &tally);
}

/* The extension's selection defers each family's multi-buffer kernel to
 * the family's first batch: none is installed or checked until
 * fd_settle_multi_kernel, which installs the choice a full selection
 * makes, records a spoiled one's failure then, and only once, leaving the
 * other families pending; fd_batch_multi_kernel settles by itself. */
static void run_deferred_case(void)
{
    group_tally tally = {0, 0};
    char error[200];
    size_t count, first, end;
    const char *expected[FD_FAMILY_COUNT];

    fd_select_kernels(false);
    for (int f = 0; f < FD_FAMILY_COUNT; f++)
        expected[f] = fd_active_multi_kernels[f].name;
    check(&tally, fd_select_checked_kernels(false, NULL, error, sizeof error), "%s", error);
    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        const enum fd_family family = (enum fd_family)f;
        check(&tally, fd_active_multi_kernels[f].name == NULL && !fd_multi_kernel_settled(family),
              "family %d's multi-buffer kernel is settled before its first batch", f);
        check(&tally, fd_settle_multi_kernel(family, &first, &end) && first == end,
              "the first settle of family %d selected nothing, or recorded a failure", f);
        check(&tally, !fd_settle_multi_kernel(family, &first, &end),
              "the second settle of family %d selected again", f);
        const char *name = fd_active_multi_kernels[f].name;
        check(&tally,
              expected[f] == NULL ? name == NULL : name != NULL && strcmp(name, expected[f]) == 0,
              "family %d's batches run %s, not %s", f, name ? name : "none",
              expected[f] ? expected[f] : "none");
    }

    if (expected[FD_FAMILY_MD5] == NULL) {
        printf("    no multi-buffer md5 kernel on this CPU: its deferred refusal is not tried\n");
    }
    else {
        char spoiled[64];
        snprintf(spoiled, sizeof spoiled, "md5:%s", expected[FD_FAMILY_MD5]);
        check(&tally, fd_select_checked_kernels(false, spoiled, error, sizeof error), "%s", error);
        fd_kernel_failures(&count);
        check(&tally, count == 0, "%zu failures recorded before the first batch", count);
        const fd_multi_kernel *replacement = fd_batch_multi_kernel(FD_FAMILY_MD5);
        check(&tally, fd_multi_kernel_settled(FD_FAMILY_MD5),
              "fd_batch_multi_kernel did not settle md5");
        check(&tally, !fd_multi_kernel_settled(FD_FAMILY_SHA1),
              "settling md5 settled sha1 as well");
        check(&tally,
              replacement == NULL || strcmp(replacement->name, expected[FD_FAMILY_MD5]) != 0,
              "the spoiled %s hashes md5's batches", expected[FD_FAMILY_MD5]);
        const fd_kernel_failure *failures = fd_kernel_failures(&count);
        check(&tally,
              count == 1 && failures[0].family == FD_FAMILY_MD5 && failures[0].multi_buffer &&
                  strcmp(failures[0].kernel, expected[FD_FAMILY_MD5]) == 0,
              "%zu failures recorded at the first batch, not md5's %s", count,
              expected[FD_FAMILY_MD5]);
    }
    fd_select_kernels(false);
    report_group("all", "build", "deferred", "multi-buffer", &tally);
}

int main(int argc, char **argv)
{
    harness_start("test_select", 0x66645f73656c6563u); /* "fd_selec" */
    for (int i = 1; i < argc; i++) {
        if (!take_seed_option(argv[i]))
            fail_setup("unknown argument %s", argv[i]);
    }
    run_right_case();
    run_single_case("one_bit_off", wrong_compress, "\"abc\"");
    run_single_case("wrong_hmac_key", wrong_hmac_key, "HMAC");
    run_single_case("wrong_hmac_finish", wrong_hmac_finish, "HMAC");
    run_multi_case("crossed_x2", crossed_lanes, "in lane 0");
    run_pbkdf2_case("wrong_pbkdf2", &wrong_pbkdf2[0], NULL, "loop differs");
    run_pbkdf2_case("wrong_pbkdf2_lanes", &wrong_pbkdf2_lanes[0], NULL, "lanes");
    run_pbkdf2_case("wrong_pbkdf2_x2", &only_portable[0], &wrong_multi_pbkdf2[0],
                    "through its lanes");
    run_narrower_case();
    run_narrower_features_case();
    run_last_resort_case();
    run_spoiled_case();
    run_deferred_case();
    fd_select_kernels(false);
    return finish_run("C select");
}
