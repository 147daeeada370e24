/* fingerprint(name, obj, /, *, hex=False): the digest of a Python value
 * under the encoding docs/fingerprint.md defines. This file walks the
 * objects; data/fingerprint.h writes the bytes, and hashes them through a
 * bounded buffer as they are written.
 *
 * What the walk reads and when. Each container is read once, when the walk
 * reaches it: a list's items, a dict's items and a set's elements are taken
 * into a snapshot that holds references to them (under the container's
 * critical section on a free-threaded build), and the snapshot is what is
 * encoded (with the GIL, a list's plain items are read in place, as no code
 * runs meanwhile: put_list says how). So code that the walk runs (a dataclass field's property, an
 * enum's value, an Arrow producer) may change any container, the one being
 * walked included, without the walk ever holding a pointer it does not own
 * a reference to, and the result is the digest of each container as it
 * was when it was read. The built-in containers are read from their
 * storage, never through methods a subclass overrides (__len__, __iter__,
 * items), and nothing calls __hash__ or __eq__: a dict's keys and a set's
 * elements are ordered by their encoded bytes.
 *
 * Types beyond the built-in ones are recognised from the modules that
 * define them, found in sys.modules and never imported (an object of a
 * type exists only once its module is loaded): datetime, decimal, uuid,
 * enum, dataclasses and numpy, looked up once a call, at the first object
 * that is of no built-in type. */
#include "python/binding.h"

#include <datetime.h>
#include <string.h>

#include "data/arrow_import.h"
#include "data/fingerprint.h"
#include "python/arrow_capsules.h"

#define FUNCTION "fingerprint"

/* Bytes at least this long (a str's, a bytes', an array's) are hashed where
 * they lie rather than copied through the stream's buffer. */
#define IN_PLACE_MIN_BYTES FD_FINGERPRINT_BUFFER_BYTES

/* The types of the modules above, strong references, NULL where the module
 * is not loaded. */
typedef struct known_types {
    bool looked_up;
    PyObject *datetime_capsule;
    PyDateTime_CAPI *datetime; /* the capsule's pointer, NULL for none */
    PyObject *decimal;
    PyObject *uuid;
    PyObject *enumeration;
    PyObject *dataclass_fields; /* dataclasses.fields */
    PyObject *ndarray;
    PyObject *memmap;
    PyObject *numpy_generic;
} known_types;

typedef struct sort_level sort_level;

typedef struct walker {
    fd_fingerprint_stream *stream;
    /* Where the encoding goes: the stream's sink, or a scratch buffer while
     * a dict's keys or a set's elements are encoded for their order. */
    fd_sink *out;
    known_types types;
    /* The buffers of each level of sorted containers, depth of them in
     * use (below). */
    sort_level **levels;
    size_t level_count;
    size_t depth;
} walker;

static int encode(walker *w, PyObject *obj);

/* ---- the types of loaded modules ---------------------------------------------- */

/* *value: a new reference to module_name.attribute if the module is in
 * sys.modules and has it, else NULL. -1 with an exception set on an error
 * of sys.modules itself. */
static int loaded_attribute(const char *module_name, const char *attribute, PyObject **value)
{
    *value = NULL;
    PyObject *name = PyUnicode_FromString(module_name);
    if (name == NULL)
        return -1;
    PyObject *module = PyImport_GetModule(name);
    Py_DECREF(name);
    if (module == NULL)
        return PyErr_Occurred() ? -1 : 0;
    *value = fd_optional_attribute(module, attribute);
    Py_DECREF(module);
    return *value == NULL && PyErr_Occurred() ? -1 : 0;
}

/* A loaded type, or NULL: anything else under that name is taken as no
 * type, since no object can be of it. */
static int loaded_type(const char *module_name, const char *attribute, PyObject **type)
{
    if (loaded_attribute(module_name, attribute, type) < 0)
        return -1;
    if (*type != NULL && !PyType_Check(*type))
        Py_CLEAR(*type);
    return 0;
}

static int look_up_types(known_types *types)
{
    if (types->looked_up)
        return 0;
    types->looked_up = true;
    /* The datetime types whose layout datetime.h's macros read: the C
     * implementation's, which its capsule names. */
    if (loaded_attribute("datetime", "datetime_CAPI", &types->datetime_capsule) < 0)
        return -1;
    if (types->datetime_capsule != NULL &&
        PyCapsule_IsValid(types->datetime_capsule, PyDateTime_CAPSULE_NAME))
        types->datetime = PyCapsule_GetPointer(types->datetime_capsule, PyDateTime_CAPSULE_NAME);
    if (loaded_type("decimal", "Decimal", &types->decimal) < 0 ||
        loaded_type("uuid", "UUID", &types->uuid) < 0 ||
        loaded_type("enum", "Enum", &types->enumeration) < 0 ||
        loaded_attribute("dataclasses", "fields", &types->dataclass_fields) < 0 ||
        loaded_type("numpy", "ndarray", &types->ndarray) < 0 ||
        loaded_type("numpy", "memmap", &types->memmap) < 0 ||
        loaded_type("numpy", "generic", &types->numpy_generic) < 0)
        return -1;
    return 0;
}

static void release_types(known_types *types)
{
    Py_CLEAR(types->datetime_capsule);
    Py_CLEAR(types->decimal);
    Py_CLEAR(types->uuid);
    Py_CLEAR(types->enumeration);
    Py_CLEAR(types->dataclass_fields);
    Py_CLEAR(types->ndarray);
    Py_CLEAR(types->memmap);
    Py_CLEAR(types->numpy_generic);
    /* PyDateTimeAPI, datetime.h's own pointer, is left alone: the capsule's
     * pointer is kept per call instead, so that no interpreter writes a
     * static another one reads. */
    (void)PyDateTimeAPI;
}

static bool is_subtype(PyTypeObject *type, PyObject *base)
{
    return base != NULL && PyType_IsSubtype(type, (PyTypeObject *)base);
}

