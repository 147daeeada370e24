/* What the files of the CPython binding share: the module state, the hash
 * object, and the prototypes of helpers.c (argument binding, hexadecimal,
 * algorithm names), hash.c (the hash type) and each file's exec function,
 * which module.c calls. Every file of python/ includes this one, and with it
 * compat.h (what depends on the CPython version, the only place that tests
 * it), locking.h (the GIL threshold and the object lock: the hash object
 * holds one) and buffers.h (byte views of the inputs).
 *
 * The files of python/ are the only ones that include Python.h: the C test
 * drivers and the fuzzers build everything else. Dependencies run one way:
 * module.c calls the others, the others call helpers.c and hash.c, and all
 * of them call the core (hash/, data/, files/, platform/, and the dispatcher for
 * kernel names). */
#ifndef FD_PYTHON_BINDING_H
#define FD_PYTHON_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "hash/algorithms.h"
#include "hash/batch.h"
#include "hash/hex.h"
#include "python/buffers.h"
#include "python/compat.h"
#include "python/locking.h"
#include "platform/atomic.h"

typedef struct {
    PyTypeObject *hash_type;
    PyTypeObject *hmac_type;
    PyTypeObject *digest_array_type; /* digest_array's results (arrow_results.c) */
    PyTypeObject *digest_stream_type;
    PyObject *algorithm_ids; /* dict: spelling (helpers.c) -> int algorithm id */
    /* hashlib's name of each algorithm, interned, by id: a name written as a
     * literal in the caller's code is this very object (the compiler interns
     * such literals), which a pointer comparison finds before any dict
     * lookup. */
    PyObject *names[FD_ALGORITHM_COUNT];
    /* The module's own constructor functions, by algorithm id: a digestmod or
     * one-shot name may be one of them instead of a string. */
    PyObject *constructors[FD_ALGORITHM_COUNT];
    /* What the running CPython's hashlib and hmac do (compat.h), decided
     * first at exec. */
    fd_compat compat;
    /* The package's registration (_register(), module.c): the callable that
     * returns the standard library's hashlib or hmac by name, NULL until
     * the package has registered it. */
    PyObject *stdlib_module;
    /* The module's own function that its hash type calls: a pickled hash
     * object names from_state. */
    PyObject *from_state;
    /* How the running json's C encoder indents a dict none of whose items
     * it writes (python/data_api/json.c asks json once): 0 until asked. */
    fd_relaxed_size json_empty_dict_indent;
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

/* A function's parameters, in order: the first npositional of names may be
 * passed by position, the rest only by keyword; the first nrequired have no
 * default. For a Python function, the first nbound are bound before the
 * call (a method's self, which messages count and name), and
 * extra_keywords collects unknown keywords (**kwargs) instead of refusing
 * them. For Argument Clinic, nbound is 0 and extra_keywords false.
 * FD_PARAMETERS(names) sets names and nparams from one array. */
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

/* The length of an array, which must be one: &(out) of a pointer has the
 * type named first, which selects (void)0, and a void length does not
 * compile; of anything that is no lvalue (NULL, &x) it does not compile
 * either. FD_SLOT_COUNT for the out array of fd_bind_arguments,
 * FD_NAME_COUNT for an array of parameter names. */
#define FD_SLOT_COUNT(out) \
    _Generic(&(out), PyObject ***: (void)0, default: (Py_ssize_t)(sizeof(out) / sizeof((out)[0])))
#define FD_NAME_COUNT(list) \
    _Generic(&(list), const char *const **: (void)0, const char ***: (void)0, \
             default: (Py_ssize_t)(sizeof(list) / sizeof((list)[0])))
#define FD_PARAMETERS(list) .names = (list), .nparams = FD_NAME_COUNT(list)

/* Binds vectorcall arguments to signature's parameters: out[i] is the
 * argument of names[nbound + i], NULL where an optional one was omitted.
 * out is an array (FD_SLOT_COUNT passes its length), with a slot for every
 * parameter past nbound: fewer is a SystemError, not a write past its end.
 * Returns 0, or -1 with CPython's TypeError for that call set. */
#define fd_bind_arguments(compat, signature, args, nargs, kwnames, out) \
    fd_bind_arguments_into(compat, signature, args, nargs, kwnames, out, FD_SLOT_COUNT(out))
int fd_bind_arguments_into(const fd_compat *compat, const fd_signature *signature,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                           PyObject **out, Py_ssize_t nslots);

/* For a signature with no parameter past nbound (a method of self alone):
 * raises CPython's TypeError for the arguments a call gave it, or
 * SystemError if it gave none or the signature has parameters to bind.
 * Returns -1. */
int fd_refuse_arguments(const fd_compat *compat, const fd_signature *signature,
                        PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* The argument of a vectorcall given as keyword name, or NULL. */
PyObject *fd_keyword_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              const char *name);

/* A new ASCII str of the digest in lowercase hexadecimal, as hashlib's. */
PyObject *fd_hex_string(const uint8_t *digest, size_t digest_len);

/* A new dict from every spelling hashlib.new() accepts for fastdigest's
 * algorithms, in lowercase, to the algorithm's id (the module state's
 * algorithm_ids). */
PyObject *fd_make_algorithm_ids(void);

/* Looks name (a str) up as new() does: exactly, then in lowercase where
 * the spelling is OpenSSL's, which OpenSSL (which hashlib.new asks) compares
 * case-insensitively, and for a known name followed by spaces, by asking the standard library's
 * hashlib (newer OpenSSL releases accept those, older ones do not).
 * Returns the algorithm id, or -1 with an exception set: hashlib's
 * ValueError for an unknown name (compat's unsupported_algorithm). */
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

/* aio.c: the flag that a stop flag of _stop_flag() holds, which a thread
 * without the GIL may read for as long as the caller holds the flag
 * object; NULL with TypeError for any other object. */
fd_published_flag *fd_stop_flag_of(PyObject *flag);

/* A new dict {"md5": ..., "sha256": ..., ...} naming, for every algorithm,
 * the kernel its family runs: kernel_of_family[family]. */
PyObject *fd_kernels_by_algorithm(const char *const kernel_of_family[FD_FAMILY_COUNT]);

/* The standard library's module name ("hashlib" or "hmac"), a new reference
 * (NULL with an exception set), from the callable the package registered
 * (_register(stdlib_module=...)), which gives the standard library's module
 * even where fastdigest's own were put in sys.modules under those names;
 * ImportError where nothing was registered or it gave another module. What
 * fastdigest does not implement goes to it. */
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

/* ---- batch.c ------------------------------------------------------------- */

/* What fastdigest.hmac.digest_many hands on for a digest fastdigest does
 * not run: each message's MAC is function(key, message, digestmod), the
 * standard library's hmac.digest, called in order with the GIL. */
typedef struct fd_python_mac {
    PyObject *function;
    PyObject *key;
    PyObject *digestmod;
} fd_python_mac;

/* How digest_many and fastdigest.hmac.digest_many compute each message's
 * digest_len-byte result: by job (hash/batch.h), on up to `threads`
 * threads, with get_buffer reading the items that are not exactly bytes
 * (fd_get_buffer: hashlib's words; or the buffer protocol's own, as
 * hmac.digest reads a message); or, with python_mac (job NULL), by that
 * Python function on the calling thread. With hex, each result is given as
 * its hex digits (a str, or ASCII bytes in out=). */
typedef struct fd_many_request {
    const fd_batch_job *job;
    int (*get_buffer)(PyObject *item, Py_buffer *view);
    const fd_python_mac *python_mac;
    size_t digest_len;
    bool hex;
    size_t threads;
} fd_many_request;

/* The keyword arguments of digest_many and fastdigest.hmac.digest_many:
 * hex= (False when omitted), threads= (parsed) and out= (NULL when
 * omitted). */
typedef struct fd_many_options {
    bool hex;
    size_t threads;
    PyObject *out;
} fd_many_options;

/* The arguments of digest_many and fastdigest.hmac.digest_many after their
 * positional-only ones: checks that nargs is npositional, binds hex=,
 * threads= and out= by keyword into options, with CPython's words for a
 * function of that signature. Returns 0, or -1 with an exception set. */
int fd_bind_many_arguments(PyObject *module, Py_ssize_t npositional, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, fd_many_options *options);

/* The messages and out= of digest_many and fastdigest.hmac.digest_many,
 * once their other arguments are bound and checked, computed as request
 * says. messages is an iterable of buffers or a 2-D buffer of rows; out is
 * NULL or None for a new list of bytes, else the buffer they are written
 * into, which is returned. Every error of an item, or of out, says
 * digest_many() and names them. Returns a new reference, or NULL with an
 * exception set. */
PyObject *fd_many_messages(const fd_many_request *request, PyObject *messages, PyObject *out);

/* ---- each file's part of the module's set-up ---------------------------- */

/* Called from the module's exec slot (module.c); each adds its types and
 * functions to the module. 0, or -1 with an exception set. */
int fd_hash_module_exec(PyObject *module, fd_module_state *state);
int fd_hmac_module_exec(PyObject *module, fd_module_state *state);
int fd_resume_module_exec(PyObject *module, fd_module_state *state);
int fd_batch_module_exec(PyObject *module, fd_module_state *state);
int fd_files_module_exec(PyObject *module, fd_module_state *state);
/* files.c: open()'s OSError for a file the core could not open or read:
 * the exception class of the system's error code, its errno (or winerror)
 * and message, and the path as os.fspath gave it. */
void fd_raise_file_error(unsigned long error, PyObject *name);
/* parts.c: _hash_parts(), the parts of an S3 upload (fastdigest/_s3.py). */
int fd_parts_module_exec(PyObject *module, fd_module_state *state);
int fd_arrow_module_exec(PyObject *module, fd_module_state *state);
int fd_surrogate_module_exec(PyObject *module, fd_module_state *state);
/* capi.c: the C API's capsule, _C_API (fastdigest/include/fastdigest.h). */
int fd_capi_module_exec(PyObject *module, fd_module_state *state);
/* aio.c: the stop flags of fastdigest.aio's work. */
int fd_aio_module_exec(PyObject *module, fd_module_state *state);
/* fingerprint.c: fingerprint(). */
int fd_fingerprint_module_exec(PyObject *module, fd_module_state *state);
/* json.c: json_digest() (and _json_text(), for the tests). */
int fd_json_module_exec(PyObject *module, fd_module_state *state);
/* json_many.c: json_digest_many(). */
int fd_json_many_module_exec(PyObject *module, fd_module_state *state);
/* kernels.c: a RuntimeWarning for each kernel the selection refused
 * (dispatch.h's fd_kernel_failures), naming it, its family, why
 * and what runs instead, or ImportError where a family's last kernel
 * failed, which leaves nothing that hashes it right; then the self-test's
 * functions. module.c calls it right after the selection. */
int fd_kernels_module_exec(PyObject *module, fd_module_state *state);
/* kernels.c: settles the family's multi-buffer kernel, which the import's
 * selection leaves to the family's first batch (dispatch.h's
 * fd_settle_multi_kernel), and warns of those refused, as the import warns
 * of the others: every function that hashes batches calls it first, with
 * the GIL, so that the warning comes from the call that checked them. (The
 * core settles by itself too, so a path that forgot would lose the
 * warning, never the check.) 0, or -1 with an exception set. */
int fd_settle_batch_kernel(enum fd_family family);

#endif /* FD_PYTHON_BINDING_H */
