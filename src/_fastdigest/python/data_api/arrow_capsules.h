/* The consumer's side of the Arrow PyCapsule interface (arrow_capsules.c),
 * for every function that reads Arrow data (digest_array in arrow.c,
 * surrogate_key in surrogate.c): the capsules of __arrow_c_array__ and
 * __arrow_c_stream__ checked and moved out, the producers' structs
 * released, their errors raised. Each function names its caller (function,
 * as "digest_array") in its messages. */
#ifndef FD_PYTHON_ARROW_CAPSULES_H
#define FD_PYTHON_ARROW_CAPSULES_H

#include "python/binding.h"

#include "data/arrow.h"
#include "data/arrow_import.h"

/* A new reference to obj's attribute, NULL without an exception when it
 * has none, NULL with one on any other error. */
PyObject *fd_optional_attribute(PyObject *obj, const char *name);

/* What to read of a table whose columns names are hashed (a list or tuple
 * of str; NULL: every column): a new reference to the table itself, or for
 * a pandas DataFrame to a pyarrow Table of those columns alone, without the
 * index (fastdigest/_pandas.py says why). NULL with an exception set on
 * failure, KeyError and ValueError as fd_find_column raises them among
 * them. */
PyObject *fd_table_source(PyObject *table, PyObject *names, const char *function);

/* The TypeError for an argument (position, as "2") without the Arrow
 * PyCapsule interface. A DuckDB connection, which con.execute(query)
 * returns, is told to pass a relation (con.sql(query)) instead. */
void fd_raise_not_arrow(PyObject *obj, const char *function, const char *position);

/* The index of the field of a struct schema (its children all present)
 * named name, a str; or -1 with an exception set: KeyError when no field
 * has the name (the message lists the fields' names), ValueError when
 * several have it. */
Py_ssize_t fd_find_column(const struct ArrowSchema *schema, PyObject *name, const char *function);

/* Calls an __arrow_c_array__ method and moves the schema and array out of
 * the two capsules it returns (copied, their release set to NULL in the
 * capsules, so that a capsule is good for one import, as the interface
 * requires). Both are checked before either is moved: a call that fails
 * leaves them as they were. Returns 0, or -1 with an exception set. */
int fd_take_array(PyObject *method, struct ArrowSchema *schema, struct ArrowArray *array,
                  const char *function);

/* Calls an __arrow_c_stream__ method and moves the stream out of its
 * capsule. Returns 0, or -1 with an exception set. */
int fd_take_stream(PyObject *method, struct ArrowArrayStream *stream, const char *function);

/* Release a producer's struct. Producers' release callbacks may run Python
 * code (a pyarrow buffer over a Python object, a ctypes callback), which
 * must not start with an exception set: the one being raised waits aside
 * meanwhile. */
void fd_release_schema(struct ArrowSchema *schema);
void fd_release_array(struct ArrowArray *array);
void fd_release_stream(struct ArrowArrayStream *stream);

/* A stream callback's error code, as pyarrow maps them: ENOMEM MemoryError,
 * EINVAL ValueError, anything else OSError, with the stream's message. */
void fd_raise_stream_error(struct ArrowArrayStream *stream, int code, const char *function);

/* An import's error: TypeError for a type, ValueError for bad data. */
void fd_raise_arrow_error(const fd_arrow_error *error, const char *function);

#endif /* FD_PYTHON_ARROW_CAPSULES_H */
