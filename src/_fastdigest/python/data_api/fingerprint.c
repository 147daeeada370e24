/* fingerprint(name, obj, /, *, hex=False): the digest of a Python value
 * under the encoding docs/fingerprint.md defines. This file holds the call,
 * the walk that picks each object's rule, and the containers, which decide
 * what is read and when. The rules that turn one object into bytes are
 * apart, one file for each part of docs/fingerprint.md's rules:
 * fingerprint_scalars.c (bytes, str, numbers, dates and times, enum
 * members, dataclass instances) and fingerprint_arrays.c (NumPy and
 * Arrow), which come back to the walk only for the values inside theirs
 * (python/data_api/fingerprint.h holds what they share). data/fingerprint.h writes
 * the bytes, and hashes them through a bounded buffer as they are written.
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
#include "python/data_api/fingerprint.h"

#include <datetime.h>

#include "python/data_api/arrow_capsules.h"

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

static int look_up_types(fd_walk_types *types)
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

static void release_types(fd_walk_types *types)
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

/* "module.qualname" of a type, for messages: a new reference. */
PyObject *fd_walk_type_name(PyTypeObject *type)
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

/* ---- containers ------------------------------------------------------------------ */

/* tag, uvarint(count) and the encoding of each of items[0..count). */
static int put_items(fd_walker *w, uint8_t tag, PyObject *const *items, Py_ssize_t count)
{
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        return -1;
    fd_sink_byte(w->out, tag);
    fd_fingerprint_put_uvarint(w->out, (uint64_t)count);
    int result = 0;
    for (Py_ssize_t i = 0; i < count && result == 0; i++)
        result = fd_walk_encode(w, items[i]);
    Py_LeaveRecursiveCall();
    return result;
}

#ifndef Py_GIL_DISABLED
/* An item whose encoding runs no Python code and never releases the GIL (a
 * short str or bytes, an int of int64's range, a float, None, a bool, a
 * complex), written: 1; any other, not written: 0; -1 with an exception
 * set. */
static int put_plain(fd_walker *w, PyObject *item)
{
    PyTypeObject *type = Py_TYPE(item);
    if (type == &PyUnicode_Type) {
        if (PyUnicode_IS_ASCII(item) && PyUnicode_GET_LENGTH(item) >= FD_WALK_IN_PLACE_MIN_BYTES)
            return 0;
        return fd_walk_put_str(w, item) < 0 ? -1 : 1;
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
        return fd_walk_encode(w, item) < 0 ? -1 : 1;
    if (type == &PyBytes_Type && PyBytes_GET_SIZE(item) < FD_WALK_IN_PLACE_MIN_BYTES) {
        fd_walk_put_sized(w, FD_FP_BYTES, PyBytes_AS_STRING(item), (size_t)PyBytes_GET_SIZE(item));
        return 1;
    }
    return 0;
}
#endif

#ifndef Py_GIL_DISABLED
/* The room the longest short item takes: a str's tag, length and code
 * units, more than an int's tag and varint. */
#define SHORT_ITEM_ROOM (2 + FD_FINGERPRINT_SHORT_MAX)

/* The items from items[0] on while each is a compact ASCII str of at most
 * FD_FINGERPRINT_SHORT_MAX code units or an int of int64's range, and out
 * has room for the longest such: the count written, or -1 with an
 * exception set. The strs and small ints that most lists are made of are
 * built through a cursor the compiler keeps in a register, which it would
 * not keep in out: a byte written may be any memory, out's fields too, as
 * it sees it. */
static Py_ssize_t put_short_items(fd_sink *out, PyObject *const *items, Py_ssize_t count)
{
    uint8_t *at = out->buffer + out->used;
    const uint8_t *const end = out->buffer + out->capacity;
    Py_ssize_t i = 0;
    for (; i < count && end - at >= SHORT_ITEM_ROOM; i++) {
        PyObject *item = items[i];
        PyTypeObject *type = Py_TYPE(item);
        if (type == &PyUnicode_Type && PyUnicode_IS_COMPACT_ASCII(item) &&
            PyUnicode_GET_LENGTH(item) <= FD_FINGERPRINT_SHORT_MAX) {
            /* A compact ASCII str's code units are its UTF-8. */
            at = fd_fingerprint_short_at(at, FD_FP_STR, PyUnicode_DATA(item),
                                         (size_t)PyUnicode_GET_LENGTH(item));
            continue;
        }
        if (type != &PyLong_Type)
            break;
#ifdef FD_HAVE_COMPACT_LONG
        if (PyUnstable_Long_IsCompact((PyLongObject *)item)) {
            at = fd_fingerprint_int_at(at, PyUnstable_Long_CompactValue((PyLongObject *)item));
            continue;
        }
#endif
        int overflow;
        const long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow != 0)
            break;
        if (value == -1 && PyErr_Occurred()) {
            i = -1;
            break;
        }
        at = fd_fingerprint_int_at(at, value);
    }
    out->used = (size_t)(at - out->buffer);
    return i;
}
#endif

