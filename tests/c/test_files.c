/* Test driver of the file reader (files/files.h): runs without Python,
 * natively, under sanitizers (tests/c/run.sh) and on Windows under wine
 * (.ci/cross.sh). It writes its files into a scratch folder of its own
 * under the folder it is given (default: the current one) and removes them
 * when it passes.
 *
 *   - digests of files of every size around the chunk and block boundaries
 *     and of random sizes, for chunk lengths that are and are not block
 *     multiples and the default, with one algorithm, all eight, and a list
 *     with repeats, on 1, 2 and 5 threads: each against fd_hash over the
 *     file's bytes;
 *   - failures: a missing file, a directory, several failures, on any
 *     number of threads: the first in order is the one reported, with its
 *     error code, and every file before it has its digests;
 *   - keep_going: asked as often as the request says, and a false answer
 *     stops the call;
 *   - big files hashed by two threads when one is idle, in relay or with
 *     the algorithms split, and a call stopped in either;
 *   - on POSIX: a character device (/dev/null), a FIFO written by a child
 *     process, and on Linux a /proc file, whose size fstat gives as 0; and
 *     a call stopped while another thread than the calling one reads
 *     /dev/zero or a FIFO that never ends; and a file cut short by another
 *     thread while it is hashed plainly, in relay and split: every digest
 *     of one call of the same prefix of it;
 *   - files side by side in the lanes of each multi-buffer kernel, of sizes
 *     around the blocks and the stripes, on 1 to 3 threads: each against
 *     fd_hash and the single-stream reader, a missing file in the middle
 *     the failure in order, and one file of many cut short while the lanes
 *     hash it giving the digest of a prefix of it;
 *   - files hashed as git objects (git_type): the header with the size,
 *     then the content, for every size around the chunks, on 1 and 2
 *     threads, a big file never paired; and on POSIX /dev/null refused, on
 *     Linux a /proc file whose size is not its content's, and a file cut
 *     short while it is hashed: the id of the whole file or the failure,
 *     never that of a prefix under the whole file's header.
 *
 * Usage: test_files [--seed=N] [SCRATCH_PARENT]
 * Prints a line per group, then "C files: N passed, N failed"; exits 1 on
 * any failure. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* mkfifo, mkdtemp */
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/algorithms.h"
#include "files/files.h"
#include "hash/batch.h"
#include "dispatch/dispatch.h"
#include "harness.h"
#include "scratch.h"
#include "platform/parallel.h"

#ifndef _WIN32 /* (windows.h, sys/stat.h and unistd.h: scratch.h) */
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#endif

#define MAX_FILES 300
#define MAX_NAME 512

static char scratch[MAX_NAME];

/* ---- files --------------------------------------------------------------- */

static void join(char *out, const char *folder, const char *name)
{
    const int len = snprintf(out, MAX_NAME, "%s/%s", folder, name);
    if (len < 0 || len >= MAX_NAME)
        fail_setup("the path %s/%s is too long", folder, name);
}

/* The codes fd_hash_files reports for a missing file and for a directory. */
#ifdef _WIN32
#define MISSING_ERROR ((unsigned long)ERROR_FILE_NOT_FOUND)
#define DIRECTORY_ERROR ((unsigned long)ERROR_ACCESS_DENIED)
#else
#define MISSING_ERROR ((unsigned long)ENOENT)
#define DIRECTORY_ERROR ((unsigned long)EISDIR)
#endif

/* ---- one request ------------------------------------------------------------ */

typedef struct files_call {
    const char *names[MAX_FILES]; /* paths as the test writes them */
    size_t count;
    enum fd_algorithm_id algorithms[16];
    size_t algorithm_count;
    size_t threads;
    size_t chunk_len;
    fd_files_keep_going *keep_going;
    void *keep_going_context;
    unsigned keep_going_ms;
    fd_files_pairing pairing;
    const char *git_type;
    bool without_lanes;
    /* Results: */
    uint8_t *digests;
    fd_files_outcome outcome;
    fd_files_status status;
} files_call;

static void run_call(files_call *call)
{
    fd_path_char *paths[MAX_FILES];
    for (size_t i = 0; i < call->count; i++)
        paths[i] = system_path(call->names[i]);
    const size_t digests_len = fd_files_digests_len(call->algorithms, call->algorithm_count);
    call->digests = checked_malloc(call->count * digests_len);
    memset(call->digests, 0xA5, call->count * digests_len);
    const fd_files_request request = {
        .paths = (const fd_path_char *const *)paths,
        .count = call->count,
        .algorithms = call->algorithms,
        .algorithm_count = call->algorithm_count,
        .digests = call->digests,
        .threads = call->threads,
        .chunk_len = call->chunk_len,
        .keep_going = call->keep_going,
        .keep_going_context = call->keep_going_context,
        .keep_going_ms = call->keep_going_ms,
        .pairing = call->pairing,
        .git_type = call->git_type,
        .without_lanes = call->without_lanes,
    };
    call->status = fd_hash_files(&request, &call->outcome);
    for (size_t i = 0; i < call->count; i++)
        free(paths[i]);
}

/* Whether file `index` of the call has the digests of data[0..len). */
static bool digests_match(const files_call *call, size_t index, const uint8_t *data, size_t len)
{
    const size_t digests_len = fd_files_digests_len(call->algorithms, call->algorithm_count);
    const uint8_t *got = call->digests + index * digests_len;
    for (size_t k = 0; k < call->algorithm_count; k++) {
        uint8_t expected[FD_MAX_DIGEST_LEN];
        const fd_algorithm *algorithm = &fd_algorithms[call->algorithms[k]];
        fd_hash(call->algorithms[k], data, len, expected);
        if (memcmp(got, expected, algorithm->digest_len) != 0)
            return false;
        got += algorithm->digest_len;
    }
    return true;
}

static void set_algorithms(files_call *call, const enum fd_algorithm_id *ids, size_t count)
{
    memcpy(call->algorithms, ids, count * sizeof *ids);
    call->algorithm_count = count;
}

/* ---- tests ------------------------------------------------------------------- */

static const enum fd_algorithm_id ONE[] = {FD_SHA256};
#define ALGORITHM_ID(name, NAME, ...) FD_##NAME,
static const enum fd_algorithm_id ALL[] = {FD_ALGORITHMS(ALGORITHM_ID)};
#undef ALGORITHM_ID
static const enum fd_algorithm_id REPEATS[] = {FD_MD5, FD_SHA512, FD_MD5, FD_SHA1};

