/* HMAC and PBKDF2-HMAC for Python: the HMAC type behind
 * fastdigest.hmac.new(), the one-shot behind fastdigest.hmac.digest(), and
 * fastdigest.pbkdf2_hmac(). The arithmetic is in hash/hmac.c; this file parses
 * arguments, raises the stdlib's errors and manages the GIL.
 *
 * What fastdigest does not implement goes to the stdlib: a digestmod that is
 * neither one of fastdigest's names nor one of its or hashlib's
 * constructors for them (say 'sha3_256', or a PEP 247 module) is passed on to hmac.new
 * or hmac.digest, and an unknown pbkdf2_hmac name to hashlib.pbkdf2_hmac,
 * with the caller's arguments unchanged. So every input the stdlib accepts
 * still works, and every input it rejects fails with its own exception. */
#include "python/binding.h"

#include <limits.h>
#include <string.h>

#include "hash/hmac.h"

/* ---- arguments ---------------------------------------------------------- */

/* A key for new(): bytes or bytearray (or a subclass), as the stdlib's
 * HMAC takes, with its message for anything else. */
static int get_key_buffer(PyObject *key, Py_buffer *view)
{
    if (fd_view_bytes(key, view))
        return 0;
    if (!PyBytes_Check(key) && !PyByteArray_Check(key)) {
        /* The stdlib formats type(key).__name__ with repr(). */
        PyObject *type_name = PyObject_GetAttrString((PyObject *)Py_TYPE(key), "__name__");
        if (type_name != NULL) {
            PyErr_Format(PyExc_TypeError, "key: expected bytes or bytearray, but got %R",
                         type_name);
            Py_DECREF(type_name);
        }
        return -1;
    }
    return PyObject_GetBuffer(key, view, PyBUF_SIMPLE);
}

/* The algorithm fastdigest runs for a digestmod: one of its names (as
 * new() looks them up) or one of the module's constructors. Returns the id,
 * FOREIGN_DIGESTMOD when the stdlib should handle it, or -1 with an
 * exception set. */
#define FOREIGN_DIGESTMOD (-2)

static int fast_algorithm(PyObject *module, PyObject *digestmod, const char *function,
                          const char *argument)
{
    if (PyUnicode_Check(digestmod)) {
        int id = fd_algorithm_from_object(module, digestmod, function, argument);
        if (id < 0 && PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            return FOREIGN_DIGESTMOD;
        }
        return id;
    }
    fd_module_state *state = fd_get_module_state(module);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (digestmod == state->constructors[id])
            return id;
    }
    /* hashlib's constructors name the same algorithms: the common
     * hmac.new(key, msg, hashlib.sha256) gets the fast path too. A caller
     * holding one has imported hashlib, so it is looked up, not imported;
     * where the name 'hashlib' is fastdigest itself, the standard library's
     * is asked (its constructors may have been taken before the swap). */
    PyObject *name = PyUnicode_FromString("hashlib");
    if (name == NULL)
        return -1;
    PyObject *imported = PyImport_GetModule(name);
    Py_DECREF(name);
    if (imported == NULL)
        return PyErr_Occurred() ? -1 : FOREIGN_DIGESTMOD;
    Py_DECREF(imported);
    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib == NULL)
        return -1;
    int found = FOREIGN_DIGESTMOD;
    for (int id = 0; id < FD_ALGORITHM_COUNT && found == FOREIGN_DIGESTMOD; id++) {
        /* hashlib has no sha512_224 or sha512_256 attribute. */
        PyObject *constructor = PyObject_GetAttrString(hashlib, fd_algorithms[id].name);
        if (constructor == NULL)
            PyErr_Clear();
        else if (constructor == digestmod)
            found = id;
        Py_XDECREF(constructor);
    }
    Py_DECREF(hashlib);
    return found;
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

/* Calls the standard library's hmac.function_name with the caller's
 * arguments as they came. */
static PyObject *call_stdlib_hmac(PyObject *module, const char *function_name,
                                  PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
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

/* ---- the HMAC type ----------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    fd_object_lock lock;
    /* The keyed states, inline: copy() is one allocation, digest() none
     * beyond its result. */
    fd_hmac_state hmac;
} hmac_object;

/* The decisions about the running CPython (compat.h) of the module that made
 * self's type. */
