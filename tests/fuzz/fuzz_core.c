/* libFuzzer target of the C core (no Python): every algorithm, every
 * compress kernel this CPU runs, fed the input in the update sizes the input
 * itself chooses, against the portable kernel and a one-shot over the whole
 * message. Built and run by tests/fuzz/run.sh with
 * clang -fsanitize=fuzzer,address,undefined.
 *
 * The input is a small header, then the message:
 *
 *   byte 0         split count n = byte0 % 17 (0: the message in one update)
 *   byte 1         after which update (mod the number of updates + 1) the
 *                  stream is copied, the copy finalized and checked, and the
 *                  original continued
 *   bytes 2..2+n   the update sizes, used in turn until the message is all
 *                  fed: a byte b < 192 is b bytes (every padding and block
 *                  boundary of both block sizes: 55/56, 63/64, 111/112,
 *                  127/128), b >= 192 is (b - 191) * 61 bytes (odd
 *                  multi-block runs up to 3,904 bytes)
 *   the rest       the message
 *
 * For each algorithm and each kernel of fd_kernel_lists whose features the
 * CPU has (installed with fd_use_kernel), the digest must equal the portable
 * kernel's one-shot fd_hash of the message when computed
 *   - by fd_hash in one call;
 *   - by init/update/final in the input's update sizes, every update read
 *     from its own heap allocation of exactly its length (so that ASan sees
 *     any read past an update's end), with empty updates passed as NULL;
 *   - and at the copy point, a copy of the state finalized gives the digest
 *     of the prefix fed so far, while the original goes on unaffected.
 * Then the batch driver (fd_hash_many, digest_many's core): the updates and
 * the whole message as one batch, with each multi-buffer kernel the CPU runs
 * and with none (the single-stream path), under each single-stream kernel,
 * against the portable one-shot of each message; and the same batch of
 * HMACs (fd_hmac_many, hmac.digest_many's core: lanes from a keyed state)
 * under the key HMAC uses below, against the portable fd_hmac of each.
 * And HMAC and PBKDF2 (hmac.c) against the portable kernel's: the message up
 * to the copy point is the key and the password, the rest the HMAC message
 * and the salt; byte 1 also picks 1..8 iterations and the message length
 * the output length (1 to 17 digests), so the kernels' own PBKDF2 loops
 * and the two-stream key setup meet keys of every size. PBKDF2 runs again
 * with every way of deriving output blocks side by side (the kernel's own
 * lanes, each multi-buffer kernel's lanes from one block on, none).
 *
 * Any mismatch prints what differed and aborts, which libFuzzer reports as a
 * crash and saves the input. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../c/harness.h"
#include "hash/algorithms.h"
#include "hash/batch.h"
#include "hash/hmac.h"
#include "dispatch/dispatch.h"

#define MAX_SPLITS 16
/* The batch holds every update and the whole message. */
#define MAX_UPDATES_IN_BATCH 4096 /* more: the last update takes the rest */
/* PBKDF2 output lengths reach past sixteen digests: every lane count of the
 * multi-buffer kernels, and a second round. */
#define MAX_DERIVED_DIGESTS 17

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    harness_start("fuzz_core", 0);
    fd_select_kernels(false);
    return 0;
}

static size_t update_size(uint8_t code)
{
    return code < 192 ? code : (size_t)(code - 191) * 61;
}

/* The message cut into the input's update sizes: update i is
 * lengths[i] bytes at offsets[i]. */
typedef struct split_plan {
    size_t count;
    size_t offsets[MAX_UPDATES_IN_BATCH];
    size_t lengths[MAX_UPDATES_IN_BATCH];
    size_t copy_after; /* updates fed before the copy, 0..count */
} split_plan;

static split_plan plan;

/* Should the sizes need more updates than a batch holds (many empty or
 * one-byte updates over a long message), the last one takes the rest. */
