/* surrogate_key(table, columns, /, *, name="md5", separator="-",
 * null="_dbt_utils_surrogate_key_null_", threads=None): dbt_utils'
 * generate_surrogate_key for every row of an Arrow table, through the Arrow
 * PyCapsule interface (data/arrow_surrogate.h does the C).
 *
 * The table comes from __arrow_c_array__ (a record batch: a struct array)
 * or __arrow_c_stream__ (a table, DataFrame or relation: a stream of
 * them). Its schema is read once: each named column found, its type read
 * as a flat type (data/arrow_flat.h) and accepted or refused for its text
 * (data/arrow_text.h). Each array is then checked and hashed without the
 * GIL (a large one on several threads) and released; the result is a
 * DigestArray or DigestStream of hex utf8 with no nulls. */
#include "python/binding.h"

#include <string.h>

#include "data/arrow_flat.h"
#include "data/arrow_surrogate.h"
#include "data/arrow_text.h"
#include "python/data_api/arrow_capsules.h"
#include "python/data_api/arrow_results.h"

#define FUNCTION "surrogate_key"
#define DBT_NULL_TOKEN "_dbt_utils_surrogate_key_null_"

/* The columns of a call: which field of the table's struct each is, its
 * type, and for the array at hand its checked rows. */
typedef struct key_columns {
    size_t count;
    size_t *fields;
    fd_flat_type *types;
    fd_flat_column *columns;
    const char **names; /* into the schema */
} key_columns;

static void free_key_columns(key_columns *keys)
{
    PyMem_Free(keys->fields);
    PyMem_Free(keys->types);
    PyMem_Free(keys->columns);
    PyMem_Free(keys->names);
}

/* columns: a list or tuple (any sequence but a str or bytes) of one str or
 * more. Returns a new reference to a list or tuple of them, or NULL with an
 * exception set. */
static PyObject *column_names(PyObject *columns)
{
    if (PyUnicode_Check(columns) || PyBytes_Check(columns) || !PySequence_Check(columns)) {
        PyErr_Format(PyExc_TypeError,
                     FUNCTION "() argument 2 must be a list of column names, not %.100s",
                     Py_TYPE(columns)->tp_name);
        return NULL;
    }
    PyObject *names = PySequence_Fast(columns,
                                      FUNCTION "() argument 2 must be a list of column names");
    if (names == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(names);
    if (count == 0) {
        Py_DECREF(names);
        PyErr_SetString(PyExc_ValueError, FUNCTION "() needs at least one column");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            PyErr_Format(PyExc_TypeError,
                         FUNCTION "() argument 2 must hold column names (str), not %.100s",
                         Py_TYPE(name)->tp_name);
            Py_DECREF(names);
            return NULL;
        }
    }
    return names;
}

/* Raises the TypeError for a column whose type has no text the engines
 * agree on. Returns -1. A timestamp is most often a column of dates that
 * pandas, which has no date type, made one: the message says how to get
 * the dates back. */
static int refuse_type(PyObject *name, const struct ArrowSchema *field, const char *why)
{
    const bool timestamp = strncmp(field->format, "ts", 2) == 0;
    PyErr_Format(PyExc_TypeError,
                 FUNCTION "(): column %R (Arrow format '%.32s') has no text that DuckDB, "
                          "PostgreSQL and Spark agree on: %s; cast it first (to a string, an "
                          "integer, a date or a decimal)%s",
                 name, field->format, why,
                 timestamp ? ". pandas holds dates as timestamps: column.dt.date, or "
                             "column.astype(pd.ArrowDtype(pa.date32())), makes them dates again"
                           : "");
    return -1;
}

/* Reads the table's schema for the named columns. Returns 0, or -1 with an
 * exception set. */
