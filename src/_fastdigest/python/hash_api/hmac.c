/* HMAC and PBKDF2-HMAC for Python, the module functions: which digestmods
 * fastdigest runs itself, the one-shots behind fastdigest.hmac.digest() and
 * digest_many(), and fastdigest.pbkdf2_hmac(); the HMAC type is
 * hmac_type.c's. The arithmetic is in hash/hmac.c; this file parses
 * arguments, raises the stdlib's errors and manages the GIL.
 *
 * What fastdigest does not implement goes to the stdlib: a digestmod that is
 * neither one of fastdigest's names nor a constructor object of one (say
 * 'sha3_256', a function, a PEP 247 module) is passed on to hmac.digest
 * (and, by the HMAC type, to hmac.new or hmac.HMAC), and an unknown
 * pbkdf2_hmac name to hashlib.pbkdf2_hmac, with the caller's arguments
 * unchanged. So every input the stdlib accepts still works, and every input
 * it rejects fails with its own exception. */
#include "python/hash_api/hmac.h"

#include <limits.h>
#include <string.h>

#include "hash/hmac.h"

/* ---- digestmods ----------------------------------------------------------- */

/* hashlib's constructors are builtin functions of CPython's own modules:
 * OpenSSL's in _hashlib, named openssl_NAME, and the builtin
 * implementations' in _md5, _sha1 and _sha2 (_sha256 and _sha512 before
 * 3.12), named NAME; hashlib.sha256 is one of them, and so is whichever a
 * program took from those modules itself. Such a function is recognised by
 * the module definition it belongs to and its name, never by what hashlib's
 * namespace holds now: whatever replaces hashlib.sha256 there (a
 * mock.patch, an instrumentation wrapper) is no constructor of these
 * modules, so it goes to the stdlib's hmac, which calls it. The stdlib's
 * hmac runs all of them as their algorithm: _hashlib's through OpenSSL's
 * HMAC, the others through its Python HMAC over the constructor. */
static const struct {
    const char *module;
    const char *prefix;
} hashlib_constructor_modules[] = {
    {"_hashlib", "openssl_"}, {"_md5", ""},    {"_sha1", ""}, {"_sha2", ""},
    {"_sha256", ""},          {"_sha512", ""},
};

static int hashlib_constructor_algorithm(PyObject *digestmod)
{
    if (!PyCFunction_Check(digestmod))
        return FD_FOREIGN_DIGESTMOD;
    PyObject *owner = PyCFunction_GetSelf(digestmod); /* borrowed: its module */
    if (owner == NULL || !PyModule_Check(owner))
        return FD_FOREIGN_DIGESTMOD;
    PyModuleDef *definition = PyModule_GetDef(owner);
    if (definition == NULL || definition->m_name == NULL)
        return FD_FOREIGN_DIGESTMOD;
    const char *prefix = NULL;
    for (size_t i = 0;
         i < sizeof hashlib_constructor_modules / sizeof hashlib_constructor_modules[0]; i++) {
        if (strcmp(definition->m_name, hashlib_constructor_modules[i].module) == 0)
            prefix = hashlib_constructor_modules[i].prefix;
    }
    if (prefix == NULL)
        return FD_FOREIGN_DIGESTMOD;
    PyObject *name_object = PyObject_GetAttrString(digestmod, "__name__");
    if (name_object == NULL)
        return -1;
    const char *name = PyUnicode_Check(name_object) ? PyUnicode_AsUTF8(name_object) : "";
    int found = name == NULL ? -1 : FD_FOREIGN_DIGESTMOD;
    size_t prefix_len = strlen(prefix);
    if (name != NULL && strncmp(name, prefix, prefix_len) == 0) {
        for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
            if (strcmp(name + prefix_len, fd_algorithms[id].name) == 0)
                found = id;
        }
    }
    Py_DECREF(name_object);
    return found;
}

int fd_hmac_algorithm(PyObject *module, PyObject *digestmod, const char *function,
                      const char *argument)
{
    if (PyUnicode_Check(digestmod)) {
        int id = fd_algorithm_from_object(module, digestmod, function, argument);
        if (id < 0 && PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            return FD_FOREIGN_DIGESTMOD;
        }
        return id;
    }
    fd_module_state *state = fd_get_module_state(module);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (digestmod == state->constructors[id])
            return id;
    }
    return hashlib_constructor_algorithm(digestmod);
}

