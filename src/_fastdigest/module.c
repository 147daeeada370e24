/* fastdigest._fastdigest: the CPython binding of the C core.
 *
 * One hash type serves all eight algorithms, driven by the core's descriptor
 * table (algorithms.h). The algorithm state lives inline in the object, so
 * copy() is one object allocation and a memcpy, and digest() finalizes a copy
 * of the state on the stack. Only the public C API is used. */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "cpu.h"

/* ---- input buffers ----------------------------------------------------- */

/* Gets a contiguous byte view of obj with hashlib's errors: str is refused
 * (it has no single byte encoding), and so is anything without the buffer
 * protocol. PyBUF_SIMPLE makes the exporter refuse non-contiguous memory. */
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

static void hash_absorb(void *self, const uint8_t *data, size_t len)
{
    fd_hash_object *hash = self;
    hash->algorithm->update(&hash->state, data, len);
}

/* ---- the hash type ----------------------------------------------------- */

fd_hash_object *fd_hash_alloc(PyTypeObject *type, const fd_algorithm *algorithm)
{
    fd_hash_object *self = PyObject_New(fd_hash_object, type);
    if (self == NULL)
        return NULL;
    self->algorithm = algorithm;
    fd_object_lock_init(&self->lock);
    return self;
}

static void hash_dealloc(fd_hash_object *self)
{
    PyTypeObject *type = Py_TYPE(self);

    fd_object_lock_free(&self->lock);
    fd_secure_zero(&self->state, self->algorithm->state_len);
    PyObject_Free(self);
    Py_DECREF(type);
}

PyDoc_STRVAR(hash_update_doc, "update($self, data, /)\n--\n\n"
                              "Update this hash object's state with the provided bytes-like object.");

static PyObject *hash_update(fd_hash_object *self, PyObject *data)
{
    Py_buffer view;

    if (fd_get_buffer(data, &view) < 0)
        return NULL;
    fd_absorb_locked(&self->lock, hash_absorb, self, &view);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* Finalizes a copy of the state, taken under the lock, into out. */
static void hash_final_copy(fd_hash_object *self, uint8_t *out)
{
    fd_hash_state copy;
    size_t state_len = self->algorithm->state_len;

    fd_hash_lock(self);
    memcpy(&copy, &self->state, state_len);
    fd_hash_unlock(self);
    self->algorithm->final(&copy, out);
    fd_secure_zero(&copy, state_len);
}

PyDoc_STRVAR(hash_digest_doc, "digest($self, /)\n--\n\n"
                              "Return the digest value as a bytes object.");

static PyObject *hash_digest(fd_hash_object *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)self->algorithm->digest_len);
    if (result == NULL)
        return NULL;
    hash_final_copy(self, (uint8_t *)PyBytes_AS_STRING(result));
    return result;
}

PyDoc_STRVAR(hash_hexdigest_doc, "hexdigest($self, /)\n--\n\n"
                                 "Return the digest value as a string of hexadecimal digits.");

/* "000102...feff": the two hexadecimal digits of every byte value, so that
 * encoding takes one two-byte copy per byte instead of two lookups. */
#define HEX_PAIRS_STARTING(digit)                                                              \
    digit "0" digit "1" digit "2" digit "3" digit "4" digit "5" digit "6" digit "7" digit "8" \
        digit "9" digit "a" digit "b" digit "c" digit "d" digit "e" digit "f"
static const char hex_pairs[2 * 256 + 1] =
    HEX_PAIRS_STARTING("0") HEX_PAIRS_STARTING("1") HEX_PAIRS_STARTING("2")
    HEX_PAIRS_STARTING("3") HEX_PAIRS_STARTING("4") HEX_PAIRS_STARTING("5")
    HEX_PAIRS_STARTING("6") HEX_PAIRS_STARTING("7") HEX_PAIRS_STARTING("8")
    HEX_PAIRS_STARTING("9") HEX_PAIRS_STARTING("a") HEX_PAIRS_STARTING("b")
    HEX_PAIRS_STARTING("c") HEX_PAIRS_STARTING("d") HEX_PAIRS_STARTING("e")
    HEX_PAIRS_STARTING("f");
