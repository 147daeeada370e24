/* The known-answer checks (known_answers.h) and the extension's selection
 * with them.
 *
 * The selection's checks call the kernels directly, on blocks padded
 * here, and run no other code of the extension: every kernel checked must
 * come into the caches then, and the check costs little only while that
 * is all it brings in (the stream layer, the HMAC and PBKDF2 code and the
 * batch driver are more code than the kernels they drive). The PBKDF2
 * capabilities, a loop of iterations with the rounds unrolled and the
 * largest code of the extension, are left to the self-test and the C
 * drivers (fd_check_pbkdf2), which run them through hash/hmac.c.
 *
 * What is compared with what: published digests wherever a published
 * vector exercises the path; else a result computed at check time by code
 * that has just matched published digests. Two paths have no short
 * published vector. The lanes of a multi-buffer kernel, each hashing its
 * own message: lane 0 hashes the published messages, and the other lanes
 * messages of their own, whose digests the family's single-stream kernel
 * computes, after its own check (the portable C would be independent of
 * both, but is code the import would otherwise not run). And PBKDF2
 * through a kernel's own loop: the only published vectors with more than
 * one iteration and few enough for a check are RFC 6070's for SHA-1, and
 * a loop run for one iteration does nothing, so it is compared with
 * hash/hmac.c's loop over the same kernel's compress function. */
#include "hash/known_answers.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "hash/algorithms.h"
#include "hash/family.h"
#include "hash/hmac.h"

/* ---- the published vectors ------------------------------------------------
 *
 * Each family's, from its row of FD_KNOWN_ANSWERS (kernels/kernel.h): the
 * digests of "abc" and of a message whose padding makes two blocks, by the
 * family's algorithm of the longest digest; and HMAC test case 2 of the
 * algorithms whose RFC has it (FD_HMAC_KNOWN_ANSWERS). */

typedef struct family_vectors {
    enum fd_algorithm_id widest; /* the algorithm of the digests below */
    const char *source;          /* of the message digests */
    const char *abc_hex;
    const char *two_block_message;
    const char *two_block_hex;
} family_vectors;

