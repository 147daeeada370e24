/* fastdigest._fastdigest: the module. Its functions (new(), the named
 * constructors, the one-shots digest() and hexdigest()), the kernel
 * selection at import, and the module's set-up, which calls each other
 * binding file's exec function: hash.c (the hash type), hmac.c (HMAC and
 * PBKDF2), resume.c (from_state) and batch.c (digest_many). Only the public
 * C API is used. */
#include "python/binding.h"

#include <stdlib.h>
#include <string.h>

#include "platform/atomic.h"
#include "hash/known_answers.h"
#include "platform/parallel.h"
#include "dispatch/dispatch.h"

/* ---- the GIL threshold ------------------------------------------------- */

fd_relaxed_size fd_gil_minsize_setting = FD_GIL_MINSIZE;

PyDoc_STRVAR(set_gil_minsize_doc,
             "set_gil_minsize($module, minsize, /)\n--\n\n"
             "Set the size in bytes from which fastdigest hashes with the GIL released\n"
             "(on free-threaded builds: with the thread detached), for the whole process.\n"
             "Returns the previous threshold. The default, 2048, is hashlib's. Releasing\n"
             "and retaking the GIL costs a few tenths of a microsecond per call, more when\n"
             "other threads are waiting for it: a smaller threshold pays that on every\n"
             "input it releases for, in exchange for letting other threads run meanwhile.\n"
             "0 releases for every input; a value larger than any buffer never releases.");

static PyObject *fastdigest_set_gil_minsize(PyObject *Py_UNUSED(module), PyObject *arg)
{
    /* Anything with __index__; TypeError for anything else. An int too large
     * for Py_ssize_t is clipped to PY_SSIZE_T_MAX, which means the same as
     * itself: no buffer is that long. */
    Py_ssize_t minsize = PyNumber_AsSsize_t(arg, NULL);
    if (minsize == -1 && PyErr_Occurred())
        return NULL;
    if (minsize < 0) {
        PyErr_SetString(PyExc_ValueError, "set_gil_minsize() argument must be 0 or more");
        return NULL;
    }
    /* A read, then a write: two threads setting at once may both be told the
     * same previous value, and the threshold ends as one that a caller set. */
    size_t previous = fd_gil_minsize();
    fd_set_gil_minsize((size_t)minsize);
    return PyLong_FromSize_t(previous);
}

PyDoc_STRVAR(get_gil_minsize_doc,
             "get_gil_minsize($module, /)\n--\n\n"
             "Return the size in bytes from which fastdigest hashes with the GIL released:\n"
             "2048 (_GIL_MINSIZE) unless FASTDIGEST_GIL_MINSIZE or set_gil_minsize()\n"
             "changed it.");

static PyObject *fastdigest_get_gil_minsize(PyObject *Py_UNUSED(module),
                                            PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSize_t(fd_gil_minsize());
}

/* FASTDIGEST_GIL_MINSIZE=N sets the threshold at the first import in the
 * process: decimal digits only, saturating at PY_SSIZE_T_MAX. Unset or empty
 * keeps the default; anything else is a mistake worth an error at import, as
 * a wrong FASTDIGEST_BACKEND is. */
static int read_gil_minsize_environment(void)
{
    const char *text = getenv("FASTDIGEST_GIL_MINSIZE");
    if (text == NULL || text[0] == '\0')
        return 0;
    const size_t max = (size_t)PY_SSIZE_T_MAX;
    size_t minsize = 0;
    const char *c = text;
    for (; *c >= '0' && *c <= '9'; c++) {
        size_t digit = (size_t)(*c - '0');
        minsize = minsize > (max - digit) / 10 ? max : minsize * 10 + digit;
    }
    if (c == text || *c != '\0') {
        PyErr_Format(PyExc_ImportError,
                     "FASTDIGEST_GIL_MINSIZE must be a whole number of bytes, not '%s'", text);
        return -1;
    }
    fd_set_gil_minsize(minsize);
    return 0;
}

/* ---- constructors ------------------------------------------------------ */

