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
 *   - the import's known-answer check (hash/known_answers.h): it passes,
 *     and fails when spoiled;
 *   - fd_hash_many with the kernel installed, for every batch size from 0
 *     to three times the lane count plus one (so every partial group), of
 *     random lengths from 0 to four blocks plus a tail; batches whose last
 *     1..lanes messages are long (5 to 45 blocks), so that the batch ends
 *     with any number of lanes idle; and batches of one length for every
 *     length from 0 to three blocks, against fd_hash with the portable
 *     single-stream kernel;
 * and the same batches with no multi-buffer kernel (the single-stream path)
 * under every single-stream kernel the CPU runs. Every batch runs twice:
 * digests, and HMACs (fd_hmac_many: lanes that start from the keyed inner
 * state and go on with the outer hash) under keys of every kind (empty,
 * short, one block, longer than a block), against fd_hmac with the
 * portable kernel. fd_hash_many_parallel and fd_hash_many_pipelined run
 * both jobs on 1 to 5 threads, fd_hash_many_parallel digests in hex too.
 *
 * Usage: test_batch [--seed=N] [--threads-only]
 *        test_batch --bench [--rounds=N]
 *   --threads-only  only the groups that run threads (fd_hash_many_parallel
 *             and fd_hash_many_pipelined), for ThreadSanitizer: the kernel
 *             groups run on one thread, where it finds nothing, and are
 *             many times slower under it.
 *   --bench   no tests: times fd_hash_many over 100,000 messages of 64
 *             bytes and of 1 KiB with each multi-buffer kernel against the
 *             same batch on the selected single-stream kernel alone, in
 *             interleaved rounds, and prints the ratio of the medians.
 *
 * Prints a line per kernel and group, then "C batch: N passed, N failed";
 * exits 1 on any failure. */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/algorithms.h"
#include "hash/batch.h"
#include "hash/hex.h"
#include "hash/hmac.h"
#include "hash/known_answers.h"
#include "dispatch/dispatch.h"
#include "harness.h"

/* ---- tests -------------------------------------------------------------- */

#define KERNEL_CASES 300
#define KERNEL_MAX_BLOCKS 9
#define MAX_OFFSET 64

/* The multi-buffer kernel against the portable kernel, lane by lane. */
static void test_kernel_direct(enum fd_family family, const fd_multi_kernel *kernel,
                               group_tally *tally)
{
    const size_t block_len = family_block_len(family), chain_len = family_chain_len(family);
    test_rng rng = rng_for(1, (unsigned)family);

    for (int i = 0; i < KERNEL_CASES; i++) {
        size_t nblocks = 1 + rng_below(&rng, KERNEL_MAX_BLOCKS);
        uint8_t *buffers[FD_BATCH_MAX_LANES];
        const uint8_t *blocks[FD_BATCH_MAX_LANES];
        test_chains expected, actual;

        rng_fill(&rng, (uint8_t *)&expected, sizeof expected);
        actual = expected;
        for (unsigned lane = 0; lane < kernel->lanes; lane++) {
            /* Exactly the bytes the kernel may read, at a random offset:
             * AddressSanitizer sees a read past the last block. */
            size_t offset = rng_below(&rng, MAX_OFFSET);
            buffers[lane] = checked_malloc(offset + nblocks * block_len);
            blocks[lane] = buffers[lane] + offset;
            rng_fill(&rng, buffers[lane] + offset, nblocks * block_len);
            call_kernel(family, portable_kernel(family), &expected, lane, blocks[lane], nblocks);
        }
        call_multi_kernel(family, kernel, &actual, blocks, nblocks);
        for (unsigned lane = 0; lane < kernel->lanes; lane++) {
            check(tally,
                  memcmp(chain_of(family, &expected, lane), chain_of(family, &actual, lane),
                         chain_len) == 0,
                  "%s %s: case %d, lane %u of %u (%zu blocks) differs from portable",
                  family_names[family], kernel->name, i, lane, kernel->lanes, nblocks);
            free(buffers[lane]);
        }
    }
}

/* A key for an HMAC batch, of one of four kinds in turn (empty, short, one
 * block, longer than a block, which is hashed first), in an allocation of
 * exactly its length. */
typedef struct test_key {
    uint8_t *bytes;
    size_t len;
} test_key;

static test_key make_key(const fd_algorithm *algorithm, test_rng *rng, unsigned kind)
{
    const size_t lengths[] = {0, 1 + rng_below(rng, algorithm->block_len - 1), algorithm->block_len,
                              algorithm->block_len + 1 + rng_below(rng, 3 * algorithm->block_len)};
    test_key key = {checked_malloc(lengths[kind % 4] + 1), lengths[kind % 4]};

    rng_fill(rng, key.bytes, key.len);
    return key;
}

