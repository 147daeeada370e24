/* digest_array(name, array, /, *, hex=False, threads=None): the digest of
 * every row of an Arrow column, through the Arrow PyCapsule interface
 * (core/arrow.h does the C).
 *
 * The column comes from __arrow_c_array__ (a schema and an array capsule)
 * or __arrow_c_stream__ (a stream capsule). Each capsule's struct is moved
 * out (copied, and its release set to NULL in the capsule, so that the
 * capsule's destructor does nothing), which makes a capsule good for one
 * import, as the interface requires. Every array is checked and hashed
 * without the GIL (a large one on several threads), then released; a
 * stream is read to its end before digest_array returns (eagerly: the
 * result holds one digest column per input array, the input arrays are
 * released as they are hashed).
 *
 * The result is a DigestArray (array input, __arrow_c_array__) or a
 * DigestStream (stream input, __arrow_c_stream__). Each export hands out
 * new C structs over the same digest buffers, reference-counted, so the
 * result can be imported any number of times, by any number of consumers,
 * without a copy; the buffers live until the result object and every
 * imported array are gone. */
#include "python/binding.h"

#include <errno.h>
#include <string.h>

#include "core/arrow.h"
#include "core/parallel.h"

typedef struct {
    PyObject_HEAD
    enum fd_algorithm_id id;
    bool hex;
    bool large;  /* hex with int64 offsets */
    char *name;  /* the input column's name, NULL if none */
    fd_digest_column **chunks;
    size_t chunk_count; /* 1 for a DigestArray */
    int64_t length;
    int64_t null_count;
} digests_object;

static void digests_dealloc(digests_object *self)
{
    PyTypeObject *type = Py_TYPE(self);
    for (size_t i = 0; i < self->chunk_count; i++)
        fd_digest_column_unref(self->chunks[i]);
    PyMem_Free(self->chunks);
    PyMem_Free(self->name);
    PyObject_Free(self);
    Py_DECREF(type);
}

static PyObject *digests_repr(digests_object *self)
{
    return PyUnicode_FromFormat("<%s %s%s, %lld rows, %lld nulls>", Py_TYPE(self)->tp_name,
                                fd_algorithms[self->id].name,
                                self->hex ? " hex" : "", (long long)self->length,
                                (long long)self->null_count);
}

static Py_ssize_t digests_length(digests_object *self)
{
    return (Py_ssize_t)self->length;
}

/* The producers' structs and their capsules. */

static void *capsule_pointer(PyObject *capsule, const char *name)
{
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "digest_array(): expected a PyCapsule named '%s', not %.100s",
                     name, Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    if (!PyCapsule_IsValid(capsule, name)) {
        const char *actual = PyCapsule_GetName(capsule);
        PyErr_Format(PyExc_ValueError,
                     "digest_array(): expected a PyCapsule named '%s', got one named '%.100s'",
                     name, actual != NULL ? actual : "(none)");
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

static void raise_consumed(const char *name)
{
    PyErr_Format(PyExc_ValueError,
                 "digest_array(): the '%s' capsule was already consumed (its struct is released)",
                 name);
}

static int take_stream(PyObject *capsule, struct ArrowArrayStream *out)
{
    struct ArrowArrayStream *stream = capsule_pointer(capsule, "arrow_array_stream");
    if (stream == NULL)
        return -1;
    if (stream->release == NULL) {
        raise_consumed("arrow_array_stream");
        return -1;
    }
    *out = *stream;
    stream->release = NULL;
    return 0;
}

/* Producers' release callbacks may run Python code (a pyarrow buffer over
 * a Python object, a ctypes callback), which must not start with an
 * exception set: the one being raised waits aside meanwhile. */
static PyObject *set_error_aside(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (type == NULL)
        return NULL;
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    Py_DECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

static void restore_error(PyObject *exception)
{
    if (exception == NULL)
        return;
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exception)), exception,
                  PyException_GetTraceback(exception));
#endif
}

static void release_schema(struct ArrowSchema *schema)
{
    PyObject *exception = set_error_aside();
    schema->release(schema);
    restore_error(exception);
}

static void release_array(struct ArrowArray *array)
{
    PyObject *exception = set_error_aside();
    array->release(array);
    restore_error(exception);
}

static void release_stream(struct ArrowArrayStream *stream)
{
    PyObject *exception = set_error_aside();
    stream->release(stream);
    restore_error(exception);
}

static void raise_arrow_error(const fd_arrow_error *error)
{
    PyErr_Format(error->status == FD_ARROW_BAD_TYPE ? PyExc_TypeError : PyExc_ValueError,
                 "digest_array(): %s", error->message);
}