static void make_plan(const uint8_t *sizes, size_t size_count, uint8_t copy_code,
                      size_t message_len)
{
    plan.count = 0;
    size_t offset = 0;
    bool all_empty = true;
    for (size_t i = 0; i < size_count; i++)
        all_empty = all_empty && update_size(sizes[i]) == 0;
    if (size_count == 0 || all_empty) {
        /* One update of everything (after the empty ones, if any). */
        for (size_t i = 0; i < size_count; i++) {
            plan.offsets[plan.count] = 0;
            plan.lengths[plan.count++] = 0;
        }
        plan.offsets[plan.count] = 0;
        plan.lengths[plan.count++] = message_len;
    }
    else {
        for (size_t i = 0; offset < message_len; i++) {
            size_t len = update_size(sizes[i % size_count]);
            if (len > message_len - offset || plan.count == MAX_UPDATES_IN_BATCH - 2)
                len = message_len - offset;
            plan.offsets[plan.count] = offset;
            plan.lengths[plan.count++] = len;
            offset += len;
        }
    }
    plan.copy_after = copy_code % (plan.count + 1);
}

static _Noreturn void fail(const char *what, enum fd_algorithm_id id, const char *kernel,
                           const char *multi_kernel, size_t message_len, size_t detail)
{
    fail_fatal("%s, algorithm %s, kernel %s, multi-buffer kernel %s, message %zu bytes in %zu "
               "updates (copy after %zu), detail %zu",
               what, fd_algorithms[id].name, kernel, multi_kernel, message_len, plan.count,
               plan.copy_after, detail);
}

/* len bytes of message from offset; NULL when empty (no arithmetic on a
 * NULL message). */
static const uint8_t *slice(const uint8_t *message, size_t offset, size_t len)
{
    return len != 0 ? message + offset : NULL;
}

/* An exact-length heap copy of update i (NULL for an empty one), so that a
 * read past its end is an ASan report rather than a read of the next
 * update's bytes. */
static uint8_t *copy_update(const uint8_t *message, size_t i)
{
    if (plan.lengths[i] == 0)
        return NULL;
    uint8_t *copy = checked_malloc(plan.lengths[i]);
    memcpy(copy, message + plan.offsets[i], plan.lengths[i]);
    return copy;
}

/* Streams the message in the plan's updates with the active kernel and
 * checks the digest at the copy point and at the end. */
static void check_stream(enum fd_algorithm_id id, const char *kernel, const uint8_t *message,
                         size_t message_len, const uint8_t *expected,
                         const uint8_t *expected_prefix)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    fd_hash_state state;
    uint8_t digest[FD_MAX_DIGEST_LEN];

    algorithm->init(&state);
    for (size_t i = 0; i <= plan.count; i++) {
        if (i == plan.copy_after) {
            fd_hash_state copy;
            memcpy(&copy, &state, algorithm->state_len);
            algorithm->final(&copy, digest);
            if (memcmp(digest, expected_prefix, algorithm->digest_len) != 0)
                fail("copy finalized mid-stream", id, kernel, "-", message_len, i);
        }
        if (i == plan.count)
            break;
        uint8_t *update = copy_update(message, i);
        algorithm->update(&state, update, plan.lengths[i]);
        free(update);
    }
    algorithm->final(&state, digest);
    if (memcmp(digest, expected, algorithm->digest_len) != 0)
        fail("streamed updates", id, kernel, "-", message_len, plan.count);
}

/* The key of the HMACs: the message up to the copy point. */
static size_t key_len_of(size_t message_len)
{
    return plan.copy_after == plan.count ? message_len : plan.offsets[plan.copy_after];
}

/* The plan's updates and the whole message as one batch, with the active
 * single-stream and multi-buffer kernels: their digests, or with keyed
 * their HMACs under the key. Every message and every digest has a heap
 * allocation of its exact length, so that ASan sees a lane that reads or
 * writes past its own. */
static void check_batch(enum fd_algorithm_id id, const char *kernel, bool keyed,
                        const uint8_t *message, size_t message_len, const uint8_t *expected_updates,
                        const uint8_t *expected)
{
    static fd_message messages[MAX_UPDATES_IN_BATCH];
    static uint8_t *update_copies[MAX_UPDATES_IN_BATCH];
    const size_t digest_len = fd_algorithms[id].digest_len;
    const fd_multi_kernel *multi = &fd_active_multi_kernels[fd_algorithms[id].family];
    const char *multi_name = multi->name != NULL ? multi->name : "none";
    const size_t count = plan.count + 1;

    for (size_t i = 0; i < count; i++) {
        update_copies[i] = i < plan.count ? copy_update(message, i) : NULL;
        messages[i].data = i < plan.count ? update_copies[i] : message;
        messages[i].len = i < plan.count ? plan.lengths[i] : message_len;
        messages[i].digest = checked_malloc(digest_len);
    }

    if (keyed) {
        const size_t key_len = key_len_of(message_len);
        fd_hmac_state key;
        fd_hmac_init(&key, id, slice(message, 0, key_len), key_len);
        fd_hmac_many(&key, messages, count);
        fd_hmac_wipe(&key);
    }
    else {
        fd_hash_many(id, messages, count);
    }
    for (size_t i = 0; i < count; i++) {
        const uint8_t *want = i < plan.count ? expected_updates + i * digest_len : expected;
        if (memcmp(messages[i].digest, want, digest_len) != 0)
            fail(i < plan.count
                     ? (keyed ? "HMAC batch, one update as a message"
                              : "batch, one update as a message")
                     : (keyed ? "HMAC batch, the whole message" : "batch, the whole message"),
                 id, kernel, multi_name, message_len, i);
        free(messages[i].digest);
        free(update_copies[i]);
    }
}

