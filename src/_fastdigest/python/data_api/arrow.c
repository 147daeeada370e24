/* digest_array(name, array, /, *, hex=False, threads=None) and
 * digest_rows(name, table, /, columns=None, *, hex=False, threads=None):
 * the digest of every value of an Arrow column, or of every row of a
 * table, through the Arrow PyCapsule interface (data/arrow_import.h reads
 * the C, data/arrow_encode.h gives each value's bytes, data/arrow_hash.h
 * hashes them).
 *
 * The input comes from __arrow_c_array__ (a schema and an array capsule)
 * or __arrow_c_stream__ (a stream capsule). Each capsule's struct is moved
 * out (copied, and its release set to NULL in the capsule, so that the
 * capsule's destructor does nothing), which makes a capsule good for one
 * import, as the interface requires. Every array is checked and hashed
 * without the GIL (a large one on several threads), then released; a
 * stream is read to its end before the call returns (eagerly: the result
 * holds one digest column per input array, the input arrays are released
 * as they are hashed). The result types are arrow_results.c's. */
#include "python/binding.h"

#include <string.h>

#include "data/arrow_encode.h"
#include "data/arrow_hash.h"
#include "data/arrow_import.h"
#include "python/data_api/arrow_capsules.h"
#include "python/data_api/arrow_results.h"

/* One call of digest_array or digest_rows: what the import, the hashing and
 * the messages depend on. */
typedef struct arrow_call {
    const char *function; /* "digest_array" or "digest_rows", for messages */
    fd_module_state *state;
    enum fd_algorithm_id id;
    bool hex;
    size_t threads;
    bool rows;       /* digest_rows: a table's rows, each column a field */
    PyObject *names; /* digest_rows' columns, a list or tuple of str (NULL: all of them) */
} arrow_call;

static void raise_arrow_error(const arrow_call *call, const fd_arrow_error *error)
{
    if (error->status == FD_ARROW_NO_MEMORY)
        PyErr_NoMemory();
    else
        fd_raise_arrow_error(error, call->function);
}

/* digest_array hashes a column: the array, or the one field of a struct of
 * one field (a one-column table or record batch, whose null rows are null
 * too). */
static bool is_one_column_table(const fd_arrow_type *type)
{
    return type->id == FD_ARROW_STRUCT && type->n_children == 1;
}

/* Checks and hashes one array, without the GIL when that is worth it, on
 * at most threads threads. */
static fd_digest_column *hash_array(const arrow_call *call, const struct ArrowArray *array,
                                    const fd_arrow_type *type)
{
    fd_arrow_error error;
    fd_digest_column *digests = NULL;
    /* The threshold in force (set_gil_minsize()), in rows: each row costs at
     * least a block, whatever its length. */
    const bool release_gil = array->length >=
                             (int64_t)(fd_gil_minsize() / fd_algorithms[call->id].block_len);

    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    fd_arrow_array *checked = fd_arrow_import_array(array, type, &error);
    if (checked != NULL) {
        fd_row_source source;
        fd_arrow_column_rows rows = {.column = checked, .length = (size_t)checked->length};
        if (call->rows) {
            fd_arrow_table_source(checked, &source);
        }
        else {
            if (is_one_column_table(type)) {
                rows.column = &checked->children[0];
                rows.first = checked->offset;
                rows.parent = checked;
            }
            fd_arrow_column_source(&rows, &source);
        }
        digests = fd_digest_column_hash(call->id, call->hex, &source, call->threads);
        fd_arrow_array_free(checked);
    }
    if (saved != NULL)
        PyEval_RestoreThread(saved);

    if (checked == NULL)
        raise_arrow_error(call, &error);
    else if (digests == NULL)
        PyErr_NoMemory();
    return digests;
}

/* digest_rows' fields: the input must be a struct (a table, a record batch
 * or a stream of them), and columns name some of its fields, in order. */
