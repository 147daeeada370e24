/* SHA-512, SHA-384, SHA-512/224 and SHA-512/256 (FIPS 180-4): one
 * compression, four IVs, four output lengths. */
#ifndef FD_CORE_SHA512_H
#define FD_CORE_SHA512_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

typedef struct fd_sha512_state {
    uint64_t chain[8];
    /* The padding writes a 128-bit bit count: (byte_count >> 61, byte_count << 3). */
    uint64_t byte_count;
    uint8_t block[FD_SHA512_BLOCK_LEN];
} fd_sha512_state;

void fd_sha512_init(fd_sha512_state *state);
void fd_sha384_init(fd_sha512_state *state);
void fd_sha512_224_init(fd_sha512_state *state);
void fd_sha512_256_init(fd_sha512_state *state);
/* data may be NULL when len is 0. */
void fd_sha512_update(fd_sha512_state *state, const uint8_t *data, size_t len);
/* Writes the first digest_len bytes (28, 32, 48 or 64) of the digest. Leaves
 * state padded: init it before reuse. */
void fd_sha512_final(fd_sha512_state *state, uint8_t *out, size_t digest_len);

#endif /* FD_CORE_SHA512_H */
