/* The HMAC type of fastdigest.hmac: the object behind new() and HMAC(),
 * which subclasses may derive from as they derive from the stdlib's
 * hmac.HMAC. The arithmetic is in hash/hmac.c, which digestmods fastdigest
 * runs is hmac.c's; this file keys the objects, raises the stdlib's errors
 * and manages the GIL and the object's lock.
 *
 * An HMAC object made for a digestmod fastdigest does not run hands each
 * call to the standard library's hmac.HMAC it holds, so that it is still an
 * instance of this type, or of the caller's subclass of it. */
#include "python/hash_api/hmac.h"

#include <limits.h>
#include <string.h>

#include "hash/hmac.h"

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

/* ---- the HMAC type ----------------------------------------------------- */

/* The stdlib's hmac.HMAC is a Python class whose __init__ does the work:
 * subclasses override __init__ (with parameters of their own) and call
 * super().__init__(key, msg, digestmod), add attributes, override methods.
 * So is this type: __new__ makes an object that is not keyed yet, whatever
 * its arguments, and __init__ (or new(), which does both) keys it, once. */
typedef struct {
    PyObject_HEAD
    fd_object_lock lock;
    /* For a digestmod fastdigest does not run: the standard library's
     * hmac.HMAC that does the work, every call handed to it; NULL
     * otherwise. Set once, when the object is keyed. */
    PyObject *stdlib_hmac;
    /* The keyed states, inline (algorithm NULL until keyed): copy() is one
     * allocation, digest() none beyond its result. */
    fd_hmac_state hmac;
} hmac_object;

static void hmac_dealloc(hmac_object *self);

/* The module's HMAC type: type itself or the base a subclass made in Python
 * (which has no module of its own) was derived from. */
static PyTypeObject *module_hmac_type(PyTypeObject *type)
{
    while (type->tp_dealloc != (destructor)hmac_dealloc)
        type = type->tp_base;
    return type;
}

static PyObject *object_module(hmac_object *self)
{
    return PyType_GetModule(module_hmac_type(Py_TYPE(self)));
}

/* The decisions about the running CPython (compat.h) of the module whose
 * HMAC type self is an instance of. */
static const fd_compat *type_compat(hmac_object *self)
{
    return &((fd_module_state *)PyType_GetModuleState(module_hmac_type(Py_TYPE(self))))->compat;
}

static void hmac_lock(hmac_object *self)
{
    fd_object_lock_acquire(&self->lock);
}

static void hmac_unlock(hmac_object *self)
{
    fd_object_lock_release(&self->lock);
}

/* A new object of type, not keyed. The module's own type is made untracked
 * by the cyclic collector, as hashlib's objects are: it holds no object
 * unless it hands its calls on, and is tracked from then (hmac_hand_on). A
 * subclass's instance comes from its tp_alloc, with its __dict__, tracked. */
static hmac_object *hmac_alloc(PyTypeObject *type)
{
    hmac_object *self;
    if (type->tp_dealloc == (destructor)hmac_dealloc)
        self = PyObject_GC_New(hmac_object, type);
    else
        self = (hmac_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    fd_object_lock_init(&self->lock);
    self->stdlib_hmac = NULL;
    self->hmac.algorithm = NULL;
    return self;
}

/* Makes self hand every call to stdlib_hmac, which it steals. */
static void hmac_hand_on(hmac_object *self, PyObject *stdlib_hmac)
{
    self->stdlib_hmac = stdlib_hmac;
    if (!PyObject_GC_IsTracked((PyObject *)self))
        PyObject_GC_Track(self);
}

static int hmac_traverse(hmac_object *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->stdlib_hmac);
    return 0;
}

static int hmac_clear(hmac_object *self)
{
    Py_CLEAR(self->stdlib_hmac);
    return 0;
}

static void hmac_dealloc(hmac_object *self)
{
    PyTypeObject *type = Py_TYPE(self);

    PyObject_GC_UnTrack(self);
    fd_object_lock_free(&self->lock);
    if (self->hmac.algorithm != NULL)
        fd_hmac_wipe(&self->hmac);
    Py_CLEAR(self->stdlib_hmac);
    type->tp_free(self);
    Py_DECREF(type);
}