/* The constructors take their arguments as hashlib's own (OpenSSL's
 * openssl_sha256() and the others) take them on the running Python, in one
 * of two ways, which compat.c decides at import (compat.data_keyword):
 * data: (data=b'', *, usedforsecurity=True, string=None), where data and
 *       string are one argument given either way, and 3.15+ deprecates
 *       string (compat.string_deprecation);
 * string: (string=b'', *, usedforsecurity=True).
 * new() follows the constructors.
 * Their messages name them as hashlib's C functions, openssl_sha256(): that
 * is what hashlib prints on every CPython build fastdigest supports, all of
 * which link OpenSSL. A CPython built without it falls back to its own
 * _sha2 module, whose messages say sha256(), and whose new() also accepts
 * fewer names (no OpenSSL aliases, no sha512_224); fastdigest stays the
 * OpenSSL build's hashlib there too, words included, rather than mix the
 * two. */
static const char *const data_keyword_parameters[] = {"data", "usedforsecurity", "string"};
static const char *const string_keyword_parameters[] = {"string", "usedforsecurity"};

/* usedforsecurity is accepted for hashlib compatibility (nothing here is
 * restricted by FIPS mode), but a value whose truth cannot be taken still
 * raises, as hashlib's bool conversion does. */
static int check_usedforsecurity(PyObject *usedforsecurity)
{
    return usedforsecurity != NULL && PyObject_IsTrue(usedforsecurity) < 0 ? -1 : 0;
}

/* The data to hash from data= and string=, as hashlib decides it: both is
 * an error, and where string alone is deprecated (3.15+) it is warned of at
 * the caller's line (stacklevel 1 from a C function is its caller). */
static int data_argument(const fd_compat *compat, PyObject *data, PyObject *string, PyObject **out)
{
    if (data != NULL && string != NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "'data' and 'string' are mutually exclusive and support for 'string' "
                        "keyword parameter is slated for removal in a future version.");
        return -1;
    }
    if (string != NULL) {
        if (compat->string_deprecation != NULL &&
            PyErr_WarnEx(PyExc_DeprecationWarning, compat->string_deprecation, 1) < 0)
            return -1;
        data = string;
    }
    *out = data;
    return 0;
}

