/* json_digest's walk (json.h): the text json.dumps writes for a Python
 * object, written in UTF-8 into a byte sink, with no Python object made for
 * any part of it but the texts CPython itself must make (an int of more
 * than 64 bits, a float of more than fifteen digits). This file holds the
 * walk's start and json's C encoder; the walk's state and what both
 * encoders write alike are the walker's (json_walker.c).
 *
 * json.dumps walks objects with one of two encoders, and this walk follows
 * whichever the running Python's json.dumps would use for the options:
 *
 * - the C encoder (Modules/_json.c), always from 3.13 and without indent=
 *   before: write_value and the functions after it, here;
 * - the pure-Python encoder (json.encoder._make_iterencode), for indent=
 *   before 3.13: json_walk_python.c, a generator per container.
 *
 * They differ where a container is no plain list or dict: the C encoder
 * takes a list subclass's items through iter() once (PySequence_Fast) and
 * asks a dict's size of the dict itself, where the pure-Python one asks
 * `not lst` and iterates as `for` does; in the words of some errors; in
 * how a dict's items are read while default= changes it; and in what
 * counts towards RecursionError. What differs by version (compat.h's
 * json decisions) is read from the options.
 *
 * Every object in use holds a reference taken by the walk (a list's item,
 * a dict's key and value, default='s result), so that a container changed
 * while it is written (by default=, a __len__, a __repr__, or another
 * thread on a free-threaded build, under the container's critical section)
 * never leaves a pointer to a freed object; a list's size and a dict's
 * next item are read again at every step, as json reads them. */
#include "python/data_api/json.h"

#include "python/data_api/json_walk_python.h"
#include "python/data_api/json_walker.h"

/* ---- the C encoder ------------------------------------------------------- */

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

static void add_note(fd_json_walker *w, const char *format, PyObject *obj, PyObject *key,
                     Py_ssize_t i)
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
static void add_note(fd_json_walker *w, const char *format, PyObject *obj, PyObject *key,
                     Py_ssize_t i)
{
    (void)w, (void)format, (void)obj, (void)key, (void)i;
}
#endif

static void note_list_item(fd_json_walker *w, PyObject *seq, Py_ssize_t i)
{
    add_note(w, "when serializing %T item %zd", seq, NULL, i);
}

static void note_dict_item(fd_json_walker *w, PyObject *dict, PyObject *key)
{
    add_note(w, "when serializing %T item %R", dict, key, 0);
}

static void note_object(fd_json_walker *w, PyObject *obj)
{
    add_note(w, "when serializing %T object", obj, NULL, 0);
}

static int write_value(fd_json_walker *w, PyObject *obj, Py_ssize_t level);

static int write_list(fd_json_walker *w, PyObject *obj, Py_ssize_t level)
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
        fd_json_walker_write_bytes(w, "[]", 2);
        result = 0;
        goto done;
    }
    if (fd_json_walker_mark(w, obj) < 0)
        goto done;
    fd_sink_byte(w->sink, '[');
    if (options->has_indent)
        fd_json_walker_newline_indent(w, ++level);
    for (Py_ssize_t i = 0;; i++) {
        PyObject *item = fd_json_sequence_item(seq, i);
        if (item == NULL)
            break;
        if (i > 0)
            fd_json_walker_item_separator(w, level);
        const int written = write_value(w, item, level);
        Py_DECREF(item);
        if (written < 0) {
            note_list_item(w, obj, i);
            goto done;
        }
    }
    if (options->has_indent)
        fd_json_walker_newline_indent(w, --level);
    fd_sink_byte(w->sink, ']');
    fd_json_walker_unmark(w, obj);
    result = 0;
done:
    Py_DECREF(seq);
    return result;
}

/* One key and value of a dict at level: the key as both encoders write
 * it, the value as the C encoder writes it, with 3.14's note on its
 * error. */
static int write_dict_item(fd_json_walker *w, PyObject *dict, PyObject *key, PyObject *value,
                           bool *first, Py_ssize_t level)
{
    const int key_written = fd_json_walker_write_key(w, key, first, level);
    if (key_written != 0)
        return key_written > 0 ? 0 : -1;
    if (write_value(w, value, level) < 0) {
        note_dict_item(w, dict, key);
        return -1;
    }
    return 0;
}

/* An exact dict's items in place, as 3.12+'s C encoder reads them when it
 * does not sort them: PyDict_Next from where the last item was, so that
 * what default= adds meanwhile is written and what it removes is not. */
static int write_dict_in_place(fd_json_walker *w, PyObject *dict, Py_ssize_t level, bool *first)
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

/* The items as json's C encoder reads a dict it sorts, or any dict but an
 * exact one: PyMapping_Items (a subclass's own items()), sorted with
 * sort_keys, each item checked to be a 2-tuple as it is reached. */
static int write_items_list(fd_json_walker *w, PyObject *dict, Py_ssize_t level, bool *first)
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
static int write_dict_snapshot(fd_json_walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    const size_t base = w->pairs.count;
    if (fd_json_walker_push_pairs(w, dict) < 0)
        return -1;
    if (w->options->sort_keys && !fd_json_walker_sort_str_pairs(w, base)) {
        fd_json_pairs_pop_to(&w->pairs, base);
        return write_items_list(w, dict, level, first);
    }
    const size_t end = w->pairs.count;
    int result = 0;
    for (size_t i = base; i < end && result == 0; i++) {
        const fd_json_pair pair = w->pairs.pairs[i];
        result = write_dict_item(w, dict, pair.key, pair.value, first, level);
    }
    fd_json_pairs_pop_to(&w->pairs, base);
    return result;
}

static int write_dict(fd_json_walker *w, PyObject *dict, Py_ssize_t level)
{
    const fd_json_options *options = w->options;
    if (PyDict_GET_SIZE(dict) == 0) {
        fd_json_walker_write_bytes(w, "{}", 2);
        return 0;
    }
    if (fd_json_walker_mark(w, dict) < 0)
        return -1;
    fd_sink_byte(w->sink, '{');
    const bool newline_with_first_item = options->dict_newline_with_first_item;
    if (options->has_indent) {
        level++;
        if (!newline_with_first_item)
            fd_json_walker_newline_indent(w, level);
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
        fd_json_walker_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, '}');
    fd_json_walker_unmark(w, dict);
    return 0;
}

/* What default= returns for obj, written in its place. */
static int write_default(fd_json_walker *w, PyObject *obj, Py_ssize_t level)
{
    if (fd_json_walker_mark(w, obj) < 0)
        return -1;
    PyObject *replacement = fd_json_walker_call_default(w, obj);
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
    fd_json_walker_unmark(w, obj);
    return 0;
}

static int write_value(fd_json_walker *w, PyObject *obj, Py_ssize_t level)
{
    /* The exact types first, the commonest. */
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyUnicode_Type)
        return fd_json_walker_write_str(w, obj);
    if (type == &PyLong_Type)
        return fd_json_walker_write_int(w, obj, false);
    if (type == &PyFloat_Type)
        return fd_json_walker_write_float(w, obj, false);
    const int scalar = fd_json_walker_write_scalar(w, obj);
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
    fd_json_walker w;
    fd_json_walker_init(&w, options, sink);
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
    if (result == 0)
        result = options->python_encoder ? fd_json_walk_python(&w, obj) : write_value(&w, obj, 0);
    for (; entered > 0; entered--)
        Py_LeaveRecursiveCall();
    fd_json_walker_clear(&w);
    if (result < 0 && w.surrogate && !PyErr_Occurred())
        return FD_JSON_SURROGATE;
    return result;
}
