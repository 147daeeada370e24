/* The known-answer checks (known_answers.h) and the extension's selection
 * with them.
 *
 * What is compared with what: the published digests below wherever a
 * published vector exercises the path, and otherwise a result computed at
 * check time by code already checked against published vectors. Three
 * paths have no short published vector: the lanes of a multi-buffer kernel
 * (each message of a batch is compared with the portable C, which shares
 * no code with the SIMD kernels); PBKDF2 through a kernel's own loop (the
 * only published vectors with more than one iteration and few enough
 * iterations for an import are RFC 6070's for SHA-1, and the loop with
 * one iteration does nothing), which is compared with core/hmac.c's loop
 * over the same kernel's compress function after that has matched the
 * published digests; and HMAC with the SHA-512/t digests, which RFC 4231
 * leaves out, compared likewise. */
#include "core/known_answers.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/algorithms.h"
#include "core/batch.h"
#include "core/family.h"
#include "core/hmac.h"
#include "dispatch/dispatch.h"

/* ---- the published vectors ------------------------------------------------
 *
 * For each family, its widest algorithm: the digest of "abc" (one block),
 * of a message whose padding makes two blocks, and HMAC test case 2 (the
 * key "Jefe", the message "what do ya want for nothing?") of RFC 2202 (MD5,
 * SHA-1) and RFC 4231 (SHA-2), which also gives SHA-224's and SHA-384's. */

typedef struct family_vectors {
    enum fd_algorithm_id widest; /* the algorithm of the digests below */
    const char *source;          /* of the message digests */
    const char *abc_hex;
    const char *two_block_message;
    const char *two_block_hex;
} family_vectors;

/* RFC 1321, A.5 (the test suite): "abc" and eight repetitions of
 * "1234567890". */
static const family_vectors md5_vectors = {
    FD_MD5,
    "RFC 1321, A.5",
    "900150983cd24fb0d6963f7d28e17f72",
    "1234567890123456789012345678901234567890123456789012345678901234567890123456"
    "7890",
    "57edf4a22be3c955ac49da2e2107b67a",
};

/* FIPS 180-4's examples (NIST's "Examples with intermediate values",
 * SHA1.pdf, SHA256.pdf, SHA512.pdf): "abc" and the 448-bit message
 * (SHA-1, SHA-256) or the 896-bit one (SHA-512). */
static const family_vectors sha1_vectors = {
    FD_SHA1,
    "FIPS 180-4 example",
    "a9993e364706816aba3e25717850c26c9cd0d89d",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
};

static const family_vectors sha256_vectors = {
    FD_SHA256,
    "FIPS 180-4 example",
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
};

static const family_vectors sha512_vectors = {
    FD_SHA512,
    "FIPS 180-4 example",
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
    "klmnopqrlmnopqrsmnopqrstnopqrstu",
    "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
    "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
};

/* Every family of FD_FAMILIES has its name_vectors. */
#define VECTORS_OF_FAMILY(fam, FAM, ...) [FD_FAMILY_##FAM] = &fam##_vectors,
static const family_vectors *const vectors_of_family[FD_FAMILY_COUNT] = {
    FD_FAMILIES(VECTORS_OF_FAMILY)};
#undef VECTORS_OF_FAMILY

static const char hmac_key[] = "Jefe";
static const char hmac_message[] = "what do ya want for nothing?";

/* HMAC test case 2; NULL where RFC 4231 has none (SHA-512/224, /256). */
static const char *const hmac_hex[FD_ALGORITHM_COUNT] = {
    [FD_MD5] = "750c783e6ab0b503eaa86e310a5db738",
    [FD_SHA1] = "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
    [FD_SHA224] = "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
    [FD_SHA256] = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    [FD_SHA384] = "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
                  "8e2240ca5e69e2c78b3239ecfab21649",
    [FD_SHA512] = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                  "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
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

/* Whether the len bytes equal the 2 * len hex digits. */
static bool equals_hex(const uint8_t *bytes, const char *hex, size_t len)
{
    assert(strlen(hex) == 2 * len);
    for (size_t i = 0; i < len; i++) {
        if (bytes[i] != (uint8_t)(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1])))
            return false;
    }
    return true;
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

/* The kernel's compress function without its optional capabilities: what
 * core/hmac.c then runs its own code over. */