#define FAMILY_VECTORS(fam, FAM, ALGORITHM, source, abc_hex, two_block_message, two_block_hex) \
    [FD_FAMILY_##FAM] = {FD_##ALGORITHM, source, abc_hex, two_block_message, two_block_hex},
static const family_vectors vectors_of_family[FD_FAMILY_COUNT] = {FD_KNOWN_ANSWERS(FAMILY_VECTORS)};
#undef FAMILY_VECTORS

static const char hmac_key[] = "Jefe";
static const char hmac_message[] = "what do ya want for nothing?";

/* HMAC test case 2 and where it is published; NULL for an algorithm
 * without. */
static const struct hmac_vector {
    const char *source;
    const char *mac_hex;
} hmac_vectors[FD_ALGORITHM_COUNT] = {
#define HMAC_VECTOR(ALGORITHM, source, mac_hex) [FD_##ALGORITHM] = {source, mac_hex},
    FD_HMAC_KNOWN_ANSWERS(HMAC_VECTOR)
#undef HMAC_VECTOR
};

/* ---- helpers -------------------------------------------------------------- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The len bytes that 2 * len hex digits spell. */
static void decode_hex(const char *hex, uint8_t *bytes, size_t len)
{
    assert(strlen(hex) == 2 * len);
    for (size_t i = 0; i < len; i++)
        bytes[i] = (uint8_t)(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
}

/* Whether the len bytes equal the 2 * len hex digits. */
static bool equals_hex(const uint8_t *bytes, const char *hex, size_t len)
{
    uint8_t expected[FD_MAX_DIGEST_LEN];

    decode_hex(hex, expected, len);
    return memcmp(bytes, expected, len) == 0;
}

/* Writes why a check failed into reason and returns false, for
 * `return refuse(...)`. */
FD_PRINTF_LIKE(3, 4)
static bool refuse(char *reason, size_t reason_len, const char *format, ...)
{
    va_list arguments;

    va_start(arguments, format);
    vsnprintf(reason, reason_len, format, arguments);
    va_end(arguments);
    return false;
}

/* The family's algorithms of the longest and the shortest digest (one, for
 * a family of one algorithm), into ids; returns their count. The digest
 * length is what the capabilities' code differs by within a family: a
 * digest that ends inside the chain, or inside a word (SHA-512/224). */
static size_t widest_and_narrowest(enum fd_family family, enum fd_algorithm_id ids[2])
{
    enum fd_algorithm_id widest = FD_ALGORITHM_COUNT, narrowest = FD_ALGORITHM_COUNT;

    for (int i = 0; i < FD_ALGORITHM_COUNT; i++) {
        const fd_algorithm *algorithm = &fd_algorithms[i];
        if (algorithm->family != family)
            continue;
        if (widest == FD_ALGORITHM_COUNT ||
            algorithm->digest_len > fd_algorithms[widest].digest_len)
            widest = (enum fd_algorithm_id)i;
        if (narrowest == FD_ALGORITHM_COUNT ||
            algorithm->digest_len < fd_algorithms[narrowest].digest_len)
            narrowest = (enum fd_algorithm_id)i;
    }
    assert(widest != FD_ALGORITHM_COUNT);
    ids[0] = widest;
    ids[1] = narrowest;
    return narrowest == widest ? 1 : 2;
}

/* Pads len bytes of message that follow prefix_len bytes already hashed
 * (none, or an HMAC's keyed block) as the family pads them (FIPS 180-4,
 * 5.1; RFC 1321, 3.1-3.2) into out, which has room for two blocks: the
 * message, 0x80, zeros, and the length in bits at the end of the last
 * block. Returns the block count, 1 or 2. */
static size_t pad_message(enum fd_family family, const void *message, size_t len, size_t prefix_len,
                          uint8_t *out)
{
    const fd_family_info *f = fd_family(family);
    const size_t nblocks = len + 1 + f->length_field_len <= f->block_len ? 1 : 2;

    assert(len + 1 + f->length_field_len <= 2 * f->block_len);
    memset(out, 0, nblocks * f->block_len);
    memcpy(out, message, len);
    out[len] = 0x80;
    fd_store_length_field(family, out + nblocks * f->block_len, prefix_len + len);
    return nblocks;
}

/* The family's calls, each one function rather than expanded into a case
 * per family wherever it is called (compiler.h's FD_NOINLINE says why). */
static FD_NOINLINE void compress(enum fd_family family, const fd_kernel *kernel, void *chain,
                                 const uint8_t *blocks, size_t nblocks)
{
    fd_call_blocks(family, kernel, chain, blocks, nblocks);
}

static FD_NOINLINE void store_digest(enum fd_family family, uint8_t *out, const void *chain,
                                     size_t digest_len)
{
    fd_store_digest(family, out, chain, digest_len);
}

static FD_NOINLINE void copy_chain(enum fd_family family, void *to, const void *from)
{
    fd_copy_chain(family, to, from);
}

/* The algorithm's IV as a chain of its family. */
static void initial_chain(const fd_algorithm *algorithm, fd_any_chain *chain)
{
    fd_hash_state state;

    algorithm->init(&state);
    copy_chain(algorithm->family, chain, fd_state_chain(algorithm->family, &state));
}

/* The digest of padded blocks, compressed from the algorithm's IV in one
 * call of kernel. */
static void digest_of_padded(const fd_kernel *kernel, const fd_algorithm *algorithm,
                             const uint8_t *blocks, size_t nblocks, uint8_t *digest)
{
    fd_any_chain chain;

    initial_chain(algorithm, &chain);
    compress(algorithm->family, kernel, &chain, blocks, nblocks);
    store_digest(algorithm->family, digest, &chain, algorithm->digest_len);
}

/* ---- single-stream kernels ------------------------------------------------ */

/* The published digests of "abc" (one block) and of the two-block message,
 * each padded here and compressed in one call from an odd address, so that
 * the kernel's loop over blocks and its unaligned loads run. */
static bool check_message_digests(enum fd_family family, const fd_kernel *kernel, bool spoil,
                                  char *reason, size_t reason_len)
{
    const family_vectors *vectors = &vectors_of_family[family];
    const fd_algorithm *algorithm = &fd_algorithms[vectors->widest];
    const size_t message_len = strlen(vectors->two_block_message);
    uint8_t digest[FD_MAX_DIGEST_LEN];
    uint8_t padded[1 + 2 * FD_MAX_BLOCK_LEN];
    uint8_t *blocks = padded + 1;

    size_t nblocks = pad_message(family, "abc", 3, 0, blocks);
    digest_of_padded(kernel, algorithm, blocks, nblocks, digest);
    if (spoil)
        digest[0] ^= 1;
    if (!equals_hex(digest, vectors->abc_hex, algorithm->digest_len))
        return refuse(reason, reason_len, "its %s of \"abc\" (%s) is wrong", algorithm->name,
                      vectors->source);
    nblocks = pad_message(family, vectors->two_block_message, message_len, 0, blocks);
    assert(nblocks == 2);
    digest_of_padded(kernel, algorithm, blocks, nblocks, digest);
    if (!equals_hex(digest, vectors->two_block_hex, algorithm->digest_len))
        return refuse(reason, reason_len,
                      "its %s of the %zu-byte message (%s), two blocks in one call, is wrong",
                      algorithm->name, message_len, vectors->source);
    return true;
}

/* HMAC (RFC 2104) of test case 2 for algorithm id, built here from kernel
 * calls: the two keyed chains through the kernel's hmac_key where it has
 * one (and with_capabilities), else its compress function; the end
 * through its hmac_finish likewise. */
static void hmac_of_test_case(const fd_kernel *kernel, enum fd_algorithm_id id,
                              bool with_capabilities, uint8_t *mac)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const enum fd_family family = algorithm->family;
    const size_t block_len = algorithm->block_len, digest_len = algorithm->digest_len;
    uint8_t key[FD_MAX_BLOCK_LEN] = {0}, keyed[2][FD_MAX_BLOCK_LEN];
    uint8_t padded[2 * FD_MAX_BLOCK_LEN], inner_digest[FD_MAX_DIGEST_LEN];
    fd_any_chain inner, outer;

    memcpy(key, hmac_key, sizeof hmac_key - 1);
    initial_chain(algorithm, &inner);
    initial_chain(algorithm, &outer);
    if (with_capabilities && fd_has_hmac_key(family, kernel)) {
        fd_call_hmac_key(family, kernel, key, &inner, &outer);
    }
    else {
        for (size_t i = 0; i < block_len; i++) {
            keyed[0][i] = key[i] ^ 0x36;
            keyed[1][i] = key[i] ^ 0x5c;
        }
        compress(family, kernel, &inner, keyed[0], 1);
        compress(family, kernel, &outer, keyed[1], 1);
    }
    size_t nblocks = pad_message(family, hmac_message, sizeof hmac_message - 1, block_len, padded);
    if (with_capabilities && fd_has_hmac_finish(family, kernel)) {
        fd_call_hmac_finish(family, kernel, &inner, padded, nblocks, &outer, digest_len, mac);
        return;
    }
    compress(family, kernel, &inner, padded, nblocks);
    store_digest(family, inner_digest, &inner, digest_len);
    nblocks = pad_message(family, inner_digest, digest_len, block_len, padded);
    compress(family, kernel, &outer, padded, nblocks);
    store_digest(family, mac, &outer, digest_len);
}

/* Where the kernel has HMAC code of its own: test case 2 against its
 * published MAC, or where none is published (SHA-512/t), against the same
 * HMAC over the kernel's compress function. */
static bool check_hmac(enum fd_family family, const fd_kernel *kernel, char *reason,
                       size_t reason_len)
{
    enum fd_algorithm_id ids[2];
    uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];

    if (!fd_has_hmac_key(family, kernel) && !fd_has_hmac_finish(family, kernel))
        return true;
    for (size_t i = 0; i < widest_and_narrowest(family, ids); i++) {
        const fd_algorithm *algorithm = &fd_algorithms[ids[i]];
        const struct hmac_vector *published = &hmac_vectors[ids[i]];
        hmac_of_test_case(kernel, ids[i], true, actual);
        if (published->mac_hex != NULL) {
            if (!equals_hex(actual, published->mac_hex, algorithm->digest_len))
                return refuse(reason, reason_len,
                              "its HMAC-%s of %s's test case 2, with its own HMAC key blocks "
                              "or end, is wrong",
                              algorithm->name, published->source);
            continue;
        }
        hmac_of_test_case(kernel, ids[i], false, expected);
        if (memcmp(expected, actual, algorithm->digest_len) != 0)
            return refuse(reason, reason_len,
                          "its HMAC-%s with its own HMAC key blocks or end differs from HMAC over "
                          "its compress function",
                          algorithm->name);
    }
    return true;
}

