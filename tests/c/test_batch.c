/* Test driver of the batch driver and the multi-buffer kernels (batch.c,
 * *_x2.c, *_x4.c, *_x8.c): runs without Python, natively and under
 * sanitizers (tests/c/run.sh). On CPUs without the multi-buffer kernels
 * (and off x86) the lists are empty and only the single-stream batch path
 * is tested.
 *
 * For every multi-buffer kernel compiled into this build whose instructions
 * the CPU has:
 *   - the kernel called directly: random chaining values, 1..9 blocks, each
 *     lane's blocks in an allocation of exactly the bytes it may read at a
 *     random offset, against the portable single-stream kernel lane by lane;
 *   - fd_hash_many with the kernel installed, for every batch size from 0
 *     to three times the lane count plus one (so every partial group), of
 *     random lengths from 0 to four blocks plus a tail; batches whose last
 *     1..lanes messages are long (5 to 45 blocks), so that the batch ends
 *     with any number of lanes idle; and batches of one length for every
 *     length from 0 to three blocks, against fd_hash with the portable
 *     single-stream kernel;
 * and the same batches with no multi-buffer kernel (the single-stream path)
 * under every single-stream kernel the CPU runs.
 *
 * Usage: test_batch [--seed=N]
 *        test_batch --bench [--rounds=N]
 *   --bench   no tests: times fd_hash_many over 100,000 messages of 64
 *             bytes and of 1 KiB with each multi-buffer kernel against the
 *             same batch on the selected single-stream kernel alone, in
 *             interleaved rounds, and prints the ratio of the medians.
 *
 * Prints a line per kernel and group, then "C batch: N passed, N failed";
 * exits 1 on any failure. */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/algorithms.h"
#include "core/batch.h"
#include "dispatch/dispatch.h"

static const char *const family_names[FD_FAMILY_COUNT] = {
    [FD_FAMILY_MD5] = "md5",
    [FD_FAMILY_SHA1] = "sha1",
    [FD_FAMILY_SHA256] = "sha256",
    [FD_FAMILY_SHA512] = "sha512",
};

/* ---- reporting ---------------------------------------------------------- */

static unsigned long total_passed, total_failed;

typedef struct group_tally {
    unsigned long passed, failed;
} group_tally;