static int read_schema(const struct ArrowSchema *schema, PyObject *names, key_columns *keys)
{
    if (schema->release == NULL || schema->format == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        FUNCTION "(): the Arrow schema is released or has no format string");
        return -1;
    }
    if (strcmp(schema->format, "+s") != 0) {
        PyErr_Format(PyExc_TypeError,
                     FUNCTION "() argument 1 must be a table (a struct of columns: a pyarrow "
                              "Table or RecordBatch, a polars DataFrame, a DuckDB relation, a "
                              "pandas DataFrame), not a column of Arrow format '%.32s'",
                     schema->format);
        return -1;
    }
    if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == NULL)) {
        PyErr_SetString(PyExc_ValueError, FUNCTION "(): the Arrow struct schema lacks its fields");
        return -1;
    }
    for (int64_t i = 0; i < schema->n_children; i++) {
        if (schema->children[i] == NULL || schema->children[i]->format == NULL) {
            PyErr_SetString(PyExc_ValueError,
                            FUNCTION "(): the Arrow struct schema lacks one of its fields");
            return -1;
        }
    }
    const size_t count = (size_t)PySequence_Fast_GET_SIZE(names);
    keys->count = count;
    keys->fields = PyMem_Calloc(count, sizeof *keys->fields);
    keys->types = PyMem_Calloc(count, sizeof *keys->types);
    keys->columns = PyMem_Calloc(count, sizeof *keys->columns);
    keys->names = PyMem_Calloc(count, sizeof *keys->names);
    if (keys->fields == NULL || keys->types == NULL || keys->columns == NULL ||
        keys->names == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(names, (Py_ssize_t)i);
        Py_ssize_t index = fd_find_column(schema, name, FUNCTION);
        if (index < 0)
            return -1;
        const struct ArrowSchema *field = schema->children[index];
        keys->fields[i] = (size_t)index;
        keys->names[i] = field->name;
        if (field->dictionary != NULL) {
            const char *values = field->dictionary->format;
            PyErr_Format(PyExc_TypeError,
                         FUNCTION "(): column %R is dictionary-encoded (Arrow format '%.32s', "
                                  "values '%.32s'): decode it first (pyarrow: "
                                  ".dictionary_decode(), polars: .cast(pl.String))",
                         name, field->format, values != NULL ? values : "?");
            return -1;
        }
        fd_arrow_error error;
        if (!fd_flat_read_field(field, &keys->types[i], &error)) {
            if (error.status == FD_ARROW_BAD_TYPE)
                return refuse_type(name, field, fd_text_refusal_of_format(field->format));
            PyErr_Format(PyExc_ValueError, FUNCTION "(): column %R: %s", name, error.message);
            return -1;
        }
        const char *why = fd_text_refusal(&keys->types[i]);
        if (why != NULL)
            return refuse_type(name, field, why);
    }
    return 0;
}

/* Checks and hashes one array (a struct array of the schema's fields)
 * without the GIL when that is worth it. first_row is its first row's
 * number in the whole table, for messages. */
static fd_digest_column *hash_batch(const fd_surrogate_spec *spec, size_t threads,
                                    const struct ArrowArray *array, int64_t fields,
                                    key_columns *keys, size_t first_row)
{
    fd_arrow_error error;
    fd_surrogate_failure failure = {.out_of_memory = false};
    fd_digest_column *digests = NULL;
    size_t bad_column = keys->count;
    const bool release_gil = array->length >=
                             (int64_t)(fd_gil_minsize() / fd_algorithms[spec->id].block_len);

    PyThreadState *saved = release_gil ? PyEval_SaveThread() : NULL;
    const bool struct_valid = fd_flat_check_struct(array, fields, &error);
    for (size_t i = 0; struct_valid && i < keys->count; i++) {
        if (!fd_flat_check_field(array, keys->fields[i], &keys->types[i], &keys->columns[i],
                                 &error)) {
            bad_column = i;
            break;
        }
    }
    const bool valid = struct_valid && bad_column == keys->count;
    if (valid)
        digests = fd_surrogate_key_hash(spec, keys->columns, keys->count, threads, &failure);
    if (saved != NULL)
        PyEval_RestoreThread(saved);

    if (!struct_valid)
        fd_raise_arrow_error(&error, FUNCTION);
    else if (!valid)
        PyErr_Format(PyExc_ValueError, FUNCTION "(): column '%.200s': %s",
                     keys->names[bad_column] != NULL ? keys->names[bad_column] : "", error.message);
    else if (digests == NULL && failure.out_of_memory)
        PyErr_NoMemory();
    else if (digests == NULL) {
        char why[256];
        fd_text_describe_refused(&keys->columns[failure.column], failure.row, why, sizeof why);
        PyErr_Format(PyExc_ValueError, FUNCTION "(): row %zu, column '%.200s': %s",
                     first_row + failure.row,
                     keys->names[failure.column] != NULL ? keys->names[failure.column] : "", why);
    }
    return digests;
}

