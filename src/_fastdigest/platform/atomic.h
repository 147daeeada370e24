/* Words that several threads read and write without a lock: the reference
 * count of a digest column (data/arrow_hash.c), the counter the batch
 * driver's threads take pieces from (hash/batch.c), the counter a held
 * stretch's threads take chunks from and the marks of how far its chunks
 * are known to fit (python/hash_api/batch_stretches.c), the binding's GIL threshold
 * (python/locking.h), the flags that say the process-wide set-up is done (python/module.c) and a
 * family's multi-buffer kernel is checked, the length of the record of
 * refused kernels (hash/known_answers.c), and the chunks of a big file two
 * threads have passed on to each other (files/pair.h).
 *
 * C11's <stdatomic.h>, except under MSVC itself: its C compiler offers C11
 * atomics only behind an experimental switch (/experimental:c11atomics;
 * under /std:c11 it defines __STDC_NO_ATOMICS__), so there the Interlocked
 * intrinsics and volatile accesses of aligned words. clang-cl, which also
 * defines _MSC_VER, has <stdatomic.h>: kernels/compiler.h's FD_COMPILER_MSVC
 * tells the two apart. Plain C: no Python.h. */
#ifndef FD_CORE_ATOMIC_H
#define FD_CORE_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/compiler.h"

#if defined(FD_COMPILER_MSVC)
#define FD_MSVC_ATOMICS 1
#endif

/* ---- reference counts ------------------------------------------------------ */

/* A count of references that threads may take and drop at once (a
 * consumer's worker threads releasing arrays exported from one column), 1
 * when made. */
#ifdef FD_MSVC_ATOMICS
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

/* ---- counters --------------------------------------------------------------- */

/* A count that threads take numbers from, 0, 1, 2, ..., each number once:
 * relaxed order, for a count that guards no other memory. Under MSVC the
 * count is a long, so it must stay below LONG_MAX (hash/batch.c's stops at
 * most one number a thread past its pieces, of which there are at most
 * 2^20). */
#ifdef FD_MSVC_ATOMICS
typedef volatile long fd_counter;
static inline void fd_counter_init(fd_counter *counter)
{
    *counter = 0;
}
static inline size_t fd_counter_take(fd_counter *counter)
{
    return (size_t)_InterlockedIncrement(counter) - 1;
}
#else
typedef atomic_size_t fd_counter;
static inline void fd_counter_init(fd_counter *counter)
{
    atomic_init(counter, 0);
}
static inline size_t fd_counter_take(fd_counter *counter)
{
    return atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}
#endif

/* ---- relaxed sizes ---------------------------------------------------------- */

/* A size one thread may store while others load it, where the value guards
 * no other memory: relaxed order, a load sees the old value or the new one.
 * Under MSVC a volatile access of an aligned word is one load or store,
 * which is how CPython's Include/cpython/pyatomic_msc.h implements its
 * relaxed loads and stores. */
#ifdef FD_MSVC_ATOMICS
typedef volatile size_t fd_relaxed_size;
static inline size_t fd_relaxed_load(fd_relaxed_size *value)
{
    return *value;
}
static inline void fd_relaxed_store(fd_relaxed_size *value, size_t new_value)
{
    *value = new_value;
}
#else
typedef _Atomic(size_t) fd_relaxed_size;
static inline size_t fd_relaxed_load(fd_relaxed_size *value)
{
    return atomic_load_explicit(value, memory_order_relaxed);
}
static inline void fd_relaxed_store(fd_relaxed_size *value, size_t new_value)
{
    atomic_store_explicit(value, new_value, memory_order_relaxed);
}
#endif

/* ---- one-way marks ------------------------------------------------------- */

/* A size that threads only raise (fd_size_mark_raise) or only lower
 * (fd_size_mark_lower), each to what it has found out, never back: a
 * compare-and-swap loop, so that of two threads moving it at once neither
 * undoes the other's move, and every value it takes is one a thread
 * stored. Relaxed order, for a mark whose value is all it says (a fact
 * about memory no thread writes while the mark is in use), guarding no
 * other memory. fd_size_mark_set only while no other thread uses it. */
#ifdef FD_MSVC_ATOMICS
typedef volatile long long fd_size_mark;
static inline void fd_size_mark_set(fd_size_mark *mark, size_t value)
{
    _InterlockedExchange64(mark, (long long)value);
}
/* An Interlocked read: a volatile one of 64 bits may tear on 32-bit x86. */
static inline size_t fd_size_mark_load(fd_size_mark *mark)
{
    return (size_t)_InterlockedCompareExchange64(mark, 0, 0);
}
/* Moves the mark to value when value is above (raise) or below (lower) it;
 * returns the mark as it then is. */
