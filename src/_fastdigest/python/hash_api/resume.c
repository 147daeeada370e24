/* fastdigest.from_state(): a hash object restored from a blob of the portable
 * state format (hash/state_format.h), as HASH.state() and pickling save it.
 *
 * A pickle holds the call fastdigest.from_state(blob): the same documented
 * bytes as state(), so a pickle made by one build resumes in any other that
 * reads the format, on any CPU and any Python version. */
#include "python/binding.h"

#include <string.h>

#include "hash/state_format.h"

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
    PyObject *public_module = PyUnicode_FromString("fastdigest");
    if (public_module == NULL)
        return -1;
    /* The state keeps it for the hash type's __reduce__ (hash.c). */
    state->from_state = PyCFunction_NewEx(&from_state_def, module, public_module);
    Py_DECREF(public_module);
    if (state->from_state == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "from_state", state->from_state);
}