static const fd_compat *type_compat(hmac_object *self)
{
    return &((fd_module_state *)PyType_GetModuleState(Py_TYPE(self)))->compat;
}

static void hmac_lock(hmac_object *self)
{
    fd_object_lock_acquire(&self->lock);
}

static void hmac_unlock(hmac_object *self)
{
    fd_object_lock_release(&self->lock);
}

static hmac_object *hmac_alloc(PyTypeObject *type)
{
    hmac_object *self = PyObject_New(hmac_object, type);
    if (self == NULL)
        return NULL;
    fd_object_lock_init(&self->lock);
    return self;
}

static void hmac_dealloc(hmac_object *self)
{
    PyTypeObject *type = Py_TYPE(self);

    fd_object_lock_free(&self->lock);
    fd_hmac_wipe(&self->hmac);
    PyObject_Free(self);
    Py_DECREF(type);
}

static void hmac_absorb(void *self, const uint8_t *data, size_t len)
{
    fd_hmac_update(&((hmac_object *)self)->hmac, data, len);
}

PyDoc_STRVAR(hmac_update_doc, "update($self, /, msg)\n--\n\n"
                              "Feed data from msg into this hashing object.");

static PyObject *hmac_update(hmac_object *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"self", "msg"};
    PyObject *msg;
    Py_buffer view;

    if (nargs != 1 || kwnames != NULL) {
        static const fd_signature signature = {.function = "HMAC.update",
                                               FD_PARAMETERS(names),
                                               .npositional = 2,
                                               .nrequired = 2,
                                               .nbound = 1,
                                               .parser = FD_PYTHON_FUNCTION};
        PyObject *bound[1];
        if (fd_bind_arguments(type_compat(self), &signature, args, nargs, kwnames, bound) < 0)
            return NULL;
        msg = bound[0];
    }
    else {
        msg = args[0];
    }
    if (fd_get_buffer(msg, &view) < 0)
        return NULL;
    fd_absorb_locked(&self->lock, hmac_absorb, self, &view);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* The stdlib's HMAC methods but update() are Python methods of self alone:
 * a call with any argument gets the interpreter's words, naming the method.
 * Returns NULL with that TypeError set. */
static PyObject *refuse_arguments(hmac_object *self, const char *method, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"self"};
    const fd_signature signature = {.function = method,
                                    FD_PARAMETERS(names),
                                    .npositional = 1,
                                    .nrequired = 1,
                                    .nbound = 1,
                                    .parser = FD_PYTHON_FUNCTION};
    fd_refuse_arguments(type_compat(self), &signature, args, nargs, kwnames);
    return NULL;
}

static void hmac_final_locked(hmac_object *self, uint8_t *out)
{
    hmac_lock(self);
    fd_hmac_final(&self->hmac, out);
    hmac_unlock(self);
}

PyDoc_STRVAR(hmac_digest_doc, "digest($self, /)\n--\n\n"
                              "Return the hash value of this hashing object.\n\n"
                              "This returns the hmac value as bytes. The object is not altered\n"
                              "in any way by this function; you can continue updating the object\n"
                              "after calling this function.");

static PyObject *hmac_digest(hmac_object *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    if (nargs != 0 || kwnames != NULL)
        return refuse_arguments(self, "HMAC.digest", args, nargs, kwnames);
    PyObject *result = PyBytes_FromStringAndSize(NULL,
                                                 (Py_ssize_t)self->hmac.algorithm->digest_len);
    if (result == NULL)
        return NULL;
    hmac_final_locked(self, (uint8_t *)PyBytes_AS_STRING(result));
    return result;
}

PyDoc_STRVAR(hmac_hexdigest_doc,
             "hexdigest($self, /)\n--\n\n"
             "Like digest(), but returns a string of hexadecimal digits instead.");

static PyObject *hmac_hexdigest(hmac_object *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    uint8_t mac[FD_MAX_DIGEST_LEN];

    if (nargs != 0 || kwnames != NULL)
        return refuse_arguments(self, "HMAC.hexdigest", args, nargs, kwnames);
    hmac_final_locked(self, mac);
    PyObject *result = fd_hex_string(mac, self->hmac.algorithm->digest_len);
    fd_secure_zero(mac, sizeof mac);
    return result;
}

PyDoc_STRVAR(hmac_copy_doc, "copy($self, /)\n--\n\n"
                            "Return a separate copy of this hashing object.");