typedef struct algorithm_list {
    const enum fd_algorithm_id *ids;
    size_t count;
    const char *label;
} algorithm_list;

static const algorithm_list LISTS[] = {
    {ONE, 1, "sha256"},
    {ALL, FD_ALGORITHM_COUNT, "every algorithm"},
    {REPEATS, 4, "md5,sha512,md5,sha1"},
};

static const size_t THREADS[] = {1, 2, 5};

/* Files of the sizes that matter for a chunk length: around 0, the blocks,
 * each chunk boundary up to three chunks, and random sizes up to ten
 * chunks. */
static size_t sizes_for(size_t chunk_len, test_rng *rng, size_t *sizes, size_t max)
{
    const size_t fixed[] = {0,
                            1,
                            55,
                            63,
                            64,
                            65,
                            127,
                            128,
                            129,
                            chunk_len - 1,
                            chunk_len,
                            chunk_len + 1,
                            2 * chunk_len - 1,
                            2 * chunk_len,
                            2 * chunk_len + 1,
                            3 * chunk_len + 5};
    size_t count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && count < max; i++)
        sizes[count++] = fixed[i];
    while (count < max)
        sizes[count++] = rng_below(rng, 10 * chunk_len + 1);
    return count;
}

/* Writes the call's call->count files into the scratch folder, PREFIX-i.bin
 * each the first sizes[i] bytes of random data (distinct sizes give
 * distinct contents), and names them in the call. Returns the data. */
static uint8_t *write_sized_files(files_call *call, char (*names)[MAX_NAME], const char *prefix,
                                  const size_t *sizes, test_rng *rng, group_tally *tally)
{
    size_t largest = 1;
    for (size_t i = 0; i < call->count; i++)
        largest = sizes[i] > largest ? sizes[i] : largest;
    uint8_t *data = checked_malloc(largest);
    rng_fill(rng, data, largest);
    bool written = true;
    for (size_t i = 0; i < call->count; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s-%zu.bin", prefix, i);
        join(names[i], scratch, name);
        written = write_file(names[i], data, sizes[i]) && written;
        call->names[i] = names[i];
    }
    check(tally, written, "could not write the files in %s", scratch);
    return data;
}

static void test_digests(void)
{
    /* A block multiple, one that is not, a page, and the default. */
    const size_t chunk_lens[] = {64, 100, 4096, 0};
    test_rng rng = rng_for(1, 0);

    for (size_t c = 0; c < sizeof chunk_lens / sizeof chunk_lens[0]; c++) {
        group_tally tally = {0, 0};
        const size_t chunk_len = chunk_lens[c] != 0 ? chunk_lens[c] : FD_FILES_CHUNK_LEN;
        size_t sizes[40];
        /* The default chunk's files are large: fewer of them. */
        const size_t count = sizes_for(chunk_len, &rng, sizes, chunk_lens[c] != 0 ? 40 : 20);
        static char names[40][MAX_NAME];
        files_call call = {.count = count, .chunk_len = chunk_lens[c]};
        uint8_t *data = write_sized_files(&call, names, "size", sizes, &rng, &tally);

        for (size_t l = 0; l < sizeof LISTS / sizeof LISTS[0]; l++) {
            for (size_t t = 0; t < sizeof THREADS / sizeof THREADS[0]; t++) {
                set_algorithms(&call, LISTS[l].ids, LISTS[l].count);
                call.threads = THREADS[t];
                run_call(&call);
                check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == count,
                      "chunk %zu, %s, %zu threads: status %d, failed at %zu (error %lu)", chunk_len,
                      LISTS[l].label, call.threads, (int)call.status, call.outcome.failed,
                      call.outcome.error);
                for (size_t i = 0; i < count; i++)
                    check(&tally, digests_match(&call, i, data, sizes[i]),
                          "chunk %zu, %s, %zu threads: wrong digests of %zu bytes", chunk_len,
                          LISTS[l].label, call.threads, sizes[i]);
                free(call.digests);
            }
        }
        for (size_t i = 0; i < count; i++)
            remove(names[i]);
        free(data);

        char detail[64];
        snprintf(detail, sizeof detail, "chunk %zu bytes, %zu files", chunk_len, count);
        report_group("files", "-", "digests", detail, &tally);
    }
}

/* The files fill[0..count), each of a few hundred bytes, with the names in
 * names; files listed in missing are not written, and those listed in
 * folders are made folders. */
static uint8_t contents[MAX_FILES][300];
static size_t content_lens[MAX_FILES];

static void make_numbered_files(char (*names)[MAX_NAME], size_t count, const size_t *missing,
                                size_t missing_count, const size_t *folders, size_t folder_count,
                                group_tally *tally)
{
    test_rng rng = rng_for(2, (unsigned)count);
    for (size_t i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "numbered-%zu", i);
        join(names[i], scratch, name);
        bool skip = false;
        for (size_t m = 0; m < missing_count; m++)
            skip |= missing[m] == i;
        for (size_t f = 0; f < folder_count; f++) {
            if (folders[f] == i) {
                check(tally, make_folder(names[i]), "could not make the folder %s", names[i]);
                skip = true;
            }
        }
        if (skip)
            continue;
        content_lens[i] = rng_below(&rng, sizeof contents[i] + 1);
        rng_fill(&rng, contents[i], content_lens[i]);
        check(tally, write_file(names[i], contents[i], content_lens[i]), "could not write %s",
              names[i]);
    }
}

static void remove_numbered_files(char (*names)[MAX_NAME], size_t count, const size_t *folders,
                                  size_t folder_count)
{
    for (size_t i = 0; i < count; i++) {
        bool folder = false;
        for (size_t f = 0; f < folder_count; f++)
            folder |= folders[f] == i;
        if (folder)
            remove_folder(names[i]);
        else
            remove(names[i]);
    }
}

