/* The binding's helpers, shared by every file of python/: buffers, argument
 * binding, hexadecimal, algorithm names and kernel names. */
#include "python/binding.h"

#include <string.h>

#include "core/parallel.h"

/* ---- buffers ------------------------------------------------------------ */

/* PyBUF_SIMPLE makes the exporter refuse non-contiguous memory. */
int fd_get_buffer(PyObject *obj, Py_buffer *view)
{
    if (fd_view_bytes(obj, view)) /* the common case */
        return 0;
    if (PyUnicode_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "Strings must be encoded before hashing");
        return -1;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_SetString(PyExc_TypeError, "object supporting the buffer API required");
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->ndim > 1) {
        PyErr_SetString(PyExc_BufferError, "Buffer must be single dimension");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* ---- arguments ---------------------------------------------------------- */

int fd_bind_arguments(const fd_signature *signature, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, PyObject **out)
{
    const char *function = signature->function;
    const char *const *names = signature->names;
    Py_ssize_t nparams = signature->nparams, npositional = signature->npositional;
    Py_ssize_t nrequired = signature->nrequired, extra_positional = signature->extra_positional;
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);

    if (nargs > npositional && signature->clinic_messages) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional argument%s (%zd given)",
                     function, npositional, npositional == 1 ? "" : "s", nargs);
        return -1;
    }
    if (nargs > npositional) {
        Py_ssize_t most = npositional + extra_positional, given = nargs + extra_positional;
        if (nrequired == npositional)
            PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd %s given",
                         function, most, most == 1 ? "" : "s", given,
                         given == 1 ? "was" : "were");
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %zd to %zd positional arguments but %zd were given",
                         function, nrequired + extra_positional, most, given);
        return -1;
    }
    if (nargs + nkeywords > nparams && signature->clinic_messages) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd %sarguments (%zd given)", function,
                     nparams, nargs == 0 ? "keyword " : "", nargs + nkeywords);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nparams; i++)
        out[i] = i < nargs ? args[i] : NULL;
    for (Py_ssize_t k = 0; k < nkeywords; k++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t i = 0;
        while (i < nparams && PyUnicode_CompareWithASCIIString(keyword, names[i]) != 0)
            i++;
        if (i == nparams) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'",
                         function, keyword);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", function,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }

    /* Python lists the missing names as 'a', 'a' and 'b', or 'a', 'b', and 'c'. */
    Py_ssize_t missing = 0;
    for (Py_ssize_t i = 0; i < nrequired; i++)
        missing += out[i] == NULL;
    if (missing == 0)
        return 0;
    PyObject *listed = PyUnicode_FromString("");
    Py_ssize_t seen = 0;
    for (Py_ssize_t i = 0; i < nrequired && listed != NULL; i++) {
        if (out[i] != NULL)
            continue;
        const char *separator = seen == 0              ? ""
                                : seen + 1 < missing   ? ", "
                                : missing == 2         ? " and "
                                                       : ", and ";
        PyObject *joined = PyUnicode_FromFormat("%U%s'%s'", listed, separator, names[i]);
        Py_SETREF(listed, joined);
        seen++;
    }
    if (listed != NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing %zd required positional argument%s: %U",
                     function, missing, missing == 1 ? "" : "s", listed);
        Py_DECREF(listed);
    }
    return -1;
}

/* ---- hexadecimal ---------------------------------------------------------- */

PyObject *fd_hex_string(const uint8_t *digest, size_t digest_len)
{
    PyObject *result = PyUnicode_New((Py_ssize_t)(2 * digest_len), 127);
    if (result == NULL)
        return NULL;
    fd_hex_encode(digest, digest_len, (char *)PyUnicode_1BYTE_DATA(result));
    return result;
}

/* ---- names ----------------------------------------------------------------- */

/* Every spelling hashlib.new() accepts for these algorithms on OpenSSL 3, in
 * lowercase: Python's names, OpenSSL's names and aliases, and the OIDs. */