static void check(group_tally *tally, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check(group_tally *tally, bool ok, const char *fmt, ...)
{
    if (ok) {
        tally->passed++;
        total_passed++;
        return;
    }
    tally->failed++;
    total_failed++;
    if (tally->failed <= 5) { /* the first few of a group say enough */
        va_list args;
        va_start(args, fmt);
        printf("FAIL: ");
        vprintf(fmt, args);
        printf("\n");
        va_end(args);
    }
}

static void report(const char *family, const char *kernel, const char *group,
                   const group_tally *tally)
{
    printf("[%s/%s] %-22s %s: %lu passed, %lu failed\n", family, kernel, group,
           tally->failed == 0 ? "ok" : "FAILED", tally->passed, tally->failed);
}

static void *checked_malloc(size_t len)
{
    void *p = malloc(len != 0 ? len : 1);
    if (p == NULL) {
        fprintf(stderr, "test_batch: out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- random numbers (xorshift64*, reproducible by seed) ---------------- */

typedef struct test_rng {
    uint64_t state;
} test_rng;

static uint64_t test_seed = 0x66645f6261746368u; /* "fd_batch" */

static uint64_t rng_next(test_rng *rng)
{
    rng->state ^= rng->state >> 12;
    rng->state ^= rng->state << 25;
    rng->state ^= rng->state >> 27;
    return rng->state * 0x2545f4914f6cdd1du;
}

static size_t rng_below(test_rng *rng, size_t bound)
{
    return (size_t)(rng_next(rng) % bound);
}

static void rng_fill(test_rng *rng, uint8_t *out, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(rng_next(rng) >> 56);
}

static test_rng rng_for(unsigned group, unsigned index)
{
    test_rng rng = {test_seed ^ ((uint64_t)group << 48) ^ ((uint64_t)index << 32) ^ 1};
    for (int i = 0; i < 4; i++)
        rng_next(&rng);
    return rng;
}

/* ---- the families ------------------------------------------------------- */

static const fd_kernel *portable_kernel(enum fd_family family)
{
    const fd_kernel *kernel = fd_kernel_lists[family];
    while (kernel[1].name != NULL)
        kernel++;
    return kernel;
}

static size_t block_len_of(enum fd_family family)
{
    return family == FD_FAMILY_SHA512 ? FD_SHA512_BLOCK_LEN : FD_SHA256_BLOCK_LEN;
}

static size_t chain_len_of(enum fd_family family)
{
    switch (family) {
    case FD_FAMILY_MD5:
        return 4 * sizeof(uint32_t);
    case FD_FAMILY_SHA1:
        return 5 * sizeof(uint32_t);
    case FD_FAMILY_SHA256:
        return 8 * sizeof(uint32_t);
    default:
        return 8 * sizeof(uint64_t);
    }
}

/* Chains of all lanes in the layout the kernels take. */
typedef union lane_chains {
    uint32_t md5[FD_BATCH_MAX_LANES][4];
    uint32_t sha1[FD_BATCH_MAX_LANES][5];
    uint32_t sha256[FD_BATCH_MAX_LANES][8];
    uint64_t sha512[FD_BATCH_MAX_LANES][8];
} lane_chains;

static void *lane_chain(enum fd_family family, lane_chains *chains, unsigned lane)
{
    switch (family) {
    case FD_FAMILY_MD5:
        return chains->md5[lane];
    case FD_FAMILY_SHA1:
        return chains->sha1[lane];
    case FD_FAMILY_SHA256:
        return chains->sha256[lane];
    default:
        return chains->sha512[lane];
    }
}

static void call_single(enum fd_family family, const fd_kernel *kernel, lane_chains *chains,
                        unsigned lane, const uint8_t *blocks, size_t nblocks)
{
    switch (family) {
    case FD_FAMILY_MD5:
        kernel->blocks.md5(chains->md5[lane], blocks, nblocks);
        break;
    case FD_FAMILY_SHA1:
        kernel->blocks.sha1(chains->sha1[lane], blocks, nblocks);
        break;
    case FD_FAMILY_SHA256:
        kernel->blocks.sha256(chains->sha256[lane], blocks, nblocks);
        break;
    default:
        kernel->blocks.sha512(chains->sha512[lane], blocks, nblocks);
        break;
    }
}

static void call_multi(enum fd_family family, const fd_multi_kernel *kernel,
                       lane_chains *chains, const uint8_t *const *blocks, size_t nblocks)
{
    switch (family) {
    case FD_FAMILY_MD5:
        kernel->blocks.md5(chains->md5, blocks, nblocks);
        break;
    case FD_FAMILY_SHA1:
        kernel->blocks.sha1(chains->sha1, blocks, nblocks);
        break;
    case FD_FAMILY_SHA256:
        kernel->blocks.sha256(chains->sha256, blocks, nblocks);
        break;
    default:
        kernel->blocks.sha512(chains->sha512, blocks, nblocks);
        break;
    }
}

/* ---- tests -------------------------------------------------------------- */

#define KERNEL_CASES 300
#define KERNEL_MAX_BLOCKS 9
#define MAX_OFFSET 64

/* The multi-buffer kernel against the portable kernel, lane by lane. */
static void test_kernel_direct(enum fd_family family, const fd_multi_kernel *kernel,
                               group_tally *tally)
{
    const size_t block_len = block_len_of(family);
    test_rng rng = rng_for(1, (unsigned)family);

    for (int i = 0; i < KERNEL_CASES; i++) {
        size_t nblocks = 1 + rng_below(&rng, KERNEL_MAX_BLOCKS);
        uint8_t *buffers[FD_BATCH_MAX_LANES];
        const uint8_t *blocks[FD_BATCH_MAX_LANES];
        lane_chains start, expected, actual;

        rng_fill(&rng, (uint8_t *)&start, sizeof start);
        expected = actual = start;
        for (unsigned lane = 0; lane < kernel->lanes; lane++) {
            /* Exactly the bytes the kernel may read, at a random offset:
             * AddressSanitizer sees a read past the last block. */
            size_t offset = rng_below(&rng, MAX_OFFSET);
            buffers[lane] = checked_malloc(offset + nblocks * block_len);
            blocks[lane] = buffers[lane] + offset;
            rng_fill(&rng, buffers[lane] + offset, nblocks * block_len);
            call_single(family, portable_kernel(family), &expected, lane, blocks[lane], nblocks);
        }
        call_multi(family, kernel, &actual, blocks, nblocks);
        for (unsigned lane = 0; lane < kernel->lanes; lane++) {
            check(tally,
                  memcmp(lane_chain(family, &expected, lane), lane_chain(family, &actual, lane),
                         chain_len_of(family)) == 0,
                  "%s %s: case %d, lane %u of %u (%zu blocks) differs from portable",
                  family_names[family], kernel->name, i, lane, kernel->lanes, nblocks);
            free(buffers[lane]);
        }
    }
}

/* A batch of `count` messages with lengths from `length_of`, each in its own
 * allocation at a random offset; fd_hash_many against fd_hash with the
 * portable kernel. */
static void check_batch(const fd_algorithm *algorithm, enum fd_algorithm_id id, size_t count,
                        const size_t *lengths, test_rng *rng, const char *what,
                        group_tally *tally)
{
    const enum fd_family family = algorithm->family;
    fd_message *messages = checked_malloc(count * sizeof *messages);
    uint8_t **buffers = checked_malloc(count * sizeof *buffers);
    uint8_t *expected = checked_malloc(count * algorithm->digest_len);
    uint8_t *actual = checked_malloc(count * algorithm->digest_len);

    for (size_t i = 0; i < count; i++) {
        size_t offset = rng_below(rng, MAX_OFFSET);
        buffers[i] = checked_malloc(offset + lengths[i]);
        rng_fill(rng, buffers[i] + offset, lengths[i]);
        /* An empty message may come as NULL, as the contract allows. */
        messages[i].data = lengths[i] == 0 && (i & 1) ? NULL : buffers[i] + offset;
        messages[i].len = lengths[i];
        messages[i].digest = actual + i * algorithm->digest_len;
    }

    fd_kernel installed = fd_active_kernels[family];
    fd_use_kernel(family, portable_kernel(family));
    for (size_t i = 0; i < count; i++)
        fd_hash(id, messages[i].data, messages[i].len, expected + i * algorithm->digest_len);
    fd_use_kernel(family, &installed);

    /* Poisoned, so that a digest left unwritten cannot pass. */
    memset(actual, 0xa5, count * algorithm->digest_len);
    fd_hash_many(id, messages, count);
    for (size_t i = 0; i < count; i++) {
        check(tally,
              memcmp(expected + i * algorithm->digest_len, actual + i * algorithm->digest_len,
                     algorithm->digest_len) == 0,
              "%s with %s/%s: %s, message %zu of %zu (%zu bytes) differs", algorithm->name,
              installed.name,
              fd_active_multi_kernels[family].name ? fd_active_multi_kernels[family].name
                                                   : "single-stream",
              what, i, count, lengths[i]);
    }

    for (size_t i = 0; i < count; i++)
        free(buffers[i]);
    free(buffers);
    free(messages);
    free(expected);
    free(actual);
}

/* Every batch size up to 3 lanes + 1 with random lengths (0..4 blocks plus
 * a tail, so lanes fall out of step), then batches of one length for every
 * length 0..3 blocks + 1. */
static void test_batches(enum fd_family family, unsigned lanes, group_tally *tally)
{
    size_t lengths[3 * FD_BATCH_MAX_LANES + 2];

    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        const fd_algorithm *algorithm = &fd_algorithms[id];
        if (algorithm->family != family)
            continue;
        test_rng rng = rng_for(2, (unsigned)id);
        const size_t block_len = algorithm->block_len;

        for (int repeat = 0; repeat < 4; repeat++) {
            for (size_t count = 0; count <= 3 * lanes + 1; count++) {
                for (size_t i = 0; i < count; i++)
                    lengths[i] = rng_below(&rng, 4 * block_len + block_len);
                check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths, &rng,
                            "random lengths", tally);
            }
        }
        /* Long messages taken last, of 5 to 45 blocks, among short ones:
         * still in flight when the batch runs out, they are finished with
         * some lanes idle (several kernel calls of a few blocks each) or
         * one at a time, for every number of them up to all the lanes. */
        for (size_t count = lanes; count <= 2 * lanes + 1; count++) {
            for (size_t long_count = 1; long_count <= lanes && long_count <= count; long_count++) {
                for (size_t i = 0; i < count; i++) {
                    lengths[i] = i + long_count >= count
                                     ? 5 * block_len + rng_below(&rng, 40 * block_len)
                                     : rng_below(&rng, 2 * block_len);
                }
                check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths, &rng,
                            "long messages last", tally);
            }
        }
        for (size_t len = 0; len <= 3 * block_len + 1; len++) {
            size_t count = 2 * lanes + 1 + rng_below(&rng, lanes);
            for (size_t i = 0; i < count; i++)
                lengths[i] = len;
            check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths, &rng,
                        "equal lengths", tally);
        }
    }
}