static void test_failures(void)
{
    static char names[MAX_FILES][MAX_NAME];
    group_tally tally = {0, 0};
    /* Of 200 files, every one from 150 on is missing but 180, a folder: the
     * threads fail on several at once, in any order, and 150 is the first. */
    const size_t count = 200, folders[] = {180};
    size_t missing[50];
    for (size_t i = 0; i < 50; i++)
        missing[i] = 150 + i;
    make_numbered_files(names, count, missing, 50, folders, 1, &tally);

    for (size_t t = 0; t < sizeof THREADS / sizeof THREADS[0]; t++) {
        files_call call = {.count = count, .threads = THREADS[t], .chunk_len = 64};
        for (size_t i = 0; i < count; i++)
            call.names[i] = names[i];
        set_algorithms(&call, REPEATS, 4);
        for (int round = 0; round < (call.threads > 1 ? 100 : 1); round++) {
            run_call(&call);
            check(&tally, call.status == FD_FILES_DONE, "%zu threads: status %d", call.threads,
                  (int)call.status);
            check(&tally, call.outcome.failed == 150 && call.outcome.error == MISSING_ERROR,
                  "%zu threads: failed at %zu with %lu, not 150 with %lu", call.threads,
                  call.outcome.failed, call.outcome.error, MISSING_ERROR);
            for (size_t i = 0; i < 150; i++)
                check(&tally, digests_match(&call, i, contents[i], content_lens[i]),
                      "%zu threads: wrong digests of file %zu, before the failure", call.threads,
                      i);
            free(call.digests);
        }

        /* The folder first. */
        call.names[1] = names[180];
        run_call(&call);
        check(&tally,
              call.status == FD_FILES_DONE && call.outcome.failed == 1 &&
                  call.outcome.error == DIRECTORY_ERROR,
              "%zu threads, a folder: failed at %zu with %lu, not 1 with %lu", call.threads,
              call.outcome.failed, call.outcome.error, DIRECTORY_ERROR);
        check(&tally, digests_match(&call, 0, contents[0], content_lens[0]),
              "%zu threads: wrong digests of the file before the folder", call.threads);
        free(call.digests);

        /* Only one file, missing. */
        call.names[0] = names[150];
        call.count = 1;
        run_call(&call);
        check(&tally, call.outcome.failed == 0 && call.outcome.error == MISSING_ERROR,
              "%zu threads, one missing file: failed at %zu with %lu", call.threads,
              call.outcome.failed, call.outcome.error);
        free(call.digests);

        /* None at all. */
        call.count = 0;
        run_call(&call);
        check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == 0,
              "no files: status %d, failed at %zu", (int)call.status, call.outcome.failed);
        free(call.digests);
    }
    remove_numbered_files(names, count, folders, 1);
    report_group("files", "-", "failures", "the first in order, on 1, 2, 5 threads", &tally);
}

typedef struct asked {
    unsigned long calls;
    unsigned long answer_false_from; /* the call (from 1) from which the answer is false */
} asked;

static bool count_and_answer(void *context)
{
    asked *a = context;
    a->calls++;
    return a->answer_false_from == 0 || a->calls < a->answer_false_from;
}

static void test_keep_going(void)
{
    static char names[MAX_FILES][MAX_NAME];
    group_tally tally = {0, 0};
    const size_t count = MAX_FILES;
    make_numbered_files(names, count, NULL, 0, NULL, 0, &tally);

    for (size_t t = 0; t < sizeof THREADS / sizeof THREADS[0]; t++) {
        files_call call = {.count = count, .threads = THREADS[t]};
        for (size_t i = 0; i < count; i++)
            call.names[i] = names[i];
        set_algorithms(&call, ONE, 1);

        /* keep_going_ms 0: asked at every file the calling thread opens. */
        asked always = {0, 0};
        call.keep_going = count_and_answer;
        call.keep_going_context = &always;
        run_call(&call);
        check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == count,
              "%zu threads, keep going: status %d", call.threads, (int)call.status);
        /* With other threads, the calling one may find every file taken by
         * the time it has started them. */
        check(&tally, call.threads > 1 || always.calls >= count,
              "%zu threads: keep_going asked %lu times", call.threads, always.calls);
        for (size_t i = 0; i < count; i++)
            check(&tally, digests_match(&call, i, contents[i], content_lens[i]),
                  "%zu threads, keep going: wrong digests of file %zu", call.threads, i);
        free(call.digests);

        /* A long interval: a short call is never asked. */
        asked never = {0, 0};
        call.keep_going_context = &never;
        call.keep_going_ms = 1000000;
        run_call(&call);
        check(&tally, call.status == FD_FILES_DONE && never.calls == 0,
              "%zu threads, 1000 s apart: status %d after %lu questions", call.threads,
              (int)call.status, never.calls);
        free(call.digests);

        asked stop = {0, 1};
        call.keep_going_context = &stop;
        call.keep_going_ms = 0;
        call.threads = 1;
        run_call(&call);
        check(&tally, call.status == FD_FILES_STOPPED && stop.calls == 1,
              "stopped: status %d after %lu questions", (int)call.status, stop.calls);
        free(call.digests);
    }
    remove_numbered_files(names, count, NULL, 0);
    report_group("files", "-", "keep_going", "asked, and a false answer stops", &tally);
}

/* ---- lanes ---------------------------------------------------------------------- */

/* Whether a request of `count` files with one algorithm of `family` on
 * `threads` threads goes through the lanes (files/file_lanes.h). */
static bool lanes_expected(enum fd_family family, size_t count, size_t threads)
{
    const fd_multi_kernel *multi = fd_batch_multi_kernel(family);
    if (multi == NULL)
        return false;
    const size_t groups = (count + multi->lanes - 1) / multi->lanes;
    size_t parts = threads < count ? threads : count;
    parts = groups < parts ? groups : parts;
    const size_t per_part = (count + parts - 1) / parts;
    return fd_batch_lanes_pay(multi, per_part < multi->lanes ? per_part : multi->lanes);
}

/* Many files in the lanes of each algorithm's multi-buffer kernel: sizes
 * around the block and the stripe (the chunk, for chunks under the round's
 * share), and random ones over several stripes; every digest against
 * fd_hash, the lanes against the single-stream reader (without_lanes), and
 * the files that went through the lanes counted. Then a missing file in
 * the middle: the failure in order, every file before it hashed. */