/* "module.qualname" of a type, for messages: a new reference. */
static PyObject *type_name(PyTypeObject *type)
{
    PyObject *module = PyObject_GetAttrString((PyObject *)type, "__module__");
    PyObject *qualname = PyObject_GetAttrString((PyObject *)type, "__qualname__");
    PyObject *name = NULL;
    if (module != NULL && qualname != NULL && PyUnicode_Check(module) && PyUnicode_Check(qualname))
        name = PyUnicode_CompareWithASCIIString(module, "builtins") == 0
                   ? Py_NewRef(qualname)
                   : PyUnicode_FromFormat("%U.%U", module, qualname);
    Py_XDECREF(module);
    Py_XDECREF(qualname);
    if (name == NULL) {
        PyErr_Clear();
        name = PyUnicode_FromString(type->tp_name);
    }
    return name;
}

/* ---- bytes --------------------------------------------------------------------- */

static bool writing_to_stream(const walker *w)
{
    return w->out == &w->stream->sink;
}

/* len bytes that follow what is written: hashed in place when they are long
 * and the walk writes to the stream (without the GIL from the threshold of
 * set_gil_minsize()), else copied. The caller keeps them alive and
 * unmoved. */
static void put_payload(walker *w, const void *data, size_t len)
{
    if (!writing_to_stream(w) || len < IN_PLACE_MIN_BYTES) {
        fd_sink_write(w->out, data, len);
        return;
    }
    PyThreadState *saved = len >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
    fd_fingerprint_stream_in_place(w->stream, data, len);
    if (saved != NULL)
        PyEval_RestoreThread(saved);
}

static void put_sized(walker *w, uint8_t tag, const void *data, size_t len)
{
    fd_fingerprint_put_head(w->out, tag, len);
    put_payload(w, data, len);
}

/* The elements of a buffer in C order, without a tag or length: in place
 * when it is C-contiguous and needs no change, else copied element by
 * element through the sink. */
static int put_buffer_elements(walker *w, const Py_buffer *view, size_t swap_unit, bool swap,
                               bool boolean)
{
    if (!swap && !boolean && PyBuffer_IsContiguous(view, 'C')) {
        put_payload(w, view->buf, (size_t)view->len);
        return 0;
    }
    if (view->ndim > 64 || view->itemsize <= 0 || (view->ndim > 1 && view->shape == NULL)) {
        PyErr_SetString(PyExc_ValueError,
                        FUNCTION "(): a buffer of more than 64 dimensions, of items of no size, or "
                                 "without its shape");
        return -1;
    }
    /* PyBUF_RECORDS_RO asks for shape and strides; a C-contiguous exporter
     * may leave strides out, which are then the shape's. */
    int64_t shape[64], strides[64];
    int64_t stride = view->itemsize;
    for (int d = view->ndim - 1; d >= 0; d--) {
        shape[d] = view->shape != NULL ? view->shape[d] : view->len / view->itemsize;
        strides[d] = view->strides != NULL ? view->strides[d] : stride;
        stride *= shape[d];
    }
    const fd_fingerprint_strided array = {.data = view->buf,
                                          .ndim = view->ndim,
                                          .shape = shape,
                                          .strides = strides,
                                          .item_size = (size_t)view->itemsize,
                                          .swap_unit = swap_unit,
                                          .swap = swap,
                                          .boolean = boolean};
    PyThreadState *saved = (size_t)view->len >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
    fd_fingerprint_put_strided(w->out, &array);
    if (saved != NULL)
        PyEval_RestoreThread(saved);
    return 0;
}

/* bytes, bytearray and memoryview (and their subclasses): their bytes, in C
 * order for a memoryview of any shape. A bytearray or memoryview is held
 * exported meanwhile, so that it cannot be resized under the walk. */
static int put_bytes_like(walker *w, PyObject *obj)
{
    if (PyBytes_Check(obj)) {
        put_sized(w, FD_FP_BYTES, PyBytes_AS_STRING(obj), (size_t)PyBytes_GET_SIZE(obj));
        return 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0)
        return -1;
    fd_sink_byte(w->out, FD_FP_BYTES);
    fd_fingerprint_put_uvarint(w->out, (size_t)view.len);
    const int result = put_buffer_elements(w, &view, 1, false, false);
    PyBuffer_Release(&view);
    return result;
}

/* The code units of a str, for data/fingerprint.h. */
static int str_units(PyObject *obj, const void **units, size_t *length, int *unit_size)
{
    if (FD_UNICODE_READY(obj) < 0)
        return -1;
    *units = PyUnicode_DATA(obj);
    *length = (size_t)PyUnicode_GET_LENGTH(obj);
    *unit_size = (int)PyUnicode_KIND(obj);
    return 0;
}

static int put_str(walker *w, PyObject *obj)
{
    const void *units;
    size_t length;
    int unit_size;
    if (str_units(obj, &units, &length, &unit_size) < 0)
        return -1;
    if (PyUnicode_IS_ASCII(obj))
        put_sized(w, FD_FP_STR, units, length);
    else
        fd_fingerprint_put_str(w->out, units, length, unit_size);
    return 0;
}

/* uvarint of the UTF-8's length and the UTF-8 of a name (a module's, a class's,
 * a field's), which must be a str. */
static int put_name(walker *w, PyObject *name, const char *what)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, FUNCTION "(): %s is not a str but %.100s", what,
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    const void *units;
    size_t length;
    int unit_size;
    if (str_units(name, &units, &length, &unit_size) < 0)
        return -1;
    fd_fingerprint_put_text(w->out, units, length, unit_size);
    return 0;
}

/* A class's module and qualified name, as an enum member or a dataclass
 * instance names its class. */
static int put_class(walker *w, PyTypeObject *type)
{
    PyObject *module = PyObject_GetAttrString((PyObject *)type, "__module__");
    if (module == NULL)
        return -1;
    int result = put_name(w, module, "the class's __module__");
    Py_DECREF(module);
    if (result < 0)
        return -1;
    PyObject *qualname = PyObject_GetAttrString((PyObject *)type, "__qualname__");
    if (qualname == NULL)
        return -1;
    result = put_name(w, qualname, "the class's __qualname__");
    Py_DECREF(qualname);
    return result;
}

/* ---- numbers --------------------------------------------------------------------- */