/* A batch of `count` messages with lengths from `length_of`, each in its own
 * allocation at a random offset; fd_hash_many against fd_hash with the
 * portable kernel, or with a key (not NULL) fd_hmac_many against fd_hmac
 * with the portable kernel. */
static void check_batch(const fd_algorithm *algorithm, enum fd_algorithm_id id, size_t count,
                        const size_t *lengths, const test_key *key, test_rng *rng, const char *what,
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
    for (size_t i = 0; i < count; i++) {
        uint8_t *digest = expected + i * algorithm->digest_len;
        if (key != NULL)
            fd_hmac(id, key->bytes, key->len, messages[i].data, messages[i].len, digest);
        else
            fd_hash(id, messages[i].data, messages[i].len, digest);
    }
    fd_use_kernel(family, &installed);

    /* Poisoned, so that a digest left unwritten cannot pass. */
    memset(actual, 0xa5, count * algorithm->digest_len);
    if (key != NULL) {
        fd_hmac_state keyed;
        fd_hmac_init(&keyed, id, key->bytes, key->len);
        fd_hmac_many(&keyed, messages, count);
        fd_hmac_wipe(&keyed);
    }
    else {
        fd_hash_many(id, messages, count);
    }
    for (size_t i = 0; i < count; i++) {
        check(tally,
              memcmp(expected + i * algorithm->digest_len, actual + i * algorithm->digest_len,
                     algorithm->digest_len) == 0,
              "%s%s with %s/%s: %s, message %zu of %zu (%zu bytes%s%zu) differs",
              key != NULL ? "HMAC-" : "", algorithm->name, installed.name,
              fd_active_multi_kernels[family].name ? fd_active_multi_kernels[family].name
                                                   : "single-stream",
              what, i, count, lengths[i], key != NULL ? ", key of " : "", key ? key->len : 0);
    }

    for (size_t i = 0; i < count; i++)
        free(buffers[i]);
    free(buffers);
    free(messages);
    free(expected);
    free(actual);
}

/* The key of the next HMAC batch: each kind in turn. */
static void next_key(const fd_algorithm *algorithm, test_rng *rng, bool keyed, unsigned *kind,
                     test_key *key)
{
    if (!keyed)
        return;
    free(key->bytes);
    *key = make_key(algorithm, rng, (*kind)++);
}

/* Every batch size up to 3 lanes + 1 with random lengths (0..4 blocks plus
 * a tail, so lanes fall out of step), then batches of one length for every
 * length 0..3 blocks + 1; digests, or with `keyed` HMACs under a key of
 * each kind in turn. */
static void test_batches(enum fd_family family, unsigned lanes, bool keyed, group_tally *tally)
{
    size_t lengths[3 * FD_BATCH_MAX_LANES + 2];

    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        const fd_algorithm *algorithm = &fd_algorithms[id];
        if (algorithm->family != family)
            continue;
        test_rng rng = rng_for(keyed ? 5 : 2, (unsigned)id);
        const size_t block_len = algorithm->block_len;
        unsigned key_kind = 0;
        test_key key = {NULL, 0};

        for (int repeat = 0; repeat < 4; repeat++) {
            for (size_t count = 0; count <= 3 * lanes + 1; count++) {
                for (size_t i = 0; i < count; i++)
                    lengths[i] = rng_below(&rng, 4 * block_len + block_len);
                next_key(algorithm, &rng, keyed, &key_kind, &key);
                check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths,
                            keyed ? &key : NULL, &rng, "random lengths", tally);
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
                next_key(algorithm, &rng, keyed, &key_kind, &key);
                check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths,
                            keyed ? &key : NULL, &rng, "long messages last", tally);
            }
        }
        for (size_t len = 0; len <= 3 * block_len + 1; len++) {
            size_t count = 2 * lanes + 1 + rng_below(&rng, lanes);
            for (size_t i = 0; i < count; i++)
                lengths[i] = len;
            next_key(algorithm, &rng, keyed, &key_kind, &key);
            check_batch(algorithm, (enum fd_algorithm_id)id, count, lengths, keyed ? &key : NULL,
                        &rng, "equal lengths", tally);
        }
        free(key.bytes);
    }
}

/* Whether the family's multi-buffer list has a kernel of this name. */
static bool listed(enum fd_family family, const char *name)
{
    for (const fd_multi_kernel *kernel = fd_multi_kernel_lists[family]; kernel->name != NULL;
         kernel++) {
        if (strcmp(kernel->name, name) == 0)
            return true;
    }
    return false;
}

