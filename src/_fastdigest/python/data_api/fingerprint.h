/* What the files of fingerprint() share: python/data_api/fingerprint.c (the call,
 * the walk that picks each object's rule, the containers),
 * python/data_api/fingerprint_scalars.c (the values read from one object each:
 * bytes and str, numbers, dates and times, enum members and dataclass
 * instances) and python/data_api/fingerprint_arrays.c (NumPy arrays and scalars,
 * Arrow values). Each of the last two encodes its kinds of value and comes
 * back to fd_walk_encode for a value inside one; the walk calls theirs.
 * Their names start with fd_walk_. The binding's other files see only
 * binding.h's fd_fingerprint_module_exec. */
#ifndef FD_PYTHON_FINGERPRINT_H
#define FD_PYTHON_FINGERPRINT_H

#include "python/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/fingerprint.h"

/* The function's name, as its messages give it. */
#define FD_WALK_FUNCTION "fingerprint"

/* Bytes at least this long (a str's, a bytes', an array's) are hashed where
 * they lie rather than copied through the stream's buffer. */
#define FD_WALK_IN_PLACE_MIN_BYTES FD_FINGERPRINT_BUFFER_BYTES

/* The types of the modules fingerprint.c names, strong references, NULL
 * where the module is not loaded. */
typedef struct fd_walk_types {
    bool looked_up;
    PyObject *datetime_capsule;
    /* The capsule's PyDateTime_CAPI, NULL for none. A pointer to void here:
     * datetime.h defines a static in each file that includes it, which
     * only the two files that read datetime's C API do. */
    const void *datetime;
    PyObject *decimal;
    PyObject *uuid;
    PyObject *enumeration;
    PyObject *dataclass_fields; /* dataclasses.fields */
    PyObject *ndarray;
    PyObject *memmap;
    PyObject *numpy_generic;
} fd_walk_types;

/* The buffers of one level of sorted containers (fingerprint.c). */
typedef struct fd_walk_sort_level fd_walk_sort_level;

typedef struct fd_walker {
    fd_fingerprint_stream *stream;
    /* Where the encoding goes: the stream's sink, or a scratch buffer while
     * a dict's keys or a set's elements are encoded for their order. */
    fd_sink *out;
    fd_walk_types types;
    /* The buffers of each level of sorted containers, depth of them in
     * use (fingerprint.c). */
    fd_walk_sort_level **levels;
    size_t level_count;
    size_t depth;
} fd_walker;

/* The int functions below write one value at w->out and return 0, or -1
 * with an exception set; those that say "or not" first check obj's type
 * and return 1 when they wrote it, 0 when it is of none of their types
 * (nothing written). Each file's own comments give the bytes. */

static inline bool fd_walk_is_subtype(PyTypeObject *type, PyObject *base)
{
    return base != NULL && PyType_IsSubtype(type, (PyTypeObject *)base);
}

/* ---- the walk (fingerprint.c) ------------------------------------------ */

/* Any value, by the rule docs/fingerprint.md gives its type, or TypeError:
 * what the others call for a value inside theirs. */
int fd_walk_encode(fd_walker *w, PyObject *obj);

/* "module.qualname" of a type, for messages: a new reference. */
PyObject *fd_walk_type_name(PyTypeObject *type);

/* ---- one object's own state (fingerprint_scalars.c) -------------------- */

/* A tagged run of bytes, and the elements of a buffer (no tag, no length),
 * which the caller keeps alive and unmoved: long ones hashed in place. */
void fd_walk_put_sized(fd_walker *w, uint8_t tag, const void *data, size_t len);
int fd_walk_put_buffer_elements(fd_walker *w, const Py_buffer *view, size_t swap_unit, bool swap,
                                bool boolean);

/* An object of the type each names, or of a subclass of it. */
int fd_walk_put_bytes_like(fd_walker *w, PyObject *obj);
int fd_walk_put_str(fd_walker *w, PyObject *obj);
int fd_walk_put_int(fd_walker *w, PyObject *obj);
int fd_walk_put_decimal(fd_walker *w, PyObject *obj);
int fd_walk_put_uuid(fd_walker *w, PyObject *obj);
int fd_walk_put_enum(fd_walker *w, PyObject *obj);
int fd_walk_put_dataclass(fd_walker *w, PyObject *obj);

/* A date, time, datetime or timedelta, or not. */
int fd_walk_put_temporal(fd_walker *w, PyObject *obj);

/* ---- arrays (fingerprint_arrays.c) ------------------------------------- */

/* A NumPy array or scalar, or not; an Arrow value, or not. */
int fd_walk_put_numpy_object(fd_walker *w, PyObject *obj);
int fd_walk_put_arrow(fd_walker *w, PyObject *obj);

#endif
