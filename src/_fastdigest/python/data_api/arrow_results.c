/* DigestArray and DigestStream, digest_array's results (arrow_results.h).
 *
 * The result is a DigestArray (array input, __arrow_c_array__) or a
 * DigestStream (stream input, __arrow_c_stream__). Each export hands out
 * new C structs over the same digest buffers, reference-counted, so the
 * result can be imported any number of times, by any number of consumers,
 * without a copy; the buffers live until the result object and every
 * imported array are gone.
 *
 * Both are also read-only sequences of Python values (bytes, or str in
 * hex; None for a null row): pandas takes an object without __iter__ for a
 * scalar and would store the result itself in every row of a column, and
 * NumPy makes fixed-width bytes of a sequence of bytes, whose items lose
 * their trailing zero bytes (a digest may end in one). So indexing,
 * iteration, to_pylist() and __array__ (an object array) give the digests
 * as Python objects, one a row, wherever a consumer looks for them. */
#include "python/data_api/arrow_results.h"

#include <string.h>

#include "data/arrow_export.h"

static void digests_dealloc(fd_digests_object *self)
{
    PyTypeObject *type = Py_TYPE(self);
    for (size_t i = 0; i < self->chunk_count; i++)
        fd_digest_column_unref(self->chunks[i]);
    PyMem_Free(self->chunks);
    PyMem_Free(self->name);
    PyObject_Free(self);
    Py_DECREF(type);
}

static PyObject *digests_repr(fd_digests_object *self)
{
    return PyUnicode_FromFormat("<%s %s%s, %lld rows, %lld nulls>", Py_TYPE(self)->tp_name,
                                fd_algorithms[self->id].name, self->hex ? " hex" : "",
                                (long long)self->length, (long long)self->null_count);
}

static Py_ssize_t digests_length(fd_digests_object *self)
{
    return (Py_ssize_t)self->length;
}

/* ---- Python values ------------------------------------------------------------ */

/* A row of a chunk as a Python value: its digest as bytes, its hex as a
 * str, or None for a null row. */
static PyObject *row_value(const fd_digests_object *self, const fd_digest_column *chunk,
                           int64_t row)
{
    size_t len;
    const uint8_t *digest = fd_digest_column_row(chunk, row, &len);
    if (digest == NULL)
        Py_RETURN_NONE;
    if (!self->hex)
        return PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)len);
    /* Lowercase hex digits: ASCII, so no scan for the widest character. */
    PyObject *text = PyUnicode_New((Py_ssize_t)len, 127);
    if (text != NULL)
        memcpy(PyUnicode_DATA(text), digest, len);
    return text;
}

static PyObject *digests_item(fd_digests_object *self, Py_ssize_t index)
{
    if (index < 0 || index >= (Py_ssize_t)self->length) {
        PyErr_Format(PyExc_IndexError, "%s index out of range", Py_TYPE(self)->tp_name);
        return NULL;
    }
    int64_t row = (int64_t)index;
    for (size_t i = 0;; i++) {
        const int64_t length = fd_digest_column_length(self->chunks[i]);
        if (row < length)
            return row_value(self, self->chunks[i], row);
        row -= length;
    }
}

PyDoc_STRVAR(to_pylist_doc,
             "to_pylist($self, /)\n--\n\n"
             "Return the digests as a list of Python objects, one a row: bytes, or with\n"
             "hex=True str; None for a null row.");

static PyObject *digests_to_pylist(fd_digests_object *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New((Py_ssize_t)self->length);
    if (list == NULL)
        return NULL;
    Py_ssize_t at = 0;
    for (size_t i = 0; i < self->chunk_count; i++) {
        const int64_t length = fd_digest_column_length(self->chunks[i]);
        for (int64_t row = 0; row < length; row++) {
            PyObject *value = row_value(self, self->chunks[i], row);
            if (value == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, at++, value);
        }
    }
    return list;
}

/* Iterates over a list of the values: every consumer that iterates reads
 * all of them, and the list makes each step one pointer read. */
static PyObject *digests_iter(fd_digests_object *self)
{
    PyObject *list = digests_to_pylist(self, NULL);
    if (list == NULL)
        return NULL;
    PyObject *iterator = PyObject_GetIter(list);
    Py_DECREF(list);
    return iterator;
}

PyDoc_STRVAR(array_doc,
             "__array__($self, /, dtype=None, copy=None)\n--\n\n"
             "Return the digests as a one-dimensional NumPy array of Python objects\n"
             "(bytes, or str with hex=True; None for a null row), or of dtype if given.\n"
             "copy=False raises ValueError: the rows are always copied into objects.");

