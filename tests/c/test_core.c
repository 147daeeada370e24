/* The C core's test driver: runs without Python, so the same checks run
 * natively, under sanitizers and on other CPUs under qemu-user.
 *
 * For every compress kernel compiled into this build whose instructions the
 * CPU has, installed with fd_use_kernel, it runs:
 *   - the NIST CAVP byte-oriented vectors (ShortMsg, LongMsg, Monte) for
 *     SHA-1 and every SHA-2 variant, and RFC 1321's MD5 suite, read from the
 *     cryptography-vectors package (the directory is the first argument);
 *   - every message length from 0 to 3 blocks + 1, split in two at every
 *     point, against the one-shot digest;
 *   - one million 'a' fed in many chunk sizes against the published digests;
 *   - random messages against the portable kernel: the kernel called
 *     directly (random chaining values, many blocks, random alignment), and
 *     whole hashes with random update splits.
 *   - HMAC and PBKDF2 (hmac.c): RFC 2202/4231 and RFC 6070/7914 vectors,
 *     and random keys, messages, salts, iteration counts and output lengths
 *     against the portable kernel, so a kernel's own PBKDF2 loop and the
 *     SHA-NI key setup are checked against hmac.c's generic paths; and
 *     PBKDF2 output lengths of 1 to 17 digests through every way of
 *     deriving blocks side by side (the kernel's own lanes, each
 *     multi-buffer kernel's lanes, one block at a time);
 *   - the import's known-answer check (hash/known_answers.h): it passes,
 *     and fails when spoiled.
 * Then, once, with the kernels fd_select_kernels picks, the portable state
 * format (state_format.c): the layout against the published initial values,
 * the same blob from every kernel, import and continuation against the
 * one-shot digest, every refusal, and random corruption of valid blobs;
 * the hex encoder; and the Arrow encoding of values of each scalar type,
 * built in the machine's byte order, against the bytes docs/encoding.md
 * gives them.
 *
 * Usage: test_core VECTORS_DIR [--seed=N] [--monte=all|selected]
 *   VECTORS_DIR     <site-packages>/cryptography_vectors/hashes
 *   --seed=N        seed of the random tests (default printed at start;
 *                   the FD_TEST_SEED environment variable works too)
 *   --monte=selected  run the Monte tests only with the kernel that
 *                   fd_select_kernels picks for each family (qemu runs use it:
 *                   Monte is 100,000 hashes per algorithm and kernel)
 *
 * Prints a line per kernel and test group, then "C core: N passed, N failed";
 * exits 1 on any failure, including a missing vector file. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/algorithms.h"
#include "data/arrow_encode.h"
#include "data/arrow_import.h"
#include "hash/hex.h"
#include "hash/hmac.h"
#include "hash/known_answers.h"
#include "hash/state_format.h"
#include "dispatch/dispatch.h"
#include "harness.h"
#include "model_kernels.h"

/* ------------------------------------------------------------------------ */
/* The algorithms under test                                                */

typedef struct test_algorithm {
    enum fd_algorithm_id id;
    /* Its published digests, in the directory dir of the vectors: NIST
     * CAVP's ShortMsg, LongMsg and Monte files, named after cavp_prefix
     * ("SHA512_224" for SHA512_224ShortMsg.rsp); or, for an algorithm NIST
     * has none of, suite_file, a file of the same Len, Msg and MD records
     * (RFC 1321's test suite for MD5). One of the two is NULL. */
    const char *dir;
    const char *cavp_prefix;
    const char *suite_file;
    /* The digest of 1,000,000 repetitions of 'a' (0x61). */
    const char *million_a_hex;
} test_algorithm;

/* Million-'a' digests, from:
 *   MD5: the NESSIE project's MD5 test vectors (Md5-128, set 1, vector #8);
 *        RFC 1321's suite stops at 80 bytes.
 *   SHA-1, SHA-256, SHA-384, SHA-512: FIPS 180-2, appendices A.3, B.3, D.3
 *        and C.3 (the "long message" examples).
 *   SHA-224: RFC 3874, section 3.3 (also the FIPS 180-2 change notice).
 *   SHA-512/224, SHA-512/256: NIST's SHA-512/t example values give only the
 *        one- and two-block messages; these are the values Bouncy Castle's
 *        SHA512tDigest tests use.
 * All were also confirmed against OpenSSL 3.0 (Python's hashlib). Every
 * algorithm of FD_ALGORITHMS has its row: main() checks. */
