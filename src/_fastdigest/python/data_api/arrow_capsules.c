/* The consumer's side of the Arrow PyCapsule interface (arrow_capsules.h). */
#include "python/data_api/arrow_capsules.h"

#include <errno.h>
#include <string.h>

PyObject *fd_optional_attribute(PyObject *obj, const char *name)
{
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return value;
}

/* Whether obj is a pandas DataFrame: 1, 0, or -1 with an exception set.
 * Where pandas has not been imported, nothing can be one. */
static int is_pandas_frame(PyObject *obj)
{
    PyObject *name = PyUnicode_FromString("pandas");
    if (name == NULL)
        return -1;
    PyObject *pandas = PyImport_GetModule(name);
    Py_DECREF(name);
    if (pandas == NULL)
        return PyErr_Occurred() ? -1 : 0;
    /* pandas partly imported (obj is then none of its frames) has no
     * DataFrame yet. */
    PyObject *frame_type = fd_optional_attribute(pandas, "DataFrame");
    Py_DECREF(pandas);
    if (frame_type == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int is_frame = PyObject_IsInstance(obj, frame_type);
    Py_DECREF(frame_type);
    return is_frame;
}

PyObject *fd_table_source(PyObject *table, PyObject *names, const char *function)
{
    int is_frame = is_pandas_frame(table);
    if (is_frame <= 0)
        return is_frame < 0 ? NULL : Py_NewRef(table);
    PyObject *helpers = PyImport_ImportModule("fastdigest._pandas");
    if (helpers == NULL)
        return NULL;
    PyObject *source = PyObject_CallMethod(helpers, "table", "OOs", table,
                                           names != NULL ? names : Py_None, function);
    Py_DECREF(helpers);
    return source;
}

void fd_raise_not_arrow(PyObject *obj, const char *function, const char *position)
{
    const char *type = Py_TYPE(obj)->tp_name;
    const char *dot = strrchr(type, '.');
    const bool duckdb_connection = strcmp(dot != NULL ? dot + 1 : type, "DuckDBPyConnection") == 0;
    PyErr_Format(PyExc_TypeError,
                 "%s() argument %s must have the Arrow PyCapsule interface (__arrow_c_array__ "
                 "or __arrow_c_stream__), not %.100s%s",
                 function, position, type,
                 duckdb_connection ? " (con.execute() returns the connection: pass a relation, "
                                     "con.sql(query), instead)"
                                   : "");
}

/* The most column names a message lists, as fastdigest/_pandas.py's. */
#define LISTED_COLUMNS 20

/* The names of a struct schema's first LISTED_COLUMNS fields, quoted and
 * joined by commas, "none" for no field; NULL with an exception set. */
static PyObject *listed_columns(const struct ArrowSchema *schema)
{
    if (schema->n_children == 0)
        return PyUnicode_FromString("none");
    PyObject *quoted = PyList_New(0);
    if (quoted == NULL)
        return NULL;
    for (int64_t i = 0; i < schema->n_children && i < LISTED_COLUMNS; i++) {
        const char *field = schema->children[i]->name != NULL ? schema->children[i]->name : "";
        PyObject *text = PyUnicode_DecodeUTF8(field, (Py_ssize_t)strlen(field), "replace");
        PyObject *repr = text != NULL ? PyObject_Repr(text) : NULL;
        Py_XDECREF(text);
        if (repr == NULL || PyList_Append(quoted, repr) < 0) {
            Py_XDECREF(repr);
            Py_DECREF(quoted);
            return NULL;
        }
        Py_DECREF(repr);
    }
    PyObject *separator = PyUnicode_FromString(", ");
    PyObject *joined = separator != NULL ? PyUnicode_Join(separator, quoted) : NULL;
    Py_XDECREF(separator);
    Py_DECREF(quoted);
    if (joined != NULL && schema->n_children > LISTED_COLUMNS) {
        PyObject *longer = PyUnicode_FromFormat("%U, ... (%lld in all)", joined,
                                                (long long)schema->n_children);
        Py_DECREF(joined);
        joined = longer;
    }
    return joined;
}

static void raise_missing_column(const struct ArrowSchema *schema, PyObject *name,
                                 const char *function)
{
    PyObject *listed = listed_columns(schema);
    if (listed == NULL)
        return;
    PyObject *message = PyUnicode_FromFormat("%s(): the table has no column %R (its columns: %U)",
                                             function, name, listed);
    Py_DECREF(listed);
    if (message != NULL) {
        PyErr_SetObject(PyExc_KeyError, message);
        Py_DECREF(message);
    }
}

Py_ssize_t fd_find_column(const struct ArrowSchema *schema, PyObject *name, const char *function)
{
    Py_ssize_t size;
    const char *wanted = PyUnicode_AsUTF8AndSize(name, &size);
    if (wanted == NULL)
        return -1;
    Py_ssize_t found = -1, matches = 0;
    for (int64_t i = 0; i < schema->n_children; i++) {
        const char *field = schema->children[i]->name;
        if (field != NULL && strlen(field) == (size_t)size &&
            memcmp(field, wanted, (size_t)size) == 0) {
            if (matches++ == 0)
                found = (Py_ssize_t)i;
        }
    }
    if (matches == 0) {
        raise_missing_column(schema, name, function);
        return -1;
    }
    if (matches > 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): the table has %zd columns named %R: rename them first", function,
                     matches, name);
        return -1;
    }
    return found;
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