static bool chose(const fd_multi_kernel *kernel, const char *name)
{
    return kernel != NULL && strcmp(kernel->name, name) == 0;
}

/* fd_choose_multi_kernel for CPUs other than this one: the list's first
 * kernel whose features are there, but for the measured exceptions. */
static void test_choice(void)
{
    const uint32_t all = UINT32_MAX,
                   no_avx512 = ~(uint32_t)(FD_CPU_AVX512F | FD_CPU_AVX512VL | FD_CPU_AVX512BW);
    const fd_cpu_model emerald_rapids = {FD_CPU_VENDOR_INTEL, 6, 207};
    const fd_cpu_model zen4 = {FD_CPU_VENDOR_AMD, 25, 17};
    group_tally tally = {0, 0};

    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        enum fd_family family = (enum fd_family)f;
        const fd_multi_kernel *first = fd_multi_kernel_lists[f]->name != NULL
                                           ? fd_multi_kernel_lists[f]
                                           : NULL;
        check(&tally, fd_choose_multi_kernel(family, 0, zen4) == NULL,
              "%s: a CPU without features gets no multi-buffer kernel", family_names[f]);
        check(&tally, fd_choose_multi_kernel(family, all, zen4) == first,
              "%s: Zen 4 gets the list's first kernel", family_names[f]);
        if (family != FD_FAMILY_SHA256)
            check(&tally, fd_choose_multi_kernel(family, all, emerald_rapids) == first,
                  "%s: no exception for Intel 6/207 outside SHA-256", family_names[f]);
    }
    if (listed(FD_FAMILY_SHA256, "avx512_x16") && listed(FD_FAMILY_SHA256, "shani_x2")) {
        check(&tally, chose(fd_choose_multi_kernel(FD_FAMILY_SHA256, all, zen4), "shani_x2"),
              "sha256: Zen 4 keeps shani_x2");
        check(&tally,
              chose(fd_choose_multi_kernel(FD_FAMILY_SHA256, all, emerald_rapids), "avx512_x16"),
              "sha256: Intel 6/207 gets avx512_x16");
        check(
            &tally,
            chose(fd_choose_multi_kernel(FD_FAMILY_SHA256, no_avx512, emerald_rapids), "shani_x2"),
            "sha256: the exception needs its kernel's features");
    }
    /* Narrower kernels where 512-bit operations take two passes (Zen 4),
     * not where they take one (Intel 6/207 and 6/167, Rocket Lake). */
    const fd_cpu_model rocket_lake = {FD_CPU_VENDOR_INTEL, 6, 167};
    check(&tally, fd_narrower_kernel_pays(zen4), "Zen 4 runs no narrower kernel");
    check(&tally, !fd_narrower_kernel_pays(emerald_rapids), "Intel 6/207 runs a narrower kernel");
    check(&tally, !fd_narrower_kernel_pays(rocket_lake), "Intel 6/167 runs a narrower kernel");
    report_group("all", "dispatch", "multi-buffer choice", "", &tally);
}

/* fd_batch_kernel_for_threads on made-up kernels (it reads only their
 * lanes and narrower kernels), so that every CPU runs it: sixteen lanes
 * with a narrower kernel of two lanes that shares threads, as SHA-1's, and
 * one of eight that does not, as MD5's. */
