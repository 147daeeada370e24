/* MD5 (RFC 1321). */
#ifndef FD_CORE_MD5_H
#define FD_CORE_MD5_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

typedef struct fd_md5_state {
    uint32_t chain[4];
    uint64_t byte_count; /* the padding keeps its low 64 bits, as RFC 1321 says */
    uint8_t block[FD_MD5_BLOCK_LEN];
} fd_md5_state;

void fd_md5_init(fd_md5_state *state);
/* data may be NULL when len is 0. */
void fd_md5_update(fd_md5_state *state, const uint8_t *data, size_t len);
/* Writes the 16-byte digest. Leaves state padded: init it before reuse. */
void fd_md5_final(fd_md5_state *state, uint8_t out[FD_MD5_DIGEST_LEN]);

#endif /* FD_CORE_MD5_H */
