/* What the files of the CPython binding share: the module state, the
 * per-object lock, and the helpers of helpers.c (buffers, argument binding,
 * hexadecimal, algorithm names), hash.c (the hash type) and each file's
 * exec function, which module.c calls.
 *
 * The files of python/ are the only ones that include Python.h: the C test
 * drivers and the fuzzers build everything else. Dependencies run one way:
 * module.c calls the others, the others call helpers.c and hash.c, and all
 * of them call the core (core/, and the dispatcher for kernel names). */
#ifndef FD_PYTHON_BINDING_H
#define FD_PYTHON_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "core/algorithms.h"
#include "core/hex.h"

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
#ifdef __STDC_NO_ATOMICS__
/* MSVC's C mode has no <stdatomic.h> (short of /experimental:c11atomics).
 * There a volatile access of an aligned word is one load or store, which is
 * how CPython's Include/cpython/pyatomic_msc.h implements its relaxed loads
 * and stores. */
extern volatile size_t fd_gil_minsize_setting; /* defined in module.c */

static inline size_t fd_gil_minsize(void)
{
    return fd_gil_minsize_setting;
}

static inline void fd_set_gil_minsize(size_t minsize)
{
    fd_gil_minsize_setting = minsize;
}
#else
#include <stdatomic.h>

extern _Atomic(size_t) fd_gil_minsize_setting; /* defined in module.c */

static inline size_t fd_gil_minsize(void)
{
    return atomic_load_explicit(&fd_gil_minsize_setting, memory_order_relaxed);
}

static inline void fd_set_gil_minsize(size_t minsize)
{
    atomic_store_explicit(&fd_gil_minsize_setting, minsize, memory_order_relaxed);
}
#endif

#if PY_VERSION_HEX >= 0x030D0000
#define FD_HAVE_PYMUTEX 1
#endif

typedef struct {
    PyTypeObject *hash_type;
    PyTypeObject *hmac_type;
    PyTypeObject *digest_array_type; /* digest_array's results (arrow.c) */
    PyTypeObject *digest_stream_type;
    PyObject *algorithm_ids; /* dict: lowercase name or alias -> int algorithm id */
    /* hashlib's name of each algorithm, interned, by id: a name written as a
     * literal in the caller's code is this very object (the compiler interns
     * such literals), which a pointer comparison finds before any dict
     * lookup. */
    PyObject *names[FD_ALGORITHM_COUNT];
    /* The module's own constructor functions, by algorithm id: a digestmod or
     * one-shot name may be one of them instead of a string. */
    PyObject *constructors[FD_ALGORITHM_COUNT];
} fd_module_state;

static inline fd_module_state *fd_get_module_state(PyObject *module)
{
    return (fd_module_state *)PyModule_GetState(module);
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

typedef struct {
    PyObject_HEAD
    const fd_algorithm *algorithm;
    fd_object_lock lock;
    fd_hash_state state;
} fd_hash_object;

/* Fills view for a bytes object as bytes' own getbuffer would, without the
 * buffer protocol's round trip: bytes are immutable, and the reference taken
 * here keeps them alive until PyBuffer_Release. Returns false, leaving view
 * alone, for anything but an exact bytes object. */
static inline bool fd_view_bytes(PyObject *obj, Py_buffer *view)
{
    if (!PyBytes_CheckExact(obj))
        return false;
    *view = (Py_buffer){
        .buf = PyBytes_AS_STRING(obj),
        .obj = Py_NewRef(obj),
        .len = PyBytes_GET_SIZE(obj),
        .itemsize = 1,
        .readonly = 1,
        .ndim = 1,
    };
    return true;
}

/* ---- helpers.c ---------------------------------------------------------- */

/* Gets a C-contiguous byte view of obj with hashlib's errors: str is refused
 * (it has no single byte encoding), and so is anything without the buffer
 * protocol. Returns 0, or -1 with an exception set. */
int fd_get_buffer(PyObject *obj, Py_buffer *view);

/* Whose words a call that does not fit gets: a Python function's (the
 * interpreter's, as hashlib.new's Python layer and the stdlib's hmac give
 * them) or Argument Clinic's (hashlib's C functions), each in the wording of
 * the Python this extension is built for. */
typedef enum { FD_PYTHON_FUNCTION, FD_ARGUMENT_CLINIC } fd_parser;

/* A function's parameters, in order: the first npositional of names may be
 * passed by position, the rest only by keyword; the first nrequired have no
 * default. For a Python function, the first nbound are bound before the
 * call (a method's self, which messages count and name), and
 * extra_keywords collects unknown keywords (**kwargs) instead of refusing
 * them. For Argument Clinic, nbound is 0 and extra_keywords false. */
typedef struct fd_signature {
    const char *function; /* as messages name it: "new", "HMAC.update", "openssl_sha256" */
    const char *const *names;
    Py_ssize_t nparams;
    Py_ssize_t npositional;
    Py_ssize_t nrequired;
    Py_ssize_t nbound;
    fd_parser parser;
    bool extra_keywords;
} fd_signature;

/* Binds vectorcall arguments to signature's parameters: out[i] is the
 * argument of names[nbound + i], NULL where an optional one was omitted.
 * Returns 0, or -1 with CPython's TypeError for that call set. */
int fd_bind_arguments(const fd_signature *signature, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, PyObject **out);

/* Raises CPython's TypeError for keyword, which none of names[0..count)
 * matches (with 3.13+'s "Did you mean" among them). Returns -1. */
int fd_unexpected_keyword(fd_parser parser, const char *function, PyObject *keyword,
                          const char *const *names, Py_ssize_t count);

/* The argument of a vectorcall given as keyword name, or NULL. */
PyObject *fd_keyword_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              const char *name);

