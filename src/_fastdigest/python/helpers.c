/* The binding's helpers, shared by every file of python/: buffers, argument
 * binding, hexadecimal, algorithm names and kernel names. */
#include "python/binding.h"

#include <string.h>

#include "platform/parallel.h"

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

/* The messages are CPython's own: a Python function's from the
 * interpreter's argument binding (Python/ceval.c), a C function's from
 * Argument Clinic's parser (_PyArg_UnpackKeywords in Python/getargs.c); the
 * one that differs by version, an unexpected keyword, is compat.c's. Each
 * check runs in the order CPython's runs it, so that a call with two
 * mistakes gets the same complaint. None of this runs unless a call has
 * keywords or an unusual number of arguments. */

/* The index of the parameter keyword names, or -1. */
static Py_ssize_t parameter_index(const fd_signature *signature, PyObject *keyword)
{
    for (Py_ssize_t i = 0; i < signature->nparams; i++) {
        if (PyUnicode_CompareWithASCIIString(keyword, signature->names[i]) == 0)
            return i;
    }
    return -1;
}

/* The argument given as keyword name, or NULL. */
static PyObject *keyword_argument(PyObject *const *kwargs, PyObject *kwnames, const char *name)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), name) == 0)
            return kwargs[k];
    }
    return NULL;
}

static int keywords_must_be_strings(PyObject *kwnames)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(kwnames, k))) {
            PyErr_SetString(PyExc_TypeError, "keywords must be strings");
            return -1;
        }
    }
    return 0;
}

/* _PyArg_UnpackKeywords for parameters that may all be passed by keyword,
 * none of them required after a positional-only one. */
static int bind_clinic(const fd_compat *compat, const fd_signature *signature,
                       PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    const char *function = signature->function;
    const char *const *names = signature->names;
    Py_ssize_t nparams = signature->nparams, maxpos = signature->npositional;
    Py_ssize_t minpos = signature->nrequired;
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *const *kwargs = args + nargs;

    if (nargs + nkeywords > nparams) {
        /* "keyword" when nothing came by position (CPython's bpo-31229). */
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd %sargument%s (%zd given)", function,
                     nparams, nargs == 0 ? "keyword " : "", nparams == 1 ? "" : "s",
                     nargs + nkeywords);
        return -1;
    }
    if (nargs > maxpos) {
        if (maxpos == 0)
            PyErr_Format(PyExc_TypeError, "%s() takes no positional arguments", function);
        else
            PyErr_Format(PyExc_TypeError, "%s() takes %s %zd positional argument%s (%zd given)",
                         function, minpos < maxpos ? "at most" : "exactly", maxpos,
                         maxpos == 1 ? "" : "s", nargs);
        return -1;
    }
    if (nkeywords > 0 && keywords_must_be_strings(kwnames) < 0)
        return -1;
    Py_ssize_t unmatched = nkeywords;
    for (Py_ssize_t i = 0; i < nparams; i++) {
        out[i] = i < nargs ? args[i] : NULL;
        if (i < nargs || (unmatched == 0 && i >= minpos))
            continue;
        if (unmatched > 0)
            out[i] = keyword_argument(kwargs, kwnames, names[i]);
        if (out[i] != NULL) {
            unmatched--;
        }
        else if (i < minpos) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %zd)", function,
                         names[i], i + 1);
            return -1;
        }
    }
    if (unmatched == 0)
        return 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (keyword_argument(kwargs, kwnames, names[i]) != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "argument for %s() given by name ('%s') and position (%zd)", function,
                         names[i], i + 1);
            return -1;
        }
    }
    for (Py_ssize_t k = 0; k < nkeywords; k++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, k);
        if (parameter_index(signature, keyword) < 0)
            return fd_unexpected_keyword(compat, FD_ARGUMENT_CLINIC, function, keyword, names,
                                         nparams);
    }
    PyErr_Format(PyExc_TypeError, "invalid keyword argument for %s()", function);
    return -1;
}

/* A Python function's binding, for parameters that may all be passed by
 * position or keyword, the first nbound of them bound before the call (a
 * method's self) and **kwargs where extra_keywords says so. */