static void test_lanes(void)
{
    test_rng rng = rng_for(7, 0);
    const size_t chunk_lens[] = {192, 4096, 0};
    static char names[60][MAX_NAME];
    for (size_t a = 0; a < FD_ALGORITHM_COUNT; a++) {
        const enum fd_algorithm_id id = (enum fd_algorithm_id)a;
        const fd_algorithm *algorithm = &fd_algorithms[id];
        if (fd_batch_multi_kernel(algorithm->family) == NULL)
            continue;
        group_tally tally = {0, 0};
        size_t laned = 0;
        for (size_t c = 0; c < sizeof chunk_lens / sizeof chunk_lens[0]; c++) {
            const size_t block = algorithm->block_len;
            const size_t stripe = chunk_lens[c] != 0 ? chunk_lens[c] - chunk_lens[c] % block
                                                     : (size_t)1 << 16;
            const size_t fixed[] = {0,
                                    1,
                                    block - 1,
                                    block,
                                    block + 1,
                                    stripe - 1,
                                    stripe,
                                    stripe + 1,
                                    2 * stripe,
                                    3 * stripe + block - 1,
                                    5 * stripe + 7};
            size_t sizes[60];
            size_t count = 0;
            const size_t wanted = chunk_lens[c] != 0 ? 60 : 24;
            for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
                sizes[count++] = fixed[i];
            while (count < wanted)
                sizes[count++] = rng_below(&rng, 4 * stripe + 1);
            files_call call = {.count = count, .chunk_len = chunk_lens[c]};
            set_algorithms(&call, &id, 1);
            uint8_t *data = write_sized_files(&call, names, "lanes", sizes, &rng, &tally);
            size_t empty = 0;
            for (size_t i = 0; i < count; i++)
                empty += sizes[i] == 0;

            for (size_t threads = 1; threads <= 3; threads++) {
                call.threads = threads;
                call.without_lanes = true;
                run_call(&call);
                uint8_t *plain = call.digests;
                check(&tally, call.status == FD_FILES_DONE && call.outcome.laned == 0,
                      "%s, chunk %zu, %zu threads, without lanes: status %d, %zu laned",
                      algorithm->name, chunk_lens[c], threads, (int)call.status,
                      call.outcome.laned);
                call.without_lanes = false;
                run_call(&call);
                check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == count,
                      "%s, chunk %zu, %zu threads: status %d, failed at %zu", algorithm->name,
                      chunk_lens[c], threads, (int)call.status, call.outcome.failed);
                const bool expected = lanes_expected(algorithm->family, count, threads);
                check(&tally, call.outcome.laned == (expected ? count - empty : 0),
                      "%s, chunk %zu, %zu threads: %zu files laned, %zu expected", algorithm->name,
                      chunk_lens[c], threads, call.outcome.laned, expected ? count - empty : 0);
                laned += call.outcome.laned;
                for (size_t i = 0; i < count; i++)
                    check(&tally, digests_match(&call, i, data, sizes[i]),
                          "%s, chunk %zu, %zu threads: wrong digest of %zu bytes", algorithm->name,
                          chunk_lens[c], threads, sizes[i]);
                check(&tally, memcmp(plain, call.digests, count * algorithm->digest_len) == 0,
                      "%s, chunk %zu, %zu threads: lanes and the single stream differ",
                      algorithm->name, chunk_lens[c], threads);
                free(plain);
                free(call.digests);

                /* A file in the middle missing: the first failure in order. */
                const size_t missing = count / 2 + threads;
                char missing_name[MAX_NAME];
                join(missing_name, scratch, "lanes-missing.bin");
                call.names[missing] = missing_name;
                run_call(&call);
                check(&tally,
                      call.status == FD_FILES_DONE && call.outcome.failed == missing &&
                          call.outcome.error == MISSING_ERROR,
                      "%s, %zu threads, file %zu missing: status %d, failed at %zu (error %lu)",
                      algorithm->name, threads, missing, (int)call.status, call.outcome.failed,
                      call.outcome.error);
                for (size_t i = 0; i < missing; i++)
                    check(&tally, digests_match(&call, i, data, sizes[i]),
                          "%s, %zu threads, file %zu missing: wrong digest of file %zu",
                          algorithm->name, threads, missing, i);
                free(call.digests);
                call.names[missing] = names[missing];
            }
            for (size_t i = 0; i < count; i++)
                remove(names[i]);
            free(data);
        }
        char detail[80];
        snprintf(detail, sizeof detail, "%zu files in lanes, 1 to 3 threads, one missing", laned);
        report_group("files", algorithm->name, "lanes", detail, &tally);
    }
}

/* Few files on several threads, with a multi-buffer kernel that has a
 * narrower one (MD5's AVX-512 on Zen 4): too few to fill a group of the
 * kernel's lanes per thread, they go into the narrower kernel's lanes on
 * two threads once the calling thread's first files hold a narrowed
 * thread's work, so that each thread hashes files in lanes of its own;
 * small ones stay in one thread's wider lanes, no thread started for them.
 * Sizes differ by a few bytes, so that files swapped between lanes would
 * give wrong digests. */
static void test_narrowed_lanes(void)
{
    static char names[FD_BATCH_MAX_LANES][MAX_NAME];
    test_rng rng = rng_for(11, 0);
    size_t tested = 0;
    for (size_t a = 0; a < FD_ALGORITHM_COUNT; a++) {
        const enum fd_algorithm_id id = (enum fd_algorithm_id)a;
        const fd_algorithm *algorithm = &fd_algorithms[id];
        const fd_multi_kernel *multi = fd_batch_multi_kernel(algorithm->family);
        if (multi == NULL || multi->narrower == NULL || 2 * multi->narrower->lanes > multi->lanes)
            continue;
        /* Two groups of the narrower kernel's lanes, one of the kernel's.
         * The files narrow only from lanes that pay for them on one thread
         * (file_lanes.c): SHA-1's sixteen lanes do not, for four files. */
        const size_t count = 2 * multi->narrower->lanes;
        if (!fd_batch_lanes_pay(multi, count))
            continue;
        group_tally tally = {0, 0};
        const size_t big = (size_t)(FD_BATCH_MIN_WORK_PER_NARROWED_THREAD / 2);
        for (int small = 0; small <= 1; small++) {
            size_t sizes[FD_BATCH_MAX_LANES];
            for (size_t i = 0; i < count; i++)
                sizes[i] = (small ? 1000 : big) + 7 * i;
            files_call call = {.count = count};
            set_algorithms(&call, &id, 1);
            uint8_t *data = write_sized_files(&call, names, "narrowed", sizes, &rng, &tally);
            for (size_t threads = 1; threads <= 3; threads++) {
                call.threads = threads;
                run_call(&call);
                const size_t expected = threads > 1 && !small ? 2 : 1;
                check(&tally,
                      call.status == FD_FILES_DONE && call.outcome.failed == count &&
                          call.outcome.laned == count,
                      "%s, %s files, %zu threads: status %d, failed at %zu, %zu laned",
                      algorithm->name, small ? "small" : "big", threads, (int)call.status,
                      call.outcome.failed, call.outcome.laned);
                check(&tally, call.outcome.lane_threads == expected,
                      "%s, %s files, %zu threads: files in the lanes of %zu threads, %zu expected",
                      algorithm->name, small ? "small" : "big", threads, call.outcome.lane_threads,
                      expected);
                for (size_t i = 0; i < count; i++)
                    check(&tally, digests_match(&call, i, data, sizes[i]),
                          "%s, %s files, %zu threads: wrong digest of file %zu", algorithm->name,
                          small ? "small" : "big", threads, i);
                free(call.digests);
            }
            for (size_t i = 0; i < count; i++)
                remove(names[i]);
            free(data);
        }
        char detail[80];
        snprintf(detail, sizeof detail, "%zu files on %s's lanes, 1 to 3 threads", count,
                 multi->narrower->name);
        report_group("files", algorithm->name, "narrowed lanes", detail, &tally);
        tested++;
    }
    /* Only some CPUs run a narrower kernel (dispatch.c's table). */
    if (tested == 0) {
        group_tally none = {0, 0};
        report_group("files", "-", "narrowed lanes", "none: no narrower kernel on this CPU", &none);
    }
}