/* A stream callback's error code, as pyarrow maps them: ENOMEM MemoryError,
 * EINVAL ValueError, anything else OSError. */
static void raise_stream_error(struct ArrowArrayStream *stream, int code)
{
    const char *message = stream->get_last_error != NULL ? stream->get_last_error(stream) : NULL;
    PyObject *type = code == ENOMEM   ? PyExc_MemoryError
                     : code == EINVAL ? PyExc_ValueError
                                      : PyExc_OSError;
    if (message != NULL)
        PyErr_Format(type, "digest_array(): the Arrow stream failed: %.500s", message);
    else
        PyErr_Format(type, "digest_array(): the Arrow stream failed with error code %d", code);
}

/* Checks and hashes one array, without the GIL when that is worth it, on
 * at most threads threads. */
static fd_digest_column *hash_array(enum fd_algorithm_id id, bool hex, size_t threads,
                                    const struct ArrowArray *array,
                                    const fd_arrow_input_type *type)
{
    fd_arrow_column column;
    fd_arrow_error error;
    fd_digest_column *digests = NULL;
    /* Each row costs at least a block, whatever its length. */
    const bool release_gil =
        array->length >= (int64_t)(FD_GIL_MINSIZE / fd_algorithms[id].block_len);

    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    bool valid = fd_arrow_check_array(array, type, &column, &error);
    if (valid)
        digests = fd_digest_column_hash(id, hex, &column, threads);
    if (saved != NULL)
        PyEval_RestoreThread(saved);

    if (!valid)
        raise_arrow_error(&error);
    else if (digests == NULL)
        PyErr_NoMemory();
    return digests;
}

static int check_schema(const struct ArrowSchema *schema, fd_arrow_input_type *type)
{
    fd_arrow_error error;
    if (!fd_arrow_check_schema(schema, type, &error)) {
        raise_arrow_error(&error);
        return -1;
    }
    return 0;
}

/* A new result object of type, holding no chunks yet, with a copy of the
 * column's name. */
static digests_object *new_digests(PyTypeObject *type, enum fd_algorithm_id id, bool hex,
                                   const char *name)
{
    digests_object *self = PyObject_New(digests_object, type);
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

/* Appends a chunk, taking over its reference (also when this fails). */
static int add_chunk(digests_object *self, fd_digest_column *digests, size_t *capacity)
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

static PyObject *digest_one_array(PyTypeObject *result_type, enum fd_algorithm_id id, bool hex,
                                  size_t threads, PyObject *method)
{
    PyObject *pair = PyObject_CallNoArgs(method);
    if (pair == NULL)
        return NULL;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_Format(PyExc_TypeError,
                     "digest_array(): __arrow_c_array__() must return a tuple of two capsules, "
                     "not %.100s",
                     Py_TYPE(pair)->tp_name);
        Py_DECREF(pair);
        return NULL;
    }
    /* Both capsules are checked before either is moved out: a call that
     * fails here leaves them as they were. */
    struct ArrowSchema *schema_in = capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
    struct ArrowArray *array_in =
        schema_in != NULL ? capsule_pointer(PyTuple_GET_ITEM(pair, 1), "arrow_array") : NULL;
    if (array_in != NULL && (schema_in->release == NULL || array_in->release == NULL)) {
        raise_consumed(schema_in->release == NULL ? "arrow_schema" : "arrow_array");
        array_in = NULL;
    }
    if (array_in == NULL) {
        Py_DECREF(pair);
        return NULL;
    }
    struct ArrowSchema schema = *schema_in;
    struct ArrowArray array = *array_in;
    schema_in->release = NULL;
    array_in->release = NULL;
    Py_DECREF(pair);

    digests_object *result = NULL;
    fd_arrow_input_type type;
    if (check_schema(&schema, &type) == 0) {
        fd_digest_column *digests = hash_array(id, hex, threads, &array, &type);
        if (digests != NULL) {
            size_t capacity = 0;
            result = new_digests(result_type, id, hex, type.name);
            if (result == NULL)
                fd_digest_column_unref(digests);
            else if (add_chunk(result, digests, &capacity) < 0)
                Py_CLEAR(result);
        }
    }
    release_array(&array);
    release_schema(&schema);
    return (PyObject *)result;
}

