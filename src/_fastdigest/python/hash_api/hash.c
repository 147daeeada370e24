/* The hash type: one type for every algorithm, driven by the core's
 * descriptor table (hash/algorithms.h). The algorithm state lives inline in
 * the object, so copy() is one object allocation and a memcpy, and digest()
 * finalizes a copy of the state on the stack. state() and pickling save the
 * state in the portable format (hash/state_format.h), which
 * fastdigest.from_state() (resume.c) restores. */
#include "python/binding.h"

#include <string.h>

#include "hash/state_format.h"

static void hash_absorb(void *self, const uint8_t *data, size_t len)
{
    fd_hash_object *hash = self;
    hash->algorithm->update(&hash->state, data, len);
}

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

PyDoc_STRVAR(hash_update_doc,
             "update($self, data, /)\n--\n\n"
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

static PyObject *hash_hexdigest(fd_hash_object *self, PyObject *Py_UNUSED(ignored))
{
    uint8_t digest[FD_MAX_DIGEST_LEN];

    hash_final_copy(self, digest);
    return fd_hex_string(digest, self->algorithm->digest_len);
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

/* ---- saving and restoring: the portable state format ------------------ */

static enum fd_algorithm_id algorithm_id(const fd_hash_object *self)
{
    return (enum fd_algorithm_id)(self->algorithm - fd_algorithms);
}

PyDoc_STRVAR(hash_state_doc,
             "state($self, /)\n--\n\n"
             "Return the hash object's state as bytes in fastdigest's portable state format.\n\n"
             "fastdigest.from_state() makes a hash object that continues from it, in any\n"
             "process, on any machine. The bytes hold the buffered tail of the data hashed\n"
             "so far (up to one block), so keep them as private as that data.");

static PyObject *hash_state(PyObject *op, PyObject *Py_UNUSED(ignored))
{
    fd_hash_object *self = (fd_hash_object *)op;
    uint8_t blob[FD_STATE_MAX_LEN];

    fd_hash_lock(self);
    size_t len = fd_state_export(algorithm_id(self), &self->state, blob);
    fd_hash_unlock(self);
    PyObject *result = PyBytes_FromStringAndSize((const char *)blob, (Py_ssize_t)len);
    fd_secure_zero(blob, len);
    return result;
}

PyDoc_STRVAR(hash_reduce_doc,
             "__reduce__($self, /)\n--\n\n"
             "Support for pickle: the object is rebuilt by fastdigest.from_state(self.state()).");

static PyObject *hash_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    /* The type was made with its module, so this is the module's own
     * from_state even with several interpreters or module copies. */
    fd_module_state *state = PyType_GetModuleState(Py_TYPE(self));
    if (state == NULL)
        return NULL;
    PyObject *blob = hash_state(self, NULL);
    if (blob == NULL)
        return NULL;
    PyObject *result = Py_BuildValue("(O(O))", state->from_state, blob);
    Py_DECREF(blob);
    return result;
}

PyDoc_STRVAR(hash_copy_dunder_doc, "__copy__($self, /)\n--\n\n"
                                   "Return a copy of the hash object (as copy()).");

PyDoc_STRVAR(hash_deepcopy_doc,
             "__deepcopy__($self, memo, /)\n--\n\n"
             "Return a copy of the hash object (as copy(): it refers to no other objects).");

static PyObject *hash_deepcopy(PyObject *self, PyObject *Py_UNUSED(memo))
{
    return fd_hash_copy(self, NULL);
}

/* ---- attributes and tables ------------------------------------------------ */

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
    {"state", hash_state, METH_NOARGS, hash_state_doc},
    {"__reduce__", hash_reduce, METH_NOARGS, hash_reduce_doc},
    {"__copy__", fd_hash_copy, METH_NOARGS, hash_copy_dunder_doc},
    {"__deepcopy__", hash_deepcopy, METH_O, hash_deepcopy_doc},
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
    {Py_tp_dealloc, hash_dealloc},      {Py_tp_repr, hash_repr},
    {Py_tp_methods, hash_methods},      {Py_tp_getset, hash_getset},
    {Py_tp_doc, (void *)hash_type_doc}, {0, NULL},
};

static PyType_Spec hash_type_spec = {
    .name = "fastdigest.HASH",
    .basicsize = sizeof(fd_hash_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = hash_type_slots,
};

fd_hash_object *fd_hash_new(fd_module_state *state, enum fd_algorithm_id id, const Py_buffer *view)
{
    fd_hash_object *self = fd_hash_alloc(state->hash_type, &fd_algorithms[id]);
    if (self == NULL)
        return NULL;
    self->algorithm->init(&self->state);
    if (view != NULL && view->len != 0) {
        /* No other thread can see the new object yet: no lock needed. */
        if ((size_t)view->len >= fd_gil_minsize()) {
            Py_BEGIN_ALLOW_THREADS
                self->algorithm->update(&self->state, view->buf, (size_t)view->len);
            Py_END_ALLOW_THREADS
        }
        else {
            self->algorithm->update(&self->state, view->buf, (size_t)view->len);
        }
    }
    return self;
}

int fd_hash_module_exec(PyObject *module, fd_module_state *state)
{
    state->hash_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hash_type_spec, NULL);
    if (state->hash_type == NULL)
        return -1;
    return PyModule_AddType(module, state->hash_type);
}
