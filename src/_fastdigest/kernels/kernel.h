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
 * Every hash family is described once, here: its row of FD_FAMILIES, its
 * known answers (FD_KNOWN_ANSWERS) and its algorithms' rows of
 * FD_ALGORITHMS (below). Every file that handles families or algorithms
 * expands these lists (the types below, the dispatcher's unions, hash/
 * family.h's states and calls, the descriptor table, the known-answer
 * checks, the state format, the binding's constructors and names, the C
 * drivers), so that a new family is its rows here, its kernels and their
 * dispatch rows, its tests and its docs.
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
 * row does not compile: no two families share a chain type. Each family's
 * portable kernel is fd_name_blocks_portable (kernels/portable/). */
#define FD_FAMILIES(X)                                                            \
    X(md5, MD5, uint32_t, 4, 64, 8, FD_LITTLE_ENDIAN, UINT64_MAX)                 \
    X(sha1, SHA1, uint32_t, 5, 64, 8, FD_BIG_ENDIAN, (UINT64_C(1) << 61) - 1)     \
    X(sha256, SHA256, uint32_t, 8, 64, 8, FD_BIG_ENDIAN, (UINT64_C(1) << 61) - 1) \
    X(sha512, SHA512, uint64_t, 8, 128, 16, FD_BIG_ENDIAN, UINT64_MAX)

/* Each family's known answers, which every kernel of the family must give
 * before the import installs it (hash/known_answers.c), and which the C
 * drivers and the self-test run too:
 *
 *   X(name, NAME, ALGORITHM, source, abc_hex, two_block_message,
 *     two_block_hex)
 *
 *   name, NAME         the family, as in FD_FAMILIES
 *   ALGORITHM          whose digests these are: the family's algorithm of
 *                      the longest digest, as in FD_ALGORITHMS
 *   source             where they are published
 *   abc_hex            the digest of "abc" (one block, padded)
 *   two_block_message  a message whose padding takes two blocks
 *   two_block_hex      its digest
 *
 * RFC 1321, A.5 (the test suite): "abc" and eight repetitions of
 * "1234567890". FIPS 180-4's examples (NIST's "Examples with intermediate
 * values", SHA1.pdf, SHA256.pdf, SHA512.pdf): "abc" and the 448-bit
 * message (SHA-1, SHA-256) or the 896-bit one (SHA-512). */
