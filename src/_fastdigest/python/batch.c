/* digest_many(name, messages, /, *, threads=None, out=None): many one-shot
 * digests in one call, hashed by the batch driver (hash/batch.c) with the
 * multi-buffer kernels; and the same for fastdigest.hmac.digest_many, whose
 * arguments hmac.c binds before it hands the messages here
 * (fd_many_messages), with the job of HMACs under one keyed state.
 *
 * The results go into a list of bytes, made first, or into the caller's
 * buffer (out=), held from the start of the call to its end. The batch is
 * worked through in chunks (see digest_many): a chunk's buffers are located
 * with the GIL, its result objects made (none with out=), and the chunk
 * hashed in one call of the driver, straight into the results, without the
 * GIL once the work is worth releasing it, on more than one thread once it
 * is worth those. A long batch with more than one thread is pipelined
 * instead: other threads hash its chunks while the calling thread prepares
 * the next (hash_pipelined). A list (with a GIL) or a tuple is read in
 * place, and so are the rows of a 2-D buffer; any other iterable is
 * gathered into a tuple first. A list's items are kept alive while their
 * chunk is hashed by references, or, when the digests go to out= and the
 * items are exactly bytes, by the GIL, which the calling thread then keeps
 * through a stretch of chunks (held stretches), whose threads each locate
 * the chunks they hash. Besides the result objects, the only allocations
 * are of chunk size (a few chunks' when pipelined): the (pointer, length,
 * digest) triples the driver reads, the references, and, when some items
 * are not exactly bytes, their views. */
#include "python/binding.h"

#include <stdint.h>
#include <string.h>

#include "platform/atomic.h"
#include "platform/parallel.h"

/* Rewrites the exception raised for item `index` (by fd_get_buffer, or by
 * the standard library's hmac.digest) so that its message names the item,
 * keeping its type. Only the built-in types a buffer request raises are
 * rewritten: they take a message as their one argument. Anything else an
 * exporter raises passes through unchanged. */
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

/* Messages per chunk. Within a wide range of sizes around this one the
 * speed did not change measurably for short messages; chunks hashed apart
 * each end with lanes idle, a cost that a larger size keeps small
 * (hash/batch.c, drain_lanes). */
#define CHUNK_MESSAGES 2048

/* Where the items come from, and what holds them while their chunk is
 * hashed without the GIL. */
typedef struct item_source {
    PyObject *sequence; /* strong reference: a tuple, or a list read in place */
    bool in_place_list;
    Py_ssize_t count; /* the batch size, fixed at the start */
    /* Or the rows of a 2-D buffer, read in place (sequence NULL): row i is
     * row_len bytes at rows.buf + i * row_stride. The view pins the
     * exporter's memory until the call ends. */
    bool has_rows;
    Py_buffer rows;
    size_t row_len;
    Py_ssize_t row_stride;
} item_source;

static const uint8_t *row_data(const item_source *source, Py_ssize_t index)
{
    return (const uint8_t *)source->rows.buf + index * source->row_stride;
}

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

/* ---- messages that share memory with out= --------------------------------
 *
 * The threads write digests into out= while other threads, or later lanes
 * of the same one, still read messages: a message that shares a byte with
 * out would be hashed before or after some digest overwrote it, depending
 * on the threads and the lanes. So no message may share memory with out,
 * and digest_many refuses one before anything is hashed from it. Pointers
 * into unrelated objects are compared as integers: relational operators on
 * them are undefined in C. */

/* No item index is this large: the mark of no shared memory found. */
#define NO_ITEM PY_SSIZE_T_MAX

static bool shares_memory(const uint8_t *data, size_t len, const Py_buffer *out)
{
    const uintptr_t start = (uintptr_t)data, out_start = (uintptr_t)out->buf;

    return len != 0 && out->len != 0 && start < out_start + (uintptr_t)out->len &&
           out_start < start + len;
}

static void raise_shared_memory(Py_ssize_t index)
{
    PyErr_Format(PyExc_ValueError, "digest_many() item %zd shares memory with argument 'out'",
                 index);
}

/* The first row of a 2-D buffer that shares memory with out, or NO_ITEM.
 * Rows that follow one another are one span, and the first row it shares is
 * found by a division; rows at any other stride are checked one by one. */