/* Big files with threads to spare: two threads hash each, in relay (each
 * reading the chunk after the other's) or with the algorithms split
 * between them, forced or as the first chunk's timings choose, with the
 * same digests; and a call stopped in the middle of one stops both. */
static void test_pairs(void)
{
    static char names[4][MAX_NAME];
    group_tally tally = {0, 0};
    test_rng rng = rng_for(3, 0);
    /* With chunks of 64 and 100 bytes, 32 chunks are 2 and 3.2 KB: files of
     * 4 to 40 KB go on two threads, each ending anywhere in a chunk. */
    const size_t sizes[4] = {4000 + rng_below(&rng, 64), 4096 * 3, 40000 + rng_below(&rng, 100),
                             31 * 64};
    uint8_t *data = checked_malloc(sizes[2]);
    rng_fill(&rng, data, sizes[2]);
    for (size_t i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "pair-%zu.bin", i);
        join(names[i], scratch, name);
        check(&tally, write_file(names[i], data, sizes[i]), "could not write %s", names[i]);
    }
    const size_t chunk_lens[] = {64, 100};
    const fd_files_pairing pairings[] = {FD_FILES_PAIR_CHOSEN, FD_FILES_PAIR_RELAY,
                                         FD_FILES_PAIR_SPLIT};
    for (size_t c = 0; c < 2; c++) {
        for (size_t l = 0; l < sizeof LISTS / sizeof LISTS[0]; l++) {
            for (size_t p = 0; p < 3; p++) {
                /* One file on two threads; three on four (one thread to
                 * spare, then more as the others finish); four on one
                 * (none). */
                const size_t counts[] = {1, 3, 4}, threads[] = {2, 4, 1};
                for (size_t t = 0; t < 3; t++) {
                    /* The reader one file at a time, which pairs: with one
                     * algorithm, three files would go side by side in
                     * SHA-256's lanes on two threads (test_lanes). */
                    files_call call = {.count = counts[t],
                                       .threads = threads[t],
                                       .chunk_len = chunk_lens[c],
                                       .pairing = pairings[p],
                                       .without_lanes = true};
                    for (size_t i = 0; i < call.count; i++)
                        call.names[i] = names[i];
                    set_algorithms(&call, LISTS[l].ids, LISTS[l].count);
                    run_call(&call);
                    check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == call.count,
                          "%zu files on %zu threads: status %d, failed at %zu", call.count,
                          call.threads, (int)call.status, call.outcome.failed);
                    /* A split needs several algorithms; one is relayed. */
                    const size_t paired = call.outcome.relayed + call.outcome.split;
                    const bool split_only = pairings[p] == FD_FILES_PAIR_SPLIT &&
                                            LISTS[l].count > 1;
                    const bool relay_only = pairings[p] == FD_FILES_PAIR_RELAY ||
                                            LISTS[l].count == 1;
                    check(&tally,
                          (paired > 0) == (threads[t] > 1) &&
                              (!split_only || call.outcome.relayed == 0) &&
                              (!relay_only || call.outcome.split == 0),
                          "%zu files on %zu threads, chunk %zu, %s, pairing %d: %zu relayed, "
                          "%zu split",
                          call.count, call.threads, chunk_lens[c], LISTS[l].label, (int)pairings[p],
                          call.outcome.relayed, call.outcome.split);
                    for (size_t i = 0; i < call.count; i++)
                        check(&tally, digests_match(&call, i, data, sizes[i]),
                              "%zu files on %zu threads, chunk %zu, %s, pairing %d: wrong "
                              "digests of %zu bytes",
                              call.count, call.threads, chunk_lens[c], LISTS[l].label,
                              (int)pairings[p], sizes[i]);
                    free(call.digests);
                }
            }
        }
    }

    /* Stopped after a few chunks of the one file, in relay or split: the
     * call stops, and returns (its second thread with it). */
    for (size_t p = 1; p < 3; p++) {
        asked stop = {0, 3};
        files_call call = {.count = 1, .threads = 2, .chunk_len = 64, .pairing = pairings[p]};
        call.names[0] = names[2];
        set_algorithms(&call, REPEATS, 4);
        call.keep_going = count_and_answer;
        call.keep_going_context = &stop;
        run_call(&call);
        check(&tally, call.status == FD_FILES_STOPPED && stop.calls == 3,
              "stopped on two threads, pairing %d: status %d after %lu questions", (int)pairings[p],
              (int)call.status, stop.calls);
        free(call.digests);
    }

    for (size_t i = 0; i < 4; i++)
        remove(names[i]);
    free(data);
    report_group("files", "-", "pairs", "relay and split, 1 to 4 files", &tally);
}

/* ---- files as git objects ------------------------------------------------------ */

/* Whether file `index` of the call has the digests of git's object of
 * type `type` holding data[0..len): "TYPE LEN\0" then the data. */
static bool git_digests_match(const files_call *call, size_t index, const char *type,
                              const uint8_t *data, size_t len)
{
    char header[64];
    const int header_len = snprintf(header, sizeof header, "%s %zu", type, len) + 1;
    uint8_t *object = checked_malloc((size_t)header_len + len + 1);
    memcpy(object, header, (size_t)header_len);
    if (len > 0)
        memcpy(object + header_len, data, len);
    const bool match = digests_match(call, index, object, (size_t)header_len + len);
    free(object);
    return match;
}

static const enum fd_algorithm_id GIT_FORMATS[] = {FD_SHA1, FD_SHA256};

