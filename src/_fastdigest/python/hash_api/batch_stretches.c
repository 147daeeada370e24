/* Held stretches: digest_many's list of bytes into out= without
 * references (python/hash_api/batch.c calls these; batch.h holds the contracts).
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
 * the chunks it takes (fd_many_hash_stretch), not the calling thread alone:
 * reading a million items and their headers is a walk through memory that
 * costs about as much as hashing them with the fastest kernels, and done on
 * one thread it would cap the speed as the references did. The threads that
 * are not the calling one have no thread state and never take the GIL, yet
 * may read the list and its items: the calling thread holds the
 * interpreter's GIL from before they start until after they are joined, so
 * no Python code of this interpreter runs meanwhile, and nothing writes the
 * list or the items (exact bytes, immutable); thread creation and joining
 * order their reads after every earlier write. They read fields only, with
 * the public macros (PyList_GET_ITEM, PyBytes_CheckExact,
 * PyBytes_AS_STRING, PyBytes_GET_SIZE): no reference counts, no allocation,
 * no exception. Only with a GIL: under free threading a list is a tuple
 * from the start (fd_many_open_source), and no stretch is ever held.
 *
 * What keeps a stretch safe: nothing in it may run Python code or allocate
 * a Python object (an allocation may collect garbage, and a finalizer is
 * Python code that may change the list under the threads still reading
 * it), nor raise (an exception is an object, and so is its message). So a
 * stretch hashes only chunks that fd_many_locate_stretch_chunk accepts;
 * one that it does not (an item that is not exactly bytes, or shares memory with
 * out, a list whose size changed, a chunk of too much work) ends the
 * stretch unhashed, and the same chunk is then gathered the usual way,
 * with references, the GIL and its errors. An item that is not exactly
 * bytes makes that way copy the list to a tuple (batch_messages.c), which
 * needs no references: the rest of the batch is no list read in place, and
 * no stretch.
 *
 * That chunk may hold a bad item, whose error promises that no digest
 * after it was written. So on several threads no chunk is hashed until
 * every chunk of the stretch before it is known to fit
 * (chunks_before_fit): a thread that took a later chunk does not hash it
 * while the chunk before, taken by another thread, may still prove unfit. */
#include "python/hash_api/batch.h"

#include <stdint.h>

#include "platform/atomic.h"
#include "platform/parallel.h"

/* The most work a chunk of a stretch may have: an eighth of a thread's
 * share, so that a thread that has reached its share (hash_stretch_part)
 * went past it by little, and the threads of a stretch end close together,
 * each waiting at most a chunk for the others. A chunk of more work
 * (longer messages) goes the usual way, where the references cost little
 * beside its hashing. */
#define STRETCH_CHUNK_MAX_WORK (FD_MANY_STRETCH_WORK_PER_THREAD / 8)

/* Locates items [start, start + n) of the list read in place into
 * messages, with their digests aimed into out, for a held stretch; with
 * messages NULL, only finds whether they can be in one. Without
 * references, views or errors, so that it runs no Python code and
 * allocates nothing, and reads the list and its items without changing
 * them, so that any thread may run it while the calling thread holds the
 * GIL (see held stretches), and every thread finds the same. Returns the
 * chunk's work; or FD_MANY_NOT_IN_A_STRETCH, with messages partly written, when
 * the list's size changed, or an item is not exactly bytes or shares
 * memory with out, or the chunk's work exceeds STRETCH_CHUNK_MAX_WORK. */
size_t fd_many_locate_stretch_chunk(const fd_many_call *call, fd_message *messages,
                                    Py_ssize_t start, Py_ssize_t n)
{
    PyObject *list = call->source.sequence;
    const size_t overhead = fd_batch_message_overhead(&call->job);
    size_t work = 0;

    if (PyList_GET_SIZE(list) != call->source.count)
        return FD_MANY_NOT_IN_A_STRETCH;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, start + i);
        if (!PyBytes_CheckExact(item))
            return FD_MANY_NOT_IN_A_STRETCH;
        const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(item);
        const size_t len = (size_t)PyBytes_GET_SIZE(item);
        work += len + overhead;
        if (work > STRETCH_CHUNK_MAX_WORK || fd_many_shares_memory(data, len, &call->out))
            return FD_MANY_NOT_IN_A_STRETCH;
        if (messages != NULL)
            messages[i] = (fd_message){data, len, fd_many_digest_in_out(call, start + i)};
    }
    return work;
}