static void test_kernel_for_threads(void)
{
    static const fd_multi_kernel pairs = {.name = "x2", .lanes = 2};
    static const fd_multi_kernel eights = {.name = "x8", .lanes = 8};
    static const fd_multi_kernel sharing = {
        .name = "x16", .lanes = 16, .narrower = &pairs, .narrower_shares_threads = true};
    static const fd_multi_kernel own = {.name = "x16", .lanes = 16, .narrower = &eights};
    /* Lanes that pay from twelve messages on, as SHA-1's sixteen do. */
    static const fd_multi_kernel picky = {.name = "x16",
                                          .lanes = 16,
                                          .drain_min_busy = 12,
                                          .narrower = &pairs,
                                          .narrower_shares_threads = true};
    const uint64_t enough = 2 * FD_BATCH_MIN_WORK_PER_NARROWED_THREAD;
    static const struct {
        const char *what;
        const fd_multi_kernel *multi;
        size_t count;
        uint64_t work; /* in units of `enough` (the work of two narrowed threads) */
        size_t threads;
        const fd_multi_kernel *expected;
    } cases[] = {
        {"16 on 2 threads", &sharing, 16, 1, 2, &pairs},
        {"16 on 2 threads", &own, 16, 1, 2, &eights},
        {"3 on 2 threads", &sharing, 3, 1, 2, &pairs},
        {"8 on 2 threads", &sharing, 8, 1, 2, &pairs},
        {"32 on 3 threads (4 groups of 8 would share them)", &own, 32, 2, 3, &own},
        /* Sharing threads pays only where the wider kernel leaves half of
         * them idle. */
        {"32 on 3 threads", &sharing, 32, 2, 3, &sharing},
        {"32 on 4 threads", &sharing, 32, 2, 4, &pairs},
        {"16 on 4 threads", &own, 16, 2, 4, &eights},
        {"16 on 4 threads", &sharing, 16, 2, 4, &pairs},
        /* Too little work for a second thread to pay. */
        {"16, too little work", &sharing, 16, 0, 2, &sharing},
        {"16, too little work", &own, 16, 0, 2, &own},
        {"16 on 4 threads, work for 2", &sharing, 16, 1, 4, &sharing},
        /* One group of the narrower kernel's lanes: it, on any threads. */
        {"2 on 2 threads", &sharing, 2, 1, 2, &pairs},
        {"8 on 2 threads", &own, 8, 1, 2, &eights},
        {"8 on 1 thread, too little work", &own, 8, 0, 1, &eights},
        {"9 on 1 thread", &own, 9, 1, 1, &own},
        /* As many wider groups as threads, or more: each has lanes. */
        {"17 on 2 threads", &sharing, 17, 1, 2, &sharing},
        {"32 on 2 threads", &sharing, 32, 1, 2, &sharing},
        {"16 on 1 thread", &sharing, 16, 1, 1, &sharing},
        {"16, no narrower kernel", &pairs, 16, 1, 2, &pairs},
        {"no kernel", NULL, 16, 1, 2, NULL},
        /* Too few messages for the wider lanes to pay, enough for the
         * narrower kernel's: on any threads, with any work. */
        {"8 on 1 thread, too few for its lanes", &picky, 8, 1, 1, &pairs},
        {"11, too little work, too few for its lanes", &picky, 11, 0, 2, &pairs},
        {"1 on 1 thread", &picky, 1, 1, 1, &picky},
        {"12 on 1 thread, enough for its lanes", &picky, 12, 1, 1, &picky},
        {"12 on 2 threads", &picky, 12, 1, 2, &pairs},
    };
    group_tally tally = {0, 0};

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* "Too little" is a byte short of enough. */
        const uint64_t work = cases[i].work > 0 ? cases[i].work * enough : enough - 1;
        const fd_multi_kernel *got = fd_batch_kernel_for_threads(cases[i].multi, cases[i].count,
                                                                 work, cases[i].threads);
        check(&tally, got == cases[i].expected, "%s%s: %s, not %s", cases[i].what,
              cases[i].multi != NULL && cases[i].multi->narrower_shares_threads ? " (sharing)" : "",
              got != NULL ? got->name : "none",
              cases[i].expected != NULL ? cases[i].expected->name : "none");
    }
    /* SHA-1's sixteen AVX-512 lanes narrow to its two SHA-NI streams,
     * which may share threads, where the build has both. */
    if (listed(FD_FAMILY_SHA1, "avx512_x16") && listed(FD_FAMILY_SHA1, "shani_x2")) {
        const fd_multi_kernel *wide = fd_multi_kernel_lists[FD_FAMILY_SHA1];
        check(&tally, chose(wide, "avx512_x16") && chose(wide->narrower, "shani_x2"),
              "sha1: avx512_x16 does not narrow to shani_x2");
        check(&tally, wide->narrower_shares_threads, "sha1: shani_x2 does not share threads");
    }
    report_group("all", "batch", "fd_batch_kernel_for_threads", "", &tally);
}

/* ---- many threads ------------------------------------------------------- */

/* One algorithm of each family: the threads split batches the same way
 * for all. */
static const enum fd_algorithm_id threaded_ids[] = {ONE_ALGORITHM_OF_EACH_FAMILY};

/* A batch over one buffer of random bytes, with the digests fd_hash gives,
 * or with a key the MACs fd_hmac gives (the batch driver itself is checked
 * against them above), as bytes or as hex digits; job runs it. */
typedef struct threaded_batch {
    enum fd_algorithm_id id;
    fd_batch_job job;
    fd_hmac_state keyed;
    size_t count;
    size_t result_len; /* the digest's length, twice that in hex */
    uint8_t *data;
    fd_message *messages;
    uint8_t *expected;
    uint8_t *actual; /* messages[i].digest is actual + i * result_len */
} threaded_batch;