/* int.method(obj, ...), the built-in method whatever a subclass defines. */
static PyObject *call_int_method(const char *method, PyObject *const *args, size_t nargs,
                                 PyObject *kwnames)
{
    PyObject *function = PyObject_GetAttrString((PyObject *)&PyLong_Type, method);
    if (function == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(function, args, nargs, kwnames);
    Py_DECREF(function);
    return result;
}

/* obj's two's complement in count bytes of the given order (signed), or
 * its count bytes (unsigned). */
static PyObject *int_to_bytes(PyObject *obj, Py_ssize_t count, const char *order, bool is_signed)
{
    PyObject *length = PyLong_FromSsize_t(count);
    PyObject *byteorder = PyUnicode_FromString(order);
    PyObject *kwnames = Py_BuildValue("(s)", "signed");
    PyObject *result = NULL;
    if (length != NULL && byteorder != NULL && kwnames != NULL) {
        PyObject *args[] = {obj, length, byteorder, is_signed ? Py_True : Py_False};
        result = call_int_method("to_bytes", args, 3, kwnames);
    }
    Py_XDECREF(length);
    Py_XDECREF(byteorder);
    Py_XDECREF(kwnames);
    return result;
}

/* An int outside int64's range: 'i' and the uvarint of its zigzag, 2n for
 * n >= 0 and -2n - 1 below, made of the zigzag's bytes. */
static int put_big_int(walker *w, PyObject *obj)
{
    const int negative = PyObject_RichCompareBool(obj, Py_False, Py_LT);
    if (negative < 0)
        return -1;
    PyObject *one = PyLong_FromLong(1);
    PyObject *magnitude = one != NULL ? (negative ? PyNumber_Negative(obj) : Py_NewRef(obj)) : NULL;
    PyObject *doubled = magnitude != NULL ? PyNumber_Lshift(magnitude, one) : NULL;
    PyObject *zigzag = doubled != NULL && negative ? PyNumber_Subtract(doubled, one)
                                                   : Py_XNewRef(doubled);
    Py_XDECREF(one);
    Py_XDECREF(magnitude);
    Py_XDECREF(doubled);
    if (zigzag == NULL)
        return -1;
    PyObject *args[] = {zigzag};
    PyObject *bits = call_int_method("bit_length", args, 1, NULL);
    const Py_ssize_t bit_count = bits != NULL ? PyLong_AsSsize_t(bits) : -1;
    Py_XDECREF(bits);
    PyObject *bytes = bit_count >= 0 ? int_to_bytes(zigzag, (bit_count + 7) / 8, "little", false)
                                     : NULL;
    Py_DECREF(zigzag);
    if (bytes == NULL)
        return -1;
    fd_sink_byte(w->out, FD_FP_INT);
    const uint8_t *little = (const uint8_t *)PyBytes_AS_STRING(bytes);
    const size_t len = (size_t)PyBytes_GET_SIZE(bytes);
    PyThreadState *saved = len >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
    fd_fingerprint_put_uvarint_bytes(w->out, little, len);
    if (saved != NULL)
        PyEval_RestoreThread(saved);
    Py_DECREF(bytes);
    return 0;
}

static int put_int(walker *w, PyObject *obj)
{
    int overflow;
    const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (overflow != 0)
        return put_big_int(w, obj);
    fd_fingerprint_put_int(w->out, value);
    return 0;
}

/* A digit of a Decimal's as_tuple(), 0 to 9. */
static int decimal_digit(PyObject *digit)
{
    const long value = PyLong_Check(digit) ? PyLong_AsLong(digit) : -1;
    if (value < 0 || value > 9) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, FUNCTION "(): a Decimal digit out of range");
        return -1;
    }
    return (int)value;
}

/* 'd', the sign (00 or 01), the kind, svarint(exponent) (0 but for a finite
 * number), uvarint(n) and the n digits of the coefficient or the NaN's
 * payload as ASCII, from Decimal.as_tuple(). */
static int put_decimal(walker *w, PyObject *obj)
{
    PyObject *as_tuple = PyObject_GetAttrString(w->types.decimal, "as_tuple");
    if (as_tuple == NULL)
        return -1;
    PyObject *parts = PyObject_CallOneArg(as_tuple, obj);
    Py_DECREF(as_tuple);
    if (parts == NULL)
        return -1;
    int result = -1;
    if (!PyTuple_Check(parts) || PyTuple_GET_SIZE(parts) != 3 ||
        !PyTuple_Check(PyTuple_GET_ITEM(parts, 1))) {
        PyErr_SetString(PyExc_TypeError, FUNCTION "(): Decimal.as_tuple() gave no (sign, digits, "
                                                  "exponent)");
        goto done;
    }
    const int sign = PyObject_IsTrue(PyTuple_GET_ITEM(parts, 0));
    PyObject *digits = PyTuple_GET_ITEM(parts, 1);
    PyObject *exponent = PyTuple_GET_ITEM(parts, 2);
    if (sign < 0)
        goto done;
    uint8_t kind = FD_FP_DECIMAL_FINITE;
    long long exponent_value = 0;
    if (PyUnicode_Check(exponent)) {
        /* 'F' infinity (whose digits, (0,), say nothing), 'n' NaN, 'N' sNaN. */
        if (PyUnicode_CompareWithASCIIString(exponent, "F") == 0)
            kind = FD_FP_DECIMAL_INFINITY;
        else if (PyUnicode_CompareWithASCIIString(exponent, "n") == 0)
            kind = FD_FP_DECIMAL_NAN;
        else if (PyUnicode_CompareWithASCIIString(exponent, "N") == 0)
            kind = FD_FP_DECIMAL_SIGNALING_NAN;
        else {
            PyErr_Format(PyExc_ValueError, FUNCTION "(): a Decimal exponent of %R", exponent);
            goto done;
        }
    }
    else {
        exponent_value = PyLong_AsLongLong(exponent);
        if (exponent_value == -1 && PyErr_Occurred())
            goto done;
    }
    const Py_ssize_t count = kind == FD_FP_DECIMAL_INFINITY ? 0 : PyTuple_GET_SIZE(digits);
    fd_fingerprint_put_decimal_head(w->out, sign != 0, kind, exponent_value, (size_t)count);
    for (Py_ssize_t i = 0; i < count; i++) {
        const int digit = decimal_digit(PyTuple_GET_ITEM(digits, i));
        if (digit < 0)
            goto done;
        fd_sink_byte(w->out, (uint8_t)('0' + digit));
    }
    result = 0;
done:
    Py_DECREF(parts);
    return result;
}