#undef HEX_PAIRS_STARTING

/* A new ASCII str of the digest in lowercase hexadecimal, as hashlib's. */
static PyObject *hex_string(const uint8_t *digest, size_t digest_len)
{
    PyObject *result = PyUnicode_New((Py_ssize_t)(2 * digest_len), 127);
    if (result == NULL)
        return NULL;
    Py_UCS1 *text = PyUnicode_1BYTE_DATA(result);
    for (size_t i = 0; i < digest_len; i++)
        memcpy(text + 2 * i, hex_pairs + 2 * digest[i], 2);
    return result;
}

static PyObject *hash_hexdigest(fd_hash_object *self, PyObject *Py_UNUSED(ignored))
{
    uint8_t digest[FD_MAX_DIGEST_LEN];

    hash_final_copy(self, digest);
    return hex_string(digest, self->algorithm->digest_len);
}

PyDoc_STRVAR(hash_copy_doc, "copy($self, /)\n--\n\n"
                            "Return a copy of the hash object.");

PyObject *fd_hash_copy(PyObject *op, PyObject *Py_UNUSED(ignored))
{
    fd_hash_object *self = (fd_hash_object *)op;
    fd_hash_object *copy = fd_hash_alloc(Py_TYPE(self), self->algorithm);
    if (copy == NULL)
        return NULL;
    fd_hash_lock(self);
    memcpy(&copy->state, &self->state, self->algorithm->state_len);
    fd_hash_unlock(self);
    return (PyObject *)copy;
}

static PyObject *hash_get_name(fd_hash_object *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(self->algorithm->name);
}

static PyObject *hash_get_digest_size(fd_hash_object *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->algorithm->digest_len);
}

static PyObject *hash_get_block_size(fd_hash_object *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->algorithm->block_len);
}

static PyObject *hash_repr(fd_hash_object *self)
{
    return PyUnicode_FromFormat("<%s %s object @ %p>", self->algorithm->name,
                                Py_TYPE(self)->tp_name, (void *)self);
}

static PyMethodDef hash_methods[] = {
    {"update", (PyCFunction)hash_update, METH_O, hash_update_doc},
    {"digest", (PyCFunction)hash_digest, METH_NOARGS, hash_digest_doc},
    {"hexdigest", (PyCFunction)hash_hexdigest, METH_NOARGS, hash_hexdigest_doc},
    {"copy", fd_hash_copy, METH_NOARGS, hash_copy_doc},
    FD_RESUME_HASH_METHODS
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef hash_getset[] = {
    {"name", (getter)hash_get_name, NULL, "The algorithm's name, as hashlib spells it.", NULL},
    {"digest_size", (getter)hash_get_digest_size, NULL, "The size of the digest in bytes.", NULL},
    {"block_size", (getter)hash_get_block_size, NULL, "The internal block size in bytes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(hash_type_doc,
             "A hash object: update() it with bytes-like objects, then read digest() or\n"
             "hexdigest(). Made by fastdigest.new() and the named constructors.");

static PyType_Slot hash_type_slots[] = {
    {Py_tp_dealloc, hash_dealloc},
    {Py_tp_repr, hash_repr},
    {Py_tp_methods, hash_methods},
    {Py_tp_getset, hash_getset},
    {Py_tp_doc, (void *)hash_type_doc},
    {0, NULL},
};

static PyType_Spec hash_type_spec = {
    .name = "fastdigest.HASH",
    .basicsize = sizeof(fd_hash_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = hash_type_slots,
};

/* ---- constructors ------------------------------------------------------ */

/* The arguments every constructor takes after new()'s name, as hashlib 3.14
 * spells them: (data=b'', *, usedforsecurity=True, string=None). */
typedef struct {
    PyObject *name; /* new() only */
    PyObject *data;
    PyObject *string;
} constructor_args;

static bool keyword_is(PyObject *keyword, const char *name)
{
    return PyUnicode_CompareWithASCIIString(keyword, name) == 0;
}

/* Parses positional (name and) data and the keywords data, usedforsecurity,
 * string (and name), with the messages of CPython's argument parsers.
 * with_name selects new()'s signature. */
static int parse_constructor_args(const char *function, bool with_name, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames, constructor_args *out)
{
    Py_ssize_t max_positional = with_name ? 2 : 1;
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *usedforsecurity = NULL;

    out->name = out->data = out->string = NULL;
    if (nargs > max_positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional argument%s (%zd given)",
                     function, max_positional, max_positional == 1 ? "" : "s", nargs);
        return -1;
    }
    if (nargs + nkeywords > max_positional + 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd %sarguments (%zd given)", function,
                     max_positional + 2, nargs == 0 ? "keyword " : "", nargs + nkeywords);
        return -1;
    }
    PyObject **positional[2] = {with_name ? &out->name : &out->data, &out->data};
    for (Py_ssize_t i = 0; i < nargs; i++)
        *positional[i] = args[i];

    for (Py_ssize_t i = 0; i < nkeywords; i++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = args[nargs + i];
        PyObject **slot;
        if (with_name && keyword_is(keyword, "name"))
            slot = &out->name;
        else if (keyword_is(keyword, "data"))
            slot = &out->data;
        else if (keyword_is(keyword, "string"))
            slot = &out->string;
        else if (keyword_is(keyword, "usedforsecurity"))
            slot = &usedforsecurity;
        else {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", function,
                         keyword);
            return -1;
        }
        if (*slot != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%S'", function,
                         keyword);
            return -1;
        }
        *slot = value;
    }
    if (with_name && out->name == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional argument: 'name'",
                     function);
        return -1;
    }
    /* Accepted for hashlib compatibility; nothing here is restricted by FIPS
     * mode, but a value whose truth cannot be taken still raises. */
    if (usedforsecurity != NULL && PyObject_IsTrue(usedforsecurity) < 0)
        return -1;
    if (out->data != NULL && out->string != NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "'data' and 'string' are mutually exclusive and support for 'string' "
                        "keyword parameter is slated for removal in a future version.");
        return -1;
    }
    if (out->data == NULL)
        out->data = out->string;
    return 0;
}

