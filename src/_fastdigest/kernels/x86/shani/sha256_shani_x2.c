/* SHA-256 compression of two messages at once with the SHA extensions.
 *
 * The instructions are those of sha256_shani.c (see there). One message is
 * bound by the latency of sha256rnds2: 32 of them in a row per block, each
 * waiting for the last, while the core could start one every cycle or two.
 * A second, independent message fills those idle cycles: its rounds are
 * interleaved with the first's, call by call, so that the out-of-order core
 * always has a ready sha256rnds2. Intel's multi-buffer SHA-256 for SHA-NI
 * (isa-l_crypto's sha256_ni_x2) does the same, and AMD Zen runs two such
 * streams at nearly twice the speed of one.
 *
 * The steps of both lanes are written side by side in small inline
 * functions over two-element arrays, which the compiler keeps in registers
 * once inlined. Sixteen xmm registers do not hold both lanes' state, window
 * and saved state, so the saved state lives on the stack: it is read once
 * per block. The two streams serve HMAC and PBKDF2 too:
 * fd_sha256_hmac_key_shani_x2 compresses HMAC's two keyed blocks at once,
 * and fd_sha256_pbkdf2_shani_x2 iterates two PBKDF2 output blocks. */
#include "kernels/x86/shani/shani.h"

#ifdef FD_HAVE_SHANI

#include <immintrin.h>

#include "kernels/x86/shani/sha256_shani_steps.h"

/* Rounds 4j..4j+3 of both lanes with their word groups. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void rounds4(__m128i abef[2], __m128i cdgh[2], const __m128i words[2],
                                     int j)
{
    const __m128i k = _mm_loadu_si128(
        (const __m128i *)(const void *)&fd_sha256_round_constants[4 * j]);
    __m128i w_plus_k0 = _mm_add_epi32(words[0], k);
    __m128i w_plus_k1 = _mm_add_epi32(words[1], k);

    cdgh[0] = _mm_sha256rnds2_epu32(cdgh[0], abef[0], w_plus_k0); /* now ABEF */
    cdgh[1] = _mm_sha256rnds2_epu32(cdgh[1], abef[1], w_plus_k1);
    w_plus_k0 = _mm_shuffle_epi32(w_plus_k0, 0x0e);
    w_plus_k1 = _mm_shuffle_epi32(w_plus_k1, 0x0e);
    abef[0] = _mm_sha256rnds2_epu32(abef[0], cdgh[0], w_plus_k0);
    abef[1] = _mm_sha256rnds2_epu32(abef[1], cdgh[1], w_plus_k1);
}

