/* Compress kernels for x86-64 instruction-set extensions.
 *
 * Each kernel lives in its own .c file; those files (and the step headers
 * kernels share: sha*_shani_steps.h, avx512_lanes.h) are the only ones that
 * use <immintrin.h>. Each kernel is compiled with a function-level target
 * attribute, so the package builds with default compiler flags and runs a
 * kernel only after cpu.c has seen the CPU report its required features. A
 * kernel exists in the build only when its FD_HAVE_* macro below is defined:
 * cpu.c lists it under the same test. Defining the opt-out macro (e.g. -DFD_NO_SHANI) leaves the
 * kernel out of the build. Every kernel takes and returns the chain in FIPS
 * order, whatever layout it uses inside. */
#ifndef FD_KERNELS_X86_H
#define FD_KERNELS_X86_H

#include "compiler.h"
#include "sha1.h"
#include "sha256.h"

/* ARM64EC defines _M_X64 but has no SHA extensions. */
#if (defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))) && !defined(FD_NO_SHANI)
#define FD_HAVE_SHANI 1
/* Intel SHA extensions; require FD_CPU_SHANI | FD_CPU_SSE41 | FD_CPU_SSSE3. */
fd_sha1_blocks_fn fd_sha1_blocks_shani;     /* sha1_shani.c */
fd_sha256_blocks_fn fd_sha256_blocks_shani; /* sha256_shani.c */
fd_sha1_pbkdf2_fn fd_sha1_pbkdf2_shani;     /* sha1_shani.c */
fd_sha256_pbkdf2_fn fd_sha256_pbkdf2_shani; /* sha256_shani.c */
fd_sha1_hmac_finish_fn fd_sha1_hmac_finish_shani;     /* sha1_shani.c */
fd_sha256_hmac_finish_fn fd_sha256_hmac_finish_shani; /* sha256_shani.c */

/* What the SHA-NI kernels' functions are compiled for. */
#if defined(__GNUC__) || defined(__clang__)
#define FD_TARGET_SHANI __attribute__((target("sha,sse4.1,ssse3")))
#else
#define FD_TARGET_SHANI /* MSVC compiles intrinsics without target flags */
#endif
#endif

/* Further x86-64 kernels (fd_sha512_blocks_avx2, fd_md5_blocks_x86) are
 * declared below, each under its own FD_HAVE_* guard. */

#include "sha512.h"

#if (defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))) && !defined(FD_NO_AVX2)
#define FD_HAVE_SHA512_AVX2 1
/* AVX2 message schedule, BMI1/BMI2 rounds (andn, rorx); requires
 * FD_CPU_AVX2 | FD_CPU_BMI1 | FD_CPU_BMI2. */
fd_sha512_blocks_fn fd_sha512_blocks_avx2; /* sha512_avx2.c */
#endif

#if (defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))) && !defined(FD_NO_AVX512)
#define FD_HAVE_SHA512_AVX512 1
/* AVX-512 message schedule for four blocks, BMI1/BMI2 rounds; requires
 * FD_CPU_AVX512F | FD_CPU_AVX512VL | FD_CPU_AVX512BW | FD_CPU_BMI1 |
 * FD_CPU_BMI2. */
fd_sha512_blocks_fn fd_sha512_blocks_avx512; /* sha512_avx512.c */
#endif

#endif /* FD_KERNELS_X86_H */