static int bind_python(const fd_compat *compat, const fd_signature *signature,
                       PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    const char *function = signature->function;
    const char *const *names = signature->names;
    Py_ssize_t nparams = signature->nparams, nrequired = signature->nrequired;
    Py_ssize_t nbound = signature->nbound;
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    Py_ssize_t given = nbound + nargs; /* positional arguments, as messages count them */

    for (Py_ssize_t i = nbound; i < nparams; i++)
        out[i - nbound] = i < given ? args[i - nbound] : NULL;
    for (Py_ssize_t k = 0; k < nkeywords; k++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, k);
        if (!PyUnicode_Check(keyword)) {
            PyErr_Format(PyExc_TypeError, "%s() keywords must be strings", function);
            return -1;
        }
        Py_ssize_t i = parameter_index(signature, keyword);
        if (i < 0) {
            if (signature->extra_keywords)
                continue; /* for **kwargs: the caller's */
            return fd_unexpected_keyword(compat, FD_PYTHON_FUNCTION, function, keyword, names,
                                         nparams);
        }
        if (i < nbound || out[i - nbound] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", function,
                         names[i]);
            return -1;
        }
        out[i - nbound] = args[nargs + k];
    }
    if (given > nparams) {
        if (nrequired < nparams)
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %zd to %zd positional arguments but %zd were given",
                         function, nrequired, nparams, given);
        else
            PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd %s given",
                         function, nparams, nparams == 1 ? "" : "s", given,
                         given == 1 ? "was" : "were");
        return -1;
    }

    /* Python lists the missing names as 'a', 'a' and 'b', or 'a', 'b', and 'c'. */
    Py_ssize_t missing = 0;
    for (Py_ssize_t i = nbound; i < nrequired; i++)
        missing += out[i - nbound] == NULL;
    if (missing == 0)
        return 0;
    PyObject *listed = PyUnicode_FromString("");
    Py_ssize_t seen = 0;
    for (Py_ssize_t i = nbound; i < nrequired && listed != NULL; i++) {
        if (out[i - nbound] != NULL)
            continue;
        const char *separator = seen == 0            ? ""
                                : seen + 1 < missing ? ", "
                                : missing == 2       ? " and "
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

int fd_bind_arguments_into(const fd_compat *compat, const fd_signature *signature,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                           PyObject **out, Py_ssize_t nslots)
{
    /* A signature binds its parameters after the first nbound: the caller's
     * out must have room for each, else the binder would write past it. */
    if (signature->nbound < 0 || signature->nparams < signature->nbound ||
        signature->nrequired > signature->nparams || signature->npositional > signature->nparams ||
        nslots < signature->nparams - signature->nbound) {
        PyErr_Format(PyExc_SystemError,
                     "%s(): %zd parameters bound into %zd slots (a binding bug, please report)",
                     signature->function, signature->nparams - signature->nbound, nslots);
        return -1;
    }
    if (signature->parser == FD_ARGUMENT_CLINIC)
        return bind_clinic(compat, signature, args, nargs, kwnames, out);
    return bind_python(compat, signature, args, nargs, kwnames, out);
}

int fd_refuse_arguments(const fd_compat *compat, const fd_signature *signature,
                        PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    /* No slots: bind_python writes out only for parameters past nbound. */
    if (fd_bind_arguments_into(compat, signature, args, nargs, kwnames, NULL, 0) == 0)
        PyErr_Format(PyExc_SystemError, "%s() bound arguments it takes none of",
                     signature->function);
    return -1;
}

PyObject *fd_keyword_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              const char *name)
{
    return kwnames == NULL ? NULL : keyword_argument(args + nargs, kwnames, name);
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

/* Every other spelling hashlib.new() accepts for these algorithms on
 * OpenSSL 3, in lowercase, besides Python's names (each algorithm's own, of
 * FD_ALGORITHMS): OpenSSL's names and aliases, and the OIDs. _hashlib first
 * looks a name up in its own table, as written (CPython's name and its
 * uppercase form: 'sha512_224', 'SHA512_224'), then asks OpenSSL, which
 * matches its names, aliases and OIDs in any letter case. So these
 * spellings match in any case, and so do Python's names that are OpenSSL's
 * too ('md5', 'sha256'); CPython's names for the truncated SHA-512s, which
 * OpenSSL spells with a hyphen, only as written: 'Sha512_224' is refused. */
static const struct {
    const char *alias;
    enum fd_algorithm_id id;
} algorithm_aliases[] = {
    {"ssl3-md5", FD_MD5},
    {"1.2.840.113549.2.5", FD_MD5},
    {"sha-1", FD_SHA1},
    {"ssl3-sha1", FD_SHA1},
    {"1.3.14.3.2.26", FD_SHA1},
    {"sha-224", FD_SHA224},
    {"sha2-224", FD_SHA224},
    {"2.16.840.1.101.3.4.2.4", FD_SHA224},
    {"sha-256", FD_SHA256},
    {"sha2-256", FD_SHA256},
    {"2.16.840.1.101.3.4.2.1", FD_SHA256},
    {"sha-384", FD_SHA384},
    {"sha2-384", FD_SHA384},
    {"2.16.840.1.101.3.4.2.2", FD_SHA384},
    {"sha-512", FD_SHA512},
    {"sha2-512", FD_SHA512},
    {"2.16.840.1.101.3.4.2.3", FD_SHA512},
    {"sha512-224", FD_SHA512_224},
    {"sha-512/224", FD_SHA512_224},
    {"sha2-512/224", FD_SHA512_224},
    {"2.16.840.1.101.3.4.2.5", FD_SHA512_224},
    {"sha512-256", FD_SHA512_256},
    {"sha-512/256", FD_SHA512_256},
    {"sha2-512/256", FD_SHA512_256},
    {"2.16.840.1.101.3.4.2.6", FD_SHA512_256},
};

/* Maps name to id in ids: 0, or -1 with an exception set. */
static int add_algorithm_id(PyObject *ids, const char *name, enum fd_algorithm_id id)
{
    PyObject *value = PyLong_FromLong(id);
    int result = value == NULL ? -1 : PyDict_SetItemString(ids, name, value);
    Py_XDECREF(value);
    return result;
}

/* Whether a Python name of FD_ALGORITHMS is also OpenSSL's spelling, which
 * matches in any case: CPython's own names have an underscore where
 * OpenSSL's have a hyphen. */
static bool python_name_is_openssls(const char *name)
{
    return strchr(name, '_') == NULL;
}

/* Whether lowered, a name in lowercase, is one of the spellings that match
 * in any letter case. */
static bool matches_in_any_case(PyObject *lowered)
{
    const char *name = PyUnicode_AsUTF8(lowered);
    if (name == NULL) {
        PyErr_Clear(); /* a lone surrogate: no spelling of ours */
        return false;
    }
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (strcmp(name, fd_algorithms[id].name) == 0)
            return python_name_is_openssls(name);
    }
    for (size_t i = 0; i < sizeof algorithm_aliases / sizeof algorithm_aliases[0]; i++) {
        if (strcmp(name, algorithm_aliases[i].alias) == 0)
            return true;
    }
    return false;
}

