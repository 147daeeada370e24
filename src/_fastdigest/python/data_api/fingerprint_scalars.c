/* fingerprint()'s rules for the values read from one object each: bytes,
 * bytearray and memoryview; str; int, Decimal and UUID; dates, times,
 * datetimes and timedeltas; enum members and dataclass instances, which
 * name their class. Apart from the walk (fingerprint.c) because each is one
 * row of docs/fingerprint.md's table, reading one object's state, and none
 * decides what the walk reads next: an enum's value and a dataclass's
 * fields go back to fd_walk_encode. Here too are the writers of long runs
 * of bytes that the containers and the arrays share (hashed in place, the
 * GIL released). */
#include "python/data_api/fingerprint.h"

#include <datetime.h>

/* ---- bytes --------------------------------------------------------------------- */

static bool writing_to_stream(const fd_walker *w)
{
    return w->out == &w->stream->sink;
}

/* len bytes that follow what is written: hashed in place when they are long
 * and the walk writes to the stream (without the GIL from the threshold of
 * set_gil_minsize()), else copied. The caller keeps them alive and
 * unmoved. */
static void put_payload(fd_walker *w, const void *data, size_t len)
{
    if (!writing_to_stream(w) || len < FD_WALK_IN_PLACE_MIN_BYTES) {
        fd_sink_write(w->out, data, len);
        return;
    }
    PyThreadState *saved = len >= fd_gil_minsize() ? PyEval_SaveThread() : NULL;
    fd_fingerprint_stream_in_place(w->stream, data, len);
    if (saved != NULL)
        PyEval_RestoreThread(saved);
}

void fd_walk_put_sized(fd_walker *w, uint8_t tag, const void *data, size_t len)
{
    fd_fingerprint_put_head(w->out, tag, len);
    put_payload(w, data, len);
}

/* The elements of a buffer in C order, without a tag or length: in place
 * when it is C-contiguous and needs no change, else copied element by
 * element through the sink. */
