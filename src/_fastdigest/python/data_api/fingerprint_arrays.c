/* fingerprint()'s rules for arrays: NumPy arrays and scalars (the dtype
 * read and checked, the values through the buffer protocol, little-endian
 * in C order) and Arrow values (read through the PyCapsule interface,
 * imported, checked and written by data/). Apart from the walk
 * (fingerprint.c) and the one-object values (fingerprint_scalars.c)
 * because each has a section of docs/fingerprint.md and an interface of
 * its own to read, and holds many values in one buffer rather than Python
 * objects; an object array's elements go back to fd_walk_encode. */
#include "python/data_api/fingerprint.h"

#include <string.h>

#include "data/arrow_import.h"
#include "python/data_api/arrow_capsules.h"

/* ---- NumPy ---------------------------------------------------------------------------- */

/* An attribute of a NumPy dtype that must be a str (kind, str, byteorder):
 * its UTF-8 in *text, which lives as long as *holder (a new reference). */
static int dtype_text(PyObject *dtype, const char *attribute, PyObject **holder, const char **text)
{
    *holder = PyObject_GetAttrString(dtype, attribute);
    if (*holder == NULL)
        return -1;
    *text = PyUnicode_Check(*holder) ? PyUnicode_AsUTF8(*holder) : NULL;
    if (*text == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError,
                         FD_WALK_FUNCTION "(): a NumPy dtype whose %s is not a str", attribute);
        return -1;
    }
    return 0;
}

/* What fingerprint() needs of a NumPy array's dtype. */
typedef struct numpy_dtype {
    char kind;
    char byteorder;
    Py_ssize_t itemsize;
    char typestr[64]; /* dtype.str, little-endian */
} numpy_dtype;

static int refuse_dtype(PyObject *dtype, const char *why)
{
    PyErr_Format(PyExc_TypeError, FD_WALK_FUNCTION "() does not take NumPy arrays of dtype %R: %s",
                 dtype, why);
    return -1;
}

static int read_dtype(PyObject *array, numpy_dtype *out)
{
    PyObject *dtype = PyObject_GetAttrString(array, "dtype");
    if (dtype == NULL)
        return -1;
    PyObject *kind = NULL, *str = NULL, *byteorder = NULL, *fields = NULL, *itemsize = NULL;
    const char *kind_text, *str_text, *byteorder_text;
    int result = -1;
    if (dtype_text(dtype, "kind", &kind, &kind_text) < 0 ||
        dtype_text(dtype, "str", &str, &str_text) < 0 ||
        dtype_text(dtype, "byteorder", &byteorder, &byteorder_text) < 0)
        goto done;
    fields = PyObject_GetAttrString(dtype, "fields");
    itemsize = fields != NULL ? PyObject_GetAttrString(dtype, "itemsize") : NULL;
    if (itemsize == NULL)
        goto done;
    out->itemsize = PyLong_AsSsize_t(itemsize);
    if (out->itemsize < 0)
        goto done;
    out->kind = kind_text[0];
    out->byteorder = byteorder_text[0];
    if (fields != Py_None) {
        result = refuse_dtype(dtype, "a structured dtype (its padding bytes hold no value); hash "
                                     "its fields one by one");
        goto done;
    }
    const char *known = "biufcmMSUVO";
    if (out->kind == '\0' || strchr(known, out->kind) == NULL) {
        result = refuse_dtype(dtype, "the encoding has no rule for its kind (convert it to one of "
                                     "the dtypes docs/fingerprint.md lists)");
        goto done;
    }
    if ((out->kind == 'f' && out->itemsize != 2 && out->itemsize != 4 && out->itemsize != 8) ||
        (out->kind == 'c' && out->itemsize != 8 && out->itemsize != 16)) {
        result = refuse_dtype(dtype, "long double's bytes differ from one platform to another "
                                     "(convert it to float64)");
        goto done;
    }
    const size_t len = strlen(str_text);
    if (len == 0 || len >= sizeof out->typestr) {
        result = refuse_dtype(dtype, "its typestr is not one the encoding knows");
        goto done;
    }
    memcpy(out->typestr, str_text, len + 1);
    if (out->typestr[0] == '>' || out->typestr[0] == '=')
        out->typestr[0] = '<';
    result = 0;
done:
    Py_XDECREF(kind);
    Py_XDECREF(str);
    Py_XDECREF(byteorder);
    Py_XDECREF(fields);
    Py_XDECREF(itemsize);
    Py_DECREF(dtype);
    return result;
}

/* An object array's elements, each as the Python value it is, in C order:
 * from ravel().tolist(), NumPy's own copy of the references. */