/* Ends a held stretch: releases the GIL and takes it again, which lets the
 * other Python threads run (CPython hands the GIL over here to a thread
 * that has asked for it). Only once every chunk of the stretch is hashed:
 * from here on any item may change or be freed. */
void fd_many_end_stretch(void)
{
    PyEval_RestoreThread(PyEval_SaveThread());
}

/* What the threads of a held stretch share: fd_parallel_run's context for
 * hash_stretch_part. Part p locates its chunks in chunks[p]. */
typedef struct held_stretch {
    const fd_many_call *call;
    fd_many_chunk *chunks;
    size_t first;       /* the batch's chunk the stretch starts at */
    size_t chunk_count; /* the batch's */
    /* The threads take chunks first, first + 1, ... from this counter; a
     * thread takes at most one more than its share of chunks of the least
     * work (FD_MANY_CHUNK_MESSAGES empty messages of MD5), a few dozen. */
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
        if (fd_many_locate_stretch_chunk(
                stretch->call, NULL, (Py_ssize_t)fit_end * FD_MANY_CHUNK_MESSAGES,
                fd_many_chunk_messages(stretch->call, fit_end)) == FD_MANY_NOT_IN_A_STRETCH) {
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
    const fd_many_call *call = stretch->call;
    fd_many_chunk *c = &stretch->chunks[part];
    size_t work = 0;

    while (work < FD_MANY_STRETCH_WORK_PER_THREAD) {
        const size_t index = stretch->first + fd_counter_take(&stretch->taken);
        if (index >= fd_size_mark_load(&stretch->unfit))
            break; /* the batch's end, or past a chunk that cannot be in it */
        const Py_ssize_t n = fd_many_chunk_messages(call, index);
        const size_t chunk_work = fd_many_locate_stretch_chunk(
            call, c->messages, (Py_ssize_t)index * FD_MANY_CHUNK_MESSAGES, n);
        if (chunk_work == FD_MANY_NOT_IN_A_STRETCH) {
            fd_size_mark_lower(&stretch->unfit, index);
            break;
        }
        if (!chunks_before_fit(stretch, index))
            break;
        fd_batch_run(&call->job, c->messages, (size_t)n);
        work += chunk_work;
    }
    return true;
}

/* Each thread takes chunks in turn and locates them itself (see above),
 * about FD_MANY_STRETCH_WORK_PER_THREAD of them each. */
size_t fd_many_hash_stretch(const fd_many_call *call, fd_many_chunk *chunks, size_t first,
                            size_t threads, bool *unfit)
{
    const size_t chunk_count = ((size_t)call->source.count + FD_MANY_CHUNK_MESSAGES - 1) /
                               FD_MANY_CHUNK_MESSAGES;
    const size_t chunks_left = chunk_count - first;
    held_stretch stretch = {
        .call = call, .chunks = chunks, .first = first, .chunk_count = chunk_count};

    fd_counter_init(&stretch.taken);
    fd_size_mark_set(&stretch.fit_end, first);
    fd_size_mark_set(&stretch.unfit, chunk_count);
    (void)fd_parallel_run(threads < chunks_left ? threads : chunks_left, hash_stretch_part,
                          &stretch);
    /* The chunks were taken in order, and each chunk taken before the first
     * that cannot be in the stretch was hashed (chunks_before_fit found every
     * chunk before it fit), none after: the first unfit one, when some
     * thread found one, or else the end of the chunks found fit, each of
     * which its thread hashed. */
    const size_t first_unfit = fd_size_mark_load(&stretch.unfit);
    *unfit = first_unfit < chunk_count;
    return *unfit ? first_unfit : fd_size_mark_load(&stretch.fit_end);
}