static fd_arrow_type *import_table_type(const arrow_call *call, const struct ArrowSchema *schema)
{
    fd_arrow_error error;
    if (schema->release != NULL && schema->format != NULL &&
        (strcmp(schema->format, "+s") != 0 || schema->dictionary != NULL)) {
        PyErr_Format(PyExc_TypeError,
                     "%s() hashes the rows of a table, a record batch or a stream of them "
                     "(Arrow format '+s'), not of Arrow format '%.32s': hash a column with "
                     "digest_array()",
                     call->function, schema->format);
        return NULL;
    }
    if (call->names == NULL) {
        fd_arrow_type *type = fd_arrow_import_type(schema, NULL, 0, &error);
        if (type == NULL)
            raise_arrow_error(call, &error);
        return type;
    }
    fd_arrow_type *type = NULL;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(call->names);
    size_t *fields = PyMem_Malloc((size_t)count * sizeof *fields + 1);
    if (fields == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (schema->release == NULL || schema->format == NULL || schema->n_children < 0 ||
        (schema->n_children > 0 && schema->children == NULL)) {
        /* What the import says of it. */
        type = fd_arrow_import_type(schema, fields, 0, &error);
        if (type == NULL)
            raise_arrow_error(call, &error);
        goto done;
    }
    for (int64_t k = 0; k < schema->n_children; k++) {
        if (schema->children[k] == NULL) {
            PyErr_Format(PyExc_ValueError, "%s(): the Arrow struct schema lacks field %lld",
                         call->function, (long long)k);
            goto done;
        }
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t found = fd_find_column(schema, PySequence_Fast_GET_ITEM(call->names, k),
                                          call->function);
        if (found < 0)
            goto done;
        fields[k] = (size_t)found;
    }
    type = fd_arrow_import_type(schema, fields, (size_t)count, &error);
    if (type == NULL)
        raise_arrow_error(call, &error);
done:
    PyMem_Free(fields);
    return type;
}

/* digest_rows' columns argument: None, or a sequence of column names (str),
 * which becomes call->names, a new reference to a list or tuple of them.
 * Checked before the table is read, so that a wrong argument is told as
 * such whatever the table. Returns 0, or -1 with TypeError set. */
static int parse_columns(arrow_call *call, PyObject *columns)
{
    call->names = NULL;
    if (columns == NULL || columns == Py_None)
        return 0;
    if (PyUnicode_Check(columns) || PyBytes_Check(columns)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): columns must be a sequence of column names, not %.100s (a column "
                     "name in a list: [name])",
                     call->function, Py_TYPE(columns)->tp_name);
        return -1;
    }
    PyObject *names = PySequence_Fast(columns, "");
    if (names == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s(): columns must be a sequence of column names or None, not %.100s",
                         call->function, Py_TYPE(columns)->tp_name);
        }
        return -1;
    }
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(names); k++) {
        PyObject *name = PySequence_Fast_GET_ITEM(names, k);
        if (!PyUnicode_Check(name)) {
            PyErr_Format(PyExc_TypeError, "%s(): columns must be column names (str), not %.100s",
                         call->function, Py_TYPE(name)->tp_name);
            Py_DECREF(names);
            return -1;
        }
    }
    call->names = names;
    return 0;
}

/* The schema's type tree, or NULL with an exception set. */
static fd_arrow_type *import_type(const arrow_call *call, const struct ArrowSchema *schema)
{
    if (call->rows)
        return import_table_type(call, schema);
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(schema, NULL, 0, &error);
    if (type == NULL)
        raise_arrow_error(call, &error);
    return type;
}

/* The name the result keeps: digest_array's column's; for rows, as for
 * surrogate_key's keys, the function's. */
static const char *result_name(const arrow_call *call, const fd_arrow_type *type)
{
    if (call->rows)
        return call->function;
    return is_one_column_table(type) ? type->children[0].name : type->name;
}

static PyObject *digest_one_array(const arrow_call *call, PyObject *method)
{
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (fd_take_array(method, &schema, &array, call->function) < 0)
        return NULL;

    fd_digests_object *result = NULL;
    fd_arrow_type *type = import_type(call, &schema);
    if (type != NULL) {
        fd_digest_column *digests = hash_array(call, &array, type);
        if (digests != NULL) {
            size_t capacity = 0;
            result = fd_digests_new(call->state->digest_array_type, call->id, call->hex,
                                    result_name(call, type));
            if (result == NULL)
                fd_digest_column_unref(digests);
            else if (fd_digests_add_chunk(result, digests, &capacity) < 0)
                Py_CLEAR(result);
        }
        fd_arrow_type_free(type);
    }
    fd_release_array(&array);
    fd_release_schema(&schema);
    return (PyObject *)result;
}

static PyObject *digest_stream(const arrow_call *call, PyObject *method)
{
    struct ArrowArrayStream stream;
    if (fd_take_stream(method, &stream, call->function) < 0)
        return NULL;

    fd_digests_object *result = NULL;
    size_t capacity = 0;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        fd_raise_stream_error(&stream, code, call->function);
        fd_release_stream(&stream);
        return NULL;
    }
    fd_arrow_type *type = import_type(call, &schema);
    if (type == NULL)
        goto done;
    result = fd_digests_new(call->state->digest_stream_type, call->id, call->hex,
                            result_name(call, type));
    if (result == NULL)
        goto done;
    for (;;) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream.get_next(&stream, &array);
        if (code != 0) {
            fd_raise_stream_error(&stream, code, call->function);
            goto fail;
        }
        if (array.release == NULL)
            break; /* the end of the stream */
        fd_digest_column *digests = hash_array(call, &array, type);
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
    fd_arrow_type_free(type);
    fd_release_schema(&schema);
    fd_release_stream(&stream);
    return (PyObject *)result;
}

/* Hashes source, through __arrow_c_array__ or else __arrow_c_stream__. */
static PyObject *digest_source(const arrow_call *call, PyObject *source)
{
    if (fd_settle_batch_kernel(fd_algorithms[call->id].family) < 0)
        return NULL;
    PyObject *table = fd_table_source(source, call->names, call->function);
    if (table == NULL)
        return NULL;
    PyObject *result = NULL;
    PyObject *method = fd_optional_attribute(table, "__arrow_c_array__");
    if (method != NULL) {
        result = digest_one_array(call, method);
    }
    else if (!PyErr_Occurred()) {
        method = fd_optional_attribute(table, "__arrow_c_stream__");
        if (method != NULL)
            result = digest_stream(call, method);
        else if (!PyErr_Occurred())
            fd_raise_not_arrow(source, call->function, "2");
    }
    Py_XDECREF(method);
    Py_DECREF(table);
    return result;
}