static void test_git_objects(void)
{
    static const char *const TYPES[] = {"blob", "commit"};
    const size_t chunk_lens[] = {64, 100, 0};
    test_rng rng = rng_for(5, 0);
    group_tally tally = {0, 0};
    for (size_t c = 0; c < sizeof chunk_lens / sizeof chunk_lens[0]; c++) {
        const size_t chunk_len = chunk_lens[c] != 0 ? chunk_lens[c] : FD_FILES_CHUNK_LEN;
        size_t sizes[24];
        const size_t count = sizes_for(chunk_len, &rng, sizes, 24);
        static char names[24][MAX_NAME];
        files_call call = {.count = count, .chunk_len = chunk_lens[c]};
        uint8_t *data = write_sized_files(&call, names, "git", sizes, &rng, &tally);
        for (size_t t = 0; t < 2; t++) {
            for (size_t k = 0; k < 2; k++) {
                set_algorithms(&call, GIT_FORMATS, 2);
                call.threads = 1 + t;
                call.git_type = TYPES[k];
                run_call(&call);
                check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == count,
                      "git %s, chunk %zu, %zu threads: status %d, failed at %zu (error %lu)",
                      TYPES[k], chunk_len, call.threads, (int)call.status, call.outcome.failed,
                      call.outcome.error);
                for (size_t i = 0; i < count; i++)
                    check(&tally, git_digests_match(&call, i, TYPES[k], data, sizes[i]),
                          "git %s, chunk %zu, %zu threads: wrong id of %zu bytes", TYPES[k],
                          chunk_len, call.threads, sizes[i]);
                free(call.digests);
            }
        }
        for (size_t i = 0; i < count; i++)
            remove(names[i]);
        free(data);
    }

    /* A file long enough to be paired stays on its thread. */
    const size_t big_len = 40 * (size_t)4096;
    uint8_t *big = checked_malloc(big_len);
    rng_fill(&rng, big, big_len);
    char big_name[MAX_NAME];
    join(big_name, scratch, "git-big.bin");
    check(&tally, write_file(big_name, big, big_len), "could not write %s", big_name);
    files_call call = {.count = 1, .threads = 2, .chunk_len = 4096, .git_type = "blob"};
    call.names[0] = big_name;
    set_algorithms(&call, GIT_FORMATS, 2);
    call.pairing = FD_FILES_PAIR_RELAY;
    run_call(&call);
    check(&tally,
          call.outcome.failed == 1 && call.outcome.relayed == 0 && call.outcome.split == 0 &&
              git_digests_match(&call, 0, "blob", big, big_len),
          "a big git blob: failed at %zu, %zu relayed, or a wrong id", call.outcome.failed,
          call.outcome.relayed);
    free(call.digests);
    remove(big_name);
    free(big);
    report_group("files", "-", "git objects", "sizes around the chunks, 1 and 2 threads", &tally);
}

#ifndef _WIN32
/* Files that are not regular: what open() and read() give. */
static void test_special_files(void)
{
    group_tally tally = {0, 0};
    files_call call = {.count = 1, .threads = 1};
    set_algorithms(&call, ALL, 8);

    call.names[0] = "/dev/null";
    run_call(&call);
    check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == 1,
          "/dev/null: failed at %zu with %lu", call.outcome.failed, call.outcome.error);
    check(&tally, digests_match(&call, 0, NULL, 0), "/dev/null: not the empty digests");
    free(call.digests);

    /* A FIFO: open waits for the writer, the reads for its end. */
    char fifo[MAX_NAME];
    join(fifo, scratch, "fifo");
    static const uint8_t message[] = "written into a FIFO by a child process, in two writes";
    if (mkfifo(fifo, 0600) != 0) {
        check(&tally, false, "mkfifo %s: %s", fifo, strerror(errno));
    }
    else {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            FILE *writer = fopen(fifo, "wb");
            if (writer == NULL)
                _exit(3);
            fwrite(message, 1, 10, writer);
            fflush(writer);
            fwrite(message + 10, 1, sizeof message - 10, writer);
            _exit(fclose(writer) == 0 ? 0 : 4);
        }
        call.names[0] = fifo;
        run_call(&call);
        int status = 0;
        waitpid(child, &status, 0);
        check(&tally, WIFEXITED(status) && WEXITSTATUS(status) == 0, "the FIFO's writer failed");
        check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == 1,
              "FIFO: failed at %zu with %lu", call.outcome.failed, call.outcome.error);
        check(&tally, digests_match(&call, 0, message, sizeof message), "FIFO: wrong digests");
        free(call.digests);
        remove(fifo);
    }

#ifdef __linux__
    /* fstat gives /proc's files the size 0 whatever they hold: read to the
     * read that returns 0, not to the size. Its content is this program's
     * command line, which stays the same. */
    uint8_t expected[4096];
    FILE *cmdline = fopen("/proc/self/cmdline", "rb");
    size_t expected_len = cmdline != NULL ? fread(expected, 1, sizeof expected, cmdline) : 0;
    if (cmdline != NULL)
        fclose(cmdline);
    check(&tally, expected_len > 0, "could not read /proc/self/cmdline");
    call.names[0] = "/proc/self/cmdline";
    call.chunk_len = 1; /* every read short of nothing, so the end is the 0 */
    run_call(&call);
    check(&tally, call.outcome.failed == 1 && digests_match(&call, 0, expected, expected_len),
          "/proc/self/cmdline: failed at %zu, or wrong digests", call.outcome.failed);
    free(call.digests);
    call.chunk_len = 0;
    run_call(&call);
    check(&tally, call.outcome.failed == 1 && digests_match(&call, 0, expected, expected_len),
          "/proc/self/cmdline, default chunk: failed at %zu, or wrong digests",
          call.outcome.failed);
    free(call.digests);
#endif
    report_group("files", "-", "special", "/dev/null, a FIFO, /proc", &tally);
}

/* ---- a file that shrinks while it is hashed ---------------------------------------- */

typedef struct truncation {
    const char *path;
    uint64_t cut;
    long delay_ns;
} truncation;

static bool truncate_later(void *context, size_t part)
{
    (void)part;
    const truncation *t = context;
    const struct timespec delay = {0, t->delay_ns};
    nanosleep(&delay, NULL);
    return truncate(t->path, (off_t)t->cut) == 0;
}

/* Writes data[0..size) to the call's one file, runs the call while another
 * thread cuts the file short at a random page boundary after a random
 * delay, and returns the cut; UINT64_MAX, with the failure noted, when the
 * file could not be written. */