/* Makes a hash object of one algorithm and hashes view (may be NULL) into it. */
static PyObject *hash_new_with_view(fd_module_state *state, enum fd_algorithm_id id,
                                    const Py_buffer *view)
{
    fd_hash_object *self = fd_hash_alloc(state->hash_type, &fd_algorithms[id]);
    if (self == NULL)
        return NULL;
    self->algorithm->init(&self->state);
    if (view != NULL && view->len != 0) {
        /* No other thread can see the new object yet: no lock needed. */
        if (view->len >= FD_GIL_MINSIZE) {
            Py_BEGIN_ALLOW_THREADS
            self->algorithm->update(&self->state, view->buf, (size_t)view->len);
            Py_END_ALLOW_THREADS
        }
        else {
            self->algorithm->update(&self->state, view->buf, (size_t)view->len);
        }
    }
    return (PyObject *)self;
}

static PyObject *construct(PyObject *module, enum fd_algorithm_id id, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    constructor_args parsed;
    Py_buffer view;

    if (kwnames == NULL && nargs <= 1) {
        /* sha256() or sha256(data): nothing to parse. */
        parsed.data = nargs == 1 ? args[0] : NULL;
    }
    else if (parse_constructor_args(fd_algorithms[id].name, false, args, nargs, kwnames,
                                    &parsed) < 0) {
        return NULL;
    }
    if (parsed.data == NULL)
        return hash_new_with_view(fd_get_module_state(module), id, NULL);
    if (fd_get_buffer(parsed.data, &view) < 0)
        return NULL;
    PyObject *result = hash_new_with_view(fd_get_module_state(module), id, &view);
    PyBuffer_Release(&view);
    return result;
}

/* Looks name up as new() does: exactly, then in ASCII lowercase, since
 * OpenSSL (which hashlib.new asks) compares names case-insensitively.
 * Returns the algorithm id, or -1 with ValueError set. */
