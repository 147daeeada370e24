/* Test driver of a file's parts through the lanes (files/parts.h): runs
 * without Python, natively, under sanitizers and under ThreadSanitizer
 * (tests/c/run.sh). It writes its files into a scratch folder of its own
 * under the folder it is given (default: the current one) and removes them
 * when it passes.
 *
 *   - every part's digest against fd_hash over the part's bytes, for files
 *     and part lengths around the block and at random (many parts, so that
 *     lanes take several each and drain), with every algorithm, on 1, 2 and
 *     5 threads, through every multi-buffer kernel of the family this CPU
 *     runs (not only the active one) and through none;
 *   - on POSIX, a file cut short, emptied, grown or touched between two
 *     rounds of reads (from keep_going, which the calling thread asks
 *     between rounds): FD_PARTS_CHANGED; and keep_going's false answer:
 *     FD_PARTS_STOPPED.
 *
 * Usage: test_parts [--seed=N] [SCRATCH_PARENT]
 * Prints a line per group, then "C parts: N passed, N failed"; exits 1 on
 * any failure. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* truncate, utimensat */
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "files/parts.h"
#include "harness.h"
#include "scratch.h"
#include "hash/algorithms.h"
#include "hash/family.h"

#ifndef _WIN32
#include <fcntl.h> /* AT_FDCWD (windows.h and the POSIX calls: scratch.h) */
#endif

#define MAX_NAME 512
#define MAX_SIZE ((size_t)300000)
#define MAX_PARTS ((size_t)3000)

static char scratch[MAX_NAME];
static char path[MAX_NAME + 16];

/* What a call asks between rounds: a count of its questions, and on the
 * given one the change to make (or a false answer). */
typedef enum change {
    NO_CHANGE,
    CUT_SHORT,
    EMPTIED,
    GROWN,
    TOUCHED,
    STOP,
} change;

typedef struct asking {
    unsigned asked;
    unsigned when;
    change what;
} asking;

static bool between_rounds(void *context)
{
    asking *a = context;
    if (++a->asked != a->when)
        return true;
    switch (a->what) {
    case NO_CHANGE:
        return true;
    case STOP:
        return false;
#ifndef _WIN32
    case CUT_SHORT:
    case EMPTIED:
        if (truncate(path, a->what == CUT_SHORT ? 1000 : 0) != 0)
            fail_setup("could not cut %s short", path);
        return true;
    case GROWN: {
        FILE *file = fopen(path, "ab");
        if (file != NULL) {
            fputc('x', file);
            fclose(file);
        }
        return true;
    }
    case TOUCHED: {
        const struct timespec times[2] = {{0, 0}, {1, 7}};
        if (utimensat(AT_FDCWD, path, times, 0) != 0)
            fail_setup("could not touch %s", path);
        return true;
    }
#else
    default:
        return true;
#endif
    }
    return true;
}

/* Hashes the file at `path` in parts; returns the status. */
static fd_parts_status hash_parts(enum fd_algorithm_id id, const fd_multi_kernel *multi,
                                  uint64_t size, uint64_t part_len, size_t threads,
                                  uint8_t *digests, asking *ask, unsigned long *error)
{
    fd_path_char *name = system_path(path);
    fd_parts_file file;
    fd_io_result opened = fd_parts_open(name, &file, error);
    free(name);
    if (opened != FD_IO_OK)
        return FD_PARTS_FAILED;
    const size_t part_count = size == 0 ? 1 : (size_t)((size + part_len - 1) / part_len);
    const fd_parts_request request = {
        .file = &file,
        .algorithm = id,
        .part_len = part_len,
        .part_count = part_count,
        .multi = multi,
        .threads = threads,
        .digests = digests,
        .keep_going = ask != NULL ? between_rounds : NULL,
        .keep_going_context = ask,
        .keep_going_ms = 0,
    };
    const fd_parts_status status = fd_hash_parts(&request, error);
    fd_parts_close(&file);
    return status;
}

/* The multi-buffer kernels of the family this CPU runs, then NULL (none). */
static size_t lanes_to_test(enum fd_family family, const fd_multi_kernel **out, size_t room)
{
    size_t count = 0;
    for (const fd_multi_kernel *k = fd_multi_kernel_lists[family]; k->name != NULL; k++) {
        if (count + 1 < room && cpu_runs(k->required_features))
            out[count++] = k;
    }
    out[count++] = NULL;
    return count;
}

