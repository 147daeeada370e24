/* The walker (json_walker.c): the state of one walk of fd_json_write
 * (json.h), and what json's two encoders write alike. json_walk.c (the C
 * encoder, and the walk's start) and json_walk_python.c (the pure-Python
 * encoder) call these; nothing here calls either of them. */
#ifndef FD_PYTHON_JSON_WALKER_H
#define FD_PYTHON_JSON_WALKER_H

#include "python/data_api/json.h"

#define FD_JSON_MARKERS_INLINE 32

/* The addresses of the objects being written (check_circular): a set
 * without references, as the walk holds every object in it. */
typedef struct fd_json_marker_set {
    uintptr_t *slots; /* 0: empty */
    size_t mask;      /* slots - 1, a power of two less one */
    size_t count;
    uintptr_t inline_slots[FD_JSON_MARKERS_INLINE];
} fd_json_marker_set;

/* A dict written from a snapshot of its items (sorted, or before 3.12 in
 * any case) puts its keys and values, with references, on one stack that
 * every dict of the walk shares: a nested dict's pairs go above its
 * parent's and are gone before the parent's next pair. Pairs are read by
 * index, as the stack may move when it grows. */
typedef struct fd_json_pair {
    PyObject *key;
    PyObject *value;
} fd_json_pair;

typedef struct fd_json_pair_stack {
    fd_json_pair *pairs;
    size_t count;
    size_t capacity;
} fd_json_pair_stack;

/* The sorted order of the keys of a dict written before, by the keys
 * themselves (held, so that no other str can take one's address): a
 * document's dicts mostly repeat a few sets of keys, in the same order,
 * and a dict whose keys are the same objects in the same order sorts the
 * same way. Remembered for dicts of few keys, one set per slot. */
#define FD_JSON_KEY_ORDERS 4
#define FD_JSON_KEY_ORDER_MAX 16

typedef struct fd_json_key_order {
    size_t count;                          /* 0: empty */
    PyObject *keys[FD_JSON_KEY_ORDER_MAX]; /* in the dict's order */
    uint8_t sorted[FD_JSON_KEY_ORDER_MAX]; /* sorted[i]: the i-th key sorted, by index */
} fd_json_key_order;

typedef struct fd_json_walker {
    const fd_json_options *options;
    fd_sink *sink;
    fd_json_marker_set markers;
    fd_json_pair_stack pairs;
    fd_json_key_order key_orders[FD_JSON_KEY_ORDERS];
    /* A string's UTF-8 would hold a surrogate: the walk unwinds with -1
     * and no exception set. */
    bool surrogate;
    /* The pure-Python encoder's generators in use, and on 3.12+, where
     * they count against the recursion limit apart from C calls, how many
     * json.dumps could have at most. */
    Py_ssize_t python_frames;
    Py_ssize_t python_frames_limit;
} fd_json_walker;

/* A walk's start and end: the walker cleared drops the references its
 * pair stack still holds (a walk that failed) and frees what it grew. */
void fd_json_walker_init(fd_json_walker *w, const fd_json_options *options, fd_sink *sink);
void fd_json_walker_clear(fd_json_walker *w);

/* Drops the pairs above base, and their references. */
void fd_json_pairs_pop_to(fd_json_pair_stack *stack, size_t base);

static inline void fd_json_walker_write_bytes(fd_json_walker *w, const void *bytes, size_t len)
{
    fd_sink_write(w->sink, bytes, len);
}

/* A newline and level indents; the separator between two items at level. */
void fd_json_walker_newline_indent(fd_json_walker *w, Py_ssize_t level);
void fd_json_walker_item_separator(fd_json_walker *w, Py_ssize_t level);

/* The texts of values, quoted for a key where asked; the scalar writer
 * returns 1 for an object that is no scalar, having written nothing.
 * 0, or -1 with an exception set (or the walker's surrogate set). */
int fd_json_walker_write_str(fd_json_walker *w, PyObject *text);
int fd_json_walker_write_int(fd_json_walker *w, PyObject *number, bool quoted);
int fd_json_walker_write_float(fd_json_walker *w, PyObject *number, bool quoted);
int fd_json_walker_write_scalar(fd_json_walker *w, PyObject *obj);
int fd_json_walker_write_key(fd_json_walker *w, PyObject *key, bool *first, Py_ssize_t level);

/* The objects being written, with check_circular; mark raises json's
 * ValueError for one already there. */
int fd_json_walker_mark(fd_json_walker *w, PyObject *obj);
void fd_json_walker_unmark(fd_json_walker *w, PyObject *obj);

PyObject *fd_json_walker_call_default(fd_json_walker *w, PyObject *obj);
PyObject *fd_json_sequence_item(PyObject *seq, Py_ssize_t i);

/* An exact dict's pairs onto the pair stack; those from base sorted as
 * sorted() would, where every key is an exact str (false otherwise). */
int fd_json_walker_push_pairs(fd_json_walker *w, PyObject *dict);
bool fd_json_walker_sort_str_pairs(fd_json_walker *w, size_t base);

#endif /* FD_PYTHON_JSON_WALKER_H */