int fd_walk_put_buffer_elements(fd_walker *w, const Py_buffer *view, size_t swap_unit, bool swap,
                                bool boolean)
{
    if (!swap && !boolean && PyBuffer_IsContiguous(view, 'C')) {
        put_payload(w, view->buf, (size_t)view->len);
        return 0;
    }
    if (view->ndim > 64 || view->itemsize <= 0 || (view->ndim > 1 && view->shape == NULL)) {
        PyErr_SetString(PyExc_ValueError, FD_WALK_FUNCTION
                        "(): a buffer of more than 64 dimensions, of items of no size, or "
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
int fd_walk_put_bytes_like(fd_walker *w, PyObject *obj)
{
    if (PyBytes_Check(obj)) {
        fd_walk_put_sized(w, FD_FP_BYTES, PyBytes_AS_STRING(obj), (size_t)PyBytes_GET_SIZE(obj));
        return 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0)
        return -1;
    fd_sink_byte(w->out, FD_FP_BYTES);
    fd_fingerprint_put_uvarint(w->out, (size_t)view.len);
    const int result = fd_walk_put_buffer_elements(w, &view, 1, false, false);
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

int fd_walk_put_str(fd_walker *w, PyObject *obj)
{
    const void *units;
    size_t length;
    int unit_size;
    if (str_units(obj, &units, &length, &unit_size) < 0)
        return -1;
    if (!PyUnicode_IS_ASCII(obj))
        fd_fingerprint_put_str(w->out, units, length, unit_size);
    else if (!fd_fingerprint_put_short(w->out, FD_FP_STR, units, length))
        fd_walk_put_sized(w, FD_FP_STR, units, length);
    return 0;
}

/* uvarint of the UTF-8's length and the UTF-8 of a name (a module's, a class's,
 * a field's), which must be a str. */
static int put_name(fd_walker *w, PyObject *name, const char *what)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, FD_WALK_FUNCTION "(): %s is not a str but %.100s", what,
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
static int put_class(fd_walker *w, PyTypeObject *type)
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
static int put_big_int(fd_walker *w, PyObject *obj)
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

int fd_walk_put_int(fd_walker *w, PyObject *obj)
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
            PyErr_SetString(PyExc_ValueError, FD_WALK_FUNCTION "(): a Decimal digit out of range");
        return -1;
    }
    return (int)value;
}

/* 'd', the sign (00 or 01), the kind, svarint(exponent) (0 but for a finite
 * number), uvarint(n) and the n digits of the coefficient or the NaN's
 * payload as ASCII, from Decimal.as_tuple(). */
int fd_walk_put_decimal(fd_walker *w, PyObject *obj)
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
        PyErr_SetString(PyExc_TypeError,
                        FD_WALK_FUNCTION "(): Decimal.as_tuple() gave no (sign, digits, "
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
            PyErr_Format(PyExc_ValueError, FD_WALK_FUNCTION "(): a Decimal exponent of %R",
                         exponent);
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
int fd_walk_put_uuid(fd_walker *w, PyObject *obj)
{
    PyObject *value = PyObject_GetAttrString(obj, "int");
    if (value == NULL)
        return -1;
    PyObject *bytes = PyLong_Check(value) ? int_to_bytes(value, 17, "big", true) : NULL;
    Py_DECREF(value);
    if (bytes == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, FD_WALK_FUNCTION "(): a UUID whose int is not an int");
        return -1;
    }
    /* 17 signed bytes: the first is the sign, 00 for 0 <= int < 2**128. */
    const uint8_t *raw = (const uint8_t *)PyBytes_AS_STRING(bytes);
    if (raw[0] != 0) {
        Py_DECREF(bytes);
        PyErr_SetString(PyExc_ValueError,
                        FD_WALK_FUNCTION "(): a UUID whose int is not 0 to 2**128 - 1");
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

static int put_datetime(fd_walker *w, PyObject *obj)
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

static int put_time(fd_walker *w, PyObject *obj)
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
int fd_walk_put_temporal(fd_walker *w, PyObject *obj)
{
    const PyDateTime_CAPI *api = w->types.datetime;
    /* datetime.h's own pointer stays unset: fingerprint.c's release_types
     * says why. */
    (void)PyDateTimeAPI;
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
            PyObject *name = fd_walk_type_name(type);
            if (name != NULL)
                PyErr_Format(PyExc_TypeError,
                             FD_WALK_FUNCTION
                             "() does not take %U, a subclass of %s: its own state "
                             "would not be in the encoding; convert it to %s (or to "
                             "another type docs/fingerprint.md lists) first",
                             name, base_names[k], base_names[k]);
            Py_XDECREF(name);
            return -1;
        }
    }
    return 0;
}

/* ---- enums and dataclasses ---------------------------------------------------------- */

/* 'E', the member's class (module and qualified name) and its value, the
 * _value_ that Class(value) looks the member up by (as pickle stores it). */
int fd_walk_put_enum(fd_walker *w, PyObject *obj)
{
    fd_sink_byte(w->out, FD_FP_ENUM);
    if (put_class(w, Py_TYPE(obj)) < 0)
        return -1;
    PyObject *value = PyObject_GetAttrString(obj, "_value_");
    if (value == NULL)
        return -1;
    int result = -1;
    if (Py_EnterRecursiveCall(" while computing a fingerprint") == 0) {
        result = fd_walk_encode(w, value);
        Py_LeaveRecursiveCall();
    }
    Py_DECREF(value);
    return result;
}

/* The names of the fields of a dataclass instance that take part in its
 * comparisons (compare=True), in the class's order: a new list. */
static PyObject *compared_fields(fd_walker *w, PyObject *obj)
{
    PyObject *fields = PyObject_CallOneArg(w->types.dataclass_fields, obj);
    if (fields == NULL)
        return NULL;
    PyObject *sequence = PySequence_Fast(fields,
                                         FD_WALK_FUNCTION "(): dataclasses.fields() gave no "
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
int fd_walk_put_dataclass(fd_walker *w, PyObject *obj)
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
            result = fd_walk_encode(w, value);
        Py_XDECREF(value);
    }
    Py_LeaveRecursiveCall();
done:
    Py_DECREF(names);
    return result;
}
