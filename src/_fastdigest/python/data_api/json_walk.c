/* json_digest's walk (json.h): the text json.dumps writes for a Python
 * object, written in UTF-8 into a byte sink, with no Python object made for
 * any part of it but the texts CPython itself must make (an int of more
 * than 64 bits, a float of more than fifteen digits).
 *
 * json.dumps walks objects with one of two encoders, and this walk follows
 * whichever the running Python's json.dumps would use for the options:
 *
 * - the C encoder (Modules/_json.c), always from 3.13 and without indent=
 *   before: write_value and the functions after it;
 * - the pure-Python encoder (json.encoder._make_iterencode), for indent=
 *   before 3.13: py_write_value and the functions after it, a generator
 *   per container.
 *
 * They differ where a container is no plain list or dict: the C encoder
 * takes a list subclass's items through iter() once (PySequence_Fast) and
 * asks a dict's size of the dict itself, where the pure-Python one asks
 * `not lst` and iterates as `for` does; in the words of some errors; in
 * how a dict's items are read while default= changes it; and in what
 * counts towards RecursionError. What differs by version (compat.h's
 * json decisions) is read from the options.
 *
 * Every object in use holds a reference taken here (a list's item, a
 * dict's key and value, default='s result), so that a container changed
 * while it is written (by default=, a __len__, a __repr__, or another
 * thread on a free-threaded build, under the container's critical section)
 * never leaves a pointer to a freed object; a list's size and a dict's
 * next item are read again at every step, as json reads them. */
#include "python/data_api/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/json_text.h"

/* ---- the objects being written (check_circular) ------------------------ */

/* json keeps the ids of the containers (and default='s arguments) being
 * written in a dict, and refuses one that is already there: a circular
 * reference. The same set, as an open-addressing table of addresses with
 * linear probing; it holds no references, as every object in it is held by
 * the walk while it is there. A removal shifts later entries back (no
 * tombstones), since entries come and go with every container. */
#define MARKERS_INLINE 32

typedef struct marker_set {
    uintptr_t *slots; /* 0: empty */
    size_t mask;      /* slots - 1, a power of two less one */
    size_t count;
    uintptr_t inline_slots[MARKERS_INLINE];
} marker_set;

static void markers_init(marker_set *markers)
{
    markers->slots = markers->inline_slots;
    markers->mask = MARKERS_INLINE - 1;
    markers->count = 0;
    memset(markers->inline_slots, 0, sizeof markers->inline_slots);
}

static void markers_free(marker_set *markers)
{
    if (markers->slots != markers->inline_slots)
        PyMem_Free(markers->slots);
}

static size_t marker_home(const marker_set *markers, uintptr_t address)
{
    /* Fibonacci hashing of the address without its alignment bits. */
    const uint64_t product = (uint64_t)(address >> 4) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(product >> 32) & markers->mask;
}

static void markers_place(marker_set *markers, uintptr_t address)
{
    size_t i = marker_home(markers, address);
    while (markers->slots[i] != 0)
        i = (i + 1) & markers->mask;
    markers->slots[i] = address;
}

static int markers_grow(marker_set *markers)
{
    const size_t old_size = markers->mask + 1;
    uintptr_t *old = markers->slots;
    uintptr_t *slots = PyMem_Calloc(old_size * 2, sizeof *slots);
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    markers->slots = slots;
    markers->mask = old_size * 2 - 1;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i] != 0)
            markers_place(markers, old[i]);
    }
    if (old != markers->inline_slots)
        PyMem_Free(old);
    return 0;
}

/* Adds obj; 1 if it was there already, 0, or -1 with MemoryError. */
static int markers_add(marker_set *markers, PyObject *obj)
{
    const uintptr_t address = (uintptr_t)obj;
    if ((markers->count + 1) * 2 > markers->mask + 1 && markers_grow(markers) < 0)
        return -1;
    size_t i = marker_home(markers, address);
    for (; markers->slots[i] != 0; i = (i + 1) & markers->mask) {
        if (markers->slots[i] == address)
            return 1;
    }
    markers->slots[i] = address;
    markers->count++;
    return 0;
}

static void markers_remove(marker_set *markers, PyObject *obj)
{
    const uintptr_t address = (uintptr_t)obj;
    const size_t mask = markers->mask;
    size_t hole = marker_home(markers, address);
    while (markers->slots[hole] != address) {
        if (markers->slots[hole] == 0)
            return;
        hole = (hole + 1) & mask;
    }
    /* Each later entry of the run whose home is not cyclically within
     * (hole, j] moves back into the hole, which moves to it. */
    for (size_t j = (hole + 1) & mask; markers->slots[j] != 0; j = (j + 1) & mask) {
        const size_t home = marker_home(markers, markers->slots[j]);
        const bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            markers->slots[hole] = markers->slots[j];
            hole = j;
        }
    }
    markers->slots[hole] = 0;
    markers->count--;
}

/* ---- the pairs of the dicts being written ------------------------------- */

/* A dict written from a snapshot of its items (sorted, or before 3.12 in
 * any case) puts its keys and values, with references, on one stack that
 * every dict of the walk shares: a nested dict's pairs go above its
 * parent's and are gone before the parent's next pair. Pairs are read by
 * index, as the stack may move when it grows. */
