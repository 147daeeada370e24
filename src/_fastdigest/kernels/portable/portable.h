/* The kernels in plain C11: they run on every CPU, require no features, and
 * are the reference every other kernel is tested against (tests/c). The MD5
 * steps arranged for the critical path (md5_tuned.c) are plain C too and
 * preferred over the textbook form everywhere. */
#ifndef FD_KERNELS_PORTABLE_H
#define FD_KERNELS_PORTABLE_H

#include "kernels/kernel.h"

fd_md5_blocks_fn fd_md5_blocks_portable;       /* md5_portable.c */
fd_md5_blocks_fn fd_md5_blocks_tuned;          /* md5_tuned.c */
fd_sha1_blocks_fn fd_sha1_blocks_portable;     /* sha1_portable.c */
fd_sha256_blocks_fn fd_sha256_blocks_portable; /* sha256_portable.c */
fd_sha512_blocks_fn fd_sha512_blocks_portable; /* sha512_portable.c */

#endif /* FD_KERNELS_PORTABLE_H */