/* 'U' and the 16 bytes of the UUID, big-endian (uuid.UUID.bytes). */
static int put_uuid(walker *w, PyObject *obj)
{
    PyObject *value = PyObject_GetAttrString(obj, "int");
    if (value == NULL)
        return -1;
    PyObject *bytes = PyLong_Check(value) ? int_to_bytes(value, 17, "big", true) : NULL;
    Py_DECREF(value);
    if (bytes == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, FUNCTION "(): a UUID whose int is not an int");
        return -1;
    }
    /* 17 signed bytes: the first is the sign, 00 for 0 <= int < 2**128. */
    const uint8_t *raw = (const uint8_t *)PyBytes_AS_STRING(bytes);
    if (raw[0] != 0) {
        Py_DECREF(bytes);
        PyErr_SetString(PyExc_ValueError, FUNCTION "(): a UUID whose int is not 0 to 2**128 - 1");
        return -1;
    }
    fd_sink_byte(w->out, FD_FP_UUID);
    fd_sink_write(w->out, raw + 1, 16);
    Py_DECREF(bytes);
    return 0;
}

/* ---- dates and times ------------------------------------------------------------- */

/* The UTC offset of an aware datetime or time, in microseconds, in *offset:
 * 1 when it is aware (a tzinfo whose utcoffset() is not None), 0 when it is
 * naive, -1 with an exception set. */
static int utc_offset(PyObject *obj, int64_t *offset)
{
    PyObject *delta = PyObject_CallMethod(obj, "utcoffset", NULL);
    if (delta == NULL)
        return -1;
    if (delta == Py_None) {
        Py_DECREF(delta);
        return 0;
    }
    /* The datetime module checks that it is a timedelta of under a day. */
    *offset = fd_fingerprint_delta_microseconds(PyDateTime_DELTA_GET_DAYS(delta),
                                                PyDateTime_DELTA_GET_SECONDS(delta),
                                                PyDateTime_DELTA_GET_MICROSECONDS(delta));
    Py_DECREF(delta);
    return 1;
}

static int put_datetime(walker *w, PyObject *obj)
{
    const int64_t days = fd_fingerprint_days_from_civil(
        PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj), PyDateTime_GET_DAY(obj));
    const int64_t seconds = days * 86400 + PyDateTime_DATE_GET_HOUR(obj) * 3600 +
                            PyDateTime_DATE_GET_MINUTE(obj) * 60 + PyDateTime_DATE_GET_SECOND(obj);
    const int64_t microseconds = seconds * 1000000 + PyDateTime_DATE_GET_MICROSECOND(obj);
    int64_t offset = 0;
    const int aware = PyDateTime_DATE_GET_TZINFO(obj) != Py_None ? utc_offset(obj, &offset) : 0;
    if (aware < 0)
        return -1;
    fd_fingerprint_put_clock(w->out, FD_FP_DATETIME, microseconds, PyDateTime_DATE_GET_FOLD(obj),
                             aware, offset);
    return 0;
}

static int put_time(walker *w, PyObject *obj)
{
    const int64_t seconds = PyDateTime_TIME_GET_HOUR(obj) * 3600 +
                            PyDateTime_TIME_GET_MINUTE(obj) * 60 + PyDateTime_TIME_GET_SECOND(obj);
    const int64_t microseconds = seconds * 1000000 + PyDateTime_TIME_GET_MICROSECOND(obj);
    int64_t offset = 0;
    const int aware = PyDateTime_TIME_GET_TZINFO(obj) != Py_None ? utc_offset(obj, &offset) : 0;
    if (aware < 0)
        return -1;
    fd_fingerprint_put_clock(w->out, FD_FP_TIME, microseconds, PyDateTime_TIME_GET_FOLD(obj), aware,
                             offset);
    return 0;
}

/* 1 when obj was a date, time, datetime or timedelta and is written, 0 when
 * it is none of them, -1 with an exception set (a subclass, refused). */
static int put_temporal(walker *w, PyObject *obj)
{
    const PyDateTime_CAPI *api = w->types.datetime;
    PyTypeObject *type = Py_TYPE(obj);
    if (api == NULL)
        return 0;
    if (type == api->DateTimeType)
        return put_datetime(w, obj) < 0 ? -1 : 1;
    if (type == api->DateType) {
        fd_fingerprint_put_date(w->out, PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj),
                                PyDateTime_GET_DAY(obj));
        return 1;
    }
    if (type == api->TimeType)
        return put_time(w, obj) < 0 ? -1 : 1;
    if (type == api->DeltaType) {
        fd_fingerprint_put_timedelta(w->out, PyDateTime_DELTA_GET_DAYS(obj),
                                     PyDateTime_DELTA_GET_SECONDS(obj),
                                     PyDateTime_DELTA_GET_MICROSECONDS(obj));
        return 1;
    }
    PyTypeObject *bases[] = {api->DateType, api->TimeType, api->DeltaType};
    const char *base_names[] = {"datetime.date", "datetime.time", "datetime.timedelta"};
    for (size_t k = 0; k < 3; k++) {
        if (PyType_IsSubtype(type, bases[k])) {
            /* pandas.Timestamp and Timedelta are such subclasses, with
             * nanoseconds that the base type's fields would drop. */
            PyObject *name = type_name(type);
            if (name != NULL)
                PyErr_Format(PyExc_TypeError,
                             FUNCTION "() does not take %U, a subclass of %s: its own state "
                                      "would not be in the encoding; convert it to %s (or to "
                                      "another type docs/fingerprint.md lists) first",
                             name, base_names[k], base_names[k]);
            Py_XDECREF(name);
            return -1;
        }
    }
    return 0;
}

/* ---- containers ------------------------------------------------------------------ */

/* tag, uvarint(count) and the encoding of each of items[0..count). */
static int put_items(walker *w, uint8_t tag, PyObject *const *items, Py_ssize_t count)
{
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        return -1;
    fd_sink_byte(w->out, tag);
    fd_fingerprint_put_uvarint(w->out, (uint64_t)count);
    int result = 0;
    for (Py_ssize_t i = 0; i < count && result == 0; i++)
        result = encode(w, items[i]);
    Py_LeaveRecursiveCall();
    return result;
}

#ifndef Py_GIL_DISABLED
/* An item whose encoding runs no Python code and never releases the GIL (a
 * short str or bytes, an int of int64's range, a float, None, a bool, a
 * complex), written: 1; any other, not written: 0; -1 with an exception
 * set. */