/* The batch of `count` messages of the given lengths; with keyed, HMACs
 * under a random key of 0 to 199 bytes; with hex, written as hex digits.
 * The caller frees it with free_threaded_batch, and does not move it
 * (b.job points into it). */
static void make_threaded_batch(threaded_batch *b_out, enum fd_algorithm_id id, bool keyed,
                                bool hex, size_t count, const size_t *lengths, test_rng *rng)
{
    const size_t digest_len = fd_algorithms[id].digest_len;
    const size_t result_len = hex ? 2 * digest_len : digest_len;
    const fd_multi_kernel *multi = &fd_active_multi_kernels[fd_algorithms[id].family];
    threaded_batch b = {.id = id, .count = count, .result_len = result_len};
    uint8_t key[200];
    const size_t key_len = keyed ? rng_below(rng, sizeof key) : 0;
    size_t total = 0;

    rng_fill(rng, key, key_len);
    if (keyed)
        fd_hmac_init(&b.keyed, id, key, key_len);

    for (size_t i = 0; i < count; i++)
        total += lengths[i];
    b.data = checked_malloc(total + 1);
    b.messages = checked_malloc(count * sizeof *b.messages + 1);
    b.expected = checked_malloc(count * result_len + 1);
    b.actual = checked_malloc(count * result_len + 1);
    rng_fill(rng, b.data, total);
    total = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t digest[FD_MAX_DIGEST_LEN];
        b.messages[i] = (fd_message){b.data + total, lengths[i], b.actual + i * result_len};
        if (keyed)
            fd_hmac(id, key, key_len, b.messages[i].data, lengths[i], digest);
        else
            fd_hash(id, b.messages[i].data, lengths[i], digest);
        if (hex)
            fd_hex_encode(digest, digest_len, (char *)b.expected + i * result_len);
        else
            memcpy(b.expected + i * result_len, digest, digest_len);
        total += lengths[i];
    }
    /* Poisoned, so that a digest left unwritten cannot pass. */
    memset(b.actual, 0xa5, count * result_len);
    *b_out = b;
    b_out->job = (fd_batch_job){.multi = multi->name != NULL ? multi : NULL,
                                .id = id,
                                .hmac = keyed ? &b_out->keyed : NULL,
                                .hex = hex};
}

static void free_threaded_batch(threaded_batch *b)
{
    if (b->job.hmac != NULL)
        fd_hmac_wipe(&b->keyed);
    free(b->data);
    free(b->messages);
    free(b->expected);
    free(b->actual);
}

/* The messages [first, end) that were hashed: as fd_hash has them. */
static bool digests_match(const threaded_batch *b, size_t first, size_t end)
{
    const size_t result_len = b->result_len;

    return end <= first || memcmp(b->expected + first * result_len, b->actual + first * result_len,
                                  (end - first) * result_len) == 0;
}

/* Whether the messages [first, end) were left alone: still poisoned. */
static bool digests_untouched(const threaded_batch *b, size_t first, size_t end)
{
    const size_t result_len = b->result_len;

    for (size_t i = first * result_len; i < end * result_len; i++) {
        if (b->actual[i] != 0xa5)
            return false;
    }
    return true;
}

/* fd_hash_many_parallel on 1 to 5 threads: many short messages (enough
 * work for several threads: every piece seam is somewhere in them), long
 * messages among short ones, long messages in numbers around the kernel's
 * lanes and twice them (pieces of whole lane groups, on no more threads
 * than groups), and batches too small for a second thread. */
