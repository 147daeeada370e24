/* Counts that several threads change without a lock: the reference count
 * of a digest column (core/arrow_hash.c), which arrays exported from one
 * column may drop from different threads at once (a consumer's worker
 * threads). MSVC's C compiler offers C11 atomics only behind an experimental
 * switch, so there the Interlocked intrinsics. Plain C: no Python.h. */
#ifndef FD_CORE_ATOMIC_H
#define FD_CORE_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>

/* A count of references, 1 when made. */
#ifdef _MSC_VER
#include <intrin.h>
typedef volatile long fd_refcount;
static inline void fd_refcount_init(fd_refcount *count)
{
    *count = 1;
}
static inline void fd_refcount_add(fd_refcount *count)
{
    _InterlockedIncrement(count);
}
/* True when that was the last reference. */
static inline bool fd_refcount_drop(fd_refcount *count)
{
    return _InterlockedDecrement(count) == 0;
}
#else
#include <stdatomic.h>
typedef atomic_long fd_refcount;
static inline void fd_refcount_init(fd_refcount *count)
{
    atomic_init(count, 1);
}
static inline void fd_refcount_add(fd_refcount *count)
{
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
}
static inline bool fd_refcount_drop(fd_refcount *count)
{
    /* acq_rel: the thread that frees sees every other thread's last use. */
    return atomic_fetch_sub_explicit(count, 1, memory_order_acq_rel) == 1;
}
#endif

#endif /* FD_CORE_ATOMIC_H */