static Py_ssize_t first_row_sharing(const item_source *source, const Py_buffer *out)
{
    const size_t row_len = source->row_len;

    if (row_len == 0 || source->count == 0)
        return NO_ITEM;
    if (source->row_stride == (Py_ssize_t)row_len) {
        const uintptr_t start = (uintptr_t)source->rows.buf, out_start = (uintptr_t)out->buf;
        if (!shares_memory(source->rows.buf, (size_t)source->count * row_len, out))
            return NO_ITEM;
        return out_start <= start ? 0 : (Py_ssize_t)((out_start - start) / row_len);
    }
    for (Py_ssize_t i = 0; i < source->count; i++) {
        if (shares_memory(row_data(source, i), row_len, out))
            return i;
    }
    return NO_ITEM;
}

/* ---- locating a chunk's messages ---------------------------------------- */

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
static int gather_items(item_source *source, chunk *c, Py_ssize_t start, Py_ssize_t n,
                        int (*get_buffer)(PyObject *item, Py_buffer *view), const Py_buffer *out)
{
    Py_ssize_t view_count = 0;
    Py_ssize_t shared = NO_ITEM; /* the first item that shares memory with out */

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
            if (out != NULL && shared == NO_ITEM &&
                shares_memory(c->messages[i].data, c->messages[i].len, out))
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
                name_bad_item(start + i);
                return -1;
            }
            c->views_acquired++;
            c->messages[i].data = view->buf;
            c->messages[i].len = (size_t)view->len;
            if (out != NULL && shares_memory(view->buf, (size_t)view->len, out))
                shared = i;
        }
    }
    if (shared != NO_ITEM) {
        raise_shared_memory(start + shared);
        return -1;
    }
    return 0;
}

/* Locates rows [start, start + n) of a 2-D buffer: no Python, no GIL. */
static void locate_rows(const item_source *source, chunk *c, Py_ssize_t start, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        c->messages[i].data = row_data(source, start + i);
        c->messages[i].len = source->row_len;
    }
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

/* What a digest_many call hashes, with what, and into what. */
typedef struct many_call {
    fd_batch_job job;
    int (*get_buffer)(PyObject *item, Py_buffer *view);
    size_t digest_len;
    /* What is written for each message: the digest_len bytes of its
     * digest, or with hex their 2 * digest_len hex digits (a str in the
     * list, ASCII bytes in out). */
    bool hex;
    size_t result_len;
    size_t threads;
    item_source source;
    PyObject *result; /* the list of digests, or NULL when they go to out */
    bool has_out;
    Py_buffer out; /* out=, held from the start of the call to its end */
    /* Rows of a buffer into out: preparing a chunk touches no Python object,
     * and the pipeline's producer runs without the GIL. */
    bool without_python;
} many_call;

/* Where the digest of message `index` goes in out=. */
static uint8_t *digest_in_out(const many_call *call, Py_ssize_t index)
{
    return (uint8_t *)call->out.buf + (size_t)index * call->result_len;
}

/* A new result object for one message, whose bytes the hashing writes at
 * *data: a bytes object, or with hex an ASCII str (its digits written after
 * it is made, as hexdigest() makes one, before anything else can see it).
 * NULL with MemoryError set when there is no memory. */
static PyObject *new_result(const many_call *call, uint8_t **data)
{
    PyObject *result;

    if (call->hex) {
        result = PyUnicode_New((Py_ssize_t)call->result_len, 127);
        if (result != NULL)
            *data = PyUnicode_1BYTE_DATA(result);
    }
    else {
        result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)call->result_len);
        if (result != NULL)
            *data = (uint8_t *)PyBytes_AS_STRING(result);
    }
    return result;
}

/* Locates the bytes of items [start, start + n) and aims each message's
 * digest at its place: in out, or in a new result object of the list.
 * Returns 0, or -1 with an exception set; with without_python, cannot fail
 * and needs no GIL. */
