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
 * released as they are hashed). The result types are arrow_results.c's. */
#include "python/binding.h"

#include <errno.h>

#include "core/arrow_encode.h"
#include "core/arrow_hash.h"
#include "core/arrow_import.h"
#include "python/arrow_results.h"

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
    if (error->status == FD_ARROW_NO_MEMORY) {
        PyErr_NoMemory();
        return;
    }
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

/* The column digest_array hashes in a checked array: the array, or the one
 * field of a struct of one field (a one-column table or record batch,
 * whose null rows are null too). */
static bool is_one_column_table(const fd_arrow_type *type)
{
    return type->id == FD_ARROW_STRUCT && type->n_children == 1;
}

/* Checks and hashes one array, without the GIL when that is worth it, on
 * at most threads threads. */
static fd_digest_column *hash_array(enum fd_algorithm_id id, bool hex, size_t threads,
                                    const struct ArrowArray *array, const fd_arrow_type *type)
{
    fd_arrow_error error;
    fd_digest_column *digests = NULL;
    /* The threshold in force (set_gil_minsize()), in rows: each row costs at
     * least a block, whatever its length. */
    const bool release_gil = array->length >=
                             (int64_t)(fd_gil_minsize() / fd_algorithms[id].block_len);

    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    fd_arrow_array *checked = fd_arrow_import_array(array, type, &error);
    if (checked != NULL) {
        fd_arrow_column_rows rows = {.column = checked, .length = (size_t)checked->length};
        if (is_one_column_table(type)) {
            rows.column = &checked->children[0];
            rows.first = checked->offset;
            rows.parent = checked;
        }
        fd_row_source source;
        fd_arrow_column_source(&rows, &source);
        digests = fd_digest_column_hash(id, hex, &source, threads);
        fd_arrow_array_free(checked);
    }
    if (saved != NULL)
        PyEval_RestoreThread(saved);

    if (checked == NULL)
        raise_arrow_error(&error);
    else if (digests == NULL)
        PyErr_NoMemory();
    return digests;
}

/* The schema's type tree, or NULL with an exception set. */
static fd_arrow_type *check_schema(const struct ArrowSchema *schema)
{
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(schema, NULL, 0, &error);
    if (type == NULL)
        raise_arrow_error(&error);
    return type;
}

/* The name of the column digest_array hashes: the result keeps it. */
static const char *column_name(const fd_arrow_type *type)
{
    return is_one_column_table(type) ? type->children[0].name : type->name;
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
    struct ArrowArray *array_in = schema_in != NULL
                                      ? capsule_pointer(PyTuple_GET_ITEM(pair, 1), "arrow_array")
                                      : NULL;
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

    fd_digests_object *result = NULL;
    fd_arrow_type *type = check_schema(&schema);
    if (type != NULL) {
        fd_digest_column *digests = hash_array(id, hex, threads, &array, type);
        if (digests != NULL) {
            size_t capacity = 0;
            result = fd_digests_new(result_type, id, hex, column_name(type));
            if (result == NULL)
                fd_digest_column_unref(digests);
            else if (fd_digests_add_chunk(result, digests, &capacity) < 0)
                Py_CLEAR(result);
        }
        fd_arrow_type_free(type);
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

    fd_digests_object *result = NULL;
    size_t capacity = 0;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        raise_stream_error(&stream, code);
        release_stream(&stream);
        return NULL;
    }
    fd_arrow_type *type = check_schema(&schema);
    if (type == NULL)
        goto done;
    result = fd_digests_new(result_type, id, hex, column_name(type));
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
        fd_digest_column *digests = hash_array(id, hex, threads, &array, type);
        release_array(&array);
        if (digests == NULL || fd_digests_add_chunk(result, digests, &capacity) < 0)
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
    fd_arrow_type_free(type);
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
    /* name and array are positional-only: counted here, with this message,
     * and the keywords alone bound by name (no positional argument left). */
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_array expected 2 positional arguments, got %zd",
                     nargs);
        return NULL;
    }
    static const char *const names[] = {"hex", "threads"};
    static const fd_signature signature = {
        .function = "digest_array", .names = names, .nparams = 2};
    PyObject *bound[2];
    if (fd_bind_arguments(&signature, args + nargs, 0, kwnames, bound) < 0)
        return NULL;
    bool hex = false;
    if (bound[0] != NULL) {
        int truth = PyObject_IsTrue(bound[0]);
        if (truth < 0)
            return NULL;
        hex = truth != 0;
    }
    size_t threads;
    if (fd_parse_threads(bound[1] != NULL ? bound[1] : Py_None, "digest_array", &threads) < 0)
        return NULL;

    fd_module_state *state = fd_get_module_state(module);
    int id = fd_algorithm_from_object(module, args[0], "digest_array", "1");
    if (id < 0)
        return NULL;

    PyObject *source = args[1];
    PyObject *method = optional_attribute(source, "__arrow_c_array__");
    PyObject *result;
    if (method != NULL) {
        result = digest_one_array(state->digest_array_type, (enum fd_algorithm_id)id, hex, threads,
                                  method);
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

static PyMethodDef arrow_methods[] = {
    {"digest_array", (PyCFunction)(void (*)(void))digest_array, METH_FASTCALL | METH_KEYWORDS,
     digest_array_doc},
    {NULL, NULL, 0, NULL},
};

int fd_arrow_module_exec(PyObject *module, fd_module_state *state)
{
    if (fd_digests_add_types(module, state) < 0)
        return -1;
    return PyModule_AddFunctions(module, arrow_methods);
}
