/* digest_many(name, messages, /): many one-shot digests in one call, hashed
 * by the batch driver (core/batch.c) with the multi-buffer kernels.
 *
 * The result list is made first; then the batch is worked through in chunks
 * (see digest_many): a chunk's buffers are located with the GIL, its result
 * objects made, and the chunk hashed in one call of the driver, straight
 * into the result objects, without the GIL once the work is worth releasing
 * it. A list (with a GIL) or a tuple is read in place; any other iterable
 * is gathered into a tuple first. Besides the result objects, the only
 * allocations are of chunk size: the (pointer, length, digest) triples the
 * driver reads, the references that keep a list's items alive while their
 * chunk is hashed, and, when some items are not exactly bytes, their
 * views. */
#include "python/binding.h"

#include "core/batch.h"

/* Rewrites the exception fd_get_buffer set for item `index` so that its
 * message names the item, keeping its type. Only the built-in types a
 * buffer request raises are rewritten: they take a message as their one
 * argument. Anything else an exporter raises passes through unchanged. */
static void name_bad_item(Py_ssize_t index)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exception = PyErr_GetRaisedException();
    PyObject *type = (PyObject *)Py_TYPE(exception);
    if (type == PyExc_TypeError || type == PyExc_BufferError || type == PyExc_ValueError)
        PyErr_Format(type, "digest_many() item %zd: %S", index, exception);
    else
        PyErr_SetRaisedException(Py_NewRef(exception));
    Py_DECREF(exception);
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (type == PyExc_TypeError || type == PyExc_BufferError || type == PyExc_ValueError) {
        PyErr_Format(type, "digest_many() item %zd: %S", index, value);
        Py_DECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    }
    else {
        PyErr_Restore(type, value, traceback);
    }
#endif
}

/* The mark of a message whose item is not exactly bytes and still needs a
 * view: no buffer is that long. */
#define NEEDS_VIEW SIZE_MAX

/* Hashing costs about one block's work per message even when the messages
 * are empty (the padding block), so the work of a batch counts that too. */
static bool worth_releasing_gil(const fd_message *messages, Py_ssize_t count, size_t block_len)
{
    size_t work = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        work += messages[i].len + block_len;
        if (work >= fd_gil_minsize())
            return true;
    }
    return false;
}

/* Messages per chunk. Within a wide range of sizes around this one the
 * speed did not change measurably for short messages; chunks hashed apart
 * each end with lanes idle, a cost that a larger size keeps small
 * (core/batch.c, drain_lanes). */
#define CHUNK_MESSAGES 2048

/* Where the items come from, and what holds them while their chunk is
 * hashed without the GIL. */
typedef struct item_source {
    PyObject *sequence; /* strong reference: a tuple, or a list read in place */
    bool in_place_list;
    Py_ssize_t count;   /* the batch size, fixed at the start */
} item_source;

/* The arrays of one chunk, allocated once per call at chunk size. */
typedef struct chunk {
    Py_ssize_t capacity;
    fd_message *messages;
    PyObject **held;    /* items of a list read in place, held until hashed */
    Py_ssize_t held_count;
    Py_buffer *views;   /* made when the first item that is not bytes comes */
    Py_ssize_t views_acquired;
} chunk;

static void release_chunk(chunk *c)
{
    for (Py_ssize_t i = 0; i < c->views_acquired; i++)
        PyBuffer_Release(&c->views[i]);
    c->views_acquired = 0;
    for (Py_ssize_t i = 0; i < c->held_count; i++)
        Py_DECREF(c->held[i]);
    c->held_count = 0;
}

/* Stops reading a list in place: its items from now on come from a tuple
 * of it. Needed before the first item that is not bytes, whose buffer
 * request may run Python code (a __buffer__ method) that changes the list:
 * the batch stays the list as it was when digest_many was called, as a
 * snapshot taken at the start would have it. */
static int snapshot_list(item_source *source)
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