/* A new hash object of algorithm id over data (NULL: none). */
static PyObject *hash_data(fd_module_state *state, enum fd_algorithm_id id, PyObject *data)
{
    Py_buffer view;

    if (data == NULL)
        return (PyObject *)fd_hash_new(state, id, NULL);
    if (fd_get_buffer(data, &view) < 0)
        return NULL;
    PyObject *result = (PyObject *)fd_hash_new(state, id, &view);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *construct(PyObject *module, enum fd_algorithm_id id, const char *function,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *data = NULL;

    if (kwnames == NULL && nargs <= 1) {
        /* sha256() or sha256(data): nothing to parse. */
        data = nargs == 1 ? args[0] : NULL;
    }
    else if (state->compat.data_keyword) {
        PyObject *bound[3];
        const fd_signature signature = {.function = function,
                                        FD_PARAMETERS(data_keyword_parameters),
                                        .npositional = 1,
                                        .parser = FD_ARGUMENT_CLINIC};
        if (fd_bind_arguments(&state->compat, &signature, args, nargs, kwnames, bound) < 0 ||
            check_usedforsecurity(bound[1]) < 0 ||
            data_argument(&state->compat, bound[0], bound[2], &data) < 0)
            return NULL;
    }
    else {
        PyObject *bound[2];
        const fd_signature signature = {.function = function,
                                        FD_PARAMETERS(string_keyword_parameters),
                                        .npositional = 1,
                                        .parser = FD_ARGUMENT_CLINIC};
        if (fd_bind_arguments(&state->compat, &signature, args, nargs, kwnames, bound) < 0 ||
            check_usedforsecurity(bound[1]) < 0)
            return NULL;
        data = bound[0];
    }
    return hash_data(state, id, data);
}

PyDoc_STRVAR(new_data_keyword_doc,
             "new($module, /, name, *args, **kwargs)\n--\n\n"
             "Return a new hash object using the named algorithm; optionally initialized\n"
             "with data (which must be a bytes-like object): new(name, data=b'', *,\n"
             "usedforsecurity=True, string=None), as hashlib.new. Names are those\n"
             "hashlib.new() accepts for MD5, SHA-1 and SHA-2, in any case. Any other name,\n"
             "with all the arguments, is handed to the standard library's hashlib.new().");

PyDoc_STRVAR(new_string_keyword_doc,
             "new($module, /, name, data=b'', **kwargs)\n--\n\n"
             "Return a new hash object using the named algorithm; optionally initialized\n"
             "with data (which must be a bytes-like object); usedforsecurity=True is the\n"
             "one keyword, as for hashlib.new. Names are those hashlib.new() accepts for\n"
             "MD5, SHA-1 and SHA-2, in any case. Any other name, with all the arguments,\n"
             "is handed to the standard library's hashlib.new().");

/* A new() call for a name that is not one of fastdigest's algorithms, or no
 * str at all,
 * goes untouched to the standard library's hashlib.new: sha3_256, blake2b
 * with its keywords, and every error about the name come from hashlib. */
static PyObject *new_from_stdlib(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib == NULL)
        return NULL;
    PyObject *stdlib_new = PyObject_GetAttrString(hashlib, "new");
    Py_DECREF(hashlib);
    if (stdlib_new == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(stdlib_new, args, (size_t)nargs, kwnames);
    Py_DECREF(stdlib_new);
    return result;
}

/* hashlib.new is a Python function, __hash_new, that calls OpenSSL's C
 * new(); a call that does not fit fails in one or the other, and gets that
 * one's words. These bind the arguments of a new() call naming one of
 * fastdigest's algorithms as the two would, into *data (NULL: none), one for each way of
 * taking the data (see the constructors). */
static int parse_new_data_keyword(const fd_compat *compat, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames, PyObject **data)
{
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    /* __hash_new(name, *args, **kwargs), then _hashlib.new(name, *args,
     * **kwargs): new(name, data=b'', *, usedforsecurity=True, string=None)
     * with name always by position. */
    static const char *const names[] = {"name", "data", "usedforsecurity", "string"};
    PyObject *bound[4];
    const fd_signature signature = {.function = "new",
                                    FD_PARAMETERS(names),
                                    .npositional = 2,
                                    .nrequired = 1,
                                    .parser = FD_ARGUMENT_CLINIC};

    if (nargs >= 1 && fd_keyword_argument(args, nargs, kwnames, "name") != NULL) {
        PyErr_SetString(PyExc_TypeError, "__hash_new() got multiple values for argument 'name'");
        return -1;
    }
    if (nargs + nkeywords > signature.nparams) {
        /* Counted as the C new() is called, with name by position. */
        PyErr_Format(PyExc_TypeError, "new() takes at most %zd arguments (%zd given)",
                     signature.nparams, nargs + nkeywords);
        return -1;
    }
    if (fd_bind_arguments(compat, &signature, args, nargs, kwnames, bound) < 0 ||
        check_usedforsecurity(bound[2]) < 0)
        return -1;
    return data_argument(compat, bound[1], bound[3], data);
}

static int parse_new_string_keyword(const fd_compat *compat, PyObject *const *args,
                                    Py_ssize_t nargs, PyObject *kwnames, PyObject **data)
{
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    /* __hash_new(name, data=b'', **kwargs), then _hashlib.new(name, data,
     * **kwargs): new(name, string=b'', *, usedforsecurity=True) with name and
     * data always by position, so that one keyword at most can fit, and
     * string= never does. */
    static const char *const python_names[] = {"name", "data"};
    static const char *const clinic_names[] = {"name", "string", "usedforsecurity"};
    PyObject *bound[2];
    const fd_signature signature = {.function = "__hash_new",
                                    FD_PARAMETERS(python_names),
                                    .npositional = 2,
                                    .nrequired = 1,
                                    .parser = FD_PYTHON_FUNCTION,
                                    .extra_keywords = true};

    if (fd_bind_arguments(compat, &signature, args, nargs, kwnames, bound) < 0)
        return -1;
    PyObject *extra_keyword = NULL, *usedforsecurity = NULL;
    Py_ssize_t nextra = 0;
    for (Py_ssize_t k = 0; k < nkeywords; k++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, k);
        if (PyUnicode_CompareWithASCIIString(keyword, "name") != 0 &&
            PyUnicode_CompareWithASCIIString(keyword, "data") != 0) {
            extra_keyword = keyword;
            usedforsecurity = args[nargs + k];
            nextra++;
        }
    }
    if (nextra > 1) {
        PyErr_Format(PyExc_TypeError, "new() takes at most 3 arguments (%zd given)", 2 + nextra);
        return -1;
    }
    if (extra_keyword != NULL &&
        PyUnicode_CompareWithASCIIString(extra_keyword, "usedforsecurity") != 0) {
        if (PyUnicode_CompareWithASCIIString(extra_keyword, "string") == 0) {
            PyErr_SetString(PyExc_TypeError,
                            "argument for new() given by name ('string') and position (2)");
            return -1;
        }
        return fd_unexpected_keyword(compat, FD_ARGUMENT_CLINIC, "new", extra_keyword, clinic_names,
                                     FD_NAME_COUNT(clinic_names));
    }
    if (check_usedforsecurity(usedforsecurity) < 0)
        return -1;
    *data = bound[1];
    return 0;
}