static PyObject *key_one_batch(PyTypeObject *result_type, const fd_surrogate_spec *spec,
                               size_t threads, PyObject *method, PyObject *names)
{
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (fd_take_array(method, &schema, &array, FUNCTION) < 0)
        return NULL;
    fd_digests_object *result = NULL;
    key_columns keys = {0};
    if (read_schema(&schema, names, &keys) == 0) {
        fd_digest_column *digests = hash_batch(spec, threads, &array, schema.n_children, &keys, 0);
        if (digests != NULL) {
            size_t capacity = 0;
            result = fd_digests_new(result_type, spec->id, true, FUNCTION);
            if (result == NULL)
                fd_digest_column_unref(digests);
            else if (fd_digests_add_chunk(result, digests, &capacity) < 0)
                Py_CLEAR(result);
        }
    }
    free_key_columns(&keys);
    fd_release_array(&array);
    fd_release_schema(&schema);
    return (PyObject *)result;
}

static PyObject *key_stream(PyTypeObject *result_type, const fd_surrogate_spec *spec,
                            size_t threads, PyObject *method, PyObject *names)
{
    struct ArrowArrayStream stream;
    if (fd_take_stream(method, &stream, FUNCTION) < 0)
        return NULL;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        fd_raise_stream_error(&stream, code, FUNCTION);
        fd_release_stream(&stream);
        return NULL;
    }
    fd_digests_object *result = NULL;
    size_t capacity = 0, rows = 0;
    key_columns keys = {0};
    if (read_schema(&schema, names, &keys) < 0)
        goto done;
    result = fd_digests_new(result_type, spec->id, true, FUNCTION);
    if (result == NULL)
        goto done;
    for (;;) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream.get_next(&stream, &array);
        if (code != 0) {
            fd_raise_stream_error(&stream, code, FUNCTION);
            goto fail;
        }
        if (array.release == NULL)
            break; /* the end of the stream */
        fd_digest_column *digests = hash_batch(spec, threads, &array, schema.n_children, &keys,
                                               rows);
        rows += (size_t)(array.length > 0 ? array.length : 0);
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
    free_key_columns(&keys);
    fd_release_schema(&schema);
    fd_release_stream(&stream);
    return (PyObject *)result;
}

/* A str argument's UTF-8 bytes, NULL with TypeError for anything else. */
static const char *text_argument(PyObject *value, const char *argument, Py_ssize_t *len)
{
    if (!PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, FUNCTION "() argument '%s' must be str, not %.100s", argument,
                     Py_TYPE(value)->tp_name);
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(value, len);
}