typedef struct json_pair {
    PyObject *key;
    PyObject *value;
} json_pair;

typedef struct pair_stack {
    json_pair *pairs;
    size_t count;
    size_t capacity;
} pair_stack;

static int pairs_reserve(pair_stack *stack, size_t more)
{
    if (stack->capacity - stack->count >= more)
        return 0;
    size_t capacity = stack->capacity < 16 ? 16 : stack->capacity;
    while (capacity - stack->count < more) {
        if (capacity > ((size_t)PY_SSIZE_T_MAX / sizeof(json_pair)) / 2) {
            PyErr_NoMemory();
            return -1;
        }
        capacity *= 2;
    }
    json_pair *pairs = PyMem_Realloc(stack->pairs, capacity * sizeof *pairs);
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    stack->pairs = pairs;
    stack->capacity = capacity;
    return 0;
}

static void pairs_pop_to(pair_stack *stack, size_t base)
{
    while (stack->count > base) {
        json_pair pair = stack->pairs[--stack->count];
        Py_DECREF(pair.key);
        Py_DECREF(pair.value);
    }
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct walker {
    const fd_json_options *options;
    fd_sink *sink;
    marker_set markers;
    pair_stack pairs;
    /* A string's UTF-8 would hold a surrogate: the walk unwinds with -1
     * and no exception set. */
    bool surrogate;
    /* The pure-Python encoder's generators in use, and on 3.12+, where
     * they count against the recursion limit apart from C calls, how many
     * json.dumps could have at most. */
    Py_ssize_t python_frames;
    Py_ssize_t python_frames_limit;
} walker;

static inline void write_bytes(walker *w, const void *bytes, size_t len)
{
    fd_sink_write(w->sink, bytes, len);
}

static inline void write_literal(walker *w, const char *text)
{
    write_bytes(w, text, strlen(text));
}

static void write_newline_indent(walker *w, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    fd_sink_byte(w->sink, '\n');
    for (Py_ssize_t i = 0; i < level; i++)
        write_bytes(w, options->indent, (size_t)options->indent_len);
}

/* What goes between two items of a container at level. */
static void write_item_separator(walker *w, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    write_bytes(w, options->item_separator, (size_t)options->item_separator_len);
    if (options->has_indent)
        write_newline_indent(w, level);
}

static int write_str(walker *w, PyObject *text)
{
    if (FD_UNICODE_READY(text) < 0)
        return -1;
    if (fd_json_write_string(w->sink, PyUnicode_DATA(text), (size_t)PyUnicode_GET_LENGTH(text),
                             (unsigned)PyUnicode_KIND(text), w->options->ensure_ascii))
        return 0;
    w->surrogate = true;
    return -1;
}

/* An int as int.__repr__ writes it (json's text of every int, its
 * subclasses' too: an IntEnum member is its number), in quotes for a
 * key. int.__repr__ itself writes what does not fit 64 bits, and raises
 * its ValueError past sys.get_int_max_str_digits(). */
static int write_int(walker *w, PyObject *number, bool quoted)
{
    int overflow;
    const long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (quoted)
        fd_sink_byte(w->sink, '"');
    if (overflow == 0) {
        char text[FD_JSON_NUMBER_MAX];
        write_bytes(w, text, fd_json_format_int(value, text));
    }
    else {
        PyObject *repr = PyLong_Type.tp_repr(number);
        if (repr == NULL)
            return -1;
        Py_ssize_t len;
        const char *digits = PyUnicode_AsUTF8AndSize(repr, &len);
        if (digits != NULL)
            write_bytes(w, digits, (size_t)len);
        Py_DECREF(repr);
        if (digits == NULL)
            return -1;
    }
    if (quoted)
        fd_sink_byte(w->sink, '"');
    return 0;
}

/* Whether `number <op> other` is true, as Python's operator asks it: not
 * PyObject_RichCompareBool, which takes an object as equal to itself
 * without asking it. 1, 0, or -1 with an exception set. */
static int compare_as_python(PyObject *number, PyObject *other, int op)
{
    PyObject *answer = PyObject_RichCompare(number, other, op);
    if (answer == NULL)
        return -1;
    const int truth = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return truth;
}

/* The pure-Python encoder's floatstr tells NaN and the infinities apart
 * by `o != o`, `o == inf` and `o == -inf`, which a float subclass may
 * answer otherwise than its value would: the name floatstr writes for
 * number, or NULL for float.__repr__'s text, or NULL with an exception
 * set. */
static const char *py_special_float_name(PyObject *number)
{
    int truth = compare_as_python(number, number, Py_NE);
    if (truth != 0)
        return truth > 0 ? "NaN" : NULL;
    for (int sign = 1; sign >= -1; sign -= 2) {
        PyObject *infinity = PyFloat_FromDouble(sign * (double)INFINITY);
        if (infinity == NULL)
            return NULL;
        truth = compare_as_python(number, infinity, Py_EQ);
        Py_DECREF(infinity);
        if (truth != 0)
            return truth < 0 ? NULL : sign > 0 ? "Infinity" : "-Infinity";
    }
    return NULL;
}

/* A float as float.__repr__ writes it, NaN and the infinities as json
 * names them (or its ValueError with allow_nan=False), in quotes for a
 * key. */
static int write_float(walker *w, PyObject *number, bool quoted)
{
    const fd_json_options *options = w->options;
    const double value = PyFloat_AS_DOUBLE(number);
    char text[FD_JSON_NUMBER_MAX];
    const char *special = NULL;
    size_t len = 0;

    if (options->python_encoder && !PyFloat_CheckExact(number)) {
        special = py_special_float_name(number);
        if (special == NULL && PyErr_Occurred())
            return -1;
        if (special != NULL && !options->allow_nan) {
            PyErr_Format(PyExc_ValueError, "Out of range float values are not JSON compliant: %R",
                         number);
            return -1;
        }
        /* float.__repr__'s 'nan' or 'inf' (PyOS_double_to_string below)
         * where the subclass says its value is none of them. */
        if (special == NULL && isfinite(value))
            len = fd_json_format_double(value, text);
    }
    else if (!isfinite(value)) {
        if (!options->allow_nan) {
            if (options->python_encoder || options->compat->json.float_error_names_value)
                PyErr_Format(PyExc_ValueError,
                             "Out of range float values are not JSON compliant: %R", number);
            else
                PyErr_SetString(PyExc_ValueError,
                                "Out of range float values are not JSON compliant");
            return -1;
        }
        special = isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    }
    else {
        len = fd_json_format_double(value, text);
    }
    if (quoted)
        fd_sink_byte(w->sink, '"');
    if (special != NULL)
        write_literal(w, special);
    else if (len != 0)
        write_bytes(w, text, len);
    else {
        /* float_repr's own call. */
        char *repr = PyOS_double_to_string(value, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (repr == NULL)
            return -1;
        write_literal(w, repr);
        PyMem_Free(repr);
    }
    if (quoted)
        fd_sink_byte(w->sink, '"');
    return 0;
}

/* Scalars, as both encoders write them: 1 if obj is none. */
static int write_scalar(walker *w, PyObject *obj)
{
    if (obj == Py_None)
        write_bytes(w, "null", 4);
    else if (obj == Py_True)
        write_bytes(w, "true", 4);
    else if (obj == Py_False)
        write_bytes(w, "false", 5);
    else if (PyUnicode_Check(obj))
        return write_str(w, obj);
    else if (PyLong_Check(obj))
        return write_int(w, obj, false);
    else if (PyFloat_Check(obj))
        return write_float(w, obj, false);
    else
        return 1;
    return 0;
}

static bool is_dict(PyObject *obj)
{
#ifdef FD_HAVE_FROZENDICT
    return PyDict_Check(obj) || PyFrozenDict_Check(obj);
#else
    return PyDict_Check(obj);
#endif
}

static bool is_exact_dict(PyObject *obj)
{
#ifdef FD_HAVE_FROZENDICT
    return PyDict_CheckExact(obj) || PyFrozenDict_CheckExact(obj);
#else
    return PyDict_CheckExact(obj);
#endif
}

/* Adds obj to the objects being written, or raises json's ValueError for
 * a circular reference. 0, or -1 with an exception set. */
static int mark(walker *w, PyObject *obj)
{
    if (!w->options->check_circular)
        return 0;
    const int added = markers_add(&w->markers, obj);
    if (added == 1)
        PyErr_SetString(PyExc_ValueError, "Circular reference detected");
    return added == 0 ? 0 : -1;
}

static void unmark(walker *w, PyObject *obj)
{
    if (w->options->check_circular)
        markers_remove(&w->markers, obj);
}

/* default=(obj), or json.JSONEncoder.default's TypeError: a new reference,
 * or NULL with an exception set. */
static PyObject *call_default(walker *w, PyObject *obj)
{
    if (w->options->default_function != NULL)
        return PyObject_CallOneArg(w->options->default_function, obj);
    /* f'Object of type {o.__class__.__name__} is not JSON serializable' */
    PyObject *cls = PyObject_GetAttrString(obj, "__class__");
    if (cls == NULL)
        return NULL;
    PyObject *name = PyObject_GetAttrString(cls, "__name__");
    Py_DECREF(cls);
    if (name == NULL)
        return NULL;
    PyErr_Format(PyExc_TypeError, "Object of type %S is not JSON serializable", name);
    Py_DECREF(name);
    return NULL;
}

/* 3.14's notes, added to the exception being raised as json adds them
 * (_PyErr_FormatNote): where an error happened, from the innermost
 * container out. The exception is taken out first, as a note's %R runs
 * the key's __repr__, and the note appended to its __notes__ as
 * BaseException.add_note appends it, without a call that a RecursionError
 * at the C stack's limit would refuse again; if the note cannot be added,
 * its error is raised instead, with the exception as its context. Builds
 * for a Python before 3.13 have no %T, and run where json adds no notes. */
#ifdef FD_HAVE_FORMAT_TYPE_NAME
static int append_note(PyObject *exception, PyObject *note)
{
    PyObject *notes;
    if (PyObject_GetOptionalAttrString(exception, "__notes__", &notes) < 0)
        return -1;
    if (notes == NULL) {
        notes = PyList_New(0);
        if (notes == NULL || PyObject_SetAttrString(exception, "__notes__", notes) < 0) {
            Py_XDECREF(notes);
            return -1;
        }
    }
    else if (!PyList_Check(notes)) {
        Py_DECREF(notes);
        PyErr_SetString(PyExc_TypeError, "Cannot add note: __notes__ is not a list");
        return -1;
    }
    const int appended = PyList_Append(notes, note);
    Py_DECREF(notes);
    return appended;
}

static void add_note(walker *w, const char *format, PyObject *obj, PyObject *key, Py_ssize_t i)
{
    if (w->surrogate || !w->options->compat->json.notes)
        return;
    PyObject *exception = fd_take_exception();
    if (exception == NULL)
        return;
    PyObject *note = key != NULL ? PyUnicode_FromFormat(format, obj, key)
                                 : PyUnicode_FromFormat(format, obj, i);
    const int added = note == NULL ? -1 : append_note(exception, note);
    Py_XDECREF(note);
    if (added == 0) {
        fd_restore_exception(exception);
        return;
    }
    PyObject *failure = fd_take_exception();
    PyException_SetContext(failure, exception);
    fd_restore_exception(failure);
}
#else
static void add_note(walker *w, const char *format, PyObject *obj, PyObject *key, Py_ssize_t i)
{
    (void)w, (void)format, (void)obj, (void)key, (void)i;
}
#endif

static void note_list_item(walker *w, PyObject *seq, Py_ssize_t i)
{
    add_note(w, "when serializing %T item %zd", seq, NULL, i);
}

static void note_dict_item(walker *w, PyObject *dict, PyObject *key)
{
    add_note(w, "when serializing %T item %R", dict, key, 0);
}

static void note_object(walker *w, PyObject *obj)
{
    add_note(w, "when serializing %T object", obj, NULL, 0);
}

/* ---- the C encoder ------------------------------------------------------- */

static int write_value(walker *w, PyObject *obj, Py_ssize_t level);

/* Item i of an exact list or tuple, a new reference, or NULL past its end:
 * a list's size is read again for every item, as json reads it, so that
 * items default= appends are written and removed ones are not; under the
 * list's lock, on a free-threaded build. */
static PyObject *sequence_item(PyObject *seq, Py_ssize_t i)
{
    if (PyTuple_CheckExact(seq))
        return i < PyTuple_GET_SIZE(seq) ? Py_NewRef(PyTuple_GET_ITEM(seq, i)) : NULL;
    PyObject *item = NULL;
    FD_BEGIN_CRITICAL_SECTION(seq);
    if (i < PyList_GET_SIZE(seq))
        item = Py_NewRef(PyList_GET_ITEM(seq, i));
    FD_END_CRITICAL_SECTION();
    return item;
}

static int write_list(walker *w, PyObject *obj, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    /* A subclass's items, through its iter(), once. */
    PyObject *seq = PyList_CheckExact(obj) || PyTuple_CheckExact(obj)
                        ? Py_NewRef(obj)
                        : PySequence_Fast(obj, options->compat->json.not_a_sequence);
    if (seq == NULL)
        return -1;
    int result = -1;
    if (PySequence_Fast_GET_SIZE(seq) == 0) {
        write_bytes(w, "[]", 2);
        result = 0;
        goto done;
    }
    if (mark(w, obj) < 0)
        goto done;
    fd_sink_byte(w->sink, '[');
    if (options->has_indent)
        write_newline_indent(w, ++level);
    for (Py_ssize_t i = 0;; i++) {
        PyObject *item = sequence_item(seq, i);
        if (item == NULL)
            break;
        if (i > 0)
            write_item_separator(w, level);
        const int written = write_value(w, item, level);
        Py_DECREF(item);
        if (written < 0) {
            note_list_item(w, obj, i);
            goto done;
        }
    }
    if (options->has_indent)
        write_newline_indent(w, --level);
    fd_sink_byte(w->sink, ']');
    unmark(w, obj);
    result = 0;
done:
    Py_DECREF(seq);
    return result;
}

/* Pure-Python's item dispatch (py_write_item), for a dict's values. */
static int py_write_item(walker *w, PyObject *value, Py_ssize_t level);

/* One key and value of a dict at level: the key as json turns it into a
 * str (or skipped, or refused), the separator before it unless it is the
 * first written, the value. */
static int write_dict_item(walker *w, PyObject *dict, PyObject *key, PyObject *value, bool *first,
                           Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    enum { KEY_STR, KEY_FLOAT, KEY_CONSTANT, KEY_INT } key_kind;

    if (PyUnicode_Check(key))
        key_kind = KEY_STR;
    else if (PyFloat_Check(key))
        key_kind = KEY_FLOAT;
    else if (key == Py_True || key == Py_False || key == Py_None)
        key_kind = KEY_CONSTANT;
    else if (PyLong_Check(key))
        key_kind = KEY_INT;
    else if (options->skipkeys)
        return 0;
    else if (options->python_encoder) {
        /* f'... not {key.__class__.__name__}' */
        PyObject *cls = PyObject_GetAttrString(key, "__class__");
        PyObject *name = cls == NULL ? NULL : PyObject_GetAttrString(cls, "__name__");
        Py_XDECREF(cls);
        if (name != NULL) {
            PyErr_Format(PyExc_TypeError, "keys must be str, int, float, bool or None, not %S",
                         name);
            Py_DECREF(name);
        }
        return -1;
    }
    else {
        PyErr_Format(PyExc_TypeError, "keys must be str, int, float, bool or None, not %.100s",
                     Py_TYPE(key)->tp_name);
        return -1;
    }

    if (!*first)
        write_item_separator(w, level);
    else {
        *first = false;
        if (options->has_indent && !options->python_encoder &&
            options->dict_newline_with_first_item)
            write_newline_indent(w, level);
    }
    int written;
    switch (key_kind) {
    case KEY_STR:
        written = write_str(w, key);
        break;
    case KEY_FLOAT:
        written = write_float(w, key, true);
        break;
    case KEY_INT:
        written = write_int(w, key, true);
        break;
    default:
        write_literal(w, key == Py_True ? "\"true\"" : key == Py_False ? "\"false\"" : "\"null\"");
        written = 0;
        break;
    }
    if (written < 0)
        return -1;
    write_bytes(w, options->key_separator, (size_t)options->key_separator_len);
    if (options->python_encoder)
        return py_write_item(w, value, level);
    if (write_value(w, value, level) < 0) {
        note_dict_item(w, dict, key);
        return -1;
    }
    return 0;
}

/* An exact dict's items in place, as 3.12+'s C encoder reads them when it
 * does not sort them: PyDict_Next from where the last item was, so that
 * what default= adds meanwhile is written and what it removes is not. */
static int write_dict_in_place(walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    Py_ssize_t position = 0;
    for (;;) {
        PyObject *key, *value;
        int found;
        FD_BEGIN_CRITICAL_SECTION(dict);
        found = PyDict_Next(dict, &position, &key, &value);
        if (found) {
            Py_INCREF(key);
            Py_INCREF(value);
        }
        FD_END_CRITICAL_SECTION();
        if (!found)
            return 0;
        const int written = write_dict_item(w, dict, key, value, first, level);
        Py_DECREF(key);
        Py_DECREF(value);
        if (written < 0)
            return -1;
    }
}

/* An exact dict's pairs, with references, onto the pair stack at once:
 * json's snapshot of its items. */
static int push_pairs(walker *w, PyObject *dict)
{
    int result;
    FD_BEGIN_CRITICAL_SECTION(dict);
    result = pairs_reserve(&w->pairs, (size_t)PyDict_GET_SIZE(dict));
    if (result == 0) {
        Py_ssize_t position = 0;
        PyObject *key, *value;
        while (PyDict_Next(dict, &position, &key, &value)) {
            w->pairs.pairs[w->pairs.count++] = (json_pair){Py_NewRef(key), Py_NewRef(value)};
        }
    }
    FD_END_CRITICAL_SECTION();
    return result;
}

static bool pair_before(const json_pair *a, const json_pair *b)
{
    return fd_json_compare_text(PyUnicode_DATA(a->key), (size_t)PyUnicode_GET_LENGTH(a->key),
                                (unsigned)PyUnicode_KIND(a->key), PyUnicode_DATA(b->key),
                                (size_t)PyUnicode_GET_LENGTH(b->key),
                                (unsigned)PyUnicode_KIND(b->key)) < 0;
}

static int compare_pairs(const void *a, const void *b)
{
    return pair_before(a, b) ? -1 : pair_before(b, a) ? 1 : 0;
}

/* Sorts the pairs from base when every key is an exact str, as
 * sorted(dct.items()) orders them: by the keys' code points, which differ
 * for any two keys of a dict, so that any sort gives sorted()'s order, and
 * comparing them calls no Python code and cannot fail. False, with the
 * pairs as they were, when some key is no exact str: sorted() itself must
 * then order them (the keys' own __lt__, the pairs' values for equal keys)
 * and raise its TypeError where they do not compare. */
static bool sort_str_pairs(walker *w, size_t base)
{
    json_pair *pairs = w->pairs.pairs + base;
    const size_t count = w->pairs.count - base;
    for (size_t i = 0; i < count; i++) {
        if (!PyUnicode_CheckExact(pairs[i].key) || FD_UNICODE_READY(pairs[i].key) < 0) {
            PyErr_Clear();
            return false;
        }
    }
    if (count > 16) {
        qsort(pairs, count, sizeof *pairs, compare_pairs);
        return true;
    }
    for (size_t i = 1; i < count; i++) {
        const json_pair pair = pairs[i];
        size_t j = i;
        for (; j > 0 && pair_before(&pair, &pairs[j - 1]); j--)
            pairs[j] = pairs[j - 1];
        pairs[j] = pair;
    }
    return true;
}

/* The items as json's C encoder reads a dict it sorts, or any dict but an
 * exact one: PyMapping_Items (a subclass's own items()), sorted with
 * sort_keys, each item checked to be a 2-tuple as it is reached. */
static int write_items_list(walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    PyObject *items = PyMapping_Items(dict);
    if (items == NULL)
        return -1;
    if (w->options->sort_keys && PyList_Sort(items) < 0) {
        Py_DECREF(items);
        return -1;
    }
    int result = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_ValueError, "items must return 2-tuples");
            result = -1;
            break;
        }
        Py_INCREF(item);
        result = write_dict_item(w, dict, PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1),
                                 first, level);
        Py_DECREF(item);
        if (result < 0)
            break;
    }
    Py_DECREF(items);
    return result;
}