static PyObject *digests_array(fd_digests_object *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", keywords, &dtype, &copy))
        return NULL;
    if (copy == Py_False) {
        PyErr_Format(PyExc_ValueError,
                     "a %s cannot become a NumPy array without a copy (each row becomes a "
                     "Python object); pyarrow, polars and DuckDB import it without one",
                     Py_TYPE(self)->tp_name);
        return NULL;
    }
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL)
        return NULL;
    /* An object array, unless the caller asks for a dtype: NumPy's own choice
     * for bytes is fixed-width bytes, whose items drop trailing zero bytes. */
    PyObject *result = NULL;
    PyObject *values = digests_to_pylist(self, NULL);
    if (values != NULL) {
        result = PyObject_CallMethod(numpy, "array", "OO", values,
                                     dtype != Py_None ? dtype : (PyObject *)&PyBaseObject_Type);
        Py_DECREF(values);
    }
    Py_DECREF(numpy);
    return result;
}

fd_digests_object *fd_digests_new(PyTypeObject *type, enum fd_algorithm_id id, bool hex,
                                  const char *name)
{
    fd_digests_object *self = PyObject_New(fd_digests_object, type);
    if (self == NULL)
        return NULL;
    self->id = id;
    self->hex = hex;
    self->large = false;
    self->name = NULL;
    self->chunks = NULL;
    self->chunk_count = 0;
    self->length = 0;
    self->null_count = 0;
    if (name != NULL) {
        size_t len = strlen(name) + 1;
        self->name = PyMem_Malloc(len);
        if (self->name == NULL) {
            Py_DECREF(self);
            PyErr_NoMemory();
            return NULL;
        }
        memcpy(self->name, name, len);
    }
    return self;
}

int fd_digests_add_chunk(fd_digests_object *self, fd_digest_column *digests, size_t *capacity)
{
    if (self->chunk_count == *capacity) {
        size_t grown = *capacity == 0 ? 4 : 2 * *capacity;
        fd_digest_column **chunks = PyMem_Realloc(self->chunks, grown * sizeof *chunks);
        if (chunks == NULL) {
            fd_digest_column_unref(digests);
            PyErr_NoMemory();
            return -1;
        }
        self->chunks = chunks;
        *capacity = grown;
    }
    self->chunks[self->chunk_count++] = digests;
    self->length += fd_digest_column_length(digests);
    self->null_count += fd_digest_column_null_count(digests);
    if (self->hex && fd_digest_hex_needs_large(self->id, fd_digest_column_length(digests)))
        self->large = true;
    return 0;
}

/* ---- export ------------------------------------------------------------------ */

static void release_schema_capsule(PyObject *capsule)
{
    struct ArrowSchema *schema = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (schema != NULL && schema->release != NULL)
        schema->release(schema);
    PyMem_Free(schema);
}

static void release_array_capsule(PyObject *capsule)
{
    struct ArrowArray *array = PyCapsule_GetPointer(capsule, "arrow_array");
    if (array != NULL && array->release != NULL)
        array->release(array);
    PyMem_Free(array);
}

static void release_stream_capsule(PyObject *capsule)
{
    struct ArrowArrayStream *stream = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (stream != NULL && stream->release != NULL)
        stream->release(stream);
    PyMem_Free(stream);
}

/* The consumer's requested_schema may be ignored (the interface lets the
 * producer keep its own type; the consumer casts if it must). */
static int parse_requested_schema(PyObject *args, PyObject *kwargs, const char *function)
{
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = NULL;
    char format[64];
    snprintf(format, sizeof format, "|O:%s", function);
    return PyArg_ParseTupleAndKeywords(args, kwargs, format, keywords, &requested) ? 0 : -1;
}

static PyObject *schema_capsule(fd_digests_object *self)
{
    struct ArrowSchema *schema = PyMem_Malloc(sizeof *schema);
    if (schema == NULL)
        return PyErr_NoMemory();
    if (!fd_digest_schema_export(self->id, self->hex, self->large, self->name, schema)) {
        PyMem_Free(schema);
        return PyErr_NoMemory();
    }
    PyObject *capsule = PyCapsule_New(schema, "arrow_schema", release_schema_capsule);
    if (capsule == NULL) {
        schema->release(schema);
        PyMem_Free(schema);
    }
    return capsule;
}

PyDoc_STRVAR(arrow_c_array_doc,
             "__arrow_c_array__($self, /, requested_schema=None)\n--\n\n"
             "Export the digests as a pair of PyCapsules (ArrowSchema, ArrowArray) of the\n"
             "Arrow C Data Interface, over the result's own buffers (no copy).\n"
             "requested_schema is ignored.");

static PyObject *digests_arrow_c_array(fd_digests_object *self, PyObject *args, PyObject *kwargs)
{
    if (parse_requested_schema(args, kwargs, "__arrow_c_array__") < 0)
        return NULL;
    PyObject *schema = schema_capsule(self);
    if (schema == NULL)
        return NULL;
    struct ArrowArray *array = PyMem_Malloc(sizeof *array);
    if (array == NULL) {
        Py_DECREF(schema);
        return PyErr_NoMemory();
    }
    if (!fd_digest_column_export(self->chunks[0], array)) {
        PyMem_Free(array);
        Py_DECREF(schema);
        return PyErr_NoMemory();
    }
    PyObject *capsule = PyCapsule_New(array, "arrow_array", release_array_capsule);
    if (capsule == NULL) {
        array->release(array);
        PyMem_Free(array);
        Py_DECREF(schema);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, schema, capsule);
    Py_DECREF(schema);
    Py_DECREF(capsule);
    return pair;
}

