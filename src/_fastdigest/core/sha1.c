/* SHA-1 (FIPS 180-4, 6.1): the stream layer (IV, buffering, padding) over the active kernel. */
#include "core/sha1.h"

#include "core/buffer.h"
#include "dispatch/dispatch.h"
#include "kernels/endian.h"

static void sha1_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_SHA1].blocks.sha1(chain, blocks, nblocks);
}

void fd_sha1_init(fd_sha1_state *state)
{
    static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_sha1_update(fd_sha1_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_SHA1_BLOCK_LEN, &state->byte_count,
                    sha1_compress, data, len);
}

void fd_sha1_final(fd_sha1_state *state, uint8_t out[FD_SHA1_DIGEST_LEN])
{
    fd_block_pad(state->chain, state->block, FD_SHA1_BLOCK_LEN, state->byte_count, 8,
                 sha1_compress);
    fd_store_be64(state->block + FD_SHA1_BLOCK_LEN - 8, state->byte_count << 3);
    sha1_compress(state->chain, state->block, 1);
    for (int i = 0; i < 5; i++)
        fd_store_be32(out + 4 * i, state->chain[i]);
}