static int put_object_elements(fd_walker *w, PyObject *array)
{
    PyObject *flat = PyObject_CallMethod(array, "ravel", NULL);
    PyObject *items = flat != NULL ? PyObject_CallMethod(flat, "tolist", NULL) : NULL;
    Py_XDECREF(flat);
    if (items == NULL)
        return -1;
    int result = -1;
    if (!PyList_Check(items)) {
        PyErr_SetString(PyExc_TypeError, FD_WALK_FUNCTION "(): ndarray.tolist() gave no list");
    }
    else if (Py_EnterRecursiveCall(" while computing a fingerprint") == 0) {
        result = 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && result == 0; i++)
            result = fd_walk_encode(w, PyList_GET_ITEM(items, i));
        Py_LeaveRecursiveCall();
    }
    Py_DECREF(items);
    return result;
}

/* The values of an array of a fixed-size dtype, read through the buffer
 * protocol (datetime64 and timedelta64, which NumPy does not export, as a
 * view of int64s of the same byte order), each little-endian. A scalar's
 * one value is its first item_size bytes: a 0-d array of bytes or str is
 * one byte or code point wider than an empty scalar's dtype (S1 for S0). */
static int put_numpy_values(fd_walker *w, PyObject *array, const numpy_dtype *dtype,
                            Py_ssize_t item_size)
{
    PyObject *source = NULL;
    if (dtype->kind == 'M' || dtype->kind == 'm') {
        const char *integers = dtype->byteorder == '>'   ? ">i8"
                               : dtype->byteorder == '<' ? "<i8"
                                                         : "=i8";
        source = PyObject_CallMethod(array, "view", "s", integers);
    }
    else {
        source = Py_NewRef(array);
    }
    if (source == NULL)
        return -1;
    Py_buffer view;
    const int got = PyObject_GetBuffer(source, &view, PyBUF_RECORDS_RO);
    Py_DECREF(source);
    if (got < 0)
        return -1;
    int result = -1;
    if (view.itemsize != dtype->itemsize || item_size > view.itemsize ||
        (item_size < view.itemsize && view.ndim != 0)) {
        PyErr_SetString(PyExc_ValueError,
                        FD_WALK_FUNCTION "(): a NumPy buffer of another item size");
        goto done;
    }
    const bool big_endian = dtype->byteorder == '>' ||
                            (dtype->byteorder == '=' && !fd_fingerprint_host_is_little_endian());
    size_t unit = (size_t)dtype->itemsize;
    if (dtype->kind == 'c')
        unit /= 2;
    else if (dtype->kind == 'U')
        unit = 4;
    else if (dtype->kind == 'S' || dtype->kind == 'V' || dtype->kind == 'b')
        unit = 1;
    Py_buffer item = view;
    item.itemsize = item_size;
    item.len = view.ndim == 0 ? item_size : view.len;
    result = fd_walk_put_buffer_elements(w, &item, unit == 0 ? 1 : unit, big_endian && unit > 1,
                                         dtype->kind == 'b');
done:
    PyBuffer_Release(&view);
    return result;
}

/* An ndarray ('n': typestr, uvarint(ndim), uvarint of each dimension and the
 * values in C order), or with scalar a NumPy scalar ('g': the typestr of the
 * scalar's dtype and its value), read from array, the scalar's 0-d array. */
static int put_numpy(fd_walker *w, PyObject *array, PyObject *scalar)
{
    numpy_dtype dtype, stored;
    if (read_dtype(scalar != NULL ? scalar : array, &dtype) < 0 ||
        (scalar != NULL && read_dtype(array, &stored) < 0))
        return -1;
    if (scalar == NULL)
        stored = dtype;
    fd_sink_byte(w->out, scalar != NULL ? FD_FP_NUMPY_SCALAR : FD_FP_NDARRAY);
    const size_t typestr_len = strlen(dtype.typestr);
    fd_fingerprint_put_uvarint(w->out, typestr_len);
    fd_sink_write(w->out, dtype.typestr, typestr_len);
    if (scalar == NULL) {
        PyObject *shape = PyObject_GetAttrString(array, "shape");
        PyObject *dims = shape != NULL ? PySequence_Fast(shape, "ndarray.shape") : NULL;
        Py_XDECREF(shape);
        if (dims == NULL)
            return -1;
        fd_fingerprint_put_uvarint(w->out, (uint64_t)PySequence_Fast_GET_SIZE(dims));
        for (Py_ssize_t d = 0; d < PySequence_Fast_GET_SIZE(dims); d++) {
            const Py_ssize_t dim = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(dims, d));
            if (dim < 0) {
                Py_DECREF(dims);
                return -1;
            }
            fd_fingerprint_put_uvarint(w->out, (uint64_t)dim);
        }
        Py_DECREF(dims);
    }
    if (stored.kind == 'O')
        return put_object_elements(w, array);
    return put_numpy_values(w, array, &stored, dtype.itemsize);
}

/* 1 when obj was a NumPy array or scalar and is written, 0 when it is
 * neither, -1 with an exception set. */