static uint64_t run_while_cut_short(files_call *call, const uint8_t *data, size_t size,
                                    test_rng *rng, group_tally *tally)
{
    const char *path = call->names[0];
    const size_t page = 4096;
    if (!write_file(path, data, size)) {
        check(tally, false, "could not write %s", path);
        return UINT64_MAX;
    }
    truncation t = {.path = path,
                    .cut = page * rng_below(rng, size / page),
                    .delay_ns = (long)rng_below(rng, 400000)};
    fd_parallel_thread *truncator = fd_parallel_start(truncate_later, &t, 0);
    run_call(call);
    const bool truncated = truncator != NULL ? fd_parallel_join(truncator) : truncate_later(&t, 0);
    check(tally, truncated, "could not truncate %s", path);
    return t.cut;
}

/* The length L of data whose digests the call gave file 0, every
 * algorithm's the same; SIZE_MAX when there is none. L is looked for where
 * a reader that ends at its first short read can stop: at the cut, at the
 * end of any chunk after it, or at the whole file. */
static size_t common_prefix(const files_call *call, const uint8_t *data, size_t size, size_t cut,
                            size_t chunk_len)
{
    const fd_algorithm *first = &fd_algorithms[call->algorithms[0]];
    fd_hash_state state;
    first->init(&state);
    size_t fed = 0;
    for (size_t len = cut; len <= size;) {
        first->update(&state, data + fed, len - fed);
        fed = len;
        fd_hash_state copy = state;
        uint8_t digest[FD_MAX_DIGEST_LEN];
        first->final(&copy, digest);
        if (memcmp(digest, call->digests, first->digest_len) == 0)
            return digests_match(call, 0, data, len) ? len : SIZE_MAX;
        const size_t next_chunk_end = (len / chunk_len + 1) * chunk_len;
        len = len == size ? size + 1 : next_chunk_end < size ? next_chunk_end : size;
    }
    return SIZE_MAX;
}

/* A file cut short at a page boundary (so that no reader can meet the
 * zeroed tail of a page) by another thread while it is hashed with three
 * algorithms, plainly, in relay and split: every digest of the file must
 * be of the same prefix of it. A split whose threads read the file each on
 * its own gave each algorithm its own prefix. POSIX: truncate(). */
static void test_shrinking_file(void)
{
    group_tally tally = {0, 0};
    test_rng rng = rng_for(4, 0);
    const size_t page = 4096, chunk_len = 512, size = 32 * page;
    uint8_t *data = checked_malloc(size);
    rng_fill(&rng, data, size);
    char path[MAX_NAME];
    join(path, scratch, "shrinking.bin");
    static const enum fd_algorithm_id THREE[] = {FD_MD5, FD_SHA1, FD_SHA256};
    const fd_files_pairing pairings[] = {FD_FILES_PAIR_RELAY, FD_FILES_PAIR_SPLIT,
                                         FD_FILES_PAIR_CHOSEN};
    const size_t threads[] = {2, 2, 1};
    for (size_t m = 0; m < 3; m++) {
        size_t shortened = 0;
        for (int attempt = 0; attempt < 100; attempt++) {
            files_call call = {
                .count = 1, .threads = threads[m], .chunk_len = chunk_len, .pairing = pairings[m]};
            call.names[0] = path;
            set_algorithms(&call, THREE, 3);
            const uint64_t cut = run_while_cut_short(&call, data, size, &rng, &tally);
            if (cut == UINT64_MAX)
                break;
            check(&tally, call.status == FD_FILES_DONE && call.outcome.failed == 1,
                  "pairing %d on %zu threads: status %d, failed at %zu (error %lu)",
                  (int)pairings[m], threads[m], (int)call.status, call.outcome.failed,
                  call.outcome.error);
            const size_t len = common_prefix(&call, data, size, (size_t)cut, chunk_len);
            check(&tally, len != SIZE_MAX,
                  "pairing %d on %zu threads, cut to %llu: the digests are of no one prefix",
                  (int)pairings[m], threads[m], (unsigned long long)cut);
            shortened += len < size;
            free(call.digests);
        }
        char detail[80];
        snprintf(detail, sizeof detail, "%s, %zu of 100 cut short while read",
                 m == 0   ? "relay"
                 : m == 1 ? "split"
                          : "one thread",
                 shortened);
        report_group("files", "-", "shrinking", detail, &tally);
        tally = (group_tally){0, 0};
    }
    remove(path);
    free(data);
}

/* One of many files cut short while the lanes hash them, in stripes of
 * several pages, so that a read may end inside one (MD5's, the one
 * multi-buffer kernel every x86-64 build has in some form; skipped where
 * none is): its digest must be of a prefix of it, every other file's of
 * the whole file. */
static void test_shrinking_in_lanes(void)
{
    group_tally tally = {0, 0};
    const fd_multi_kernel *multi = fd_batch_multi_kernel(FD_FAMILY_MD5);
    if (multi == NULL)
        return;
    test_rng rng = rng_for(8, 0);
    const size_t page = 4096, chunk_len = 4 * page, size = 32 * page, count = 2 * multi->lanes;
    uint8_t *data = checked_malloc(size);
    rng_fill(&rng, data, size);
    static char names[2 * FD_BATCH_MAX_LANES][MAX_NAME];
    static const enum fd_algorithm_id MD5[] = {FD_MD5};
    size_t shortened = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        files_call call = {
            .count = count, .threads = 1 + (size_t)attempt % 2, .chunk_len = chunk_len};
        for (size_t i = 0; i < count; i++) {
            char name[48];
            snprintf(name, sizeof name, "lanes-cut-%zu.bin", i);
            join(names[i], scratch, name);
            call.names[i] = names[i];
            if (i != 0 && attempt == 0)
                check(&tally, write_file(names[i], data, size), "could not write %s", names[i]);
        }
        set_algorithms(&call, MD5, 1);
        const uint64_t cut = run_while_cut_short(&call, data, size, &rng, &tally);
        if (cut == UINT64_MAX)
            break;
        /* A file emptied before its open is hashed outside the lanes, as
         * every empty file is. */
        const size_t lane_count = cut == 0 ? count - 1 : count;
        check(&tally,
              call.status == FD_FILES_DONE && call.outcome.failed == count &&
                  (call.outcome.laned == count || call.outcome.laned == lane_count),
              "lanes, %zu threads, cut to %llu: status %d, failed at %zu, %zu laned", call.threads,
              (unsigned long long)cut, (int)call.status, call.outcome.failed, call.outcome.laned);
        const size_t len = common_prefix(&call, data, size, (size_t)cut, chunk_len);
        check(&tally, len != SIZE_MAX, "lanes, %zu threads, cut to %llu: no prefix's digest",
              call.threads, (unsigned long long)cut);
        for (size_t i = 1; i < count; i++)
            check(&tally, digests_match(&call, i, data, size),
                  "lanes, %zu threads: file %zu, not cut, has a wrong digest", call.threads, i);
        shortened += len < size;
        free(call.digests);
    }
    for (size_t i = 0; i < count; i++)
        remove(names[i]);
    free(data);
    char detail[80];
    snprintf(detail, sizeof detail, "lanes, %zu of 100 cut short while read", shortened);
    report_group("files", "md5", "shrinking", detail, &tally);
}