static inline size_t fd_size_mark_move(fd_size_mark *mark, size_t value, bool up)
{
    long long seen = _InterlockedCompareExchange64(mark, 0, 0);
    while (up ? (size_t)seen < value : (size_t)seen > value) {
        const long long before = _InterlockedCompareExchange64(mark, (long long)value, seen);
        if (before == seen)
            return value;
        seen = before;
    }
    return (size_t)seen;
}
#else
typedef _Atomic(size_t) fd_size_mark;
static inline void fd_size_mark_set(fd_size_mark *mark, size_t value)
{
    atomic_store_explicit(mark, value, memory_order_relaxed);
}
static inline size_t fd_size_mark_load(fd_size_mark *mark)
{
    return atomic_load_explicit(mark, memory_order_relaxed);
}
static inline size_t fd_size_mark_move(fd_size_mark *mark, size_t value, bool up)
{
    size_t seen = atomic_load_explicit(mark, memory_order_relaxed);
    while (up ? seen < value : seen > value) {
        /* A failed exchange loads the mark into seen. */
        if (atomic_compare_exchange_weak_explicit(mark, &seen, value, memory_order_relaxed,
                                                  memory_order_relaxed))
            return value;
    }
    return seen;
}
#endif
static inline size_t fd_size_mark_raise(fd_size_mark *mark, size_t value)
{
    return fd_size_mark_move(mark, value, true);
}
static inline size_t fd_size_mark_lower(fd_size_mark *mark, size_t value)
{
    return fd_size_mark_move(mark, value, false);
}

/* ---- published sizes -------------------------------------------------------- */

/* A size one thread stores, under a lock, after writing what it counts
 * (entries of a record below it), and that other threads load without the
 * lock before reading those: the store is a release, the load an acquire.
 * Under MSVC, Interlocked calls, full barriers (see the flags below). */
#ifdef FD_MSVC_ATOMICS
typedef volatile long long fd_published_size;
static inline size_t fd_published_size_load(fd_published_size *value)
{
    return (size_t)_InterlockedCompareExchange64(value, 0, 0);
}
static inline void fd_published_size_store(fd_published_size *value, size_t new_value)
{
    _InterlockedExchange64(value, (long long)new_value);
}
#else
typedef _Atomic(size_t) fd_published_size;
static inline size_t fd_published_size_load(fd_published_size *value)
{
    return atomic_load_explicit(value, memory_order_acquire);
}
static inline void fd_published_size_store(fd_published_size *value, size_t new_value)
{
    atomic_store_explicit(value, new_value, memory_order_release);
}
#endif

/* ---- published flags -------------------------------------------------------- */

/* A flag that one thread sets once, after writes that other threads may
 * then rely on, and that those threads read before relying on them: the
 * set is a release, the read an acquire, so a thread that sees the flag set
 * sees every write made before it was set. Starts clear; a static one is
 * clear without initialisation (C11 7.17.2.1 makes the zero of static
 * storage a valid atomic value). Cleared only while no other thread reads
 * it (a test selecting kernels again). Under MSVC, Interlocked calls, which are
 * full barriers on x86 and ARM64 alike (a volatile read is an acquire only
 * under /volatile:ms, which is not ARM64's default). */
#ifdef FD_MSVC_ATOMICS
typedef volatile long fd_published_flag;
static inline bool fd_published_flag_is_set(fd_published_flag *flag)
{
    return _InterlockedCompareExchange(flag, 0, 0) != 0;
}
static inline void fd_published_flag_set(fd_published_flag *flag)
{
    _InterlockedExchange(flag, 1);
}
static inline void fd_published_flag_clear(fd_published_flag *flag)
{
    _InterlockedExchange(flag, 0);
}
#else
typedef atomic_bool fd_published_flag;
static inline bool fd_published_flag_is_set(fd_published_flag *flag)
{
    return atomic_load_explicit(flag, memory_order_acquire);
}
static inline void fd_published_flag_set(fd_published_flag *flag)
{
    atomic_store_explicit(flag, true, memory_order_release);
}
static inline void fd_published_flag_clear(fd_published_flag *flag)
{
    atomic_store_explicit(flag, false, memory_order_relaxed);
}
#endif

#endif /* FD_CORE_ATOMIC_H */