static int prepare_chunk(many_call *call, chunk *c, Py_ssize_t start, Py_ssize_t n)
{
    if (call->source.has_rows)
        locate_rows(&call->source, c, start, n);
    else if (gather_items(&call->source, c, start, n, call->get_buffer,
                          call->has_out ? &call->out : NULL) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (call->has_out) {
            c->messages[i].digest = digest_in_out(call, start + i);
            continue;
        }
        PyObject *digest = new_result(call, &c->messages[i].digest);
        if (digest == NULL)
            return -1;
        PyList_SET_ITEM(call->result, start + i, digest);
    }
    return 0;
}

/* ---- held stretches: a list's items without references ------------------
 *
 * A list read in place is gathered with a reference to each item, dropped
 * once its chunk is hashed, because the GIL is released while the chunk is
 * hashed and another Python thread could then replace an item and free it
 * under the threads that read it. Taking and dropping those references is
 * serial work on the calling thread, under the GIL, and moves each item's
 * cache line between the cores: with short messages on several threads,
 * it caps the speed of the pipeline. So when the digests go to out= (no
 * result objects to make) and the items are exactly bytes (no views), the
 * batch is hashed in held stretches instead: runs of chunks during which
 * the calling thread keeps the GIL. No Python code runs during a stretch,
 * so no item can change or be freed, and none needs a reference. Between
 * two stretches, once every chunk of the first is hashed, the GIL is
 * released for the other Python threads, and the next stretch reads the
 * list again (its size first).
 *
 * On several threads, every thread of a stretch both locates and hashes
 * the chunks it takes (hash_stretch), not the calling thread alone: reading
 * a million items and their headers is a walk through memory that costs
 * about as much as hashing them with the fastest kernels, and done on one
 * thread it would cap the speed as the references did. The threads that
 * are not the calling one have no thread state and never take the GIL, yet
 * may read the list and its items: the calling thread holds the
 * interpreter's GIL from before they start until after they are joined, so
 * no Python code of this interpreter runs meanwhile, and nothing writes the
 * list or the items (exact bytes, immutable); thread creation and joining
 * order their reads after every earlier write. They read fields only, with
 * the public macros (PyList_GET_ITEM, PyBytes_CheckExact,
 * PyBytes_AS_STRING, PyBytes_GET_SIZE): no reference counts, no allocation,
 * no exception. Only with a GIL: under free threading a list is a tuple
 * from the start (open_source), and no stretch is ever held.
 *
 * What keeps a stretch safe: nothing in it may run Python code or allocate
 * a Python object (an allocation may collect garbage, and a finalizer is
 * Python code that may change the list under the threads still reading
 * it), nor raise (an exception is an object, and so is its message). So a
 * stretch hashes only chunks that locate_stretch_chunk accepts; one that
 * it does not (an item that is not exactly bytes, or shares memory with
 * out, a list whose size changed, a chunk of too much work) ends the
 * stretch unhashed, and the same chunk is then gathered the usual way,
 * with references, the GIL and its errors. An item that is not exactly
 * bytes makes that way copy the list to a tuple (snapshot_list), which
 * needs no references: the rest of the batch is no list read in place, and
 * no stretch.
 *
 * That chunk may hold a bad item, whose error promises that no digest
 * after it was written. So on several threads no chunk is hashed until
 * every chunk of the stretch before it is known to fit
 * (chunks_before_fit): a thread that took a later chunk does not hash it
 * while the chunk before, taken by another thread, may still prove unfit. */

/* The work of a stretch for each thread that hashes it (each message
 * counting its length and fd_batch_message_overhead, as
 * worth_releasing_gil counts it). Other Python threads wait for the GIL
 * throughout a stretch, which lasts a thread's share of its work, so a
 * share is kept to what fast kernels hash in less than CPython's switch
 * interval, for which a thread running Python code would keep them
 * waiting anyway (slow kernels on long messages take longer). Larger
 * stretches cost less each: a stretch on threads makes them anew
 * (fd_parallel_run), and ends with a thread idle while the last chunk is
 * hashed, both paid once a stretch. */
#define STRETCH_WORK_PER_THREAD ((size_t)4 << 20)

/* The most work a chunk of a stretch may have: an eighth of a thread's
 * share, so that a thread that has reached its share (hash_stretch) went
 * past it by little, and the threads of a stretch end close together,
 * each waiting at most a chunk for the others. A chunk of more work
 * (longer messages) goes the usual way, where the references cost little
 * beside its hashing. */
