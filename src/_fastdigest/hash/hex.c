/* Lowercase hexadecimal: sixteen bytes at a time with the vector unit every
 * CPU of the architecture has (SSE2 on x86-64, Advanced SIMD on AArch64, so
 * neither needs a target attribute or the dispatcher), the rest a byte at a
 * time from a table of digit pairs. digest_array(hex=True) encodes whole
 * columns of digests here (64 bytes of hex a SHA-256 row), and this made
 * such a call markedly faster than an encoder of four bytes at a time in a
 * 64-bit word. */
#include "hash/hex.h"

#include <assert.h>

#include <string.h>

#include "kernels/x86/x86.h"

#if defined(FD_X86_64)
#include <emmintrin.h>
#define FD_HEX_SSE2 1
#elif defined(__aarch64__) || defined(_M_ARM64)
#include <arm_neon.h>
#define FD_HEX_NEON 1
#endif

/* "000102...feff": the two digits of every byte value, one two-byte copy
 * per byte instead of two lookups. */
#define HEX_PAIRS_STARTING(digit)                                                         \
    digit "0" digit "1" digit "2" digit "3" digit "4" digit "5" digit "6" digit "7" digit \
          "8" digit "9" digit "a" digit "b" digit "c" digit "d" digit "e" digit "f"
static const char hex_pairs[2 * 256 + 1] = HEX_PAIRS_STARTING("0") HEX_PAIRS_STARTING("1")
    HEX_PAIRS_STARTING("2") HEX_PAIRS_STARTING("3") HEX_PAIRS_STARTING("4") HEX_PAIRS_STARTING("5")
        HEX_PAIRS_STARTING("6") HEX_PAIRS_STARTING("7") HEX_PAIRS_STARTING("8")
            HEX_PAIRS_STARTING("9") HEX_PAIRS_STARTING("a") HEX_PAIRS_STARTING("b")
                HEX_PAIRS_STARTING("c") HEX_PAIRS_STARTING("d") HEX_PAIRS_STARTING("e")
                    HEX_PAIRS_STARTING("f");
#undef HEX_PAIRS_STARTING

#ifdef FD_HEX_SSE2
/* Nibbles 0..15 to '0'..'9', 'a'..'f': '0' + n, and 'a' - '0' - 10 more
 * where n > 9 (a signed compare, right for 0..15). */
static inline __m128i nibbles_to_digits(__m128i nibbles)
{
    const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)),
                                          _mm_set1_epi8('a' - '0' - 10));
    return _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters);
}
#endif

void fd_hex_encode(const uint8_t *bytes, size_t len, char *out)
{
    size_t i = 0;

    assert((bytes != NULL && out != NULL) || len == 0);
#if defined(FD_HEX_SSE2)
    const __m128i low_nibble = _mm_set1_epi8(0x0F);
    for (; i + 16 <= len; i += 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(bytes + i));
        /* The 16-bit shift moves a neighbour's bits into the high nibble's
         * place; the mask removes them. */
        const __m128i high = _mm_and_si128(_mm_srli_epi16(x, 4), low_nibble);
        const __m128i low = _mm_and_si128(x, low_nibble);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i),
                         nibbles_to_digits(_mm_unpacklo_epi8(high, low)));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16),
                         nibbles_to_digits(_mm_unpackhi_epi8(high, low)));
    }
#elif defined(FD_HEX_NEON)
    const uint8x16_t digits = vld1q_u8((const uint8_t *)"0123456789abcdef");
    for (; i + 16 <= len; i += 16) {
        const uint8x16_t x = vld1q_u8(bytes + i);
        uint8x16x2_t pairs;
        pairs.val[0] = vqtbl1q_u8(digits, vshrq_n_u8(x, 4));
        pairs.val[1] = vqtbl1q_u8(digits, vandq_u8(x, vdupq_n_u8(0x0F)));
        vst2q_u8((uint8_t *)out + 2 * i, pairs); /* interleaved: high, low, high, ... */
    }
#endif
    for (; i < len; i++)
        memcpy(out + 2 * i, hex_pairs + 2 * bytes[i], 2);
}