/* An exact dict from a snapshot of its pairs: sorted (sort_str_pairs, or
 * write_items_list where sorted() must decide), or in its order. */
static int write_dict_snapshot(walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    const size_t base = w->pairs.count;
    if (push_pairs(w, dict) < 0)
        return -1;
    if (w->options->sort_keys && !sort_str_pairs(w, base)) {
        pairs_pop_to(&w->pairs, base);
        return write_items_list(w, dict, level, first);
    }
    const size_t end = w->pairs.count;
    int result = 0;
    for (size_t i = base; i < end && result == 0; i++) {
        const json_pair pair = w->pairs.pairs[i];
        result = write_dict_item(w, dict, pair.key, pair.value, first, level);
    }
    pairs_pop_to(&w->pairs, base);
    return result;
}

static int write_dict(walker *w, PyObject *dict, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    if (PyDict_GET_SIZE(dict) == 0) {
        write_bytes(w, "{}", 2);
        return 0;
    }
    if (mark(w, dict) < 0)
        return -1;
    fd_sink_byte(w->sink, '{');
    const bool newline_with_first_item = options->dict_newline_with_first_item;
    if (options->has_indent) {
        level++;
        if (!newline_with_first_item)
            write_newline_indent(w, level);
    }
    bool first = true;
    int result;
    if (!is_exact_dict(dict))
        result = write_items_list(w, dict, level, &first);
    else if (!options->sort_keys && options->compat->json.dict_in_place)
        result = write_dict_in_place(w, dict, level, &first);
    else
        result = write_dict_snapshot(w, dict, level, &first);
    if (result < 0)
        return -1;
    if (options->has_indent && (!newline_with_first_item || !first))
        write_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, '}');
    unmark(w, dict);
    return 0;
}