/* Locates the bytes of items [start, start + n) in c->messages; the first
 * bad item raises, naming its index. Exact bytes objects are read in place
 * (immutable, and alive for as long as the sequence or c->held holds them);
 * the others through the buffer protocol, as hashlib reads them, each
 * holding a view until the chunk is hashed. Exact bytes first, the others
 * after, so that a chunk of bytes, the common case, needs no views; bad
 * items are never exact bytes, so the error is still the first bad item's. */
static int gather_chunk(item_source *source, chunk *c, Py_ssize_t start, Py_ssize_t n)
{
    Py_ssize_t view_count = 0;

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
        }
        else {
            c->messages[i].len = NEEDS_VIEW;
            view_count++;
        }
    }
    if (view_count == 0)
        return 0;

    if (source->in_place_list && snapshot_list(source) < 0)
        return -1;
    if (c->views == NULL) {
        c->views = PyMem_Malloc((size_t)c->capacity * sizeof(Py_buffer));
        if (c->views == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t i = 0; c->views_acquired < view_count; i++) {
        if (c->messages[i].len != NEEDS_VIEW)
            continue;
        Py_buffer *view = &c->views[c->views_acquired];
        if (fd_get_buffer(PyTuple_GET_ITEM(source->sequence, start + i), view) < 0) {
            name_bad_item(start + i);
            return -1;
        }
        c->views_acquired++;
        c->messages[i].data = view->buf;
        c->messages[i].len = (size_t)view->len;
    }
    return 0;
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, name, messages, /)\n--\n\n"
             "Return the digests of many messages as a list of bytes, in order:\n"
             "[digest(name, m) for m in messages] in one call. name is an algorithm\n"
             "name, as new() takes it, or one of fastdigest's constructors;\n"
             "messages is any iterable of bytes-like objects. Several messages are\n"
             "hashed at once where the CPU allows (multi-buffer kernels), and the\n"
             "GIL is released while the batch is hashed.");

/* digest_many, and with multi_buffer false the same on the single-stream
 * kernel alone (for benchmarks).
 *
 * The batch is worked through in chunks of CHUNK_MESSAGES messages: a
 * chunk's items are located, its result objects made and each message's
 * digest pointer aimed into its own bytes object, then the chunk is hashed
 * in one call of the driver, without the GIL when the chunk is worth it.
 * Chunks keep the objects in the caches between those steps: done for the
 * whole batch at once, every step read each of 100,000 objects from memory
 * again (at 64 bytes a message, with the tuple copied from a list, about a
 * fifth of the time went to that and to batch-sized arrays). A chunk's
 * result objects are reachable from nowhere else until the list is
 * returned, so writing them without the GIL is safe.
 *
 * A tuple is read as it is, and a list in place (with a GIL: under free
 * threading another thread could change the list while it is read, so
 * there it is copied to a tuple first, as any other iterable is). */
static PyObject *digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             bool multi_buffer)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_many expected 2 arguments, got %zd", nargs);
        return NULL;
    }
    int id = fd_algorithm_from_object(module, args[0], "digest_many", "1");
    if (id < 0)
        return NULL;
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_multi_kernel *multi = &fd_active_multi_kernels[algorithm->family];
    if (!multi_buffer || multi->name == NULL)
        multi = NULL;

    item_source source = {NULL, false, 0};
#ifndef Py_GIL_DISABLED
    if (PyList_CheckExact(args[1])) {
        source.sequence = Py_NewRef(args[1]);
        source.in_place_list = true;
        source.count = PyList_GET_SIZE(args[1]);
    }
    else