static int put_plain(walker *w, PyObject *item)
{
    PyTypeObject *type = Py_TYPE(item);
    if (type == &PyUnicode_Type) {
        if (PyUnicode_IS_ASCII(item) && PyUnicode_GET_LENGTH(item) >= IN_PLACE_MIN_BYTES)
            return 0;
        return put_str(w, item) < 0 ? -1 : 1;
    }
    if (type == &PyLong_Type) {
        int overflow;
        const long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (value == -1 && PyErr_Occurred())
            return -1;
        if (overflow != 0)
            return 0;
        fd_fingerprint_put_int(w->out, value);
        return 1;
    }
    if (type == &PyFloat_Type) {
        fd_fingerprint_put_float(w->out, PyFloat_AS_DOUBLE(item));
        return 1;
    }
    if (item == Py_None || type == &PyBool_Type || type == &PyComplex_Type)
        return encode(w, item) < 0 ? -1 : 1;
    if (type == &PyBytes_Type && PyBytes_GET_SIZE(item) < IN_PLACE_MIN_BYTES) {
        put_sized(w, FD_FP_BYTES, PyBytes_AS_STRING(item), (size_t)PyBytes_GET_SIZE(item));
        return 1;
    }
    return 0;
}
#endif

static int put_list(walker *w, PyObject *list)
{
#ifdef Py_GIL_DISABLED
    /* A snapshot: the list locked while it is copied. */
    PyObject *items = PyList_AsTuple(list);
    if (items == NULL)
        return -1;
    const int result = put_items(w, FD_FP_LIST, PySequence_Fast_ITEMS(items),
                                 PyTuple_GET_SIZE(items));
    Py_DECREF(items);
    return result;
#else
    /* With the GIL, nothing changes the list while the walk runs no Python
     * code and keeps the GIL: its plain items are read in place, and at the
     * first other one the rest is taken into a snapshot, the list still as
     * it was at the start, before that item's encoding can run code. So the
     * result is a snapshot's, without a copy of a list of plain items. */
    const Py_ssize_t count = PyList_GET_SIZE(list);
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        return -1;
    fd_fingerprint_put_head(w->out, FD_FP_LIST, (uint64_t)count);
    Py_ssize_t i = 0;
    int result = 0;
    for (; i < count; i++) {
        result = put_plain(w, PyList_GET_ITEM(list, i));
        if (result <= 0)
            break;
    }
    if (result == 0 && i < count) {
        PyObject *rest = PyList_GetSlice(list, i, count);
        result = rest != NULL ? 0 : -1;
        for (Py_ssize_t k = 0; result == 0 && k < count - i; k++)
            result = encode(w, PyList_GET_ITEM(rest, k));
        Py_XDECREF(rest);
    }
    Py_LeaveRecursiveCall();
    return result < 0 ? -1 : 0;
#endif
}

/* The buffers of one level of sorted containers (a dict whose keys, or a
 * set whose elements, are being sorted; a container nested in one of its
 * keys or values is a level deeper), kept for the whole call: a list of
 * many small dicts allocates them once. */
typedef struct sort_level {
    fd_fingerprint_scratch scratch;
    fd_fingerprint_span *spans;
    size_t span_capacity;
    PyObject **items; /* a dict's keys and values, alternating */
    size_t item_capacity;
} sort_level;

/* Room in level for count spans and, with items, for count keys and values.
 * false when memory runs out (nothing set: the caller may hold a lock). */
static bool reserve(sort_level *level, size_t count, bool items)
{
    if (count > level->span_capacity) {
        fd_fingerprint_span *spans = PyMem_Realloc(level->spans, count * sizeof *spans);
        if (spans == NULL)
            return false;
        level->spans = spans;
        level->span_capacity = count;
    }
    if (items && 2 * count > level->item_capacity) {
        PyObject **grown = PyMem_Realloc(level->items, 2 * count * sizeof *grown);
        if (grown == NULL)
            return false;
        level->items = grown;
        level->item_capacity = 2 * count;
    }
    return true;
}

/* The next level's buffers (NULL with MemoryError set). Released with
 * release_level, in the reverse order. */
static sort_level *take_level(walker *w)
{
    if (w->depth == w->level_count) {
        sort_level **grown = PyMem_Realloc(w->levels, (w->level_count + 1) * sizeof *grown);
        sort_level *level = grown != NULL ? PyMem_Calloc(1, sizeof *level) : NULL;
        if (grown != NULL)
            w->levels = grown;
        if (level == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        fd_fingerprint_scratch_init(&level->scratch);
        w->levels[w->level_count++] = level;
    }
    sort_level *level = w->levels[w->depth];
    level->scratch.sink.used = 0;
    level->scratch.failed = false;
    w->depth++;
    return level;
}

static void release_level(walker *w)
{
    w->depth--;
}

static void free_levels(walker *w)
{
    for (size_t k = 0; k < w->level_count; k++) {
        fd_fingerprint_scratch_free(&w->levels[k]->scratch);
        PyMem_Free(w->levels[k]->spans);
        PyMem_Free(w->levels[k]->items);
        PyMem_Free(w->levels[k]);
    }
    PyMem_Free(w->levels);
}

/* The encodings of count spans of items into the level's scratch, span k
 * being the encodings of items[k * stride] to items[k * stride + per_span -
 * 1], as the level's spans in their canonical order (spans[j].index the
 * span's k). 0, or -1 with an exception set. */
static int encode_sorted(walker *w, PyObject *const *items, Py_ssize_t count, Py_ssize_t stride,
                         Py_ssize_t per_span, sort_level *level)
{
    fd_fingerprint_scratch *scratch = &level->scratch;
    fd_fingerprint_span *spans = level->spans;
    fd_sink *saved = w->out;
    w->out = &scratch->sink;
    size_t start = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        for (Py_ssize_t j = 0; j < per_span; j++) {
            if (encode(w, items[k * stride + j]) < 0) {
                w->out = saved;
                return -1;
            }
        }
        spans[k] = (fd_fingerprint_span){.len = scratch->sink.used - start, .index = (size_t)k};
        start = scratch->sink.used;
    }
    w->out = saved;
    if (scratch->failed) {
        PyErr_NoMemory();
        return -1;
    }
    /* The buffer has stopped moving: the spans can point into it. */
    start = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        spans[k].bytes = scratch->sink.buffer + start;
        start += spans[k].len;
    }
    fd_fingerprint_sort(spans, (size_t)count);
    return 0;
}