/* sha256msg1 on both lanes: group j becomes W[t-16] + sigma0(W[t-15]) for
 * group j+4. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void start_group(__m128i group[2], const __m128i next[2])
{
    group[0] = _mm_sha256msg1_epu32(group[0], next[0]);
    group[1] = _mm_sha256msg1_epu32(group[1], next[1]);
}

/* Finishes a started group with W[t-7] (from groups j+2 and j+3) and the
 * sigma1 terms, on both lanes. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void finish_group(__m128i partial[2], const __m128i group2[2],
                                          const __m128i group3[2])
{
    partial[0] = next_word_group(partial[0], group2[0], group3[0]);
    partial[1] = next_word_group(partial[1], group2[1], group3[1]);
}

FD_TARGET_SHANI
static FD_ALWAYS_INLINE void load_groups(__m128i group[2], const uint8_t *const p[2], size_t offset)
{
    group[0] = load_word_group(p[0] + offset);
    group[1] = load_word_group(p[1] + offset);
}

/* Compresses one block of each lane, given as its four word groups, into
 * the lanes' states: 64 rounds and the feed-forward. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_pair(__m128i abef[2], __m128i cdgh[2], __m128i w0[2],
                                           __m128i w1[2], __m128i w2[2], __m128i w3[2])
{
    const __m128i abef_in[2] = {abef[0], abef[1]};
    const __m128i cdgh_in[2] = {cdgh[0], cdgh[1]};

    /* The sliding window of four groups per lane, as in sha256_shani.c:
     * group j lives in w(j mod 4). */
    rounds4(abef, cdgh, w0, 0);
    rounds4(abef, cdgh, w1, 1);
    start_group(w0, w1);
    rounds4(abef, cdgh, w2, 2);
    start_group(w1, w2);
    rounds4(abef, cdgh, w3, 3);
    finish_group(w0, w2, w3);
    start_group(w2, w3);

    for (int j = 4; j < 12; j += 4) {
        rounds4(abef, cdgh, w0, j);
        finish_group(w1, w3, w0);
        start_group(w3, w0);
        rounds4(abef, cdgh, w1, j + 1);
        finish_group(w2, w0, w1);
        start_group(w0, w1);
        rounds4(abef, cdgh, w2, j + 2);
        finish_group(w3, w1, w2);
        start_group(w1, w2);
        rounds4(abef, cdgh, w3, j + 3);
        finish_group(w0, w2, w3);
        start_group(w2, w3);
    }
    rounds4(abef, cdgh, w0, 12);
    finish_group(w1, w3, w0);
    start_group(w3, w0);
    rounds4(abef, cdgh, w1, 13);
    finish_group(w2, w0, w1);
    rounds4(abef, cdgh, w2, 14);
    finish_group(w3, w1, w2);
    rounds4(abef, cdgh, w3, 15);

    for (int lane = 0; lane < 2; lane++) {
        abef[lane] = _mm_add_epi32(abef[lane], abef_in[lane]);
        cdgh[lane] = _mm_add_epi32(cdgh[lane], cdgh_in[lane]);
    }
}

#ifdef FD_HAVE_SHANI_X2
FD_TARGET_SHANI
void fd_sha256_blocks_shani_x2(fd_sha256_chain *chains, const uint8_t *const *blocks,
                               size_t nblocks)
{
    __m128i abef[2], cdgh[2];
    const uint8_t *p[2] = {blocks[0], blocks[1]};

    for (int lane = 0; lane < 2; lane++)
        chain_to_state(&chains[lane], &abef[lane], &cdgh[lane]);
    for (; nblocks != 0; nblocks--) {
        __m128i w0[2], w1[2], w2[2], w3[2];
        load_groups(w0, p, 0);
        load_groups(w1, p, 16);
        load_groups(w2, p, 32);
        load_groups(w3, p, 48);
        compress_pair(abef, cdgh, w0, w1, w2, w3);
        p[0] += FD_SHA256_BLOCK_LEN;
        p[1] += FD_SHA256_BLOCK_LEN;
    }
    for (int lane = 0; lane < 2; lane++)
        state_to_chain(abef[lane], cdgh[lane], &chains[lane]);
}
#endif

/* HMAC's keyed blocks (hash/hmac.c): K' ^ ipad onto inner_chain and K' ^ opad
 * onto outer_chain in one pass, the XORs done on the loaded word groups
 * (every byte of a pad is the same, so the byte swap does not change
 * them). */
FD_TARGET_SHANI
void fd_sha256_hmac_key_shani_x2(const uint8_t padded_key[FD_SHA256_BLOCK_LEN],
                                 fd_sha256_chain *inner_chain, fd_sha256_chain *outer_chain)
{
    const __m128i inner_pad = _mm_set1_epi32(0x36363636), outer_pad = _mm_set1_epi32(0x5c5c5c5c);
    __m128i abef[2], cdgh[2], w[4][2];

    chain_to_state(inner_chain, &abef[0], &cdgh[0]);
    chain_to_state(outer_chain, &abef[1], &cdgh[1]);
    for (int j = 0; j < 4; j++) {
        __m128i key_words = load_word_group(padded_key + 16 * j);
        w[j][0] = _mm_xor_si128(key_words, inner_pad);
        w[j][1] = _mm_xor_si128(key_words, outer_pad);
    }
    compress_pair(abef, cdgh, w[0], w[1], w[2], w[3]);
    state_to_chain(abef[0], cdgh[0], inner_chain);
    state_to_chain(abef[1], cdgh[1], outer_chain);
}

