/* The contract between the kernels and the code that calls them: the hash
 * families (each described once, in FD_FAMILIES), their block and digest
 * lengths and chain types, the CPU features a kernel may require, and the
 * function types every kernel of a family implements.
 *
 * A kernel is a compression function and nothing more: it knows nothing of
 * buffering, padding or the Python binding, and takes and returns the chain
 * in FIPS (or RFC 1321) word order whatever layout it uses inside. Kernels
 * include this header and their instruction set's header (kernels/x86/avx2/
 * avx2.h, ...); the dispatcher (dispatch/) lists them in its tables. Plain C:
 * no Python.h. */
#ifndef FD_KERNELS_KERNEL_H
#define FD_KERNELS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/compiler.h"

/* ---- the families ----------------------------------------------------------
 *
 * Every hash family is described once, by its row of FD_FAMILIES; the files
 * that handle families expand the list (the types below, the dispatcher's
 * unions, hash/family.h's states and calls, the descriptor table, the state
 * format, the C drivers), so that a new family is one row here, its
 * algorithms in hash/algorithms.c, its kernels and their dispatch rows.
 *
 *   X(name, NAME, word_type, chain_words, block_len, length_field_len,
 *     byte_order, max_byte_count)
 *
 *   name, NAME        the family in identifiers: fd_name_chain, FD_FAMILY_NAME
 *   word_type         the chaining value's word: uint32_t or uint64_t
 *   chain_words       the chaining value's words (the digest is at most these)
 *   block_len         bytes of a block, a power of two
 *   length_field_len  bytes of the message's bit length that end the padding
 *   byte_order        of the block's words, the length field and the digest:
 *                     FD_LITTLE_ENDIAN (RFC 1321) or FD_BIG_ENDIAN (FIPS 180-4)
 *   max_byte_count    the longest message the standard allows, in bytes: SHA-1
 *                     and SHA-256 take fewer than 2^64 bits (FIPS 180-4, 1);
 *                     MD5 any length (RFC 1321 keeps the bit count's low 64
 *                     bits); SHA-512 up to 2^128 bits, past any 64-bit count
 *
 * Each row makes FD_FAMILY_NAME (enum fd_family), the constants
 * FD_NAME_BLOCK_LEN and FD_NAME_LENGTH_FIELD_LEN, the chain type
 * fd_name_chain and the kernel types of "single-stream kernels" and
 * "multi-buffer kernels" below: fd_name_blocks_fn, fd_name_pbkdf2_fn,
 * fd_name_pbkdf2_lanes_fn, fd_name_hmac_finish_fn, fd_name_hmac_key_fn,
 * fd_name_blocks_multi_fn. A kernel of one family in another family's table
 * row does not compile: no two families share a chain type.
 *
 * sha256 is the family of SHA-224 and SHA-256, sha512 that of SHA-384,
 * SHA-512, SHA-512/224 and SHA-512/256 (hash/algorithms.c). */
#define FD_FAMILIES(X)                                                            \
    X(md5, MD5, uint32_t, 4, 64, 8, FD_LITTLE_ENDIAN, UINT64_MAX)                 \
    X(sha1, SHA1, uint32_t, 5, 64, 8, FD_BIG_ENDIAN, (UINT64_C(1) << 61) - 1)     \
    X(sha256, SHA256, uint32_t, 8, 64, 8, FD_BIG_ENDIAN, (UINT64_C(1) << 61) - 1) \
    X(sha512, SHA512, uint64_t, 8, 128, 16, FD_BIG_ENDIAN, UINT64_MAX)

enum fd_byte_order { FD_BIG_ENDIAN, FD_LITTLE_ENDIAN };

#define FD_FAMILY_ENUMERATOR(name, NAME, ...) FD_FAMILY_##NAME,
enum fd_family { FD_FAMILIES(FD_FAMILY_ENUMERATOR) FD_FAMILY_COUNT };
#undef FD_FAMILY_ENUMERATOR

#define FD_FAMILY_LENGTHS(name, NAME, word_type, chain_words, block_len, length_field_len, ...) \
    FD_##NAME##_BLOCK_LEN = (block_len), FD_##NAME##_LENGTH_FIELD_LEN = (length_field_len),
enum { FD_FAMILIES(FD_FAMILY_LENGTHS) };
#undef FD_FAMILY_LENGTHS

