/* What the files of the CPython binding share: module.c (the hash type, the
 * constructors, the one-shots), module_hmac.c (HMAC and PBKDF2),
 * module_resume.c (pickling and the portable state format) and
 * module_batch.c (digest_many).
 *
 * Unlike the rest of src/_fastdigest, these files include Python.h; the C
 * test driver and the fuzzers build everything but module*.c. */
#ifndef FD_BINDING_H
#define FD_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "algorithms.h"

/* Inputs of at least this many bytes are hashed with the GIL released, as in
 * CPython's hashlib: below it, releasing and retaking the GIL costs more than
 * it lets other threads gain. */
#define FD_GIL_MINSIZE 2048

#if PY_VERSION_HEX >= 0x030D0000
#define FD_HAVE_PYMUTEX 1
#endif

typedef struct {
    PyTypeObject *hash_type;
    PyTypeObject *hmac_type;
    PyObject *algorithm_ids; /* dict: lowercase name or alias -> int algorithm id */
    /* The module's own constructor functions, by algorithm id: a digestmod or
     * one-shot name may be one of them instead of a string. */
    PyObject *constructors[FD_ALGORITHM_COUNT];
} fd_module_state;

static inline fd_module_state *fd_get_module_state(PyObject *module)
{
    return (fd_module_state *)PyModule_GetState(module);
}

typedef struct {
    PyObject_HEAD
    const fd_algorithm *algorithm;
    /* Concurrent use of one object: while every call on it runs with the GIL
     * held, the GIL serialises them and no lock is taken. The first update
     * that releases the GIL switches the object to its own lock for good, so
     * that calls on it from then on exclude each other. */
#ifdef FD_HAVE_PYMUTEX
    PyMutex mutex;
    bool use_mutex;
#else
    PyThread_type_lock lock; /* made by the first update that releases the GIL */
#endif
    fd_hash_state state;
} fd_hash_object;

/* Gets a C-contiguous byte view of obj with hashlib's errors: str is refused
 * (it has no single byte encoding), and so is anything without the buffer
 * protocol. Returns 0, or -1 with an exception set. */
int fd_get_buffer(PyObject *obj, Py_buffer *view);

/* The algorithm id a name or a constructor stands for: a str is looked up as
 * new() looks names up (exactly, then in ASCII lowercase; ValueError
 * "unsupported hash type NAME" when unknown), and one of this module's
 * constructors stands for its algorithm. Anything else is a TypeError naming
 * function and argument. Returns the id, or -1 with an exception set. */
int fd_algorithm_from_object(PyObject *module, PyObject *obj, const char *function,
                             const char *argument);

/* A new object of the hash type, for one algorithm, with its state not yet
 * initialised: the caller fills it (init, a copy, or a restored state). */
fd_hash_object *fd_hash_alloc(PyTypeObject *type, const fd_algorithm *algorithm);

/* Take and release an object's lock around reading or writing its state with
 * the GIL held: no-ops, inlined, while the object has no lock. Waiting for a
 * lock another thread holds happens with the GIL released, so that thread
 * can finish. */
static inline void fd_hash_lock(fd_hash_object *self)
{
#ifdef FD_HAVE_PYMUTEX
    if (self->use_mutex)
        PyMutex_Lock(&self->mutex); /* detaches the thread state while it waits */
#else
    if (self->lock != NULL && !PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
#endif
}

static inline void fd_hash_unlock(fd_hash_object *self)
{
#ifdef FD_HAVE_PYMUTEX
    if (self->use_mutex)
        PyMutex_Unlock(&self->mutex);
#else
    if (self->lock != NULL)
        PyThread_release_lock(self->lock);
#endif
}

/* Set-up of the other binding files, called from the module's exec slot.
 * Each adds its functions and types to the module; 0 or -1 with an
 * exception set. */
int fd_hmac_module_exec(PyObject *module, fd_module_state *state);
int fd_resume_module_exec(PyObject *module, fd_module_state *state);
int fd_batch_module_exec(PyObject *module, fd_module_state *state);

/* module_resume.h declares the hash type's methods that module_resume.c
 * implements (state(), pickling, copy.copy and copy.deepcopy) and lists them
 * in FD_RESUME_HASH_METHODS, which module.c splices into the type's table. */
#include "module_resume.h"

#endif /* FD_BINDING_H */