/* For an object that was made but never keyed (HMAC.__new__(HMAC), or a
 * subclass whose __init__ does not call HMAC's): the stdlib's object then
 * lacks its attributes, and says so with AttributeError; so does this one.
 * Returns NULL with it set. */
static PyObject *not_keyed(hmac_object *self)
{
    PyErr_Format(PyExc_AttributeError,
                 "'%.100s' object has no key: HMAC.__init__(key, msg=None, digestmod='') was "
                 "never called on it",
                 Py_TYPE(self)->tp_name);
    return NULL;
}

/* The same call, handed to the standard library's HMAC the object holds. */
static PyObject *call_stdlib_method(hmac_object *self, const char *method, PyObject *const *args,
                                    Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *bound = PyObject_GetAttrString(self->stdlib_hmac, method);
    if (bound == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(bound, args, (size_t)nargs, kwnames);
    Py_DECREF(bound);
    return result;
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

    if (self->stdlib_hmac != NULL)
        return call_stdlib_method(self, "update", args, nargs, kwnames);
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
    if (self->hmac.algorithm == NULL)
        return not_keyed(self);
    if (fd_get_buffer(msg, &view) < 0)
        return NULL;
    fd_absorb_locked(&self->lock, hmac_absorb, self, &view);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* The stdlib's HMAC methods but update() are Python methods of self alone:
 * a call with any argument gets the interpreter's words, naming the method.
 * Returns -1 with that TypeError set, 1 for a call to hand to the stdlib's
 * HMAC, 0 for a call fastdigest makes. */
static int check_no_arguments(hmac_object *self, const char *method, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"self"};
    if (self->stdlib_hmac != NULL)
        return 1;
    if (nargs != 0 || kwnames != NULL) {
        const fd_signature signature = {.function = method,
                                        FD_PARAMETERS(names),
                                        .npositional = 1,
                                        .nrequired = 1,
                                        .nbound = 1,
                                        .parser = FD_PYTHON_FUNCTION};
        return fd_refuse_arguments(type_compat(self), &signature, args, nargs, kwnames);
    }
    if (self->hmac.algorithm == NULL) {
        not_keyed(self);
        return -1;
    }
    return 0;
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
    int checked = check_no_arguments(self, "HMAC.digest", args, nargs, kwnames);
    if (checked != 0)
        return checked < 0 ? NULL : call_stdlib_method(self, "digest", args, nargs, kwnames);
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

    int checked = check_no_arguments(self, "HMAC.hexdigest", args, nargs, kwnames);
    if (checked != 0)
        return checked < 0 ? NULL : call_stdlib_method(self, "hexdigest", args, nargs, kwnames);
    hmac_final_locked(self, mac);
    PyObject *result = fd_hex_string(mac, self->hmac.algorithm->digest_len);
    fd_secure_zero(mac, sizeof mac);
    return result;
}

PyDoc_STRVAR(hmac_copy_doc, "copy($self, /)\n--\n\n"
                            "Return a separate copy of this hashing object.");

/* A new object of self's type at the same point of the same message, made
 * as the stdlib's copy() makes it (its __init__ not called, its __dict__
 * not copied); for an object that hands its calls on, around a copy of the
 * stdlib's HMAC. Returns NULL with an exception set. */
static hmac_object *hmac_duplicate(hmac_object *self)
{
    hmac_object *copy = hmac_alloc(Py_TYPE(self));
    if (copy == NULL)
        return NULL;
    if (self->stdlib_hmac != NULL) {
        PyObject *stdlib_copy = PyObject_CallMethod(self->stdlib_hmac, "copy", NULL);
        if (stdlib_copy == NULL) {
            Py_DECREF(copy);
            return NULL;
        }
        hmac_hand_on(copy, stdlib_copy);
        return copy;
    }
    const fd_algorithm *algorithm = self->hmac.algorithm;
    /* Only the bytes of the states this algorithm uses. */
    hmac_lock(self);
    memcpy(&copy->hmac.inner, &self->hmac.inner, algorithm->state_len);
    hmac_unlock(self);
    memcpy(&copy->hmac.outer, &self->hmac.outer, algorithm->state_len); /* never written */
    copy->hmac.algorithm = algorithm;
    return copy;
}

static PyObject *hmac_copy(hmac_object *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    int checked = check_no_arguments(self, "HMAC.copy", args, nargs, kwnames);
    if (checked < 0)
        return NULL;
    if (checked > 0 && (nargs != 0 || kwnames != NULL)) /* the stdlib's TypeError */
        return call_stdlib_method(self, "copy", args, nargs, kwnames);
    return (PyObject *)hmac_duplicate(self);
}

/* copy.copy() and copy.deepcopy(): copy(), and the instance's __dict__ (a
 * subclass's attributes) copied as copy.copy() and copy.deepcopy() copy an
 * object's, shallow or deep; memo is deepcopy's, NULL for copy.copy(). */
static PyObject *hmac_copy_with_attributes(hmac_object *self, PyObject *memo)
{
    if (check_no_arguments(self, "HMAC.__copy__", NULL, 0, NULL) < 0)
        return NULL;
    hmac_object *copy = hmac_duplicate(self);
    if (copy == NULL || Py_TYPE(self)->tp_dictoffset == 0)
        return (PyObject *)copy;
    PyObject *dict = PyObject_GenericGetDict((PyObject *)self, NULL);
    PyObject *attributes = NULL;
    if (dict != NULL && memo == NULL) {
        attributes = PyDict_Copy(dict);
    }
    else if (dict != NULL) {
        /* The copy goes into memo first, as copy.deepcopy() records its
         * copies, so that an attribute that refers back to self refers to
         * the copy. */
        PyObject *copy_module = PyImport_ImportModule("copy");
        PyObject *self_id = PyLong_FromVoidPtr(self);
        if (copy_module != NULL && self_id != NULL &&
            (!PyDict_Check(memo) || PyDict_SetItem(memo, self_id, (PyObject *)copy) == 0))
            attributes = PyObject_CallMethod(copy_module, "deepcopy", "OO", dict, memo);
        Py_XDECREF(self_id);
        Py_XDECREF(copy_module);
    }
    Py_XDECREF(dict);
    PyObject *copy_dict = attributes == NULL ? NULL
                                             : PyObject_GenericGetDict((PyObject *)copy, NULL);
    int failed = copy_dict == NULL || PyDict_Update(copy_dict, attributes) < 0;
    Py_XDECREF(copy_dict);
    Py_XDECREF(attributes);
    if (failed)
        Py_CLEAR(copy);
    return (PyObject *)copy;
}

static PyObject *hmac_copy_dunder(hmac_object *self, PyObject *Py_UNUSED(ignored))
{
    return hmac_copy_with_attributes(self, NULL);
}

PyDoc_STRVAR(hmac_copy_dunder_doc, "__copy__($self, /)\n--\n\n"
                                   "copy.copy(): copy(), with a subclass's attributes.");
PyDoc_STRVAR(hmac_deepcopy_doc,
             "__deepcopy__($self, memo, /)\n--\n\n"
             "copy.deepcopy(): copy(), with deep copies of a subclass's attributes.");

static PyObject *hmac_deepcopy(hmac_object *self, PyObject *memo)
{
    return hmac_copy_with_attributes(self, memo);
}

/* Pickling would write the keyed states, from which anyone can compute MACs
 * as the key does: refused, as hashlib's HMAC objects refuse it. */
static PyObject *hmac_reduce(hmac_object *Py_UNUSED(self), PyObject *Py_UNUSED(ignored))
{
    PyErr_SetString(PyExc_TypeError,
                    "cannot pickle 'HMAC' object: its state is equivalent to the key");
    return NULL;
}

/* The attributes: the stdlib's HMAC's own for an object that hands its
 * calls on, AttributeError for one never keyed. */
static PyObject *stdlib_attribute(hmac_object *self, const char *name)
{
    if (self->stdlib_hmac != NULL)
        return PyObject_GetAttrString(self->stdlib_hmac, name);
    return not_keyed(self);
}

static PyObject *hmac_get_name(hmac_object *self, void *Py_UNUSED(closure))
{
    if (self->hmac.algorithm == NULL)
        return stdlib_attribute(self, "name");
    return PyUnicode_FromFormat("hmac-%s", self->hmac.algorithm->name);
}

static PyObject *hmac_get_digest_size(hmac_object *self, void *Py_UNUSED(closure))
{
    if (self->hmac.algorithm == NULL)
        return stdlib_attribute(self, "digest_size");
    return PyLong_FromSize_t(self->hmac.algorithm->digest_len);
}

static PyObject *hmac_get_block_size(hmac_object *self, void *Py_UNUSED(closure))
{
    if (self->hmac.algorithm == NULL)
        return stdlib_attribute(self, "block_size");
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

/* ---- keying: new() and HMAC.__init__ ------------------------------------ */

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

/* Keys self, which nobody else holds yet, from new()'s or __init__'s
 * arguments: the signature says which; stdlib_function is the stdlib's
 * counterpart ("new" or "HMAC"), which makes the HMAC self hands its calls
 * to for every digestmod fastdigest does not run. Returns 0, or -1 with an
 * exception set. */
static int hmac_key(hmac_object *self, PyObject *module, const fd_signature *signature,
                    const char *stdlib_function, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *bound[3] = {NULL, NULL, NULL};
    Py_buffer key_view, msg_view;

    if (kwnames == NULL && nargs >= 1 && nargs <= 3) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            bound[i] = args[i];
    }
    else if (fd_bind_arguments(&state->compat, signature, args, nargs, kwnames, bound) < 0) {
        return -1;
    }
    PyObject *key = bound[0], *msg = bound[1], *digestmod = bound[2];

    if (self->hmac.algorithm != NULL || self->stdlib_hmac != NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "HMAC.__init__() cannot key an HMAC object twice: make a new one");
        return -1;
    }
    /* The stdlib's order: the key's type, then digestmod's presence. */
    if (get_key_buffer(key, &key_view) < 0)
        return -1;
    int present = digestmod == NULL ? 0 : PyObject_IsTrue(digestmod);
    int id = present <= 0 ? -1 : fd_hmac_algorithm(module, digestmod, "new", "digestmod");
    if (present == 0)
        PyErr_SetString(PyExc_TypeError, state->compat.missing_digestmod);
    /* A key over INT_MAX bytes is the stdlib's too: _hashlib.hmac_new, which
     * takes an int length, refuses it with OverflowError on every version,
     * and a CPython without OpenSSL keys it. */
    if (id >= 0 && key_view.len > INT_MAX)
        id = FD_FOREIGN_DIGESTMOD;
    if (id < 0) {
        PyBuffer_Release(&key_view);
        if (id != FD_FOREIGN_DIGESTMOD)
            return -1;
        PyObject *stdlib_hmac = fd_call_stdlib_hmac(module, stdlib_function, args, nargs, kwnames);
        if (stdlib_hmac == NULL)
            return -1;
        hmac_hand_on(self, stdlib_hmac);
        return 0;
    }
    if (msg != NULL && msg != Py_None && fd_get_buffer(msg, &msg_view) < 0) {
        PyBuffer_Release(&key_view);
        return -1;
    }
    bool has_msg = msg != NULL && msg != Py_None;

    /* Nobody else holds the object yet: no lock needed. */
    size_t work = (size_t)key_view.len + (has_msg ? (size_t)msg_view.len : 0);
    PyThreadState *released = work >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
    fd_hmac_init(&self->hmac, (enum fd_algorithm_id)id, key_view.buf, (size_t)key_view.len);
    if (has_msg)
        fd_hmac_update(&self->hmac, msg_view.buf, (size_t)msg_view.len);
    if (released != NULL)
        PyEval_RestoreThread(released);
    if (has_msg)
        PyBuffer_Release(&msg_view);
    PyBuffer_Release(&key_view);
    return 0;
}

