/* digest_many(name, messages, /, *, hex=False, threads=None, out=None):
 * many one-shot digests in one call, hashed by the batch driver
 * (hash/batch.c) with the multi-buffer kernels; and the same for
 * fastdigest.hmac.digest_many, whose arguments hmac.c binds before it hands
 * the messages here (fd_many_messages), with the job of HMACs under one
 * keyed state. This file is the call: its arguments, its results, and the
 * order in which its chunks are hashed; batch_messages.c finds the
 * messages, batch_stretches.c hashes a list of bytes into out= in held
 * stretches (batch.h: what the three share).
 *
 * The results go into a list of bytes (or of str, with hex), made first,
 * or into the caller's buffer (out=), held from the start of the call to
 * its end. The batch is worked through in chunks (see digest_many): a
 * chunk's buffers are located with the GIL, its result objects made (none
 * with out=), and the chunk hashed in one call of the driver, straight into
 * the results, without the GIL once the work is worth releasing it, on more
 * than one thread once it is worth those. A long batch with more than one
 * thread is pipelined instead: other threads hash its chunks while the
 * calling thread prepares the next (hash_pipelined). Besides the result
 * objects, the only allocations are of chunk size (a few chunks' when
 * pipelined): the (pointer, length, digest) triples the driver reads, the
 * references, and, when some items are not exactly bytes, their views. */
#include "python/hash_api/batch.h"

#include <stdint.h>
#include <string.h>

/* Hashing costs about one block's work per message even when the messages
 * are empty (the padding block; an HMAC's outer block is another), so the
 * work of a batch counts that too. */
static bool worth_releasing_gil(const fd_message *messages, Py_ssize_t count, size_t overhead)
{
    size_t work = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        work += messages[i].len + overhead;
        if (work >= fd_gil_minsize())
            return true;
    }
    return false;
}

/* Locates the bytes of items [start, start + n) and aims each message's
 * digest at its place: in out, or in a new result object of the list, a
 * bytes object or with hex an ASCII str (its digits written after it is
 * made, as hexdigest() makes one, before anything else can see it).
 * Returns 0, or -1 with an exception set; with without_python, cannot fail
 * and needs no GIL. */
static int prepare_chunk(fd_many_call *call, fd_many_chunk *c, Py_ssize_t start, Py_ssize_t n)
{
    const Py_ssize_t result_len = (Py_ssize_t)call->result_len;
    PyObject *const list = call->result;

    if (call->source.has_rows)
        fd_many_locate_rows(&call->source, c, start, n);
    else if (fd_many_gather_items(&call->source, c, start, n, call->get_buffer,
                                  call->has_out ? &call->out : NULL) < 0)
        return -1;
    if (call->has_out) {
        for (Py_ssize_t i = 0; i < n; i++)
            c->messages[i].digest = fd_many_digest_in_out(call, start + i);
        return 0;
    }
    /* A loop for each kind of object, so that the one that runs tests
     * nothing per message beside its making. */
    if (call->hex) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *digest = PyUnicode_New(result_len, 127);
            if (digest == NULL)
                return -1;
            c->messages[i].digest = PyUnicode_1BYTE_DATA(digest);
            PyList_SET_ITEM(list, start + i, digest);
        }
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *digest = PyBytes_FromStringAndSize(NULL, result_len);
        if (digest == NULL)
            return -1;
        c->messages[i].digest = (uint8_t *)PyBytes_AS_STRING(digest);
        PyList_SET_ITEM(list, start + i, digest);
    }
    return 0;
}

/* ---- hashing the chunks ------------------------------------------------- */

/* The batch in chunks, each located, given its result objects and hashed
 * before the next is read (see digest_many): on the calling thread, and
 * when a chunk's work is large enough (long messages), on several. Chunks
 * that can be are hashed in held stretches, each ended once it has a
 * thread's work. */
