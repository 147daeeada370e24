/* What the files of the CPython binding share: the module state, the hash
 * object, and the prototypes of helpers.c (argument binding, hexadecimal,
 * algorithm names), hash.c (the hash type) and each file's exec function,
 * which module.c calls. Every file of python/ includes this one, and with it
 * locking.h (the GIL threshold and the object lock: the hash object holds
 * one) and buffers.h (byte views of the inputs).
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
#include "python/buffers.h"
#include "python/locking.h"

typedef struct {
    PyTypeObject *hash_type;
    PyTypeObject *hmac_type;
    PyTypeObject *digest_array_type; /* digest_array's results (arrow_results.c) */
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
    /* Whether the running hashlib's constructors take data= (module.c's
     * constructors say which Pythons do), so that new() and the
     * constructors take and word their arguments as it does. */
    bool data_keyword;
} fd_module_state;

static inline fd_module_state *fd_get_module_state(PyObject *module)
{
    return (fd_module_state *)PyModule_GetState(module);
}

typedef struct {
    PyObject_HEAD
    const fd_algorithm *algorithm;
    fd_object_lock lock;
    fd_hash_state state;
} fd_hash_object;

/* ---- helpers.c ---------------------------------------------------------- */

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
 * since OpenSSL (which hashlib.new asks) compares names case-insensitively,
 * and for a known name followed by spaces, by asking the standard library's
 * hashlib (newer OpenSSL releases accept those, older ones do not).
 * Returns the algorithm id, or -1 with an exception set: hashlib's
 * ValueError for an unknown name (FD_UNSUPPORTED_ALGORITHM). */
int fd_lookup_algorithm(PyObject *module, PyObject *name);

/* The algorithm id a name or a constructor stands for: a str is looked up as
 * fd_lookup_algorithm does, and one of this module's constructors stands for
 * its algorithm. Anything else is a TypeError naming function and argument.
 * Returns the id, or -1 with an exception set. */
int fd_algorithm_from_object(PyObject *module, PyObject *obj, const char *function,
                             const char *argument);

/* The threads= argument of digest_array and digest_many: None for every CPU
 * this process may run on, else anything with __index__ but a bool (True is
 * no number of threads), 1 or more. Stores the count in threads and returns
 * 0, or returns -1 with TypeError or ValueError set, messages naming
 * function. */
int fd_parse_threads(PyObject *value, const char *function, size_t *threads);

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
fd_hash_object *fd_hash_new(fd_module_state *state, enum fd_algorithm_id id, const Py_buffer *view);

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
int fd_files_module_exec(PyObject *module, fd_module_state *state);
int fd_arrow_module_exec(PyObject *module, fd_module_state *state);

#endif /* FD_PYTHON_BINDING_H */