/* The hex and threads keyword arguments, as both functions take them. */
static int parse_options(arrow_call *call, PyObject *hex, PyObject *threads)
{
    call->hex = false;
    if (hex != NULL) {
        int truth = PyObject_IsTrue(hex);
        if (truth < 0)
            return -1;
        call->hex = truth != 0;
    }
    return fd_parse_threads(threads != NULL ? threads : Py_None, call->function, &call->threads);
}

PyDoc_STRVAR(digest_array_doc,
             "digest_array($module, name, array, /, *, hex=False, threads=None)\n--\n\n"
             "Return the digest of every row of an Arrow column, as an Arrow column.\n\n"
             "name is an algorithm name, as new() takes it, or one of fastdigest's\n"
             "constructors. array is any object with the Arrow PyCapsule interface\n"
             "(__arrow_c_array__ or __arrow_c_stream__: pyarrow arrays and chunked\n"
             "arrays, polars Series, DuckDB relations, pandas objects), of any Arrow type\n"
             "but unions: each value is hashed as the bytes docs/encoding.md defines (a\n"
             "string as its UTF-8 bytes, a binary as its bytes, an integer as eight\n"
             "little-endian bytes, ...; a dictionary as its decoded values); a table or\n"
             "stream of exactly one column means that column, one of several columns a\n"
             "column of struct rows (the digests of digest_rows()). Its buffers are\n"
             "read in place.\n\n"
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
    arrow_call call = {.function = "digest_array", .state = fd_get_module_state(module)};
    if (parse_options(&call, bound[0], bound[1]) < 0)
        return NULL;
    int id = fd_algorithm_from_object(module, args[0], "digest_array", "1");
    if (id < 0)
        return NULL;
    call.id = (enum fd_algorithm_id)id;
    return digest_source(&call, args[1]);
}

PyDoc_STRVAR(digest_rows_doc,
             "digest_rows($module, name, table, /, columns=None, *, hex=False, threads=None)\n"
             "--\n\n"
             "Return the digest of every row of an Arrow table, as an Arrow column.\n\n"
             "name is an algorithm name, as new() takes it, or one of fastdigest's\n"
             "constructors. table is any object with the Arrow PyCapsule interface whose\n"
             "type is a struct: a pyarrow Table, RecordBatch or RecordBatchReader, a\n"
             "polars or pandas DataFrame, a DuckDB relation. columns names the columns\n"
             "to hash, in that order (None: every column, in the table's order). Each\n"
             "row is hashed as its columns' values, each framed with its nullness and\n"
             "length as docs/encoding.md defines, so that no two different rows give\n"
             "the same bytes; a row of nulls has a digest like any other.\n\n"
             "The result has a digest for every row and no nulls: fixed_size_binary(\n"
             "digest_size), or with hex=True utf8 lowercase hex; a DigestArray for array\n"
             "input, a DigestStream (one array per record batch) for stream input.\n"
             "threads is as digest_array() takes it.\n\n"
             "Raises KeyError for a name no column has, TypeError for input that is no\n"
             "table or a column of a type that cannot be hashed (unions), ValueError for\n"
             "malformed Arrow data.");

static PyObject *digest_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    /* name and table are positional-only, counted here; columns may come by
     * position or by keyword, hex and threads by keyword. */
    if (nargs < 2 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "digest_rows expected 2 or 3 positional arguments, got %zd",
                     nargs);
        return NULL;
    }
    static const char *const names[] = {"columns", "hex", "threads"};
    static const fd_signature signature = {
        .function = "digest_rows", FD_PARAMETERS(names), .npositional = 1};
    PyObject *bound[3];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + 2, nargs - 2,
                          kwnames, bound) < 0)
        return NULL;
    arrow_call call = {
        .function = "digest_rows", .state = fd_get_module_state(module), .rows = true};
    if (parse_options(&call, bound[1], bound[2]) < 0)
        return NULL;
    int id = fd_algorithm_from_object(module, args[0], "digest_rows", "1");
    if (id < 0 || parse_columns(&call, bound[0]) < 0)
        return NULL;
    call.id = (enum fd_algorithm_id)id;
    PyObject *result = digest_source(&call, args[1]);
    Py_XDECREF(call.names);
    return result;
}

static PyMethodDef arrow_methods[] = {
    {"digest_array", (PyCFunction)(void (*)(void))digest_array, METH_FASTCALL | METH_KEYWORDS,
     digest_array_doc},
    {"digest_rows", (PyCFunction)(void (*)(void))digest_rows, METH_FASTCALL | METH_KEYWORDS,
     digest_rows_doc},
    {NULL, NULL, 0, NULL},
};

int fd_arrow_module_exec(PyObject *module, fd_module_state *state)
{
    if (fd_digests_add_types(module, state) < 0)
        return -1;
    return PyModule_AddFunctions(module, arrow_methods);
}