/* The chaining value of each family, its words in the standard's order
 * (MD5's A B C D, SHA's H0 H1 ...), as every kernel takes and returns it
 * whatever layout it uses inside (Linux's struct sha256_block_state).
 * Arrays of them, lane after lane, are what the multi-buffer kernels take:
 * the words of lane i start at word i * chain_words, with no padding. */
#define FD_FAMILY_CHAIN(name, NAME, word_type, chain_words, ...) \
    typedef struct fd_##name##_chain {                           \
        word_type words[chain_words];                            \
    } fd_##name##_chain;
FD_FAMILIES(FD_FAMILY_CHAIN)
#undef FD_FAMILY_CHAIN

/* What the code over the rows assumes of them: the block buffering masks
 * byte counts with block_len - 1 (hash/buffer.h, hash/batch.c, the state
 * format); a padded block holds the 0x80 marker and the length field; the
 * multi-buffer kernels and the state format step through chains a word at
 * a time. */
#define FD_FAMILY_CHECKS(name, NAME, word_type, chain_words, block_len, length_field_len, ...) \
    _Static_assert(((block_len) & ((block_len)-1)) == 0,                                       \
                   "the " #name " block length is a power of two");                            \
    _Static_assert((length_field_len) + 1 <= (block_len),                                      \
                   "a " #name " block holds the padding's marker and length field");           \
    _Static_assert(sizeof(fd_##name##_chain) == (chain_words) * sizeof(word_type),             \
                   "fd_" #name "_chain has no padding");
FD_FAMILIES(FD_FAMILY_CHECKS)
#undef FD_FAMILY_CHECKS

#define FD_MD5_DIGEST_LEN 16
#define FD_SHA1_DIGEST_LEN 20
#define FD_SHA256_DIGEST_LEN 32
#define FD_SHA224_DIGEST_LEN 28
#define FD_SHA512_DIGEST_LEN 64
#define FD_SHA384_DIGEST_LEN 48
#define FD_SHA512_224_DIGEST_LEN 28
#define FD_SHA512_256_DIGEST_LEN 32

/* Instruction-set features a kernel may require. The dispatcher reads them
 * from the CPU once (dispatch/features.c); each instruction set's header
 * names the mask its kernels require. */
enum fd_cpu_feature {
    FD_CPU_SSSE3 = 1u << 0,
    FD_CPU_SSE41 = 1u << 1,
    FD_CPU_AVX = 1u << 2,  /* with the OS saving YMM state (XGETBV) */
    FD_CPU_AVX2 = 1u << 3, /* likewise */
    FD_CPU_BMI1 = 1u << 4,
    FD_CPU_BMI2 = 1u << 5,
    FD_CPU_SHANI = 1u << 6,
    FD_CPU_AVX512F = 1u << 7,   /* with the OS saving ZMM and opmask state */
    FD_CPU_AVX512VL = 1u << 8,  /* likewise */
    FD_CPU_AVX512BW = 1u << 9,  /* likewise */
    FD_CPU_SHA512NI = 1u << 10, /* VSHA512*, with the OS saving YMM state */
    FD_CPU_ARM_SHA1 = 1u << 16,
    FD_CPU_ARM_SHA2 = 1u << 17,
    FD_CPU_ARM_SHA512 = 1u << 18,
};

/* ---- single-stream kernels -------------------------------------------------
 *
 * For each family, with C its chain type (fd_md5_chain, ...), as the row of
 * FD_FAMILIES makes them:
 *
 * fd_name_blocks_fn(C *chain, const uint8_t *blocks, size_t nblocks):
 *   compresses nblocks consecutive blocks at any alignment into chain.
 *
 * Optional capabilities, for kernels that keep more of HMAC and PBKDF2 in
 * registers than a compress call can (hash/hmac.c uses each when the active
 * kernel has it, and otherwise its own code over `blocks`). digest_len is
 * the length of the algorithm's digest in bytes (SHA-224's 28 for a SHA-256
 * kernel, SHA-512/224's 28 for a SHA-512 one, whose digest ends in the high
 * half of its fourth word); "words" hold a digest as the first words of a
 * chain, and what follows the digest there means nothing on entry or on
 * return (a kernel may overwrite it).
 *
 * fd_name_pbkdf2_fn(const C *inner_chain, const C *outer_chain,
 *                   size_t digest_len, C *words, uint32_t iterations_left):
 *   iterations 2..c of one PBKDF2-HMAC output block (RFC 8018, 5.2) with the
 *   whole loop inside a kernel. inner_chain and outer_chain are the keyed
 *   chains; on entry words holds U_1, on return T = U_1 ^ ... ^ U_c;
 *   iterations_left is c - 1.
 *
 * fd_name_pbkdf2_lanes_fn(const C *inner_chain, const C *outer_chain,
 *                         size_t digest_len, C *words, size_t count,
 *                         uint32_t iterations_left):
 *   the same for count output blocks side by side (the blocks T_1, T_2, ...
 *   are independent chains over the same keyed states), count from 1 to the
 *   kernel's lane count (fd_kernel.pbkdf2_lanes); words[i] is as words
 *   above for block i. Rows from count on are neither read nor written.
 *
 * fd_name_hmac_finish_fn(const C *inner_chain, const uint8_t *tail,
 *                        size_t tail_blocks, const C *outer_chain,
 *                        size_t digest_len, uint8_t *out):
 *   the end of an HMAC inside a kernel: compresses the inner hash's last
 *   tail_blocks blocks, already padded, from tail onto inner_chain; then the
 *   block made of that digest and its fixed padding (the outer hash sees one
 *   keyed block and one digest) onto outer_chain; and writes the digest_len
 *   bytes of the result to out.
 *
 * fd_name_hmac_key_fn(const uint8_t padded_key[FD_NAME_BLOCK_LEN],
 *                     C *inner_chain, C *outer_chain):
 *   HMAC's two keyed blocks at once: K' ^ ipad compressed onto inner_chain
 *   and K' ^ opad onto outer_chain, from the zero-padded key K'. Both chains
 *   hold the family's IV on entry. */

/* ---- multi-buffer kernels ----------------------------------------------------
 *
 * fd_name_blocks_multi_fn(C *chains, const uint8_t *const *blocks,
 *                         size_t nblocks):
 *   compresses nblocks consecutive blocks from blocks[lane] (any alignment)
 *   into chains[lane] for each of the kernel's lanes: every lane advances
 *   by the same number of blocks. */

#define FD_FAMILY_KERNEL_TYPES(name, NAME, ...)                                                 \
    typedef void fd_##name##_blocks_fn(fd_##name##_chain *chain, const uint8_t *blocks,         \
                                       size_t nblocks);                                         \
    typedef void fd_##name##_pbkdf2_fn(const fd_##name##_chain *inner_chain,                    \
                                       const fd_##name##_chain *outer_chain, size_t digest_len, \
                                       fd_##name##_chain *words, uint32_t iterations_left);     \
    typedef void fd_##name##_pbkdf2_lanes_fn(                                                   \
        const fd_##name##_chain *inner_chain, const fd_##name##_chain *outer_chain,             \
        size_t digest_len, fd_##name##_chain *words, size_t count, uint32_t iterations_left);   \
    typedef void fd_##name##_hmac_finish_fn(                                                    \
        const fd_##name##_chain *inner_chain, const uint8_t *tail, size_t tail_blocks,          \
        const fd_##name##_chain *outer_chain, size_t digest_len, uint8_t *out);                 \
    typedef void fd_##name##_hmac_key_fn(const uint8_t padded_key[FD_##NAME##_BLOCK_LEN],       \
                                         fd_##name##_chain *inner_chain,                        \
                                         fd_##name##_chain *outer_chain);                       \
    typedef void fd_##name##_blocks_multi_fn(fd_##name##_chain *chains,                         \
                                             const uint8_t *const *blocks, size_t nblocks);
FD_FAMILIES(FD_FAMILY_KERNEL_TYPES)
#undef FD_FAMILY_KERNEL_TYPES

/* The most lanes any kernel has, and so the most messages in flight. */
#define FD_BATCH_MAX_LANES 16

/* The chaining values of up to FD_BATCH_MAX_LANES lanes, in the layout each
 * family's kernels take (the batch driver's lanes, PBKDF2's blocks). */
#define FD_FAMILY_LANES_MEMBER(name, ...) fd_##name##_chain name[FD_BATCH_MAX_LANES];
typedef union fd_lane_chains {
    FD_FAMILIES(FD_FAMILY_LANES_MEMBER)
} fd_lane_chains;
#undef FD_FAMILY_LANES_MEMBER

/* ---- constants --------------------------------------------------------- */

/* The round constants K0..K63 and K0..K79 (kernels/round_constants.c). */
extern const uint32_t fd_sha256_round_constants[64];
extern const uint64_t fd_sha512_round_constants[80];

#endif /* FD_KERNELS_KERNEL_H */