bool fd_check_kernel(enum fd_family family, const fd_kernel *kernel, bool spoil, char *reason,
                     size_t reason_len)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    return check_message_digests(family, kernel, spoil, reason, reason_len) &&
           check_hmac(family, kernel, reason, reason_len);
}

/* ---- multi-buffer kernels ------------------------------------------------- */

/* Room for a lane's two padded blocks at any of 16 offsets. */
#define LANE_ROOM (2 * FD_MAX_BLOCK_LEN + 16)

/* Lane i's message (i >= 1) in the one-block call: its own length and its
 * own bytes, so that a lane that reads another's shows. */
static size_t lane_message(enum fd_family family, unsigned lane, uint8_t *message)
{
    const fd_family_info *f = fd_family(family);
    const size_t len = (lane * 7) % (f->block_len - f->length_field_len);

    for (size_t j = 0; j < len; j++)
        message[j] = (uint8_t)(lane * 151 + j * 13 + 1);
    return len;
}

bool fd_check_multi_kernel(enum fd_family family, const fd_kernel *single,
                           const fd_multi_kernel *multi, bool spoil, char *reason,
                           size_t reason_len)
{
    const family_vectors *vectors = &vectors_of_family[family];
    const fd_algorithm *algorithm = &fd_algorithms[vectors->widest];
    const size_t digest_len = algorithm->digest_len;
    const size_t message_len = strlen(vectors->two_block_message);
    const unsigned lanes = multi->lanes;
    uint8_t room[FD_BATCH_MAX_LANES][LANE_ROOM];
    uint8_t message[FD_MAX_BLOCK_LEN];
    uint8_t digest[FD_MAX_DIGEST_LEN], expected[FD_MAX_DIGEST_LEN];
    uint8_t two_block_digest[FD_MAX_DIGEST_LEN];
    const uint8_t *runs[FD_BATCH_MAX_LANES];
    fd_any_chain iv;
    fd_lane_chains chains;

    assert((unsigned)family < FD_FAMILY_COUNT);
    assert(lanes >= 2 && lanes <= FD_BATCH_MAX_LANES);
    initial_chain(algorithm, &iv);
    decode_hex(vectors->two_block_hex, two_block_digest, digest_len);

    /* Two blocks in one call: the published two-block message in every
     * lane, each at its own offset, against its published digest. */
    for (unsigned lane = 0; lane < lanes; lane++) {
        uint8_t *blocks = room[lane] + lane % 16;
        pad_message(family, vectors->two_block_message, message_len, 0, blocks);
        runs[lane] = blocks;
        copy_chain(family, fd_lane_chain(family, &chains, lane), &iv);
    }
    fd_call_blocks_multi(family, multi, &chains, runs, 2);
    for (unsigned lane = 0; lane < lanes; lane++) {
        store_digest(family, digest, fd_lane_chain(family, &chains, lane), digest_len);
        if (spoil && lane == 0)
            digest[0] ^= 1;
        if (memcmp(digest, two_block_digest, digest_len) != 0)
            return refuse(reason, reason_len,
                          "its %s of the %zu-byte message (%s) in lane %u, two blocks in one "
                          "call, is wrong",
                          algorithm->name, message_len, vectors->source, lane);
    }

    /* One block in one call, every lane its own message at its own offset,
     * so that a lane that reads or writes another's shows: "abc" in lane 0
     * against its published digest, the others against the single-stream
     * kernel's digests. */
    for (unsigned lane = 0; lane < lanes; lane++) {
        uint8_t *blocks = room[lane] + (lane * 5 + 3) % 16;
        if (lane == 0)
            pad_message(family, "abc", 3, 0, blocks);
        else
            pad_message(family, message, lane_message(family, lane, message), 0, blocks);
        runs[lane] = blocks;
        copy_chain(family, fd_lane_chain(family, &chains, lane), &iv);
    }
    fd_call_blocks_multi(family, multi, &chains, runs, 1);
    for (unsigned lane = 0; lane < lanes; lane++) {
        store_digest(family, digest, fd_lane_chain(family, &chains, lane), digest_len);
        if (lane == 0) {
            if (!equals_hex(digest, vectors->abc_hex, digest_len))
                return refuse(reason, reason_len, "its %s of \"abc\" (%s) in lane 0 is wrong",
                              algorithm->name, vectors->source);
            continue;
        }
        digest_of_padded(single, algorithm, runs[lane], 1, expected);
        if (memcmp(digest, expected, digest_len) != 0)
            return refuse(reason, reason_len,
                          "its %s of a one-block message in lane %u differs from the "
                          "single-stream kernel '%s'",
                          algorithm->name, lane, single->name);
    }
    return true;
}

