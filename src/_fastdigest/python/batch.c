/* digest_many(name, messages, /, *, threads=None): many one-shot digests in
 * one call, hashed by the batch driver (core/batch.c) with the multi-buffer
 * kernels.
 *
 * The result list is made first; then the batch is worked through in chunks
 * (see digest_many): a chunk's buffers are located with the GIL, its result
 * objects made, and the chunk hashed in one call of the driver, straight
 * into the result objects, without the GIL once the work is worth releasing
 * it, on more than one thread once it is worth those. A long batch with
 * more than one thread is pipelined instead: other threads hash its chunks
 * while the calling thread prepares the next (hash_pipelined). A list (with
 * a GIL) or a tuple is read in place; any other iterable is gathered into a
 * tuple first. Besides the result objects, the only allocations are of
 * chunk size (a few chunks' when pipelined): the (pointer, length, digest)
 * triples the driver reads, the references that keep a list's items alive
 * while their chunk is hashed, and, when some items are not exactly bytes,
 * their views. */
#include "python/binding.h"

#include "core/batch.h"

/* Rewrites the exception fd_get_buffer set for item `index` so that its
 * message names the item, keeping its type. Only the built-in types a
 * buffer request raises are rewritten: they take a message as their one
 * argument. Anything else an exporter raises passes through unchanged. */
static void name_bad_item(Py_ssize_t index)
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
    Py_ssize_t count; /* the batch size, fixed at the start */
} item_source;

/* The arrays of one chunk, allocated once per call at chunk size. */
typedef struct chunk {
    Py_ssize_t capacity;
    fd_message *messages;
    PyObject **held; /* items of a list read in place, held until hashed */
    Py_ssize_t held_count;
    Py_buffer *views; /* made when the first item that is not bytes comes */
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

/* Allocates the arrays of a chunk for up to capacity messages (held only
 * for a list read in place). Returns 0, or -1 with MemoryError set. */
static int allocate_chunk(chunk *c, Py_ssize_t capacity, bool hold)
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

static void free_chunk(chunk *c)
{
    release_chunk(c);
    PyMem_Free(c->views);
    PyMem_Free(c->held);
    PyMem_Free(c->messages);
}

/* Locates the bytes of items [start, start + n) (gather_chunk), makes
 * their result objects in result and aims each message's digest into its
 * own. Returns 0, or -1 with an exception set. */
static int prepare_chunk(item_source *source, chunk *c, PyObject *result, size_t digest_len,
                         Py_ssize_t start, Py_ssize_t n)
{
    if (gather_chunk(source, c, start, n) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *digest = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)digest_len);
        if (digest == NULL)
            return -1;
        c->messages[i].digest = (uint8_t *)PyBytes_AS_STRING(digest);
        PyList_SET_ITEM(result, start + i, digest);
    }
    return 0;
}

/* What a digest_many call hashes with, and into. */
typedef struct many_call {
    fd_batch_job job; /* its multi NULL: the single-stream kernel alone */
    size_t threads;
    item_source source;
    PyObject *result;
} many_call;

/* The batch in chunks, each located, given its result objects and hashed
 * before the next is read (see digest_many): on the calling thread, and
 * when a chunk's work is large enough (long messages), on several. */
static int hash_chunk_by_chunk(many_call *call)
{
    const fd_algorithm *algorithm = &fd_algorithms[call->job.id];
    const Py_ssize_t count = call->source.count;
    const Py_ssize_t chunk_len = count < CHUNK_MESSAGES ? count : CHUNK_MESSAGES;
    chunk c = {0, NULL, NULL, 0, NULL, 0};
    int status = allocate_chunk(&c, chunk_len, call->source.in_place_list);

    for (Py_ssize_t start = 0; status == 0 && start < count; start += chunk_len) {
        const Py_ssize_t n = count - start < chunk_len ? count - start : chunk_len;
        status = prepare_chunk(&call->source, &c, call->result, algorithm->digest_len, start, n);
        if (status < 0)
            break;
        if (worth_releasing_gil(c.messages, n, algorithm->block_len)) {
            Py_BEGIN_ALLOW_THREADS
                fd_hash_many_parallel(&call->job, c.messages, (size_t)n, call->threads);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_batch_run(&call->job, c.messages, (size_t)n);
        }
        release_chunk(&c);
    }
    free_chunk(&c);
    return status;
}

