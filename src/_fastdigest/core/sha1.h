/* SHA-1 (FIPS 180-4). */
#ifndef FD_CORE_SHA1_H
#define FD_CORE_SHA1_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

typedef struct fd_sha1_state {
    uint32_t chain[5];
    /* FIPS 180-4 limits messages to 2^64 bits; a byte count wraps at 2^64
     * bytes, long after that limit, and at no realistic input size. */
    uint64_t byte_count;
    uint8_t block[FD_SHA1_BLOCK_LEN];
} fd_sha1_state;

void fd_sha1_init(fd_sha1_state *state);
/* data may be NULL when len is 0. */
void fd_sha1_update(fd_sha1_state *state, const uint8_t *data, size_t len);
/* Writes the 20-byte digest. Leaves state padded: init it before reuse. */
void fd_sha1_final(fd_sha1_state *state, uint8_t out[FD_SHA1_DIGEST_LEN]);

#endif /* FD_CORE_SHA1_H */