/* How hashlib words a name it does not know ("unsupported hash type sha3"
 * before 3.15). */
#if PY_VERSION_HEX >= 0x030F0000
#define FD_UNSUPPORTED_ALGORITHM "unsupported hash algorithm "
#else
#define FD_UNSUPPORTED_ALGORITHM "unsupported hash type "
#endif

/* A new ASCII str of the digest in lowercase hexadecimal, as hashlib's. */
PyObject *fd_hex_string(const uint8_t *digest, size_t digest_len);

/* A new dict from every spelling hashlib.new() accepts for the eight
 * algorithms, in lowercase, to the algorithm's id (the module state's
 * algorithm_ids). */
PyObject *fd_make_algorithm_ids(void);

/* Looks name (a str) up as new() does: exactly, then in ASCII lowercase,
 * since OpenSSL (which hashlib.new asks) compares names case-insensitively.
 * Returns the algorithm id, or -1 with hashlib's ValueError for an unknown
 * name (FD_UNSUPPORTED_ALGORITHM) set. */
int fd_lookup_algorithm(fd_module_state *state, PyObject *name);

/* The algorithm id a name or a constructor stands for: a str is looked up as
 * fd_lookup_algorithm does, and one of this module's constructors stands for
 * its algorithm. Anything else is a TypeError naming function and argument.
 * Returns the id, or -1 with an exception set. */
int fd_algorithm_from_object(PyObject *module, PyObject *obj, const char *function,
                             const char *argument);

/* A new dict {"md5": ..., "sha256": ..., ...} naming, for every algorithm,
 * the kernel its family runs: kernel_of_family[family]. */
PyObject *fd_kernels_by_algorithm(const char *const kernel_of_family[FD_FAMILY_COUNT]);

/* The standard library's module name ("hashlib" or "hmac"), a new reference
 * (NULL with an exception set): what the package's _stdlib_module(name)
 * returns, which stays the standard library's where fastdigest's own
 * modules were put in sys.modules under those names; without the package,
 * an import of name. What fastdigest does not implement goes to it. */
PyObject *fd_stdlib_module(PyObject *module, const char *name);

/* ---- hash.c -------------------------------------------------------------- */

/* A new object of the hash type, for one algorithm, with its state not yet
 * initialised: the caller fills it (init, a copy, or a restored state). */
fd_hash_object *fd_hash_alloc(PyTypeObject *type, const fd_algorithm *algorithm);

/* A new hash object of algorithm id that has hashed view (NULL: nothing). */
fd_hash_object *fd_hash_new(fd_module_state *state, enum fd_algorithm_id id,
                            const Py_buffer *view);

/* copy(): a new object with a copy of the state. */
PyObject *fd_hash_copy(PyObject *self, PyObject *ignored);

static inline void fd_hash_lock(fd_hash_object *self)
{
    fd_object_lock_acquire(&self->lock);
}

static inline void fd_hash_unlock(fd_hash_object *self)
{
    fd_object_lock_release(&self->lock);
}

/* ---- each file's part of the module's set-up ---------------------------- */

/* Called from the module's exec slot (module.c); each adds its types and
 * functions to the module. 0, or -1 with an exception set. */
int fd_hash_module_exec(PyObject *module, fd_module_state *state);
int fd_hmac_module_exec(PyObject *module, fd_module_state *state);
int fd_resume_module_exec(PyObject *module, fd_module_state *state);
int fd_batch_module_exec(PyObject *module, fd_module_state *state);
int fd_arrow_module_exec(PyObject *module, fd_module_state *state);

#endif /* FD_PYTHON_BINDING_H */
