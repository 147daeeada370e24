/* SHA-256 (FIPS 180-4, 6.2.2): the portable compression, the kernel every other SHA-256
 * kernel is tested against. */
#include "kernels/portable/portable.h"

#include "kernels/endian.h"

/* One round with the working variables named by position: the caller rotates
 * the names instead of moving eight values, so only d and h are written. */
static inline void sha256_round(uint32_t a, uint32_t b, uint32_t c, uint32_t *d, uint32_t e,
                                uint32_t f, uint32_t g, uint32_t *h, uint32_t k_plus_w)
{
    uint32_t sigma1 = fd_rotr32(e, 6) ^ fd_rotr32(e, 11) ^ fd_rotr32(e, 25);
    uint32_t choose = g ^ (e & (f ^ g));
    uint32_t t1 = *h + sigma1 + choose + k_plus_w;
    uint32_t sigma0 = fd_rotr32(a, 2) ^ fd_rotr32(a, 13) ^ fd_rotr32(a, 22);
    uint32_t majority = (a & b) | (c & (a | b));

    *d += t1;
    *h = t1 + sigma0 + majority;
}

void fd_sha256_blocks_portable(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    const uint32_t *k = fd_sha256_round_constants;

    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++)
            w[t] = fd_load_be32(blocks + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = fd_rotr32(w[t - 15], 7) ^ fd_rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = fd_rotr32(w[t - 2], 17) ^ fd_rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }

        uint32_t a = chain->words[0], b = chain->words[1], c = chain->words[2], d = chain->words[3];
        uint32_t e = chain->words[4], f = chain->words[5], g = chain->words[6], h = chain->words[7];
        for (int t = 0; t < 64; t += 8) {
            sha256_round(a, b, c, &d, e, f, g, &h, k[t] + w[t]);
            sha256_round(h, a, b, &c, d, e, f, &g, k[t + 1] + w[t + 1]);
            sha256_round(g, h, a, &b, c, d, e, &f, k[t + 2] + w[t + 2]);
            sha256_round(f, g, h, &a, b, c, d, &e, k[t + 3] + w[t + 3]);
            sha256_round(e, f, g, &h, a, b, c, &d, k[t + 4] + w[t + 4]);
            sha256_round(d, e, f, &g, h, a, b, &c, k[t + 5] + w[t + 5]);
            sha256_round(c, d, e, &f, g, h, a, &b, k[t + 6] + w[t + 6]);
            sha256_round(b, c, d, &e, f, g, h, &a, k[t + 7] + w[t + 7]);
        }
        chain->words[0] += a;
        chain->words[1] += b;
        chain->words[2] += c;
        chain->words[3] += d;
        chain->words[4] += e;
        chain->words[5] += f;
        chain->words[6] += g;
        chain->words[7] += h;
    }
}
