/* SHA-1 (FIPS 180-4). */
#ifndef FD_SHA1_H
#define FD_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define FD_SHA1_BLOCK_LEN 64
#define FD_SHA1_DIGEST_LEN 20

typedef struct fd_sha1_state {
    uint32_t chain[5];
    /* FIPS 180-4 limits messages to 2^64 bits; a byte count wraps at 2^64
     * bytes, long after that limit, and at no realistic input size. */
    uint64_t byte_count;
    uint8_t block[FD_SHA1_BLOCK_LEN];
} fd_sha1_state;

/* Compresses nblocks consecutive 64-byte blocks at any alignment into chain. */
typedef void fd_sha1_blocks_fn(uint32_t chain[5], const uint8_t *blocks, size_t nblocks);

/* The counterparts of fd_sha256_pbkdf2_fn and fd_sha256_hmac_finish_fn
 * (see sha256.h) for SHA-1's five words. */
typedef void fd_sha1_pbkdf2_fn(const uint32_t inner_chain[5], const uint32_t outer_chain[5],
                               uint32_t words[5], uint32_t iterations_left);
typedef void fd_sha1_hmac_finish_fn(const uint32_t inner_chain[5], const uint8_t *tail,
                                    size_t tail_blocks, const uint32_t outer_chain[5],
                                    uint8_t out[20]);

fd_sha1_blocks_fn fd_sha1_blocks_portable;

void fd_sha1_init(fd_sha1_state *state);
/* data may be NULL when len is 0. */
void fd_sha1_update(fd_sha1_state *state, const uint8_t *data, size_t len);
/* Writes the 20-byte digest. Leaves state padded: init it before reuse. */
void fd_sha1_final(fd_sha1_state *state, uint8_t out[FD_SHA1_DIGEST_LEN]);

#endif /* FD_SHA1_H */