static void run_tests(void)
{
    const uint32_t features = fd_cpu_features();

    fd_select_kernels(false);
    const fd_kernel *selected_single[FD_FAMILY_COUNT];
    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        const fd_kernel *kernel = fd_kernel_lists[f];
        while (strcmp(kernel->name, fd_active_kernels[f].name) != 0 && kernel[1].name != NULL)
            kernel++;
        selected_single[f] = kernel;
    }

    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        enum fd_family family = (enum fd_family)f;
        fd_use_kernel(family, selected_single[f]);

        for (const fd_multi_kernel *kernel = fd_multi_kernel_lists[f]; kernel->name != NULL;
             kernel++) {
            if ((kernel->required_features & ~features) != 0) {
                printf("[%s/%s] skipped: this CPU lacks its instructions\n", family_names[f],
                       kernel->name);
                continue;
            }
            group_tally direct = {0, 0}, batches = {0, 0};
            test_kernel_direct(family, kernel, &direct);
            report(family_names[f], kernel->name, "kernel vs portable", &direct);
            fd_use_multi_kernel(family, kernel);
            test_batches(family, kernel->lanes, &batches);
            report(family_names[f], kernel->name, "fd_hash_many", &batches);
        }

        /* The single-stream path under every single-stream kernel. */
        fd_use_multi_kernel(family, NULL);
        for (const fd_kernel *kernel = fd_kernel_lists[f]; kernel->name != NULL; kernel++) {
            if ((kernel->required_features & ~features) != 0)
                continue;
            group_tally batches = {0, 0};
            fd_use_kernel(family, kernel);
            test_batches(family, FD_BATCH_MAX_LANES, &batches);
            report(family_names[f], kernel->name, "fd_hash_many, 1 lane", &batches);
        }
        fd_use_kernel(family, selected_single[f]);
    }
}