static int put_list(fd_walker *w, PyObject *list)
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
    while (i < count) {
        const Py_ssize_t done = put_short_items(w->out, PySequence_Fast_ITEMS(list) + i, count - i);
        if (done < 0) {
            result = -1;
            break;
        }
        i += done;
        if (i == count)
            break;
        result = put_plain(w, PyList_GET_ITEM(list, i));
        if (result <= 0)
            break;
        i++;
    }
    if (result == 0 && i < count) {
        PyObject *rest = PyList_GetSlice(list, i, count);
        result = rest != NULL ? 0 : -1;
        for (Py_ssize_t k = 0; result == 0 && k < count - i; k++)
            result = fd_walk_encode(w, PyList_GET_ITEM(rest, k));
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
typedef struct fd_walk_sort_level {
    fd_fingerprint_scratch scratch;
    fd_fingerprint_span *spans;
    size_t span_capacity;
    PyObject **items; /* a dict's keys and values, alternating */
    size_t item_capacity;
} fd_walk_sort_level;

/* Room in level for count spans and, with items, for count keys and values.
 * false when memory runs out (nothing set: the caller may hold a lock). */
static bool reserve(fd_walk_sort_level *level, size_t count, bool items)
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
static fd_walk_sort_level *take_level(fd_walker *w)
{
    if (w->depth == w->level_count) {
        fd_walk_sort_level **grown = PyMem_Realloc(w->levels, (w->level_count + 1) * sizeof *grown);
        fd_walk_sort_level *level = grown != NULL ? PyMem_Calloc(1, sizeof *level) : NULL;
        if (grown != NULL)
            w->levels = grown;
        if (level == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        fd_fingerprint_scratch_init(&level->scratch);
        w->levels[w->level_count++] = level;
    }
    fd_walk_sort_level *level = w->levels[w->depth];
    level->scratch.sink.used = 0;
    level->scratch.failed = false;
    w->depth++;
    return level;
}

static void release_level(fd_walker *w)
{
    w->depth--;
}

static void free_levels(fd_walker *w)
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
static int encode_sorted(fd_walker *w, PyObject *const *items, Py_ssize_t count, Py_ssize_t stride,
                         Py_ssize_t per_span, fd_walk_sort_level *level)
{
    fd_fingerprint_scratch *scratch = &level->scratch;
    fd_fingerprint_span *spans = level->spans;
    fd_sink *saved = w->out;
    w->out = &scratch->sink;
    size_t start = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        for (Py_ssize_t j = 0; j < per_span; j++) {
            if (fd_walk_encode(w, items[k * stride + j]) < 0) {
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
static int put_unordered(fd_walker *w, uint8_t tag, PyObject *const *items, Py_ssize_t count,
                         Py_ssize_t stride, Py_ssize_t per_span)
{
    fd_walk_sort_level *level = take_level(w);
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

static int put_set(fd_walker *w, PyObject *set)
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
static Py_ssize_t take_entries(PyObject *dict, fd_walk_sort_level *level)
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
static int put_dict_entries(fd_walker *w, fd_walk_sort_level *level, Py_ssize_t count)
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
        if (fd_walk_encode(w, level->items[2 * spans[k].index + 1]) < 0)
            return -1;
    }
    return 0;
}

static int put_dict(fd_walker *w, PyObject *dict)
{
    if (Py_EnterRecursiveCall(" while computing a fingerprint"))
        return -1;
    int result = -1;
    fd_walk_sort_level *level = take_level(w);
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

/* ---- the walk ------------------------------------------------------------------------ */

static int refuse(PyObject *obj)
{
    PyObject *name = fd_walk_type_name(Py_TYPE(obj));
    if (name != NULL)
        PyErr_Format(PyExc_TypeError,
                     FD_WALK_FUNCTION
                     "() cannot encode an object of type %U: the encoding has no rule "
                     "for it (docs/fingerprint.md lists the types it has), and never "
                     "falls back to repr() or pickle; convert it to one of them first",
                     name);
    Py_XDECREF(name);
    return -1;
}

/* Whether type is a dataclass (its instances, not the class itself). */
static int is_dataclass_instance(fd_walker *w, PyObject *obj)
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
static int encode_other(fd_walker *w, PyObject *obj)
{
    if (look_up_types(&w->types) < 0)
        return -1;
    PyTypeObject *type = Py_TYPE(obj);
    int done = fd_walk_put_numpy_object(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    if (fd_walk_is_subtype(type, w->types.enumeration))
        return fd_walk_put_enum(w, obj);
    done = fd_walk_put_temporal(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    if (PyLong_Check(obj))
        return fd_walk_put_int(w, obj);
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
        return fd_walk_put_str(w, obj);
    if (PyBytes_Check(obj) || PyByteArray_Check(obj))
        return fd_walk_put_bytes_like(w, obj);
    if (PyList_Check(obj))
        return put_list(w, obj);
    if (PyTuple_Check(obj))
        return put_items(w, FD_FP_TUPLE, PySequence_Fast_ITEMS(obj), PyTuple_GET_SIZE(obj));
    if (PyDict_Check(obj))
        return put_dict(w, obj);
    if (PyAnySet_Check(obj))
        return put_set(w, obj);
    if (fd_walk_is_subtype(type, w->types.decimal))
        return fd_walk_put_decimal(w, obj);
    if (fd_walk_is_subtype(type, w->types.uuid))
        return fd_walk_put_uuid(w, obj);
    done = is_dataclass_instance(w, obj);
    if (done != 0)
        return done < 0 ? -1 : fd_walk_put_dataclass(w, obj);
    done = fd_walk_put_arrow(w, obj);
    if (done != 0)
        return done < 0 ? -1 : 0;
    return refuse(obj);
}

int fd_walk_encode(fd_walker *w, PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyUnicode_Type)
        return fd_walk_put_str(w, obj);
    if (type == &PyLong_Type)
        return fd_walk_put_int(w, obj);
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
        return fd_walk_put_bytes_like(w, obj);
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
        PyErr_Format(PyExc_TypeError, FD_WALK_FUNCTION " expected 2 positional arguments, got %zd",
                     nargs);
        return NULL;
    }
    static const char *const names[] = {"hex"};
    static const fd_signature signature = {.function = FD_WALK_FUNCTION, FD_PARAMETERS(names)};
    PyObject *bound[1];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return NULL;
    int hex = 0;
    if (bound[0] != NULL && (hex = PyObject_IsTrue(bound[0])) < 0)
        return NULL;
    const int id = fd_algorithm_from_object(module, args[0], FD_WALK_FUNCTION, "1");
    if (id < 0)
        return NULL;

    /* The stream's buffer is on the heap: the walk recurses on the stack. */
    fd_fingerprint_stream *stream = PyMem_Malloc(sizeof *stream);
    if (stream == NULL)
        return PyErr_NoMemory();
    fd_fingerprint_stream_init(stream, (enum fd_algorithm_id)id);
    fd_walker w = {.stream = stream, .out = &stream->sink};
    const int result = fd_walk_encode(&w, args[1]);
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
