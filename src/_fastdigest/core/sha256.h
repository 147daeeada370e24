/* SHA-256 and SHA-224 (FIPS 180-4): one compression, two IVs. */
#ifndef FD_CORE_SHA256_H
#define FD_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

typedef struct fd_sha256_state {
    uint32_t chain[8];
    uint64_t byte_count; /* the padding writes byte_count * 8 as 64 bits */
    uint8_t block[FD_SHA256_BLOCK_LEN];
} fd_sha256_state;

void fd_sha256_init(fd_sha256_state *state);
void fd_sha224_init(fd_sha256_state *state);
/* data may be NULL when len is 0. */
void fd_sha256_update(fd_sha256_state *state, const uint8_t *data, size_t len);
/* Writes the first digest_len bytes (28 or 32) of the digest. Leaves state
 * padded: init it before reuse. */
void fd_sha256_final(fd_sha256_state *state, uint8_t *out, size_t digest_len);

#endif /* FD_CORE_SHA256_H */
