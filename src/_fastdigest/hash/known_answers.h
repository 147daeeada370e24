/* The known-answer checks: whether a kernel hashes known messages right.
 *
 * A kernel miscompiled by a user's toolchain, or run on a CPU with an
 * erratum, would otherwise return wrong digests with nothing to say so.
 * As Linux's crypto self-tests run each implementation's vectors when it
 * registers, the extension checks every kernel the selection is about to
 * install (fd_select_checked_kernels), and the self-test every kernel the
 * CPU runs, with the same checks and fd_check_pbkdf2. The checks call each
 * kernel directly (fd_check_pbkdf2 through hash/hmac.c's
 * fd_pbkdf2_hmac_with), never by installing it, so they change nothing
 * global and may run while other threads hash. Plain C: no Python.h. */
#ifndef FD_CORE_KNOWN_ANSWERS_H
#define FD_CORE_KNOWN_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>

#include "dispatch/dispatch.h"
#include "kernels/kernel.h"

/* Checks a single-stream kernel of `family`, at import: the published
 * digests of a one-block and a two-block message, each compressed in one
 * call from an odd address; and, where the kernel has HMAC code of its own
 * (the key blocks, the end), HMAC test case 2 of RFC 2202 or RFC 4231 for
 * the family's algorithms of the longest and the shortest digest. Returns
 * true when every result is right; otherwise false, with the first wrong
 * one described in `reason` (NUL-terminated, cut to reason_len).
 *
 * With `spoil`, the first digest is changed by one bit before it is
 * compared, as a wrong kernel's would be: the extension's test hook for
 * the fallback and its warning (FASTDIGEST_TEST_FAIL_CHECK), which can make
 * a kernel be refused and nothing else.
 *
 * The CPU must have the kernel's required features. */
bool fd_check_kernel(enum fd_family family, const fd_kernel *kernel, bool spoil, char *reason,
                     size_t reason_len);

/* Checks a multi-buffer kernel of `family`, at the family's first batch,
 * beside `single`, a single-stream kernel of the family that passed
 * fd_check_kernel: two blocks in one call, every lane hashing the
 * published two-block message at its own alignment; then one block in one
 * call, every lane hashing its own message at its own alignment (lane 0
 * "abc", against its published digest; the others against `single`'s
 * digests). Returns and spoils as
 * fd_check_kernel. The CPU must have both kernels' required features. */
bool fd_check_multi_kernel(enum fd_family family, const fd_kernel *single,
                           const fd_multi_kernel *multi, bool spoil, char *reason,
                           size_t reason_len);

/* Checks PBKDF2 through the kernels' own code, which the import leaves
 * out: with multi NULL, single's PBKDF2 loop (one output block) and its
 * PBKDF2 lanes (as many blocks as it has lanes); else multi's lanes,
 * beside single without lanes of its own, for three blocks. Each against
 * hash/hmac.c's loop, one block at a time, over single's compress function,
 * for the family's algorithms of the longest and the shortest digest.
 * Returns as fd_check_kernel; true where there is no such code. The
 * self-test and the C drivers run it. */
bool fd_check_pbkdf2(enum fd_family family, const fd_kernel *single, const fd_multi_kernel *multi,
                     char *reason, size_t reason_len);

/* fd_select_checked_kernels_from over the build's lists with the checks
 * above, the multi-buffer kernels deferred: the extension's selection,
 * which registers these checks with the dispatcher at start-up. Most
 * programs never hash a batch, and a multi-buffer kernel's check is most
 * of the checks' work and brings code into the caches that nothing else at
 * import needs, so those kernels are selected, checked and installed by
 * the family's first batch (dispatch.h's fd_settle_multi_kernel, which
 * runs fd_check_multi_kernel as it was registered here). `spoiled` is NULL
 * or a comma-separated list of family:kernel items
 * ("sha256:shani,md5:avx2_x8"), the kernels whose check is spoiled; white
 * space around an item is ignored. On a list that names no family, or no
 * kernel of the build in it, returns false with why in `error` and
 * selects nothing. Not thread-safe, as fd_select_kernels. */
bool fd_select_checked_kernels(bool portable_only, const char *spoiled, char *error,
                               size_t error_len);

#endif /* FD_CORE_KNOWN_ANSWERS_H */