PyDoc_STRVAR(hmac_type_doc,
             "HMAC(key, msg=None, digestmod='')\n--\n\n"
             "An HMAC object (RFC 2104): update() it with bytes-like objects, then read\n"
             "digest() or hexdigest(). Made by fastdigest.hmac.new(), or by calling\n"
             "HMAC as new() is called; a subclass calls HMAC.__init__ from its own.");

/* HMAC.__new__: an object of type (the module's HMAC type or a subclass),
 * not keyed, whatever the arguments, as object.__new__ makes the stdlib's. */
static PyObject *hmac_type_new(PyTypeObject *type, PyObject *Py_UNUSED(args),
                               PyObject *Py_UNUSED(kwargs))
{
    return (PyObject *)hmac_alloc(type);
}

/* HMAC.__init__(self, key, msg=None, digestmod=''): hmac_key with the
 * arguments as a vectorcall passes them, and the words of the stdlib's
 * HMAC.__init__ in its errors. */
static int hmac_type_init(PyObject *op, PyObject *args, PyObject *kwargs)
{
    hmac_object *self = (hmac_object *)op;
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    Py_ssize_t nkeywords = kwargs == NULL ? 0 : PyDict_GET_SIZE(kwargs);
    PyObject *few[8];
    PyObject **stack = few;
    PyObject *kwnames = NULL;
    int result = -1;

    if (nargs + nkeywords > (Py_ssize_t)(sizeof few / sizeof few[0])) {
        stack = PyMem_New(PyObject *, (size_t)(nargs + nkeywords));
        if (stack == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        stack[i] = Py_NewRef(PyTuple_GET_ITEM(args, i));
    Py_ssize_t filled = nargs;
    if (nkeywords > 0) {
        kwnames = PyTuple_New(nkeywords);
        Py_ssize_t position = 0;
        PyObject *keyword, *value;
        while (kwnames != NULL && PyDict_Next(kwargs, &position, &keyword, &value)) {
            PyTuple_SET_ITEM(kwnames, filled - nargs, Py_NewRef(keyword));
            stack[filled++] = Py_NewRef(value);
        }
    }
    if (nkeywords == 0 || kwnames != NULL) {
        PyObject *module = object_module(self);
        if (module != NULL)
            result = hmac_key(self, module, &hmac_init_signature, "HMAC", stack, nargs, kwnames);
    }
    for (Py_ssize_t i = 0; i < filled; i++)
        Py_DECREF(stack[i]);
    Py_XDECREF(kwnames);
    if (stack != few)
        PyMem_Free(stack);
    return result;
}

static PyType_Slot hmac_type_slots[] = {
    {Py_tp_dealloc, hmac_dealloc}, {Py_tp_traverse, hmac_traverse},    {Py_tp_clear, hmac_clear},
    {Py_tp_methods, hmac_methods}, {Py_tp_getset, hmac_getset},        {Py_tp_new, hmac_type_new},
    {Py_tp_init, hmac_type_init},  {Py_tp_doc, (void *)hmac_type_doc}, {0, NULL},
};

static PyType_Spec hmac_type_spec = {
    .name = "fastdigest.hmac.HMAC",
    .basicsize = sizeof(hmac_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = hmac_type_slots,
};

/* ---- new() ------------------------------------------------------------ */

PyDoc_STRVAR(hmac_new_doc,
             "_hmac_new($module, /, key, msg=None, digestmod='')\n--\n\n"
             "Return a new HMAC object keyed with key (bytes or bytearray); optionally\n"
             "fed msg. digestmod is required: one of fastdigest's algorithm names, or a\n"
             "constructor of one (fastdigest's, or one hashlib is made of); for any other\n"
             "digestmod (a name fastdigest lacks, a function, a PEP 247 module) the object\n"
             "hands every call to the standard library's hmac.new() result.");

static PyObject *fastdigest_hmac_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    hmac_object *self = hmac_alloc(fd_get_module_state(module)->hmac_type);
    if (self != NULL &&
        hmac_key(self, module, &hmac_new_signature, "new", args, nargs, kwnames) < 0)
        Py_CLEAR(self);
    return (PyObject *)self;
}

static PyMethodDef hmac_type_functions[] = {
    {"_hmac_new", (PyCFunction)(void (*)(void))fastdigest_hmac_new, METH_FASTCALL | METH_KEYWORDS,
     hmac_new_doc},
    {NULL, NULL, 0, NULL},
};

int fd_hmac_type_exec(PyObject *module, fd_module_state *state)
{
    state->hmac_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hmac_type_spec, NULL);
    if (state->hmac_type == NULL)
        return -1;
    /* hmac.HMAC's class attribute, the block size its Python HMAC assumes for
     * a hash without one, which subclasses may change. The type is
     * immutable to Python code; its own dict is written once, here. */
    PyObject *blocksize = PyLong_FromLong(64);
    if (blocksize == NULL)
        return -1;
    int failed = PyDict_SetItemString(state->hmac_type->tp_dict, "blocksize", blocksize);
    Py_DECREF(blocksize);
    if (failed < 0)
        return -1;
    PyType_Modified(state->hmac_type);
    if (PyModule_AddObjectRef(module, "HMAC", (PyObject *)state->hmac_type) < 0)
        return -1;
    return PyModule_AddFunctions(module, hmac_type_functions);
}