/* ---- PBKDF2: the self-test's and the C drivers' ----------------------------- */

/* PBKDF2's inputs: RFC 6070's password and salt; three iterations, so that
 * a loop's second iteration starts from a U it computed itself. */
static const char pbkdf2_password[] = "password";
static const char pbkdf2_salt[] = "salt";
#define PBKDF2_ITERATIONS 3

/* The most output blocks a check derives: a kernel's lanes. */
#define PBKDF2_MAX_BLOCKS FD_BATCH_MAX_LANES

/* Three output blocks through a multi-buffer kernel's lanes: more than one
 * and fewer than any kernel's lanes, so that some lanes idle. */
#define PBKDF2_LANE_BLOCKS 3

/* The first blocks_out output blocks of PBKDF2 with those inputs through
 * kernel and multi, the last one cut by a byte; returns their length. */
static size_t derive(const fd_kernel *kernel, const fd_multi_kernel *multi, enum fd_algorithm_id id,
                     size_t blocks_out, uint8_t *out)
{
    const size_t out_len = blocks_out * fd_algorithms[id].digest_len - 1;

    assert(blocks_out >= 1 && blocks_out <= PBKDF2_MAX_BLOCKS);
    fd_pbkdf2_hmac_with(kernel, multi, id, (const uint8_t *)pbkdf2_password,
                        sizeof pbkdf2_password - 1, (const uint8_t *)pbkdf2_salt,
                        sizeof pbkdf2_salt - 1, PBKDF2_ITERATIONS, out, out_len);
    return out_len;
}