#define STRETCH_CHUNK_MAX_WORK (STRETCH_WORK_PER_THREAD / 8)

/* The work no chunk of a stretch has: the mark of one that cannot be in
 * one. */
#define NOT_IN_A_STRETCH SIZE_MAX

/* Whether the next chunks may be hashed in held stretches: their digests
 * go to out=, and the list is still read in place (never under free
 * threading, where it is a tuple from the start). */
static bool in_stretches(const many_call *call)
{
    return call->has_out && call->source.in_place_list;
}

/* The number of messages in the batch's chunk `index`. */
static Py_ssize_t chunk_messages(const many_call *call, size_t index)
{
    const Py_ssize_t start = (Py_ssize_t)index * CHUNK_MESSAGES;
    return call->source.count - start < CHUNK_MESSAGES ? call->source.count - start
                                                       : CHUNK_MESSAGES;
}

/* Locates items [start, start + n) of the list read in place into
 * messages, with their digests aimed into out, for a held stretch; with
 * messages NULL, only finds whether they can be in one. Without
 * references, views or errors, so that it runs no Python code and
 * allocates nothing, and reads the list and its items without changing
 * them, so that any thread may run it while the calling thread holds the
 * GIL (see held stretches), and every thread finds the same. Returns the
 * chunk's work; or NOT_IN_A_STRETCH, with messages partly written, when
 * the list's size changed, or an item is not exactly bytes or shares
 * memory with out, or the chunk's work exceeds STRETCH_CHUNK_MAX_WORK. */
static size_t locate_stretch_chunk(const many_call *call, fd_message *messages, Py_ssize_t start,
                                   Py_ssize_t n)
{
    PyObject *list = call->source.sequence;
    const size_t overhead = fd_batch_message_overhead(&call->job);
    size_t work = 0;

    if (PyList_GET_SIZE(list) != call->source.count)
        return NOT_IN_A_STRETCH;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, start + i);
        if (!PyBytes_CheckExact(item))
            return NOT_IN_A_STRETCH;
        const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(item);
        const size_t len = (size_t)PyBytes_GET_SIZE(item);
        work += len + overhead;
        if (work > STRETCH_CHUNK_MAX_WORK || shares_memory(data, len, &call->out))
            return NOT_IN_A_STRETCH;
        if (messages != NULL)
            messages[i] = (fd_message){data, len, digest_in_out(call, start + i)};
    }
    return work;
}

/* Ends a held stretch: releases the GIL and takes it again, which lets the
 * other Python threads run (CPython hands the GIL over here to a thread
 * that has asked for it). Only once every chunk of the stretch is hashed:
 * from here on any item may change or be freed. */
static void end_stretch(void)
{
    PyEval_RestoreThread(PyEval_SaveThread());
}

/* What the threads of a held stretch share: fd_parallel_run's context for
 * hash_stretch_part. Part p locates its chunks in chunks[p]. */
typedef struct held_stretch {
    const many_call *call;
    chunk *chunks;
    size_t *hashed_ends; /* part p's: one past the last chunk it hashed, or 0 */
    size_t first;        /* the batch's chunk the stretch starts at */
    size_t chunk_count;  /* the batch's */
    /* The threads take chunks first, first + 1, ... from this counter; a
     * thread takes at most one more than its share of chunks of the least
     * work (CHUNK_MESSAGES empty messages of MD5), a few dozen. */
    fd_counter taken;
    /* What the threads have found so far: chunks [first, fit_end) can be in
     * the stretch, and chunk `unfit` (chunk_count while none is known) is
     * the first that cannot. Marks that move one way only
     * (platform/atomic.h), as each thread locates chunks; their values are
     * facts about the list and its items, which nothing writes during the
     * stretch, so every value a thread reads is true, and no other memory
     * is read on the strength of one: relaxed order is enough. */
    fd_size_mark fit_end;
    fd_size_mark unfit;
} held_stretch;

/* Whether every chunk of the stretch before chunk `index`, which the
 * calling thread has located and found fit, can be in it too; then marks
 * `index` itself fit as well. The chunks between fit_end and index were
 * taken by other threads, which may be locating them at this moment:
 * rather than wait for them, this thread finds out itself, locating each
 * without writing it down, and moving the marks for them. */