static const test_algorithm test_algorithms[] = {
    {FD_MD5, "MD5", NULL, "rfc-1321.txt", "7707d6ae4e027c70eea2a935c2296f21"},
    {FD_SHA1, "SHA1", "SHA1", NULL, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
    {FD_SHA224, "SHA2", "SHA224", NULL, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"},
    {FD_SHA256, "SHA2", "SHA256", NULL,
     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    {FD_SHA384, "SHA2", "SHA384", NULL,
     "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
     "07b8b3dc38ecc4ebae97ddd87f3d8985"},
    {FD_SHA512, "SHA2", "SHA512", NULL,
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
     "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
    {FD_SHA512_224, "SHA2", "SHA512_224", NULL,
     "37ab331d76f0d36de422bd0edeb22a28accd487b7a8453ae965dd287"},
    {FD_SHA512_256, "SHA2", "SHA512_256", NULL,
     "9a59a052930187a97038cae692f30708aa6491923ef5194394dc68d56c74fb21"},
};
#define TEST_ALGORITHM_COUNT (sizeof test_algorithms / sizeof test_algorithms[0])

/* Hashes data fed as the given pieces, one update call each. */
static void hash_in_pieces(const fd_algorithm *algorithm, const uint8_t *data,
                           const size_t *piece_lens, size_t piece_count, uint8_t *out)
{
    fd_hash_state state;
    algorithm->init(&state);
    for (size_t i = 0; i < piece_count; i++) {
        algorithm->update(&state, data, piece_lens[i]);
        data += piece_lens[i];
    }
    algorithm->final(&state, out);
}

/* ------------------------------------------------------------------------ */
/* CAVP response files                                                      */

static const char *vectors_dir;

/* Reads a whole file into a NUL-terminated buffer, or returns NULL. */
static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    size_t capacity = 1 << 16, len = 0;
    char *text = checked_malloc(capacity);
    for (;;) {
        len += fread(text + len, 1, capacity - len - 1, file);
        if (len < capacity - 1)
            break;
        capacity *= 2;
        char *bigger = realloc(text, capacity);
        if (bigger == NULL) {
            free(text);
            fclose(file);
            return NULL;
        }
        text = bigger;
    }
    bool failed = ferror(file) != 0;
    fclose(file);
    if (failed) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* Walks the "Key = Value" lines of a .rsp file, in place. Returns false at
 * the end of the text; comments, section headers and blank lines are
 * skipped. */
static bool next_field(char **cursor, char **key, char **value)
{
    while (**cursor != '\0') {
        char *line = *cursor;
        char *end = strchr(line, '\n');
        if (end != NULL) {
            *end = '\0';
            *cursor = end + 1;
        }
        else {
            *cursor = line + strlen(line);
        }
        size_t len = strlen(line);
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = '\0';
        char *equals = strstr(line, " = ");
        if (line[0] == '#' || line[0] == '[' || equals == NULL)
            continue;
        *equals = '\0';
        *key = line;
        *value = equals + 3;
        return true;
    }
    return false;
}

/* Reads <vectors_dir>/<dir>/<name>; a file that cannot be read is a
 * failure of the group that needed it, never a skip. */
static char *open_vector_file(const char *dir, const char *name, group_tally *tally)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", vectors_dir, dir, name);
    char *text = read_file(path);
    if (text == NULL)
        check(tally, false, "cannot read %s", path);
    return text;
}

/* ShortMsg/LongMsg records and a suite file: Len (bits), Msg, MD.
 * A Len = 0 record carries "Msg = 00": only Len / 8 bytes are the message. */
static void run_message_file(const test_algorithm *test, const char *dir, const char *name,
                             group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    char *text = open_vector_file(dir, name, tally);
    if (text == NULL)
        return;
    char *cursor = text, *key, *value;
    long bit_len = -1;
    uint8_t *message = NULL;
    long message_len = -1;
    unsigned records = 0;

    while (next_field(&cursor, &key, &value)) {
        if (strcmp(key, "Len") == 0) {
            bit_len = strtol(value, NULL, 10);
        }
        else if (strcmp(key, "Msg") == 0) {
            free(message);
            message = checked_malloc(strlen(value) / 2);
            message_len = decode_hex(value, message);
        }
        else if (strcmp(key, "MD") == 0) {
            uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];
            records++;
            bool well_formed = bit_len >= 0 && bit_len % 8 == 0 && message_len >= 0 &&
                               bit_len / 8 <= message_len &&
                               strlen(value) == 2 * algorithm->digest_len &&
                               decode_hex(value, expected) >= 0;
            if (!well_formed) {
                check(tally, false, "%s %s: malformed record before line with MD = %s",
                      algorithm->name, name, value);
            }
            else {
                fd_hash(test->id, message, (size_t)(bit_len / 8), actual);
                check(tally, memcmp(actual, expected, algorithm->digest_len) == 0,
                      "%s %s Len = %ld: got %s", algorithm->name, name, bit_len,
                      hex_string(actual, algorithm->digest_len));
            }
            bit_len = message_len = -1;
        }
    }
    if (records == 0)
        check(tally, false, "%s/%s: no records", dir, name);
    free(message);
    free(text);
}

/* The Monte Carlo test (SHAVS, section 6.4): MD0 = MD1 = MD2 = Seed; for i in
 * 3..1002, MDi = H(MDi-3 || MDi-2 || MDi-1); MD1002 is the checkpoint and
 * seeds the next. Each checkpoint is a test: after a mismatch the next one
 * starts from the file's value, so one wrong checkpoint fails once. */
static void run_monte_file(const test_algorithm *test, const char *name, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    const size_t digest_len = algorithm->digest_len;
    char *text = open_vector_file(test->dir, name, tally);
    if (text == NULL)
        return;
    char *cursor = text, *key, *value;
    uint8_t seed[FD_MAX_DIGEST_LEN];
    bool have_seed = false;
    unsigned checkpoint = 0;

    while (next_field(&cursor, &key, &value)) {
        if (strcmp(key, "Seed") == 0) {
            have_seed = strlen(value) == 2 * digest_len && decode_hex(value, seed) >= 0;
            if (!have_seed)
                check(tally, false, "%s %s: malformed Seed", algorithm->name, name);
        }
        else if (strcmp(key, "MD") == 0 && have_seed) {
            uint8_t expected[FD_MAX_DIGEST_LEN];
            /* The last three digests, oldest first: the next message. */
            uint8_t window[3 * FD_MAX_DIGEST_LEN];
            if (strlen(value) != 2 * digest_len || decode_hex(value, expected) < 0) {
                check(tally, false, "%s %s: malformed MD at checkpoint %u", algorithm->name, name,
                      checkpoint);
                break;
            }
            for (int i = 0; i < 3; i++)
                memcpy(window + i * digest_len, seed, digest_len);
            for (int i = 3; i <= 1002; i++) {
                uint8_t next[FD_MAX_DIGEST_LEN];
                fd_hash(test->id, window, 3 * digest_len, next);
                memmove(window, window + digest_len, 2 * digest_len);
                memcpy(window + 2 * digest_len, next, digest_len);
            }
            const uint8_t *md1002 = window + 2 * digest_len;
            check(tally, memcmp(md1002, expected, digest_len) == 0, "%s %s checkpoint %u: got %s",
                  algorithm->name, name, checkpoint, hex_string(md1002, digest_len));
            memcpy(seed, expected, digest_len);
            checkpoint++;
        }
    }
    if (checkpoint == 0)
        check(tally, false, "%s/%s: no checkpoints", test->dir, name);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Test groups that need no files                                           */

/* Every length from 0 to 3 blocks + 1, split in two at every point: covers
 * an empty update, tails that fill the buffer exactly, and padding that does
 * and does not spill into an extra block. */
static void run_split_test(const test_algorithm *test, unsigned algorithm_index, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    const size_t max_len = 3 * algorithm->block_len + 1;
    uint8_t *message = checked_malloc(max_len);
    test_rng rng = rng_for(1, algorithm_index);
    rng_fill(&rng, message, max_len);

    for (size_t len = 0; len <= max_len; len++) {
        uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];
        fd_hash(test->id, message, len, expected);
        size_t bad_split = SIZE_MAX;
        for (size_t split = 0; split <= len && bad_split == SIZE_MAX; split++) {
            size_t pieces[2] = {split, len - split};
            hash_in_pieces(algorithm, message, pieces, 2, actual);
            if (memcmp(actual, expected, algorithm->digest_len) != 0)
                bad_split = split;
        }
        check(tally, bad_split == SIZE_MAX, "%s length %zu split at %zu differs from one-shot",
              algorithm->name, len, bad_split);
    }
    free(message);
}

static const size_t million_a_chunk_sizes[] = {1, 3, 63, 64, 65, 127, 128, 129, 1000, 4096};

static void run_million_a_test(const test_algorithm *test, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    enum { TOTAL = 1000000, LARGEST_CHUNK = 4096 };
    uint8_t chunk[LARGEST_CHUNK];
    uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];
    memset(chunk, 'a', sizeof chunk);
    decode_hex(test->million_a_hex, expected);

    for (size_t i = 0; i < sizeof million_a_chunk_sizes / sizeof million_a_chunk_sizes[0]; i++) {
        size_t chunk_size = million_a_chunk_sizes[i];
        fd_hash_state state;
        algorithm->init(&state);
        for (size_t done = 0; done < TOTAL; done += chunk_size) {
            size_t n = TOTAL - done < chunk_size ? TOTAL - done : chunk_size;
            algorithm->update(&state, chunk, n);
        }
        algorithm->final(&state, actual);
        check(tally, memcmp(actual, expected, algorithm->digest_len) == 0,
              "%s million 'a' in chunks of %zu: got %s", algorithm->name, chunk_size,
              hex_string(actual, algorithm->digest_len));
    }
}

/* ------------------------------------------------------------------------ */
/* Random inputs against the portable kernel                                */

enum {
    RANDOM_KERNEL_CASES = 200, /* direct calls per family */
    RANDOM_HASH_CASES = 100,   /* whole hashes per algorithm */
    RANDOM_MAX_BLOCKS = 40,
    RANDOM_MAX_OFFSET = 64, /* start offsets 0..63 into a fresh allocation */
    RANDOM_MAX_PIECES = 12,
};

/* The kernel called directly: random chaining values (not just the IVs),
 * 1..40 blocks, at a random offset into an allocation of exactly the bytes
 * it may read, so AddressSanitizer sees any read past the last block. */
static void run_random_kernel_test(enum fd_family family, const fd_kernel *kernel,
                                   group_tally *tally)
{
    const size_t block_len = family_block_len(family), chain_len = family_chain_len(family);
    test_rng rng = rng_for(2, (unsigned)family);

    for (int i = 0; i < RANDOM_KERNEL_CASES; i++) {
        size_t nblocks = 1 + rng_below(&rng, RANDOM_MAX_BLOCKS);
        size_t offset = rng_below(&rng, RANDOM_MAX_OFFSET);
        uint8_t *buffer = checked_malloc(offset + nblocks * block_len);
        uint8_t *blocks = buffer + offset;
        test_chains expected, actual;
        rng_fill(&rng, chain_of(family, &expected, 0), chain_len);
        memcpy(chain_of(family, &actual, 0), chain_of(family, &expected, 0), chain_len);
        rng_fill(&rng, blocks, nblocks * block_len);

        call_kernel(family, portable_kernel(family), &expected, 0, blocks, nblocks);
        call_kernel(family, kernel, &actual, 0, blocks, nblocks);
        check(tally,
              memcmp(chain_of(family, &expected, 0), chain_of(family, &actual, 0), chain_len) == 0,
              "%s kernel %s: case %d (%zu blocks at offset %zu) differs from portable",
              family_names[family], kernel->name, i, nblocks, offset);
        free(buffer);
    }
}

/* Whole hashes: random length up to 40 blocks plus a tail, random offset,
 * random update splits (empty updates included); the reference is the
 * one-shot digest with the portable kernel installed. */
static void run_random_hash_test(const test_algorithm *test, unsigned algorithm_index,
                                 const fd_kernel *kernel, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    test_rng rng = rng_for(3, algorithm_index);

    for (int i = 0; i < RANDOM_HASH_CASES; i++) {
        size_t len = rng_below(&rng, (RANDOM_MAX_BLOCKS + 1) * algorithm->block_len);
        size_t offset = rng_below(&rng, RANDOM_MAX_OFFSET);
        uint8_t *buffer = checked_malloc(offset + len);
        uint8_t *message = buffer + offset;
        rng_fill(&rng, message, len);

        size_t pieces[RANDOM_MAX_PIECES], piece_count = 0, placed = 0;
        size_t wanted_pieces = 1 + rng_below(&rng, RANDOM_MAX_PIECES);
        while (piece_count + 1 < wanted_pieces) {
            size_t n = rng_below(&rng, len - placed + 1);
            pieces[piece_count++] = n;
            placed += n;
        }
        pieces[piece_count++] = len - placed;

        uint8_t expected[FD_MAX_DIGEST_LEN], actual[FD_MAX_DIGEST_LEN];
        fd_use_kernel(algorithm->family, portable_kernel(algorithm->family));
        fd_hash(test->id, message, len, expected);
        fd_use_kernel(algorithm->family, kernel);
        hash_in_pieces(algorithm, message, pieces, piece_count, actual);
        check(tally, memcmp(expected, actual, algorithm->digest_len) == 0,
              "%s with %s: case %d (%zu bytes at offset %zu in %zu updates) differs from "
              "portable",
              algorithm->name, kernel->name, i, len, offset, piece_count);
        free(buffer);
    }
}

/* ------------------------------------------------------------------------ */
/* HMAC and PBKDF2 (hmac.c)                                                 */

/* HMAC test case 2 of RFC 2202 (MD5, SHA-1) and of RFC 4231 (SHA-2): the key
 * "Jefe", the message "what do ya want for nothing?". */
static const char *const hmac_jefe_hex[FD_ALGORITHM_COUNT] = {
    [FD_MD5] = "750c783e6ab0b503eaa86e310a5db738",
    [FD_SHA1] = "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
    [FD_SHA224] = "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
    [FD_SHA256] = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    [FD_SHA384] = "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
                  "8e2240ca5e69e2c78b3239ecfab21649",
    [FD_SHA512] = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                  "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
};

/* PBKDF2-HMAC-SHA1 from RFC 6070 (cases 1-3, 5 and 6; case 4 is 16,777,216
 * iterations, run by the Python tests) and PBKDF2-HMAC-SHA256 from RFC 7914,
 * section 11. */
static const struct pbkdf2_vector {
    enum fd_algorithm_id id;
    const char *password;
    size_t password_len;
    const char *salt;
    size_t salt_len;
    uint32_t iterations;
    const char *derived_hex;
} pbkdf2_vectors[] = {
    {FD_SHA1, "password", 8, "salt", 4, 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"},
    {FD_SHA1, "password", 8, "salt", 4, 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"},
    {FD_SHA1, "password", 8, "salt", 4, 4096, "4b007901b765489abead49d926f721d065a429c1"},
    {FD_SHA1, "passwordPASSWORDpassword", 24, "saltSALTsaltSALTsaltSALTsaltSALTsalt", 36, 4096,
     "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"},
    {FD_SHA1, "pass\0word", 9, "sa\0lt", 5, 4096, "56fa6aa75548099dcc37d7f03425e0c3"},
    {FD_SHA256, "passwd", 6, "salt", 4, 1,
     "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
     "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"},
    {FD_SHA256, "Password", 8, "NaCl", 4, 80000,
     "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
     "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"},
};

enum { RANDOM_HMAC_CASES = 24, RANDOM_PBKDF2_CASES = 24 };

/* PBKDF2 through the portable kernel's one-block loop: no multi-buffer
 * kernel, whose lanes would otherwise derive several blocks at once. The
 * family's multi-buffer kernel is restored. */
static void pbkdf2_portable(enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                            const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                            size_t out_len)
{
    const enum fd_family family = fd_algorithms[id].family;
    const fd_kernel kernel = fd_active_kernels[family];
    const fd_multi_kernel multi = fd_active_multi_kernels[family];

    fd_use_kernel(family, portable_kernel(family));
    fd_use_multi_kernel(family, NULL);
    fd_pbkdf2_hmac(id, password, password_len, salt, salt_len, iterations, out, out_len);
    fd_active_kernels[family] = kernel;
    fd_active_multi_kernels[family] = multi;
}

/* The published vectors with the kernel installed; then, for any kernel but
 * the portable one, random keys of every size class (empty, shorter than a
 * block, a block, longer), messages, salts, iteration counts and output
 * lengths that are not multiples of the digest against the portable kernel.
 * A kernel's own PBKDF2 loop (fd_kernel.pbkdf2) and the SHA-NI key setup
 * both run here, and the portable kernel has neither: hmac.c's generic paths
 * are the reference (run_pbkdf2_paths_test covers the ways of deriving
 * several blocks at once). */
static void run_hmac_test(const test_algorithm *test, unsigned algorithm_index,
                          const fd_kernel *kernel, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    const enum fd_family family = algorithm->family;
    const size_t block_len = algorithm->block_len, digest_len = algorithm->digest_len;
    uint8_t expected[4 * FD_MAX_DIGEST_LEN], actual[4 * FD_MAX_DIGEST_LEN];

    fd_use_kernel(family, kernel);
    if (hmac_jefe_hex[test->id] != NULL) {
        static const char message[] = "what do ya want for nothing?";
        long expected_len = decode_hex(hmac_jefe_hex[test->id], expected);
        fd_hmac(test->id, (const uint8_t *)"Jefe", 4, (const uint8_t *)message, sizeof message - 1,
                actual);
        check(tally, expected_len == (long)digest_len && memcmp(expected, actual, digest_len) == 0,
              "HMAC-%s with %s: RFC test case 2 differs", algorithm->name, kernel->name);
    }
    for (size_t v = 0; v < sizeof pbkdf2_vectors / sizeof pbkdf2_vectors[0]; v++) {
        const struct pbkdf2_vector *vector = &pbkdf2_vectors[v];
        if (vector->id != test->id)
            continue;
        long expected_len = decode_hex(vector->derived_hex, expected);
        fd_pbkdf2_hmac(vector->id, (const uint8_t *)vector->password, vector->password_len,
                       (const uint8_t *)vector->salt, vector->salt_len, vector->iterations, actual,
                       (size_t)expected_len);
        check(tally, memcmp(expected, actual, (size_t)expected_len) == 0,
              "PBKDF2-HMAC-%s with %s: published vector %zu (%u iterations) differs",
              algorithm->name, kernel->name, v, vector->iterations);
    }
    if (same_kernel(family, kernel, portable_kernel(family)))
        return;

    test_rng rng = rng_for(4, algorithm_index);
    const size_t key_lens[] = {0, 1, block_len - 1, block_len, block_len + 1, 2 * block_len + 3};
    uint8_t key[2 * FD_MAX_BLOCK_LEN + 3], salt[FD_MAX_BLOCK_LEN + 9];
    uint8_t message[3 * FD_MAX_BLOCK_LEN];

    /* The first messages put the inner hash's padding in one block, at its
     * end, and across two (the HMAC's inner hash has one keyed block more). */
    const size_t edge_lens[] = {0, 1, 55, 56, 63, 64, 119, 120, 127, 128};
    for (int i = 0; i < RANDOM_HMAC_CASES; i++) {
        size_t key_len = key_lens[i % (sizeof key_lens / sizeof key_lens[0])];
        size_t message_len = (size_t)i < sizeof edge_lens / sizeof edge_lens[0]
                                 ? edge_lens[i]
                                 : rng_below(&rng, sizeof message + 1);
        rng_fill(&rng, key, key_len);
        rng_fill(&rng, message, message_len);
        fd_use_kernel(family, portable_kernel(family));
        fd_hmac(test->id, key, key_len, message, message_len, expected);
        fd_use_kernel(family, kernel);
        fd_hmac(test->id, key, key_len, message, message_len, actual);
        check(tally, memcmp(expected, actual, digest_len) == 0,
              "HMAC-%s with %s: case %d (%zu-byte key, %zu-byte message) differs from portable",
              algorithm->name, kernel->name, i, key_len, message_len);
    }
    for (int i = 0; i < RANDOM_PBKDF2_CASES; i++) {
        size_t password_len = key_lens[i % (sizeof key_lens / sizeof key_lens[0])];
        size_t salt_len = rng_below(&rng, sizeof salt + 1);
        uint32_t iterations = 1 + (uint32_t)rng_below(&rng, i < 8 ? 3 : 200);
        size_t out_len = 1 + rng_below(&rng, sizeof expected);
        rng_fill(&rng, key, password_len);
        rng_fill(&rng, salt, salt_len);
        pbkdf2_portable(test->id, key, password_len, salt, salt_len, iterations, expected, out_len);
        fd_use_kernel(family, kernel);
        fd_pbkdf2_hmac(test->id, key, password_len, salt, salt_len, iterations, actual, out_len);
        check(tally, memcmp(expected, actual, out_len) == 0,
              "PBKDF2-HMAC-%s with %s: case %d (%zu-byte password, %zu-byte salt, %u "
              "iterations, %zu bytes) differs from portable",
              algorithm->name, kernel->name, i, password_len, salt_len, iterations, out_len);
    }
}

/* Output lengths of PBKDF2 in digests, each less a byte, exactly, and a
 * byte more: one block and a cut one, two (SHA-NI's streams), up to four
 * (the SHA-512 family's lanes) and past them, a multi-buffer kernel's eight
 * and sixteen lanes and past those, so that every path meets full rounds,
 * a short last round and an odd block left alone. */
static const size_t pbkdf2_path_digests[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17};

/* Every way of deriving several PBKDF2 blocks at once (hash/hmac.c) against
 * the portable one-block loop, with the kernel installed: the kernel's own
 * lanes (fd_kernel.pbkdf2_lanes) and, with each multi-buffer kernel the CPU
 * runs and with none, that kernel's lanes (its own PBKDF2 loop, or
 * hash/hmac.c's loop over its compress function); each both with the
 * tables' minimum block counts and with every count from one block on (the
 * kernels' idle-lane handling). */
static void run_pbkdf2_paths_test(const test_algorithm *test, unsigned algorithm_index,
                                  const fd_kernel *kernel, group_tally *tally)
{
    const fd_algorithm *algorithm = &fd_algorithms[test->id];
    const enum fd_family family = algorithm->family;
    const size_t digest_len = algorithm->digest_len;
    const uint32_t iteration_counts[] = {1, 2, 3, 41};
    test_rng rng = rng_for(5, algorithm_index);
    uint8_t password[FD_MAX_BLOCK_LEN + 1], salt[40];
    uint8_t expected[18 * FD_MAX_DIGEST_LEN], actual[18 * FD_MAX_DIGEST_LEN];
    const fd_multi_kernel saved_multi = fd_active_multi_kernels[family];
    const fd_multi_kernel *multis[FD_BATCH_MAX_LANES + 1];
    size_t multi_count = 0;

    multis[multi_count++] = NULL;
    for (const fd_multi_kernel *multi = fd_multi_kernel_lists[family]; multi->name != NULL;
         multi++) {
        if (cpu_runs(multi->required_features))
            multis[multi_count++] = multi;
    }

    for (size_t m = 0; m < multi_count; m++) {
        for (int every_count = 0; every_count < 2; every_count++) {
            fd_kernel lanes_kernel = *kernel;
            fd_multi_kernel lanes_multi = {.name = NULL};
            if (multis[m] != NULL)
                lanes_multi = *multis[m];
            if (every_count) {
                if (lanes_kernel.pbkdf2_lanes.lanes != 0)
                    lanes_kernel.pbkdf2_lanes.min_blocks = 1;
                if (lanes_multi.name != NULL)
                    lanes_multi.pbkdf2.min_blocks = 1;
            }
            for (size_t d = 0; d < sizeof pbkdf2_path_digests / sizeof pbkdf2_path_digests[0];
                 d++) {
                for (int edge = -1; edge <= 1; edge++) {
                    size_t out_len = pbkdf2_path_digests[d] * digest_len + (size_t)edge;
                    uint32_t iterations = iteration_counts[rng_below(&rng, 4)];
                    size_t password_len = rng_below(&rng, sizeof password + 1);
                    size_t salt_len = rng_below(&rng, sizeof salt + 1);
                    rng_fill(&rng, password, password_len);
                    rng_fill(&rng, salt, salt_len);
                    pbkdf2_portable(test->id, password, password_len, salt, salt_len, iterations,
                                    expected, out_len);
                    fd_use_kernel(family, &lanes_kernel);
                    fd_use_multi_kernel(family, lanes_multi.name != NULL ? &lanes_multi : NULL);
                    fd_pbkdf2_hmac(test->id, password, password_len, salt, salt_len, iterations,
                                   actual, out_len);
                    check(tally, memcmp(expected, actual, out_len) == 0,
                          "PBKDF2-HMAC-%s with %s%s, multi-buffer %s%s: %zu bytes (%u "
                          "iterations) differ from portable",
                          algorithm->name, kernel->name,
                          lanes_kernel.pbkdf2_lanes.lanes != 0 ? " (own lanes)" : "",
                          lanes_multi.name != NULL ? lanes_multi.name : "none",
                          every_count ? ", every block count" : "", out_len, iterations);
                }
            }
        }
    }
    fd_use_kernel(family, kernel);
    fd_active_multi_kernels[family] = saved_multi;
}

/* ------------------------------------------------------------------------ */
/* The portable state format (state_format.h)                               */

/* The chaining words of a fresh state, as the format writes them (each word
 * big-endian, in the standard's order): MD5's A B C D from RFC 1321, 3.3
 * (there listed low-order byte first), the SHA initial hash values from
 * FIPS 180-4, 5.3.1 to 5.3.6. Indexed by enum fd_algorithm_id. */
static const char *const published_iv_hex[FD_ALGORITHM_COUNT] = {
    [FD_MD5] = "67452301efcdab8998badcfe10325476",
    [FD_SHA1] = "67452301efcdab8998badcfe10325476c3d2e1f0",
    [FD_SHA224] = "c1059ed8367cd5073070dd17f70e5939ffc00b316858151164f98fa7befa4fa4",
    [FD_SHA256] = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19",
    [FD_SHA384] = "cbbb9d5dc1059ed8629a292a367cd5079159015a3070dd17152fecd8f70e5939"
                  "67332667ffc00b318eb44a8768581511db0c2e0d64f98fa747b5481dbefa4fa4",
    [FD_SHA512] = "6a09e667f3bcc908bb67ae8584caa73b3c6ef372fe94f82ba54ff53a5f1d36f1"
                  "510e527fade682d19b05688c2b3e6c1f1f83d9abfb41bd6b5be0cd19137e2179",
    [FD_SHA512_224] = "8c3d37c819544da273e1996689dcd4d61dfab7ae32ff9c82679dd514582f9fcf"
                      "0f6d2b697bd44da877e36f7304c489423f9d85a86a1d36c81112e6ad91d692a1",
    [FD_SHA512_256] = "22312194fc2bf72c9f555fa3c84c64c22393b86b6f53b151963877195940eabd"
                      "96283ee2a88effe3be5e1e25538639922b0199fc2c85b8aa0eb72ddc81c52ca2",
};

/* The algorithm codes of the format (state_format.h), written out again here
 * so that a change of the table there is caught. */
static const uint8_t format_algorithm_codes[FD_ALGORITHM_COUNT] = {
    [FD_MD5] = 1,    [FD_SHA1] = 2,   [FD_SHA224] = 3,     [FD_SHA256] = 4,
    [FD_SHA384] = 5, [FD_SHA512] = 6, [FD_SHA512_224] = 7, [FD_SHA512_256] = 8,
};

static uint64_t load_be64_bytes(const uint8_t *p)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | p[i];
    return value;
}

static void store_be64_bytes(uint8_t *p, uint64_t value)
{
    for (int i = 7; i >= 0; i--, value >>= 8)
        p[i] = (uint8_t)value;
}

/* Imports blob and checks the outcome: the expected error, or, for
 * FD_STATE_OK, a state that exports to the same blob. Returns whether it
 * was as expected. */
static bool import_gives(const uint8_t *blob, size_t len, enum fd_state_error expected,
                         fd_hash_state *state, enum fd_algorithm_id *id)
{
    char reason[FD_STATE_REASON_LEN];
    reason[0] = '\0';
    enum fd_state_error error = fd_state_import(blob, len, id, state, reason, sizeof reason);
    if (error != expected)
        return false;
    if (error != FD_STATE_OK)
        return reason[0] != '\0' && strlen(reason) < sizeof reason;
    uint8_t again[FD_STATE_MAX_LEN];
    return fd_state_export(*id, state, again) == len && memcmp(again, blob, len) == 0;
}

/* A copy of blob with one byte replaced, imported. */
static bool import_with_byte(const uint8_t *blob, size_t len, size_t index, uint8_t value,
                             enum fd_state_error expected)
{
    uint8_t changed[FD_STATE_MAX_LEN + 8];
    fd_hash_state state;
    enum fd_algorithm_id id;
    memcpy(changed, blob, len);
    changed[index] = value;
    return import_gives(changed, len, expected, &state, &id);
}

/* Every header field and length the import refuses, on a valid blob of a
 * state that hashed message_len bytes of message. */
static void check_state_refusals(const fd_algorithm *algorithm, const uint8_t *blob, size_t len,
                                 size_t message_len, group_tally *tally)
{
    const char *name = algorithm->name;
    const size_t block_len = algorithm->block_len;
    fd_hash_state state;
    enum fd_algorithm_id id;
    uint8_t changed[FD_STATE_MAX_LEN + 8];

    for (size_t cut = 0; cut < len; cut++) {
        enum fd_state_error expected = cut < FD_STATE_HEADER_LEN ? FD_STATE_SHORT_HEADER
                                                                 : FD_STATE_TRUNCATED;
        check(tally, import_gives(blob, cut, expected, &state, &id),
              "%s after %zu bytes: blob cut to %zu bytes", name, message_len, cut);
    }
    memcpy(changed, blob, len);
    for (size_t extra = 1; extra <= 8; extra++) {
        changed[len + extra - 1] = (uint8_t)extra;
        check(tally, import_gives(changed, len + extra, FD_STATE_PADDED, &state, &id),
              "%s after %zu bytes: %zu bytes appended", name, message_len, extra);
    }
    for (size_t i = 0; i < 4; i++)
        check(tally, import_with_byte(blob, len, i, (uint8_t)(blob[i] ^ 0x20), FD_STATE_BAD_MAGIC),
              "%s: magic byte %zu changed", name, i);
    check(tally, import_gives((const uint8_t *)"FDX", 3, FD_STATE_BAD_MAGIC, &state, &id),
          "a 3-byte blob that is no magic prefix");
    static const uint8_t bad_versions[] = {0, 2, 255};
    for (size_t i = 0; i < sizeof bad_versions; i++)
        check(tally, import_with_byte(blob, len, 4, bad_versions[i], FD_STATE_UNKNOWN_VERSION),
              "%s: version %u", name, bad_versions[i]);
    /* 0, the first code past the table's (1 to the number of algorithms),
     * and two far off. */
    static const uint8_t bad_codes[] = {0, FD_ALGORITHM_COUNT + 1, 128, 255};
    for (size_t i = 0; i < sizeof bad_codes; i++)
        check(tally, import_with_byte(blob, len, 5, bad_codes[i], FD_STATE_UNKNOWN_ALGORITHM),
              "%s: algorithm code %u", name, bad_codes[i]);

    /* Tail lengths of a block or more, in either byte of the field. */
    const size_t long_tails[] = {block_len, block_len + 1, 255, 256, 0xffff};
    for (size_t i = 0; i < sizeof long_tails / sizeof long_tails[0]; i++) {
        memcpy(changed, blob, len);
        changed[6] = (uint8_t)(long_tails[i] >> 8);
        changed[7] = (uint8_t)long_tails[i];
        check(tally, import_gives(changed, len, FD_STATE_TAIL_TOO_LONG, &state, &id),
              "%s: tail length %zu", name, long_tails[i]);
    }
    /* A tail length or a byte count changed alone: they disagree. */
    size_t tail_len = message_len % block_len;
    memcpy(changed, blob, len);
    changed[7] = (uint8_t)((tail_len + 1) % block_len);
    check(tally, import_gives(changed, len, FD_STATE_TAIL_MISMATCH, &state, &id),
          "%s after %zu bytes: tail length + 1", name, message_len);
    uint64_t byte_count = load_be64_bytes(blob + 8);
    const uint64_t other_counts[] = {byte_count + 1, byte_count ^ (block_len >> 1),
                                     byte_count + block_len - 1};
    for (size_t i = 0; i < sizeof other_counts / sizeof other_counts[0]; i++) {
        memcpy(changed, blob, len);
        store_be64_bytes(changed + 8, other_counts[i]);
        check(tally, import_gives(changed, len, FD_STATE_TAIL_MISMATCH, &state, &id),
              "%s after %zu bytes: byte count %llu", name, message_len,
              (unsigned long long)other_counts[i]);
    }
    /* Byte counts at and past 2^61, with the same tail: too long a message
     * for a family limited to 2^64 bits (SHA-1, SHA-224/256), fine for the
     * others (MD5, the SHA-512 family). */
    bool limited = fd_family(algorithm->family)->max_byte_count < UINT64_MAX;
    const uint64_t large_counts[] = {
        (UINT64_C(1) << 61) + tail_len, UINT64_MAX - (block_len - 1) + tail_len,
        (UINT64_C(1) << 61) - block_len + tail_len, /* the last within the limit */
    };
    for (size_t i = 0; i < sizeof large_counts / sizeof large_counts[0]; i++) {
        memcpy(changed, blob, len);
        store_be64_bytes(changed + 8, large_counts[i]);
        bool within_limit = i == 2 || !limited;
        /* A fresh chain past the first block is unusual but not refused. */
        check(tally,
              import_gives(changed, len, within_limit ? FD_STATE_OK : FD_STATE_COUNT_TOO_LARGE,
                           &state, &id),
              "%s: byte count %llu", name, (unsigned long long)large_counts[i]);
    }
    /* Before a whole block is hashed, the chain must be the initial one. */
    if (message_len < block_len) {
        for (size_t i = FD_STATE_HEADER_LEN; i < len - tail_len; i++)
            check(
                tally,
                import_with_byte(blob, len, i, (uint8_t)(blob[i] ^ 1), FD_STATE_CHAIN_NOT_INITIAL),
                "%s after %zu bytes: chain byte %zu changed", name, message_len, i);
    }
    /* Without room for a reason, the error is still reported. */
    check(tally, fd_state_import(blob, len - 1, &id, &state, NULL, 0) == FD_STATE_TRUNCATED,
          "%s: a cut blob without a reason buffer", name);
    char small[8];
    check(tally,
          fd_state_import(blob, len + 1, &id, &state, small, sizeof small) == FD_STATE_PADDED &&
              strlen(small) == sizeof small - 1,
          "%s: the reason cut to a small buffer", name);
}

/* Random corruption of valid blobs: flipped bytes, cuts and extensions. Each
 * either is refused with a reason or is a valid blob, which must then be
 * canonical and hash on. Under the sanitizers, this also checks that no
 * blob makes the import read or write out of bounds. */
static void fuzz_state_import(const uint8_t *blob, size_t len, test_rng *rng, group_tally *tally)
{
    for (int i = 0; i < 200; i++) {
        uint8_t changed[FD_STATE_MAX_LEN + 16];
        size_t changed_len = len;
        memcpy(changed, blob, len);
        switch (rng_below(rng, 3)) {
        case 0:
            for (size_t flips = 1 + rng_below(rng, 3); flips != 0; flips--)
                changed[rng_below(rng, len)] ^= (uint8_t)(1 + rng_below(rng, 255));
            break;
        case 1:
            changed_len = rng_below(rng, len);
            break;
        default:
            changed_len = len + 1 + rng_below(rng, 16);
            rng_fill(rng, changed + len, changed_len - len);
            break;
        }
        /* An exact-size heap copy, so that AddressSanitizer sees any read
         * past the end. */
        uint8_t *heap = checked_malloc(changed_len);
        memcpy(heap, changed, changed_len);
        fd_hash_state state;
        enum fd_algorithm_id id;
        char reason[FD_STATE_REASON_LEN] = "";
        enum fd_state_error error = fd_state_import(heap, changed_len, &id, &state, reason,
                                                    sizeof reason);
        bool ok;
        if (error == FD_STATE_OK) {
            uint8_t again[FD_STATE_MAX_LEN], digest[FD_MAX_DIGEST_LEN];
            ok = fd_state_export(id, &state, again) == changed_len &&
                 memcmp(again, heap, changed_len) == 0;
            fd_algorithms[id].update(&state, heap, changed_len);
            fd_algorithms[id].final(&state, digest);
        }
        else {
            ok = reason[0] != '\0';
        }
        check(tally, ok, "corrupted blob %d (%zu bytes): error %d, %s", i, changed_len, (int)error,
              reason);
        free(heap);
    }
}

/* Hashes message[0..len) with the given kernel installed, in updates of
 * piece bytes (0: one update), and exports the state. */
static size_t export_after(const fd_algorithm *algorithm, const fd_kernel *kernel,
                           const uint8_t *message, size_t len, size_t piece, uint8_t *blob)
{
    fd_use_kernel(algorithm->family, kernel);
    fd_hash_state state;
    algorithm->init(&state);
    size_t done = 0;
    while (done < len) {
        size_t n = piece == 0 || len - done < piece ? len - done : piece;
        algorithm->update(&state, message + done, n);
        done += n;
    }
    return fd_state_export((enum fd_algorithm_id)(algorithm - fd_algorithms), &state, blob);
}

/* The format against its specification, for every algorithm: the layout of
 * fresh states against the published initial values; every message length
 * up to three blocks: the fields, the same blob whatever kernel hashed and
 * however the message was split (so stale buffer bytes never leak), import
 * and continuation against the one-shot digest; every refusal; corruption. */
static void run_state_format_test(void)
{
    group_tally tally = {0, 0};

    for (unsigned a = 0; a < TEST_ALGORITHM_COUNT; a++) {
        enum fd_algorithm_id algorithm_index = test_algorithms[a].id;
        const fd_algorithm *algorithm = &fd_algorithms[algorithm_index];
        const size_t block_len = algorithm->block_len;
        const fd_kernel selected_kernel = fd_active_kernels[algorithm->family];
        test_rng rng = rng_for(7, a);

        uint8_t iv[64];
        long iv_len = decode_hex(published_iv_hex[algorithm_index], iv);
        const size_t message_max = 3 * block_len + 1;
        uint8_t *message = checked_malloc(message_max);
        rng_fill(&rng, message, message_max);

        for (size_t len = 0; len <= message_max; len++) {
            uint8_t blob[FD_STATE_MAX_LEN], other[FD_STATE_MAX_LEN];
            size_t blob_len = export_after(algorithm, portable_kernel(algorithm->family), message,
                                           len, 0, blob);
            size_t tail_len = len % block_len;
            bool fields_ok = blob_len == FD_STATE_HEADER_LEN + (size_t)iv_len + tail_len &&
                             blob_len == fd_state_len(algorithm_index, len) &&
                             memcmp(blob, "FDST", 4) == 0 && blob[4] == 1 &&
                             blob[5] == format_algorithm_codes[algorithm_index] &&
                             ((size_t)blob[6] << 8 | blob[7]) == tail_len &&
                             load_be64_bytes(blob + 8) == len &&
                             memcmp(blob + blob_len - tail_len, message + len - tail_len,
                                    tail_len) == 0;
            if (len < block_len)
                fields_ok = fields_ok &&
                            memcmp(blob + FD_STATE_HEADER_LEN, iv, (size_t)iv_len) == 0;
            check(&tally, fields_ok, "%s after %zu bytes: blob fields", algorithm->name, len);

            /* Every kernel this CPU runs, and byte-wise updates (which leave
             * the previous block in the buffer past the tail), give the same
             * blob. */
            for (const fd_kernel *kernel = fd_kernel_lists[algorithm->family]; kernel->name != NULL;
                 kernel++) {
                if (!cpu_runs(kernel->required_features))
                    continue;
                for (size_t piece = 0; piece <= 1; piece++) {
                    size_t other_len = export_after(algorithm, kernel, message, len, piece, other);
                    check(&tally, other_len == blob_len && memcmp(other, blob, blob_len) == 0,
                          "%s after %zu bytes with %s in pieces of %zu: another blob",
                          algorithm->name, len, kernel->name, piece);
                }
            }
            fd_use_kernel(algorithm->family, &selected_kernel);

            /* Imported into states full of different garbage, continued with
             * the rest of the message: the one-shot digest. */
            uint8_t expected[FD_MAX_DIGEST_LEN];
            fd_hash(algorithm_index, message, message_max, expected);
            for (int fill = 0x00; fill <= 0xff; fill += 0xff) {
                fd_hash_state state;
                enum fd_algorithm_id id = FD_ALGORITHM_COUNT;
                memset(&state, fill, sizeof state);
                bool imported = import_gives(blob, blob_len, FD_STATE_OK, &state, &id) &&
                                id == algorithm_index;
                uint8_t actual[FD_MAX_DIGEST_LEN] = {0};
                if (imported) {
                    algorithm->update(&state, message + len, message_max - len);
                    algorithm->final(&state, actual);
                }
                check(&tally, imported && memcmp(actual, expected, algorithm->digest_len) == 0,
                      "%s resumed after %zu bytes (memory filled with %#x): %s", algorithm->name,
                      len, fill, imported ? "wrong digest" : "import failed");
            }

            if (len == 0 || len == block_len - 1 || len == block_len || len == 2 * block_len + 5)
                check_state_refusals(algorithm, blob, blob_len, len, &tally);
            if (len % 17 == 0)
                fuzz_state_import(blob, blob_len, &rng, &tally);
        }
        free(message);
    }
    report_group("all", "selected", "state-format", "state_format.c", &tally);
}

/* fd_hex_encode (its vector path: SSE2 on x86-64, Advanced SIMD on
 * AArch64, none on s390x) against snprintf's "%02x", at every length up to
 * five vectors and every start within one, of random bytes and of every
 * byte value; the bytes after the 2 * len digits must stay untouched. */
static void run_hex_test(void)
{
    group_tally tally = {0, 0};
    enum { MAX_LEN = 80, MAX_SHIFT = 16 };
    uint8_t bytes[MAX_SHIFT + 256];
    char actual[2 * 256 + 2], expected[2 * 256 + 3];
    test_rng rng = rng_for(10, 0);
    rng_fill(&rng, bytes, sizeof bytes);
    for (size_t shift = 0; shift < MAX_SHIFT; shift++) {
        for (size_t len = 0; len <= MAX_LEN; len++) {
            for (size_t i = 0; i < len; i++)
                snprintf(expected + 2 * i, 3, "%02x", bytes[shift + i]);
            memset(actual, '#', sizeof actual);
            fd_hex_encode(bytes + shift, len, actual);
            check(&tally, memcmp(actual, expected, 2 * len) == 0 && actual[2 * len] == '#',
                  "hex of %zu bytes at offset %zu: %.*s", len, shift, (int)(2 * len + 1), actual);
        }
    }
    for (size_t i = 0; i < 256; i++) {
        bytes[i] = (uint8_t)i;
        snprintf(expected + 2 * i, 3, "%02x", (unsigned)i);
    }
    fd_hex_encode(bytes, 256, actual);
    check(&tally, memcmp(actual, expected, 512) == 0, "hex of the 256 byte values: %.512s", actual);
    report_group("all", "selected", "hex", "hex.c", &tally);
}

/* ------------------------------------------------------------------------ */
/* The Arrow encoding (arrow_encode.c), on the machine's byte order         */

/* Arrow buffers are in the machine's byte order and the encoding is
 * little-endian on every machine (docs/encoding.md): arrays built here in
 * native order, imported and encoded, against bytes written out by hand
 * from the page's rules. On s390x this is the check that loads are native
 * and stores little-endian. */

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* A width-byte native integer from little-endian bytes (a decimal's). */
static void native_from_le(uint8_t *out, const uint8_t *le, size_t width)
{
    for (size_t k = 0; k < width; k++)
        out[k] = host_little_endian() ? le[k] : le[width - 1 - k];
}

static void no_release_schema(struct ArrowSchema *schema)
{
    schema->release = NULL;
}

static void no_release_array(struct ArrowArray *array)
{
    array->release = NULL;
}

static void grow_sink(fd_sink *sink)
{
    sink->capacity = sink->capacity ? 2 * sink->capacity : 64;
    sink->buffer = realloc(sink->buffer, sink->capacity);
    if (sink->buffer == NULL)
        abort();
}

/* The field() of each value of a one-buffer-of-values array (validity
 * NULL) of the format, against expected: the hex of each field, joined. */
static void check_fields(group_tally *tally, const char *format, int64_t length, const void *values,
                         size_t n_buffers, const void *extra, const char *expected)
{
    const void *buffers[3] = {NULL, values, extra};
    struct ArrowSchema schema = {.format = format, .release = no_release_schema};
    struct ArrowArray array = {.length = length,
                               .n_buffers = (int64_t)n_buffers,
                               .buffers = buffers,
                               .release = no_release_array};
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(&schema, NULL, 0, &error);
    fd_arrow_array *checked = type != NULL ? fd_arrow_import_array(&array, type, &error) : NULL;
    if (checked == NULL) {
        check(tally, false, "arrow %s: import refused: %s", format, error.message);
        fd_arrow_type_free(type);
        return;
    }
    fd_sink sink = {.make_room = grow_sink};
    for (int64_t i = 0; i < length; i++)
        fd_arrow_encode_field(checked, i, &sink);
    char actual[512] = {0};
    for (size_t k = 0; k < sink.used && 2 * k + 2 < sizeof actual; k++)
        snprintf(actual + 2 * k, 3, "%02x", sink.buffer[k]);
    check(tally, strcmp(actual, expected) == 0, "arrow %s: fields %s, not %s", format, actual,
          expected);
    free(sink.buffer);
    fd_arrow_array_free(checked);
    fd_arrow_type_free(type);
}

static void run_arrow_encoding_test(void)
{
    group_tally tally = {0, 0};
    const int16_t int16s[2] = {-2, 300};
    check_fields(&tally, "s", 2, int16s, 2, NULL,
                 "01feffffffffffffff"
                 "012c01000000000000");
    const uint32_t uint32s[1] = {0xffffffffu};
    check_fields(&tally, "I", 1, uint32s, 2, NULL, "01ffffffff00000000");
    const uint8_t bools[1] = {0x2};
    check_fields(&tally, "b", 2, bools, 2, NULL,
                 "0100"
                 "0101");
    /* float16: 1.5, -0.0, the smallest subnormal (2**-24), a NaN. */
    const uint16_t halves[4] = {0x3e00, 0x8000, 0x0001, 0x7e01};
    check_fields(&tally, "e", 4, halves, 2, NULL,
                 "01000000000000f83f"
                 "010000000000000000"
                 "01000000000000703e"
                 "01000000000000f87f");
    const float singles[2] = {1.5f, -0.0f};
    check_fields(&tally, "f", 2, singles, 2, NULL,
                 "01000000000000f83f"
                 "010000000000000000");
    const double doubles[1] = {-2.0};
    check_fields(&tally, "g", 1, doubles, 2, NULL, "0100000000000000c0");
    /* decimal128: -1, 256, 127, -129 as the fewest big-endian bytes. */
    static const uint8_t decimals_le[4][16] = {
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
         0xff},
        {0x00, 0x01},
        {0x7f},
        {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
         0xff},
    };
    uint8_t decimals[4][16];
    for (size_t k = 0; k < 4; k++)
        native_from_le(decimals[k], decimals_le[k], 16);
    check_fields(&tally, "d:38,2", 4, decimals, 2, NULL,
                 "010100000000000000ff"
                 "0102000000000000000100"
                 "0101000000000000007f"
                 "010200000000000000ff7f");
    /* decimal256 of 2**200: 26 bytes, 01 then 25 zeros. */
    uint8_t wide_le[32] = {0}, wide[32];
    wide_le[25] = 1;
    native_from_le(wide, wide_le, 32);
    check_fields(&tally, "d:76,0,256", 1, wide, 2, NULL,
                 "011a00000000000000"
                 "01"
                 "00000000000000000000000000000000000000000000000000");
    /* date32 -1; timestamp in seconds 1 and -1 as 16-byte nanoseconds. */
    const int32_t days[1] = {-1};
    check_fields(&tally, "tdD", 1, days, 2, NULL, "0100a4d9faffffffff");
    const int64_t seconds[2] = {1, -1};
    check_fields(&tally, "tss:UTC", 2, seconds, 2, NULL,
                 "0100ca9a3b000000000000000000000000"
                 "01003665c4ffffffffffffffffffffffff");
    /* Intervals: 14 months; 3 days and 1500 ms; 1 month, -2 days, 3 ns. */
    const int32_t months[1] = {14};
    check_fields(&tally, "tiM", 1, months, 2, NULL, "010e000000000000000000000000000000");
    const int32_t day_time[2] = {3, 1500};
    check_fields(&tally, "tiD", 1, day_time, 2, NULL, "010000000003000000002f685900000000");
    struct {
        int32_t months, days;
        int64_t nanoseconds;
    } month_day_nano[1] = {{1, -2, 3}};
    check_fields(&tally, "tin", 1, month_day_nano, 2, NULL, "0101000000feffffff0300000000000000");
    /* utf8 "ab" and "": their length before them. */
    const int32_t offsets[3] = {0, 2, 2};
    check_fields(&tally, "u", 2, offsets, 3, "ab",
                 "0102000000000000006162"
                 "010000000000000000");
    report_group("all", "selected", "arrow-encoding", "arrow_encode.c", &tally);
}

/* ------------------------------------------------------------------------ */
/* Driving every kernel                                                     */

static bool monte_for_selected_only = false;

/* The test groups: a report line each, per kernel. */
enum test_group {
    GROUP_SHORT_MSG,
    GROUP_LONG_MSG,
    GROUP_MONTE,
    GROUP_SUITE,
    GROUP_SPLITS,
    GROUP_MILLION_A,
    GROUP_RANDOM,
    GROUP_HMAC,
    GROUP_PBKDF2_LANES,
    GROUP_KNOWN_ANSWERS,
    GROUP_COUNT
};

static const char *const group_names[GROUP_COUNT] = {
    "ShortMsg",  "LongMsg",     "Monte",       "suite",        "splits",
    "million-a", "vs-portable", "hmac-pbkdf2", "pbkdf2-lanes", "known-answers",
};

/* The import's known-answer check (hash/known_answers.h) passes for the
 * kernel, on this CPU (and under qemu, on the ARM kernels and big-endian
 * s390x), so that it refuses no right kernel; and fails when spoiled, so
 * that it can fail. The self-test's PBKDF2 check passes too. */
static void run_known_answers_test(enum fd_family family, const fd_kernel *kernel,
                                   group_tally *tally)
{
    char reason[FD_KERNEL_FAILURE_REASON_LEN] = "";

    check(tally, fd_check_kernel(family, kernel, false, reason, sizeof reason),
          "the known-answer check refuses %s: %s", kernel->name, reason);
    reason[0] = '\0';
    check(tally, !fd_check_kernel(family, kernel, true, reason, sizeof reason) && reason[0] != 0,
          "the known-answer check, spoiled, passes %s", kernel->name);
    check(tally, fd_check_pbkdf2(family, kernel, NULL, reason, sizeof reason),
          "the PBKDF2 check refuses %s: %s", kernel->name, reason);
}

static void run_kernel(enum fd_family family, const fd_kernel *kernel, bool run_monte)
{
    group_tally tallies[GROUP_COUNT] = {{0, 0}};
    bool group_ran[GROUP_COUNT] = {false};
    char algorithms_named[128] = "";
    clock_t started = clock();

    fd_use_kernel(family, kernel);
    for (unsigned a = 0; a < TEST_ALGORITHM_COUNT; a++) {
        const test_algorithm *test = &test_algorithms[a];
        if (fd_algorithms[test->id].family != family)
            continue;
        const char *name = fd_algorithms[test->id].name;
        snprintf(algorithms_named + strlen(algorithms_named),
                 sizeof algorithms_named - strlen(algorithms_named), "%s%s",
                 algorithms_named[0] ? " " : "", name);

        if (test->cavp_prefix != NULL) {
            char file[64];
            snprintf(file, sizeof file, "%sShortMsg.rsp", test->cavp_prefix);
            run_message_file(test, test->dir, file, &tallies[GROUP_SHORT_MSG]);
            snprintf(file, sizeof file, "%sLongMsg.rsp", test->cavp_prefix);
            run_message_file(test, test->dir, file, &tallies[GROUP_LONG_MSG]);
            group_ran[GROUP_SHORT_MSG] = group_ran[GROUP_LONG_MSG] = true;
            if (run_monte) {
                snprintf(file, sizeof file, "%sMonte.rsp", test->cavp_prefix);
                run_monte_file(test, file, &tallies[GROUP_MONTE]);
                group_ran[GROUP_MONTE] = true;
            }
        }
        else {
            run_message_file(test, test->dir, test->suite_file, &tallies[GROUP_SUITE]);
            group_ran[GROUP_SUITE] = true;
        }
        run_split_test(test, a, &tallies[GROUP_SPLITS]);
        run_million_a_test(test, &tallies[GROUP_MILLION_A]);
        group_ran[GROUP_SPLITS] = group_ran[GROUP_MILLION_A] = true;
        if (!same_kernel(family, kernel, portable_kernel(family))) {
            run_random_hash_test(test, a, kernel, &tallies[GROUP_RANDOM]);
            group_ran[GROUP_RANDOM] = true;
        }
        run_hmac_test(test, a, kernel, &tallies[GROUP_HMAC]);
        run_pbkdf2_paths_test(test, a, kernel, &tallies[GROUP_PBKDF2_LANES]);
        group_ran[GROUP_HMAC] = group_ran[GROUP_PBKDF2_LANES] = true;
    }
    if (group_ran[GROUP_RANDOM])
        run_random_kernel_test(family, kernel, &tallies[GROUP_RANDOM]);
    run_known_answers_test(family, kernel, &tallies[GROUP_KNOWN_ANSWERS]);
    group_ran[GROUP_KNOWN_ANSWERS] = true;

    for (int g = 0; g < GROUP_COUNT; g++) {
        if (group_ran[g])
            report_group(family_names[family], kernel->name, group_names[g], algorithms_named,
                         &tallies[g]);
    }
    if (!run_monte)
        printf("[%s/%s] Monte        not run (--monte=selected: run with the selected kernel)\n",
               family_names[family], kernel->name);
    printf("[%s/%s] %.1f s CPU\n", family_names[family], kernel->name,
           (double)(clock() - started) / CLOCKS_PER_SEC);
}

int main(int argc, char **argv)
{
    harness_start("test_core", 0x66645f636f726531u); /* "fd_core1" */
    for (int i = 1; i < argc; i++) {
        if (take_seed_option(argv[i]))
            continue;
        if (strcmp(argv[i], "--monte=all") == 0) {
            monte_for_selected_only = false;
        }
        else if (strcmp(argv[i], "--monte=selected") == 0) {
            monte_for_selected_only = true;
        }
        else if (argv[i][0] == '-') {
            fail_setup("unknown option %s", argv[i]);
        }
        else if (vectors_dir == NULL) {
            vectors_dir = argv[i];
        }
        else {
            fail_setup("more than one vectors directory: %s", argv[i]);
        }
    }
    if (vectors_dir == NULL) {
        fail_setup("no vectors directory given (usage: test_core VECTORS_DIR [--seed=N] "
                   "[--monte=all|selected])");
        vectors_dir = "(missing)";
    }

    /* Every algorithm of FD_ALGORITHMS is tested against its published
     * digests: one without a row of test_algorithms would go untested. */
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        unsigned a = 0;
        while (a < TEST_ALGORITHM_COUNT && test_algorithms[a].id != (enum fd_algorithm_id)id)
            a++;
        if (a == TEST_ALGORITHM_COUNT)
            fail_setup("%s has no row of test_algorithms (tests/c/test_core.c): its published "
                       "digests",
                       fd_algorithms[id].name);
    }

    printf("CPU features: ");
    print_features(fd_cpu_features());
    printf("\nvectors: %s\n", vectors_dir);
    print_seed();

    /* Which kernel each family would hash with: with --monte=selected, the
     * one that runs the Monte tests. */
    fd_select_kernels(false);
    fd_kernel selected[FD_FAMILY_COUNT];
    memcpy(selected, fd_active_kernels, sizeof selected);
    printf("selected kernels:");
    for (int f = 0; f < FD_FAMILY_COUNT; f++)
        printf(" %s=%s", family_names[f], selected[f].name);
    printf("\n");
    fflush(stdout);

    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        enum fd_family family = (enum fd_family)f;
        for (const fd_kernel *kernel = fd_kernel_lists[f]; kernel->name != NULL; kernel++) {
            if (!cpu_runs_or_say_skipped(family, kernel->name, kernel->required_features))
                continue;
            bool run_monte = !monte_for_selected_only || same_kernel(family, kernel, &selected[f]);
            run_kernel(family, kernel, run_monte);
        }
    }
#ifdef TEST_HAVE_SHA512NI_MODEL
    /* The SHA512-instruction kernel on its model of the instructions, which
     * runs where they do not (model_kernels.c). */
    const fd_kernel *model = &test_sha512ni_model_kernel;
    if (cpu_runs_or_say_skipped(FD_FAMILY_SHA512, model->name, model->required_features))
        run_kernel(FD_FAMILY_SHA512, model, !monte_for_selected_only);
#endif
    fd_select_kernels(false);
    run_state_format_test();
    run_hex_test();
    run_arrow_encoding_test();

    return finish_run("C core");
}
