/* AVX-512 F, VL and BW with BMI1/BMI2 (Intel Xeons since Skylake-SP, Intel
 * clients since Ice Lake, AMD since Zen 4): rotates (vprold/vprolq) and
 * three-input logic (vpternlog) in the message schedules, sixteen 32-bit
 * or eight 64-bit multi-buffer lanes (and eight 32-bit lanes of ymm, MD5's
 * narrower kernel), and four 64-bit lanes of ymm for PBKDF2's output
 * blocks. */
#ifndef FD_KERNELS_X86_AVX512_H
#define FD_KERNELS_X86_AVX512_H

#include "kernels/kernel.h"
#include "kernels/x86/x86.h"

#if defined(FD_X86_64) && !defined(FD_NO_AVX512)
#define FD_HAVE_AVX512 1

#define FD_TARGET_AVX512 FD_X86_TARGET("avx2,bmi,bmi2,avx512f,avx512vl,avx512bw")
#define FD_AVX512_FEATURES \
    (FD_CPU_AVX2 | FD_CPU_BMI1 | FD_CPU_BMI2 | FD_CPU_AVX512F | FD_CPU_AVX512VL | FD_CPU_AVX512BW)

fd_sha512_blocks_fn fd_sha512_blocks_avx512;          /* sha512_avx512.c */
fd_sha512_pbkdf2_lanes_fn fd_sha512_pbkdf2_avx512_x4; /* sha512_avx512_x4.c */

#ifndef FD_NO_MULTI_BUFFER
#define FD_HAVE_AVX512_MULTI 1
fd_md5_blocks_multi_fn fd_md5_blocks_avx512_x16;       /* md5_avx512_x16.c */
fd_md5_pbkdf2_lanes_fn fd_md5_pbkdf2_avx512_x16;       /* md5_avx512_x16.c */
fd_md5_blocks_multi_fn fd_md5_blocks_avx512_x8;        /* md5_avx512_x8.c */
fd_sha1_blocks_multi_fn fd_sha1_blocks_avx512_x16;     /* sha1_avx512_x16.c */
fd_sha256_blocks_multi_fn fd_sha256_blocks_avx512_x16; /* sha256_avx512_x16.c */
fd_sha512_blocks_multi_fn fd_sha512_blocks_avx512_x8;  /* sha512_avx512_x8.c */
#endif

#endif

#endif /* FD_KERNELS_X86_AVX512_H */
