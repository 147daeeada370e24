/* The portable state format (state_format.h has the layout). */
#include "hash/state_format.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernels/compiler.h"
#include "kernels/endian.h"

static const uint8_t state_magic[4] = {'F', 'D', 'S', 'T'};

/* The format's algorithm codes, from the rows of FD_ALGORITHMS: part of
 * the format, and so written there rather than derived from enum
 * fd_algorithm_id, whose order may change. They are 1 to the number of
 * algorithms, each once (algorithm_from_code's switch does not compile
 * with one twice); 0 is never one, so a zeroed header is refused. */
#define ALGORITHM_CODE_CHECK(name, NAME, family, FAMILY, digest_len, state_code, ...) \
    _Static_assert((state_code) >= 1 && (state_code) <= FD_ALGORITHM_COUNT,           \
                   #name "'s state code is one of 1 to the number of algorithms");
FD_ALGORITHMS(ALGORITHM_CODE_CHECK)
#undef ALGORITHM_CODE_CHECK
#define ALGORITHM_CODE(name, NAME, family, FAMILY, digest_len, state_code, ...) \
    [FD_##NAME] = (state_code),
static const uint8_t algorithm_codes[FD_ALGORITHM_COUNT] = {FD_ALGORITHMS(ALGORITHM_CODE)};
#undef ALGORITHM_CODE

/* Each family's fields are where its description (hash/family.h) says its
 * struct keeps them inside fd_hash_state, so that one export and one import
 * serve every family. The fields are read and written through memcpy at
 * those offsets: that is byte access to the object's representation, which
 * C allows for any type and alignment. A chain is its words one after the
 * other, 4 or 8 bytes each, which the format writes big-endian.
 *
 * The format's sizes, which state_format.h's layout and FD_STATE_MAX_LEN
 * spell out: a 16-byte header, a chain of the family's words, and a tail
 * shorter than a block. */
_Static_assert(FD_STATE_HEADER_LEN == 4 + 1 + 1 + 2 + 8, "the header's fields");
#define STATE_FITS(name, NAME, word_type, chain_words, block_len, ...)                        \
    _Static_assert(FD_STATE_HEADER_LEN + sizeof(fd_##name##_chain) + (block_len)-1 <=         \
                       FD_STATE_MAX_LEN,                                                      \
                   "FD_STATE_MAX_LEN holds a " #name " state");                               \
    _Static_assert((block_len)-1 <= 0xffff, "a " #name " tail length fits the 2-byte field"); \
    _Static_assert(sizeof(word_type) == 4 || sizeof(word_type) == 8,                          \
                   "the format writes " #name "'s chain as 32- or 64-bit words");
FD_FAMILIES(STATE_FITS)
#undef STATE_FITS

size_t fd_state_len(enum fd_algorithm_id id, uint64_t byte_count)
{
    assert((unsigned)id < FD_ALGORITHM_COUNT);
    const fd_algorithm *algorithm = &fd_algorithms[id];
    size_t tail_len = (size_t)(byte_count & (algorithm->block_len - 1));
    return FD_STATE_HEADER_LEN + fd_family(algorithm->family)->chain_len + tail_len;
}

size_t fd_state_export(enum fd_algorithm_id id, const fd_hash_state *state,
                       uint8_t out[FD_STATE_MAX_LEN])
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_family_info *layout = fd_family(algorithm->family);
    const uint8_t *fields = (const uint8_t *)state;
    uint64_t byte_count;

    assert(algorithm_codes[id] != 0);
    memcpy(&byte_count, fields + layout->count_offset, sizeof byte_count);
    size_t tail_len = (size_t)(byte_count & (algorithm->block_len - 1));

    memcpy(out, state_magic, sizeof state_magic);
    out[4] = FD_STATE_FORMAT_VERSION;
    out[5] = algorithm_codes[id];
    out[6] = (uint8_t)(tail_len >> 8);
    out[7] = (uint8_t)tail_len;
    fd_store_be64(out + 8, byte_count);

    uint8_t *cursor = out + FD_STATE_HEADER_LEN;
    const uint8_t *chain = fields + layout->chain_offset;
    for (size_t i = 0; i < layout->chain_words; i++, chain += layout->word_len) {
        if (layout->word_len == 4) {
            uint32_t word;
            memcpy(&word, chain, sizeof word);
            fd_store_be32(cursor, word);
        }
        else {
            uint64_t word;
            memcpy(&word, chain, sizeof word);
            fd_store_be64(cursor, word);
        }
        cursor += layout->word_len;
    }
    memcpy(cursor, fields + layout->block_offset, tail_len);
    return (size_t)(cursor - out) + tail_len;
}

FD_PRINTF_LIKE(4, 5)
static enum fd_state_error refuse(enum fd_state_error error, char *reason, size_t reason_len,
                                  const char *fmt, ...)
{
    if (reason_len != 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(reason, reason_len, fmt, args);
        va_end(args);
    }
    return error;
}

static bool algorithm_from_code(uint8_t code, enum fd_algorithm_id *id)
{
    switch (code) {
#define CODE_CASE(name, NAME, family, FAMILY, digest_len, state_code, ...) \
    case (state_code):                                                     \
        *id = FD_##NAME;                                                   \
        return true;
        FD_ALGORITHMS(CODE_CASE)
#undef CODE_CASE
    default:
        return false;
    }
}

enum fd_state_error fd_state_import(const uint8_t *blob, size_t len, enum fd_algorithm_id *id,
                                    fd_hash_state *state, char *reason, size_t reason_len)
{
    assert(blob != NULL || len == 0);
    assert(reason != NULL || reason_len == 0);
    /* The magic is checked on whatever part of it the blob has, so that a
     * short blob of something else is called that, not a cut state. */
    size_t magic_present = len < sizeof state_magic ? len : sizeof state_magic;
    if (magic_present != 0 && memcmp(blob, state_magic, magic_present) != 0)
        return refuse(FD_STATE_BAD_MAGIC, reason, reason_len,
                      "it does not start with the magic bytes FDST");
    if (len < FD_STATE_HEADER_LEN)
        return refuse(FD_STATE_SHORT_HEADER, reason, reason_len,
                      "truncated: %zu bytes, shorter than the %d-byte header", len,
                      FD_STATE_HEADER_LEN);
    if (blob[4] != FD_STATE_FORMAT_VERSION)
        return refuse(FD_STATE_UNKNOWN_VERSION, reason, reason_len,
                      "format version %u is not supported (this fastdigest reads version %d)",
                      (unsigned)blob[4], FD_STATE_FORMAT_VERSION);

    enum fd_algorithm_id found;
    if (!algorithm_from_code(blob[5], &found))
        return refuse(FD_STATE_UNKNOWN_ALGORITHM, reason, reason_len,
                      "unknown algorithm code %u (1 to %d are defined)", (unsigned)blob[5],
                      FD_ALGORITHM_COUNT);
    const fd_algorithm *algorithm = &fd_algorithms[found];
    const fd_family_info *layout = fd_family(algorithm->family);
    size_t block_len = algorithm->block_len;

    size_t tail_len = (size_t)blob[6] << 8 | blob[7];
    uint64_t byte_count = fd_load_be64(blob + 8);
    if (tail_len >= block_len)
        return refuse(FD_STATE_TAIL_TOO_LONG, reason, reason_len,
                      "a buffered tail of %zu bytes is not shorter than %s's %zu-byte block",
                      tail_len, algorithm->name, block_len);
    size_t count_remainder = (size_t)(byte_count & (block_len - 1));
    if (tail_len != count_remainder)
        return refuse(FD_STATE_TAIL_MISMATCH, reason, reason_len,
                      "a buffered tail of %zu bytes does not match the byte count %" PRIu64
                      ", which leaves %zu bytes in a %zu-byte block",
                      tail_len, byte_count, count_remainder, block_len);

    size_t expected_len = FD_STATE_HEADER_LEN + layout->chain_len + tail_len;
    if (len < expected_len)
        return refuse(FD_STATE_TRUNCATED, reason, reason_len,
                      "truncated: %zu bytes, where a %s state with a %zu-byte tail has %zu", len,
                      algorithm->name, tail_len, expected_len);
    if (len > expected_len)
        return refuse(FD_STATE_PADDED, reason, reason_len,
                      "%zu bytes, where a %s state with a %zu-byte tail has %zu: %zu extra byte%s "
                      "at the end",
                      len, algorithm->name, tail_len, expected_len, len - expected_len,
                      len - expected_len == 1 ? "" : "s");
    if (byte_count > layout->max_byte_count)
        return refuse(FD_STATE_COUNT_TOO_LARGE, reason, reason_len,
                      "the byte count %" PRIu64 " exceeds %s's limit of %" PRIu64
                      " bytes (2**64 bits)",
                      byte_count, algorithm->name, layout->max_byte_count);

    uint8_t *fields = (uint8_t *)state;
    const uint8_t *cursor = blob + FD_STATE_HEADER_LEN;
    uint8_t *chain = fields + layout->chain_offset;
    for (size_t i = 0; i < layout->chain_words; i++, chain += layout->word_len) {
        if (layout->word_len == 4) {
            uint32_t word = fd_load_be32(cursor);
            memcpy(chain, &word, sizeof word);
        }
        else {
            uint64_t word = fd_load_be64(cursor);
            memcpy(chain, &word, sizeof word);
        }
        cursor += layout->word_len;
    }
    memcpy(fields + layout->count_offset, &byte_count, sizeof byte_count);
    /* The core reads only the first byte_count mod block_len bytes of the
     * buffer; the rest is zeroed so that the state is fully determined by
     * the blob, whatever the memory held before. */
    uint8_t *block = fields + layout->block_offset;
    memcpy(block, cursor, tail_len);
    memset(block + tail_len, 0, block_len - tail_len);

    /* The chain changes only when a whole block is compressed: before that
     * it can only hold the initial values. */
    if (byte_count < block_len) {
        fd_hash_state initial;
        algorithm->init(&initial);
        const uint8_t *initial_chain = (const uint8_t *)&initial + layout->chain_offset;
        if (memcmp(fields + layout->chain_offset, initial_chain, layout->chain_len) != 0)
            return refuse(FD_STATE_CHAIN_NOT_INITIAL, reason, reason_len,
                          "the chaining words differ from %s's initial values, which a state "
                          "that has not yet hashed a whole block (byte count %" PRIu64
                          ") must hold",
                          algorithm->name, byte_count);
    }
    *id = found;
    return FD_STATE_OK;
}