static PyObject *fastdigest_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);

    /* The name decides whose new() this is before any argument is parsed:
     * the other algorithms take other keywords (blake2b's digest_size...). */
    PyObject *name = nargs >= 1 ? args[0] : fd_keyword_argument(args, nargs, kwnames, "name");
    if (name == NULL || !PyUnicode_Check(name))
        return new_from_stdlib(module, args, nargs, kwnames);
    int id = fd_lookup_algorithm(module, name);
    if (id < 0) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return NULL;
        PyErr_Clear();
        return new_from_stdlib(module, args, nargs, kwnames);
    }
    PyObject *data = NULL;
    if (kwnames == NULL && nargs <= 2) /* new(name) or new(name, data) */
        data = nargs == 2 ? args[1] : NULL;
    else if ((state->compat.data_keyword ? parse_new_data_keyword : parse_new_string_keyword)(
                 &state->compat, args, nargs, kwnames, &data) < 0)
        return NULL;
    return hash_data(state, (enum fd_algorithm_id)id, data);
}

/* ---- one-shots ------------------------------------------------------- */

/* Hashes args[1] with the algorithm args[0] stands for into out, which has
 * room for FD_MAX_DIGEST_LEN bytes. As with new(), the data is checked
 * before the name. Returns the algorithm's id, or -1 with an exception set. */
static int hash_oneshot(PyObject *module, const char *function, PyObject *const *args,
                        Py_ssize_t nargs, uint8_t *out)
{
    Py_buffer view;

    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s expected 2 arguments, got %zd", function, nargs);
        return -1;
    }
    if (fd_get_buffer(args[1], &view) < 0)
        return -1;
    int id = fd_algorithm_from_object(module, args[0], function, "1");
    if (id >= 0) {
        if ((size_t)view.len >= fd_gil_minsize()) {
            Py_BEGIN_ALLOW_THREADS
                fd_hash((enum fd_algorithm_id)id, view.buf, (size_t)view.len, out);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_hash((enum fd_algorithm_id)id, view.buf, (size_t)view.len, out);
        }
    }
    PyBuffer_Release(&view);
    return id;
}

PyDoc_STRVAR(digest_doc,
             "digest($module, name, data, /)\n--\n\n"
             "Return the digest of data as bytes: new(name, data).digest() in one call.\n"
             "name is an algorithm name, as new() takes it, or one of fastdigest's\n"
             "constructors (fastdigest.sha256, ...).");

static PyObject *fastdigest_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    uint8_t digest[FD_MAX_DIGEST_LEN];

    int id = hash_oneshot(module, "digest", args, nargs, digest);
    if (id < 0)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)digest,
                                     (Py_ssize_t)fd_algorithms[id].digest_len);
}