/* The batch of digests, then of HMACs. */
static void check_batches(enum fd_algorithm_id id, const char *kernel, const uint8_t *message,
                          size_t message_len, const uint8_t *expected_updates,
                          const uint8_t *expected, const uint8_t *expected_update_macs,
                          const uint8_t *expected_mac)
{
    check_batch(id, kernel, false, message, message_len, expected_updates, expected);
    check_batch(id, kernel, true, message, message_len, expected_update_macs, expected_mac);
}

/* The PBKDF2 of the message (see the top), by the active kernels. */
static void derive_key(enum fd_algorithm_id id, const uint8_t *message, size_t message_len,
                       uint8_t *derived, size_t derived_len)
{
    size_t key_len = plan.copy_after == plan.count ? message_len : plan.offsets[plan.copy_after];
    const uint8_t *key = slice(message, 0, key_len);
    const uint8_t *rest = slice(message, key_len, message_len - key_len);
    uint32_t iterations = 1 + plan.copy_after % 8;

    fd_pbkdf2_hmac(id, key, key_len, rest, message_len - key_len, iterations, derived, derived_len);
}

/* The HMAC and PBKDF2 of the message (see the top), by the active kernels. */
static void keyed_digests(enum fd_algorithm_id id, const uint8_t *message, size_t message_len,
                          uint8_t *mac, uint8_t *derived, size_t derived_len)
{
    size_t key_len = key_len_of(message_len);

    fd_hmac(id, slice(message, 0, key_len), key_len, slice(message, key_len, message_len - key_len),
            message_len - key_len, mac);
    derive_key(id, message, message_len, derived, derived_len);
}

/* PBKDF2 with every way of deriving blocks side by side under the installed
 * single-stream kernel: its own lanes, and each multi-buffer kernel's lanes
 * the CPU runs (that kernel's own loop or hash/hmac.c's), each from one
 * block on (the tables' minimums lowered to 1). */
static void check_pbkdf2_lanes(enum fd_algorithm_id id, const fd_kernel *kernel,
                               const uint8_t *message, size_t message_len,
                               const uint8_t *expected_derived, size_t derived_len)
{
    const enum fd_family family = fd_algorithms[id].family;
    static uint8_t derived[MAX_DERIVED_DIGESTS * FD_MAX_DIGEST_LEN];
    fd_kernel every_count = *kernel;

    if (every_count.pbkdf2_lanes.lanes != 0)
        every_count.pbkdf2_lanes.min_blocks = 1;
    fd_use_kernel(family, &every_count);
    for (const fd_multi_kernel *multi = fd_multi_kernel_lists[family]; multi->name != NULL;
         multi++) {
        if (!cpu_runs(multi->required_features))
            continue;
        fd_multi_kernel every_multi_count = *multi;
        every_multi_count.pbkdf2.min_blocks = 1;
        fd_use_multi_kernel(family, &every_multi_count);
        derive_key(id, message, message_len, derived, derived_len);
        if (memcmp(derived, expected_derived, derived_len) != 0)
            fail("PBKDF2, blocks side by side", id, kernel->name, multi->name, message_len,
                 derived_len);
    }
    fd_use_multi_kernel(family, NULL);
    derive_key(id, message, message_len, derived, derived_len);
    if (memcmp(derived, expected_derived, derived_len) != 0)
        fail("PBKDF2, blocks side by side", id, kernel->name, "none", message_len, derived_len);
    fd_use_kernel(family, kernel);
}

