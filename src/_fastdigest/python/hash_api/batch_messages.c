/* digest_many's messages: where they come from, and each chunk of them
 * located for the batch driver (hash/batch.h's fd_message: pointer,
 * length, where the digest goes), for python/hash_api/batch.c, which calls these
 * with the GIL (batch.h holds the contracts).
 *
 * A list (with a GIL) or a tuple is read in place, and so are the rows of
 * a 2-D buffer; any other iterable is gathered into a tuple first. A list's
 * items are held by references while their chunk is hashed without the GIL
 * (or by the GIL itself, in held stretches: batch_stretches.c); an item
 * that is not exactly bytes by a view, taken through the buffer protocol,
 * which first makes the list a tuple (a __buffer__ method may change it).
 * Every error names the item, and is the first bad item's. Messages that
 * share memory with out= are refused here too. */
#include "python/hash_api/batch.h"

#include <stdint.h>
#include <string.h>

/* ---- the source: items or rows ------------------------------------------ */

/* Takes the rows of messages when it is a 2-D buffer whose rows are each
 * contiguous (a C-contiguous one, or rows picked at any stride): row i is
 * then message i, its bytes as hashlib reads a row (a NumPy array's
 * messages[i]), whatever the item type. Returns 1 when it took them, 0 for
 * anything else, which is iterated as before (a 1-D buffer gives its
 * items, ints for bytes; a NumPy array of more dimensions gives
 * sub-arrays, each refused as an item; an exporter that cannot give a
 * strided view, its items), or -1 with an exception set. */