/* What default= returns for obj, written in its place. */
static int write_default(walker *w, PyObject *obj, Py_ssize_t level)
{
    if (mark(w, obj) < 0)
        return -1;
    PyObject *replacement = call_default(w, obj);
    if (replacement == NULL)
        return -1;
    if (Py_EnterRecursiveCall(" while encoding a JSON object")) {
        Py_DECREF(replacement);
        return -1;
    }
    const int written = write_value(w, replacement, level);
    Py_LeaveRecursiveCall();
    Py_DECREF(replacement);
    if (written < 0) {
        note_object(w, obj);
        return -1;
    }
    unmark(w, obj);
    return 0;
}

static int write_value(walker *w, PyObject *obj, Py_ssize_t level)
{
    /* The exact types first, the commonest. */
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyUnicode_Type)
        return write_str(w, obj);
    if (type == &PyLong_Type)
        return write_int(w, obj, false);
    if (type == &PyFloat_Type)
        return write_float(w, obj, false);
    const int scalar = write_scalar(w, obj);
    if (scalar <= 0)
        return scalar;
    const bool dict = is_dict(obj);
    if (!dict && !PyList_Check(obj) && !PyTuple_Check(obj))
        return write_default(w, obj, level);
    if (Py_EnterRecursiveCall(" while encoding a JSON object"))
        return -1;
    const int written = dict ? write_dict(w, obj, level) : write_list(w, obj, level);
    Py_LeaveRecursiveCall();
    return written;
}

