/* What the core knows of each hash family, all of it read off the family's
 * row of FD_FAMILIES (kernels/kernel.h): its sizes and byte order, its hash
 * state, its chains and digests, and the calls of its kernels, for the code
 * written once for every family (the stream layer of buffer.h, the batch
 * driver, HMAC and PBKDF2, the state format, the C drivers).
 *
 * Where speed matters that code is written over an `enum fd_family`
 * argument in always-inlined functions, which a caller instantiates with a
 * constant family (hash/batch.c's run_batch, hash/algorithms.c's update and
 * final of each family): fd_family()'s fields are then constants, and each
 * switch below folds into its one case, so every family gets its own copy
 * with its block length, chain size and byte order built in. Plain C: no
 * Python.h. */
#ifndef FD_CORE_FAMILY_H
#define FD_CORE_FAMILY_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "kernels/compiler.h"
#include "kernels/endian.h"
#include "kernels/kernel.h"

/* ---- states -------------------------------------------------------------- */

/* Each family's hash state, fd_name_state: the chain, the message bytes
 * hashed so far, and the block buffer, whose first byte_count mod block_len
 * bytes wait for the rest of their block (buffer.h). The padding writes the
 * bit count, byte_count * 8, into the family's length field: its low 64 bits
 * for MD5 (RFC 1321, 3.2), all of it for SHA-1 and SHA-256, whose messages
 * are shorter than 2^64 bits, and as 128 bits for SHA-512. A byte count
 * wraps at 2^64 bytes, long after any of those limits. */
#define FD_FAMILY_STATE(name, NAME, ...)      \
    typedef struct fd_##name##_state {        \
        fd_##name##_chain chain;              \
        uint64_t byte_count;                  \
        uint8_t block[FD_##NAME##_BLOCK_LEN]; \
    } fd_##name##_state;
FD_FAMILIES(FD_FAMILY_STATE)
#undef FD_FAMILY_STATE

/* Big enough for any algorithm's state; an algorithm uses its family's
 * member (fd_hash_state.md5, .sha1, .sha256, .sha512). */
#define FD_FAMILY_STATE_MEMBER(name, ...) fd_##name##_state name;
typedef union fd_hash_state {
    FD_FAMILIES(FD_FAMILY_STATE_MEMBER)
} fd_hash_state;
#undef FD_FAMILY_STATE_MEMBER

/* Room for a chain of any family, for code that holds one of the family it
 * is given: a pointer to the union points to each member (C11 6.7.2.1). */
#define FD_FAMILY_CHAIN_MEMBER(name, ...) fd_##name##_chain name;
typedef union fd_any_chain {
    FD_FAMILIES(FD_FAMILY_CHAIN_MEMBER)
} fd_any_chain;
#undef FD_FAMILY_CHAIN_MEMBER

/* Room for a block of any family. */
#define FD_FAMILY_BLOCK_MEMBER(name, NAME, ...) uint8_t name[FD_##NAME##_BLOCK_LEN];
typedef union fd_any_block {
    FD_FAMILIES(FD_FAMILY_BLOCK_MEMBER)
} fd_any_block;
#undef FD_FAMILY_BLOCK_MEMBER

/* The longest block of any family, and room for any digest: the longest
 * chain, which holds its family's digests (kernel.h checks each row), so
 * that a buffer of it also holds a chain (state_format.h, hmac.c). The
 * unions make both hold every family's by construction. */
#define FD_MAX_BLOCK_LEN sizeof(fd_any_block)
#define FD_MAX_DIGEST_LEN sizeof(fd_any_chain)

/* ---- the description ----------------------------------------------------- */

typedef struct fd_family_info {
    const char *name; /* its row's name: "md5", "sha256", ... */
    size_t block_len;
    size_t word_len;    /* bytes of a chain word: 4 or 8 */
    size_t chain_words; /* words of the chain */
    size_t chain_len;   /* bytes of the chain: word_len * chain_words */
    size_t length_field_len;
    bool little_endian; /* FD_LITTLE_ENDIAN */
    uint64_t max_byte_count;
    size_t state_len; /* the bytes of fd_hash_state the family's state uses */
    /* Where fd_name_state keeps its fields inside fd_hash_state. */
    size_t chain_offset;
    size_t count_offset;
    size_t block_offset;
} fd_family_info;