PyDoc_STRVAR(hexdigest_doc, "hexdigest($module, name, data, /)\n--\n\n"
                            "Return the digest of data as a string of hexadecimal digits:\n"
                            "new(name, data).hexdigest() in one call. name is as for digest().");

static PyObject *fastdigest_hexdigest(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    uint8_t digest[FD_MAX_DIGEST_LEN];

    int id = hash_oneshot(module, "hexdigest", args, nargs, digest);
    if (id < 0)
        return NULL;
    return fd_hex_string(digest, fd_algorithms[id].digest_len);
}

/* ---- constructors, continued ------------------------------------------ */

/* The named constructors: one small function each, so that each is a plain
 * METH_FASTCALL builtin like hashlib's. Each has two docstrings, one for
 * each way of taking the data, whose first line is the signature that
 * inspect.signature() and help() show. */
#define FD_DATA_KEYWORD_PARAMETERS "data=b'', *, usedforsecurity=True, string=None"
#define FD_STRING_KEYWORD_PARAMETERS "string=b'', *, usedforsecurity=True"
#define FD_CONSTRUCTOR(function, ID, ...)                                              \
    static PyObject *fastdigest_##function(PyObject *module, PyObject *const *args,    \
                                           Py_ssize_t nargs, PyObject *kwnames)        \
    {                                                                                  \
        return construct(module, FD_##ID, "openssl_" #function, args, nargs, kwnames); \
    }                                                                                  \
    PyDoc_STRVAR(function##_data_keyword_doc,                                          \
                 #function "($module, /, " FD_DATA_KEYWORD_PARAMETERS ")\n--\n\n"      \
                           "Return a new " #function " hash object; "                  \
                           "optionally initialized with data.");                       \
    PyDoc_STRVAR(function##_string_keyword_doc,                                        \
                 #function "($module, /, " FD_STRING_KEYWORD_PARAMETERS ")\n--\n\n"    \
                           "Return a new " #function " hash object; "                  \
                           "optionally initialized with data.");
FD_ALGORITHMS(FD_CONSTRUCTOR)
#undef FD_CONSTRUCTOR

/* new() and a constructor for every algorithm of FD_ALGORITHMS, added by
 * module_exec with the docstrings of the running hashlib's way of taking
 * the data. */
#define FD_CONSTRUCTOR_DEF(function, way)                                                          \
    {#function, (PyCFunction)(void (*)(void))fastdigest_##function, METH_FASTCALL | METH_KEYWORDS, \
     function##_##way##_doc},
#define FD_DATA_KEYWORD_DEF(function, ...) FD_CONSTRUCTOR_DEF(function, data_keyword)
#define FD_STRING_KEYWORD_DEF(function, ...) FD_CONSTRUCTOR_DEF(function, string_keyword)
static PyMethodDef data_keyword_constructors[] = {
    {"new", (PyCFunction)(void (*)(void))fastdigest_new, METH_FASTCALL | METH_KEYWORDS,
     new_data_keyword_doc},
    FD_ALGORITHMS(FD_DATA_KEYWORD_DEF) /* one for each algorithm */
    {NULL, NULL, 0, NULL},
};
static PyMethodDef string_keyword_constructors[] = {
    {"new", (PyCFunction)(void (*)(void))fastdigest_new, METH_FASTCALL | METH_KEYWORDS,
     new_string_keyword_doc},
    FD_ALGORITHMS(FD_STRING_KEYWORD_DEF) /* one for each algorithm */
    {NULL, NULL, 0, NULL},
};
#undef FD_DATA_KEYWORD_DEF
#undef FD_STRING_KEYWORD_DEF
#undef FD_CONSTRUCTOR_DEF

/* ---- the package's registration ---------------------------------------- */

PyDoc_STRVAR(register_doc,
             "_register($module, /, *, stdlib_module)\n--\n\n"
             "Called once by the fastdigest package as it is imported (and again if it is\n"
             "reloaded), with what this module needs from it: stdlib_module(name), which\n"
             "returns the standard library's 'hashlib' or 'hmac' even where fastdigest's\n"
             "own modules were put in sys.modules under those names. What fastdigest\n"
             "does not implement is handed to those. ImportError if anything is missing.");

/* The one hand-off from the package to this module: everything the C code
 * needs from Python arrives here, by keyword, and is kept in the module
 * state; nothing is looked up by attribute or imported by a name that the
 * swap (sys.modules['hashlib'] = fastdigest) replaces. Until it is called,
 * what needs the standard library refuses with ImportError. */
static PyObject *fastdigest_register(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    static const char *const names[] = {"stdlib_module"};
    static const fd_signature signature = {
        .function = "_register", FD_PARAMETERS(names), .parser = FD_ARGUMENT_CLINIC};
    PyObject *bound[1];

    if (fd_bind_arguments(&state->compat, &signature, args, nargs, kwnames, bound) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++) {
        if (bound[i] == NULL || !PyCallable_Check(bound[i])) {
            PyErr_Format(PyExc_ImportError,
                         "fastdigest._fastdigest._register() needs %s=, a callable, not %s",
                         names[i], bound[i] == NULL ? "nothing" : Py_TYPE(bound[i])->tp_name);
            return NULL;
        }
    }
    /* A reload of the package registers again, maybe while another thread
     * reads the old registration (fd_stdlib_module). */
    PyObject *previous;
    FD_BEGIN_CRITICAL_SECTION(module);
    previous = state->stdlib_module;
    state->stdlib_module = Py_NewRef(bound[0]);
    FD_END_CRITICAL_SECTION();
    Py_XDECREF(previous);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"_register", (PyCFunction)(void (*)(void))fastdigest_register, METH_FASTCALL | METH_KEYWORDS,
     register_doc},
    {"digest", (PyCFunction)(void (*)(void))fastdigest_digest, METH_FASTCALL, digest_doc},
    {"hexdigest", (PyCFunction)(void (*)(void))fastdigest_hexdigest, METH_FASTCALL, hexdigest_doc},
    {"set_gil_minsize", fastdigest_set_gil_minsize, METH_O, set_gil_minsize_doc},
    {"get_gil_minsize", fastdigest_get_gil_minsize, METH_NOARGS, get_gil_minsize_doc},
    {NULL, NULL, 0, NULL},
};

/* ---- module ------------------------------------------------------------ */

/* FASTDIGEST_BACKEND=portable forces the portable C; unset or empty picks
 * the fastest kernels the CPU runs. Anything else is a mistake worth an error
 * at import rather than a silent fallback. */
static int select_kernels(void)
{
    const char *backend = getenv("FASTDIGEST_BACKEND");
    bool portable_only;

    if (backend == NULL || backend[0] == '\0' || strcmp(backend, "best") == 0)
        portable_only = false;
    else if (strcmp(backend, "portable") == 0)
        portable_only = true;
    else {
        PyErr_Format(PyExc_ImportError,
                     "FASTDIGEST_BACKEND must be 'portable', 'best' or unset, not '%s'", backend);
        return -1;
    }
    /* FASTDIGEST_DISABLE=shani,avx512 (the names are dispatch/features.c's)
     * hides CPU features from the selection below, so that each kernel this
     * CPU has can be reached without a rebuild. */
    uint32_t disabled = 0;
    char reason[320];
    if (!fd_cpu_parse_disable(getenv("FASTDIGEST_DISABLE"), &disabled, reason, sizeof reason)) {
        PyErr_Format(PyExc_ImportError, "FASTDIGEST_DISABLE: %s", reason);
        return -1;
    }
    fd_cpu_disable(disabled);
    /* Each kernel is checked against known answers before it is installed
     * (hash/known_answers.h). FASTDIGEST_TEST_FAIL_CHECK=sha256:shani makes
     * the checks of the kernels it names fail, as a wrong kernel's would, so
     * that tests reach the fallback and its warning: it can only make a
     * kernel be refused, never install one that failed. */
    if (!fd_select_checked_kernels(portable_only, getenv("FASTDIGEST_TEST_FAIL_CHECK"), reason,
                                   sizeof reason)) {
        PyErr_Format(PyExc_ImportError, "FASTDIGEST_TEST_FAIL_CHECK: %s", reason);
        return -1;
    }
    return 0;
}

/* The set-up that belongs to the whole process, not to one interpreter: the
 * kernel choice (and the FASTDIGEST_DISABLE mask it reads) and the GIL
 * threshold from the environment. Every interpreter's exec calls this, and
 * interpreters with GILs of their own may call it at the same time, so it
 * runs under the process's lock, once: the kernel tables are plain memory
 * that every hash reads without a lock, and a later import must not undo a
 * set_gil_minsize().
 *
 * A failure is not remembered: the next import, in this interpreter or any
 * other, runs the selection again and raises its own ImportError, the same
 * one while the cause stays (an exception object cannot be kept for other
 * interpreters, whose objects are their own), and none once the
 * environment is mended, as Python retries any import that failed. That is
 * safe because no module exists until the set-up has succeeded: nothing
 * hashes with the tables a failed attempt may have half written. Once it
 * has succeeded, the published flag lets every later import pass without
 * the lock. */
static fd_published_flag process_set_up;

static int set_up_process(void)
{
    if (fd_published_flag_is_set(&process_set_up))
        return 0;
    /* Waited for with this thread's GIL released: the holder takes its own
     * GIL back once it has the lock, and that is this very GIL where
     * interpreters share one (before 3.12, or by their configuration). */
    Py_BEGIN_ALLOW_THREADS
        fd_parallel_lock_process();
    Py_END_ALLOW_THREADS
    int result = 0;
    if (!fd_published_flag_is_set(&process_set_up)) {
        if (select_kernels() < 0 || read_gil_minsize_environment() < 0)
            result = -1;
        else
            fd_published_flag_set(&process_set_up);
    }
    fd_parallel_unlock_process();
    return result;
}

/* fastdigest.cpu_features: the names of the features the CPU has and
 * FASTDIGEST_DISABLE left (a name counts when all its bits are there). */
static PyObject *make_cpu_features(void)
{
    const uint32_t features = fd_cpu_features();
    PyObject *names = PyFrozenSet_New(NULL);
    if (names == NULL)
        return NULL;
    for (const fd_cpu_feature_name *f = fd_cpu_feature_names; f->name != NULL; f++) {
        if ((features & f->bits) != f->bits)
            continue;
        PyObject *name = PyUnicode_FromString(f->name);
        /* PySet_Add fills a frozenset that no other code has seen yet. */
        int failed = name == NULL || PySet_Add(names, name) < 0;
        Py_XDECREF(name);
        if (failed) {
            Py_DECREF(names);
            return NULL;
        }
    }
    return names;
}

static int module_exec(PyObject *module)
{
    fd_module_state *state = fd_get_module_state(module);

    if (set_up_process() < 0)
        return -1;
    /* The kernels: a warning for each the selection refused, from its
     * process-wide record (which set_up_process published), in every
     * interpreter that imports the module; and the functions the self-test
     * runs them through. */
    if (fd_kernels_module_exec(module, state) < 0)
        return -1;

    /* What the running CPython's hashlib does, before anything that reads it. */
    if (fd_compat_decide(&state->compat) < 0)
        return -1;
    PyObject *compat = fd_compat_mapping(&state->compat);
    if (compat == NULL)
        return -1;
    int added = PyModule_AddObjectRef(module, "_compat", compat);
    Py_DECREF(compat);
    if (added < 0)
        return -1;
    if (PyModule_AddFunctions(module, state->compat.data_keyword ? data_keyword_constructors
                                                                 : string_keyword_constructors) < 0)
        return -1;

    if (fd_hash_module_exec(module, state) < 0)
        return -1;
    state->algorithm_ids = fd_make_algorithm_ids();
    if (state->algorithm_ids == NULL)
        return -1;
    if (PyModule_AddIntConstant(module, "_GIL_MINSIZE", FD_GIL_MINSIZE) < 0)
        return -1;
    const char *kernel_of_family[FD_FAMILY_COUNT];
    for (int family = 0; family < FD_FAMILY_COUNT; family++)
        kernel_of_family[family] = fd_active_kernels[family].name;
    PyObject *implementation = fd_kernels_by_algorithm(kernel_of_family);
    if (implementation == NULL)
        return -1;
    added = PyModule_AddObjectRef(module, "implementation", implementation);
    Py_DECREF(implementation);
    if (added < 0)
        return -1;
    PyObject *cpu_features = make_cpu_features();
    if (cpu_features == NULL)
        return -1;
    added = PyModule_AddObjectRef(module, "cpu_features", cpu_features);
    Py_DECREF(cpu_features);
    if (added < 0)
        return -1;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        state->names[id] = PyUnicode_InternFromString(fd_algorithms[id].name);
        if (state->names[id] == NULL)
            return -1;
        state->constructors[id] = PyObject_GetAttr(module, state->names[id]);
        if (state->constructors[id] == NULL)
            return -1;
    }
    /* _algorithms: each algorithm's constructor by its name, in the order of
     * FD_ALGORITHMS: where the package takes its constructors and names
     * from, and the command line its names. */
    PyObject *algorithms = PyDict_New();
    if (algorithms == NULL)
        return -1;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (PyDict_SetItem(algorithms, state->names[id], state->constructors[id]) < 0) {
            Py_DECREF(algorithms);
            return -1;
        }
    }
    added = PyModule_AddObjectRef(module, "_algorithms", algorithms);
    Py_DECREF(algorithms);
    if (added < 0)
        return -1;
    if (fd_hmac_module_exec(module, state) < 0 || fd_resume_module_exec(module, state) < 0 ||
        fd_arrow_module_exec(module, state) < 0 || fd_surrogate_module_exec(module, state) < 0 ||
        fd_files_module_exec(module, state) < 0 || fd_fingerprint_module_exec(module, state) < 0 ||
        fd_json_module_exec(module, state) < 0 || fd_json_many_module_exec(module, state) < 0)
        return -1;
    if (fd_capi_module_exec(module, state) < 0 || fd_aio_module_exec(module, state) < 0)
        return -1;
    if (fd_parts_module_exec(module, state) < 0)
        return -1;
    return fd_batch_module_exec(module, state);
}

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    fd_module_state *state = fd_get_module_state(module);
    Py_VISIT(state->hash_type);
    Py_VISIT(state->hmac_type);
    Py_VISIT(state->digest_array_type);
    Py_VISIT(state->digest_stream_type);
    Py_VISIT(state->algorithm_ids);
    Py_VISIT(state->stdlib_module);
    Py_VISIT(state->from_state);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        Py_VISIT(state->constructors[id]);
        Py_VISIT(state->names[id]);
    }
    return 0;
}