static fd_kernel without_capabilities(const fd_kernel *kernel)
{
    fd_kernel plain = {.name = kernel->name, .required_features = kernel->required_features};
    plain.blocks = kernel->blocks;
    return plain;
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

/* PBKDF2's inputs for the capability checks: RFC 6070's password and salt;
 * three iterations, so that a loop's second iteration starts from a U it
 * computed itself. */
static const char pbkdf2_password[] = "password";
static const char pbkdf2_salt[] = "salt";
#define PBKDF2_ITERATIONS 3

/* The most output blocks a check derives: a kernel's lanes. */
#define PBKDF2_MAX_BLOCKS FD_BATCH_MAX_LANES

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

/* ---- single-stream kernels ------------------------------------------------ */

/* The published digests: "abc" through the stream layer, which compresses
 * its one padded block from the state's buffer; the two-block message
 * padded here and compressed in one call (nblocks 2) from an odd address,
 * so that the kernel's loop over blocks and its unaligned loads run. */
static bool check_message_digests(enum fd_family family, const fd_kernel *kernel, bool spoil,
                                  char *reason, size_t reason_len)
{
    const family_vectors *vectors = vectors_of_family[family];
    const fd_algorithm *algorithm = &fd_algorithms[vectors->widest];
    const fd_family_info *f = fd_family(family);
    const size_t message_len = strlen(vectors->two_block_message);
    uint8_t digest[FD_MAX_DIGEST_LEN];
    /* One byte before the blocks, so that they start at an odd address. */
    uint8_t padded[1 + 2 * FD_MAX_BLOCK_LEN];
    uint8_t *blocks = padded + 1;
    fd_hash_state state;

    fd_hash_with(kernel, vectors->widest, (const uint8_t *)"abc", 3, digest);
    if (spoil)
        digest[0] ^= 1;
    if (!equals_hex(digest, vectors->abc_hex, algorithm->digest_len))
        return refuse(reason, reason_len, "its %s of \"abc\" (%s) is wrong", algorithm->name,
                      vectors->source);

    /* The padding of FIPS 180-4, 5.1 and RFC 1321, 3.1-3.2: 0x80, zeros,
     * the length in bits at the end of the second block. */
    assert(message_len < 2 * f->block_len - f->length_field_len &&
           message_len + 1 + f->length_field_len > f->block_len);
    memset(blocks, 0, 2 * f->block_len);
    memcpy(blocks, vectors->two_block_message, message_len);
    blocks[message_len] = 0x80;
    fd_store_length_field(family, blocks + 2 * f->block_len, message_len);
    algorithm->init(&state);
    fd_call_blocks(family, kernel, fd_state_chain(family, &state), blocks, 2);
    fd_store_digest(family, digest, fd_state_chain(family, &state), algorithm->digest_len);
    if (!equals_hex(digest, vectors->two_block_hex, algorithm->digest_len))
        return refuse(reason, reason_len,
                      "its %s of the %zu-byte message (%s), two blocks in one call, is wrong",
                      algorithm->name, message_len, vectors->source);
    return true;
}

/* HMAC test case 2 where the kernel has a capability of its own for HMAC:
 * against RFC 2202's and RFC 4231's digests, or where they have none
 * (SHA-512/t), against core/hmac.c's code over the kernel's compress
 * function. */
static bool check_hmac(enum fd_family family, const fd_kernel *kernel, char *reason,
                       size_t reason_len)
{
    const fd_kernel plain = without_capabilities(kernel);
    enum fd_algorithm_id ids[2];
    uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];

    if (!fd_has_hmac_key(family, kernel) && !fd_has_hmac_finish(family, kernel))
        return true;
    for (size_t i = 0; i < widest_and_narrowest(family, ids); i++) {
        const fd_algorithm *algorithm = &fd_algorithms[ids[i]];
        fd_hmac_with(kernel, ids[i], (const uint8_t *)hmac_key, sizeof hmac_key - 1,
                     (const uint8_t *)hmac_message, sizeof hmac_message - 1, actual);
        if (hmac_hex[ids[i]] != NULL) {
            if (!equals_hex(actual, hmac_hex[ids[i]], algorithm->digest_len))
                return refuse(reason, reason_len,
                              "its HMAC-%s of test case 2 (RFC %s) is wrong, with its own HMAC "
                              "key setup or end",
                              algorithm->name,
                              family == FD_FAMILY_MD5 || family == FD_FAMILY_SHA1 ? "2202"
                                                                                  : "4231");
            continue;
        }
        fd_hmac_with(&plain, ids[i], (const uint8_t *)hmac_key, sizeof hmac_key - 1,
                     (const uint8_t *)hmac_message, sizeof hmac_message - 1, expected);
        if (memcmp(expected, actual, algorithm->digest_len) != 0)
            return refuse(reason, reason_len,
                          "its HMAC-%s with its own HMAC key setup or end differs from HMAC over "
                          "its compress function",
                          algorithm->name);
    }
    return true;
}