/* tag, uvarint(count) and count spans of items (as encode_sorted makes
 * them) in their canonical order: a set's elements, or a dict's entries
 * when two of its keys have one encoding. */
static int put_unordered(walker *w, uint8_t tag, PyObject *const *items, Py_ssize_t count,
                         Py_ssize_t stride, Py_ssize_t per_span)
{
    sort_level *level = take_level(w);
    if (level == NULL)
        return -1;
    if (!reserve(level, (size_t)count, false)) {
        release_level(w);
        PyErr_NoMemory();
        return -1;
    }
    const int result = encode_sorted(w, items, count, stride, per_span, level);
    if (result == 0) {
        fd_fingerprint_put_head(w->out, tag, (uint64_t)count);
        for (Py_ssize_t k = 0; k < count; k++)
            fd_sink_write(w->out, level->spans[k].bytes, level->spans[k].len);
    }
    release_level(w);
    return result;
}

static int put_set(walker *w, PyObject *set)
{
    /* A snapshot. list(set) reads an exact set's table under its lock; a
     * subclass is read through the built-in iterator, not its own. */
    PyObject *items;
    if (PyAnySet_CheckExact(set)) {
        items = PySequence_List(set);
    }
    else {
        PyObject *iterator = PySet_Type.tp_iter(set);
        items = iterator != NULL ? PySequence_List(iterator) : NULL;
        Py_XDECREF(iterator);
    }
    if (items == NULL)
        return -1;
    int result = -1;
    if (Py_EnterRecursiveCall(" while computing a fingerprint") == 0) {
        result = put_unordered(w, FD_FP_SET, PySequence_Fast_ITEMS(items), PyList_GET_SIZE(items),
                               1, 1);
        Py_LeaveRecursiveCall();
    }
    Py_DECREF(items);
    return result;
}

/* The dict's entries into the level's items, keys and values alternating,
 * each a new reference, read under the dict's lock: their count, or -1
 * with MemoryError set. */
static Py_ssize_t take_entries(PyObject *dict, sort_level *level)
{
    Py_ssize_t count = 0;
    bool no_memory = false;
    FD_BEGIN_CRITICAL_SECTION(dict);
    const Py_ssize_t size = PyDict_GET_SIZE(dict);
    if (reserve(level, (size_t)size, true)) {
        Py_ssize_t position = 0;
        PyObject *key, *value;
        while (count < size && PyDict_Next(dict, &position, &key, &value)) {
            level->items[2 * count] = Py_NewRef(key);
            level->items[2 * count + 1] = Py_NewRef(value);
            count++;
        }
    }
    else {
        no_memory = true;
    }
    FD_END_CRITICAL_SECTION();
    if (no_memory) {
        PyErr_NoMemory();
        return -1;
    }
    return count;
}

/* The keys' encodings sorted; when no two are equal, each key's bytes and
 * then its value's encoding, written on as it is made. Two keys of one
 * encoding (two NaN objects, equal to nothing, are two keys) are ordered by
 * their values: the entries, key and value, are then encoded whole and
 * sorted, which is the same order wherever keys differ (an encoding is
 * never the prefix of another). */
static int put_dict_entries(walker *w, sort_level *level, Py_ssize_t count)
{
    if (encode_sorted(w, level->items, count, 2, 1, level) < 0)
        return -1;
    const fd_fingerprint_span *spans = level->spans;
    for (Py_ssize_t k = 1; k < count; k++) {
        if (fd_fingerprint_compare(&spans[k - 1], &spans[k]) == 0)
            return put_unordered(w, FD_FP_DICT, level->items, count, 2, 2);
    }
    fd_fingerprint_put_head(w->out, FD_FP_DICT, (uint64_t)count);
    for (Py_ssize_t k = 0; k < count; k++) {
        fd_sink_write(w->out, spans[k].bytes, spans[k].len);
        if (encode(w, level->items[2 * spans[k].index + 1]) < 0)
            return -1;
    }
    return 0;
}

static int put_dict(walker *w, PyObject *dict)
{
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        return -1;
    int result = -1;
    sort_level *level = take_level(w);
    const Py_ssize_t count = level != NULL ? take_entries(dict, level) : -1;
    if (count >= 0) {
        result = put_dict_entries(w, level, count);
        for (Py_ssize_t i = 0; i < 2 * count; i++)
            Py_DECREF(level->items[i]);
    }
    if (level != NULL)
        release_level(w);
    Py_LeaveRecursiveCall();
    return result;
}

/* ---- enums and dataclasses ---------------------------------------------------------- */

/* 'E', the member's class (module and qualified name) and its value, the
 * _value_ that Class(value) looks the member up by (as pickle stores it). */
static int put_enum(walker *w, PyObject *obj)
{
    fd_sink_byte(w->out, FD_FP_ENUM);
    if (put_class(w, Py_TYPE(obj)) < 0)
        return -1;
    PyObject *value = PyObject_GetAttrString(obj, "_value_");
    if (value == NULL)
        return -1;
    int result = -1;
    if (Py_EnterRecursiveCall(" while computing a fingerprint") == 0) {
        result = encode(w, value);
        Py_LeaveRecursiveCall();
    }
    Py_DECREF(value);
    return result;
}

/* The names of the fields of a dataclass instance that take part in its
 * comparisons (compare=True), in the class's order: a new list. */
