/* SHA-256 compression with AVX2 for the message schedule and BMI1/BMI2 for
 * the rounds.
 *
 * The method of Intel's "Fast SHA-256 Implementations on Intel Architecture
 * Processors" (Guilford et al., 2012), whose AVX2 form OpenSSL's
 * sha256-x86_64.pl and Linux's sha256_avx2_x86_64_asm.S implement; the
 * structure is that of sha512_avx2.c (read its header first):
 *   The 64 rounds are one dependency chain of 32-bit scalar operations, so
 *     they stay scalar; BMI2's rorx rotates without overwriting its source
 *     and BMI1's andn computes ~e & g in one instruction.
 *   A 256-bit register holds four consecutive schedule words of two blocks,
 *     one block per 128-bit lane, so every shuffle stays inside a lane. The
 *     recurrence W[t] = sigma1(W[t-2]) + ... lets a step make only two words
 *     from the previous group, so sigma1 is computed in two halves.
 *   The schedule writes W+K of both blocks to the stack beside the first
 *     block's rounds, one step (four words) per four rounds; the second
 *     block's rounds then read theirs from the stack.
 * An odd final block is paired with itself, and its duplicate's rounds are
 * skipped.
 *
 * The rounds bound this kernel: 22 integer operations a round, six of them
 * rotations, which Zen 3 runs on two of its four ALUs only. Built by GCC it
 * runs as fast as OpenSSL 3.0's AVX2 assembly (benchmarks/kernel_cpb.c,
 * with OPENSSL_ia32cap hiding SHA-NI), built by Clang a little slower; the
 * same rounds with W+K precomputed are barely faster, so the schedule
 * beside them costs little. Tried and measured, so that it need not be
 * tried again (GCC unless said):
 *   - rounds as the compiler likes them: FD_VALUE_BARRIER below pays (more
 *     so with Clang), and so does Sigma0 added one round late (OpenSSL's
 *     order);
 *   - shorter dependency chains at the price of an operation: e' computed
 *     as (d + h + W + K + Ch) + Sigma1 (e chain 4 instead of 5 cycles),
 *     Maj as (a & (b ^ c)) + (b & c) with b & c carried: slower, as is Ch
 *     as g ^ (e & (f ^ g));
 *   - the next pair's schedule spread over this pair's second block (six
 *     steps beside each block, two W+K buffers), with the window in
 *     registers or on the stack: slower;
 *   - sigma1's two halves joined with zeroing vpshufb instead of vpblendd,
 *     K from a table of 32-byte rows instead of vbroadcasti128: slower;
 *   - more unrolling (the second block's 64 rounds, or the first block's
 *     loop): slower; -falign-loops, -mtune=znver3: no faster;
 *   - the state passed by pointer into the inlined loop: slower than a
 *     local copy; GCC -O2 instead of setup.py's -O3: slower.
 * HMAC and PBKDF2 stay with hmac.c's generic code for this kernel: an
 * in-kernel PBKDF2 loop (the digest passed in registers, rounds 0..15 from
 * the message words, round 0 of each keyed chain precomputed) measured no
 * better than the generic loop (either way by code placement), an in-kernel
 * HMAC end slower, and HMAC's two keyed blocks in one schedule hardly
 * faster (with their rounds interleaved, much slower: two states do not fit
 * the registers). */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2

#include <immintrin.h>

