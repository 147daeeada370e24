/* SHA-1 compression of two messages at once with the SHA extensions.
 *
 * The instructions are those of sha1_shani.c (see there). One message is
 * bound by its chain of 20 sha1rnds4 per block, each waiting for the last;
 * a second, independent message's rounds, interleaved call by call, run in
 * the cycles the first leaves idle (isa-l_crypto's sha1_ni_x2 does the same).
 * Both lanes' steps are written side by side in inline functions over
 * two-element arrays, which the compiler keeps in registers once inlined.
 * The two streams also key HMAC (fd_sha1_hmac_key_shani_x2) and iterate
 * two PBKDF2 output blocks (fd_sha1_pbkdf2_shani_x2). */
#include "kernels/x86/shani/shani.h"

#ifdef FD_HAVE_SHANI

#include <immintrin.h>

#include "kernels/x86/shani/sha1_shani_steps.h"

/* Rounds 4g..4g+3 of both lanes, g >= 1: abcd_before holds each lane's
 * state from before the previous four rounds, whose a gives this group's e
 * (sha1nexte), and moves on by four rounds. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void rounds4(__m128i abcd[2], __m128i abcd_before[2],
                                     const __m128i words[2], int group)
{
    __m128i e_plus_words0 = _mm_sha1nexte_epu32(abcd_before[0], words[0]);
    __m128i e_plus_words1 = _mm_sha1nexte_epu32(abcd_before[1], words[1]);

    abcd_before[0] = abcd[0];
    abcd_before[1] = abcd[1];
    abcd[0] = sha1rnds4(abcd[0], e_plus_words0, group);
    abcd[1] = sha1rnds4(abcd[1], e_plus_words1, group);
}

FD_TARGET_SHANI
static FD_ALWAYS_INLINE void load_groups(__m128i group[2], const uint8_t *const p[2], size_t offset)
{
    group[0] = load_word_group(p[0] + offset);
    group[1] = load_word_group(p[1] + offset);
}

/* The schedule's three steps on both lanes: sha1msg1 adds W[t-14] to
 * W[t-16], the xor W[t-8], and sha1msg2 finishes with W[t-3]. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void msg1(__m128i group[2], const __m128i next[2])
{
    group[0] = _mm_sha1msg1_epu32(group[0], next[0]);
    group[1] = _mm_sha1msg1_epu32(group[1], next[1]);
}

FD_TARGET_SHANI
static FD_ALWAYS_INLINE void xor_in(__m128i group[2], const __m128i other[2])
{
    group[0] = _mm_xor_si128(group[0], other[0]);
    group[1] = _mm_xor_si128(group[1], other[1]);
}

FD_TARGET_SHANI
static FD_ALWAYS_INLINE void msg2(__m128i group[2], const __m128i previous[2])
{
    group[0] = _mm_sha1msg2_epu32(group[0], previous[0]);
    group[1] = _mm_sha1msg2_epu32(group[1], previous[1]);
}

/* Group g's rounds with the steady-state schedule beside them, named as in
 * sha1_shani.c: cur is group g, and next, after and start are groups g+1,
 * g+2 and g+3 of the window. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void rounds4_scheduling(__m128i abcd[2], __m128i abcd_before[2],
                                                __m128i cur[2], __m128i next[2], __m128i after[2],
                                                __m128i start[2], int group)
{
    rounds4(abcd, abcd_before, cur, group);
    msg2(next, cur);
    msg1(start, cur);
    xor_in(after, cur);
}

/* Compresses one block of each lane, given as its four word groups, into
 * the lanes' states (a..d in abcd, e alone in the top lane of e): 80 rounds
 * and the feed-forward. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_pair(__m128i abcd[2], __m128i e[2], __m128i w0[2],
                                           __m128i w1[2], __m128i w2[2], __m128i w3[2])
{
    const __m128i abcd_in[2] = {abcd[0], abcd[1]};
    const __m128i e_in[2] = {e[0], e[1]};
    __m128i abcd_before[2] = {abcd[0], abcd[1]};

    /* Rounds 0-19: the same sequence as sha1_shani.c, on both lanes. */
    abcd[0] = sha1rnds4(abcd[0], _mm_add_epi32(e[0], w0[0]), 0);
    abcd[1] = sha1rnds4(abcd[1], _mm_add_epi32(e[1], w0[1]), 0);
    rounds4(abcd, abcd_before, w1, 1);
    msg1(w0, w1);
    rounds4(abcd, abcd_before, w2, 2);
    msg1(w1, w2);
    xor_in(w0, w2);
    rounds4(abcd, abcd_before, w3, 3);
    msg2(w0, w3);
    msg1(w2, w3);
    xor_in(w1, w3);

    /* Groups 4..16: the window's roles rotate by one each group. */
    rounds4_scheduling(abcd, abcd_before, w0, w1, w2, w3, 4);
    rounds4_scheduling(abcd, abcd_before, w1, w2, w3, w0, 5);
    rounds4_scheduling(abcd, abcd_before, w2, w3, w0, w1, 6);
    rounds4_scheduling(abcd, abcd_before, w3, w0, w1, w2, 7);
    rounds4_scheduling(abcd, abcd_before, w0, w1, w2, w3, 8);
    rounds4_scheduling(abcd, abcd_before, w1, w2, w3, w0, 9);
    rounds4_scheduling(abcd, abcd_before, w2, w3, w0, w1, 10);
    rounds4_scheduling(abcd, abcd_before, w3, w0, w1, w2, 11);
    rounds4_scheduling(abcd, abcd_before, w0, w1, w2, w3, 12);
    rounds4_scheduling(abcd, abcd_before, w1, w2, w3, w0, 13);
    rounds4_scheduling(abcd, abcd_before, w2, w3, w0, w1, 14);
    rounds4_scheduling(abcd, abcd_before, w3, w0, w1, w2, 15);
    rounds4_scheduling(abcd, abcd_before, w0, w1, w2, w3, 16);

    /* Groups 17-19: the schedule ends with group 19. */
    rounds4(abcd, abcd_before, w1, 17);
    msg2(w2, w1);
    xor_in(w3, w1);
    rounds4(abcd, abcd_before, w2, 18);
    msg2(w3, w2);
    rounds4(abcd, abcd_before, w3, 19);

    for (int lane = 0; lane < 2; lane++) {
        e[lane] = _mm_sha1nexte_epu32(abcd_before[lane], e_in[lane]);
        abcd[lane] = _mm_add_epi32(abcd[lane], abcd_in[lane]);
    }
}