static const struct {
    const char *alias;
    enum fd_algorithm_id id;
} algorithm_aliases[] = {
    {"md5", FD_MD5},
    {"ssl3-md5", FD_MD5},
    {"1.2.840.113549.2.5", FD_MD5},
    {"sha1", FD_SHA1},
    {"sha-1", FD_SHA1},
    {"ssl3-sha1", FD_SHA1},
    {"1.3.14.3.2.26", FD_SHA1},
    {"sha224", FD_SHA224},
    {"sha-224", FD_SHA224},
    {"sha2-224", FD_SHA224},
    {"2.16.840.1.101.3.4.2.4", FD_SHA224},
    {"sha256", FD_SHA256},
    {"sha-256", FD_SHA256},
    {"sha2-256", FD_SHA256},
    {"2.16.840.1.101.3.4.2.1", FD_SHA256},
    {"sha384", FD_SHA384},
    {"sha-384", FD_SHA384},
    {"sha2-384", FD_SHA384},
    {"2.16.840.1.101.3.4.2.2", FD_SHA384},
    {"sha512", FD_SHA512},
    {"sha-512", FD_SHA512},
    {"sha2-512", FD_SHA512},
    {"2.16.840.1.101.3.4.2.3", FD_SHA512},
    {"sha512_224", FD_SHA512_224},
    {"sha512-224", FD_SHA512_224},
    {"sha-512/224", FD_SHA512_224},
    {"sha2-512/224", FD_SHA512_224},
    {"2.16.840.1.101.3.4.2.5", FD_SHA512_224},
    {"sha512_256", FD_SHA512_256},
    {"sha512-256", FD_SHA512_256},
    {"sha-512/256", FD_SHA512_256},
    {"sha2-512/256", FD_SHA512_256},
    {"2.16.840.1.101.3.4.2.6", FD_SHA512_256},
};

PyObject *fd_make_algorithm_ids(void)
{
    PyObject *ids = PyDict_New();
    if (ids == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof algorithm_aliases / sizeof algorithm_aliases[0]; i++) {
        PyObject *id = PyLong_FromLong(algorithm_aliases[i].id);
        int failed = id == NULL || PyDict_SetItemString(ids, algorithm_aliases[i].alias, id) < 0;
        Py_XDECREF(id);
        if (failed) {
            Py_DECREF(ids);
            return NULL;
        }
    }
    return ids;
}

PyObject *fd_kernels_by_algorithm(const char *const kernel_of_family[FD_FAMILY_COUNT])
{
    PyObject *kernels = PyDict_New();
    if (kernels == NULL)
        return NULL;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        PyObject *kernel = PyUnicode_FromString(kernel_of_family[fd_algorithms[id].family]);
        int failed = kernel == NULL ||
                     PyDict_SetItemString(kernels, fd_algorithms[id].name, kernel) < 0;
        Py_XDECREF(kernel);
        if (failed) {
            Py_DECREF(kernels);
            return NULL;
        }
    }
    return kernels;
}

int fd_lookup_algorithm(fd_module_state *state, PyObject *name)
{
    for (int known = 0; known < FD_ALGORITHM_COUNT; known++) {
        if (name == state->names[known])
            return known;
    }
    PyObject *id = PyDict_GetItemWithError(state->algorithm_ids, name);
    if (id == NULL && !PyErr_Occurred()) {
        PyObject *lowered = PyObject_CallMethod(name, "lower", NULL);
        if (lowered == NULL)
            return -1;
        id = PyDict_GetItemWithError(state->algorithm_ids, lowered);
        Py_DECREF(lowered);
    }
    if (id == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "unsupported hash type %U", name);
        return -1;
    }
    return (int)PyLong_AsLong(id);
}

int fd_algorithm_from_object(PyObject *module, PyObject *obj, const char *function,
                             const char *argument)
{
    fd_module_state *state = fd_get_module_state(module);

    if (PyUnicode_Check(obj))
        return fd_lookup_algorithm(state, obj);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (obj == state->constructors[id])
            return id;
    }
    PyErr_Format(PyExc_TypeError, "%s() argument %s must be str or a fastdigest constructor, not %s",
                 function, argument, obj == Py_None ? "None" : Py_TYPE(obj)->tp_name);
    return -1;
}

PyObject *fd_stdlib_hashlib(PyObject *module)
{
    PyObject *loader = PyObject_GetAttrString(module, "_stdlib_hashlib");
    if (loader == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return NULL;
        PyErr_Clear();
        return PyImport_ImportModule("hashlib");
    }
    PyObject *hashlib = PyObject_CallNoArgs(loader);
    Py_DECREF(loader);
    return hashlib;
}

/* ---- threads= ------------------------------------------------------------ */

/* An int too large for Py_ssize_t is clipped to PY_SSIZE_T_MAX: no batch
 * has that many parts. */
int fd_parse_threads(PyObject *value, const char *function, size_t *threads)
{
    if (value == Py_None) {
        *threads = fd_available_cpus();
        return 0;
    }
    if (PyBool_Check(value) || !PyIndex_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s(): threads must be an int or None, not %.100s",
                     function, Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_ssize_t count = PyNumber_AsSsize_t(value, NULL);
    if (count == -1 && PyErr_Occurred())
        return -1;
    if (count < 1) {
        PyErr_Format(PyExc_ValueError, "%s(): threads must be at least 1 or None, not %R",
                     function, value);
        return -1;
    }
    *threads = (size_t)count;
    return 0;
}
