/* The kernels in plain C11: they run on every CPU, require no features, and
 * are the reference every other kernel is tested against (tests/c). The MD5
 * steps arranged for the critical path (md5_tuned.c) are plain C too and
 * preferred over the textbook form everywhere. */
#ifndef FD_KERNELS_PORTABLE_H
#define FD_KERNELS_PORTABLE_H

#include "kernels/kernel.h"

/* Every family's portable kernel, fd_name_blocks_portable, in
 * name_portable.c. */
#define FD_PORTABLE_KERNEL(name, ...) fd_##name##_blocks_fn fd_##name##_blocks_portable;
FD_FAMILIES(FD_PORTABLE_KERNEL)
#undef FD_PORTABLE_KERNEL

fd_md5_blocks_fn fd_md5_blocks_tuned; /* md5_tuned.c */

#endif /* FD_KERNELS_PORTABLE_H */