static int lookup_algorithm(fd_module_state *state, PyObject *name)
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
        return lookup_algorithm(state, obj);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (obj == state->constructors[id])
            return id;
    }
    PyErr_Format(PyExc_TypeError, "%s() argument %s must be str or a fastdigest constructor, not %s",
                 function, argument, obj == Py_None ? "None" : Py_TYPE(obj)->tp_name);
    return -1;
}

PyDoc_STRVAR(new_doc,
             "new($module, /, name, data=b'', **kwargs)\n--\n\n"
             "Return a new hash object using the named algorithm; optionally initialized\n"
             "with data (which must be a bytes-like object). Names are those hashlib.new()\n"
             "accepts for MD5, SHA-1 and SHA-2, in any case; for these the keywords are\n"
             "usedforsecurity and string. Any other name, with all the arguments, is\n"
             "handed to the standard library's hashlib.new().");

/* The name argument of a new() call, positional or keyword; NULL if absent. */
static PyObject *new_name_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs >= 1)
        return args[0];
    Py_ssize_t nkeywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkeywords; i++) {
        if (keyword_is(PyTuple_GET_ITEM(kwnames, i), "name"))
            return args[i];
    }
    return NULL;
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

/* A new() call for a name that is not one of the eight goes, untouched, to
 * the standard library's hashlib.new: sha3_256, blake2b with its keywords,
 * and the ValueError for a name that nothing knows all come from hashlib. */