/* The kernel's PBKDF2 loop (one output block) and its PBKDF2 lanes (as many
 * blocks as it has lanes) against core/hmac.c's loop over the kernel's
 * compress function, for the family's widest algorithm: each block
 * compared costs six compressions twice over, and the self-test derives
 * keys of every algorithm against hashlib. */
static bool check_pbkdf2(enum fd_family family, const fd_kernel *kernel, char *reason,
                         size_t reason_len)
{
    const fd_kernel plain = without_capabilities(kernel);
    const unsigned lanes = kernel->pbkdf2_lanes.lanes;
    const enum fd_algorithm_id id = vectors_of_family[family]->widest;
    uint8_t expected[PBKDF2_MAX_BLOCKS * FD_MAX_DIGEST_LEN];

    if (!fd_has_pbkdf2(family, kernel) && lanes == 0)
        return true;
    derive(&plain, NULL, id, lanes > 1 ? lanes : 1, expected);
    if (fd_has_pbkdf2(family, kernel) && !derives(kernel, NULL, id, 1, expected))
        return refuse(reason, reason_len,
                      "its PBKDF2-HMAC-%s loop differs from the loop over its compress function",
                      fd_algorithms[id].name);
    if (lanes != 0 && !derives(kernel, NULL, id, lanes, expected))
        return refuse(reason, reason_len,
                      "its PBKDF2-HMAC-%s lanes (%u blocks at once) differ from one block at a "
                      "time",
                      fd_algorithms[id].name, lanes);
    return true;
}

bool fd_check_kernel(enum fd_family family, const fd_kernel *kernel, bool spoil, char *reason,
                     size_t reason_len)
{
    assert((unsigned)family < FD_FAMILY_COUNT);
    return check_message_digests(family, kernel, spoil, reason, reason_len) &&
           check_hmac(family, kernel, reason, reason_len) &&
           check_pbkdf2(family, kernel, reason, reason_len);
}

/* ---- multi-buffer kernels ------------------------------------------------- */

/* A batch of a kernel's lanes and two more messages: two lanes take a
 * second message, and the last ones drain. */
#define EXTRA_MESSAGES 2
#define MAX_BATCH (FD_BATCH_MAX_LANES + EXTRA_MESSAGES)
/* Message 2 is read in place in runs of several blocks: longer than the
 * batch driver copies into a lane (core/batch.c's SHORT_MESSAGE_BLOCKS). */
#define LONG_MESSAGE_BLOCKS 5

/* The length of batch message m (m >= 2): under two blocks, differing from
 * one message to the next by a few bytes more than half a block, so that
 * neighbouring lanes end at different blocks (padded, one to three). */
static size_t generated_length(enum fd_family family, size_t m)
{
    const size_t block_len = fd_family(family)->block_len;

    if (m == 2)
        return LONG_MESSAGE_BLOCKS * block_len + 7;
    return (m * (block_len / 2 + 5)) % (2 * block_len);
}

/* The longest batch's bytes, and a byte of room before each message so
 * that they start at addresses of every alignment. */
#define BATCH_BYTES                                                          \
    (3 + 2 * FD_MAX_BLOCK_LEN + LONG_MESSAGE_BLOCKS * FD_MAX_BLOCK_LEN + 7 + \
     (MAX_BATCH - 3) * 2 * FD_MAX_BLOCK_LEN + MAX_BATCH)

/* Three PBKDF2 output blocks through the lanes: more than one and fewer than
 * any kernel's lanes, so that some lanes idle. */
