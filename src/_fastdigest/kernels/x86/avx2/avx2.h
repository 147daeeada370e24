/* AVX2 with BMI1/BMI2 (Intel since Haswell, AMD since Excavator): vector
 * message schedules beside scalar rounds with rorx and andn, and eight
 * 32-bit or four 64-bit multi-buffer lanes. */
#ifndef FD_KERNELS_X86_AVX2_H
#define FD_KERNELS_X86_AVX2_H

#include "kernels/kernel.h"
#include "kernels/x86/x86.h"

#if defined(FD_X86_64) && !defined(FD_NO_AVX2)
#define FD_HAVE_AVX2 1

#define FD_TARGET_AVX2 FD_X86_TARGET("avx2,bmi,bmi2")
#define FD_AVX2_FEATURES (FD_CPU_AVX2 | FD_CPU_BMI1 | FD_CPU_BMI2)

fd_sha1_blocks_fn fd_sha1_blocks_avx2;     /* sha1_avx2.c */
fd_sha1_pbkdf2_fn fd_sha1_pbkdf2_avx2;     /* sha1_avx2.c */
fd_sha256_blocks_fn fd_sha256_blocks_avx2; /* sha256_avx2.c */
fd_sha512_blocks_fn fd_sha512_blocks_avx2; /* sha512_avx2.c */

#ifndef FD_NO_MULTI_BUFFER
#define FD_HAVE_AVX2_MULTI 1
fd_md5_blocks_multi_fn fd_md5_blocks_avx2_x8;       /* md5_avx2_x8.c */
fd_md5_pbkdf2_lanes_fn fd_md5_pbkdf2_avx2_x8;       /* md5_avx2_x8.c */
fd_sha1_blocks_multi_fn fd_sha1_blocks_avx2_x8;     /* sha1_avx2_x8.c */
fd_sha256_blocks_multi_fn fd_sha256_blocks_avx2_x8; /* sha256_avx2_x8.c */
fd_sha512_blocks_multi_fn fd_sha512_blocks_avx2_x4; /* sha512_avx2_x4.c */
#endif

#endif

#endif /* FD_KERNELS_X86_AVX2_H */