static int hash_chunk_by_chunk(fd_many_call *call)
{
    const size_t overhead = fd_batch_message_overhead(&call->job);
    const Py_ssize_t count = call->source.count;
    const Py_ssize_t chunk_len = count < FD_MANY_CHUNK_MESSAGES ? count : FD_MANY_CHUNK_MESSAGES;
    fd_many_chunk c = {0, NULL, NULL, 0, NULL, 0};
    int status = fd_many_allocate_chunk(&c, chunk_len, call->source.in_place_list);
    size_t stretch_work = 0; /* of the held stretch under way */

    for (Py_ssize_t start = 0; status == 0 && start < count; start += chunk_len) {
        const Py_ssize_t n = count - start < chunk_len ? count - start : chunk_len;
        const size_t work = fd_many_in_stretches(call)
                                ? fd_many_locate_stretch_chunk(call, c.messages, start, n)
                                : FD_MANY_NOT_IN_A_STRETCH;
        if (work != FD_MANY_NOT_IN_A_STRETCH) {
            /* In a held stretch: hashed here, with the GIL. */
            fd_batch_run(&call->job, c.messages, (size_t)n);
            stretch_work += work;
            if (stretch_work >= FD_MANY_STRETCH_WORK_PER_THREAD) {
                fd_many_end_stretch();
                stretch_work = 0;
            }
            continue;
        }
        status = prepare_chunk(call, &c, start, n);
        if (status < 0)
            break;
        if (worth_releasing_gil(c.messages, n, overhead)) {
            Py_BEGIN_ALLOW_THREADS
                fd_hash_many_parallel(&call->job, c.messages, (size_t)n, call->threads);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_batch_run(&call->job, c.messages, (size_t)n);
        }
        fd_many_release_chunk(&c);
    }
    fd_many_free_chunk(&c);
    return status;
}

/* fd_hash_many_pipelined's producer: chunk after chunk prepared in the
 * slots' arrays, from the batch's chunk `first` on, with the GIL, which the
 * calling thread holds only while it prepares (and not even then for rows
 * into out: without_python). It stops the pipeline before a chunk that can
 * be in a held stretch. */
typedef struct pipeline_slots {
    fd_many_call *call;
    fd_many_chunk *slots;
    size_t first;         /* the batch's chunk that is the pipeline's chunk 0 */
    size_t stopped_at;    /* the batch's chunk the producer stopped before */
    bool failed;          /* stopped by an exception */
    PyThreadState *saved; /* the calling thread's, while it is detached */
} pipeline_slots;