#endif
    {
        source.sequence = PySequence_Tuple(args[1]);
        if (source.sequence == NULL)
            return NULL;
        source.count = PyTuple_GET_SIZE(source.sequence);
    }

    chunk c = {0, NULL, NULL, 0, NULL, 0};
    PyObject *result = PyList_New(source.count);
    if (result == NULL)
        goto fail;
    if (source.in_place_list && PyList_GET_SIZE(source.sequence) != source.count) {
        /* Making the result list collected garbage, and a finalizer changed
         * the list: the batch is the list as it is now, as a snapshot. */
        PyObject *tuple = PyList_AsTuple(source.sequence);
        if (tuple == NULL)
            goto fail;
        Py_SETREF(source.sequence, tuple);
        source.in_place_list = false;
        source.count = PyTuple_GET_SIZE(tuple);
        Py_SETREF(result, PyList_New(source.count));
        if (result == NULL)
            goto fail;
    }

    /* Out of the collector's sight until it is returned: gc.get_objects()
     * in another thread must not find the list, whose digests are written
     * without the GIL, and clear it under the writing. */
    PyObject_GC_UnTrack(result);

    const Py_ssize_t count = source.count;
    const Py_ssize_t chunk_len = count < CHUNK_MESSAGES ? count : CHUNK_MESSAGES;
    c.capacity = chunk_len;
    c.messages = PyMem_Malloc(chunk_len != 0 ? (size_t)chunk_len * sizeof(fd_message) : 1);
    if (c.messages == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (source.in_place_list) {
        c.held = PyMem_Malloc(chunk_len != 0 ? (size_t)chunk_len * sizeof(PyObject *) : 1);
        if (c.held == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
    }

    for (Py_ssize_t start = 0; start < count; start += chunk_len) {
        const Py_ssize_t n = count - start < chunk_len ? count - start : chunk_len;
        if (gather_chunk(&source, &c, start, n) < 0)
            goto fail;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *digest =
                PyBytes_FromStringAndSize(NULL, (Py_ssize_t)algorithm->digest_len);
            if (digest == NULL)
                goto fail;
            c.messages[i].digest = (uint8_t *)PyBytes_AS_STRING(digest);
            PyList_SET_ITEM(result, start + i, digest);
        }
        if (worth_releasing_gil(c.messages, n, algorithm->block_len)) {
            Py_BEGIN_ALLOW_THREADS
            fd_hash_many_using(multi, (enum fd_algorithm_id)id, c.messages, (size_t)n);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_hash_many_using(multi, (enum fd_algorithm_id)id, c.messages, (size_t)n);
        }
        release_chunk(&c);
    }
    PyObject_GC_Track(result);
    goto done;

fail:
    Py_CLEAR(result);
done:
    release_chunk(&c);
    PyMem_Free(c.views);
    PyMem_Free(c.held);
    PyMem_Free(c.messages);
    Py_DECREF(source.sequence);
    return result;
}

static PyObject *fastdigest_digest_many(PyObject *module, PyObject *const *args,
                                        Py_ssize_t nargs)
{
    return digest_many(module, args, nargs, true);
}

PyDoc_STRVAR(digest_many_single_stream_doc,
             "_digest_many_single_stream($module, name, messages, /)\n--\n\n"
             "digest_many() without the multi-buffer kernels: every message through the\n"
             "single-stream kernel. For benchmarks (benchmarks/bench_batch.py).");

static PyObject *fastdigest_digest_many_single_stream(PyObject *module, PyObject *const *args,
                                                      Py_ssize_t nargs)
{
    return digest_many(module, args, nargs, false);
}

static PyMethodDef batch_methods[] = {
    {"digest_many", (PyCFunction)(void (*)(void))fastdigest_digest_many, METH_FASTCALL,
     digest_many_doc},
    {"_digest_many_single_stream",
     (PyCFunction)(void (*)(void))fastdigest_digest_many_single_stream, METH_FASTCALL,
     digest_many_single_stream_doc},
    {NULL, NULL, 0, NULL},
};

int fd_batch_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;

    if (PyModule_AddFunctions(module, batch_methods) < 0)
        return -1;
    /* {"md5": "avx512_x16", "sha256": "shani_x2", ...}: what each
     * algorithm's batches run on, a multi-buffer kernel or else the
     * single-stream one. */
    const char *kernel_of_family[FD_FAMILY_COUNT];
    for (int family = 0; family < FD_FAMILY_COUNT; family++) {
        const char *multi = fd_active_multi_kernels[family].name;
        kernel_of_family[family] = multi != NULL ? multi : fd_active_kernels[family].name;
    }
    PyObject *implementation = fd_kernels_by_algorithm(kernel_of_family);
    if (implementation == NULL)
        return -1;
    int added = PyModule_AddObjectRef(module, "batch_implementation", implementation);
    Py_DECREF(implementation);
    return added;
}