static void check_algorithm(enum fd_algorithm_id id, const uint8_t *message, size_t message_len)
{
    static uint8_t expected_updates[MAX_UPDATES_IN_BATCH * FD_MAX_DIGEST_LEN];
    static uint8_t expected_update_macs[MAX_UPDATES_IN_BATCH * FD_MAX_DIGEST_LEN];
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const enum fd_family family = algorithm->family;
    const size_t digest_len = algorithm->digest_len;
    uint8_t expected[FD_MAX_DIGEST_LEN], expected_prefix[FD_MAX_DIGEST_LEN];
    uint8_t digest[FD_MAX_DIGEST_LEN];

    /* The references: the portable kernel's one-shots, and its PBKDF2 one
     * block at a time (no multi-buffer kernel's lanes). */
    fd_use_kernel(family, portable_kernel(family));
    fd_use_multi_kernel(family, NULL);
    fd_hash(id, message, message_len, expected);
    size_t prefix_len = plan.copy_after == plan.count ? message_len : plan.offsets[plan.copy_after];
    fd_hash(id, slice(message, 0, prefix_len), prefix_len, expected_prefix);
    for (size_t i = 0; i < plan.count; i++)
        fd_hash(id, slice(message, plan.offsets[i], plan.lengths[i]), plan.lengths[i],
                expected_updates + i * digest_len);
    static uint8_t expected_derived[MAX_DERIVED_DIGESTS * FD_MAX_DIGEST_LEN];
    static uint8_t derived[MAX_DERIVED_DIGESTS * FD_MAX_DIGEST_LEN];
    uint8_t expected_mac[FD_MAX_DIGEST_LEN], mac[FD_MAX_DIGEST_LEN];
    const size_t derived_len = 1 + message_len % (MAX_DERIVED_DIGESTS * digest_len);
    keyed_digests(id, message, message_len, expected_mac, expected_derived, derived_len);
    const size_t key_len = key_len_of(message_len);
    uint8_t expected_whole_mac[FD_MAX_DIGEST_LEN];
    for (size_t i = 0; i < plan.count; i++)
        fd_hmac(id, slice(message, 0, key_len), key_len,
                slice(message, plan.offsets[i], plan.lengths[i]), plan.lengths[i],
                expected_update_macs + i * digest_len);
    fd_hmac(id, slice(message, 0, key_len), key_len, message, message_len, expected_whole_mac);

    for (const fd_kernel *kernel = fd_kernel_lists[family]; kernel->name != NULL; kernel++) {
        if (!cpu_runs(kernel->required_features))
            continue;
        fd_use_kernel(family, kernel);
        fd_hash(id, message, message_len, digest);
        if (memcmp(digest, expected, digest_len) != 0)
            fail("one-shot fd_hash", id, kernel->name, "-", message_len, 0);
        check_stream(id, kernel->name, message, message_len, expected, expected_prefix);
        keyed_digests(id, message, message_len, mac, derived, derived_len);
        if (memcmp(mac, expected_mac, digest_len) != 0)
            fail("HMAC", id, kernel->name, "-", message_len, 0);
        if (memcmp(derived, expected_derived, derived_len) != 0)
            fail("PBKDF2", id, kernel->name, "-", message_len, derived_len);
        check_pbkdf2_lanes(id, kernel, message, message_len, expected_derived, derived_len);

        fd_use_multi_kernel(family, NULL);
        check_batches(id, kernel->name, message, message_len, expected_updates, expected,
                      expected_update_macs, expected_whole_mac);
        for (const fd_multi_kernel *multi = fd_multi_kernel_lists[family]; multi->name != NULL;
             multi++) {
            if (!cpu_runs(multi->required_features))
                continue;
            fd_use_multi_kernel(family, multi);
            check_batches(id, kernel->name, message, message_len, expected_updates, expected,
                          expected_update_macs, expected_whole_mac);
        }
    }
    fd_select_kernels(false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t split_count = data[0] % (MAX_SPLITS + 1);
    if (size < 2 + split_count)
        return 0;
    const uint8_t *message = data + 2 + split_count;
    size_t message_len = size - 2 - split_count;
    make_plan(data + 2, split_count, data[1], message_len);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++)
        check_algorithm((enum fd_algorithm_id)id, message_len != 0 ? message : NULL, message_len);
    return 0;
}
