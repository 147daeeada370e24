/* SHA-256 and SHA-224 (FIPS 180-4): one compression, two IVs. */
#ifndef FD_SHA256_H
#define FD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define FD_SHA256_BLOCK_LEN 64
#define FD_SHA256_DIGEST_LEN 32
#define FD_SHA224_DIGEST_LEN 28

typedef struct fd_sha256_state {
    uint32_t chain[8];
    uint64_t byte_count; /* the padding writes byte_count * 8 as 64 bits */
    uint8_t block[FD_SHA256_BLOCK_LEN];
} fd_sha256_state;

/* Compresses nblocks consecutive 64-byte blocks at any alignment into chain,
 * which holds the words a..h in FIPS order whatever a kernel uses inside. */
typedef void fd_sha256_blocks_fn(uint32_t chain[8], const uint8_t *blocks, size_t nblocks);

/* Iterations 2..c of one PBKDF2-HMAC output block (RFC 8018, 5.2) with the
 * whole loop inside a kernel, for kernels that can keep it in registers
 * (hmac.c uses it when the active kernel has one). inner_chain and
 * outer_chain are the keyed chains; digest_words is 8 (SHA-256) or 7
 * (SHA-224). On entry words holds U_1, on return T = U_1 ^ ... ^ U_c, both
 * as the first digest_words chain words; iterations_left is c - 1. */
typedef void fd_sha256_pbkdf2_fn(const uint32_t inner_chain[8], const uint32_t outer_chain[8],
                                 size_t digest_words, uint32_t words[8],
                                 uint32_t iterations_left);

/* The end of an HMAC inside a kernel, for kernels that keep it in registers
 * (hmac.c uses it when the active kernel has one): compresses the inner
 * hash's last tail_blocks blocks, already padded, from tail onto
 * inner_chain; then the block made of that digest and its fixed padding (the
 * outer hash sees one keyed block and one digest) onto outer_chain; and
 * writes the first digest_words words of the result, big-endian, to out. */
typedef void fd_sha256_hmac_finish_fn(const uint32_t inner_chain[8], const uint8_t *tail,
                                      size_t tail_blocks, const uint32_t outer_chain[8],
                                      size_t digest_words, uint8_t *out);

fd_sha256_blocks_fn fd_sha256_blocks_portable;

/* The round constants K0..K63, shared by every SHA-256 kernel. */
extern const uint32_t fd_sha256_round_constants[64];

void fd_sha256_init(fd_sha256_state *state);
void fd_sha224_init(fd_sha256_state *state);
/* data may be NULL when len is 0. */
void fd_sha256_update(fd_sha256_state *state, const uint8_t *data, size_t len);
/* Writes the first digest_len bytes (28 or 32) of the digest. Leaves state
 * padded: init it before reuse. */
void fd_sha256_final(fd_sha256_state *state, uint8_t *out, size_t digest_len);

#endif /* FD_SHA256_H */