/* Whether PBKDF2 through kernel and multi gives the first blocks_out blocks
 * of `expected` (only the last block derived is cut: a block of expected
 * beyond it is whole). */
static bool derives(const fd_kernel *kernel, const fd_multi_kernel *multi, enum fd_algorithm_id id,
                    size_t blocks_out, const uint8_t *expected)
{
    uint8_t actual[PBKDF2_MAX_BLOCKS * FD_MAX_DIGEST_LEN];
    const size_t out_len = derive(kernel, multi, id, blocks_out, actual);

    return memcmp(expected, actual, out_len) == 0;
}

bool fd_check_pbkdf2(enum fd_family family, const fd_kernel *single, const fd_multi_kernel *multi,
                     char *reason, size_t reason_len)
{
    enum fd_algorithm_id ids[2];
    uint8_t expected[PBKDF2_MAX_BLOCKS * FD_MAX_DIGEST_LEN];

    assert((unsigned)family < FD_FAMILY_COUNT);
    for (size_t i = 0; i < widest_and_narrowest(family, ids); i++) {
        const enum fd_algorithm_id id = ids[i];
        const char *name = fd_algorithms[id].name;
        if (multi != NULL) {
            /* PBKDF2 goes through these lanes where the single-stream kernel
             * has none of its own; here from one block on, so that the three
             * blocks take them. */
            fd_kernel without_lanes = *single;
            fd_multi_kernel every_count = *multi;
            if (multi->pbkdf2.min_blocks == 0)
                return true;
            without_lanes.pbkdf2_lanes.lanes = 0;
            every_count.pbkdf2.min_blocks = 1;
            derive(single, NULL, id, PBKDF2_LANE_BLOCKS, expected);
            if (!derives(&without_lanes, &every_count, id, PBKDF2_LANE_BLOCKS, expected))
                return refuse(reason, reason_len,
                              "its PBKDF2-HMAC-%s of %d blocks through its lanes differs from one "
                              "block at a time",
                              name, PBKDF2_LANE_BLOCKS);
            continue;
        }
        const unsigned lanes = single->pbkdf2_lanes.lanes;
        fd_kernel plain = {.name = single->name, .required_features = single->required_features};
        plain.blocks = single->blocks;
        if (!fd_has_pbkdf2(family, single) && lanes == 0)
            return true;
        derive(&plain, NULL, id, lanes > 1 ? lanes : 1, expected);
        if (fd_has_pbkdf2(family, single) && !derives(single, NULL, id, 1, expected))
            return refuse(reason, reason_len,
                          "its PBKDF2-HMAC-%s loop differs from the loop over its compress "
                          "function",
                          name);
        if (lanes != 0 && !derives(single, NULL, id, lanes, expected))
            return refuse(reason, reason_len,
                          "its PBKDF2-HMAC-%s lanes (%u blocks at once) differ from one block at "
                          "a time",
                          name, lanes);
    }
    return true;
}