static PyObject *new_from_stdlib(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    PyObject *hashlib = fd_stdlib_hashlib(module);
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

static PyObject *fastdigest_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    constructor_args parsed;
    Py_buffer view;

    /* The name decides whose new() this is before any argument is parsed:
     * the other algorithms take other keywords (blake2b's digest_size...). */
    int id = -1;
    PyObject *name = new_name_argument(args, nargs, kwnames);
    if (name != NULL && PyUnicode_Check(name)) {
        id = lookup_algorithm(state, name);
        if (id < 0) {
            if (!PyErr_ExceptionMatches(PyExc_ValueError))
                return NULL;
            PyErr_Clear();
            return new_from_stdlib(module, args, nargs, kwnames);
        }
    }
    if (parse_constructor_args("new", true, args, nargs, kwnames, &parsed) < 0)
        return NULL;
    if (!PyUnicode_Check(parsed.name)) {
        /* CPython's argument parsers name None by its value, others by type. */
        PyErr_Format(PyExc_TypeError, "new() argument 'name' must be str, not %s",
                     parsed.name == Py_None ? "None" : Py_TYPE(parsed.name)->tp_name);
        return NULL;
    }
    if (parsed.data != NULL && fd_get_buffer(parsed.data, &view) < 0)
        return NULL;
    PyObject *result = hash_new_with_view(state, (enum fd_algorithm_id)id,
                                          parsed.data != NULL ? &view : NULL);
    if (parsed.data != NULL)
        PyBuffer_Release(&view);
    return result;
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
        if (view.len >= FD_GIL_MINSIZE) {
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

PyDoc_STRVAR(hexdigest_doc,
             "hexdigest($module, name, data, /)\n--\n\n"
             "Return the digest of data as a string of hexadecimal digits:\n"
             "new(name, data).hexdigest() in one call. name is as for digest().");

static PyObject *fastdigest_hexdigest(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    uint8_t digest[FD_MAX_DIGEST_LEN];

    int id = hash_oneshot(module, "hexdigest", args, nargs, digest);
    if (id < 0)
        return NULL;
    return hex_string(digest, fd_algorithms[id].digest_len);
}

/* ---- constructors, continued ------------------------------------------ */

/* The named constructors: one small function each, so that each is a plain
 * METH_FASTCALL builtin like hashlib's. */
#define FD_CONSTRUCTOR(function, id)                                                          \
    static PyObject *fastdigest_##function(PyObject *module, PyObject *const *args,            \
                                           Py_ssize_t nargs, PyObject *kwnames)                \
    {                                                                                          \
        return construct(module, id, args, nargs, kwnames);                                    \
    }                                                                                          \
    PyDoc_STRVAR(function##_doc, #function "($module, /, data=b'', *, usedforsecurity=True, "  \
                                           "string=None)\n--\n\n"                              \
                                           "Return a new " #function " hash object; "          \
                                           "optionally initialized with data.");

FD_CONSTRUCTOR(md5, FD_MD5)
FD_CONSTRUCTOR(sha1, FD_SHA1)
FD_CONSTRUCTOR(sha224, FD_SHA224)
FD_CONSTRUCTOR(sha256, FD_SHA256)
FD_CONSTRUCTOR(sha384, FD_SHA384)
FD_CONSTRUCTOR(sha512, FD_SHA512)
FD_CONSTRUCTOR(sha512_224, FD_SHA512_224)
FD_CONSTRUCTOR(sha512_256, FD_SHA512_256)
#undef FD_CONSTRUCTOR

#define FD_CONSTRUCTOR_DEF(function)                                                           \
    {#function, (PyCFunction)(void (*)(void))fastdigest_##function,                            \
     METH_FASTCALL | METH_KEYWORDS, function##_doc}

static PyMethodDef module_methods[] = {
    {"new", (PyCFunction)(void (*)(void))fastdigest_new, METH_FASTCALL | METH_KEYWORDS, new_doc},
    FD_CONSTRUCTOR_DEF(md5),
    FD_CONSTRUCTOR_DEF(sha1),
    FD_CONSTRUCTOR_DEF(sha224),
    FD_CONSTRUCTOR_DEF(sha256),
    FD_CONSTRUCTOR_DEF(sha384),
    FD_CONSTRUCTOR_DEF(sha512),
    FD_CONSTRUCTOR_DEF(sha512_224),
    FD_CONSTRUCTOR_DEF(sha512_256),
    {"digest", (PyCFunction)(void (*)(void))fastdigest_digest, METH_FASTCALL, digest_doc},
    {"hexdigest", (PyCFunction)(void (*)(void))fastdigest_hexdigest, METH_FASTCALL, hexdigest_doc},
    {NULL, NULL, 0, NULL},
};
#undef FD_CONSTRUCTOR_DEF

/* ---- module ------------------------------------------------------------ */

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

static PyObject *make_algorithm_ids(void)
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
    fd_select_kernels(portable_only);
    /* The portable C hashes batches one message at a time. */
    fd_select_multi_kernels(portable_only);
    return 0;
}

static int module_exec(PyObject *module)
{
    fd_module_state *state = fd_get_module_state(module);

    /* The kernel pointers are process-wide: choose them only once, before any
     * object of any interpreter can hash with them. */
    static bool kernels_selected = false;
    if (!kernels_selected) {
        if (select_kernels() < 0)
            return -1;
        kernels_selected = true;
    }

    state->hash_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hash_type_spec, NULL);
    if (state->hash_type == NULL)
        return -1;
    if (PyModule_AddType(module, state->hash_type) < 0)
        return -1;
    state->algorithm_ids = make_algorithm_ids();
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
    int added = PyModule_AddObjectRef(module, "implementation", implementation);
    Py_DECREF(implementation);
    if (added < 0)
        return -1;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        state->constructors[id] = PyObject_GetAttrString(module, fd_algorithms[id].name);
        if (state->constructors[id] == NULL)
            return -1;
        state->names[id] = PyUnicode_InternFromString(fd_algorithms[id].name);
        if (state->names[id] == NULL)
            return -1;
    }
    if (fd_hmac_module_exec(module, state) < 0 || fd_resume_module_exec(module, state) < 0)
        return -1;
    return fd_batch_module_exec(module, state);
}

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    fd_module_state *state = fd_get_module_state(module);
    Py_VISIT(state->hash_type);
    Py_VISIT(state->hmac_type);
    Py_VISIT(state->algorithm_ids);
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
    Py_CLEAR(state->algorithm_ids);
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
#if PY_VERSION_HEX >= 0x030C0000
    /* Not per-interpreter GIL: the kernel choice is process-wide, and sharing
     * one GIL is what makes making it once at first import race-free. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(module_doc, "The C core of fastdigest: MD5, SHA-1 and SHA-2 with hashlib's interface.");

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastdigest._fastdigest",
    .m_doc = module_doc,
    .m_size = sizeof(fd_module_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__fastdigest(void)
{
    return PyModuleDef_Init(&module_def);
}