static void test_digests(void)
{
    static const size_t threads_list[] = {1, 2, 5};
    uint8_t *data = checked_malloc(MAX_SIZE);
    uint8_t *digests = checked_malloc(MAX_PARTS * 64);
    uint8_t want[64];

    for (unsigned id = 0; id < FD_ALGORITHM_COUNT; id++) {
        const fd_algorithm *algorithm = &fd_algorithms[id];
        const size_t block = algorithm->block_len;
        const fd_multi_kernel *kernels[16];
        const size_t kernel_count = lanes_to_test(algorithm->family, kernels, 16);
        for (size_t k = 0; k < kernel_count; k++) {
            group_tally tally = {0};
            test_rng rng = rng_for(1, id * 16 + (unsigned)k);
            for (unsigned round = 0; round < 16; round++) {
                /* Sizes and part lengths around the block, then at random. */
                size_t size, part_len;
                if (round < 8) {
                    static const size_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 129};
                    size = sizes[round] + (round % 2) * block * 17;
                    part_len = round % 3 == 0 ? block : round % 3 == 1 ? block - 1 : block + 1;
                }
                else {
                    size = rng_below(&rng, MAX_SIZE);
                    part_len = 1 + rng_below(&rng, 8 * block);
                }
                if (size / part_len >= MAX_PARTS)
                    part_len = size / (MAX_PARTS - 1) + 1;
                rng_fill(&rng, data, size);
                if (!write_file(path, data, size)) {
                    check(&tally, false, "could not write %s", path);
                    continue;
                }
                const size_t threads = threads_list[round % 3];
                unsigned long error = 0;
                const fd_parts_status status = hash_parts((enum fd_algorithm_id)id, kernels[k],
                                                          size, part_len, threads, digests, NULL,
                                                          &error);
                check(&tally, status == FD_PARTS_DONE,
                      "%zu bytes in parts of %zu on %zu threads: status %d (error %lu)", size,
                      part_len, threads, (int)status, error);
                if (status != FD_PARTS_DONE)
                    continue;
                const size_t part_count = size == 0 ? 1 : (size + part_len - 1) / part_len;
                size_t wrong = 0;
                for (size_t p = 0; p < part_count; p++) {
                    const size_t start = p * part_len;
                    const size_t len = size - start < part_len ? size - start : part_len;
                    fd_hash((enum fd_algorithm_id)id, data + start, len, want);
                    wrong += memcmp(want, digests + p * algorithm->digest_len,
                                    algorithm->digest_len) != 0;
                }
                check(&tally, wrong == 0,
                      "%zu bytes in parts of %zu on %zu threads: %zu of %zu parts wrong", size,
                      part_len, threads, wrong, part_count);
            }
            char detail[64];
            snprintf(detail, sizeof detail, "%s", algorithm->name);
            report_group(fd_family(algorithm->family)->name,
                         kernels[k] != NULL ? kernels[k]->name : "single-stream", "parts", detail,
                         &tally);
        }
    }
    free(data);
    free(digests);
}

#ifndef _WIN32
static void test_changes(void)
{
    static const struct {
        change what;
        const char *name;
        fd_parts_status want;
    } cases[] = {
        {CUT_SHORT, "cut short", FD_PARTS_CHANGED}, {EMPTIED, "emptied", FD_PARTS_CHANGED},
        {GROWN, "grown", FD_PARTS_CHANGED},         {TOUCHED, "touched", FD_PARTS_CHANGED},
        {STOP, "stopped", FD_PARTS_STOPPED},        {NO_CHANGE, "unchanged", FD_PARTS_DONE},
    };
    const size_t size = 200000, part_len = 20000;
    uint8_t *data = checked_malloc(size);
    uint8_t *digests = checked_malloc(64 * 16);
    test_rng rng = rng_for(2, 0);
    group_tally tally = {0};
    const fd_multi_kernel *multi = fd_active_multi_kernels[FD_FAMILY_MD5].name != NULL
                                       ? &fd_active_multi_kernels[FD_FAMILY_MD5]
                                       : NULL;

    rng_fill(&rng, data, size);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (unsigned when = 1; when <= 2; when++) {
            for (size_t threads = 1; threads <= 2; threads++) {
                if (!write_file(path, data, size)) {
                    check(&tally, false, "could not write %s", path);
                    continue;
                }
                asking ask = {.asked = 0, .when = when, .what = cases[c].what};
                unsigned long error = 0;
                const fd_parts_status status = hash_parts(FD_MD5, multi, size, part_len, threads,
                                                          digests, &ask, &error);
                check(&tally, status == cases[c].want && ask.asked >= when,
                      "%s at question %u on %zu threads: status %d, asked %u times", cases[c].name,
                      when, threads, (int)status, ask.asked);
            }
        }
    }
    report_group("md5", multi != NULL ? multi->name : "single-stream", "changes",
                 "cut short, emptied, grown, touched, stopped", &tally);
    free(data);
    free(digests);
}
#endif

int main(int argc, char **argv)
{
    const char *parent = ".";
    harness_start("test_parts", 0x66645f7061727473u); /* "fd_parts" */
    for (int i = 1; i < argc; i++) {
        if (take_seed_option(argv[i]))
            continue;
        parent = argv[i];
    }
    print_seed();
    fd_select_kernels(false);

    if (!make_scratch_folder(scratch, sizeof scratch, parent, "test_parts")) {
        fail_setup("could not make a scratch folder in %s", parent);
        return finish_run("C parts");
    }
    snprintf(path, sizeof path, "%s/object.bin", scratch);
    test_digests();
#ifndef _WIN32
    test_changes();
#endif
    remove(path);
    remove_folder(scratch);
    return finish_run("C parts");
}
