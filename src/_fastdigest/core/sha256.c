/* SHA-256 and SHA-224 (FIPS 180-4, 6.2 and 6.3): the stream layer (two IVs, buffering,
 * padding) over the active kernel. */
#include "core/sha256.h"

#include "core/buffer.h"
#include "dispatch/dispatch.h"
#include "kernels/endian.h"

static void sha256_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_SHA256].blocks.sha256(chain, blocks, nblocks);
}

void fd_sha256_init(fd_sha256_state *state)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_sha224_init(fd_sha256_state *state)
{
    static const uint32_t iv[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                   0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_sha256_update(fd_sha256_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_SHA256_BLOCK_LEN, &state->byte_count,
                    sha256_compress, data, len);
}

void fd_sha256_final(fd_sha256_state *state, uint8_t *out, size_t digest_len)
{
    fd_block_pad(state->chain, state->block, FD_SHA256_BLOCK_LEN, state->byte_count, 8,
                 sha256_compress);
    fd_store_be64(state->block + FD_SHA256_BLOCK_LEN - 8, state->byte_count << 3);
    sha256_compress(state->chain, state->block, 1);
    /* Both digest lengths are whole words. */
    for (size_t i = 0; i < digest_len / 4; i++)
        fd_store_be32(out + 4 * i, state->chain[i]);
}