PyDoc_STRVAR(arrow_c_stream_doc,
             "__arrow_c_stream__($self, /, requested_schema=None)\n--\n\n"
             "Export the digests as a PyCapsule of an ArrowArrayStream (Arrow C Stream\n"
             "Interface) yielding one array per input array, over the result's own\n"
             "buffers (no copy). requested_schema is ignored.");

static PyObject *digests_arrow_c_stream(fd_digests_object *self, PyObject *args, PyObject *kwargs)
{
    if (parse_requested_schema(args, kwargs, "__arrow_c_stream__") < 0)
        return NULL;
    struct ArrowArrayStream *stream = PyMem_Malloc(sizeof *stream);
    if (stream == NULL)
        return PyErr_NoMemory();
    if (!fd_digest_stream_export(self->chunks, self->chunk_count, self->id, self->hex, self->large,
                                 self->name, stream)) {
        PyMem_Free(stream);
        return PyErr_NoMemory();
    }
    PyObject *capsule = PyCapsule_New(stream, "arrow_array_stream", release_stream_capsule);
    if (capsule == NULL) {
        stream->release(stream);
        PyMem_Free(stream);
    }
    return capsule;
}

static PyMethodDef digest_array_methods[] = {
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))digests_arrow_c_array,
     METH_VARARGS | METH_KEYWORDS, arrow_c_array_doc},
    {"to_pylist", (PyCFunction)digests_to_pylist, METH_NOARGS, to_pylist_doc},
    {"__array__", (PyCFunction)(void (*)(void))digests_array, METH_VARARGS | METH_KEYWORDS,
     array_doc},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef digest_stream_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))digests_arrow_c_stream,
     METH_VARARGS | METH_KEYWORDS, arrow_c_stream_doc},
    {"to_pylist", (PyCFunction)digests_to_pylist, METH_NOARGS, to_pylist_doc},
    {"__array__", (PyCFunction)(void (*)(void))digests_array, METH_VARARGS | METH_KEYWORDS,
     array_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(digest_array_type_doc,
             "The digests of an Arrow array's rows, made by digest_array(), digest_rows()\n"
             "or surrogate_key(): an Arrow array (__arrow_c_array__) of\n"
             "fixed_size_binary(digest_size), or utf8 hex. len() is its row count; as a\n"
             "sequence (indexing, iteration, to_pylist()) its rows are bytes or str, None\n"
             "where null.");

PyDoc_STRVAR(digest_stream_type_doc,
             "The digests of an Arrow stream's rows, made by digest_array(), digest_rows()\n"
             "or surrogate_key(): an Arrow stream (__arrow_c_stream__) of one array per\n"
             "input array, of fixed_size_binary(digest_size), or utf8 hex. len() is its\n"
             "row count; as a sequence (indexing, iteration, to_pylist()) its rows are\n"
             "bytes or str, None where null.");

static PyType_Slot digest_array_type_slots[] = {
    {Py_tp_dealloc, digests_dealloc},
    {Py_tp_repr, digests_repr},
    {Py_sq_length, digests_length},
    {Py_sq_item, digests_item},
    {Py_tp_iter, digests_iter},
    {Py_tp_methods, digest_array_methods},
    {Py_tp_doc, (void *)digest_array_type_doc},
    {0, NULL},
};

static PyType_Slot digest_stream_type_slots[] = {
    {Py_tp_dealloc, digests_dealloc},
    {Py_tp_repr, digests_repr},
    {Py_sq_length, digests_length},
    {Py_sq_item, digests_item},
    {Py_tp_iter, digests_iter},
    {Py_tp_methods, digest_stream_methods},
    {Py_tp_doc, (void *)digest_stream_type_doc},
    {0, NULL},
};

static PyType_Spec digest_array_type_spec = {
    .name = "fastdigest.DigestArray",
    .basicsize = sizeof(fd_digests_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = digest_array_type_slots,
};

static PyType_Spec digest_stream_type_spec = {
    .name = "fastdigest.DigestStream",
    .basicsize = sizeof(fd_digests_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = digest_stream_type_slots,
};

int fd_digests_add_types(PyObject *module, fd_module_state *state)
{
    state->digest_array_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &digest_array_type_spec, NULL);
    if (state->digest_array_type == NULL || PyModule_AddType(module, state->digest_array_type) < 0)
        return -1;
    state->digest_stream_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &digest_stream_type_spec, NULL);
    if (state->digest_stream_type == NULL ||
        PyModule_AddType(module, state->digest_stream_type) < 0)
        return -1;
    return 0;
}