#define PBKDF2_LANE_BLOCKS 3

bool fd_check_multi_kernel(enum fd_family family, const fd_kernel *single,
                           const fd_multi_kernel *multi, bool spoil, char *reason,
                           size_t reason_len)
{
    const family_vectors *vectors = vectors_of_family[family];
    const enum fd_algorithm_id id = vectors->widest;
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_kernel *portable = fd_kernel_lists[family];
    const size_t count = multi->lanes + EXTRA_MESSAGES;
    uint8_t bytes[BATCH_BYTES];
    uint8_t digests[MAX_BATCH][FD_MAX_DIGEST_LEN];
    uint8_t expected[FD_MAX_DIGEST_LEN];
    fd_message messages[MAX_BATCH] = {{NULL, 0, NULL}};
    size_t used = 0;

    assert((unsigned)family < FD_FAMILY_COUNT);
    assert(multi->lanes >= 2 && multi->lanes <= FD_BATCH_MAX_LANES);
    /* The portable C ends every single-stream list. */
    while (portable[1].name != NULL)
        portable++;

    for (size_t m = 0; m < count; m++) {
        uint8_t *message = bytes + used + 1;
        size_t len;
        if (m == 0) {
            len = 3;
            memcpy(message, "abc", len);
        }
        else if (m == 1) {
            len = strlen(vectors->two_block_message);
            memcpy(message, vectors->two_block_message, len);
        }
        else {
            len = generated_length(family, m);
            for (size_t j = 0; j < len; j++)
                message[j] = (uint8_t)(m * 151 + j * 13 + (j >> 8));
        }
        assert(used + 1 + len <= sizeof bytes);
        messages[m] = (fd_message){.data = message, .len = len, .digest = digests[m]};
        used += 1 + len;
    }
    fd_hash_many_using(multi, id, messages, count);
    if (spoil)
        digests[0][0] ^= 1;

    for (size_t m = 0; m < count; m++) {
        const char *hex = m == 0 ? vectors->abc_hex : m == 1 ? vectors->two_block_hex : NULL;
        if (hex != NULL) {
            if (!equals_hex(digests[m], hex, algorithm->digest_len))
                return refuse(reason, reason_len,
                              "its %s of batch message %zu (%zu bytes, %s) is wrong",
                              algorithm->name, m, messages[m].len, vectors->source);
            continue;
        }
        fd_hash_with(portable, id, messages[m].data, messages[m].len, expected);
        if (memcmp(digests[m], expected, algorithm->digest_len) != 0)
            return refuse(reason, reason_len,
                          "its %s of batch message %zu (%zu bytes) differs from the portable C",
                          algorithm->name, m, messages[m].len);
    }

    /* PBKDF2 goes through these lanes only where the single-stream kernel
     * has none of its own; from one block on here, so that the three blocks
     * take them. The widest algorithm only, as check_pbkdf2. */
    if (multi->pbkdf2.min_blocks != 0 && single->pbkdf2_lanes.lanes == 0) {
        fd_multi_kernel every_count = *multi;
        uint8_t one_at_a_time[PBKDF2_MAX_BLOCKS * FD_MAX_DIGEST_LEN];
        every_count.pbkdf2.min_blocks = 1;
        derive(single, NULL, id, PBKDF2_LANE_BLOCKS, one_at_a_time);
        if (!derives(single, &every_count, id, PBKDF2_LANE_BLOCKS, one_at_a_time))
            return refuse(reason, reason_len,
                          "its PBKDF2-HMAC-%s of %d blocks through its lanes differs from one "
                          "block at a time",
                          algorithm->name, PBKDF2_LANE_BLOCKS);
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

bool fd_select_checked_kernels(bool portable_only, const char *spoiled, char *error,
                               size_t error_len)
{
    spoiled_kernels parsed;

    if (!parse_spoiled(spoiled, &parsed, error, error_len))
        return false;
    const fd_kernel_checks checks = {.check_kernel = check_kernel_for_selection,
                                     .check_multi_kernel = check_multi_kernel_for_selection,
                                     .context = &parsed};
    fd_select_checked_kernels_from(fd_kernel_lists, fd_multi_kernel_lists, portable_only, &checks);
    return true;
}