/* ---- the pure-Python encoder (indent= before 3.13) ----------------------- */

/* A generator of _make_iterencode starts (_iterencode, _iterencode_list,
 * _iterencode_dict): one more Python frame. Before 3.12 those count with
 * C calls, and Py_EnterRecursiveCall counts them in the same place, in
 * the words of the call that finds the limit in json (isinstance's before
 * 3.11); from 3.12 they count apart, against the limit json.dumps started
 * with, and Py_EnterRecursiveCall only keeps the C stack safe. */
static void py_leave(walker *w)
{
    w->python_frames--;
    Py_LeaveRecursiveCall();
}

static int py_enter(walker *w)
{
    /* Py_EnterRecursiveCall returns 1, not -1, for the error. */
    if (Py_EnterRecursiveCall(w->options->compat->json.python_recursion_where))
        return -1;
    w->python_frames++;
#ifdef FD_HAVE_PYTHON_FRAMES_COUNTED_APART
    if (w->python_frames > w->python_frames_limit) {
        py_leave(w);
        PyErr_SetString(PyExc_RecursionError, "maximum recursion depth exceeded");
        return -1;
    }
#endif
    return 0;
}

static int py_write_value(walker *w, PyObject *obj, Py_ssize_t level);
static int py_write_list(walker *w, PyObject *list, Py_ssize_t level);
static int py_write_dict(walker *w, PyObject *dict, Py_ssize_t level);