static PyObject *digest_stream(PyTypeObject *result_type, enum fd_algorithm_id id, bool hex,
                               size_t threads, PyObject *method)
{
    PyObject *capsule = PyObject_CallNoArgs(method);
    if (capsule == NULL)
        return NULL;
    struct ArrowArrayStream stream;
    int taken = take_stream(capsule, &stream);
    Py_DECREF(capsule);
    if (taken < 0)
        return NULL;

    digests_object *result = NULL;
    size_t capacity = 0;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        raise_stream_error(&stream, code);
        release_stream(&stream);
        return NULL;
    }
    fd_arrow_input_type type;
    if (check_schema(&schema, &type) < 0)
        goto done;
    result = new_digests(result_type, id, hex, type.name);
    if (result == NULL)
        goto done;
    for (;;) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream.get_next(&stream, &array);
        if (code != 0) {
            raise_stream_error(&stream, code);
            goto fail;
        }
        if (array.release == NULL)
            break; /* the end of the stream */
        fd_digest_column *digests = hash_array(id, hex, threads, &array, &type);
        release_array(&array);
        if (digests == NULL || add_chunk(result, digests, &capacity) < 0)
            goto fail;
    }
    /* Every array of a stream has the stream's type. */
    for (size_t i = 0; result->large && i < result->chunk_count; i++) {
        if (!fd_digest_column_widen_offsets(result->chunks[i])) {
            PyErr_NoMemory();
            goto fail;
        }
    }
    goto done;

fail:
    Py_CLEAR(result);
done:
    release_schema(&schema);
    release_stream(&stream);
    return (PyObject *)result;
}

/* Returns a new reference to obj's attribute, NULL without an exception
 * when it has none, NULL with one on any other error. */
static PyObject *optional_attribute(PyObject *obj, const char *name)
{
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return value;
}

/* threads=: None for every CPU the process may run on, else anything with
 * __index__ but a bool (True is no number of threads), 1 or more. An int
 * too large for Py_ssize_t is clipped to PY_SSIZE_T_MAX: no column has
 * that many parts. */
static int parse_threads(PyObject *value, size_t *threads)
{
    if (value == Py_None) {
        *threads = fd_available_cpus();
        return 0;
    }
    if (PyBool_Check(value) || !PyIndex_Check(value)) {
        PyErr_Format(PyExc_TypeError, "digest_array(): threads must be an int or None, not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_ssize_t count = PyNumber_AsSsize_t(value, NULL);
    if (count == -1 && PyErr_Occurred())
        return -1;
    if (count < 1) {
        PyErr_Format(PyExc_ValueError, "digest_array(): threads must be at least 1 or None, not %R",
                     value);
        return -1;
    }
    *threads = (size_t)count;
    return 0;
}

PyDoc_STRVAR(digest_array_doc,
             "digest_array($module, name, array, /, *, hex=False, threads=None)\n--\n\n"
             "Return the digest of every row of an Arrow column, as an Arrow column.\n\n"
             "name is an algorithm name, as new() takes it, or one of fastdigest's\n"
             "constructors. array is any object with the Arrow PyCapsule interface\n"
             "(__arrow_c_array__ or __arrow_c_stream__: pyarrow arrays and chunked\n"
             "arrays, polars Series, DuckDB relations, pandas objects), of type binary,\n"
             "large_binary, binary_view, utf8, large_utf8 or utf8_view (a string is\n"
             "hashed as its UTF-8 bytes); a table or stream of exactly one column\n"
             "means that column. Its buffers are read in place.\n\n"
             "The result has the input's length and nulls: fixed_size_binary(digest_size),\n"
             "or with hex=True utf8 lowercase hex (large_utf8 beyond 2 GiB of hex). It is\n"
             "a DigestArray (__arrow_c_array__) for array input and a DigestStream\n"
             "(__arrow_c_stream__, one array per input array) for stream input, which\n"
             "pyarrow, polars and DuckDB import without a copy.\n\n"
             "threads is the most threads to hash an array on, the calling one\n"
             "included: None (the default) for every CPU this process may run on, 1 for\n"
             "the calling thread alone. A large array is cut into ranges of rows, one a\n"
             "thread, of 16,384 rows or more each (a smaller one uses fewer threads);\n"
             "the digests are the same for any threads.");

static PyObject *digest_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_array expected 2 positional arguments, got %zd",
                     nargs);
        return NULL;
    }
    bool hex = false;
    PyObject *threads_argument = Py_None;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = args[nargs + i];
        if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "hex") == 0) {
            int truth = PyObject_IsTrue(value);
            if (truth < 0)
                return NULL;
            hex = truth != 0;
        }
        else if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "threads") == 0) {
            threads_argument = value;
        }
        else {
            PyErr_Format(PyExc_TypeError,
                         "digest_array() got an unexpected keyword argument '%S'", key);
            return NULL;
        }
    }
    size_t threads;
    if (parse_threads(threads_argument, &threads) < 0)
        return NULL;

    fd_module_state *state = fd_get_module_state(module);
    int id = fd_algorithm_from_object(module, args[0], "digest_array", "1");
    if (id < 0)
        return NULL;

    PyObject *source = args[1];
    PyObject *method = optional_attribute(source, "__arrow_c_array__");
    PyObject *result;
    if (method != NULL) {
        result = digest_one_array(state->digest_array_type, (enum fd_algorithm_id)id, hex,
                                  threads, method);
    }
    else {
        if (PyErr_Occurred())
            return NULL;
        method = optional_attribute(source, "__arrow_c_stream__");
        if (method == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError,
                             "digest_array() argument 2 must have the Arrow PyCapsule interface "
                             "(__arrow_c_array__ or __arrow_c_stream__), not %.100s",
                             Py_TYPE(source)->tp_name);
            return NULL;
        }
        result = digest_stream(state->digest_stream_type, (enum fd_algorithm_id)id, hex, threads,
                               method);
    }
    Py_DECREF(method);
    return result;
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