PyObject *fd_make_algorithm_ids(void)
{
    PyObject *ids = PyDict_New();
    if (ids == NULL)
        return NULL;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        const char *name = fd_algorithms[id].name;
        if (add_algorithm_id(ids, name, (enum fd_algorithm_id)id) < 0)
            goto error;
        if (python_name_is_openssls(name))
            continue;
        /* _hashlib's table holds CPython's own names in uppercase too. */
        char upper[32];
        size_t length = strlen(name);
        if (length >= sizeof upper) {
            PyErr_Format(PyExc_SystemError, "algorithm name %s is too long", name);
            goto error;
        }
        for (size_t i = 0; i <= length; i++)
            upper[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
        if (add_algorithm_id(ids, upper, (enum fd_algorithm_id)id) < 0)
            goto error;
    }
    for (size_t i = 0; i < sizeof algorithm_aliases / sizeof algorithm_aliases[0]; i++) {
        if (add_algorithm_id(ids, algorithm_aliases[i].alias, algorithm_aliases[i].id) < 0)
            goto error;
    }
    return ids;
error:
    Py_DECREF(ids);
    return NULL;
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

/* The aliases above are the spellings every OpenSSL 3 accepts. OpenSSL 3.6
 * also accepts a known name followed by spaces ('sha256 '), which 3.0
 * refuses, so for such a name the hashlib beside fastdigest decides: asked
 * with the name alone, it answers with an object whose name is one of the
 * algorithms, or refuses. Returns the id, -1 where hashlib refuses or the name is
 * no padded alias (no exception set), or -2 with an exception set. */
static int lookup_padded_name(PyObject *module, fd_module_state *state, PyObject *name)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(name), end = length;
    while (end > 0 && PyUnicode_READ_CHAR(name, end - 1) == ' ')
        end--;
    if (end == length || end == 0)
        return -1;
    PyObject *stripped = PyUnicode_Substring(name, 0, end);
    if (stripped == NULL)
        return -2;
    PyObject *lowered = PyObject_CallMethod(stripped, "lower", NULL);
    Py_DECREF(stripped);
    if (lowered == NULL)
        return -2;
    PyObject *id = PyDict_GetItemWithError(state->algorithm_ids, lowered);
    Py_DECREF(lowered);
    if (id == NULL)
        return PyErr_Occurred() ? -2 : -1;
    int known = (int)PyLong_AsLong(id);

    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib == NULL)
        return -2;
    PyObject *probe = PyObject_CallMethod(hashlib, "new", "O", name);
    Py_DECREF(hashlib);
    if (probe == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -2;
        PyErr_Clear();
        return -1;
    }
    PyObject *probe_name = PyObject_GetAttrString(probe, "name");
    Py_DECREF(probe);
    if (probe_name == NULL)
        return -2;
    int same = PyUnicode_Check(probe_name) &&
               PyUnicode_CompareWithASCIIString(probe_name, fd_algorithms[known].name) == 0;
    Py_DECREF(probe_name);
    return same ? known : -1;
}

