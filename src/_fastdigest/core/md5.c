/* MD5 (RFC 1321): the stream layer (IV, buffering, padding) over the active kernel. */
#include "core/md5.h"

#include "core/buffer.h"
#include "dispatch/dispatch.h"
#include "kernels/endian.h"

static void md5_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_MD5].blocks.md5(chain, blocks, nblocks);
}

void fd_md5_init(fd_md5_state *state)
{
    static const uint32_t iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_md5_update(fd_md5_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_MD5_BLOCK_LEN, &state->byte_count, md5_compress,
                    data, len);
}

void fd_md5_final(fd_md5_state *state, uint8_t out[FD_MD5_DIGEST_LEN])
{
    fd_block_pad(state->chain, state->block, FD_MD5_BLOCK_LEN, state->byte_count, 8, md5_compress);
    /* The bit length modulo 2^64, little-endian (RFC 1321, 3.2). */
    fd_store_le64(state->block + FD_MD5_BLOCK_LEN - 8, state->byte_count << 3);
    md5_compress(state->chain, state->block, 1);
    for (int i = 0; i < 4; i++)
        fd_store_le32(out + 4 * i, state->chain[i]);
}
