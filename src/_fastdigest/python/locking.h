/* When a call of the binding releases the GIL, and how calls on one object
 * exclude each other once it does: the GIL threshold (set_gil_minsize()),
 * the object lock of the hash and HMAC objects, and the locked update that
 * combines them. All inline: they sit on the path of every update. */
#ifndef FD_PYTHON_LOCKING_H
#define FD_PYTHON_LOCKING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/atomic.h"
#include "python/compat.h" /* FD_HAVE_PYMUTEX */

/* Inputs of at least this many bytes are hashed with the GIL released, as in
 * CPython's hashlib: below it, releasing and retaking the GIL costs more than
 * it lets other threads gain. This is the default; fd_gil_minsize() is the
 * threshold in force. */
#define FD_GIL_MINSIZE 2048

/* The threshold in force, one per process (all interpreters share it, as they
 * share the kernel choice): FD_GIL_MINSIZE, FASTDIGEST_GIL_MINSIZE read at
 * the first import, or what set_gil_minsize() set last. Every call that may
 * release the GIL reads it, and set_gil_minsize() may write it at the same
 * time from another thread (with or without a GIL), so both are atomic.
 * Relaxed order is enough: the value guards no other memory, and a call that
 * reads the old value during a change makes a choice that affects only its
 * speed, never its result. */
extern fd_relaxed_size fd_gil_minsize_setting; /* defined in module.c */

static inline size_t fd_gil_minsize(void)
{
    return fd_relaxed_load(&fd_gil_minsize_setting);
}

static inline void fd_set_gil_minsize(size_t minsize)
{
    fd_relaxed_store(&fd_gil_minsize_setting, minsize);
}

/* The lock of one object (a hash or an HMAC object). While every call on the
 * object runs with the GIL held, the GIL serialises them and no lock is
 * taken. The first update that releases the GIL switches the object to its
 * own lock for good, so that calls on it from then on exclude each other:
 * a PyMutex on 3.13+ (always on without a GIL), before that a lock made by
 * that first update. */
typedef struct {
#ifdef FD_HAVE_PYMUTEX
    PyMutex mutex;
    bool in_use;
#else
    PyThread_type_lock lock;
#endif
} fd_object_lock;

static inline void fd_object_lock_init(fd_object_lock *lock)
{
#ifdef FD_HAVE_PYMUTEX
    lock->mutex = (PyMutex){0};
#ifdef Py_GIL_DISABLED
    lock->in_use = true; /* no GIL to serialise calls */
#else
    lock->in_use = false;
#endif
#else
    lock->lock = NULL;
#endif
}

static inline void fd_object_lock_free(fd_object_lock *lock)
{
#ifndef FD_HAVE_PYMUTEX
    if (lock->lock != NULL)
        PyThread_free_lock(lock->lock);
#else
    (void)lock;
#endif
}

/* Take and release the lock around reading or writing the object's state
 * with the GIL held: no-ops, inlined, while the object has no lock. Waiting
 * for a lock another thread holds happens with the GIL released, so that
 * thread can finish. */
static inline void fd_object_lock_acquire(fd_object_lock *lock)
{
#ifdef FD_HAVE_PYMUTEX
    if (lock->in_use)
        PyMutex_Lock(&lock->mutex); /* detaches the thread state while it waits */
#else
    if (lock->lock != NULL && !PyThread_acquire_lock(lock->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
            PyThread_acquire_lock(lock->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
#endif
}

static inline void fd_object_lock_release(fd_object_lock *lock)
{
#ifdef FD_HAVE_PYMUTEX
    if (lock->in_use)
        PyMutex_Unlock(&lock->mutex);
#else
    if (lock->lock != NULL)
        PyThread_release_lock(lock->lock);
#endif
}

typedef void fd_absorb_fn(void *context, const uint8_t *data, size_t len);

/* Switches the object to its own lock, with the GIL held, before an update
 * that releases the GIL. Returns false when no lock can be had: the update
 * then keeps the GIL, which is correct, only slower. */
static inline bool fd_object_lock_enable(fd_object_lock *lock)
{
#ifdef FD_HAVE_PYMUTEX
    /* Written once, by the first such update, with the GIL held. From then
     * on other threads read the flag without the GIL (the unlock at the end
     * of fd_absorb_locked; without a GIL, every call), and a second write,
     * even of the same value, would be a data race with those reads. Free-
     * threaded builds start with it set and never write it. */
    if (!lock->in_use)
        lock->in_use = true;
    return true;
#else
    if (lock->lock == NULL)
        lock->lock = PyThread_allocate_lock();
    return lock->lock != NULL;
#endif
}

/* Feeds a whole view to absorb(context, ...) under the lock. Views of
 * fd_gil_minsize() bytes and more are absorbed with the GIL released, after
 * switching the object to its own lock; the view pins the exporter's memory
 * meanwhile (resizing a bytearray being hashed raises BufferError). Inlined,
 * so that absorb is a direct call. */
static inline void fd_absorb_locked(fd_object_lock *lock, fd_absorb_fn *absorb, void *context,
                                    const Py_buffer *view)
{
    const uint8_t *data = view->buf;
    size_t len = (size_t)view->len;

    if (len >= fd_gil_minsize() && fd_object_lock_enable(lock)) {
        Py_BEGIN_ALLOW_THREADS
#ifdef FD_HAVE_PYMUTEX
            PyMutex_Lock(&lock->mutex);
#else
            PyThread_acquire_lock(lock->lock, WAIT_LOCK);
#endif
            absorb(context, data, len);
            fd_object_lock_release(lock);
        Py_END_ALLOW_THREADS
    }
    else {
        fd_object_lock_acquire(lock);
        absorb(context, data, len);
        fd_object_lock_release(lock);
    }
}

#endif /* FD_PYTHON_LOCKING_H */