/* Words 4j..4j+3 of two blocks, first block in the low lane, each word's
 * bytes reversed from the big-endian input. _mm_loadu_si128 is the
 * intrinsic for an address of any alignment. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i load_word_group(const uint8_t *first, const uint8_t *second)
{
    const __m256i swap_bytes_in_words = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0,
                                                        1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5,
                                                        6, 7, 0, 1, 2, 3);
    __m128i low = _mm_loadu_si128((const __m128i *)(const void *)first);
    __m128i high = _mm_loadu_si128((const __m128i *)(const void *)second);

    return _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1),
                               swap_bytes_in_words);
}

/* sigma0(x) = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3) on each word. AVX2 has no
 * rotate; the shifted pieces of one rotation never overlap, so xor joins
 * them as well as or would. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma0(__m256i x)
{
    __m256i right = _mm256_xor_si256(_mm256_srli_epi32(x, 7), _mm256_srli_epi32(x, 18));
    __m256i left = _mm256_xor_si256(_mm256_slli_epi32(x, 25), _mm256_slli_epi32(x, 14));
    return _mm256_xor_si256(_mm256_xor_si256(right, left), _mm256_srli_epi32(x, 3));
}

/* sigma1(x) = rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10) of two words given
 * twice each, {x0, x0, x1, x1}: a 64-bit lane holding a word in both halves
 * shifted right by n has that word rotated by n in its low half. The
 * results are in words 0 and 2 of each lane; words 1 and 3 are garbage. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma1_doubled(__m256i doubled)
{
    __m256i rotations = _mm256_xor_si256(_mm256_srli_epi64(doubled, 17),
                                         _mm256_srli_epi64(doubled, 19));
    return _mm256_xor_si256(rotations, _mm256_srli_epi32(doubled, 10));
}

/* Word group j (W[t..t+3], t = 4j) from groups j-4..j-1:
 *   W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16].
 * W[t-15..t-12] straddle groups j-4 and j-3, W[t-7..t-4] groups j-2 and
 * j-1: vpalignr joins them in each lane. sigma1 of W[t-2], W[t-1] gives the
 * low two words; sigma1 of those gives the high two. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i next_word_group(__m256i back4, __m256i back3, __m256i back2,
                                                __m256i back1)
{
    __m256i back15 = _mm256_alignr_epi8(back3, back4, 4);
    __m256i back7 = _mm256_alignr_epi8(back1, back2, 4);
    __m256i sum = _mm256_add_epi32(_mm256_add_epi32(back4, back7), small_sigma0(back15));
    /* {W[t-2], W[t-2], W[t-1], W[t-1]}; the sigmas to words 0 and 1. */
    __m256i sigma1 = small_sigma1_doubled(_mm256_shuffle_epi32(back1, 0xfa));
    __m256i low = _mm256_add_epi32(sum, _mm256_shuffle_epi32(sigma1, 0x08));
    /* {W[t], W[t], W[t+1], W[t+1]}; the sigmas to words 2 and 3. */
    sigma1 = small_sigma1_doubled(_mm256_shuffle_epi32(low, 0x50));
    __m256i high = _mm256_add_epi32(sum, _mm256_shuffle_epi32(sigma1, 0x80));
    return _mm256_blend_epi32(low, high, 0xcc);
}

/* Adds K[4j..4j+3] to both lanes of group j and stores it at
 * w_plus_k[8j..8j+7]: the first block's four words, then the second's. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void store_plus_constants(uint32_t *w_plus_k, __m256i group, int j)
{
    __m256i k = _mm256_broadcastsi128_si256(
        _mm_loadu_si128((const __m128i *)(const void *)&fd_sha256_round_constants[4 * j]));
    _mm256_store_si256((__m256i *)(void *)&w_plus_k[8 * j], _mm256_add_epi32(group, k));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n)); /* n is 1..31 at every call */
}

/* The working variables a..h in s[0..7] at every multiple of eight rounds,
 * and two values one round leaves for the next:
 *   a (s[0] after eight rounds) still lacks sigma0_pending, Sigma0 of the
 *     previous a, added at the start of the next round so that the sum
 *     making the new a does not wait for Sigma0's rotations;
 *   b_xor_c is the previous round's a ^ b, this round's b ^ c. */
typedef struct round_state {
    uint32_t s[8];
    uint32_t b_xor_c, sigma0_pending;
} round_state;