static bool chunks_before_fit(held_stretch *stretch, size_t index)
{
    size_t fit_end = fd_size_mark_load(&stretch->fit_end);

    while (fit_end < index) {
        if (fd_size_mark_load(&stretch->unfit) < index)
            return false;
        if (locate_stretch_chunk(stretch->call, NULL, (Py_ssize_t)fit_end * CHUNK_MESSAGES,
                                 chunk_messages(stretch->call, fit_end)) == NOT_IN_A_STRETCH) {
            fd_size_mark_lower(&stretch->unfit, fit_end);
            return false;
        }
        fit_end = fd_size_mark_raise(&stretch->fit_end, fit_end + 1);
    }
    fd_size_mark_raise(&stretch->fit_end, index + 1);
    return true;
}

/* One thread of a held stretch: takes chunks in turn, locating and hashing
 * each, until it has hashed its share of the stretch's work, or takes a
 * chunk that cannot be in a stretch or lies beyond one that cannot (which
 * it leaves unhashed). */
static bool hash_stretch_part(void *context, size_t part)
{
    held_stretch *stretch = context;
    const many_call *call = stretch->call;
    chunk *c = &stretch->chunks[part];
    size_t work = 0;

    stretch->hashed_ends[part] = 0;
    while (work < STRETCH_WORK_PER_THREAD) {
        const size_t index = stretch->first + fd_counter_take(&stretch->taken);
        if (index >= fd_size_mark_load(&stretch->unfit))
            break; /* the batch's end, or past a chunk that cannot be in it */
        const Py_ssize_t n = chunk_messages(call, index);
        const size_t chunk_work = locate_stretch_chunk(call, c->messages,
                                                       (Py_ssize_t)index * CHUNK_MESSAGES, n);
        if (chunk_work == NOT_IN_A_STRETCH) {
            fd_size_mark_lower(&stretch->unfit, index);
            break;
        }
        if (!chunks_before_fit(stretch, index))
            break;
        fd_batch_run(&call->job, c->messages, (size_t)n);
        work += chunk_work;
        stretch->hashed_ends[part] = index + 1;
    }
    return true;
}

/* Hashes a held stretch from the batch's chunk `first` on, on up to
 * `threads` threads (the calling one, with the GIL, and others that run
 * only C), each locating and hashing the chunks it takes, and each about
 * STRETCH_WORK_PER_THREAD of them. Returns the first chunk not hashed:
 * every chunk before it is, and none after it, and *unfit says whether
 * that one cannot be in a stretch (it goes the usual way next) or the
 * threads had their shares (or the batch ended). */
static size_t hash_stretch(held_stretch *stretch, size_t first, size_t threads, bool *unfit)
{
    const size_t chunks_left = stretch->chunk_count - first;
    const size_t parts = threads < chunks_left ? threads : chunks_left;
    size_t hashed_end = first;

    stretch->first = first;
    fd_counter_init(&stretch->taken);
    fd_size_mark_set(&stretch->fit_end, first);
    fd_size_mark_set(&stretch->unfit, stretch->chunk_count);
    (void)fd_parallel_run(parts, hash_stretch_part, stretch);
    /* The chunks were taken in order, and each chunk taken before the first
     * that cannot be in the stretch was hashed (chunks_before_fit found every
     * chunk before it fit), none after: the unfit one, when some thread
     * found one, or else one past the last hashed. */
    const size_t first_unfit = fd_size_mark_load(&stretch->unfit);
    *unfit = first_unfit < stretch->chunk_count;
    if (*unfit)
        return first_unfit;
    for (size_t part = 0; part < parts; part++) {
        if (stretch->hashed_ends[part] > hashed_end)
            hashed_end = stretch->hashed_ends[part];
    }
    return hashed_end;
}

/* ---- hashing the chunks ------------------------------------------------- */

/* The batch in chunks, each located, given its result objects and hashed
 * before the next is read (see digest_many): on the calling thread, and
 * when a chunk's work is large enough (long messages), on several. Chunks
 * that can be are hashed in held stretches, each ended once it has a
 * thread's work. */