static void test_parallel(group_tally *tally)
{
    enum { SHORT_COUNT = 20000, LONG_LEN = 1536 * 1024, LANE_LONG_LEN = 160 * 1024 };
    size_t *lengths = checked_malloc(SHORT_COUNT * sizeof *lengths);

    for (size_t a = 0; a < 3 * sizeof threaded_ids / sizeof threaded_ids[0]; a++) {
        /* Each algorithm's digests, then its HMACs, then its digests in
         * hex. */
        const bool keyed = a % 3 == 1, hex = a % 3 == 2;
        const enum fd_algorithm_id id = threaded_ids[a / 3];
        const fd_multi_kernel *multi = &fd_active_multi_kernels[fd_algorithms[id].family];
        const size_t lanes = multi->name != NULL ? multi->lanes : 1;
        test_rng rng = rng_for(3, (unsigned)a);
        struct {
            const char *what;
            size_t count;
            bool lane_long; /* every message LANE_LONG_LEN or a little more */
            bool narrowed;  /* enough work for two threads of the narrower kernel */
        } shapes[] = {
            {"short messages", SHORT_COUNT, false, false},
            {"long among short", 7, false, false},
            {"long, lanes - 1", lanes - 1, true, false},
            {"long, as many as lanes", lanes, true, false},
            {"long, lanes + half", lanes + lanes / 2 + 1, true, false},
            {"long, twice the lanes + 3", 2 * lanes + 3, true, false},
            {"long, eight times the lanes", 8 * lanes, true, false},
            /* Only where the kernel has a narrower one (the work of two
             * narrowed threads takes a while elsewhere: qemu, sanitizers). */
            {"long, as many as lanes, narrowed on 2 threads", multi->narrower != NULL ? lanes : 0,
             false, true},
            {"one", 1, false, false},
            {"none", 0, false, false},
        };

        for (size_t shape = 0; shape < sizeof shapes / sizeof shapes[0]; shape++) {
            const size_t count = shapes[shape].count;
            for (size_t i = 0; i < count; i++) {
                if (shapes[shape].narrowed)
                    lengths[i] = (size_t)(2 * FD_BATCH_MIN_WORK_PER_NARROWED_THREAD / count) +
                                 rng_below(&rng, 3 * 4096);
                else if (shapes[shape].lane_long)
                    lengths[i] = LANE_LONG_LEN + rng_below(&rng, 3 * 4096);
                else
                    lengths[i] = count == 7 && i % 2 == 0 ? LONG_LEN + rng_below(&rng, 4096)
                                                          : rng_below(&rng, 200);
            }
            /* The narrowed shape takes the narrower kernel on two threads
             * (its length alone is that work, less each message's block). */
            if (shapes[shape].narrowed && count > 0) {
                uint64_t work = 0;
                for (size_t i = 0; i < count; i++)
                    work += lengths[i];
                check(tally, fd_batch_kernel_for_threads(multi, count, work, 2) == multi->narrower,
                      "%s: %s (%zu) would not take the narrower kernel on 2 threads",
                      fd_algorithms[id].name, shapes[shape].what, count);
            }
            for (size_t threads = 1; threads <= 5; threads++) {
                threaded_batch b;
                make_threaded_batch(&b, id, keyed, hex, count, lengths, &rng);
                fd_hash_many_parallel(&b.job, b.messages, count, threads);
                check(tally, digests_match(&b, 0, count), "%s%s%s: %s (%zu) on %zu threads differ",
                      keyed ? "HMAC-" : "", fd_algorithms[id].name, hex ? " in hex" : "",
                      shapes[shape].what, count, threads);
                free_threaded_batch(&b);
            }
        }
    }
    free(lengths);
}

/* A producer for fd_hash_many_pipelined: chunks of a threaded_batch, of
 * random sizes (some empty), each copied into its slot's own message array
 * as digest_many copies them, so that a thread still reading a slot while
 * it is refilled is a data race (ThreadSanitizer) or a wrong digest. It
 * checks the contract as it goes: chunks in order, slot chunk % slots, and
 * the slot's previous chunk hashed. */
typedef struct chunk_producer {
    threaded_batch *batch;
    const size_t *chunk_starts; /* chunk c is messages [chunk_starts[c], chunk_starts[c + 1]) */
    size_t slots;
    fd_message **slot_messages;
    size_t next_chunk;
    size_t stop_at; /* the chunk whose producing fails, or SIZE_MAX */
    bool contract_kept;
} chunk_producer;

static bool produce_test_chunk(void *context, size_t chunk, size_t slot,
                               const fd_message **messages, size_t *count)
{
    chunk_producer *p = context;
    const size_t first = p->chunk_starts[chunk], end = p->chunk_starts[chunk + 1];

    if (chunk != p->next_chunk++ || slot != chunk % p->slots)
        p->contract_kept = false;
    if (chunk >= p->slots) {
        const size_t previous = chunk - p->slots;
        if (!digests_match(p->batch, p->chunk_starts[previous], p->chunk_starts[previous + 1]))
            p->contract_kept = false;
    }
    if (chunk == p->stop_at)
        return false;
    memcpy(p->slot_messages[slot], p->batch->messages + first, (end - first) * sizeof(fd_message));
    *messages = p->slot_messages[slot];
    *count = end - first;
    return true;
}