PyDoc_STRVAR(
    surrogate_key_doc,
    "surrogate_key($module, table, columns, /, *, name='md5', separator='-', null='" DBT_NULL_TOKEN
    "', threads=None)\n--\n\n"
    "Return dbt_utils' generate_surrogate_key(columns) of every row of an Arrow\n"
    "table, as an Arrow column of lowercase hex (utf8), with no nulls.\n\n"
    "Each value is written as text as DuckDB, PostgreSQL and Spark cast it, a null\n"
    "as the null token, the columns joined by separator, and the row hashed with\n"
    "name (any of fastdigest's algorithms). Strings, integers of every width,\n"
    "booleans, dates and decimals are taken; a type the engines write differently\n"
    "(floats, timestamps, binary, ...) raises TypeError: cast it first. table is\n"
    "any object with the Arrow PyCapsule interface of a table (pyarrow Tables and\n"
    "RecordBatches, polars DataFrames, DuckDB relations, pandas DataFrames); a\n"
    "column it lacks raises KeyError. The result is a DigestArray for a record\n"
    "batch and a DigestStream for a stream, which pyarrow, polars and DuckDB\n"
    "import without a copy. threads as for digest_array().");

static PyObject *surrogate_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, FUNCTION " expected 2 positional arguments, got %zd", nargs);
        return NULL;
    }
    static const char *const keywords[] = {"name", "separator", "null", "threads"};
    static const fd_signature signature = {.function = FUNCTION, FD_PARAMETERS(keywords)};
    PyObject *bound[4];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return NULL;
    fd_surrogate_spec spec = {
        .id = FD_MD5,
        .separator = (const uint8_t *)"-",
        .separator_len = 1,
        .null_token = (const uint8_t *)DBT_NULL_TOKEN,
        .null_token_len = sizeof DBT_NULL_TOKEN - 1,
    };
    if (bound[0] != NULL) {
        int id = fd_algorithm_from_object(module, bound[0], FUNCTION, "'name'");
        if (id < 0)
            return NULL;
        spec.id = (enum fd_algorithm_id)id;
    }
    Py_ssize_t len;
    if (bound[1] != NULL) {
        const char *separator = text_argument(bound[1], "separator", &len);
        if (separator == NULL)
            return NULL;
        spec.separator = (const uint8_t *)separator;
        spec.separator_len = (size_t)len;
    }
    if (bound[2] != NULL) {
        const char *token = text_argument(bound[2], "null", &len);
        if (token == NULL)
            return NULL;
        spec.null_token = (const uint8_t *)token;
        spec.null_token_len = (size_t)len;
    }
    size_t threads;
    if (fd_parse_threads(bound[3] != NULL ? bound[3] : Py_None, FUNCTION, &threads) < 0 ||
        fd_settle_batch_kernel(fd_algorithms[spec.id].family) < 0)
        return NULL;
    PyObject *names = column_names(args[1]);
    if (names == NULL)
        return NULL;

    /* The separator and token are the UTF-8 of str arguments, which the
     * call's own references keep alive. */
    fd_module_state *state = fd_get_module_state(module);
    PyObject *table = fd_table_source(args[0], names, FUNCTION);
    if (table == NULL) {
        Py_DECREF(names);
        return NULL;
    }
    PyObject *result = NULL;
    PyObject *method = fd_optional_attribute(table, "__arrow_c_array__");
    if (method != NULL) {
        result = key_one_batch(state->digest_array_type, &spec, threads, method, names);
    }
    else if (!PyErr_Occurred()) {
        method = fd_optional_attribute(table, "__arrow_c_stream__");
        if (method != NULL)
            result = key_stream(state->digest_stream_type, &spec, threads, method, names);
        else if (!PyErr_Occurred())
            fd_raise_not_arrow(args[0], FUNCTION, "1");
    }
    Py_XDECREF(method);
    Py_DECREF(table);
    Py_DECREF(names);
    return result;
}

static PyMethodDef surrogate_methods[] = {
    {"surrogate_key", (PyCFunction)(void (*)(void))surrogate_key, METH_FASTCALL | METH_KEYWORDS,
     surrogate_key_doc},
    {NULL, NULL, 0, NULL},
};

int fd_surrogate_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, surrogate_methods);
}