#define FD_KNOWN_ANSWERS(X)                                                               \
    X(md5, MD5, MD5, "RFC 1321, A.5", "900150983cd24fb0d6963f7d28e17f72",                 \
      "1234567890123456789012345678901234567890123456789012345678901234567890123456"      \
      "7890",                                                                             \
      "57edf4a22be3c955ac49da2e2107b67a")                                                 \
    X(sha1, SHA1, SHA1, "FIPS 180-4 example", "a9993e364706816aba3e25717850c26c9cd0d89d", \
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",                         \
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1")                                         \
    X(sha256, SHA256, SHA256, "FIPS 180-4 example",                                       \
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",                 \
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",                         \
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")                 \
    X(sha512, SHA512, SHA512, "FIPS 180-4 example",                                       \
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"                  \
      "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",                 \
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"  \
      "klmnopqrlmnopqrsmnopqrstnopqrstu",                                                 \
      "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"                  \
      "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909")

/* A family without its row of FD_KNOWN_ANSWERS stops the build here: the
 * compiler says that struct fd_families_with_known_answers, whose members
 * are the families that have one, has no member named after it. */
#define FD_KNOWN_ANSWERS_MEMBER(name, ...) char name;
struct fd_families_with_known_answers {
    FD_KNOWN_ANSWERS(FD_KNOWN_ANSWERS_MEMBER)
};
#undef FD_KNOWN_ANSWERS_MEMBER
#define FD_KNOWN_ANSWERS_REQUIRED(name, ...)                                        \
    _Static_assert(sizeof(((struct fd_families_with_known_answers *)0)->name) == 1, \
                   "the " #name " family has its row of FD_KNOWN_ANSWERS");
FD_FAMILIES(FD_KNOWN_ANSWERS_REQUIRED)
#undef FD_KNOWN_ANSWERS_REQUIRED

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

/* ---- the algorithms ----------------------------------------------------------
 *
 * Every algorithm of every family, each described once:
 *
 *   X(name, NAME, family, FAMILY, digest_len, state_code, iv...)
 *
 *   name, NAME      the algorithm in identifiers (FD_NAME, FD_NAME_DIGEST_LEN)
 *                   and hashlib's name for it, "name"
 *   family, FAMILY  its family's row of FD_FAMILIES
 *   digest_len      bytes of its digest: whole 32-bit words of its family's
 *                   chain
 *   state_code      its code in the resumable state format (hash/
 *                   state_format.h, docs/state.md): part of the format, so
 *                   never changed once released; the codes are 1 to the
 *                   number of algorithms, each once
 *   iv...           its initial chain, the chain words in the standard's order
 *
 * The initial chains: RFC 1321, 3.3 (MD5); FIPS 180-4, 5.3.1 (SHA-1),
 * 5.3.2 and 5.3.3 (SHA-224, SHA-256), 5.3.4 to 5.3.6 (SHA-384, SHA-512,
 * SHA-512/224, SHA-512/256). */
#define FD_ALGORITHMS(X)                                                                         \
    X(md5, MD5, md5, MD5, 16, 1, 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476)                 \
    X(sha1, SHA1, sha1, SHA1, 20, 2, 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0) \
    X(sha224, SHA224, sha256, SHA256, 28, 3, 0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,     \
      0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4)                                            \
    X(sha256, SHA256, sha256, SHA256, 32, 4, 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,     \
      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)                                            \
    X(sha384, SHA384, sha512, SHA512, 48, 5, 0xcbbb9d5dc1059ed8, 0x629a292a367cd507,             \
      0x9159015a3070dd17, 0x152fecd8f70e5939, 0x67332667ffc00b31, 0x8eb44a8768581511,            \
      0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4)                                                    \
    X(sha512, SHA512, sha512, SHA512, 64, 6, 0x6a09e667f3bcc908, 0xbb67ae8584caa73b,             \
      0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,            \
      0x1f83d9abfb41bd6b, 0x5be0cd19137e2179)                                                    \
    X(sha512_224, SHA512_224, sha512, SHA512, 28, 7, 0x8c3d37c819544da2, 0x73e1996689dcd4d6,     \
      0x1dfab7ae32ff9c82, 0x679dd514582f9fcf, 0x0f6d2b697bd44da8, 0x77e36f7304c48942,            \
      0x3f9d85a86a1d36c8, 0x1112e6ad91d692a1)                                                    \
    X(sha512_256, SHA512_256, sha512, SHA512, 32, 8, 0x22312194fc2bf72c, 0x9f555fa3c84c64c2,     \
      0x2393b86b6f53b151, 0x963877195940eabd, 0x96283ee2a88effe3, 0xbe5e1e2553863992,            \
      0x2b0199fc2c85b8aa, 0x0eb72ddc81c52ca2)

/* HMAC test case 2 (the key "Jefe", the message "what do ya want for
 * nothing?") of each algorithm whose RFC gives it, against which the
 * import checks a kernel's own HMAC code (hash/known_answers.c; an
 * algorithm without a row is checked against HMAC over the kernel's
 * compress function):
 *
 *   X(ALGORITHM, source, mac_hex) */
#define FD_HMAC_KNOWN_ANSWERS(X)                                                              \
    X(MD5, "RFC 2202", "750c783e6ab0b503eaa86e310a5db738")                                    \
    X(SHA1, "RFC 2202", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")                           \
    X(SHA224, "RFC 4231", "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44")         \
    X(SHA256, "RFC 4231", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") \
    X(SHA384, "RFC 4231",                                                                     \
      "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"                      \
      "8e2240ca5e69e2c78b3239ecfab21649")                                                     \
    X(SHA512, "RFC 4231",                                                                     \
      "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"                      \
      "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")

/* FD_NAME_DIGEST_LEN for each algorithm, for the kernels whose code depends
 * on a digest's length. */
#define FD_ALGORITHM_DIGEST_LEN(name, NAME, family, FAMILY, digest_len, ...) \
    FD_##NAME##_DIGEST_LEN = (digest_len),
enum { FD_ALGORITHMS(FD_ALGORITHM_DIGEST_LEN) };
#undef FD_ALGORITHM_DIGEST_LEN

/* What the code over the rows assumes of them: a digest is whole 32-bit
 * words of its family's chain (the stream layer's final, HMAC's and
 * PBKDF2's loops store it word by word), and the initial chain has the
 * family's chain words. */
#define FD_ALGORITHM_CHECKS(name, NAME, family, FAMILY, digest_len, state_code, ...)               \
    _Static_assert((digest_len) % 4 == 0 && (digest_len) <= sizeof(fd_##family##_chain),           \
                   #name "'s digest is whole 32-bit words of its chain");                          \
    _Static_assert(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t) ==                         \
                       sizeof(fd_##family##_chain) / sizeof(((fd_##family##_chain *)0)->words[0]), \
                   #name "'s initial chain has its family's chain words");
FD_ALGORITHMS(FD_ALGORITHM_CHECKS)
#undef FD_ALGORITHM_CHECKS

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