static bool produce_chunk(void *context, size_t chunk_index, size_t slot,
                          const fd_message **messages, size_t *count)
{
    pipeline_slots *pipeline = context;
    fd_many_call *call = pipeline->call;
    fd_many_chunk *c = &pipeline->slots[slot];
    const size_t batch_chunk = pipeline->first + chunk_index;
    const Py_ssize_t start = (Py_ssize_t)batch_chunk * FD_MANY_CHUNK_MESSAGES;
    const Py_ssize_t n = fd_many_chunk_messages(call, batch_chunk);

    if (!call->without_python)
        PyEval_RestoreThread(pipeline->saved);
    fd_many_release_chunk(c); /* the slot's previous chunk, hashed */
    /* The pipeline's first chunk is prepared whatever it is, so that the
     * batch goes on. */
    bool produced = chunk_index == 0 || !fd_many_in_stretches(call) ||
                    fd_many_locate_stretch_chunk(call, c->messages, start, n) ==
                        FD_MANY_NOT_IN_A_STRETCH;
    if (produced && prepare_chunk(call, c, start, n) < 0) {
        produced = false;
        pipeline->failed = true;
    }
    if (!call->without_python)
        pipeline->saved = PyEval_SaveThread();
    if (!produced)
        pipeline->stopped_at = batch_chunk;
    *messages = c->messages;
    *count = (size_t)n;
    return produced;
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
 * whatever the threads.
 *
 * A list of bytes into out= goes instead in held stretches (fd_many_hash_stretch),
 * each on the same threads, which then locate their chunks themselves; a
 * chunk that cannot be in a stretch goes through a pipeline, which runs
 * from it to the next chunk that can (to the end, for any other source).
 * A stretch's threads, and a pipeline's, are made anew for each. */
static int hash_pipelined(fd_many_call *call, size_t threads)
{
    const Py_ssize_t count = call->source.count;
    const size_t chunk_count = ((size_t)count + FD_MANY_CHUNK_MESSAGES - 1) /
                               FD_MANY_CHUNK_MESSAGES;
    const size_t slot_count = threads + 1;
    pipeline_slots pipeline = {.call = call,
                               .slots = PyMem_Calloc(slot_count, sizeof(fd_many_chunk))};
    bool unfit = false; /* the next chunk cannot be in a stretch */
    int status = -1;

    if (pipeline.slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t slot = 0; slot < slot_count; slot++) {
        if (fd_many_allocate_chunk(&pipeline.slots[slot], FD_MANY_CHUNK_MESSAGES,
                                   call->source.in_place_list) < 0)
            goto done;
    }
    for (size_t next = 0; next < chunk_count;) {
        if (!unfit && fd_many_in_stretches(call)) {
            /* Its threads locate their chunks in the slots' arrays, which
             * hold nothing between two pipelines. */
            next = fd_many_hash_stretch(call, pipeline.slots, next, threads, &unfit);
            fd_many_end_stretch();
            continue;
        }
        pipeline.first = next;
        pipeline.stopped_at = chunk_count;
        pipeline.saved = PyEval_SaveThread();
        fd_hash_many_pipelined(&call->job, chunk_count - next, slot_count, threads, produce_chunk,
                               &pipeline);
        PyEval_RestoreThread(pipeline.saved);
        /* Once every chunk is hashed (fd_hash_many_pipelined returns only
         * then, also when the producer stopped it), the references go:
         * dropping the last one may run Python code (a view's exporter, a
         * finalizer). */
        for (size_t slot = 0; slot < slot_count; slot++)
            fd_many_release_chunk(&pipeline.slots[slot]);
        if (pipeline.failed)
            goto done;
        unfit = false;
        next = pipeline.stopped_at;
    }
    status = 0;
done:
    for (size_t slot = 0; slot < slot_count; slot++)
        fd_many_free_chunk(&pipeline.slots[slot]);
    PyMem_Free(pipeline.slots);
    return status;
}

/* ---- where the digests go ------------------------------------------------ */

/* The out= argument: a writable C-contiguous buffer of any shape and item
 * size, in which the digests are written one after another. Refused as
 * Argument Clinic's read-write buffer converter refuses one (readinto(),
 * recv_into()), in the same words, but a non-contiguous one gets the
 * contiguity message, which says what is wrong with it, where that
 * converter's request fails first and calls it not read-write. Returns 0
 * with the view held, or -1 with TypeError set. */
static int get_out_buffer(PyObject *out, Py_buffer *view)
{
    if (PyObject_GetBuffer(out, view, PyBUF_STRIDES) < 0) {
        PyErr_Clear();
    }
    else if (view->readonly) {
        PyBuffer_Release(view);
    }
    else if (!PyBuffer_IsContiguous(view, 'C')) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError,
                     "digest_many() argument 'out' must be contiguous buffer, not %.50s",
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    else {
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "digest_many() argument 'out' must be read-write bytes-like object, not %.50s",
                 Py_TYPE(out)->tp_name);
    return -1;
}

/* out= must hold exactly the batch's digests (or hex digests). Returns 0,
 * or -1 with ValueError set. */
static int check_out_size(const fd_many_call *call)
{
    const Py_ssize_t count = call->source.count;
    const size_t result_len = call->result_len;
    const char *what = call->hex ? "hex digests" : "digests";

    if (result_len != 0 && (size_t)count > (size_t)PY_SSIZE_T_MAX / result_len) {
        PyErr_Format(PyExc_ValueError,
                     "digest_many() argument 'out' must be %zd %s of %zu bytes, "
                     "more than a buffer can hold",
                     count, what, result_len);
        return -1;
    }
    if ((size_t)call->out.len != (size_t)count * result_len) {
        PyErr_Format(PyExc_ValueError,
                     "digest_many() argument 'out' must be %zu bytes long (%zd %s of %zu "
                     "bytes), not %zd",
                     (size_t)count * result_len, count, what, result_len, call->out.len);
        return -1;
    }
    return 0;
}

/* The result list, untracked by the collector until it is returned:
 * gc.get_objects() in another thread must not find the list, whose digests
 * are written without the GIL, and clear it under the writing. Returns 0,
 * or -1 with an exception set. */
static int make_result_list(fd_many_call *call)
{
    fd_many_source *source = &call->source;

    call->result = PyList_New(source->count);
    if (call->result == NULL)
        return -1;
    if (source->in_place_list && PyList_GET_SIZE(source->sequence) != source->count) {
        /* Making the result list collected garbage, and a finalizer changed
         * the list: the batch is the list as it is now, as a snapshot. */
        PyObject *tuple = PyList_AsTuple(source->sequence);
        if (tuple == NULL)
            return -1;
        Py_SETREF(source->sequence, tuple);
        source->in_place_list = false;
        source->count = PyTuple_GET_SIZE(tuple);
        Py_SETREF(call->result, PyList_New(source->count));
        if (call->result == NULL)
            return -1;
    }
    PyObject_GC_UnTrack(call->result);
    return 0;
}

/* ---- digests fastdigest does not compute ---------------------------------- */

/* Whether item's bytes share memory with out. An item without a buffer
 * cannot; the standard library raises its own error for it. */
static bool item_shares_memory(PyObject *item, const Py_buffer *out)
{
    Py_buffer view;

    if (!PyObject_CheckBuffer(item))
        return false;
    if (PyObject_GetBuffer(item, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return false;
    }
    const bool shared = fd_many_shares_memory(view.buf, (size_t)view.len, out);
    PyBuffer_Release(&view);
    return shared;
}

/* Each message's MAC from mac->function (the standard library's
 * hmac.digest), in order, on the calling thread with the GIL: the loop a
 * caller would write, with digest_many's inputs and out=. Rows go to it as
 * bytes copies, which it may keep. Returns 0, or -1 with an exception set. */
static int call_python_macs(fd_many_call *call, const fd_python_mac *mac)
{
    const fd_many_source *source = &call->source;

    for (Py_ssize_t i = 0; i < source->count; i++) {
        PyObject *message = source->has_rows
                                ? PyBytes_FromStringAndSize((const char *)fd_many_row(source, i),
                                                            (Py_ssize_t)source->row_len)
                                : Py_NewRef(PyTuple_GET_ITEM(source->sequence, i));
        if (message == NULL)
            return -1;
        if (call->has_out && !source->has_rows && item_shares_memory(message, &call->out)) {
            Py_DECREF(message);
            fd_many_raise_shared_memory(i);
            return -1;
        }
        PyObject *digest = PyObject_CallFunctionObjArgs(mac->function, mac->key, message,
                                                        mac->digestmod, NULL);
        Py_DECREF(message);
        if (digest == NULL) {
            fd_many_name_bad_item(i);
            return -1;
        }
        if (!PyBytes_Check(digest) || (size_t)PyBytes_GET_SIZE(digest) != call->digest_len) {
            PyErr_Format(PyExc_ValueError,
                         "digest_many() item %zd: hmac.digest() returned %R, not %zu bytes", i,
                         digest, call->digest_len);
            Py_DECREF(digest);
            return -1;
        }
        const uint8_t *bytes = (const uint8_t *)PyBytes_AS_STRING(digest);
        if (call->has_out) {
            if (call->hex)
                fd_hex_encode(bytes, call->digest_len, (char *)fd_many_digest_in_out(call, i));
            else
                memcpy(fd_many_digest_in_out(call, i), bytes, call->digest_len);
            Py_DECREF(digest);
        }
        else if (call->hex) {
            PyObject *hex = fd_hex_string(bytes, call->digest_len);
            Py_DECREF(digest);
            if (hex == NULL)
                return -1;
            PyList_SET_ITEM(call->result, i, hex);
        }
        else {
            PyList_SET_ITEM(call->result, i, digest);
        }
    }
    return 0;
}

/* ---- a call -------------------------------------------------------------- */

PyObject *fd_many_messages(const fd_many_request *request, PyObject *messages, PyObject *out)
{
    const fd_python_mac *python_mac = request->python_mac;
    fd_many_call call = {.get_buffer = request->get_buffer,
                         .digest_len = request->digest_len,
                         .hex = request->hex,
                         .result_len = request->hex ? 2 * request->digest_len : request->digest_len,
                         .threads = request->threads};
    PyObject *returned = NULL;
    int status = -1;

    if (request->job != NULL) {
        call.job = *request->job;
        call.job.hex = request->hex;
    }
    /* out= first, as an argument converter would take it, and held from
     * now on: an iterable gathered below cannot resize it. */
    if (out != NULL && out != Py_None) {
        if (get_out_buffer(out, &call.out) < 0)
            return NULL;
        call.has_out = true;
    }
    /* A standard library loop runs Python code between the messages, which
     * may change a list: it gets a snapshot. */
    if (fd_many_open_source(&call.source, messages, python_mac == NULL) < 0)
        goto done;
    if (call.has_out) {
        if (check_out_size(&call) < 0)
            goto done;
        if (call.source.has_rows) {
            const Py_ssize_t shared = fd_many_first_row_sharing(&call.source, &call.out);
            if (shared != FD_MANY_NO_ITEM) {
                fd_many_raise_shared_memory(shared);
                goto done;
            }
        }
        call.without_python = call.source.has_rows;
    }
    else if (make_result_list(&call) < 0) {
        goto done;
    }

    if (python_mac != NULL) {
        status = call_python_macs(&call, python_mac);
    }
    else {
        /* Each message is at least the job's overhead of work: the threads
         * this batch surely has work for. */
        size_t pipeline_threads = (size_t)call.source.count /
                                  (FD_BATCH_MIN_WORK_PER_THREAD /
                                   fd_batch_message_overhead(&call.job));
        if (pipeline_threads > call.threads)
            pipeline_threads = call.threads;
        status = pipeline_threads > 1 ? hash_pipelined(&call, pipeline_threads)
                                      : hash_chunk_by_chunk(&call);
    }
    if (status == 0) {
        if (call.has_out) {
            returned = Py_NewRef(out);
        }
        else {
            PyObject_GC_Track(call.result);
            returned = Py_NewRef(call.result);
        }
    }

done:
    Py_XDECREF(call.result);
    fd_many_close_source(&call.source);
    if (call.has_out)
        PyBuffer_Release(&call.out);
    return returned;
}

int fd_bind_many_arguments(PyObject *module, Py_ssize_t npositional, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, fd_many_options *options)
{
    if (nargs != npositional) {
        PyErr_Format(PyExc_TypeError, "digest_many expected %zd arguments, got %zd", npositional,
                     nargs);
        return -1;
    }
    /* The positional-only ones counted above, and hex, threads and out
     * alone bound by name, as digest_array binds its keywords; hex taken
     * for its truth, as digest_array takes it. */
    static const char *const names[] = {"hex", "threads", "out"};
    static const fd_signature signature = {.function = "digest_many", FD_PARAMETERS(names)};
    PyObject *bound[3];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return -1;
    options->hex = false;
    if (bound[0] != NULL) {
        const int truth = PyObject_IsTrue(bound[0]);
        if (truth < 0)
            return -1;
        options->hex = truth != 0;
    }
    options->out = bound[2];
    return fd_parse_threads(bound[1] != NULL ? bound[1] : Py_None, "digest_many",
                            &options->threads);
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, name, messages, /, *, hex=False, threads=None, "
             "out=None)\n--\n\n"
             "Return the digests of many messages as a list of bytes, in order:\n"
             "[digest(name, m) for m in messages] in one call; with hex=True as a\n"
             "list of str, [hexdigest(name, m) for m in messages]. name is an algorithm\n"
             "name, as new() takes it, or one of fastdigest's constructors;\n"
             "messages is any iterable of bytes-like objects, or a 2-D buffer whose\n"
             "rows are the messages. Several messages are hashed at once where the\n"
             "CPU allows (multi-buffer kernels), and the GIL is released while the\n"
             "batch is hashed.\n\n"
             "threads is the most threads to hash on, the calling one included:\n"
             "None (the default) for every CPU this process may run on, 1 for the\n"
             "calling thread alone. A batch is hashed on one thread for every\n"
             "megabyte or so of work (each message counts its length plus one\n"
             "block), at most threads, so a small batch stays on the calling thread;\n"
             "the results and errors are the same for any threads.\n\n"
             "out, a writable C-contiguous buffer of exactly len(messages) *\n"
             "digest_size bytes, receives the digests one after another instead of a\n"
             "list, and is returned; with hex=True, their hex digits as ASCII bytes,\n"
             "2 * digest_size a message.");

/* digest_many, and with multi_buffer false the same on the single-stream
 * kernel alone (for benchmarks).
 *
 * The batch is worked through in chunks of FD_MANY_CHUNK_MESSAGES messages: a
 * chunk's items are located, its result objects made and each message's
 * digest pointer aimed into its own bytes object (or into out=), then the
 * chunk is hashed in one call of the driver, without the GIL when the chunk
 * is worth it. Chunks keep the objects in the caches between those steps:
 * done for the whole batch at once, every step read each of 100,000 objects
 * from memory again (at 64 bytes a message, with the tuple copied from a
 * list, about a fifth of the time went to that and to batch-sized arrays).
 * A chunk's result objects are reachable from nowhere else until the list
 * is returned, so writing them without the GIL is safe. With more than one
 * thread and a batch whose work is surely enough for two (each message
 * costs at least a block), other threads hash the chunks while the calling
 * thread prepares the next (hash_pipelined).
 *
 * A tuple is read as it is, and a list in place (with a GIL: under free
 * threading another thread could change the list while it is read, so
 * there it is copied to a tuple first, as any other iterable is), its
 * items held by references while the GIL is released; or, into out=, in
 * held stretches that keep the GIL instead and need no references. */
static PyObject *digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, bool multi_buffer)
{
    fd_many_options options;
    if (fd_bind_many_arguments(module, 2, args, nargs, kwnames, &options) < 0)
        return NULL;
    int id = fd_algorithm_from_object(module, args[0], "digest_many", "1");
    if (id < 0)
        return NULL;
    if (multi_buffer && fd_settle_batch_kernel(fd_algorithms[id].family) < 0)
        return NULL;
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_batch_job job = {
        .multi = multi_buffer ? fd_batch_multi_kernel(algorithm->family) : NULL,
        .id = (enum fd_algorithm_id)id,
        .hmac = NULL,
    };
    const fd_many_request request = {.job = &job,
                                     .get_buffer = fd_get_buffer,
                                     .python_mac = NULL,
                                     .digest_len = algorithm->digest_len,
                                     .hex = options.hex,
                                     .threads = options.threads};
    return fd_many_messages(&request, args[1], options.out);
}

static PyObject *fastdigest_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames)
{
    return digest_many(module, args, nargs, kwnames, true);
}