static int module_clear(PyObject *module)
{
    fd_module_state *state = fd_get_module_state(module);
    Py_CLEAR(state->hash_type);
    Py_CLEAR(state->hmac_type);
    Py_CLEAR(state->digest_array_type);
    Py_CLEAR(state->digest_stream_type);
    Py_CLEAR(state->algorithm_ids);
    Py_CLEAR(state->stdlib_module);
    Py_CLEAR(state->from_state);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        Py_CLEAR(state->constructors[id]);
        Py_CLEAR(state->names[id]);
    }
    return 0;
}

static void module_free(void *module)
{
    module_clear((PyObject *)module);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef FD_HAVE_PER_INTERPRETER_GIL
    /* Interpreters with GILs of their own (concurrent.interpreters): what
     * the process shares is made once under its lock (set_up_process) or is
     * atomic (the GIL threshold), and every Python object lives in the
     * module state of its own interpreter. */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef FD_HAVE_MOD_GIL
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(module_doc,
             "The C core of fastdigest: MD5, SHA-1 and SHA-2 with hashlib's interface.");

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,         .m_name = "fastdigest._fastdigest",
    .m_doc = module_doc,           .m_size = sizeof(fd_module_state),
    .m_methods = module_methods,   .m_slots = module_slots,
    .m_traverse = module_traverse, .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__fastdigest(void)
{
    return PyModuleDef_Init(&module_def);
}
