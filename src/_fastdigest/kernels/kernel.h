/* The contract between the kernels and the code that calls them: the hash
 * families, their block and digest lengths, the CPU features a kernel may
 * require, and the function types every kernel of a family implements.
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

enum fd_family {
    FD_FAMILY_MD5,
    FD_FAMILY_SHA1,
    FD_FAMILY_SHA256, /* sha224, sha256 */
    FD_FAMILY_SHA512, /* sha384, sha512, sha512_224, sha512_256 */
    FD_FAMILY_COUNT
};

#define FD_MD5_BLOCK_LEN 64
#define FD_MD5_DIGEST_LEN 16
#define FD_SHA1_BLOCK_LEN 64
#define FD_SHA1_DIGEST_LEN 20
#define FD_SHA256_BLOCK_LEN 64
#define FD_SHA256_DIGEST_LEN 32
#define FD_SHA224_DIGEST_LEN 28
#define FD_SHA512_BLOCK_LEN 128
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

/* ---- single-stream kernels --------------------------------------------- */

/* Compresses nblocks consecutive blocks at any alignment into chain. */
typedef void fd_md5_blocks_fn(uint32_t chain[4], const uint8_t *blocks, size_t nblocks);
typedef void fd_sha1_blocks_fn(uint32_t chain[5], const uint8_t *blocks, size_t nblocks);
typedef void fd_sha256_blocks_fn(uint32_t chain[8], const uint8_t *blocks, size_t nblocks);
typedef void fd_sha512_blocks_fn(uint64_t chain[8], const uint8_t *blocks, size_t nblocks);

/* Optional capabilities, for kernels that keep more of HMAC and PBKDF2 in
 * registers than a compress call can (core/hmac.c uses each when the active
 * kernel has it, and otherwise its own code over `blocks`). */

/* Iterations 2..c of one PBKDF2-HMAC output block (RFC 8018, 5.2) with the
 * whole loop inside a kernel. inner_chain and outer_chain are the keyed
 * chains; digest_words is 8 (SHA-256) or 7 (SHA-224). On entry words holds
 * U_1, on return T = U_1 ^ ... ^ U_c, both as the first digest_words chain
 * words; iterations_left is c - 1. */
typedef void fd_sha256_pbkdf2_fn(const uint32_t inner_chain[8], const uint32_t outer_chain[8],
                                 size_t digest_words, uint32_t words[8], uint32_t iterations_left);
typedef void fd_sha1_pbkdf2_fn(const uint32_t inner_chain[5], const uint32_t outer_chain[5],
                               uint32_t words[5], uint32_t iterations_left);

/* Iterations 2..c of count PBKDF2-HMAC output blocks side by side (the
 * blocks T_1, T_2, ... are independent chains over the same keyed states),
 * count from 1 to the kernel's lane count (fd_kernel.pbkdf2_lanes). Each
 * words[i] is as words of the single-block loops above: U_1 of its block on
 * entry, T on return (MD5's words are little-endian, as its digest is).
 * Rows from count on are neither read nor written. */
typedef void fd_md5_pbkdf2_lanes_fn(const uint32_t inner_chain[4], const uint32_t outer_chain[4],
                                    uint32_t (*words)[4], size_t count, uint32_t iterations_left);
typedef void fd_sha1_pbkdf2_lanes_fn(const uint32_t inner_chain[5], const uint32_t outer_chain[5],
                                     uint32_t (*words)[5], size_t count, uint32_t iterations_left);
typedef void fd_sha256_pbkdf2_lanes_fn(const uint32_t inner_chain[8], const uint32_t outer_chain[8],
                                       size_t digest_words, uint32_t (*words)[8], size_t count,
                                       uint32_t iterations_left);
/* The SHA-512 family's: digest_len is 64, 48, 32 or 28 bytes (SHA-512/224's
 * digest ends in the high half of its fourth word, whose low half is then
 * neither read nor written). */
typedef void fd_sha512_pbkdf2_lanes_fn(const uint64_t inner_chain[8], const uint64_t outer_chain[8],
                                       size_t digest_len, uint64_t (*words)[8], size_t count,
                                       uint32_t iterations_left);

/* The end of an HMAC inside a kernel: compresses the inner hash's last
 * tail_blocks blocks, already padded, from tail onto inner_chain; then the
 * block made of that digest and its fixed padding (the outer hash sees one
 * keyed block and one digest) onto outer_chain; and writes the first
 * digest_words words of the result, big-endian, to out. */
typedef void fd_sha256_hmac_finish_fn(const uint32_t inner_chain[8], const uint8_t *tail,
                                      size_t tail_blocks, const uint32_t outer_chain[8],
                                      size_t digest_words, uint8_t *out);
typedef void fd_sha1_hmac_finish_fn(const uint32_t inner_chain[5], const uint8_t *tail,
                                    size_t tail_blocks, const uint32_t outer_chain[5],
                                    uint8_t out[FD_SHA1_DIGEST_LEN]);

/* HMAC's two keyed blocks at once: K' ^ ipad compressed onto inner_chain and
 * K' ^ opad onto outer_chain, from the zero-padded key K'. Both chains hold
 * the family's IV on entry. */
typedef void fd_sha1_hmac_key_fn(const uint8_t padded_key[FD_SHA1_BLOCK_LEN],
                                 uint32_t inner_chain[5], uint32_t outer_chain[5]);
typedef void fd_sha256_hmac_key_fn(const uint8_t padded_key[FD_SHA256_BLOCK_LEN],
                                   uint32_t inner_chain[8], uint32_t outer_chain[8]);

/* ---- multi-buffer kernels ---------------------------------------------- */

/* The most lanes any kernel has, and so the most messages in flight. */
#define FD_BATCH_MAX_LANES 16

/* The chaining values of up to FD_BATCH_MAX_LANES lanes, in the layout each
 * family's kernels take (the batch driver's lanes, PBKDF2's blocks). */
typedef union fd_lane_chains {
    uint32_t md5[FD_BATCH_MAX_LANES][4];
    uint32_t sha1[FD_BATCH_MAX_LANES][5];
    uint32_t sha256[FD_BATCH_MAX_LANES][8];
    uint64_t sha512[FD_BATCH_MAX_LANES][8];
} fd_lane_chains;

/* Compresses nblocks consecutive blocks from blocks[lane] (any alignment)
 * into chains[lane] for each of the kernel's lanes: every lane advances by
 * the same number of blocks. */
typedef void fd_md5_blocks_multi_fn(uint32_t (*chains)[4], const uint8_t *const *blocks,
                                    size_t nblocks);
typedef void fd_sha1_blocks_multi_fn(uint32_t (*chains)[5], const uint8_t *const *blocks,
                                     size_t nblocks);
typedef void fd_sha256_blocks_multi_fn(uint32_t (*chains)[8], const uint8_t *const *blocks,
                                       size_t nblocks);
typedef void fd_sha512_blocks_multi_fn(uint64_t (*chains)[8], const uint8_t *const *blocks,
                                       size_t nblocks);

/* ---- constants --------------------------------------------------------- */

/* The round constants K0..K63 and K0..K79 (kernels/round_constants.c). */
extern const uint32_t fd_sha256_round_constants[64];
extern const uint64_t fd_sha512_round_constants[80];

#endif /* FD_KERNELS_KERNEL_H */