/* ---- benchmark ---------------------------------------------------------- */

/* The CPU time of this thread, not the wall clock: on a machine shared with
 * other busy processes, time slices lost to them would otherwise land on
 * whichever side happened to be running. */
static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

#define BENCH_MESSAGES 100000
#define BENCH_MAX_ROUNDS 101

static void run_bench(int rounds)
{
    static const enum fd_algorithm_id ids[] = {FD_MD5, FD_SHA1, FD_SHA256, FD_SHA512};
    static const size_t sizes[] = {64, 1024};
    const uint32_t features = fd_cpu_features();

    fd_select_kernels(false);
    printf("fd_hash_many over %d messages, thread CPU time; ratio = single-stream time / "
           "multi-buffer time (medians of %d interleaved rounds)\n",
           BENCH_MESSAGES, rounds);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t size = sizes[s];
        uint8_t *data = checked_malloc((size_t)BENCH_MESSAGES * size);
        fd_message *messages = checked_malloc(BENCH_MESSAGES * sizeof *messages);
        uint8_t *out = checked_malloc((size_t)BENCH_MESSAGES * FD_MAX_DIGEST_LEN);
        test_rng rng = rng_for(9, 0);
        rng_fill(&rng, data, (size_t)BENCH_MESSAGES * size);
        for (size_t i = 0; i < BENCH_MESSAGES; i++) {
            messages[i].data = data + i * size;
            messages[i].len = size;
            messages[i].digest = out + i * FD_MAX_DIGEST_LEN;
        }

        for (size_t a = 0; a < sizeof ids / sizeof ids[0]; a++) {
            const enum fd_algorithm_id id = ids[a];
            const enum fd_family family = fd_algorithms[id].family;
            for (const fd_multi_kernel *kernel = fd_multi_kernel_lists[family];
                 kernel->name != NULL; kernel++) {
                if ((kernel->required_features & ~features) != 0)
                    continue;
                double single[BENCH_MAX_ROUNDS], multi[BENCH_MAX_ROUNDS];
                for (int r = 0; r < rounds; r++) {
                    double t0 = now_seconds();
                    fd_hash_many_using(NULL, id, messages, BENCH_MESSAGES);
                    single[r] = now_seconds() - t0;
                    t0 = now_seconds();
                    fd_hash_many_using(kernel, id, messages, BENCH_MESSAGES);
                    multi[r] = now_seconds() - t0;
                }
                double single_median = median(single, rounds);
                double multi_median = median(multi, rounds);
                printf("%-7s %5zu B  single-stream %-8s %7.1f ns/msg  %-9s %7.1f ns/msg  "
                       "ratio %.2fx\n",
                       fd_algorithms[id].name, size, fd_active_kernels[family].name,
                       single_median / BENCH_MESSAGES * 1e9, kernel->name,
                       multi_median / BENCH_MESSAGES * 1e9, single_median / multi_median);
                fflush(stdout);
            }
        }
        free(data);
        free(messages);
        free(out);
    }
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    bool bench = false;
    int rounds = 11;
    const char *env_seed = getenv("FD_TEST_SEED");

    if (env_seed != NULL)
        test_seed = strtoull(env_seed, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--seed=", 7) == 0)
            test_seed = strtoull(argv[i] + 7, NULL, 0);
        else if (strcmp(argv[i], "--bench") == 0)
            bench = true;
        else if (strncmp(argv[i], "--rounds=", 9) == 0)
            rounds = atoi(argv[i] + 9);
        else {
            fprintf(stderr, "test_batch: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (bench) {
        if (rounds < 1 || rounds > BENCH_MAX_ROUNDS) {
            fprintf(stderr, "test_batch: --rounds must be 1..%d\n", BENCH_MAX_ROUNDS);
            return 2;
        }
        run_bench(rounds);
        return 0;
    }

    printf("random seed: %#llx (override with --seed=N or FD_TEST_SEED=N)\n",
           (unsigned long long)test_seed);
    run_tests();
    printf("C batch: %lu passed, %lu failed\n", total_passed, total_failed);
    return total_failed == 0 ? 0 : 1;
}