static int hash_chunk_by_chunk(many_call *call)
{
    const size_t overhead = fd_batch_message_overhead(&call->job);
    const Py_ssize_t count = call->source.count;
    const Py_ssize_t chunk_len = count < CHUNK_MESSAGES ? count : CHUNK_MESSAGES;
    chunk c = {0, NULL, NULL, 0, NULL, 0};
    int status = allocate_chunk(&c, chunk_len, call->source.in_place_list);
    size_t stretch_work = 0; /* of the held stretch under way */

    for (Py_ssize_t start = 0; status == 0 && start < count; start += chunk_len) {
        const Py_ssize_t n = count - start < chunk_len ? count - start : chunk_len;
        const size_t work = in_stretches(call) ? locate_stretch_chunk(call, c.messages, start, n)
                                               : NOT_IN_A_STRETCH;
        if (work != NOT_IN_A_STRETCH) {
            /* In a held stretch: hashed here, with the GIL. */
            fd_batch_run(&call->job, c.messages, (size_t)n);
            stretch_work += work;
            if (stretch_work >= STRETCH_WORK_PER_THREAD) {
                end_stretch();
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
        release_chunk(&c);
    }
    free_chunk(&c);
    return status;
}

/* fd_hash_many_pipelined's producer: chunk after chunk prepared in the
 * slots' arrays, from the batch's chunk `first` on, with the GIL, which the
 * calling thread holds only while it prepares (and not even then for rows
 * into out: without_python). It stops the pipeline before a chunk that can
 * be in a held stretch. */
typedef struct pipeline_slots {
    many_call *call;
    chunk *slots;
    size_t first;         /* the batch's chunk that is the pipeline's chunk 0 */
    size_t stopped_at;    /* the batch's chunk the producer stopped before */
    bool failed;          /* stopped by an exception */
    PyThreadState *saved; /* the calling thread's, while it is detached */
} pipeline_slots;

static bool produce_chunk(void *context, size_t chunk_index, size_t slot,
                          const fd_message **messages, size_t *count)
{
    pipeline_slots *pipeline = context;
    many_call *call = pipeline->call;
    chunk *c = &pipeline->slots[slot];
    const size_t batch_chunk = pipeline->first + chunk_index;
    const Py_ssize_t start = (Py_ssize_t)batch_chunk * CHUNK_MESSAGES;
    const Py_ssize_t n = call->source.count - start < CHUNK_MESSAGES ? call->source.count - start
                                                                     : CHUNK_MESSAGES;

    if (!call->without_python)
        PyEval_RestoreThread(pipeline->saved);
    release_chunk(c); /* the slot's previous chunk, hashed */
    /* The pipeline's first chunk is prepared whatever it is, so that the
     * batch goes on. */
    bool produced = chunk_index == 0 || !in_stretches(call) ||
                    locate_stretch_chunk(call, c->messages, start, n) == NOT_IN_A_STRETCH;
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
 * A list of bytes into out= goes instead in held stretches (hash_stretch),
 * each on the same threads, which then locate their chunks themselves; a
 * chunk that cannot be in a stretch goes through a pipeline, which runs
 * from it to the next chunk that can (to the end, for any other source).
 * A stretch's threads, and a pipeline's, are made anew for each. */
static int hash_pipelined(many_call *call, size_t threads)
{
    const Py_ssize_t count = call->source.count;
    const size_t chunk_count = ((size_t)count + CHUNK_MESSAGES - 1) / CHUNK_MESSAGES;
    const size_t slot_count = threads + 1;
    pipeline_slots pipeline = {.call = call, .slots = PyMem_Calloc(slot_count, sizeof(chunk))};
    /* A stretch's threads locate their chunks in the slots' arrays, which
     * hold nothing between two pipelines. */
    held_stretch stretch = {.call = call, .chunks = pipeline.slots, .chunk_count = chunk_count};
    bool unfit = false; /* the next chunk cannot be in a stretch */
    int status = -1;

    if (pipeline.slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t slot = 0; slot < slot_count; slot++) {
        if (allocate_chunk(&pipeline.slots[slot], CHUNK_MESSAGES, call->source.in_place_list) < 0)
            goto done;
    }
    if (in_stretches(call)) {
        stretch.hashed_ends = PyMem_Malloc(threads * sizeof(size_t));
        if (stretch.hashed_ends == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    for (size_t next = 0; next < chunk_count;) {
        if (!unfit && in_stretches(call)) {
            next = hash_stretch(&stretch, next, threads, &unfit);
            end_stretch();
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
            release_chunk(&pipeline.slots[slot]);
        if (pipeline.failed)
            goto done;
        unfit = false;
        next = pipeline.stopped_at;
    }
    status = 0;
done:
    for (size_t slot = 0; slot < slot_count; slot++)
        free_chunk(&pipeline.slots[slot]);
    PyMem_Free(pipeline.slots);
    PyMem_Free(stretch.hashed_ends);
    return status;
}

/* ---- the messages: items or rows ---------------------------------------- */

/* Takes the rows of messages when it is a 2-D buffer whose rows are each
 * contiguous (a C-contiguous one, or rows picked at any stride): row i is
 * then message i, its bytes as hashlib reads a row (a NumPy array's
 * messages[i]), whatever the item type. Returns 1 when it took them, 0 for
 * anything else, which is iterated as before (a 1-D buffer gives its
 * items, ints for bytes; a NumPy array of more dimensions gives
 * sub-arrays, each refused as an item; an exporter that cannot give a
 * strided view, its items), or -1 with an exception set. */
static int take_rows(item_source *source, PyObject *messages)
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

/* Opens messages as the batch's source: the rows of a 2-D buffer, a list
 * read in place (with a GIL, and only when read_list_in_place), or a tuple
 * (a tuple itself, or any other iterable gathered into one). A list or
 * tuple is never taken for a buffer. Returns 0, or -1 with an exception
 * set. */
static int open_source(item_source *source, PyObject *messages, bool read_list_in_place)
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

static void close_source(item_source *source)
{
    Py_CLEAR(source->sequence);
    if (source->has_rows)
        PyBuffer_Release(&source->rows);
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
static int check_out_size(const many_call *call)
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
static int make_result_list(many_call *call)
{
    item_source *source = &call->source;

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
    const bool shared = shares_memory(view.buf, (size_t)view.len, out);
    PyBuffer_Release(&view);
    return shared;
}

/* Each message's MAC from mac->function (the standard library's
 * hmac.digest), in order, on the calling thread with the GIL: the loop a
 * caller would write, with digest_many's inputs and out=. Rows go to it as
 * bytes copies, which it may keep. Returns 0, or -1 with an exception set. */
static int call_python_macs(many_call *call, const fd_python_mac *mac)
{
    const item_source *source = &call->source;

    for (Py_ssize_t i = 0; i < source->count; i++) {
        PyObject *message = source->has_rows
                                ? PyBytes_FromStringAndSize((const char *)row_data(source, i),
                                                            (Py_ssize_t)source->row_len)
                                : Py_NewRef(PyTuple_GET_ITEM(source->sequence, i));
        if (message == NULL)
            return -1;
        if (call->has_out && !source->has_rows && item_shares_memory(message, &call->out)) {
            Py_DECREF(message);
            raise_shared_memory(i);
            return -1;
        }
        PyObject *digest = PyObject_CallFunctionObjArgs(mac->function, mac->key, message,
                                                        mac->digestmod, NULL);
        Py_DECREF(message);
        if (digest == NULL) {
            name_bad_item(i);
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
                fd_hex_encode(bytes, call->digest_len, (char *)digest_in_out(call, i));
            else
                memcpy(digest_in_out(call, i), bytes, call->digest_len);
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
    many_call call = {.get_buffer = request->get_buffer,
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
    if (open_source(&call.source, messages, python_mac == NULL) < 0)
        goto done;
    if (call.has_out) {
        if (check_out_size(&call) < 0)
            goto done;
        if (call.source.has_rows) {
            const Py_ssize_t shared = first_row_sharing(&call.source, &call.out);
            if (shared != NO_ITEM) {
                raise_shared_memory(shared);
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
    close_source(&call.source);
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
 * The batch is worked through in chunks of CHUNK_MESSAGES messages: a
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