/* ---- the extension's selection ------------------------------------------- */

/* The kernels FASTDIGEST_TEST_FAIL_CHECK names, parsed. */
#define MAX_SPOILED 16

typedef struct spoiled_kernels {
    size_t count;
    struct {
        enum fd_family family;
        const char *name; /* the build's own string, from its list */
    } items[MAX_SPOILED];
} spoiled_kernels;

static bool is_spoiled(const spoiled_kernels *spoiled, enum fd_family family, const char *name)
{
    for (size_t i = 0; i < spoiled->count; i++) {
        if (spoiled->items[i].family == family && strcmp(spoiled->items[i].name, name) == 0)
            return true;
    }
    return false;
}

/* The kernel called [name, name + len) in family's lists, or NULL. */
static const char *kernel_named(enum fd_family family, const char *name, size_t len)
{
    for (const fd_kernel *k = fd_kernel_lists[family]; k->name != NULL; k++) {
        if (strlen(k->name) == len && memcmp(k->name, name, len) == 0)
            return k->name;
    }
    for (const fd_multi_kernel *k = fd_multi_kernel_lists[family]; k->name != NULL; k++) {
        if (strlen(k->name) == len && memcmp(k->name, name, len) == 0)
            return k->name;
    }
    return NULL;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool parse_spoiled(const char *list, spoiled_kernels *spoiled, char *error, size_t error_len)
{
    spoiled->count = 0;
    for (const char *item = list; list != NULL && *item != '\0';) {
        const char *end = strchr(item, ',');
        if (end == NULL)
            end = item + strlen(item);
        const char *start = item, *stop = end;
        while (start < stop && is_blank(*start))
            start++;
        while (stop > start && is_blank(stop[-1]))
            stop--;
        item = *end == ',' ? end + 1 : end;
        if (start == stop)
            continue;
        const char *colon = memchr(start, ':', (size_t)(stop - start));
        int family = 0;
        while (
            colon != NULL && family < FD_FAMILY_COUNT &&
            !(strlen(fd_family((enum fd_family)family)->name) == (size_t)(colon - start) &&
              memcmp(fd_family((enum fd_family)family)->name, start, (size_t)(colon - start)) == 0))
            family++;
        if (colon == NULL || family == FD_FAMILY_COUNT) {
            snprintf(error, error_len,
                     "'%.*s' is not family:kernel with a family of md5, sha1, sha256, sha512",
                     (int)(stop - start), start);
            return false;
        }
        const char *name = kernel_named((enum fd_family)family, colon + 1,
                                        (size_t)(stop - colon - 1));
        if (name == NULL) {
            snprintf(error, error_len, "this build has no %.*s kernel '%.*s'", (int)(colon - start),
                     start, (int)(stop - colon - 1), colon + 1);
            return false;
        }
        if (spoiled->count == MAX_SPOILED) {
            snprintf(error, error_len, "more than %d kernels named", MAX_SPOILED);
            return false;
        }
        spoiled->items[spoiled->count].family = (enum fd_family)family;
        spoiled->items[spoiled->count].name = name;
        spoiled->count++;
    }
    return true;
}

static bool check_kernel_for_selection(void *context, enum fd_family family,
                                       const fd_kernel *kernel, char *reason, size_t reason_len)
{
    return fd_check_kernel(family, kernel, is_spoiled(context, family, kernel->name), reason,
                           reason_len);
}

static bool check_multi_kernel_for_selection(void *context, enum fd_family family,
                                             const fd_kernel *single, const fd_multi_kernel *multi,
                                             char *reason, size_t reason_len)
{
    return fd_check_multi_kernel(family, single, multi, is_spoiled(context, family, multi->name),
                                 reason, reason_len);
}

/* The kernels whose checks are spoiled, which the deferred multi-buffer
 * checks read after fd_select_checked_kernels has returned. */
static spoiled_kernels selection_spoiled;

bool fd_select_checked_kernels(bool portable_only, const char *spoiled, char *error,
                               size_t error_len)
{
    if (!parse_spoiled(spoiled, &selection_spoiled, error, error_len))
        return false;
    static const fd_kernel_checks checks = {.check_kernel = check_kernel_for_selection,
                                            .check_multi_kernel = check_multi_kernel_for_selection,
                                            .context = &selection_spoiled};
    fd_select_checked_kernels_from(fd_kernel_lists, fd_multi_kernel_lists, portable_only, &checks,
                                   true);
    return true;
}
