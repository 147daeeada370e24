/* The walker (json_walker.h): one walk's state, and what json's two
 * encoders write alike, which json_walk.c (the C encoder) and
 * json_walk_python.c (the pure-Python one) both call: the set of the
 * objects being written (check_circular), the stack of the pairs of the
 * dicts being written, the texts of scalars and of a dict's keys, default='s
 * call, and a dict's pairs taken and sorted at once. Apart from the
 * encoders so that neither holds what the other needs, and nothing here
 * calls back into either. */
#include "python/data_api/json_walker.h"

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
 * tombstones), since entries come and go with every container. The type
 * is in json_walker.h. */

static void markers_init(fd_json_marker_set *markers)
{
    markers->slots = markers->inline_slots;
    markers->mask = FD_JSON_MARKERS_INLINE - 1;
    markers->count = 0;
    memset(markers->inline_slots, 0, sizeof markers->inline_slots);
}

static void markers_free(fd_json_marker_set *markers)
{
    if (markers->slots != markers->inline_slots)
        PyMem_Free(markers->slots);
}

static size_t marker_home(const fd_json_marker_set *markers, uintptr_t address)
{
    /* Fibonacci hashing of the address without its alignment bits. */
    const uint64_t product = (uint64_t)(address >> 4) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(product >> 32) & markers->mask;
}

static void markers_place(fd_json_marker_set *markers, uintptr_t address)
{
    size_t i = marker_home(markers, address);
    while (markers->slots[i] != 0)
        i = (i + 1) & markers->mask;
    markers->slots[i] = address;
}

static int markers_grow(fd_json_marker_set *markers)
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
static int markers_add(fd_json_marker_set *markers, PyObject *obj)
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

static void markers_remove(fd_json_marker_set *markers, PyObject *obj)
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

static int pairs_reserve(fd_json_pair_stack *stack, size_t more)
{
    if (stack->capacity - stack->count >= more)
        return 0;
    size_t capacity = stack->capacity < 16 ? 16 : stack->capacity;
    while (capacity - stack->count < more) {
        if (capacity > ((size_t)PY_SSIZE_T_MAX / sizeof(fd_json_pair)) / 2) {
            PyErr_NoMemory();
            return -1;
        }
        capacity *= 2;
    }
    fd_json_pair *pairs = PyMem_Realloc(stack->pairs, capacity * sizeof *pairs);
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    stack->pairs = pairs;
    stack->capacity = capacity;
    return 0;
}

void fd_json_pairs_pop_to(fd_json_pair_stack *stack, size_t base)
{
    while (stack->count > base) {
        fd_json_pair pair = stack->pairs[--stack->count];
        Py_DECREF(pair.key);
        Py_DECREF(pair.value);
    }
}

/* ---- the walker ---------------------------------------------------------- */

static void forget_key_orders(fd_json_walker *w);

void fd_json_walker_init(fd_json_walker *w, const fd_json_options *options, fd_sink *sink)
{
    *w = (fd_json_walker){.options = options, .sink = sink};
    markers_init(&w->markers);
}

void fd_json_walker_clear(fd_json_walker *w)
{
    fd_json_pairs_pop_to(&w->pairs, 0);
    PyMem_Free(w->pairs.pairs);
    forget_key_orders(w);
    markers_free(&w->markers);
}

static inline void write_literal(fd_json_walker *w, const char *text)
{
    fd_json_walker_write_bytes(w, text, strlen(text));
}

void fd_json_walker_newline_indent(fd_json_walker *w, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    fd_sink_byte(w->sink, '\n');
    for (Py_ssize_t i = 0; i < level; i++)
        fd_json_walker_write_bytes(w, options->indent, (size_t)options->indent_len);
}

/* What goes between two items of a container at level. */
void fd_json_walker_item_separator(fd_json_walker *w, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    fd_json_walker_write_bytes(w, options->item_separator, (size_t)options->item_separator_len);
    if (options->has_indent)
        fd_json_walker_newline_indent(w, level);
}