#ifdef FD_HAVE_SHANI_X2
FD_TARGET_SHANI
void fd_sha1_blocks_shani_x2(fd_sha1_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    __m128i abcd[2], e[2];
    const uint8_t *p[2] = {blocks[0], blocks[1]};

    for (int lane = 0; lane < 2; lane++)
        chain_to_state(&chains[lane], &abcd[lane], &e[lane]);
    for (; nblocks != 0; nblocks--) {
        __m128i w0[2], w1[2], w2[2], w3[2];
        load_groups(w0, p, 0);
        load_groups(w1, p, 16);
        load_groups(w2, p, 32);
        load_groups(w3, p, 48);
        compress_pair(abcd, e, w0, w1, w2, w3);
        p[0] += FD_SHA1_BLOCK_LEN;
        p[1] += FD_SHA1_BLOCK_LEN;
    }
    for (int lane = 0; lane < 2; lane++)
        state_to_chain(abcd[lane], e[lane], &chains[lane]);
}
#endif

/* HMAC's keyed blocks (hash/hmac.c), as fd_sha256_hmac_key_shani_x2 does them. */
FD_TARGET_SHANI
void fd_sha1_hmac_key_shani_x2(const uint8_t padded_key[FD_SHA1_BLOCK_LEN],
                               fd_sha1_chain *inner_chain, fd_sha1_chain *outer_chain)
{
    const __m128i inner_pad = _mm_set1_epi32(0x36363636), outer_pad = _mm_set1_epi32(0x5c5c5c5c);
    __m128i abcd[2], e[2], w[4][2];

    chain_to_state(inner_chain, &abcd[0], &e[0]);
    chain_to_state(outer_chain, &abcd[1], &e[1]);
    for (int g = 0; g < 4; g++) {
        __m128i key_words = load_word_group(padded_key + 16 * g);
        w[g][0] = _mm_xor_si128(key_words, inner_pad);
        w[g][1] = _mm_xor_si128(key_words, outer_pad);
    }
    compress_pair(abcd, e, w[0], w[1], w[2], w[3]);
    state_to_chain(abcd[0], e[0], inner_chain);
    state_to_chain(abcd[1], e[1], outer_chain);
}