/* _iterencode_list's and _iterencode_dict's dispatch of an item: scalars
 * in place, a container or anything else in a generator of its own. */
static int py_write_item(walker *w, PyObject *value, Py_ssize_t level)
{
    const int scalar = write_scalar(w, value);
    if (scalar <= 0)
        return scalar;
    if (py_enter(w) < 0)
        return -1;
    int written;
    if (PyList_Check(value) || PyTuple_Check(value))
        written = py_write_list(w, value, level);
    else if (PyDict_Check(value))
        written = py_write_dict(w, value, level);
    else
        written = py_write_value(w, value, level);
    py_leave(w);
    return written;
}

/* _iterencode: what default= returns is written by another _iterencode. */
static int py_write_value(walker *w, PyObject *obj, Py_ssize_t level)
{
    const int scalar = write_scalar(w, obj);
    if (scalar <= 0)
        return scalar;
    if (PyList_Check(obj) || PyTuple_Check(obj) || PyDict_Check(obj)) {
        if (py_enter(w) < 0)
            return -1;
        const int written = PyDict_Check(obj) ? py_write_dict(w, obj, level)
                                              : py_write_list(w, obj, level);
        py_leave(w);
        return written;
    }
    if (mark(w, obj) < 0)
        return -1;
    PyObject *replacement = call_default(w, obj);
    if (replacement == NULL)
        return -1;
    int written = -1;
    if (py_enter(w) == 0) {
        written = py_write_value(w, replacement, level);
        py_leave(w);
    }
    Py_DECREF(replacement);
    if (written < 0)
        return -1;
    unmark(w, obj);
    return 0;
}