/* What a git object's header cannot be given: a device's size, a /proc
 * file's (fstat says 0), a file cut short while it is read. */
static void test_git_object_faults(void)
{
    group_tally tally = {0, 0};
    files_call call = {.count = 1, .threads = 1, .git_type = "blob"};
    set_algorithms(&call, GIT_FORMATS, 1);
    call.names[0] = "/dev/null";
    run_call(&call);
    check(&tally, call.outcome.failed == 0 && call.outcome.error == FD_FILES_ERROR_NOT_REGULAR,
          "/dev/null as a git blob: failed at %zu with %lu", call.outcome.failed,
          call.outcome.error);
    free(call.digests);
#ifdef __linux__
    call.names[0] = "/proc/self/cmdline";
    run_call(&call);
    check(&tally, call.outcome.failed == 0 && call.outcome.error == FD_FILES_ERROR_SIZE_CHANGED,
          "/proc/self/cmdline as a git blob: failed at %zu with %lu", call.outcome.failed,
          call.outcome.error);
    free(call.digests);
#endif

    test_rng rng = rng_for(6, 0);
    const size_t page = 4096, size = 32 * page;
    uint8_t *data = checked_malloc(size);
    rng_fill(&rng, data, size);
    char path[MAX_NAME];
    join(path, scratch, "git-shrinking.bin");
    size_t refused = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        files_call cut_call = {.count = 1, .threads = 1, .chunk_len = 512, .git_type = "blob"};
        cut_call.names[0] = path;
        set_algorithms(&cut_call, GIT_FORMATS, 1);
        const uint64_t cut = run_while_cut_short(&cut_call, data, size, &rng, &tally);
        if (cut == UINT64_MAX)
            break;
        const bool failed = cut_call.outcome.failed == 0 &&
                            cut_call.outcome.error == FD_FILES_ERROR_SIZE_CHANGED;
        /* A cut that comes before the open (a slow thread start, as under
         * TSan) leaves a shorter file, whose own id is the right answer. */
        check(&tally,
              failed || git_digests_match(&cut_call, 0, "blob", data, size) ||
                  git_digests_match(&cut_call, 0, "blob", data, (size_t)cut),
              "cut to %llu: neither the id of the whole file, nor of the cut one, nor the "
              "failure (error %lu)",
              (unsigned long long)cut, cut_call.outcome.error);
        refused += failed;
        free(cut_call.digests);
    }
    remove(path);
    free(data);
    char detail[80];
    snprintf(detail, sizeof detail, "/dev/null, /proc, %zu of 100 cut short refused", refused);
    report_group("files", "-", "git faults", detail, &tally);
}

/* A child process that writes into the FIFO until its reader closes it
 * (SIGPIPE, or EPIPE where that is ignored), or for a minute at most. */
static pid_t start_endless_writer(const char *fifo)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        alarm(60);
        FILE *writer = fopen(fifo, "wb");
        if (writer == NULL)
            _exit(3);
        static const uint8_t block[4096];
        while (fwrite(block, 1, sizeof block, writer) == sizeof block)
            ;
        _exit(0);
    }
    return child;
}

/* The calling thread done with its own file while another thread reads
 * one that never ends (/dev/zero, a FIFO whose writer never stops, which
 * gives less than a chunk at a time): keep_going is still asked, and its
 * false answer stops the call, the other thread at its next read. Before,
 * the calling thread waited for the other without asking, forever; a
 * watchdog (alarm) makes that a failure rather than a hang. The first file
 * takes the calling thread a few milliseconds, by when the other thread has
 * taken the endless one, and less than keep_going_ms, so that the question
 * comes while it waits. */
static void test_stop_while_another_reads(void)
{
    group_tally tally = {0, 0};
    char first[MAX_NAME], fifo[MAX_NAME];
    join(first, scratch, "first.bin");
    join(fifo, scratch, "endless-fifo");
    const size_t first_len = (size_t)4 << 20;
    uint8_t *data = checked_malloc(first_len);
    memset(data, 0x5A, first_len);
    check(&tally, write_file(first, data, first_len), "could not write %s", first);
    free(data);
    check(&tally, mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno));

    alarm(120);
    const char *endless[] = {"/dev/zero", fifo};
    for (size_t e = 0; e < 2; e++) {
        for (int round = 0; round < 5; round++) {
            const pid_t writer = e == 1 ? start_endless_writer(fifo) : 0;
            asked stop = {0, 1};
            files_call call = {.count = 2,
                               .threads = 2,
                               .keep_going = count_and_answer,
                               .keep_going_context = &stop,
                               .keep_going_ms = 20};
            call.names[0] = first;
            call.names[1] = endless[e];
            set_algorithms(&call, ONE, 1);
            run_call(&call);
            check(&tally, call.status == FD_FILES_STOPPED && stop.calls == 1,
                  "%s beside a file: status %d after %lu questions (failed at %zu, error %lu)",
                  endless[e], (int)call.status, stop.calls, call.outcome.failed,
                  call.outcome.error);
            free(call.digests);
            if (writer > 0)
                waitpid(writer, NULL, 0);
        }
    }
    alarm(0);
    remove(fifo);
    remove(first);
    report_group("files", "-", "stop", "while another thread reads /dev/zero or a FIFO", &tally);
}
#endif

int main(int argc, char **argv)
{
    const char *parent = ".";
    harness_start("test_files", 0x66645f66696c6573u); /* "fd_files" */
    for (int i = 1; i < argc; i++) {
        if (take_seed_option(argv[i]))
            continue;
        parent = argv[i];
    }
    print_seed();
    fd_select_kernels(false);

    if (!make_scratch_folder(scratch, sizeof scratch, parent, "test_files")) {
        fail_setup("could not make a scratch folder in %s", parent);
        return finish_run("C files");
    }
    test_digests();
    test_failures();
    test_keep_going();
    test_lanes();
    test_narrowed_lanes();
    test_pairs();
    test_git_objects();
#ifndef _WIN32
    test_special_files();
    test_git_object_faults();
    test_stop_while_another_reads();
    test_shrinking_file();
    test_shrinking_in_lanes();
#endif
    remove_folder(scratch);
    return finish_run("C files");
}