static PyObject *compared_fields(walker *w, PyObject *obj)
{
    PyObject *fields = PyObject_CallOneArg(w->types.dataclass_fields, obj);
    if (fields == NULL)
        return NULL;
    PyObject *sequence = PySequence_Fast(fields, FUNCTION "(): dataclasses.fields() gave no "
                                                          "sequence");
    Py_DECREF(fields);
    if (sequence == NULL)
        return NULL;
    PyObject *names = PyList_New(0);
    for (Py_ssize_t i = 0; names != NULL && i < PySequence_Fast_GET_SIZE(sequence); i++) {
        PyObject *field = PySequence_Fast_GET_ITEM(sequence, i);
        PyObject *compare = PyObject_GetAttrString(field, "compare");
        const int compared = compare != NULL ? PyObject_IsTrue(compare) : -1;
        Py_XDECREF(compare);
        PyObject *name = compared > 0 ? PyObject_GetAttrString(field, "name") : NULL;
        if (compared < 0 || (compared > 0 && (name == NULL || PyList_Append(names, name) < 0)))
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    Py_DECREF(sequence);
    return names;
}

/* 'C', the class (module and qualified name), uvarint(count) and for each
 * compared field its name and its value's encoding, each value read (with
 * getattr) as the walk reaches it. */
static int put_dataclass(walker *w, PyObject *obj)
{
    PyObject *names = compared_fields(w, obj);
    if (names == NULL)
        return -1;
    int result = -1;
    fd_sink_byte(w->out, FD_FP_DATACLASS);
    if (put_class(w, Py_TYPE(obj)) < 0)
        goto done;
    const Py_ssize_t count = PyList_GET_SIZE(names);
    fd_fingerprint_put_uvarint(w->out, (uint64_t)count);
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        goto done;
    result = 0;
    for (Py_ssize_t i = 0; i < count && result == 0; i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        PyObject *value = NULL;
        result = put_name(w, name, "a dataclass field's name");
        if (result == 0)
            value = PyObject_GetAttr(obj, name);
        if (result == 0 && value == NULL)
            result = -1;
        if (result == 0)
            result = encode(w, value);
        Py_XDECREF(value);
    }
    Py_LeaveRecursiveCall();
done:
    Py_DECREF(names);
    return result;
}

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
            PyErr_Format(PyExc_TypeError, FUNCTION "(): a NumPy dtype whose %s is not a str",
                         attribute);
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
    PyErr_Format(PyExc_TypeError, FUNCTION "() does not take NumPy arrays of dtype %R: %s", dtype,
                 why);
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
static int put_object_elements(walker *w, PyObject *array)
{
    PyObject *flat = PyObject_CallMethod(array, "ravel", NULL);
    PyObject *items = flat != NULL ? PyObject_CallMethod(flat, "tolist", NULL) : NULL;
    Py_XDECREF(flat);
    if (items == NULL)
        return -1;
    int result = -1;
    if (!PyList_Check(items)) {
        PyErr_SetString(PyExc_TypeError, FUNCTION "(): ndarray.tolist() gave no list");
    }
    else if (Py_EnterRecursiveCall(" while computing a fingerprint") == 0) {
        result = 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && result == 0; i++)
            result = encode(w, PyList_GET_ITEM(items, i));
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
static int put_numpy_values(walker *w, PyObject *array, const numpy_dtype *dtype,
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
        PyErr_SetString(PyExc_ValueError, FUNCTION "(): a NumPy buffer of another item size");
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
    result = put_buffer_elements(w, &item, unit == 0 ? 1 : unit, big_endian && unit > 1,
                                 dtype->kind == 'b');
done:
    PyBuffer_Release(&view);
    return result;
}

/* An ndarray ('n': typestr, uvarint(ndim), uvarint of each dimension and the
 * values in C order), or with scalar a NumPy scalar ('g': the typestr of the
 * scalar's dtype and its value), read from array, the scalar's 0-d array. */
static int put_numpy(walker *w, PyObject *array, PyObject *scalar)
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
static int put_numpy_object(walker *w, PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    const known_types *types = &w->types;
    if (types->ndarray == NULL)
        return 0;
    if ((PyObject *)type == types->ndarray || (PyObject *)type == types->memmap)
        return put_numpy(w, obj, NULL) < 0 ? -1 : 1;
    if (is_subtype(type, types->ndarray)) {
        /* numpy.ma.MaskedArray's mask, numpy.matrix's meaning: state the
         * buffer does not have. */
        PyObject *name = type_name(type);
        if (name != NULL)
            PyErr_Format(PyExc_TypeError,
                         FUNCTION "() does not take %U, a subclass of numpy.ndarray whose own "
                                  "state would not be in the encoding: pass numpy.asarray() of it "
                                  "if its data alone is what counts",
                         name);
        Py_XDECREF(name);
        return -1;
    }
    if (is_subtype(type, types->numpy_generic)) {
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
        fd_raise_arrow_error(error, FUNCTION);
}

/* The rows of one array of type: checked, then written, without the GIL for
 * a long one. */
static int put_arrow_array(walker *w, const struct ArrowArray *array, const fd_arrow_type *type)
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

static fd_arrow_type *put_arrow_type(walker *w, const struct ArrowSchema *schema)
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

static int put_arrow_stream(walker *w, PyObject *method)
{
    struct ArrowArrayStream stream;
    if (fd_take_stream(method, &stream, FUNCTION) < 0)
        return -1;
    struct ArrowSchema schema;
    int code = stream.get_schema(&stream, &schema);
    if (code != 0) {
        fd_raise_stream_error(&stream, code, FUNCTION);
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
            fd_raise_stream_error(&stream, code, FUNCTION);
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

static int put_arrow_array_object(walker *w, PyObject *method)
{
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (fd_take_array(method, &schema, &array, FUNCTION) < 0)
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
static int put_arrow(walker *w, PyObject *obj)
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

/* ---- the walk ------------------------------------------------------------------------ */

static int refuse(PyObject *obj)
{
    PyObject *name = type_name(Py_TYPE(obj));
    if (name != NULL)
        PyErr_Format(PyExc_TypeError,
                     FUNCTION "() cannot encode an object of type %U: the encoding has no rule "
                              "for it (docs/fingerprint.md lists the types it has), and never "
                              "falls back to repr() or pickle; convert it to one of them first",
                     name);
    Py_XDECREF(name);
    return -1;
}

/* Whether type is a dataclass (its instances, not the class itself). */
static int is_dataclass_instance(walker *w, PyObject *obj)
{
    if (w->types.dataclass_fields == NULL || PyType_Check(obj))
        return 0;
    PyObject *fields = fd_optional_attribute((PyObject *)Py_TYPE(obj), "__dataclass_fields__");
    if (fields == NULL)
        return PyErr_Occurred() ? -1 : 0;
    Py_DECREF(fields);
    return 1;
}

/* Everything but the exact built-in types, in the order docs/fingerprint.md
 * gives: NumPy, enums, dates and times, then subclasses of the built-in
 * types as those types, then Decimal, UUID, dataclasses and Arrow. */
static int encode_other(walker *w, PyObject *obj)
{
    if (look_up_types(&w->types) < 0)
        return -1;
    PyTypeObject *type = Py_TYPE(obj);
    int done = put_numpy_object(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    if (is_subtype(type, w->types.enumeration))
        return put_enum(w, obj);
    done = put_temporal(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    if (PyLong_Check(obj))
        return put_int(w, obj);
    if (PyFloat_Check(obj)) {
        fd_fingerprint_put_float(w->out, PyFloat_AS_DOUBLE(obj));
        return 0;
    }
    if (PyComplex_Check(obj)) {
        const Py_complex value = ((PyComplexObject *)obj)->cval;
        fd_fingerprint_put_complex(w->out, value.real, value.imag);
        return 0;
    }
    if (PyUnicode_Check(obj))
        return put_str(w, obj);
    if (PyBytes_Check(obj) || PyByteArray_Check(obj))
        return put_bytes_like(w, obj);
    if (PyList_Check(obj))
        return put_list(w, obj);
    if (PyTuple_Check(obj))
        return put_items(w, FD_FP_TUPLE, PySequence_Fast_ITEMS(obj), PyTuple_GET_SIZE(obj));
    if (PyDict_Check(obj))
        return put_dict(w, obj);
    if (PyAnySet_Check(obj))
        return put_set(w, obj);
    if (is_subtype(type, w->types.decimal))
        return put_decimal(w, obj);
    if (is_subtype(type, w->types.uuid))
        return put_uuid(w, obj);
    done = is_dataclass_instance(w, obj);
    if (done != 0)
        return done < 0 ? -1 : put_dataclass(w, obj);
    done = put_arrow(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    return refuse(obj);
}

static int encode(walker *w, PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyUnicode_Type)
        return put_str(w, obj);
    if (type == &PyLong_Type)
        return put_int(w, obj);
    if (type == &PyFloat_Type) {
        fd_fingerprint_put_float(w->out, PyFloat_AS_DOUBLE(obj));
        return 0;
    }
    if (type == &PyList_Type)
        return put_list(w, obj);
    if (type == &PyDict_Type)
        return put_dict(w, obj);
    if (type == &PyTuple_Type)
        return put_items(w, FD_FP_TUPLE, PySequence_Fast_ITEMS(obj), PyTuple_GET_SIZE(obj));
    if (obj == Py_None) {
        fd_sink_byte(w->out, FD_FP_NONE);
        return 0;
    }
    if (type == &PyBool_Type) {
        fd_sink_byte(w->out, obj == Py_True ? FD_FP_TRUE : FD_FP_FALSE);
        return 0;
    }
    if (type == &PyBytes_Type || type == &PyByteArray_Type || type == &PyMemoryView_Type)
        return put_bytes_like(w, obj);
    if (type == &PySet_Type || type == &PyFrozenSet_Type)
        return put_set(w, obj);
    if (type == &PyComplex_Type) {
        const Py_complex value = ((PyComplexObject *)obj)->cval;
        fd_fingerprint_put_complex(w->out, value.real, value.imag);
        return 0;
    }
    return encode_other(w, obj);
}

/* ---- the function ------------------------------------------------------------------- */

PyDoc_STRVAR(fingerprint_doc,
             "fingerprint($module, name, obj, /, *, hex=False)\n--\n\n"
             "Return the digest of a Python value under the fingerprint encoding.\n\n"
             "name is an algorithm name, as new() takes it, or one of fastdigest's\n"
             "constructors. obj is None, a bool, int, float, complex, str, bytes,\n"
             "bytearray or memoryview, a list, tuple, dict, set or frozenset of such\n"
             "values, a datetime.date, time, datetime or timedelta, a decimal.Decimal,\n"
             "a uuid.UUID, an enum member, a dataclass instance, a NumPy array or\n"
             "scalar, or an object with the Arrow PyCapsule interface (a pyarrow, polars\n"
             "or pandas table or column, a DuckDB relation). Each value is written with\n"
             "its type, so that no two different values give the same bytes (1, 1.0,\n"
             "True, '1', b'1', [1], (1,) and {1} all differ), a dict's keys and a set's\n"
             "elements in an order of their own, and the bytes are the same in every\n"
             "process, platform, Python version and fastdigest release:\n"
             "docs/fingerprint.md defines them, version 1.\n\n"
             "Returns the digest as bytes, or with hex=True as a str of lowercase hex\n"
             "digits. Raises TypeError for an object of a type the encoding has no rule\n"
             "for (never falling back to repr() or pickle), RecursionError for nesting\n"
             "deeper than the interpreter's recursion limit (a container that holds\n"
             "itself), ValueError for malformed Arrow data.");

static PyObject *fingerprint(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    /* name and obj are positional-only, counted here; hex by keyword. */
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, FUNCTION " expected 2 positional arguments, got %zd", nargs);
        return NULL;
    }
    static const char *const names[] = {"hex"};
    static const fd_signature signature = {.function = FUNCTION, FD_PARAMETERS(names)};
    PyObject *bound[1];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return NULL;
    int hex = 0;
    if (bound[0] != NULL && (hex = PyObject_IsTrue(bound[0])) < 0)
        return NULL;
    const int id = fd_algorithm_from_object(module, args[0], FUNCTION, "1");
    if (id < 0)
        return NULL;

    /* The stream's buffer is on the heap: the walk recurses on the stack. */
    fd_fingerprint_stream *stream = PyMem_Malloc(sizeof *stream);
    if (stream == NULL)
        return PyErr_NoMemory();
    fd_fingerprint_stream_init(stream, (enum fd_algorithm_id)id);
    walker w = {.stream = stream, .out = &stream->sink};
    const int result = encode(&w, args[1]);
    release_types(&w.types);
    free_levels(&w);
    PyObject *digest = NULL;
    if (result == 0) {
        uint8_t out[FD_MAX_DIGEST_LEN];
        const size_t digest_len = stream->algorithm->digest_len;
        fd_fingerprint_stream_final(stream, out);
        digest = hex ? fd_hex_string(out, digest_len)
                     : PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)digest_len);
    }
    PyMem_Free(stream);
    return digest;
}

static PyMethodDef fingerprint_methods[] = {
    {"fingerprint", (PyCFunction)(void (*)(void))fingerprint, METH_FASTCALL | METH_KEYWORDS,
     fingerprint_doc},
    {NULL, NULL, 0, NULL},
};

int fd_fingerprint_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, fingerprint_methods);
}