static void test_pipeline(group_tally *tally)
{
    enum { COUNT = 30000, MAX_CHUNK = 700 };
    size_t *lengths = checked_malloc(COUNT * sizeof *lengths);
    size_t *chunk_starts = checked_malloc((COUNT + 2) * sizeof *chunk_starts);

    for (size_t a = 0; a < 2 * sizeof threaded_ids / sizeof threaded_ids[0]; a++) {
        /* Each algorithm's digests, then its HMACs. */
        const bool keyed = a % 2 == 1;
        const enum fd_algorithm_id id = threaded_ids[a / 2];
        test_rng rng = rng_for(4, (unsigned)a);

        for (size_t threads = 1; threads <= 5; threads++) {
            const size_t slot_choices[] = {1, 2, threads + 1, threads + 3};
            for (size_t s = 0; s < 4; s++) {
                const size_t slots = slot_choices[s];
                size_t chunk_count = 0;
                chunk_starts[0] = 0;
                while (chunk_starts[chunk_count] < COUNT) {
                    /* A tenth of the chunks are empty. */
                    size_t n = rng_below(&rng, 10) == 0 ? 0 : 1 + rng_below(&rng, MAX_CHUNK);
                    if (n > COUNT - chunk_starts[chunk_count])
                        n = COUNT - chunk_starts[chunk_count];
                    chunk_starts[chunk_count + 1] = chunk_starts[chunk_count] + n;
                    chunk_count++;
                }
                for (size_t i = 0; i < COUNT; i++)
                    lengths[i] = rng_below(&rng, 300);
                /* Every other run stops at a random chunk. */
                const size_t stop_at = s % 2 ? rng_below(&rng, chunk_count) : SIZE_MAX;
                threaded_batch b;
                make_threaded_batch(&b, id, keyed, false, COUNT, lengths, &rng);
                fd_message **slot_messages = checked_malloc(slots * sizeof *slot_messages);
                for (size_t i = 0; i < slots; i++)
                    slot_messages[i] = checked_malloc(MAX_CHUNK * sizeof(fd_message));
                chunk_producer producer = {&b, chunk_starts, slots, slot_messages,
                                           0,  stop_at,      true};

                const bool complete = fd_hash_many_pipelined(&b.job, chunk_count, slots, threads,
                                                             produce_test_chunk, &producer);
                const bool stopped = stop_at < chunk_count;
                const size_t hashed_end = chunk_starts[stopped ? stop_at : chunk_count];
                check(tally,
                      complete == !stopped && producer.contract_kept &&
                          producer.next_chunk == (stopped ? stop_at + 1 : chunk_count) &&
                          digests_match(&b, 0, hashed_end) &&
                          digests_untouched(&b, hashed_end, COUNT),
                      "%s%s: pipeline of %zu chunks, %zu slots, %zu threads, stop at %zu: "
                      "complete %d, contract %d, produced %zu",
                      keyed ? "HMAC-" : "", fd_algorithms[id].name, chunk_count, slots, threads,
                      stop_at, complete, producer.contract_kept, producer.next_chunk);
                for (size_t i = 0; i < slots; i++)
                    free(slot_messages[i]);
                free(slot_messages);
                free_threaded_batch(&b);
            }
        }
    }
    free(lengths);
    free(chunk_starts);
}

/* A kernel's narrower kernel (dispatch.h) is a later row of the same list,
 * with fewer lanes, so that the loop below tests it as it tests every row
 * (where the CPU has its features) and no CPU chooses it while its kernel
 * passes; installing the kernel installs the narrower one only where the
 * CPU has its features, which may be other than the kernel's. */
static void test_narrower(int family, const fd_multi_kernel *kernel, group_tally *tally)
{
    const fd_multi_kernel *narrower = kernel->narrower;
    bool later = false;

    for (const fd_multi_kernel *row = kernel + 1; row->name != NULL; row++)
        later |= row == narrower;
    check(tally, later, "its narrower kernel %s is not a later row of its list", narrower->name);
    check(tally, narrower->lanes < kernel->lanes, "its narrower kernel has %u lanes, it %u",
          narrower->lanes, kernel->lanes);
    fd_use_multi_kernel((enum fd_family)family, kernel);
    const bool runs = (narrower->required_features & ~fd_cpu_detected_features()) == 0;
    check(tally, fd_active_multi_kernels[family].narrower == (runs ? narrower : NULL),
          "its narrower kernel is %sinstalled on a CPU %s its features", runs ? "not " : "",
          runs ? "with" : "without");
    fd_use_multi_kernel((enum fd_family)family, NULL);
}

/* The import's known-answer check of a multi-buffer kernel (hash/
 * known_answers.h) passes on this CPU beside the selected single-stream
 * kernel, so that it refuses no right kernel, and fails when spoiled; the
 * self-test's PBKDF2 check passes too. */