PyDoc_STRVAR(digest_many_single_stream_doc,
             "_digest_many_single_stream($module, name, messages, /, *, hex=False, "
             "threads=None, out=None)\n--\n\n"
             "digest_many() without the multi-buffer kernels: every message through the\n"
             "single-stream kernel. For benchmarks (benchmarks/bench_batch.py).");

static PyObject *fastdigest_digest_many_single_stream(PyObject *module, PyObject *const *args,
                                                      Py_ssize_t nargs, PyObject *kwnames)
{
    return digest_many(module, args, nargs, kwnames, false);
}

PyDoc_STRVAR(batch_implementation_doc,
             "_batch_implementation($module, /)\n--\n\n"
             "fastdigest.batch_implementation, made on its first use, which checks\n"
             "every multi-buffer kernel not yet checked by a batch.");

/* {"md5": "avx512_x16", "sha256": "shani_x2", ...}: what each algorithm's
 * batches run on, a multi-buffer kernel or else the single-stream one. */
static PyObject *fastdigest_batch_implementation(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    (void)module;
    const char *kernel_of_family[FD_FAMILY_COUNT];
    for (int family = 0; family < FD_FAMILY_COUNT; family++) {
        if (fd_settle_batch_kernel((enum fd_family)family) < 0)
            return NULL;
        const fd_multi_kernel *multi = fd_batch_multi_kernel((enum fd_family)family);
        kernel_of_family[family] = multi != NULL ? multi->name : fd_active_kernels[family].name;
    }
    return fd_kernels_by_algorithm(kernel_of_family);
}

static PyMethodDef batch_methods[] = {
    {"digest_many", (PyCFunction)(void (*)(void))fastdigest_digest_many,
     METH_FASTCALL | METH_KEYWORDS, digest_many_doc},
    {"_digest_many_single_stream",
     (PyCFunction)(void (*)(void))fastdigest_digest_many_single_stream,
     METH_FASTCALL | METH_KEYWORDS, digest_many_single_stream_doc},
    {"_batch_implementation", fastdigest_batch_implementation, METH_NOARGS,
     batch_implementation_doc},
    {NULL, NULL, 0, NULL},
};

int fd_batch_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, batch_methods);
}