#define FD_FAMILY_INFO(fam, FAM, word_type_, chain_words_, block_len_, length_field_len_, \
                       byte_order_, max_byte_count_)                                      \
    [FD_FAMILY_##FAM] = {                                                                 \
        .name = #fam,                                                                     \
        .block_len = (block_len_),                                                        \
        .word_len = sizeof(word_type_),                                                   \
        .chain_words = (chain_words_),                                                    \
        .chain_len = sizeof(fd_##fam##_chain),                                            \
        .length_field_len = (length_field_len_),                                          \
        .little_endian = (byte_order_) == FD_LITTLE_ENDIAN,                               \
        .max_byte_count = (max_byte_count_),                                              \
        .state_len = sizeof(fd_##fam##_state),                                            \
        .chain_offset = offsetof(fd_hash_state, fam.chain),                               \
        .count_offset = offsetof(fd_hash_state, fam.byte_count),                          \
        .block_offset = offsetof(fd_hash_state, fam.block),                               \
    },

/* The description of a family. A static const table in an inline function,
 * so that every file sees its values: read with a constant family, each
 * field compiles to its constant. */
static FD_ALWAYS_INLINE const fd_family_info *fd_family(enum fd_family family)
{
    static const fd_family_info families[FD_FAMILY_COUNT] = {FD_FAMILIES(FD_FAMILY_INFO)};
    return &families[family];
}
#undef FD_FAMILY_INFO

/* The padding below writes one or two 64-bit halves. */
#define FD_FAMILY_LENGTH_FIELD_CHECK(name, NAME, word_type, chain_words, block_len, \
                                     length_field_len, ...)                         \
    _Static_assert((length_field_len) == 8 || (length_field_len) == 16,             \
                   "the " #name " length field is 64 or 128 bits");                 \
    _Static_assert(sizeof(word_type) == 4 || sizeof(word_type) == 8,                \
                   "the " #name " chain has 32- or 64-bit words");
FD_FAMILIES(FD_FAMILY_LENGTH_FIELD_CHECK)
#undef FD_FAMILY_LENGTH_FIELD_CHECK

/* ---- states, chains and digests of any family ----------------------------- */

/* The state's chain, as a pointer to the family's chain type (its member
 * of the union, typed, so that the compiler knows what it points to). */
static FD_ALWAYS_INLINE void *fd_state_chain(enum fd_family family, fd_hash_state *state)
{
#define FD_STATE_CHAIN_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                   \
        return &state->name.chain;
    switch (family) {
        FD_FAMILIES(FD_STATE_CHAIN_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_STATE_CHAIN_CASE
    return state;
}

static FD_ALWAYS_INLINE const void *fd_state_const_chain(enum fd_family family,
                                                         const fd_hash_state *state)
{
#define FD_STATE_CONST_CHAIN_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                         \
        return &state->name.chain;
    switch (family) {
        FD_FAMILIES(FD_STATE_CONST_CHAIN_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_STATE_CONST_CHAIN_CASE
    return state;
}

static FD_ALWAYS_INLINE uint64_t *fd_state_byte_count(enum fd_family family, fd_hash_state *state)
{
    return (uint64_t *)(void *)((uint8_t *)state + fd_family(family)->count_offset);
}

static FD_ALWAYS_INLINE uint8_t *fd_state_block(enum fd_family family, fd_hash_state *state)
{
    return (uint8_t *)state + fd_family(family)->block_offset;
}

static FD_ALWAYS_INLINE uint64_t fd_state_count(enum fd_family family, const fd_hash_state *state)
{
    uint64_t byte_count;
    memcpy(&byte_count, (const uint8_t *)state + fd_family(family)->count_offset,
           sizeof byte_count);
    return byte_count;
}

static FD_ALWAYS_INLINE const uint8_t *fd_state_const_block(enum fd_family family,
                                                            const fd_hash_state *state)
{
    return (const uint8_t *)state + fd_family(family)->block_offset;
}

/* Chain word i of a chain of the family, widened to 64 bits. */
static FD_ALWAYS_INLINE uint64_t fd_chain_word(enum fd_family family, const void *chain, size_t i)
{
#define FD_CHAIN_WORD_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                  \
        return ((const fd_##name##_chain *)chain)->words[i];
    switch (family) {
        FD_FAMILIES(FD_CHAIN_WORD_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CHAIN_WORD_CASE
    return 0;
}

/* Sets chain word i to word (cut to the family's word). */
static FD_ALWAYS_INLINE void fd_set_chain_word(enum fd_family family, void *chain, size_t i,
                                               uint64_t word)
{
#define FD_SET_CHAIN_WORD_CASE(name, NAME, word_type, ...)        \
    case FD_FAMILY_##NAME:                                        \
        ((fd_##name##_chain *)chain)->words[i] = (word_type)word; \
        break;
    switch (family) {
        FD_FAMILIES(FD_SET_CHAIN_WORD_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_SET_CHAIN_WORD_CASE
}

/* Copies a chain of the family, the size of its chain type. (With the
 * pointers computed from byte offsets rather than the states' typed
 * members, GCC spent a few more instructions on each message of a batch;
 * as a struct assignment, more still.) */
static FD_ALWAYS_INLINE void fd_copy_chain(enum fd_family family, void *to, const void *from)
{
#define FD_COPY_CHAIN_CASE(name, NAME, ...)          \
    case FD_FAMILY_##NAME:                           \
        memcpy(to, from, sizeof(fd_##name##_chain)); \
        break;
    switch (family) {
        FD_FAMILIES(FD_COPY_CHAIN_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_COPY_CHAIN_CASE
}

/* Lane `lane`'s chain among the family's chains in `chains`. */
static FD_ALWAYS_INLINE void *fd_lane_chain(enum fd_family family, fd_lane_chains *chains,
                                            size_t lane)
{
#define FD_LANE_CHAIN_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                  \
        return &chains->name[lane];
    switch (family) {
        FD_FAMILIES(FD_LANE_CHAIN_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_LANE_CHAIN_CASE
    return chains;
}

/* Stores one word in the given byte order: with endian.h's byte-wise
 * stores, or (word_stores) as one byte-swapped memcpy where the compiler
 * tells the byte order. */
static FD_ALWAYS_INLINE void fd_store_word32(uint8_t *p, uint32_t v, bool little_endian,
                                             bool word_stores)
{
#if defined(FD_COMPILER_GNU) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    if (word_stores) {
        if (little_endian != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
            v = __builtin_bswap32(v);
        memcpy(p, &v, sizeof v);
        return;
    }
#else
    (void)word_stores;
#endif
    if (little_endian)
        fd_store_le32(p, v);
    else
        fd_store_be32(p, v);
}

static FD_ALWAYS_INLINE void fd_store_word64(uint8_t *p, uint64_t v, bool little_endian,
                                             bool word_stores)
{
#if defined(FD_COMPILER_GNU) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    if (word_stores) {
        if (little_endian != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
            v = __builtin_bswap64(v);
        memcpy(p, &v, sizeof v);
        return;
    }
#else
    (void)word_stores;
#endif
    if (little_endian)
        fd_store_le64(p, v);
    else
        fd_store_be64(p, v);
}

/* Writes the first digest_len bytes of the digest a chain stands for: its
 * words in the family's byte order, word by word. SHA-224 keeps seven of
 * eight words, SHA-384 six; SHA-512/224's digest ends in the high half of
 * its fourth word, and only that half is stored, so that a byte written
 * after the digest (the 0x80 marker of a padded block) survives.
 *
 * Two ways to store a word, for the two kinds of caller. endian.h's
 * byte-wise stores, which GCC turns into a few vector shuffles for a whole
 * digest written once (a batch's digests, a stream's final). And in HMAC's
 * and PBKDF2's loops, where GCC leaves some of those as single-byte shifts
 * and stores that cost more than the conversion itself, one byte-swapped
 * memcpy a word (word_stores), as legal at any alignment. */
static FD_ALWAYS_INLINE void fd_store_digest_as(enum fd_family family, uint8_t *out,
                                                const void *chain, size_t digest_len,
                                                bool word_stores)
{
    const fd_family_info *f = fd_family(family);

    /* The loops also stop at the chain's end, which they never reach: a
     * compiler that takes a struct's last array for one of any length (GCC)
     * then still sees the loop's bound and unrolls it whole. */
    if (f->word_len == 4) {
        for (size_t i = 0; i < digest_len / 4 && i < f->chain_words; i++)
            fd_store_word32(out + 4 * i, (uint32_t)fd_chain_word(family, chain, i),
                            f->little_endian, word_stores);
        return;
    }
    const size_t whole = digest_len / 8;
    for (size_t i = 0; i < whole && i < f->chain_words; i++)
        fd_store_word64(out + 8 * i, fd_chain_word(family, chain, i), f->little_endian,
                        word_stores);
    if (digest_len % 8 != 0) {
        /* The half that comes first in the family's byte order. */
        const uint64_t word = fd_chain_word(family, chain, whole);
        fd_store_word32(out + 8 * whole, (uint32_t)(f->little_endian ? word : word >> 32),
                        f->little_endian, word_stores);
    }
}

static FD_ALWAYS_INLINE void fd_store_digest(enum fd_family family, uint8_t *out, const void *chain,
                                             size_t digest_len)
{
    fd_store_digest_as(family, out, chain, digest_len, false);
}

/* fd_store_digest for HMAC's and PBKDF2's loops (see above). */
static FD_ALWAYS_INLINE void fd_store_digest_by_words(enum fd_family family, uint8_t *out,
                                                      const void *chain, size_t digest_len)
{
    fd_store_digest_as(family, out, chain, digest_len, true);
}

/* The converse: sets the chain words that the digest's digest_len bytes at
 * in make (the half word of SHA-512/224 as its high half, the low half
 * zero), and leaves the rest of the chain as it was. */
static FD_ALWAYS_INLINE void fd_load_digest(enum fd_family family, void *chain, const uint8_t *in,
                                            size_t digest_len)
{
    const fd_family_info *f = fd_family(family);

    /* Bounded by the chain too, as fd_store_digest_as's loops are. */
    if (f->word_len == 4) {
        for (size_t i = 0; i < digest_len / 4 && i < f->chain_words; i++)
            fd_set_chain_word(family, chain, i,
                              f->little_endian ? fd_load_le32(in + 4 * i)
                                               : fd_load_be32(in + 4 * i));
        return;
    }
    const size_t whole = digest_len / 8;
    for (size_t i = 0; i < whole && i < f->chain_words; i++)
        fd_set_chain_word(family, chain, i,
                          f->little_endian ? fd_load_le64(in + 8 * i) : fd_load_be64(in + 8 * i));
    if (digest_len % 8 != 0) {
        const uint64_t half = f->little_endian ? fd_load_le32(in + 8 * whole)
                                               : fd_load_be32(in + 8 * whole);
        fd_set_chain_word(family, chain, whole, f->little_endian ? half : half << 32);
    }
}

/* Writes the message's bit count into the length field that ends at
 * block_end, as the family's padding has it (FIPS 180-4, 5.1; RFC 1321,
 * 3.2): 64 bits, or 128 of which the high 64 hold the byte count's top
 * three bits. */
static FD_ALWAYS_INLINE void fd_store_length_field(enum fd_family family, uint8_t *block_end,
                                                   uint64_t byte_count)
{
    const fd_family_info *f = fd_family(family);
    const uint64_t low = byte_count << 3, high = byte_count >> 61;

    if (f->little_endian) {
        fd_store_le64(block_end - f->length_field_len, low);
        if (f->length_field_len == 16)
            fd_store_le64(block_end - 8, high);
    }
    else {
        fd_store_be64(block_end - 8, low);
        if (f->length_field_len == 16)
            fd_store_be64(block_end - 16, high);
    }
}

/* Pads a block that holds one digest after one keyed block: a message of
 * block_len + digest_len bytes whose last digest_len bytes start the block
 * (the outer hash of every HMAC, and each hash of a PBKDF2 iteration from
 * U_2 on). Writes the 0x80 marker, zeros, and the length in bits in the
 * family's field (FIPS 180-4, 5.1; RFC 1321, 3.1-3.2) after the digest,
 * which it leaves alone. */
static FD_ALWAYS_INLINE void fd_pad_one_digest_block(enum fd_family family, size_t digest_len,
                                                     uint8_t *block)
{
    const size_t block_len = fd_family(family)->block_len;

    assert(digest_len + 1 + fd_family(family)->length_field_len <= block_len);
    memset(block + digest_len, 0, block_len - digest_len);
    block[digest_len] = 0x80;
    fd_store_length_field(family, block + block_len, block_len + digest_len);
}

/* ---- kernel calls of any family -------------------------------------------
 *
 * Chains are passed as pointers to the family's chain type (fd_md5_chain,
 * ...), which the one case converts back; words and lanes likewise. A
 * capability a kernel lacks is NULL in its member (dispatch.h). */

/* kernel->blocks: nblocks blocks onto chain. */
static FD_ALWAYS_INLINE void fd_call_blocks(enum fd_family family, const fd_kernel *kernel,
                                            void *chain, const uint8_t *blocks, size_t nblocks)
{
#define FD_CALL_BLOCKS_CASE(name, NAME, ...)         \
    case FD_FAMILY_##NAME:                           \
        kernel->blocks.name(chain, blocks, nblocks); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_BLOCKS_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_BLOCKS_CASE
}

/* multi->blocks: nblocks blocks of each lane from runs[lane] onto chains. */
static FD_ALWAYS_INLINE void fd_call_blocks_multi(enum fd_family family,
                                                  const fd_multi_kernel *multi,
                                                  fd_lane_chains *chains,
                                                  const uint8_t *const *runs, size_t nblocks)
{
#define FD_CALL_BLOCKS_MULTI_CASE(name, NAME, ...)       \
    case FD_FAMILY_##NAME:                               \
        multi->blocks.name(chains->name, runs, nblocks); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_BLOCKS_MULTI_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_BLOCKS_MULTI_CASE
}

static FD_ALWAYS_INLINE bool fd_has_pbkdf2(enum fd_family family, const fd_kernel *kernel)
{
#define FD_HAS_PBKDF2_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                  \
        return kernel->pbkdf2.name != NULL;
    switch (family) {
        FD_FAMILIES(FD_HAS_PBKDF2_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_HAS_PBKDF2_CASE
    return false;
}

/* kernel->pbkdf2, which fd_has_pbkdf2 says it has. */
static FD_ALWAYS_INLINE void fd_call_pbkdf2(enum fd_family family, const fd_kernel *kernel,
                                            const void *inner_chain, const void *outer_chain,
                                            size_t digest_len, void *words,
                                            uint32_t iterations_left)
{
#define FD_CALL_PBKDF2_CASE(name, NAME, ...)                                               \
    case FD_FAMILY_##NAME:                                                                 \
        kernel->pbkdf2.name(inner_chain, outer_chain, digest_len, words, iterations_left); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_PBKDF2_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_PBKDF2_CASE
}

static FD_ALWAYS_INLINE bool fd_has_pbkdf2_lanes(enum fd_family family,
                                                 const fd_pbkdf2_lanes_run *run)
{
#define FD_HAS_PBKDF2_LANES_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                        \
        return run->name != NULL;
    switch (family) {
        FD_FAMILIES(FD_HAS_PBKDF2_LANES_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_HAS_PBKDF2_LANES_CASE
    return false;
}

/* A PBKDF2 loop over count output blocks, which fd_has_pbkdf2_lanes says
 * run has; words holds the blocks' words as lanes of the family. */
static FD_ALWAYS_INLINE void fd_call_pbkdf2_lanes(enum fd_family family,
                                                  const fd_pbkdf2_lanes_run *run,
                                                  const void *inner_chain, const void *outer_chain,
                                                  size_t digest_len, fd_lane_chains *words,
                                                  size_t count, uint32_t iterations_left)
{
#define FD_CALL_PBKDF2_LANES_CASE(name, NAME, ...)                                            \
    case FD_FAMILY_##NAME:                                                                    \
        run->name(inner_chain, outer_chain, digest_len, words->name, count, iterations_left); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_PBKDF2_LANES_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_PBKDF2_LANES_CASE
}

static FD_ALWAYS_INLINE bool fd_has_hmac_finish(enum fd_family family, const fd_kernel *kernel)
{
#define FD_HAS_HMAC_FINISH_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                       \
        return kernel->hmac_finish.name != NULL;
    switch (family) {
        FD_FAMILIES(FD_HAS_HMAC_FINISH_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_HAS_HMAC_FINISH_CASE
    return false;
}

/* kernel->hmac_finish, which fd_has_hmac_finish says it has. */
static FD_ALWAYS_INLINE void fd_call_hmac_finish(enum fd_family family, const fd_kernel *kernel,
                                                 const void *inner_chain, const uint8_t *tail,
                                                 size_t tail_blocks, const void *outer_chain,
                                                 size_t digest_len, uint8_t *out)
{
#define FD_CALL_HMAC_FINISH_CASE(name, NAME, ...)                                               \
    case FD_FAMILY_##NAME:                                                                      \
        kernel->hmac_finish.name(inner_chain, tail, tail_blocks, outer_chain, digest_len, out); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_HMAC_FINISH_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_HMAC_FINISH_CASE
}

static FD_ALWAYS_INLINE bool fd_has_hmac_key(enum fd_family family, const fd_kernel *kernel)
{
#define FD_HAS_HMAC_KEY_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                    \
        return kernel->hmac_key.name != NULL;
    switch (family) {
        FD_FAMILIES(FD_HAS_HMAC_KEY_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_HAS_HMAC_KEY_CASE
    return false;
}

/* kernel->hmac_key, which fd_has_hmac_key says it has. */
static FD_ALWAYS_INLINE void fd_call_hmac_key(enum fd_family family, const fd_kernel *kernel,
                                              const uint8_t *padded_key, void *inner_chain,
                                              void *outer_chain)
{
#define FD_CALL_HMAC_KEY_CASE(name, NAME, ...)                       \
    case FD_FAMILY_##NAME:                                           \
        kernel->hmac_key.name(padded_key, inner_chain, outer_chain); \
        break;
    switch (family) {
        FD_FAMILIES(FD_CALL_HMAC_KEY_CASE)
    case FD_FAMILY_COUNT:
        break;
    }
#undef FD_CALL_HMAC_KEY_CASE
}

#endif /* FD_CORE_FAMILY_H */