int fd_lookup_algorithm(PyObject *module, PyObject *name)
{
    fd_module_state *state = fd_get_module_state(module);
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
        if (id != NULL && !matches_in_any_case(lowered))
            id = NULL;
        Py_DECREF(lowered);
    }
    if (id != NULL)
        return (int)PyLong_AsLong(id);
    if (PyErr_Occurred())
        return -1;
    int padded = lookup_padded_name(module, state, name);
    if (padded >= 0)
        return padded;
    if (padded == -1)
        PyErr_Format(PyExc_ValueError, "%s%U", state->compat.unsupported_algorithm, name);
    return -1;
}

int fd_algorithm_from_object(PyObject *module, PyObject *obj, const char *function,
                             const char *argument)
{
    fd_module_state *state = fd_get_module_state(module);

    if (PyUnicode_Check(obj))
        return fd_lookup_algorithm(module, obj);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (obj == state->constructors[id])
            return id;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s() argument %s must be str or a fastdigest constructor, not %s", function,
                 argument, obj == Py_None ? "None" : Py_TYPE(obj)->tp_name);
    return -1;
}

PyObject *fd_stdlib_module(PyObject *module, const char *name)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *loader;
    FD_BEGIN_CRITICAL_SECTION(module); /* against a registration meanwhile */
    loader = Py_XNewRef(state->stdlib_module);
    FD_END_CRITICAL_SECTION();
    if (loader == NULL) {
        PyErr_Format(PyExc_ImportError,
                     "fastdigest._fastdigest cannot reach the standard library's %s: this "
                     "module was not registered by the fastdigest package, which calls "
                     "_register() as it is imported; import fastdigest rather than loading the "
                     "extension on its own",
                     name);
        return NULL;
    }
    PyObject *stdlib = PyObject_CallFunction(loader, "s", name);
    Py_DECREF(loader);
    if (stdlib == NULL)
        return NULL;
    /* It must be the standard library's module, never fastdigest's own (which
     * the swap puts in sys.modules under the same name): a call handed on to
     * fastdigest would come back here. */
    PyObject *stdlib_name = PyObject_GetAttrString(stdlib, "__name__");
    int same = stdlib_name == NULL ? -1
               : PyUnicode_Check(stdlib_name)
                   ? PyUnicode_CompareWithASCIIString(stdlib_name, name) == 0
                   : 0;
    Py_XDECREF(stdlib_name);
    if (same == 1)
        return stdlib;
    if (same == 0)
        PyErr_Format(PyExc_ImportError,
                     "fastdigest's registered stdlib_module('%s') gave %R, which is not the "
                     "standard library's %s",
                     name, stdlib, name);
    Py_DECREF(stdlib);
    return NULL;
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
        PyErr_Format(PyExc_TypeError, "%s(): threads must be an int or None, not %.100s", function,
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_ssize_t count = PyNumber_AsSsize_t(value, NULL);
    if (count == -1 && PyErr_Occurred())
        return -1;
    if (count < 1) {
        PyErr_Format(PyExc_ValueError, "%s(): threads must be at least 1 or None, not %R", function,
                     value);
        return -1;
    }
    *threads = (size_t)count;
    return 0;
}