int fd_json_walker_write_str(fd_json_walker *w, PyObject *text)
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
int fd_json_walker_write_int(fd_json_walker *w, PyObject *number, bool quoted)
{
    int overflow;
    const long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (quoted)
        fd_sink_byte(w->sink, '"');
    if (overflow == 0) {
        char text[FD_JSON_NUMBER_MAX];
        fd_json_walker_write_bytes(w, text, fd_json_format_int(value, text));
    }
    else {
        PyObject *repr = PyLong_Type.tp_repr(number);
        if (repr == NULL)
            return -1;
        Py_ssize_t len;
        const char *digits = PyUnicode_AsUTF8AndSize(repr, &len);
        if (digits != NULL)
            fd_json_walker_write_bytes(w, digits, (size_t)len);
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
int fd_json_walker_write_float(fd_json_walker *w, PyObject *number, bool quoted)
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
        fd_json_walker_write_bytes(w, text, len);
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
int fd_json_walker_write_scalar(fd_json_walker *w, PyObject *obj)
{
    if (obj == Py_None)
        fd_json_walker_write_bytes(w, "null", 4);
    else if (obj == Py_True)
        fd_json_walker_write_bytes(w, "true", 4);
    else if (obj == Py_False)
        fd_json_walker_write_bytes(w, "false", 5);
    else if (PyUnicode_Check(obj))
        return fd_json_walker_write_str(w, obj);
    else if (PyLong_Check(obj))
        return fd_json_walker_write_int(w, obj, false);
    else if (PyFloat_Check(obj))
        return fd_json_walker_write_float(w, obj, false);
    else
        return 1;
    return 0;
}

/* Adds obj to the objects being written, or raises json's ValueError for
 * a circular reference. 0, or -1 with an exception set. */
int fd_json_walker_mark(fd_json_walker *w, PyObject *obj)
{
    if (!w->options->check_circular)
        return 0;
    const int added = markers_add(&w->markers, obj);
    if (added == 1)
        PyErr_SetString(PyExc_ValueError, "Circular reference detected");
    return added == 0 ? 0 : -1;
}

void fd_json_walker_unmark(fd_json_walker *w, PyObject *obj)
{
    if (w->options->check_circular)
        markers_remove(&w->markers, obj);
}

/* default=(obj), or json.JSONEncoder.default's TypeError: a new reference,
 * or NULL with an exception set. */
PyObject *fd_json_walker_call_default(fd_json_walker *w, PyObject *obj)
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

/* Item i of an exact list or tuple, a new reference, or NULL past its end:
 * a list's size is read again for every item, as json reads it, so that
 * items default= appends are written and removed ones are not; under the
 * list's lock, on a free-threaded build. */
PyObject *fd_json_sequence_item(PyObject *seq, Py_ssize_t i)
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

/* A key of a dict at level, as json turns it into a str (or skips, or
 * refuses it), with the separator before it unless it is the first
 * written, and the key separator after it: what both encoders write before
 * a value. 0, 1 for a key skipped (nothing written), or -1 with an
 * exception set. */
int fd_json_walker_write_key(fd_json_walker *w, PyObject *key, bool *first, Py_ssize_t level)
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
        return 1;
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
        fd_json_walker_item_separator(w, level);
    else {
        *first = false;
        if (options->has_indent && !options->python_encoder &&
            options->dict_newline_with_first_item)
            fd_json_walker_newline_indent(w, level);
    }
    int written;
    switch (key_kind) {
    case KEY_STR:
        written = fd_json_walker_write_str(w, key);
        break;
    case KEY_FLOAT:
        written = fd_json_walker_write_float(w, key, true);
        break;
    case KEY_INT:
        written = fd_json_walker_write_int(w, key, true);
        break;
    default:
        write_literal(w, key == Py_True ? "\"true\"" : key == Py_False ? "\"false\"" : "\"null\"");
        written = 0;
        break;
    }
    if (written < 0)
        return -1;
    fd_json_walker_write_bytes(w, options->key_separator, (size_t)options->key_separator_len);
    return 0;
}

/* An exact dict's pairs, with references, onto the pair stack at once:
 * json's snapshot of its items. */
int fd_json_walker_push_pairs(fd_json_walker *w, PyObject *dict)
{
    int result;
    FD_BEGIN_CRITICAL_SECTION(dict);
    result = pairs_reserve(&w->pairs, (size_t)PyDict_GET_SIZE(dict));
    if (result == 0) {
        Py_ssize_t position = 0;
        PyObject *key, *value;
        while (PyDict_Next(dict, &position, &key, &value)) {
            w->pairs.pairs[w->pairs.count++] = (fd_json_pair){Py_NewRef(key), Py_NewRef(value)};
        }
    }
    FD_END_CRITICAL_SECTION();
    return result;
}

/* Whether str a sorts before str b, as Python compares them: by code
 * point. Keys are mostly short Latin-1 texts that differ early, which a
 * byte loop settles before a call of memcmp would start. */
static bool key_before(PyObject *a, PyObject *b)
{
    const size_t a_length = (size_t)PyUnicode_GET_LENGTH(a);
    const size_t b_length = (size_t)PyUnicode_GET_LENGTH(b);
    const unsigned a_kind = (unsigned)PyUnicode_KIND(a), b_kind = (unsigned)PyUnicode_KIND(b);
    if (a_kind != PyUnicode_1BYTE_KIND || b_kind != PyUnicode_1BYTE_KIND)
        return fd_json_compare_text(PyUnicode_DATA(a), a_length, a_kind, PyUnicode_DATA(b),
                                    b_length, b_kind) < 0;
    const Py_UCS1 *a_text = PyUnicode_1BYTE_DATA(a), *b_text = PyUnicode_1BYTE_DATA(b);
    const size_t common = a_length < b_length ? a_length : b_length;
    for (size_t i = 0; i < common; i++) {
        if (a_text[i] != b_text[i])
            return a_text[i] < b_text[i];
    }
    return a_length < b_length;
}

static int compare_pairs(const void *a, const void *b)
{
    PyObject *a_key = ((const fd_json_pair *)a)->key, *b_key = ((const fd_json_pair *)b)->key;
    return key_before(a_key, b_key) ? -1 : key_before(b_key, a_key) ? 1 : 0;
}

/* Whether the pairs' keys are the slot's, the same objects in the same
 * order. */
static bool key_order_matches(const fd_json_key_order *order, const fd_json_pair *pairs,
                              size_t count)
{
    if (order->count != count)
        return false;
    for (size_t i = 0; i < count; i++) {
        if (order->keys[i] != pairs[i].key)
            return false;
    }
    return true;
}

/* The slot now remembers the pairs' keys, in their order, and that
 * order[i] is the index of the i-th key sorted. */
static void key_order_remember(fd_json_key_order *slot, const fd_json_pair *pairs, size_t count,
                               const uint8_t *order)
{
    for (size_t i = 0; i < count; i++)
        Py_INCREF(pairs[i].key);
    for (size_t i = 0; i < slot->count; i++)
        Py_DECREF(slot->keys[i]);
    for (size_t i = 0; i < count; i++) {
        slot->keys[i] = pairs[i].key;
        slot->sorted[i] = order[i];
    }
    slot->count = count;
}

static void forget_key_orders(fd_json_walker *w)
{
    for (size_t s = 0; s < FD_JSON_KEY_ORDERS; s++) {
        fd_json_key_order *slot = &w->key_orders[s];
        for (size_t i = 0; i < slot->count; i++)
            Py_DECREF(slot->keys[i]);
        slot->count = 0;
    }
}

static bool all_keys_exact_str(const fd_json_pair *pairs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (!PyUnicode_CheckExact(pairs[i].key) || FD_UNICODE_READY(pairs[i].key) < 0) {
            PyErr_Clear();
            return false;
        }
    }
    return true;
}

