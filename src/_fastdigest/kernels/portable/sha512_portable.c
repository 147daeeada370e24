/* SHA-512 (FIPS 180-4, 6.4.2): the portable compression, the kernel every other SHA-512
 * kernel is tested against. */
#include "kernels/portable/portable.h"

#include "kernels/endian.h"

/* One round with the working variables named by position, as in sha256_portable.c. */
static inline void sha512_round(uint64_t a, uint64_t b, uint64_t c, uint64_t *d, uint64_t e,
                                uint64_t f, uint64_t g, uint64_t *h, uint64_t k_plus_w)
{
    uint64_t sigma1 = fd_rotr64(e, 14) ^ fd_rotr64(e, 18) ^ fd_rotr64(e, 41);
    uint64_t choose = g ^ (e & (f ^ g));
    uint64_t t1 = *h + sigma1 + choose + k_plus_w;
    uint64_t sigma0 = fd_rotr64(a, 28) ^ fd_rotr64(a, 34) ^ fd_rotr64(a, 39);
    uint64_t majority = (a & b) | (c & (a | b));

    *d += t1;
    *h = t1 + sigma0 + majority;
}

void fd_sha512_blocks_portable(fd_sha512_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    const uint64_t *k = fd_sha512_round_constants;

    for (; nblocks != 0; nblocks--, blocks += FD_SHA512_BLOCK_LEN) {
        uint64_t w[80];
        for (int t = 0; t < 16; t++)
            w[t] = fd_load_be64(blocks + 8 * t);
        for (int t = 16; t < 80; t++) {
            uint64_t s0 = fd_rotr64(w[t - 15], 1) ^ fd_rotr64(w[t - 15], 8) ^ (w[t - 15] >> 7);
            uint64_t s1 = fd_rotr64(w[t - 2], 19) ^ fd_rotr64(w[t - 2], 61) ^ (w[t - 2] >> 6);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }

        uint64_t a = chain->words[0], b = chain->words[1], c = chain->words[2], d = chain->words[3];
        uint64_t e = chain->words[4], f = chain->words[5], g = chain->words[6], h = chain->words[7];
        for (int t = 0; t < 80; t += 8) {
            sha512_round(a, b, c, &d, e, f, g, &h, k[t] + w[t]);
            sha512_round(h, a, b, &c, d, e, f, &g, k[t + 1] + w[t + 1]);
            sha512_round(g, h, a, &b, c, d, e, &f, k[t + 2] + w[t + 2]);
            sha512_round(f, g, h, &a, b, c, d, &e, k[t + 3] + w[t + 3]);
            sha512_round(e, f, g, &h, a, b, c, &d, k[t + 4] + w[t + 4]);
            sha512_round(d, e, f, &g, h, a, b, &c, k[t + 5] + w[t + 5]);
            sha512_round(c, d, e, &f, g, h, a, &b, k[t + 6] + w[t + 6]);
            sha512_round(b, c, d, &e, f, g, h, &a, k[t + 7] + w[t + 7]);
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
