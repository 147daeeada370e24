/* The consumer's side of the Arrow PyCapsule interface (arrow_capsules.h). */
#include "python/arrow_capsules.h"

#include <errno.h>

PyObject *fd_optional_attribute(PyObject *obj, const char *name)
{
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return value;
}

static void *capsule_pointer(PyObject *capsule, const char *name, const char *function)
{
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "%s(): expected a PyCapsule named '%s', not %.100s", function,
                     name, Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    if (!PyCapsule_IsValid(capsule, name)) {
        const char *actual = PyCapsule_GetName(capsule);
        PyErr_Format(PyExc_ValueError,
                     "%s(): expected a PyCapsule named '%s', got one named '%.100s'", function,
                     name, actual != NULL ? actual : "(none)");
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

static void raise_consumed(const char *name, const char *function)
{
    PyErr_Format(PyExc_ValueError,
                 "%s(): the '%s' capsule was already consumed (its struct is released)", function,
                 name);
}

int fd_take_array(PyObject *method, struct ArrowSchema *schema, struct ArrowArray *array,
                  const char *function)
{
    PyObject *pair = PyObject_CallNoArgs(method);
    if (pair == NULL)
        return -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): __arrow_c_array__() must return a tuple of two capsules, not %.100s",
                     function, Py_TYPE(pair)->tp_name);
        Py_DECREF(pair);
        return -1;
    }
    struct ArrowSchema *schema_in = capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema",
                                                    function);
    struct ArrowArray *array_in = schema_in != NULL ? capsule_pointer(PyTuple_GET_ITEM(pair, 1),
                                                                      "arrow_array", function)
                                                    : NULL;
    if (array_in != NULL && (schema_in->release == NULL || array_in->release == NULL)) {
        raise_consumed(schema_in->release == NULL ? "arrow_schema" : "arrow_array", function);
        array_in = NULL;
    }
    if (array_in == NULL) {
        Py_DECREF(pair);
        return -1;
    }
    *schema = *schema_in;
    *array = *array_in;
    schema_in->release = NULL;
    array_in->release = NULL;
    Py_DECREF(pair);
    return 0;
}

int fd_take_stream(PyObject *method, struct ArrowArrayStream *out, const char *function)
{
    PyObject *capsule = PyObject_CallNoArgs(method);
    if (capsule == NULL)
        return -1;
    struct ArrowArrayStream *stream = capsule_pointer(capsule, "arrow_array_stream", function);
    int result = -1;
    if (stream != NULL && stream->release == NULL) {
        raise_consumed("arrow_array_stream", function);
    }
    else if (stream != NULL) {
        *out = *stream;
        stream->release = NULL;
        result = 0;
    }
    Py_DECREF(capsule);
    return result;
}

void fd_release_schema(struct ArrowSchema *schema)
{
    PyObject *exception = fd_take_exception();
    schema->release(schema);
    fd_restore_exception(exception);
}

void fd_release_array(struct ArrowArray *array)
{
    PyObject *exception = fd_take_exception();
    array->release(array);
    fd_restore_exception(exception);
}

void fd_release_stream(struct ArrowArrayStream *stream)
{
    PyObject *exception = fd_take_exception();
    stream->release(stream);
    fd_restore_exception(exception);
}

void fd_raise_stream_error(struct ArrowArrayStream *stream, int code, const char *function)
{
    const char *message = stream->get_last_error != NULL ? stream->get_last_error(stream) : NULL;
    PyObject *type = code == ENOMEM   ? PyExc_MemoryError
                     : code == EINVAL ? PyExc_ValueError
                                      : PyExc_OSError;
    if (message != NULL)
        PyErr_Format(type, "%s(): the Arrow stream failed: %.500s", function, message);
    else
        PyErr_Format(type, "%s(): the Arrow stream failed with error code %d", function, code);
}

void fd_raise_arrow_error(const fd_arrow_error *error, const char *function)
{
    PyErr_Format(error->status == FD_ARROW_BAD_TYPE ? PyExc_TypeError : PyExc_ValueError,
                 "%s(): %s", function, error->message);
}