static hmac_object *hmac_duplicate(hmac_object *self)
{
    hmac_object *copy = hmac_alloc(Py_TYPE(self));
    if (copy == NULL)
        return NULL;
    const fd_algorithm *algorithm = self->hmac.algorithm;
    copy->hmac.algorithm = algorithm;
    /* Only the bytes of the states this algorithm uses. */
    hmac_lock(self);
    memcpy(&copy->hmac.inner, &self->hmac.inner, algorithm->state_len);
    hmac_unlock(self);
    memcpy(&copy->hmac.outer, &self->hmac.outer, algorithm->state_len); /* never written */
    return copy;
}

static PyObject *hmac_copy(hmac_object *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    if (nargs != 0 || kwnames != NULL)
        return refuse_arguments(self, "HMAC.copy", args, nargs, kwnames);
    return (PyObject *)hmac_duplicate(self);
}

static PyObject *hmac_copy_dunder(hmac_object *self, PyObject *Py_UNUSED(ignored))
{
    return (PyObject *)hmac_duplicate(self);
}

PyDoc_STRVAR(hmac_copy_dunder_doc, "__copy__($self, /)\n--\n\n"
                                   "copy.copy(): the same as copy().");
PyDoc_STRVAR(hmac_deepcopy_doc, "__deepcopy__($self, memo, /)\n--\n\n"
                                "copy.deepcopy(): the same as copy(); the state holds no objects.");

static PyObject *hmac_deepcopy(hmac_object *self, PyObject *Py_UNUSED(memo))
{
    return (PyObject *)hmac_duplicate(self);
}

/* Pickling would write the keyed states, from which anyone can compute MACs
 * as the key does: refused, as hashlib's HMAC objects refuse it. */
static PyObject *hmac_reduce(hmac_object *Py_UNUSED(self), PyObject *Py_UNUSED(ignored))
{
    PyErr_SetString(PyExc_TypeError,
                    "cannot pickle 'HMAC' object: its state is equivalent to the key");
    return NULL;
}

static PyObject *hmac_get_name(hmac_object *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromFormat("hmac-%s", self->hmac.algorithm->name);
}

static PyObject *hmac_get_digest_size(hmac_object *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->hmac.algorithm->digest_len);
}

static PyObject *hmac_get_block_size(hmac_object *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->hmac.algorithm->block_len);
}