int fd_walk_put_numpy_object(fd_walker *w, PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    const fd_walk_types *types = &w->types;
    if (types->ndarray == NULL)
        return 0;
    if ((PyObject *)type == types->ndarray || (PyObject *)type == types->memmap)
        return put_numpy(w, obj, NULL) < 0 ? -1 : 1;
    if (fd_walk_is_subtype(type, types->ndarray)) {
        /* numpy.ma.MaskedArray's mask, numpy.matrix's meaning: state the
         * buffer does not have. */
        PyObject *name = fd_walk_type_name(type);
        if (name != NULL)
            PyErr_Format(PyExc_TypeError,
                         FD_WALK_FUNCTION
                         "() does not take %U, a subclass of numpy.ndarray whose own "
                         "state would not be in the encoding: pass numpy.asarray() of it "
                         "if its data alone is what counts",
                         name);
        Py_XDECREF(name);
        return -1;
    }
    if (fd_walk_is_subtype(type, types->numpy_generic)) {
        PyObject *array = PyObject_CallMethod(obj, "__array__", NULL);
        if (array == NULL)
            return -1;
        const int result = put_numpy(w, array, obj);
        Py_DECREF(array);
        return result < 0 ? -1 : 1;
    }
    return 0;
}

/* ---- Arrow ---------------------------------------------------------------------------- */

static void raise_arrow_error(const fd_arrow_error *error)
{
    if (error->status == FD_ARROW_NO_MEMORY)
        PyErr_NoMemory();
    else
        fd_raise_arrow_error(error, FD_WALK_FUNCTION);
}

/* The rows of one array of type: checked, then written, without the GIL for
 * a long one. */
static int put_arrow_array(fd_walker *w, const struct ArrowArray *array, const fd_arrow_type *type)
{
    fd_arrow_error error;
    const bool release_gil = array->length >= (int64_t)(fd_gil_minsize() / 64);
    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    fd_arrow_array *checked = fd_arrow_import_array(array, type, &error);
    if (checked != NULL) {
        fd_fingerprint_arrow_rows(checked, w->out);
        fd_arrow_array_free(checked);
    }
    if (saved != NULL)
        PyEval_RestoreThread(saved);
    if (checked == NULL) {
        raise_arrow_error(&error);
        return -1;
    }
    return 0;
}

static fd_arrow_type *put_arrow_type(fd_walker *w, const struct ArrowSchema *schema)
{
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(schema, NULL, 0, &error);
    if (type == NULL) {
        raise_arrow_error(&error);
        return NULL;
    }
    fd_sink_byte(w->out, FD_FP_ARROW);
    fd_fingerprint_arrow_type(type, w->out);
    return type;
}

static int put_arrow_stream(fd_walker *w, PyObject *method)
{
    struct ArrowArrayStream stream;
    if (fd_take_stream(method, &stream, FD_WALK_FUNCTION) < 0)
        return -1;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        fd_raise_stream_error(&stream, code, FD_WALK_FUNCTION);
        fd_release_stream(&stream);
        return -1;
    }
    int result = -1;
    fd_arrow_type *type = put_arrow_type(w, &schema);
    while (type != NULL) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream.get_next(&stream, &array);
        if (code != 0) {
            fd_raise_stream_error(&stream, code, FD_WALK_FUNCTION);
            break;
        }
        if (array.release == NULL) {
            fd_sink_byte(w->out, FD_FP_ARROW_END);
            result = 0;
            break;
        }
        const int written = put_arrow_array(w, &array, type);
        fd_release_array(&array);
        if (written < 0)
            break;
    }
    fd_arrow_type_free(type);
    fd_release_schema(&schema);
    fd_release_stream(&stream);
    return result;
}

static int put_arrow_array_object(fd_walker *w, PyObject *method)
{
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (fd_take_array(method, &schema, &array, FD_WALK_FUNCTION) < 0)
        return -1;
    int result = -1;
    fd_arrow_type *type = put_arrow_type(w, &schema);
    if (type != NULL && put_arrow_array(w, &array, type) == 0) {
        fd_sink_byte(w->out, FD_FP_ARROW_END);
        result = 0;
    }
    fd_arrow_type_free(type);
    fd_release_array(&array);
    fd_release_schema(&schema);
    return result;
}

/* 1 when obj has the Arrow PyCapsule interface and is written (its stream
 * if it has one, else its array: the same bytes), 0 when it has none, -1
 * with an exception set. */
int fd_walk_put_arrow(fd_walker *w, PyObject *obj)
{
    PyObject *method = fd_optional_attribute(obj, "__arrow_c_stream__");
    if (method != NULL) {
        const int result = put_arrow_stream(w, method);
        Py_DECREF(method);
        return result < 0 ? -1 : 1;
    }
    if (PyErr_Occurred())
        return -1;
    method = fd_optional_attribute(obj, "__arrow_c_array__");
    if (method != NULL) {
        const int result = put_arrow_array_object(w, method);
        Py_DECREF(method);
        return result < 0 ? -1 : 1;
    }
    return PyErr_Occurred() ? -1 : 0;
}
