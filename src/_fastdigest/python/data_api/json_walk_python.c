/* json_digest's walk as json's pure-Python encoder writes it
 * (json.encoder._make_iterencode), which json.dumps uses for indent=
 * before 3.13: a generator per container, whose frames count towards
 * RecursionError; a container's truth asked by `not lst` and its items
 * taken as `for` takes them; a dict's items unpacked as `for key, value`
 * unpacks them, step by step while default= changes it. Apart from the C
 * encoder (json_walk.c), which starts the walk and hands it here, as the
 * two share nothing but the walker's steps (json_walker.c), and this one
 * goes when 3.12 does. */
#include "python/data_api/json_walk_python.h"

/* A generator of _make_iterencode starts (_iterencode, _iterencode_list,
 * _iterencode_dict): one more Python frame. Before 3.12 those count with
 * C calls, and Py_EnterRecursiveCall counts them in the same place, in
 * the words of the call that finds the limit in json (isinstance's before
 * 3.11); from 3.12 they count apart, against the limit json.dumps started
 * with, and Py_EnterRecursiveCall only keeps the C stack safe. */
static void py_leave(fd_json_walker *w)
{
    w->python_frames--;
    Py_LeaveRecursiveCall();
}

static int py_enter(fd_json_walker *w)
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

static int py_write_value(fd_json_walker *w, PyObject *obj, Py_ssize_t level);
static int py_write_list(fd_json_walker *w, PyObject *list, Py_ssize_t level);
static int py_write_dict(fd_json_walker *w, PyObject *dict, Py_ssize_t level);

/* _iterencode_list's and _iterencode_dict's dispatch of an item: scalars
 * in place, a container or anything else in a generator of its own. */
static int py_write_item(fd_json_walker *w, PyObject *value, Py_ssize_t level)
{
    const int scalar = fd_json_walker_write_scalar(w, value);
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
static int py_write_value(fd_json_walker *w, PyObject *obj, Py_ssize_t level)
{
    const int scalar = fd_json_walker_write_scalar(w, obj);
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
    if (fd_json_walker_mark(w, obj) < 0)
        return -1;
    PyObject *replacement = fd_json_walker_call_default(w, obj);
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
    fd_json_walker_unmark(w, obj);
    return 0;
}

/* The next item of `for value in lst`: an exact list or tuple by index
 * (its iterator's own steps), anything else through its iterator. A new
 * reference, or NULL at the end or with an exception set. */
static PyObject *py_next_item(PyObject *list, PyObject *iterator, Py_ssize_t i)
{
    if (iterator == NULL)
        return fd_json_sequence_item(list, i);
    return PyIter_Next(iterator);
}

/* The start of _iterencode_list and _iterencode_dict: `if not lst:
 * yield '[]'` (empty, "[]" or "{}", written), then the marker. 1 when the
 * container was written empty, 0 to go on, or -1 with an exception set. */
static int py_open_container(fd_json_walker *w, PyObject *container, const char *empty)
{
    const int truth = PyObject_IsTrue(container);
    if (truth == 0) {
        fd_json_walker_write_bytes(w, empty, 2);
        return 1;
    }
    if (truth < 0 || fd_json_walker_mark(w, container) < 0)
        return -1;
    return 0;
}

static int py_write_list(fd_json_walker *w, PyObject *list, Py_ssize_t level)
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
            fd_json_walker_newline_indent(w, level);
        }
        else
            fd_json_walker_item_separator(w, level);
        result = py_write_item(w, item, level);
        Py_DECREF(item);
        if (result < 0)
            break;
    }
    Py_XDECREF(iterator);
    if (result < 0)
        return -1;
    fd_json_walker_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, ']');
    fd_json_walker_unmark(w, list);
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

/* One key and value of a dict at level: the key as both encoders write
 * it, the value as _iterencode_dict dispatches it. */
static int py_write_dict_item(fd_json_walker *w, PyObject *key, PyObject *value, bool *first,
                              Py_ssize_t level)
{
    const int key_written = fd_json_walker_write_key(w, key, first, level);
    if (key_written != 0)
        return key_written > 0 ? 0 : -1;
    return py_write_item(w, value, level);
}

/* `for key, value in dct.items()` over an exact dict, step by step as
 * its items iterator steps (dictiter_iternextitem): RuntimeError once
 * default= has changed its size, or made it yield more keys than it had.
 * Without the call of items(), whose recursion check json's isinstance()
 * meets first. */
static int py_write_exact_items(fd_json_walker *w, PyObject *dict, Py_ssize_t level, bool *first)
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
            written = py_write_dict_item(w, key, value, first, level);
        Py_DECREF(key);
        Py_DECREF(value);
        if (written < 0)
            return -1;
    }
}

/* The items of _iterencode_dict: sorted(dct.items()), or dct.items()
 * iterated. */
static int py_write_items(fd_json_walker *w, PyObject *dict, Py_ssize_t level, bool *first)
{
    if (PyDict_CheckExact(dict) && !w->options->sort_keys)
        return py_write_exact_items(w, dict, level, first);
    if (PyDict_CheckExact(dict)) {
        /* sorted() of an exact dict's items, which no Python code can
         * change before it is taken. */
        const size_t base = w->pairs.count;
        if (fd_json_walker_push_pairs(w, dict) < 0)
            return -1;
        if (fd_json_walker_sort_str_pairs(w, base)) {
            const size_t end = w->pairs.count;
            int result = 0;
            for (size_t i = base; i < end && result == 0; i++) {
                const fd_json_pair pair = w->pairs.pairs[i];
                result = py_write_dict_item(w, pair.key, pair.value, first, level);
            }
            fd_json_pairs_pop_to(&w->pairs, base);
            return result;
        }
        fd_json_pairs_pop_to(&w->pairs, base);
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
            result = py_write_dict_item(w, key, value, first, level);
            Py_DECREF(key);
            Py_DECREF(value);
        }
    }
    Py_DECREF(iterator);
    return result < 0 || PyErr_Occurred() ? -1 : 0;
}

static int py_write_dict(fd_json_walker *w, PyObject *dict, Py_ssize_t level)
{
    const int opened = py_open_container(w, dict, "{}");
    if (opened != 0)
        return opened > 0 ? 0 : -1;
    fd_sink_byte(w->sink, '{');
    fd_json_walker_newline_indent(w, ++level);
    bool first = true;
    if (py_write_items(w, dict, level, &first) < 0)
        return -1;
    fd_json_walker_newline_indent(w, level - 1);
    fd_sink_byte(w->sink, '}');
    fd_json_walker_unmark(w, dict);
    return 0;
}

int fd_json_walk_python(fd_json_walker *w, PyObject *obj)
{
    /* _iterencode(o, 0), a generator. */
    const int entered = py_enter(w);
    if (entered < 0)
        return -1;
    const int written = py_write_value(w, obj, 0);
    py_leave(w);
    return written;
}
