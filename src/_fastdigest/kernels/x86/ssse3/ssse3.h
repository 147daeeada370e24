/* SSSE3 (Intel since Core 2, AMD since Bulldozer; every x86-64-v2 CPU): a
 * vector message schedule of one block beside scalar rounds, for CPUs, or
 * virtual machines, without SHA-NI and AVX2. */
#ifndef FD_KERNELS_X86_SSSE3_H
#define FD_KERNELS_X86_SSSE3_H

#include "kernels/kernel.h"
#include "kernels/x86/x86.h"

#if defined(FD_X86_64) && !defined(FD_NO_SSSE3)
#define FD_HAVE_SSSE3 1

#define FD_TARGET_SSSE3 FD_X86_TARGET("ssse3")
#define FD_SSSE3_FEATURES FD_CPU_SSSE3

fd_sha1_blocks_fn fd_sha1_blocks_ssse3;     /* sha1_ssse3.c */
fd_sha1_pbkdf2_fn fd_sha1_pbkdf2_ssse3;     /* sha1_ssse3.c */
fd_sha256_blocks_fn fd_sha256_blocks_ssse3; /* sha256_ssse3.c */

#endif

#endif /* FD_KERNELS_X86_SSSE3_H */