/* The next item of `for value in lst`: an exact list or tuple by index
 * (its iterator's own steps), anything else through its iterator. A new
 * reference, or NULL at the end or with an exception set. */
static PyObject *py_next_item(PyObject *list, PyObject *iterator, Py_ssize_t i)
{
    if (iterator == NULL)
        return sequence_item(list, i);
    return PyIter_Next(iterator);
}

/* The start of _iterencode_list and _iterencode_dict: `if not lst:
 * yield '[]'` (empty, "[]" or "{}", written), then the marker. 1 when the
 * container was written empty, 0 to go on, or -1 with an exception set. */
static int py_open_container(walker *w, PyObject *container, const char *empty)
{
    const int truth = PyObject_IsTrue(container);
    if (truth == 0) {
        write_bytes(w, empty, 2);
        return 1;
    }
    if (truth < 0 || mark(w, container) < 0)
        return -1;
    return 0;
}

static int py_write_list(walker *w, PyObject *list, Py_ssize_t level)
{
    const int opened = py_open_container(w, list, "[]");
    if (opened != 0)
        return opened > 0 ? 0 : -1;
    PyObject *iterator = NULL;
    if (!PyList_CheckExact(list) && !PyTuple_CheckExact(list)) {
        iterator = PyObject_GetIter(list);
        if (iterator == NULL)
            return -1;
    }
    level++;
    int result = 0;
    Py_ssize_t i = 0;
    for (;; i++) {
        PyObject *item = py_next_item(list, iterator, i);
        if (item == NULL) {
            result = PyErr_Occurred() ? -1 : 0;
            break;
        }
        /* '[' and the first newline go out with the first item: a list
         * that iterates nothing writes only its end. */
        if (i == 0) {
            fd_sink_byte(w->sink, '[');
            write_newline_indent(w, level);
        }
        else
            write_item_separator(w, level);
        result = py_write_item(w, item, level);
        Py_DECREF(item);
        if (result < 0)
            break;
    }
    Py_XDECREF(iterator);
    if (result < 0)
        return -1;
    write_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, ']');
    unmark(w, list);
    return 0;
}

/* `for key, value in items`: item unpacked into two new references, or
 * Python's TypeError or ValueError. */
static int py_unpack_pair(PyObject *item, PyObject **key, PyObject **value)
{
    if (PyTuple_CheckExact(item) && PyTuple_GET_SIZE(item) == 2) {
        *key = Py_NewRef(PyTuple_GET_ITEM(item, 0));
        *value = Py_NewRef(PyTuple_GET_ITEM(item, 1));
        return 0;
    }
    PyObject *iterator = PyObject_GetIter(item);
    if (iterator == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(item)->tp_iter == NULL &&
            !PySequence_Check(item)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object",
                         Py_TYPE(item)->tp_name);
        }
        return -1;
    }
    PyObject *parts[3] = {NULL, NULL, NULL};
    Py_ssize_t got = 0;
    for (; got < 3; got++) {
        parts[got] = PyIter_Next(iterator);
        if (parts[got] == NULL)
            break;
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred() || got != 2) {
        if (!PyErr_Occurred()) {
            if (got < 2)
                PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected 2, got %zd)",
                             got);
            else
                PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 2)");
        }
        for (Py_ssize_t i = 0; i < 3; i++)
            Py_XDECREF(parts[i]);
        return -1;
    }
    *key = parts[0];
    *value = parts[1];
    return 0;
}

/* `for key, value in dct.items()` over an exact dict, step by step as
 * its items iterator steps (dictiter_iternextitem): RuntimeError once
 * default= has changed its size, or made it yield more keys than it had.
 * Without the call of items(), whose recursion check json's isinstance()
 * meets first. */