/* The pairs put in the order whose i-th entry is the index of the i-th
 * pair sorted. */
static void permute_pairs(fd_json_pair *pairs, size_t count, const uint8_t *order)
{
    fd_json_pair unsorted[FD_JSON_KEY_ORDER_MAX];
    memcpy(unsorted, pairs, count * sizeof *pairs);
    for (size_t i = 0; i < count; i++)
        pairs[i] = unsorted[order[i]];
}

/* Sorts the pairs from base when every key is an exact str, as
 * sorted(dct.items()) orders them: by the keys' code points, which differ
 * for any two keys of a dict, so that any sort gives sorted()'s order, and
 * comparing them calls no Python code and cannot fail. False, with the
 * pairs as they were, when some key is no exact str: sorted() itself must
 * then order them (the keys' own __lt__, the pairs' values for equal keys)
 * and raise its TypeError where they do not compare. */
bool fd_json_walker_sort_str_pairs(fd_json_walker *w, size_t base)
{
    fd_json_pair *pairs = w->pairs.pairs + base;
    const size_t count = w->pairs.count - base;
    if (count > FD_JSON_KEY_ORDER_MAX) {
        if (!all_keys_exact_str(pairs, count))
            return false;
        qsort(pairs, count, sizeof *pairs, compare_pairs);
        return true;
    }
    /* Dicts of a count of keys share the slot of that count. */
    fd_json_key_order *slot = &w->key_orders[count % FD_JSON_KEY_ORDERS];
    if (key_order_matches(slot, pairs, count)) {
        permute_pairs(pairs, count, slot->sorted);
        return true;
    }
    if (!all_keys_exact_str(pairs, count))
        return false;
    /* An insertion sort of the indices, few as they are. */
    uint8_t order[FD_JSON_KEY_ORDER_MAX];
    for (size_t i = 0; i < count; i++) {
        const uint8_t index = (uint8_t)i;
        size_t j = i;
        for (; j > 0 && key_before(pairs[index].key, pairs[order[j - 1]].key); j--)
            order[j] = order[j - 1];
        order[j] = index;
    }
    key_order_remember(slot, pairs, count, order);
    permute_pairs(pairs, count, order);
    return true;
}
