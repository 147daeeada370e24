/* Byte views of the objects the binding hashes: the buffer protocol with
 * hashlib's errors (helpers.c), and a shortcut for bytes. */
#ifndef FD_PYTHON_BUFFERS_H
#define FD_PYTHON_BUFFERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

/* Fills view for a bytes object as bytes' own getbuffer would, without the
 * buffer protocol's round trip: bytes are immutable, and the reference taken
 * here keeps them alive until PyBuffer_Release. Returns false, leaving view
 * alone, for anything but an exact bytes object. */
static inline bool fd_view_bytes(PyObject *obj, Py_buffer *view)
{
    if (!PyBytes_CheckExact(obj))
        return false;
    *view = (Py_buffer){
        .buf = PyBytes_AS_STRING(obj),
        .obj = Py_NewRef(obj),
        .len = PyBytes_GET_SIZE(obj),
        .itemsize = 1,
        .readonly = 1,
        .ndim = 1,
    };
    return true;
}

/* Gets a C-contiguous byte view of obj with hashlib's errors: str is refused
 * (it has no single byte encoding), and so is anything without the buffer
 * protocol. Returns 0, or -1 with an exception set. */
int fd_get_buffer(PyObject *obj, Py_buffer *view);

#endif /* FD_PYTHON_BUFFERS_H */