/* The standard library's hmac.function_name, a new reference. */
static PyObject *stdlib_hmac_function(PyObject *module, const char *function_name)
{
    PyObject *hmac = fd_stdlib_module(module, "hmac");
    if (hmac == NULL)
        return NULL;
    PyObject *function = PyObject_GetAttrString(hmac, function_name);
    Py_DECREF(hmac);
    return function;
}

PyObject *fd_call_stdlib_hmac(PyObject *module, const char *function_name, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *function = stdlib_hmac_function(module, function_name);
    if (function == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(function, args, (size_t)nargs, kwnames);
    Py_DECREF(function);
    return result;
}

/* A key or message of the one-shots: any buffer, as the standard library's
 * _hashlib.hmac_digest takes both for these digests, with the buffer
 * protocol's own messages; bytes skip it. */
static int get_one_shot_buffer(PyObject *obj, Py_buffer *view)
{
    if (fd_view_bytes(obj, view))
        return 0;
    return PyObject_GetBuffer(obj, view, PyBUF_SIMPLE);
}

/* ---- module functions --------------------------------------------------- */

PyDoc_STRVAR(hmac_digest_function_doc,
             "_hmac_digest($module, /, key, msg, digest)\n--\n\n"
             "Return the HMAC of msg under key as bytes, in one call. digest is one of\n"
             "fastdigest's algorithm names or constructors; any other digest is handed to\n"
             "the standard library's hmac.digest().");

static PyObject *fastdigest_hmac_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames)
{
    static const char *const names[] = {"key", "msg", "digest"};
    PyObject *bound[3];
    PyObject *const *given = args;
    Py_buffer key_view, msg_view;

    if (nargs != 3 || kwnames != NULL) {
        static const fd_signature signature = {.function = "digest",
                                               FD_PARAMETERS(names),
                                               .npositional = 3,
                                               .nrequired = 3,
                                               .parser = FD_PYTHON_FUNCTION};
        if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args, nargs,
                              kwnames, bound) < 0)
            return NULL;
        given = bound;
    }
    /* A digest the stdlib handles goes there before anything is checked, so
     * that its checks run in its order. */
    int id = fd_hmac_algorithm(module, given[2], "digest", "digest");
    if (id == FD_FOREIGN_DIGESTMOD)
        return fd_call_stdlib_hmac(module, "digest", args, nargs, kwnames);
    if (id < 0)
        return NULL;
    if (get_one_shot_buffer(given[0], &key_view) < 0)
        return NULL;
    if (get_one_shot_buffer(given[1], &msg_view) < 0) {
        PyBuffer_Release(&key_view);
        return NULL;
    }
    /* _hashlib.hmac_digest takes int lengths and refuses a key or message
     * over INT_MAX bytes with OverflowError, which hmac.digest passes on up
     * to 3.13; from 3.14 it computes the MAC in Python instead (CPython's
     * gh-136912), whose checks have changed within 3.14's patch releases.
     * Such a call is the stdlib's, whatever it does there: it hashes at
     * OpenSSL's speed, which for gigabytes is fastdigest's. */
    if (key_view.len > INT_MAX || msg_view.len > INT_MAX) {
        PyBuffer_Release(&msg_view);
        PyBuffer_Release(&key_view);
        return fd_call_stdlib_hmac(module, "digest", args, nargs, kwnames);
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)fd_algorithms[id].digest_len);
    if (result != NULL) {
        uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
        if ((size_t)key_view.len + (size_t)msg_view.len >= fd_gil_minsize()) {
            Py_BEGIN_ALLOW_THREADS
                fd_hmac((enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len, msg_view.buf,
                        (size_t)msg_view.len, out);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_hmac((enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len, msg_view.buf,
                    (size_t)msg_view.len, out);
        }
    }
    PyBuffer_Release(&msg_view);
    PyBuffer_Release(&key_view);
    return result;
}

/* fastdigest.hmac.digest_many for a digest fastdigest does not run: the
 * standard library's hmac.digest for each message, in order, as the loop
 * it replaces would call it. One call with an empty message comes first:
 * it raises the standard library's errors for the key and the digest
 * before any message is read, even for no messages, and says how long the
 * MACs are, which out= must know. */
static PyObject *hmac_digest_many_by_stdlib(PyObject *module, PyObject *key, PyObject *messages,
                                            PyObject *digestmod, const fd_many_options *options)
{
    PyObject *function = stdlib_hmac_function(module, "digest");
    if (function == NULL)
        return NULL;
    PyObject *result = NULL;
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    PyObject *probe = empty == NULL
                          ? NULL
                          : PyObject_CallFunctionObjArgs(function, key, empty, digestmod, NULL);
    Py_XDECREF(empty);
    if (probe != NULL && !PyBytes_Check(probe)) {
        PyErr_Format(PyExc_TypeError, "digest_many(): hmac.digest() returned %.100s, not bytes",
                     Py_TYPE(probe)->tp_name);
        Py_CLEAR(probe);
    }
    if (probe != NULL) {
        const fd_python_mac mac = {.function = function, .key = key, .digestmod = digestmod};
        const fd_many_request request = {.job = NULL,
                                         .get_buffer = NULL,
                                         .python_mac = &mac,
                                         .digest_len = (size_t)PyBytes_GET_SIZE(probe),
                                         .hex = options->hex,
                                         .threads = 1};
        result = fd_many_messages(&request, messages, options->out);
        Py_DECREF(probe);
    }
    Py_DECREF(function);
    return result;
}

PyDoc_STRVAR(hmac_digest_many_doc,
             "_hmac_digest_many($module, key, messages, digest, /, *, hex=False, "
             "threads=None, out=None)\n--\n\n"
             "Return the HMAC of each message under key, in order: [digest(key, m,\n"
             "digest) for m in messages] in one call, the key's states computed once\n"
             "and the messages hashed side by side where the CPU allows. messages,\n"
             "hex, threads and out are digest_many()'s. Any other digest is handed to the\n"
             "standard library's hmac.digest(), message by message.");

static PyObject *fastdigest_hmac_digest_many(PyObject *module, PyObject *const *args,
                                             Py_ssize_t nargs, PyObject *kwnames)
{
    /* key, messages and digest are positional-only, as digest_many()'s
     * name and messages are. */
    fd_many_options options;
    if (fd_bind_many_arguments(module, 3, args, nargs, kwnames, &options) < 0)
        return NULL;
    PyObject *key = args[0], *messages = args[1], *digestmod = args[2];
    /* As digest(): a digest the stdlib handles goes there before the key is
     * read. */
    int id = fd_hmac_algorithm(module, digestmod, "digest_many", "digest");
    if (id == FD_FOREIGN_DIGESTMOD)
        return hmac_digest_many_by_stdlib(module, key, messages, digestmod, &options);
    if (id < 0)
        return NULL;

    if (fd_settle_batch_kernel(fd_algorithms[id].family) < 0)
        return NULL;
    Py_buffer key_view;
    if (get_one_shot_buffer(key, &key_view) < 0)
        return NULL;
    /* The key's states, computed once: every message's lane starts from
     * them, read by every thread, and they are wiped at the end. */
    fd_hmac_state keyed;
    if ((size_t)key_view.len >= fd_gil_minsize()) {
        Py_BEGIN_ALLOW_THREADS
            fd_hmac_init(&keyed, (enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len);
        Py_END_ALLOW_THREADS
    }
    else {
        fd_hmac_init(&keyed, (enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len);
    }
    PyBuffer_Release(&key_view);

    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_batch_job job = {
        .multi = fd_batch_multi_kernel(algorithm->family),
        .id = (enum fd_algorithm_id)id,
        .hmac = &keyed,
    };
    /* Messages in hmac.digest's words, not hashlib's. */
    const fd_many_request request = {.job = &job,
                                     .get_buffer = get_one_shot_buffer,
                                     .python_mac = NULL,
                                     .digest_len = algorithm->digest_len,
                                     .hex = options.hex,
                                     .threads = options.threads};
    PyObject *result = fd_many_messages(&request, messages, options.out);
    fd_hmac_wipe(&keyed);
    return result;
}

static PyObject *call_hashlib_pbkdf2_hmac(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames)
{
    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib == NULL)
        return NULL;
    PyObject *pbkdf2_hmac = PyObject_GetAttrString(hashlib, "pbkdf2_hmac");
    Py_DECREF(hashlib);
    if (pbkdf2_hmac == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(pbkdf2_hmac, args, (size_t)nargs, kwnames);
    Py_DECREF(pbkdf2_hmac);
    return result;
}

PyDoc_STRVAR(pbkdf2_hmac_doc,
             "pbkdf2_hmac($module, /, hash_name, password, salt, iterations, dklen=None)\n--\n\n"
             "Password based key derivation function 2 (PKCS #5 v2.0) with HMAC as\n"
             "pseudorandom function, as hashlib.pbkdf2_hmac. Names fastdigest does not\n"
             "implement are handed to hashlib.pbkdf2_hmac.");

static PyObject *fastdigest_pbkdf2_hmac(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames)
{
    static const char *const names[] = {"hash_name", "password", "salt", "iterations", "dklen"};
    static const fd_signature signature = {.function = "pbkdf2_hmac",
                                           FD_PARAMETERS(names),
                                           .npositional = 5,
                                           .nrequired = 4,
                                           .parser = FD_ARGUMENT_CLINIC};
    PyObject *bound[5];
    Py_buffer password_view, salt_view;

    /* hashlib's Argument Clinic parser, and its conversions in its order
     * with its messages. */
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args, nargs, kwnames,
                          bound) < 0)
        return NULL;
    PyObject *hash_name = bound[0], *password = bound[1], *salt = bound[2];
    PyObject *iterations_obj = bound[3], *dklen_obj = bound[4] == NULL ? Py_None : bound[4];
    if (!PyUnicode_Check(hash_name)) {
        PyErr_Format(PyExc_TypeError, "pbkdf2_hmac() argument 'hash_name' must be str, not %s",
                     hash_name == Py_None ? "None" : Py_TYPE(hash_name)->tp_name);
        return NULL;
    }
    /* A name fastdigest lacks goes to hashlib before anything is checked,
     * so that its checks run in its order. */
    int id = fd_hmac_algorithm(module, hash_name, "pbkdf2_hmac", "hash_name");
    if (id == FD_FOREIGN_DIGESTMOD)
        return call_hashlib_pbkdf2_hmac(module, args, nargs, kwnames);
    if (id < 0)
        return NULL;
    if (PyObject_GetBuffer(password, &password_view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(salt, &salt_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&password_view);
        return NULL;
    }

    PyObject *result = NULL;
    long iterations = PyLong_AsLong(iterations_obj);
    long dklen = 0;
    if (iterations == -1 && PyErr_Occurred())
        goto done;
    /* hashlib's checks, in its order, with its messages. */
    if (password_view.len > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "password is too long.");
        goto done;
    }
    if (salt_view.len > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "salt is too long.");
        goto done;
    }
    if (iterations < 1) {
        PyErr_SetString(PyExc_ValueError, "iteration value must be greater than 0.");
        goto done;
    }
    if (iterations > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "iteration value is too great.");
        goto done;
    }
    if (dklen_obj == Py_None) {
        dklen = (long)fd_algorithms[id].digest_len;
    }
    else {
        dklen = PyLong_AsLong(dklen_obj);
        if (dklen == -1 && PyErr_Occurred())
            goto done;
    }
    if (dklen < 1) {
        PyErr_SetString(PyExc_ValueError, "key length must be greater than 0.");
        goto done;
    }
    if (dklen > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "key length is too great.");
        goto done;
    }

    /* Several output blocks go through the multi-buffer kernels. */
    if (fd_settle_batch_kernel(fd_algorithms[id].family) < 0)
        goto done;
    result = PyBytes_FromStringAndSize(NULL, dklen);
    if (result == NULL)
        goto done;
    /* The whole derivation runs without the GIL: the views pin both inputs,
     * and the result is not visible to anyone else yet. */
    Py_BEGIN_ALLOW_THREADS
        fd_pbkdf2_hmac((enum fd_algorithm_id)id, password_view.buf, (size_t)password_view.len,
                       salt_view.buf, (size_t)salt_view.len, (uint32_t)iterations,
                       (uint8_t *)PyBytes_AS_STRING(result), (size_t)dklen);
    Py_END_ALLOW_THREADS

done:
    PyBuffer_Release(&salt_view);
    PyBuffer_Release(&password_view);
    return result;
}

static PyMethodDef hmac_module_methods[] = {
    {"_hmac_digest", (PyCFunction)(void (*)(void))fastdigest_hmac_digest,
     METH_FASTCALL | METH_KEYWORDS, hmac_digest_function_doc},
    {"_hmac_digest_many", (PyCFunction)(void (*)(void))fastdigest_hmac_digest_many,
     METH_FASTCALL | METH_KEYWORDS, hmac_digest_many_doc},
    {"pbkdf2_hmac", (PyCFunction)(void (*)(void))fastdigest_pbkdf2_hmac,
     METH_FASTCALL | METH_KEYWORDS, pbkdf2_hmac_doc},
    {NULL, NULL, 0, NULL},
};

int fd_hmac_module_exec(PyObject *module, fd_module_state *state)
{
    if (fd_hmac_type_exec(module, state) < 0)
        return -1;
    return PyModule_AddFunctions(module, hmac_module_methods);
}