FD_TARGET_AVX2
static FD_ALWAYS_INLINE void start_block(round_state *r)
{
    r->b_xor_c = r->s[1] ^ r->s[2];
    r->sigma0_pending = 0;
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE void end_block(round_state *r, const uint32_t chain_in[8])
{
    r->s[0] += r->sigma0_pending;
    for (int i = 0; i < 8; i++)
        r->s[i] += chain_in[i];
}

/* One round with the working variables named by position, in the order of
 * the AVX2/BMI2 round of OpenSSL's sha256-x86_64.pl.
 *   Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), and b ^ c is carried from
 *     the previous round: c is not needed.
 *   Ch(e, f, g) is (e & f) + (~e & g): the halves share no bit, and as
 *     separate terms of the sum each waits one operation (and, andn) for e.
 *   h + W + K is the first sum: it waits for nothing of this round.
 * That is 22 integer operations a round, six of them rotations. Compilers
 * reorder and reassociate them as they like, and the speed depends on the
 * result: left alone, GCC 12 adds h + W + K last to the sum T1, Clang 14
 * splits a + Sigma0 differently; a barrier on t1 keeps h + W + K the first
 * sum (faster with both compilers), and one on a_full helps Clang but
 * costs GCC, so only Clang gets it. Other formulations measured slower
 * (header). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void sha256_round(uint32_t *a, uint32_t b, uint32_t *b_xor_c, uint32_t *d,
                                          uint32_t e, uint32_t f, uint32_t g, uint32_t *h,
                                          uint32_t w_plus_k, uint32_t *sigma0_pending)
{
    uint32_t t1 = *h + w_plus_k;
    FD_VALUE_BARRIER(t1);
    uint32_t e_and_f = f & e;
    uint32_t sigma1 = rotr32(e, 25);
    uint32_t sigma1_part = rotr32(e, 11);
    uint32_t a_full = *a + *sigma0_pending;
#ifdef FD_COMPILER_CLANG
    FD_VALUE_BARRIER(a_full);
#endif
    t1 += e_and_f;
    uint32_t not_e_and_g = ~e & g;
    sigma1 ^= sigma1_part;
    sigma1_part = rotr32(e, 6);
    t1 += not_e_and_g;
    sigma1 ^= sigma1_part;
    uint32_t a_xor_b = a_full;
    uint32_t sigma0_part = rotr32(a_full, 22);
    t1 += sigma1;
    a_xor_b ^= b;
    uint32_t sigma0 = rotr32(a_full, 13);
    uint32_t sigma0_last = rotr32(a_full, 2);
    *d += t1;
    uint32_t majority = *b_xor_c & a_xor_b;
    sigma0 ^= sigma0_part;
    majority ^= b;
    sigma0 ^= sigma0_last;
    t1 += majority;
    *a = a_full;
    *h = t1;
    *sigma0_pending = sigma0;
    *b_xor_c = a_xor_b;
}

/* Round t on the state: instead of moving the eight words each round, the
 * roles rotate, a being s[-t mod 8], b s[1-t mod 8], and so on. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void round_t(round_state *r, int t, uint32_t w_plus_k)
{
    uint32_t *s = r->s;
    sha256_round(&s[(8 - t) & 7], s[(9 - t) & 7], &r->b_xor_c, &s[(11 - t) & 7], s[(12 - t) & 7],
                 s[(13 - t) & 7], s[(14 - t) & 7], &s[(15 - t) & 7], w_plus_k, &r->sigma0_pending);
}

/* Eight rounds; wk holds their W+K at wk[0..3] and wk[8..11]: four rounds
 * per group of the two-block layout. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void rounds8(round_state *r, const uint32_t *wk)
{
    round_t(r, 0, wk[0]);
    round_t(r, 1, wk[1]);
    round_t(r, 2, wk[2]);
    round_t(r, 3, wk[3]);
    round_t(r, 4, wk[8]);
    round_t(r, 5, wk[9]);
    round_t(r, 6, wk[10]);
    round_t(r, 7, wk[11]);
}

/* Sixteen rounds of the low lane's block, 4j-16..4j-1, beside schedule
 * steps j..j+3, which replace the window w[0..3] (group j-4 in w[0]) with
 * groups j..j+3 and store them with their constants in w_plus_k. The
 * rounds read their W+K from wk (the layout of w_plus_k). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void rounds16_beside_schedule(round_state *r, const uint32_t *wk,
                                                      __m256i w[4], uint32_t *w_plus_k, int j)
{
    w[0] = next_word_group(w[0], w[1], w[2], w[3]);
    store_plus_constants(w_plus_k, w[0], j);
    round_t(r, 0, wk[0]);
    round_t(r, 1, wk[1]);
    round_t(r, 2, wk[2]);
    round_t(r, 3, wk[3]);
    w[1] = next_word_group(w[1], w[2], w[3], w[0]);
    store_plus_constants(w_plus_k, w[1], j + 1);
    round_t(r, 4, wk[8]);
    round_t(r, 5, wk[9]);
    round_t(r, 6, wk[10]);
    round_t(r, 7, wk[11]);
    w[2] = next_word_group(w[2], w[3], w[0], w[1]);
    store_plus_constants(w_plus_k, w[2], j + 2);
    round_t(r, 0, wk[16]);
    round_t(r, 1, wk[17]);
    round_t(r, 2, wk[18]);
    round_t(r, 3, wk[19]);
    w[3] = next_word_group(w[3], w[0], w[1], w[2]);
    store_plus_constants(w_plus_k, w[3], j + 3);
    round_t(r, 4, wk[24]);
    round_t(r, 5, wk[25]);
    round_t(r, 6, wk[26]);
    round_t(r, 7, wk[27]);
}

/* Compresses nblocks blocks onto the state, two at a time: the schedule of
 * both beside the first one's rounds, then the second one's rounds from
 * the stack. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void compress_blocks(round_state *state, const uint8_t *blocks,
                                             size_t nblocks)
{
    /* Working on a local copy, not through the caller's pointer, let GCC
     * 12 keep the state in registers, which is faster. */
    round_state local = *state, *r = &local;
    /* W[t] + K[t] of two blocks: entries 8j..8j+7 hold rounds 4j..4j+3 of
     * the first block, then of the second. */
    _Alignas(32) uint32_t w_plus_k[8 * 16];

    while (nblocks != 0) {
        const uint8_t *second = nblocks >= 2 ? blocks + FD_SHA256_BLOCK_LEN : blocks;
        uint32_t chain_in[8];
        __m256i w[4];

        for (int i = 0; i < 4; i++) {
            w[i] = load_word_group(blocks + 16 * i, second + 16 * i);
            store_plus_constants(w_plus_k, w[i], i);
        }

        /* The first block. Rounds 4j-16..4j-13 run beside step j and read
         * the group stored four steps earlier. */
        for (int i = 0; i < 8; i++)
            chain_in[i] = r->s[i];
        start_block(r);
        for (int j = 4; j < 16; j += 4)
            rounds16_beside_schedule(r, &w_plus_k[8 * (j - 4)], w, w_plus_k, j);
        FD_UNROLL(8)
        for (int t = 48; t < 64; t += 8)
            rounds8(r, &w_plus_k[2 * t]);
        end_block(r, chain_in);

        if (nblocks == 1)
            break;

        /* The second block, from the W+K already on the stack. */
        for (int i = 0; i < 8; i++)
            chain_in[i] = r->s[i];
        start_block(r);
        FD_UNROLL(1)
        for (int t = 0; t < 64; t += 8)
            rounds8(r, &w_plus_k[2 * t + 4]);
        end_block(r, chain_in);

        blocks += 2 * FD_SHA256_BLOCK_LEN;
        nblocks -= 2;
    }
    *state = local;
}

FD_TARGET_AVX2
void fd_sha256_blocks_avx2(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    round_state r;

    for (int i = 0; i < 8; i++)
        r.s[i] = chain->words[i];
    compress_blocks(&r, blocks, nblocks);
    for (int i = 0; i < 8; i++)
        chain->words[i] = r.s[i];
}

#endif /* FD_HAVE_AVX2 */