static PyMethodDef hmac_methods[] = {
    {"update", (PyCFunction)(void (*)(void))hmac_update, METH_FASTCALL | METH_KEYWORDS,
     hmac_update_doc},
    {"digest", (PyCFunction)(void (*)(void))hmac_digest, METH_FASTCALL | METH_KEYWORDS,
     hmac_digest_doc},
    {"hexdigest", (PyCFunction)(void (*)(void))hmac_hexdigest, METH_FASTCALL | METH_KEYWORDS,
     hmac_hexdigest_doc},
    {"copy", (PyCFunction)(void (*)(void))hmac_copy, METH_FASTCALL | METH_KEYWORDS, hmac_copy_doc},
    {"__copy__", (PyCFunction)hmac_copy_dunder, METH_NOARGS, hmac_copy_dunder_doc},
    {"__deepcopy__", (PyCFunction)hmac_deepcopy, METH_O, hmac_deepcopy_doc},
    {"__reduce__", (PyCFunction)hmac_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef hmac_getset[] = {
    {"name", (getter)hmac_get_name, NULL, "'hmac-' and the hash algorithm's name.", NULL},
    {"digest_size", (getter)hmac_get_digest_size, NULL, "The size of the MAC in bytes.", NULL},
    {"block_size", (getter)hmac_get_block_size, NULL,
     "The block size of the underlying hash in bytes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(hmac_type_doc,
             "HMAC(key, msg=None, digestmod='')\n--\n\n"
             "An HMAC object (RFC 2104): update() it with bytes-like objects, then read\n"
             "digest() or hexdigest(). Made by fastdigest.hmac.new().");

/* HMAC(key, msg=None, digestmod=''): the stdlib's class may be called as
 * new() is, and so may this one, with the words of its __init__: the
 * module's HMAC initialiser (fastdigest_hmac_init, kept in its state),
 * called through CPython's own tuple-to-vectorcall conversion. */
static PyObject *hmac_type_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    fd_module_state *state = PyType_GetModuleState(type);
    if (state == NULL)
        return NULL;
    return PyObject_Call(state->hmac_init, args, kwargs);
}

static PyType_Slot hmac_type_slots[] = {
    {Py_tp_dealloc, hmac_dealloc}, {Py_tp_methods, hmac_methods},      {Py_tp_getset, hmac_getset},
    {Py_tp_new, hmac_type_new},    {Py_tp_doc, (void *)hmac_type_doc}, {0, NULL},
};

static PyType_Spec hmac_type_spec = {
    .name = "fastdigest.hmac.HMAC",
    .basicsize = sizeof(hmac_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = hmac_type_slots,
};

/* ---- module functions --------------------------------------------------- */

/* The stdlib's hmac.new(key, msg=None, digestmod='') and the HMAC class's
 * __init__(self, key, msg=None, digestmod=''), whose messages count self. */
static const char *const hmac_new_names[] = {"key", "msg", "digestmod"};
static const char *const hmac_init_names[] = {"self", "key", "msg", "digestmod"};
static const fd_signature hmac_new_signature = {.function = "new",
                                                FD_PARAMETERS(hmac_new_names),
                                                .npositional = 3,
                                                .nrequired = 1,
                                                .parser = FD_PYTHON_FUNCTION};
static const fd_signature hmac_init_signature = {.function = "HMAC.__init__",
                                                 FD_PARAMETERS(hmac_init_names),
                                                 .npositional = 4,
                                                 .nrequired = 2,
                                                 .nbound = 1,
                                                 .parser = FD_PYTHON_FUNCTION};

/* new() and HMAC(): the signature says which; stdlib_function is the
 * stdlib's counterpart, which takes every digestmod fastdigest does not. */
static PyObject *hmac_construct(PyObject *module, const fd_signature *signature,
                                const char *stdlib_function, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *bound[3] = {NULL, NULL, NULL};
    Py_buffer key_view, msg_view;

    if (kwnames == NULL && nargs >= 1 && nargs <= 3) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            bound[i] = args[i];
    }
    else if (fd_bind_arguments(&state->compat, signature, args, nargs, kwnames, bound) < 0) {
        return NULL;
    }
    PyObject *key = bound[0], *msg = bound[1], *digestmod = bound[2];

    /* The stdlib's order: the key's type, then digestmod's presence. */
    if (get_key_buffer(key, &key_view) < 0)
        return NULL;
    int present = digestmod == NULL ? 0 : PyObject_IsTrue(digestmod);
    int id = present <= 0 ? -1 : fast_algorithm(module, digestmod, "new", "digestmod");
    if (present == 0)
        PyErr_SetString(PyExc_TypeError, state->compat.missing_digestmod);
    if (id < 0) {
        PyBuffer_Release(&key_view);
        if (id == FOREIGN_DIGESTMOD)
            return call_stdlib_hmac(module, stdlib_function, args, nargs, kwnames);
        return NULL;
    }
    if (msg != NULL && msg != Py_None && fd_get_buffer(msg, &msg_view) < 0) {
        PyBuffer_Release(&key_view);
        return NULL;
    }
    bool has_msg = msg != NULL && msg != Py_None;

    hmac_object *self = hmac_alloc(state->hmac_type);
    if (self != NULL) {
        /* Nobody else sees the new object yet: no lock needed. */
        size_t work = (size_t)key_view.len + (has_msg ? (size_t)msg_view.len : 0);
        PyThreadState *released = work >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
        fd_hmac_init(&self->hmac, (enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len);
        if (has_msg)
            fd_hmac_update(&self->hmac, msg_view.buf, (size_t)msg_view.len);
        if (released != NULL)
            PyEval_RestoreThread(released);
    }
    if (has_msg)
        PyBuffer_Release(&msg_view);
    PyBuffer_Release(&key_view);
    return (PyObject *)self;
}

PyDoc_STRVAR(hmac_new_doc,
             "_hmac_new($module, /, key, msg=None, digestmod='')\n--\n\n"
             "Return a new HMAC object keyed with key (a bytes-like object); optionally\n"
             "fed msg. digestmod is required: one of fastdigest's algorithm names, or\n"
             "fastdigest's or hashlib's constructor for one; any other digestmod (a name\n"
             "fastdigest lacks, a PEP 247 module) is handed to the standard library's\n"
             "hmac.new().");

static PyObject *fastdigest_hmac_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    return hmac_construct(module, &hmac_new_signature, "new", args, nargs, kwnames);
}

/* HMAC(...): _hmac_new() with the words of the standard library's
 * HMAC.__init__ in its errors, and its hmac.HMAC for other digestmods. Not a
 * module attribute: the type's tp_new calls it from the module state. */
static PyObject *fastdigest_hmac_init(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    return hmac_construct(module, &hmac_init_signature, "HMAC", args, nargs, kwnames);
}

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
    int id = fast_algorithm(module, given[2], "digest", "digest");
    if (id == FOREIGN_DIGESTMOD)
        return call_stdlib_hmac(module, "digest", args, nargs, kwnames);
    if (id < 0)
        return NULL;
    if (get_one_shot_buffer(given[0], &key_view) < 0)
        return NULL;
    if (get_one_shot_buffer(given[1], &msg_view) < 0) {
        PyBuffer_Release(&key_view);
        return NULL;
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
                                            PyObject *digestmod, PyObject *out)
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
                                         .threads = 1};
        result = fd_many_messages(&request, messages, out);
        Py_DECREF(probe);
    }
    Py_DECREF(function);
    return result;
}

