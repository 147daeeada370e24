/* The Intel SHA extensions (SHA-NI): SHA-1 and SHA-256 rounds and message
 * schedule in single instructions, on Intel since Goldmont and Ice Lake and
 * on AMD since Zen. The single-stream kernels carry the PBKDF2 loop and the
 * end of an HMAC in registers; the two-stream (_x2) kernels interleave two
 * messages, whose round instructions would otherwise leave the unit waiting
 * on their latency, key both HMAC pads at once and iterate two PBKDF2 output
 * blocks at once. */
#ifndef FD_KERNELS_X86_SHANI_H
#define FD_KERNELS_X86_SHANI_H

#include "kernels/kernel.h"
#include "kernels/x86/x86.h"

#if defined(FD_X86_64) && !defined(FD_NO_SHANI)
#define FD_HAVE_SHANI 1

#define FD_TARGET_SHANI FD_X86_TARGET("sha,sse4.1,ssse3")
#define FD_SHANI_FEATURES (FD_CPU_SHANI | FD_CPU_SSE41 | FD_CPU_SSSE3)

fd_sha1_blocks_fn fd_sha1_blocks_shani;               /* sha1_shani.c */
fd_sha1_pbkdf2_fn fd_sha1_pbkdf2_shani;               /* sha1_shani.c */
fd_sha1_hmac_finish_fn fd_sha1_hmac_finish_shani;     /* sha1_shani.c */
fd_sha1_hmac_key_fn fd_sha1_hmac_key_shani_x2;        /* sha1_shani_x2.c */
fd_sha1_pbkdf2_lanes_fn fd_sha1_pbkdf2_shani_x2;      /* sha1_shani_x2.c */
fd_sha256_blocks_fn fd_sha256_blocks_shani;           /* sha256_shani.c */
fd_sha256_pbkdf2_fn fd_sha256_pbkdf2_shani;           /* sha256_shani.c */
fd_sha256_hmac_finish_fn fd_sha256_hmac_finish_shani; /* sha256_shani.c */
fd_sha256_hmac_key_fn fd_sha256_hmac_key_shani_x2;    /* sha256_shani_x2.c */
fd_sha256_pbkdf2_lanes_fn fd_sha256_pbkdf2_shani_x2;  /* sha256_shani_x2.c */

#ifndef FD_NO_MULTI_BUFFER
#define FD_HAVE_SHANI_X2 1
fd_sha1_blocks_multi_fn fd_sha1_blocks_shani_x2;     /* sha1_shani_x2.c */
fd_sha256_blocks_multi_fn fd_sha256_blocks_shani_x2; /* sha256_shani_x2.c */
#endif

#endif

#endif /* FD_KERNELS_X86_SHANI_H */