/* PBKDF2's iterations for two output blocks at once (hash/hmac.c), as
 * fd_sha256_pbkdf2_shani_x2 does them: sha1_shani.c's loop, the digest in
 * registers (abcd is the block's first word group, e with the 0x80 marker
 * beside it the second), with two blocks' chains interleaved. */
FD_TARGET_SHANI
void fd_sha1_pbkdf2_shani_x2(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
                             size_t digest_len, fd_sha1_chain *words, size_t count,
                             uint32_t iterations_left)
{
    /* W[5] = 0x80000000 (INT32_MIN), W[6..14] = 0, W[15] = the bit length of
     * the keyed block and the digest (FIPS 180-4, 5.1.1). */
    const __m128i marker = _mm_set_epi32(0, INT32_MIN, 0, 0);
    const __m128i group3 = _mm_set_epi32(0, 0, 0, (FD_SHA1_BLOCK_LEN + FD_SHA1_DIGEST_LEN) * 8);
    __m128i inner_abcd, inner_e, outer_abcd, outer_e, u_abcd[2], u_e[2], t_abcd[2], t_e[2];

    (void)digest_len; /* SHA-1's */
    chain_to_state(inner_chain, &inner_abcd, &inner_e);
    chain_to_state(outer_chain, &outer_abcd, &outer_e);
    for (int lane = 0; lane < 2; lane++) {
        /* A single block runs in both lanes; only the first is stored. */
        chain_to_state(&words[(size_t)lane < count ? lane : 0], &u_abcd[lane], &u_e[lane]);
        t_abcd[lane] = u_abcd[lane];
        t_e[lane] = u_e[lane];
    }

    for (; iterations_left != 0; iterations_left--) {
        __m128i abcd[2] = {inner_abcd, inner_abcd}, e[2] = {inner_e, inner_e};
        __m128i w1[2] = {_mm_or_si128(u_e[0], marker), _mm_or_si128(u_e[1], marker)};
        __m128i w2[2] = {_mm_setzero_si128(), _mm_setzero_si128()}, w3[2] = {group3, group3};
        compress_pair(abcd, e, u_abcd, w1, w2, w3);
        for (int lane = 0; lane < 2; lane++) {
            u_abcd[lane] = outer_abcd;
            u_e[lane] = outer_e;
            w1[lane] = _mm_or_si128(e[lane], marker);
            w2[lane] = _mm_setzero_si128();
            w3[lane] = group3;
        }
        compress_pair(u_abcd, u_e, abcd, w1, w2, w3);
        for (int lane = 0; lane < 2; lane++) {
            t_abcd[lane] = _mm_xor_si128(t_abcd[lane], u_abcd[lane]);
            t_e[lane] = _mm_xor_si128(t_e[lane], u_e[lane]);
        }
    }
    for (size_t lane = 0; lane < count; lane++)
        state_to_chain(t_abcd[lane], t_e[lane], &words[lane]);
}

#endif /* FD_HAVE_SHANI */
