/* What the SSSE3 kernels share: a block's big-endian 32-bit words in xmm
 * registers (SHA-1 and SHA-256 alike). Included by their .c files only,
 * under FD_HAVE_SSSE3. */
#ifndef FD_KERNELS_X86_SSSE3_WORDS_H
#define FD_KERNELS_X86_SSSE3_WORDS_H

#include <immintrin.h>

#include "kernels/compiler.h"
#include "kernels/x86/ssse3/ssse3.h"

/* Words 4g..4g+3 of a block, each word's bytes swapped from the big-endian
 * input. _mm_loadu_si128 is the intrinsic for an address of any alignment. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i load_word_group(const uint8_t *p)
{
    const __m128i swap_bytes_in_words = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1,
                                                     2, 3);
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), swap_bytes_in_words);
}

#endif /* FD_KERNELS_X86_SSSE3_WORDS_H */