/* fd_hash_many_pipelined's producer: chunk after chunk prepared in the
 * slots' arrays, with the GIL, which the calling thread holds only while it
 * prepares. */
typedef struct pipeline_slots {
    many_call *call;
    chunk *slots;
    PyThreadState *saved; /* the calling thread's, while it is detached */
} pipeline_slots;

static bool produce_chunk(void *context, size_t chunk_index, size_t slot,
                          const fd_message **messages, size_t *count)
{
    pipeline_slots *pipeline = context;
    many_call *call = pipeline->call;
    chunk *c = &pipeline->slots[slot];
    const Py_ssize_t start = (Py_ssize_t)chunk_index * CHUNK_MESSAGES;
    const Py_ssize_t n = call->source.count - start < CHUNK_MESSAGES ? call->source.count - start
                                                                     : CHUNK_MESSAGES;

    PyEval_RestoreThread(pipeline->saved);
    release_chunk(c); /* the slot's previous chunk, hashed */
    int status = prepare_chunk(&call->source, c, call->result,
                               fd_algorithms[call->job.id].digest_len, start, n);
    pipeline->saved = PyEval_SaveThread();
    *messages = c->messages;
    *count = (size_t)n;
    return status == 0;
}

/* The batch's chunks hashed by other threads while the calling thread
 * prepares the next: locating the items and making the result objects
 * (and releasing the items afterwards) needs the calling thread and the
 * GIL, and costs about as much as hashing short messages, so it overlaps
 * with the hashing instead of alternating with it. A few chunks are in
 * hand at once, each in a slot of its own, so that the other threads do not
 * wait for the calling one, and few enough that a chunk's items are
 * released while the calling thread's caches still hold them. Every item
 * stays pinned until its chunk is hashed (held references, views: a
 * bytearray cannot be resized under the threads that read it), and every
 * Python error comes from the preparing, which goes through the items in
 * order on the calling thread: the first bad item is the one reported,
 * whatever the threads. */
static int hash_pipelined(many_call *call, size_t threads)
{
    const Py_ssize_t count = call->source.count;
    const size_t chunk_count = ((size_t)count + CHUNK_MESSAGES - 1) / CHUNK_MESSAGES;
    const size_t slot_count = threads + 1;
    pipeline_slots pipeline = {.call = call, .slots = PyMem_Calloc(slot_count, sizeof(chunk))};
    int status = -1;

    if (pipeline.slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t slot = 0; slot < slot_count; slot++) {
        if (allocate_chunk(&pipeline.slots[slot], CHUNK_MESSAGES, call->source.in_place_list) < 0)
            goto done;
    }
    pipeline.saved = PyEval_SaveThread();
    if (fd_hash_many_pipelined(&call->job, chunk_count, slot_count, threads, produce_chunk,
                               &pipeline))
        status = 0;
    PyEval_RestoreThread(pipeline.saved);
done:
    for (size_t slot = 0; slot < slot_count; slot++)
        free_chunk(&pipeline.slots[slot]);
    PyMem_Free(pipeline.slots);
    return status;
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, name, messages, /, *, threads=None)\n--\n\n"
             "Return the digests of many messages as a list of bytes, in order:\n"
             "[digest(name, m) for m in messages] in one call. name is an algorithm\n"
             "name, as new() takes it, or one of fastdigest's constructors;\n"
             "messages is any iterable of bytes-like objects. Several messages are\n"
             "hashed at once where the CPU allows (multi-buffer kernels), and the\n"
             "GIL is released while the batch is hashed.\n\n"
             "threads is the most threads to hash on, the calling one included:\n"
             "None (the default) for every CPU this process may run on, 1 for the\n"
             "calling thread alone. A batch is hashed on one thread for every\n"
             "megabyte or so of work (each message counts its length plus one\n"
             "block), at most threads, so a small batch stays on the calling thread;\n"
             "the results and errors are the same for any threads.");

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
 * returned, so writing them without the GIL is safe. With more than one
 * thread and a batch whose work is surely enough for two (each message
 * costs at least a block), other threads hash the chunks while the calling
 * thread prepares the next (hash_pipelined).
 *
 * A tuple is read as it is, and a list in place (with a GIL: under free
 * threading another thread could change the list while it is read, so
 * there it is copied to a tuple first, as any other iterable is). */
