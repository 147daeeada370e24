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

#include "core/arrow_hash.h"
#include "core/arrow_import.h"
#include "python/arrow_capsules.h"
#include "python/arrow_results.h"

/* Checks and hashes one array, without the GIL when that is worth it, on
 * at most threads threads. */
static fd_digest_column *hash_array(enum fd_algorithm_id id, bool hex, size_t threads,
                                    const struct ArrowArray *array, const fd_arrow_input_type *type)
{
    fd_arrow_column column;
    fd_arrow_error error;
    fd_digest_column *digests = NULL;
    /* The threshold in force (set_gil_minsize()), in rows: each row costs at
     * least a block, whatever its length. */
    const bool release_gil = array->length >=
                             (int64_t)(fd_gil_minsize() / fd_algorithms[id].block_len);

    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    bool valid = fd_arrow_check_array(array, type, &column, &error);
    if (valid)
        digests = fd_digest_column_hash(id, hex, &column, threads);
    if (saved != NULL)
        PyEval_RestoreThread(saved);

    if (!valid)
        fd_raise_arrow_error(&error, "digest_array");
    else if (digests == NULL)
        PyErr_NoMemory();
    return digests;
}

static int check_schema(const struct ArrowSchema *schema, fd_arrow_input_type *type)
{
    fd_arrow_error error;
    if (!fd_arrow_check_schema(schema, type, &error)) {
        fd_raise_arrow_error(&error, "digest_array");
        return -1;
    }
    return 0;
}

static PyObject *digest_one_array(PyTypeObject *result_type, enum fd_algorithm_id id, bool hex,
                                  size_t threads, PyObject *method)
{
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (fd_take_array(method, &schema, &array, "digest_array") < 0)
        return NULL;

    fd_digests_object *result = NULL;
    fd_arrow_input_type type;
    if (check_schema(&schema, &type) == 0) {
        fd_digest_column *digests = hash_array(id, hex, threads, &array, &type);
        if (digests != NULL) {
            size_t capacity = 0;
            result = fd_digests_new(result_type, id, hex, type.name);
            if (result == NULL)
                fd_digest_column_unref(digests);
            else if (fd_digests_add_chunk(result, digests, &capacity) < 0)
                Py_CLEAR(result);
        }
    }
    fd_release_array(&array);
    fd_release_schema(&schema);
    return (PyObject *)result;
}

static PyObject *digest_stream(PyTypeObject *result_type, enum fd_algorithm_id id, bool hex,
                               size_t threads, PyObject *method)
{
    struct ArrowArrayStream stream;
    if (fd_take_stream(method, &stream, "digest_array") < 0)
        return NULL;

    fd_digests_object *result = NULL;
    size_t capacity = 0;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        fd_raise_stream_error(&stream, code, "digest_array");
        fd_release_stream(&stream);
        return NULL;
    }
    fd_arrow_input_type type;
    if (check_schema(&schema, &type) < 0)
        goto done;
    result = fd_digests_new(result_type, id, hex, type.name);
    if (result == NULL)
        goto done;
    for (;;) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream.get_next(&stream, &array);
        if (code != 0) {
            fd_raise_stream_error(&stream, code, "digest_array");
            goto fail;
        }
        if (array.release == NULL)
            break; /* the end of the stream */
        fd_digest_column *digests = hash_array(id, hex, threads, &array, &type);
        fd_release_array(&array);
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
    fd_release_schema(&schema);
    fd_release_stream(&stream);
    return (PyObject *)result;
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
    static const fd_signature signature = {.function = "digest_array", FD_PARAMETERS(names)};
    PyObject *bound[2];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
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
    PyObject *method = fd_optional_attribute(source, "__arrow_c_array__");
    PyObject *result;
    if (method != NULL) {
        result = digest_one_array(state->digest_array_type, (enum fd_algorithm_id)id, hex, threads,
                                  method);
    }
    else {
        if (PyErr_Occurred())
            return NULL;
        method = fd_optional_attribute(source, "__arrow_c_stream__");
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