static PyObject *schema_capsule(digests_object *self)
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

static PyObject *digests_arrow_c_array(digests_object *self, PyObject *args, PyObject *kwargs)
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

static PyObject *digests_arrow_c_stream(digests_object *self, PyObject *args, PyObject *kwargs)
{
    if (parse_requested_schema(args, kwargs, "__arrow_c_stream__") < 0)
        return NULL;
    struct ArrowArrayStream *stream = PyMem_Malloc(sizeof *stream);
    if (stream == NULL)
        return PyErr_NoMemory();
    if (!fd_digest_stream_export(self->chunks, self->chunk_count, self->id, self->hex,
                                 self->large, self->name, stream)) {
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
    {NULL, NULL, 0, NULL},
};

static PyMethodDef digest_stream_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))digests_arrow_c_stream,
     METH_VARARGS | METH_KEYWORDS, arrow_c_stream_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(digest_array_type_doc,
             "The digests of an Arrow array's rows, made by digest_array(): an Arrow array\n"
             "(__arrow_c_array__) of fixed_size_binary(digest_size), or utf8 hex. len() is\n"
             "its row count.");

PyDoc_STRVAR(digest_stream_type_doc,
             "The digests of an Arrow stream's rows, made by digest_array(): an Arrow\n"
             "stream (__arrow_c_stream__) of one array per input array, of\n"
             "fixed_size_binary(digest_size), or utf8 hex. len() is its row count.");

static PyType_Slot digest_array_type_slots[] = {
    {Py_tp_dealloc, digests_dealloc},
    {Py_tp_repr, digests_repr},
    {Py_sq_length, digests_length},
    {Py_tp_methods, digest_array_methods},
    {Py_tp_doc, (void *)digest_array_type_doc},
    {0, NULL},
};

static PyType_Slot digest_stream_type_slots[] = {
    {Py_tp_dealloc, digests_dealloc},
    {Py_tp_repr, digests_repr},
    {Py_sq_length, digests_length},
    {Py_tp_methods, digest_stream_methods},
    {Py_tp_doc, (void *)digest_stream_type_doc},
    {0, NULL},
};

static PyType_Spec digest_array_type_spec = {
    .name = "fastdigest.DigestArray",
    .basicsize = sizeof(digests_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = digest_array_type_slots,
};

static PyType_Spec digest_stream_type_spec = {
    .name = "fastdigest.DigestStream",
    .basicsize = sizeof(digests_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = digest_stream_type_slots,
};

static PyMethodDef arrow_methods[] = {
    {"digest_array", (PyCFunction)(void (*)(void))digest_array, METH_FASTCALL | METH_KEYWORDS,
     digest_array_doc},
    {NULL, NULL, 0, NULL},
};

int fd_arrow_module_exec(PyObject *module, fd_module_state *state)
{
    state->digest_array_type =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &digest_array_type_spec, NULL);
    if (state->digest_array_type == NULL ||
        PyModule_AddType(module, state->digest_array_type) < 0)
        return -1;
    state->digest_stream_type =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &digest_stream_type_spec, NULL);
    if (state->digest_stream_type == NULL ||
        PyModule_AddType(module, state->digest_stream_type) < 0)
        return -1;
    return PyModule_AddFunctions(module, arrow_methods);
}
