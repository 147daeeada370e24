/* SHA-512, SHA-384, SHA-512/224 and SHA-512/256 (FIPS 180-4, 6.4 to 6.7): the stream
 * layer (four IVs, buffering, padding) over the active kernel. */
#include "core/sha512.h"

#include "core/buffer.h"
#include "dispatch/dispatch.h"
#include "kernels/endian.h"

static void sha512_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_SHA512].blocks.sha512(chain, blocks, nblocks);
}

static void sha512_init_with(fd_sha512_state *state, const uint64_t iv[8])
{
    memcpy(state->chain, iv, sizeof state->chain);
    state->byte_count = 0;
}

/* The initial hash values of FIPS 180-4, 5.3.4 to 5.3.6. */
void fd_sha512_init(fd_sha512_state *state)
{
    static const uint64_t iv[8] = {
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    };
    sha512_init_with(state, iv);
}

void fd_sha384_init(fd_sha512_state *state)
{
    static const uint64_t iv[8] = {
        0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
        0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
    };
    sha512_init_with(state, iv);
}

void fd_sha512_224_init(fd_sha512_state *state)
{
    static const uint64_t iv[8] = {
        0x8c3d37c819544da2, 0x73e1996689dcd4d6, 0x1dfab7ae32ff9c82, 0x679dd514582f9fcf,
        0x0f6d2b697bd44da8, 0x77e36f7304c48942, 0x3f9d85a86a1d36c8, 0x1112e6ad91d692a1,
    };
    sha512_init_with(state, iv);
}

void fd_sha512_256_init(fd_sha512_state *state)
{
    static const uint64_t iv[8] = {
        0x22312194fc2bf72c, 0x9f555fa3c84c64c2, 0x2393b86b6f53b151, 0x963877195940eabd,
        0x96283ee2a88effe3, 0xbe5e1e2553863992, 0x2b0199fc2c85b8aa, 0x0eb72ddc81c52ca2,
    };
    sha512_init_with(state, iv);
}

void fd_sha512_update(fd_sha512_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_SHA512_BLOCK_LEN, &state->byte_count,
                    sha512_compress, data, len);
}

void fd_sha512_final(fd_sha512_state *state, uint8_t *out, size_t digest_len)
{
    fd_block_pad(state->chain, state->block, FD_SHA512_BLOCK_LEN, state->byte_count, 16,
                 sha512_compress);
    /* The bit length as 128 bits: the byte count's top three bits spill over. */
    fd_store_be64(state->block + FD_SHA512_BLOCK_LEN - 16, state->byte_count >> 61);
    fd_store_be64(state->block + FD_SHA512_BLOCK_LEN - 8, state->byte_count << 3);
    sha512_compress(state->chain, state->block, 1);

    /* SHA-512/224 ends inside a word, so serialise the whole chain first. */
    uint8_t full[FD_SHA512_DIGEST_LEN];
    for (int i = 0; i < 8; i++)
        fd_store_be64(full + 8 * i, state->chain[i]);
    memcpy(out, full, digest_len);
}
