/* Resumable hashing (issue 8): state() and fastdigest.from_state(), which
 * save and restore a hash object in the portable state format
 * (state_format.h), and pickling and copy.copy/copy.deepcopy on top of them.
 *
 * A pickle holds the call fastdigest.from_state(blob): the same documented
 * bytes as state(), so a pickle made by one build resumes in any other that
 * reads the format, on any CPU and any Python version. */
#include "binding.h"

#include <string.h>

#include "state_format.h"

static enum fd_algorithm_id algorithm_id(const fd_hash_object *self)
{
    return (enum fd_algorithm_id)(self->algorithm - fd_algorithms);
}

const char fd_resume_hash_state_doc[] = PyDoc_STR(
    "state($self, /)\n--\n\n"
    "Return the hash object's state as bytes in fastdigest's portable state format.\n\n"
    "fastdigest.from_state() makes a hash object that continues from it, in any\n"
    "process, on any machine. The bytes hold the buffered tail of the data hashed\n"
    "so far (up to one block), so keep them as private as that data.");

PyObject *fd_resume_hash_state(PyObject *op, PyObject *Py_UNUSED(ignored))
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

const char fd_resume_hash_reduce_doc[] = PyDoc_STR(
    "__reduce__($self, /)\n--\n\n"
    "Support for pickle: the object is rebuilt by fastdigest.from_state(self.state()).");

PyObject *fd_resume_hash_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    /* The type was made with its module, so this is the module's own
     * from_state even with several interpreters or module copies. */
    PyObject *module = PyType_GetModule(Py_TYPE(self));
    if (module == NULL)
        return NULL;
    PyObject *from_state = PyObject_GetAttrString(module, "from_state");
    if (from_state == NULL)
        return NULL;
    PyObject *blob = fd_resume_hash_state(self, NULL);
    if (blob == NULL) {
        Py_DECREF(from_state);
        return NULL;
    }
    PyObject *result = Py_BuildValue("(O(O))", from_state, blob);
    Py_DECREF(from_state);
    Py_DECREF(blob);
    return result;
}

const char fd_resume_hash_copy_doc[] = PyDoc_STR("__copy__($self, /)\n--\n\n"
                                                 "Return a copy of the hash object (as copy()).");

const char fd_resume_hash_deepcopy_doc[] = PyDoc_STR(
    "__deepcopy__($self, memo, /)\n--\n\n"
    "Return a copy of the hash object (as copy(): it refers to no other objects).");

PyObject *fd_resume_hash_deepcopy(PyObject *self, PyObject *Py_UNUSED(memo))
{
    return fd_hash_copy(self, NULL);
}

PyDoc_STRVAR(from_state_doc,
             "from_state($module, data, /)\n--\n\n"
             "Return a new hash object that continues from a state saved by HASH.state().\n\n"
             "data is a bytes-like object in fastdigest's portable state format. A blob\n"
             "that is not a valid state (cut, padded, corrupted in its header, of an\n"
             "unknown version or algorithm) raises ValueError saying what is wrong.");

/* A new hash object from a blob, or NULL with ValueError saying what is wrong
 * with the blob. */
static PyObject *restore(PyObject *module, const uint8_t *blob, size_t len)
{
    enum fd_algorithm_id id;
    fd_hash_state restored;
    char reason[FD_STATE_REASON_LEN];

    if (fd_state_import(blob, len, &id, &restored, reason, sizeof reason) != FD_STATE_OK) {
        fd_secure_zero(&restored, sizeof restored);
        PyErr_Format(PyExc_ValueError, "invalid fastdigest state: %s", reason);
        return NULL;
    }
    const fd_algorithm *algorithm = &fd_algorithms[id];
    fd_hash_object *self = fd_hash_alloc(fd_get_module_state(module)->hash_type, algorithm);
    if (self != NULL)
        memcpy(&self->state, &restored, algorithm->state_len);
    fd_secure_zero(&restored, sizeof restored);
    return (PyObject *)self;
}

static PyObject *from_state(PyObject *module, PyObject *data)
{
    /* bytes, what state() and pickle give, is read in place: asking for a
     * buffer would cost about as much as the rest of the call. */
    if (PyBytes_CheckExact(data))
        return restore(module, (const uint8_t *)PyBytes_AS_STRING(data),
                       (size_t)PyBytes_GET_SIZE(data));
    if (!PyObject_CheckBuffer(data)) {
        PyErr_Format(PyExc_TypeError,
                     "from_state() argument must be a bytes-like object, not '%.200s'",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        /* A non-contiguous view: a TypeError like any other unusable
         * argument, as PyArg_Parse's "y*" reports it. */
        if (PyErr_ExceptionMatches(PyExc_BufferError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "from_state() argument must be a contiguous bytes-like object, not "
                         "'%.200s'",
                         Py_TYPE(data)->tp_name);
        }
        return NULL;
    }
    /* The view pins the exporter's memory (a bytearray cannot be resized
     * meanwhile), and the import reads each byte of it once. */
    PyObject *result = restore(module, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef from_state_def = {"from_state", from_state, METH_O, from_state_doc};

/* The package re-exports from_state, and it is made here rather than with
 * PyModule_AddFunctions so that its __module__ is "fastdigest": pickles then
 * name it fastdigest.from_state, the public name, and not the extension
 * module, which is an implementation detail that may be renamed. pickle
 * checks that fastdigest.from_state is this very object. */
int fd_resume_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    PyObject *public_module = PyUnicode_FromString("fastdigest");
    if (public_module == NULL)
        return -1;
    PyObject *function = PyCFunction_NewEx(&from_state_def, module, public_module);
    Py_DECREF(public_module);
    if (function == NULL)
        return -1;
    int added = PyModule_AddObjectRef(module, "from_state", function);
    Py_DECREF(function);
    return added;
}