static int take_rows(fd_many_source *source, PyObject *messages)
{
    Py_buffer *view = &source->rows;

    if (PyObject_GetBuffer(messages, view, PyBUF_STRIDES) < 0) {
        /* A refused request is no error here, as the exporter's items may
         * still be iterated; whatever else was raised (MemoryError, an
         * interrupt) is. */
        if (!PyErr_ExceptionMatches(PyExc_BufferError) &&
            !PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_TypeError) &&
            !PyErr_ExceptionMatches(PyExc_NotImplementedError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    if (view->ndim != 2 || (view->shape[1] > 1 && view->strides[1] != view->itemsize)) {
        PyBuffer_Release(view);
        return 0;
    }
    source->has_rows = true;
    source->count = view->shape[0];
    source->row_len = (size_t)view->shape[1] * (size_t)view->itemsize;
    source->row_stride = view->strides[0];
    return 1;
}

int fd_many_open_source(fd_many_source *source, PyObject *messages, bool read_list_in_place)
{
#ifndef Py_GIL_DISABLED
    if (read_list_in_place && PyList_CheckExact(messages)) {
        source->sequence = Py_NewRef(messages);
        source->in_place_list = true;
        source->count = PyList_GET_SIZE(messages);
        return 0;
    }
#else
    (void)read_list_in_place;
#endif
    if (!PyList_Check(messages) && !PyTuple_Check(messages) && PyObject_CheckBuffer(messages)) {
        int taken = take_rows(source, messages);
        if (taken != 0)
            return taken;
    }
    source->sequence = PySequence_Tuple(messages);
    if (source->sequence == NULL)
        return -1;
    source->count = PyTuple_GET_SIZE(source->sequence);
    return 0;
}

void fd_many_close_source(fd_many_source *source)
{
    Py_CLEAR(source->sequence);
    if (source->has_rows)
        PyBuffer_Release(&source->rows);
}

/* Stops reading a list in place: its items from now on come from a tuple
 * of it. Needed before the first item that is not bytes, whose buffer
 * request may run Python code (a __buffer__ method) that changes the list:
 * the batch stays the list as it was when digest_many was called, as a
 * snapshot taken at the start would have it. */
static int snapshot_list(fd_many_source *source)
{
    PyObject *tuple = PyList_AsTuple(source->sequence);
    if (tuple == NULL)
        return -1;
    Py_SETREF(source->sequence, tuple);
    source->in_place_list = false;
    if (PyTuple_GET_SIZE(tuple) != source->count) {
        PyErr_SetString(PyExc_RuntimeError, "digest_many() list changed size during the call");
        return -1;
    }
    return 0;
}

/* ---- a chunk's arrays ---------------------------------------------------- */

int fd_many_allocate_chunk(fd_many_chunk *c, Py_ssize_t capacity, bool hold)
{
    const size_t slots = capacity != 0 ? (size_t)capacity : 1;

    c->capacity = capacity;
    c->messages = PyMem_Malloc(slots * sizeof(fd_message));
    if (hold && c->messages != NULL)
        c->held = PyMem_Malloc(slots * sizeof(PyObject *));
    if (c->messages == NULL || (hold && c->held == NULL)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void fd_many_release_chunk(fd_many_chunk *c)
{
    for (Py_ssize_t i = 0; i < c->views_acquired; i++)
        PyBuffer_Release(&c->views[i]);
    c->views_acquired = 0;
    for (Py_ssize_t i = 0; i < c->held_count; i++)
        Py_DECREF(c->held[i]);
    c->held_count = 0;
}

void fd_many_free_chunk(fd_many_chunk *c)
{
    fd_many_release_chunk(c);
    PyMem_Free(c->views);
    PyMem_Free(c->held);
    PyMem_Free(c->messages);
}

/* ---- locating a chunk's messages ---------------------------------------- */

/* The exception of item `index` came from fd_get_buffer, or from the
 * standard library's hmac.digest. Only the built-in types a buffer request raises are
 * rewritten: they take a message as their one argument. Anything else an
 * exporter raises passes through unchanged. */
void fd_many_name_bad_item(Py_ssize_t index)
{
    PyObject *exception = fd_take_exception();
    PyObject *type = (PyObject *)Py_TYPE(exception);
    if (type == PyExc_TypeError || type == PyExc_BufferError || type == PyExc_ValueError) {
        PyErr_Format(type, "digest_many() item %zd: %S", index, exception);
        Py_DECREF(exception);
    }
    else {
        fd_restore_exception(exception);
    }
}

/* The mark of a message whose item is not exactly bytes and still needs a
 * view: no buffer is that long. */
#define NEEDS_VIEW SIZE_MAX

/* Locates the bytes of items [start, start + n) in c->messages; the first
 * bad item raises, naming its index, and so does the first item that shares
 * memory with out (NULL: no out=). Exact bytes objects are read in place
 * (immutable, and alive for as long as the sequence or c->held holds them);
 * the others through get_buffer (the buffer protocol, in hashlib's or
 * hmac's words), each holding a view until the chunk is hashed. Exact bytes first, the others
 * after, so that a chunk of bytes, the common case, needs no views; bad
 * items are never exact bytes, and the views are taken in order and stop
 * at the first item that shares memory, so the error is still the first
 * bad item's. */
int fd_many_gather_items(fd_many_source *source, fd_many_chunk *c, Py_ssize_t start, Py_ssize_t n,
                         int (*get_buffer)(PyObject *item, Py_buffer *view), const Py_buffer *out)
{
    Py_ssize_t view_count = 0;
    Py_ssize_t shared = FD_MANY_NO_ITEM; /* the first item that shares memory with out */

    if (source->in_place_list && PyList_GET_SIZE(source->sequence) != source->count) {
        /* Only another thread, while the GIL was released for the last
         * chunk, can have done that. */
        PyErr_SetString(PyExc_RuntimeError, "digest_many() list changed size during the call");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = source->in_place_list ? PyList_GET_ITEM(source->sequence, start + i)
                                               : PyTuple_GET_ITEM(source->sequence, start + i);
        if (PyBytes_CheckExact(item)) {
            if (source->in_place_list)
                c->held[c->held_count++] = Py_NewRef(item);
            c->messages[i].data = (const uint8_t *)PyBytes_AS_STRING(item);
            c->messages[i].len = (size_t)PyBytes_GET_SIZE(item);
            if (out != NULL && shared == FD_MANY_NO_ITEM &&
                fd_many_shares_memory(c->messages[i].data, c->messages[i].len, out))
                shared = i;
        }
        else {
            c->messages[i].len = NEEDS_VIEW;
            view_count++;
        }
    }

    if (view_count != 0) {
        if (source->in_place_list && snapshot_list(source) < 0)
            return -1;
        if (c->views == NULL) {
            c->views = PyMem_Malloc((size_t)c->capacity * sizeof(Py_buffer));
            if (c->views == NULL) {
                PyErr_NoMemory();
                return -1;
            }
        }
        for (Py_ssize_t i = 0; i < shared && c->views_acquired < view_count; i++) {
            if (c->messages[i].len != NEEDS_VIEW)
                continue;
            Py_buffer *view = &c->views[c->views_acquired];
            if (get_buffer(PyTuple_GET_ITEM(source->sequence, start + i), view) < 0) {
                fd_many_name_bad_item(start + i);
                return -1;
            }
            c->views_acquired++;
            c->messages[i].data = view->buf;
            c->messages[i].len = (size_t)view->len;
            if (out != NULL && fd_many_shares_memory(view->buf, (size_t)view->len, out))
                shared = i;
        }
    }
    if (shared != FD_MANY_NO_ITEM) {
        fd_many_raise_shared_memory(start + shared);
        return -1;
    }
    return 0;
}

void fd_many_locate_rows(const fd_many_source *source, fd_many_chunk *c, Py_ssize_t start,
                         Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        c->messages[i].data = fd_many_row(source, start + i);
        c->messages[i].len = source->row_len;
    }
}

/* ---- messages that share memory with out= --------------------------------
 *
 * The threads write digests into out= while other threads, or later lanes
 * of the same one, still read messages: a message that shares a byte with
 * out would be hashed before or after some digest overwrote it, depending
 * on the threads and the lanes. So no message may share memory with out,
 * and digest_many refuses one before anything is hashed from it
 * (batch.h's fd_many_shares_memory). */

void fd_many_raise_shared_memory(Py_ssize_t index)
{
    PyErr_Format(PyExc_ValueError, "digest_many() item %zd shares memory with argument 'out'",
                 index);
}

/* Rows that follow one another are one span, and the first row it shares is
 * found by a division; rows at any other stride are checked one by one. */
Py_ssize_t fd_many_first_row_sharing(const fd_many_source *source, const Py_buffer *out)
{
    const size_t row_len = source->row_len;

    if (row_len == 0 || source->count == 0)
        return FD_MANY_NO_ITEM;
    if (source->row_stride == (Py_ssize_t)row_len) {
        const uintptr_t start = (uintptr_t)source->rows.buf, out_start = (uintptr_t)out->buf;
        if (!fd_many_shares_memory(source->rows.buf, (size_t)source->count * row_len, out))
            return FD_MANY_NO_ITEM;
        return out_start <= start ? 0 : (Py_ssize_t)((out_start - start) / row_len);
    }
    for (Py_ssize_t i = 0; i < source->count; i++) {
        if (fd_many_shares_memory(fd_many_row(source, i), row_len, out))
            return i;
    }
    return FD_MANY_NO_ITEM;
}