static void test_known_answers(enum fd_family family, const fd_kernel *single,
                               const fd_multi_kernel *multi, group_tally *tally)
{
    char reason[FD_KERNEL_FAILURE_REASON_LEN] = "";

    check(tally, fd_check_multi_kernel(family, single, multi, false, reason, sizeof reason),
          "the known-answer check refuses %s: %s", multi->name, reason);
    reason[0] = '\0';
    check(tally,
          !fd_check_multi_kernel(family, single, multi, true, reason, sizeof reason) &&
              reason[0] != 0,
          "the known-answer check, spoiled, passes %s", multi->name);
    check(tally, fd_check_pbkdf2(family, single, multi, reason, sizeof reason),
          "the PBKDF2 check refuses %s: %s", multi->name, reason);
}

static void run_threaded_tests(void)
{
    group_tally parallel = {0, 0}, pipeline = {0, 0};
    fd_select_kernels(false);
    test_parallel(&parallel);
    report_group("all", "selected", "fd_hash_many_parallel", "1-5 threads", &parallel);
    test_pipeline(&pipeline);
    report_group("all", "selected", "fd_hash_many_pipelined", "1-5 threads", &pipeline);
}

static void run_tests(void)
{
    test_choice();
    test_kernel_for_threads();
    fd_select_kernels(false);
    fd_kernel selected_single[FD_FAMILY_COUNT];
    memcpy(selected_single, fd_active_kernels, sizeof selected_single);

    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        enum fd_family family = (enum fd_family)f;
        fd_use_kernel(family, &selected_single[f]);

        for (const fd_multi_kernel *kernel = fd_multi_kernel_lists[f]; kernel->name != NULL;
             kernel++) {
            if (!cpu_runs_or_say_skipped(family, kernel->name, kernel->required_features))
                continue;
            group_tally direct = {0, 0}, batches = {0, 0}, known = {0, 0};
            test_kernel_direct(family, kernel, &direct);
            report_group(family_names[f], kernel->name, "kernel vs portable", "", &direct);
            test_known_answers(family, &selected_single[f], kernel, &known);
            report_group(family_names[f], kernel->name, "known answers", "", &known);
            if (kernel->narrower != NULL) {
                group_tally narrower = {0, 0};
                test_narrower(f, kernel, &narrower);
                report_group(family_names[f], kernel->name, "narrower", kernel->narrower->name,
                             &narrower);
            }
            fd_use_multi_kernel(family, kernel);
            test_batches(family, kernel->lanes, false, &batches);
            report_group(family_names[f], kernel->name, "fd_hash_many", "", &batches);
            group_tally keyed = {0, 0};
            test_batches(family, kernel->lanes, true, &keyed);
            report_group(family_names[f], kernel->name, "fd_hmac_many", "keyed lanes", &keyed);
        }

        /* The single-stream path under every single-stream kernel. */
        fd_use_multi_kernel(family, NULL);
        for (const fd_kernel *kernel = fd_kernel_lists[f]; kernel->name != NULL; kernel++) {
            if (!cpu_runs(kernel->required_features))
                continue;
            group_tally batches = {0, 0}, keyed = {0, 0};
            fd_use_kernel(family, kernel);
            test_batches(family, FD_BATCH_MAX_LANES, false, &batches);
            report_group(family_names[f], kernel->name, "fd_hash_many, 1 lane", "", &batches);
            test_batches(family, FD_BATCH_MAX_LANES, true, &keyed);
            report_group(family_names[f], kernel->name, "fd_hmac_many, 1 lane", "", &keyed);
        }
        fd_use_kernel(family, &selected_single[f]);
    }

    /* With the selected kernels. */
    run_threaded_tests();
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
    static const enum fd_algorithm_id ids[] = {ONE_ALGORITHM_OF_EACH_FAMILY};
    static const size_t sizes[] = {64, 1024};
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
                if (!cpu_runs(kernel->required_features))
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
    bool bench = false, threads_only = false;
    int rounds = 11;

    harness_start("test_batch", 0x66645f6261746368u); /* "fd_batch" */
    for (int i = 1; i < argc; i++) {
        if (take_seed_option(argv[i]))
            continue;
        if (strcmp(argv[i], "--bench") == 0)
            bench = true;
        else if (strcmp(argv[i], "--threads-only") == 0)
            threads_only = true;
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

    print_seed();
    if (threads_only)
        run_threaded_tests();
    else
        run_tests();
    return finish_run("C batch");
}