/* PBKDF2's iterations for two output blocks at once (hash/hmac.c): the
 * loop of sha256_shani.c, whose digest never leaves the registers, with the
 * two blocks' chains interleaved through compress_pair. One block's loop is
 * a chain of dependent sha256rnds2; the other's fills the cycles in between,
 * so two blocks cost little more than one. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void pbkdf2_iterate_pair(const fd_sha256_chain *inner_chain,
                                                 const fd_sha256_chain *outer_chain,
                                                 size_t digest_words, fd_sha256_chain *words,
                                                 size_t count, uint32_t iterations_left)
{
    const digest_block_padding padding = padding_after_digest(digest_words);
    __m128i inner_abef, inner_cdgh, outer_abef, outer_cdgh, u0[2], u1[2], t0[2], t1[2];

    chain_to_state(inner_chain, &inner_abef, &inner_cdgh);
    chain_to_state(outer_chain, &outer_abef, &outer_cdgh);
    for (int lane = 0; lane < 2; lane++) {
        /* A single block runs in both lanes; only the first is stored. */
        const uint32_t *u = words[(size_t)lane < count ? lane : 0].words;
        u0[lane] = _mm_loadu_si128((const __m128i *)(const void *)u);
        u1[lane] = mark_digest_end(&padding,
                                   _mm_loadu_si128((const __m128i *)(const void *)(u + 4)));
        t0[lane] = u0[lane];
        t1[lane] = u1[lane];
    }

    for (; iterations_left != 0; iterations_left--) {
        __m128i abef[2] = {inner_abef, inner_abef}, cdgh[2] = {inner_cdgh, inner_cdgh};
        __m128i w2[2] = {padding.group2, padding.group2}, w3[2] = {padding.group3, padding.group3};
        compress_pair(abef, cdgh, u0, u1, w2, w3);
        for (int lane = 0; lane < 2; lane++) {
            state_to_groups(abef[lane], cdgh[lane], &u0[lane], &u1[lane]);
            u1[lane] = mark_digest_end(&padding, u1[lane]);
            abef[lane] = outer_abef;
            cdgh[lane] = outer_cdgh;
            w2[lane] = padding.group2;
            w3[lane] = padding.group3;
        }
        compress_pair(abef, cdgh, u0, u1, w2, w3);
        for (int lane = 0; lane < 2; lane++) {
            state_to_groups(abef[lane], cdgh[lane], &u0[lane], &u1[lane]);
            u1[lane] = mark_digest_end(&padding, u1[lane]);
            t0[lane] = _mm_xor_si128(t0[lane], u0[lane]);
            t1[lane] = _mm_xor_si128(t1[lane], u1[lane]);
        }
    }

    for (size_t lane = 0; lane < count; lane++) {
        _mm_storeu_si128((__m128i *)(void *)words[lane].words, t0[lane]);
        if (padding.truncated) {
            /* SHA-224's eighth word is the marker, not T's. */
            words[lane].words[4] = (uint32_t)_mm_cvtsi128_si32(t1[lane]);
            words[lane].words[5] = (uint32_t)_mm_extract_epi32(t1[lane], 1);
            words[lane].words[6] = (uint32_t)_mm_extract_epi32(t1[lane], 2);
        }
        else {
            _mm_storeu_si128((__m128i *)(void *)(words[lane].words + 4), t1[lane]);
        }
    }
}

FD_TARGET_SHANI
void fd_sha256_pbkdf2_shani_x2(const fd_sha256_chain *inner_chain,
                               const fd_sha256_chain *outer_chain, size_t digest_len,
                               fd_sha256_chain *words, size_t count, uint32_t iterations_left)
{
    if (digest_len == FD_SHA224_DIGEST_LEN)
        pbkdf2_iterate_pair(inner_chain, outer_chain, 7, words, count, iterations_left);
    else
        pbkdf2_iterate_pair(inner_chain, outer_chain, 8, words, count, iterations_left);
}

#endif /* FD_HAVE_SHANI */