PyDoc_STRVAR(hmac_digest_many_doc,
             "_hmac_digest_many($module, key, messages, digest, /, *, threads=None, "
             "out=None)\n--\n\n"
             "Return the HMAC of each message under key, in order: [digest(key, m,\n"
             "digest) for m in messages] in one call, the key's states computed once\n"
             "and the messages hashed side by side where the CPU allows. messages,\n"
             "threads and out are digest_many()'s. Any other digest is handed to the\n"
             "standard library's hmac.digest(), message by message.");

static PyObject *fastdigest_hmac_digest_many(PyObject *module, PyObject *const *args,
                                             Py_ssize_t nargs, PyObject *kwnames)
{
    /* key, messages and digest are positional-only, as digest_many()'s
     * name and messages are. */
    size_t threads;
    PyObject *out;
    if (fd_bind_many_arguments(module, 3, args, nargs, kwnames, &threads, &out) < 0)
        return NULL;
    PyObject *key = args[0], *messages = args[1], *digestmod = args[2];
    /* As digest(): a digest the stdlib handles goes there before the key is
     * read. */
    int id = fast_algorithm(module, digestmod, "digest_many", "digest");
    if (id == FOREIGN_DIGESTMOD)
        return hmac_digest_many_by_stdlib(module, key, messages, digestmod, out);
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
                                     .threads = threads};
    PyObject *result = fd_many_messages(&request, messages, out);
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
    int id = fast_algorithm(module, hash_name, "pbkdf2_hmac", "hash_name");
    if (id == FOREIGN_DIGESTMOD)
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
    {"_hmac_new", (PyCFunction)(void (*)(void))fastdigest_hmac_new, METH_FASTCALL | METH_KEYWORDS,
     hmac_new_doc},
    {"_hmac_digest", (PyCFunction)(void (*)(void))fastdigest_hmac_digest,
     METH_FASTCALL | METH_KEYWORDS, hmac_digest_function_doc},
    {"_hmac_digest_many", (PyCFunction)(void (*)(void))fastdigest_hmac_digest_many,
     METH_FASTCALL | METH_KEYWORDS, hmac_digest_many_doc},
    {"pbkdf2_hmac", (PyCFunction)(void (*)(void))fastdigest_pbkdf2_hmac,
     METH_FASTCALL | METH_KEYWORDS, pbkdf2_hmac_doc},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef hmac_init_def = {"HMAC", (PyCFunction)(void (*)(void))fastdigest_hmac_init,
                                    METH_FASTCALL | METH_KEYWORDS, NULL};

int fd_hmac_module_exec(PyObject *module, fd_module_state *state)
{
    state->hmac_init = PyCFunction_NewEx(&hmac_init_def, module, NULL);
    if (state->hmac_init == NULL)
        return -1;
    state->hmac_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hmac_type_spec, NULL);
    if (state->hmac_type == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "HMAC", (PyObject *)state->hmac_type) < 0)
        return -1;
    return PyModule_AddFunctions(module, hmac_module_methods);
}