static PyObject *digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, bool multi_buffer)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_many expected 2 arguments, got %zd", nargs);
        return NULL;
    }
    /* name and messages are positional-only: counted above, and threads
     * alone bound by name, as digest_array binds its keywords. */
    static const char *const names[] = {"threads"};
    static const fd_signature signature = {.function = "digest_many", FD_PARAMETERS(names)};
    PyObject *bound[1];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return NULL;
    PyObject *threads = bound[0];
    many_call call = {
        .job = {.multi = NULL, .hmac = NULL}, .source = {NULL, false, 0}, .result = NULL};
    if (fd_parse_threads(threads != NULL ? threads : Py_None, "digest_many", &call.threads) < 0)
        return NULL;
    int id = fd_algorithm_from_object(module, args[0], "digest_many", "1");
    if (id < 0)
        return NULL;
    const fd_algorithm *algorithm = &fd_algorithms[id];
    call.job.id = (enum fd_algorithm_id)id;
    if (multi_buffer)
        call.job.multi = fd_batch_multi_kernel(algorithm->family);

    item_source *source = &call.source;
#ifndef Py_GIL_DISABLED
    if (PyList_CheckExact(args[1])) {
        source->sequence = Py_NewRef(args[1]);
        source->in_place_list = true;
        source->count = PyList_GET_SIZE(args[1]);
    }
    else
#endif
    {
        source->sequence = PySequence_Tuple(args[1]);
        if (source->sequence == NULL)
            return NULL;
        source->count = PyTuple_GET_SIZE(source->sequence);
    }

    call.result = PyList_New(source->count);
    if (call.result == NULL)
        goto fail;
    if (source->in_place_list && PyList_GET_SIZE(source->sequence) != source->count) {
        /* Making the result list collected garbage, and a finalizer changed
         * the list: the batch is the list as it is now, as a snapshot. */
        PyObject *tuple = PyList_AsTuple(source->sequence);
        if (tuple == NULL)
            goto fail;
        Py_SETREF(source->sequence, tuple);
        source->in_place_list = false;
        source->count = PyTuple_GET_SIZE(tuple);
        Py_SETREF(call.result, PyList_New(source->count));
        if (call.result == NULL)
            goto fail;
    }

    /* Out of the collector's sight until it is returned: gc.get_objects()
     * in another thread must not find the list, whose digests are written
     * without the GIL, and clear it under the writing. */
    PyObject_GC_UnTrack(call.result);

    /* Each message is at least a block of work: the threads this batch
     * surely has work for. */
    size_t pipeline_threads = (size_t)source->count /
                              (FD_BATCH_MIN_WORK_PER_THREAD / algorithm->block_len);
    if (pipeline_threads > call.threads)
        pipeline_threads = call.threads;
    const int status = pipeline_threads > 1 ? hash_pipelined(&call, pipeline_threads)
                                            : hash_chunk_by_chunk(&call);
    if (status < 0)
        goto fail;
    PyObject_GC_Track(call.result);
    Py_DECREF(source->sequence);
    return call.result;

fail:
    Py_CLEAR(call.result);
    Py_DECREF(source->sequence);
    return NULL;
}

static PyObject *fastdigest_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames)
{
    return digest_many(module, args, nargs, kwnames, true);
}

PyDoc_STRVAR(digest_many_single_stream_doc,
             "_digest_many_single_stream($module, name, messages, /, *, threads=None)\n--\n\n"
             "digest_many() without the multi-buffer kernels: every message through the\n"
             "single-stream kernel. For benchmarks (benchmarks/bench_batch.py).");

static PyObject *fastdigest_digest_many_single_stream(PyObject *module, PyObject *const *args,
                                                      Py_ssize_t nargs, PyObject *kwnames)
{
    return digest_many(module, args, nargs, kwnames, false);
}

static PyMethodDef batch_methods[] = {
    {"digest_many", (PyCFunction)(void (*)(void))fastdigest_digest_many,
     METH_FASTCALL | METH_KEYWORDS, digest_many_doc},
    {"_digest_many_single_stream",
     (PyCFunction)(void (*)(void))fastdigest_digest_many_single_stream,
     METH_FASTCALL | METH_KEYWORDS, digest_many_single_stream_doc},
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