static int py_write_exact_items(walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    const Py_ssize_t size = PyDict_GET_SIZE(dict);
    Py_ssize_t position = 0, left = size;
    for (;;) {
        PyObject *key, *value;
        int found = 0, changed;
        FD_BEGIN_CRITICAL_SECTION(dict);
        changed = PyDict_GET_SIZE(dict) != size;
        if (!changed) {
            found = PyDict_Next(dict, &position, &key, &value);
            if (found) {
                Py_INCREF(key);
                Py_INCREF(value);
            }
        }
        FD_END_CRITICAL_SECTION();
        if (changed) {
            PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
            return -1;
        }
        if (!found)
            return 0;
        int written = -1;
        if (left-- == 0)
            PyErr_SetString(PyExc_RuntimeError, "dictionary keys changed during iteration");
        else
            written = write_dict_item(w, dict, key, value, first, level);
        Py_DECREF(key);
        Py_DECREF(value);
        if (written < 0)
            return -1;
    }
}

/* The items of _iterencode_dict: sorted(dct.items()), or dct.items()
 * iterated. */
static int py_write_items(walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    if (PyDict_CheckExact(dict) && !w->options->sort_keys)
        return py_write_exact_items(w, dict, level, first);
    if (PyDict_CheckExact(dict)) {
        /* sorted() of an exact dict's items, which no Python code can
         * change before it is taken. */
        const size_t base = w->pairs.count;
        if (push_pairs(w, dict) < 0)
            return -1;
        if (sort_str_pairs(w, base)) {
            const size_t end = w->pairs.count;
            int result = 0;
            for (size_t i = base; i < end && result == 0; i++) {
                const json_pair pair = w->pairs.pairs[i];
                result = write_dict_item(w, dict, pair.key, pair.value, first, level);
            }
            pairs_pop_to(&w->pairs, base);
            return result;
        }
        pairs_pop_to(&w->pairs, base);
    }
    PyObject *items = PyObject_CallMethod(dict, "items", NULL);
    if (items == NULL)
        return -1;
    if (w->options->sort_keys) {
        PyObject *sorted = PySequence_List(items);
        Py_SETREF(items, sorted);
        if (items == NULL || PyList_Sort(items) < 0) {
            Py_XDECREF(items);
            return -1;
        }
    }
    PyObject *iterator = PyObject_GetIter(items);
    Py_DECREF(items);
    if (iterator == NULL)
        return -1;
    int result = 0;
    PyObject *item;
    while (result == 0 && (item = PyIter_Next(iterator)) != NULL) {
        PyObject *key, *value;
        result = py_unpack_pair(item, &key, &value);
        Py_DECREF(item);
        if (result == 0) {
            result = write_dict_item(w, dict, key, value, first, level);
            Py_DECREF(key);
            Py_DECREF(value);
        }
    }
    Py_DECREF(iterator);
    return result < 0 || PyErr_Occurred() ? -1 : 0;
}

static int py_write_dict(walker *w, PyObject *dict, Py_ssize_t level)
{
    const int opened = py_open_container(w, dict, "{}");
    if (opened != 0)
        return opened > 0 ? 0 : -1;
    fd_sink_byte(w->sink, '{');
    write_newline_indent(w, ++level);
    bool first = true;
    if (py_write_items(w, dict, level, &first) < 0)
        return -1;
    write_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, '}');
    unmark(w, dict);
    return 0;
}

/* ---- the walk's start ---------------------------------------------------- */

#ifdef FD_HAVE_PYTHON_FRAMES_COUNTED_APART
/* The Python frames of the calling thread, for the pure-Python encoder's
 * limit. */
static Py_ssize_t python_frames_in_use(void)
{
    Py_ssize_t count = 0;
    PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
    Py_XINCREF(frame);
    while (frame != NULL) {
        count++;
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return count;
}
#endif

int fd_json_write(const fd_json_options *options, PyObject *obj, fd_sink *sink)
{
    const fd_compat *compat = options->compat;
    walker w = {.options = options, .sink = sink};
    markers_init(&w.markers);
    /* json.dumps's own recursion before its encoder starts, where it
     * counts with C calls: the same depth refused. */
    int offset = options->python_encoder ? compat->json.python_recursion_offset
                                         : compat->json.c_recursion_offset;
    const char *where = options->python_encoder ? compat->json.python_recursion_where
                                                : " while encoding a JSON object";
#ifdef FD_HAVE_PYTHON_FRAMES_COUNTED_APART
    if (options->python_encoder) {
        w.python_frames_limit = Py_GetRecursionLimit() - python_frames_in_use() - offset;
        offset = 0;
    }
#endif
    int entered = 0;
    int result = 0;
    while (entered < offset && result == 0) {
        if (Py_EnterRecursiveCall(where))
            result = -1;
        else
            entered++;
    }
    if (result == 0 && options->python_encoder) {
        /* _iterencode(o, 0), a generator. */
        result = py_enter(&w);
        if (result == 0) {
            result = py_write_value(&w, obj, 0);
            py_leave(&w);
        }
    }
    else if (result == 0) {
        result = write_value(&w, obj, 0);
    }
    for (; entered > 0; entered--)
        Py_LeaveRecursiveCall();
    pairs_pop_to(&w.pairs, 0);
    PyMem_Free(w.pairs.pairs);
    markers_free(&w.markers);
    if (result < 0 && w.surrogate && !PyErr_Occurred())
        return FD_JSON_SURROGATE;
    return result;
}
