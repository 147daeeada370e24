/* What the files of digest_many share: python/hash_api/batch.c (the call: its
 * arguments, its results in a list or out=, and the order in which its
 * chunks are hashed), python/hash_api/batch_messages.c (where the messages come
 * from: a list or tuple read in place, the rows of a 2-D buffer, any other
 * iterable; each chunk's messages located) and python/hash_api/batch_stretches.c (a
 * list of bytes into out= in held stretches, without references). Their
 * names start with fd_many_. The binding's other files see only
 * binding.h's fd_many_messages and fd_bind_many_arguments. */
#ifndef FD_PYTHON_BATCH_H
#define FD_PYTHON_BATCH_H

#include "python/binding.h"

#include <stdint.h>

/* Messages per chunk. Within a wide range of sizes around this one the
 * speed did not change measurably for short messages; chunks hashed apart
 * each end with lanes idle, a cost that a larger size keeps small
 * (hash/batch.c, drain_lanes). */
#define FD_MANY_CHUNK_MESSAGES 2048

/* ---- the messages (batch_messages.c) ------------------------------------ */

/* Where the items come from, and what holds them while their chunk is
 * hashed without the GIL. */
typedef struct fd_many_source {
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
} fd_many_source;

/* Row `index` of a 2-D buffer's rows. */
static inline const uint8_t *fd_many_row(const fd_many_source *source, Py_ssize_t index)
{
    return (const uint8_t *)source->rows.buf + index * source->row_stride;
}

/* Opens messages as the batch's source: the rows of a 2-D buffer, a list
 * read in place (with a GIL, and only when read_list_in_place), or a tuple
 * (a tuple itself, or any other iterable gathered into one). A list or
 * tuple is never taken for a buffer. Returns 0, or -1 with an exception
 * set; fd_many_close_source releases it either way. */
int fd_many_open_source(fd_many_source *source, PyObject *messages, bool read_list_in_place);
void fd_many_close_source(fd_many_source *source);

/* The arrays of one chunk, allocated once per call at chunk size. */
typedef struct fd_many_chunk {
    Py_ssize_t capacity;
    fd_message *messages;
    PyObject **held; /* items of a list read in place, held until hashed */
    Py_ssize_t held_count;
    Py_buffer *views; /* made when the first item that is not bytes comes */
    Py_ssize_t views_acquired;
} fd_many_chunk;

/* Allocates the arrays of a chunk for up to capacity messages (held only
 * for a list read in place). Returns 0, or -1 with MemoryError set;
 * fd_many_free_chunk frees it either way. */
int fd_many_allocate_chunk(fd_many_chunk *c, Py_ssize_t capacity, bool hold);
/* Drops the chunk's references and views, once it is hashed: dropping
 * the last reference may run Python code. */
void fd_many_release_chunk(fd_many_chunk *c);
void fd_many_free_chunk(fd_many_chunk *c);

/* Locates the bytes of items [start, start + n) in c->messages, their
 * digests not yet aimed; the first bad item raises, naming its index, and
 * so does the first item that shares memory with out (NULL: no out=). Items
 * that are not exactly bytes are read through get_buffer (the buffer
 * protocol, in hashlib's or hmac's words). Returns 0, or -1 with an
 * exception set. */
int fd_many_gather_items(fd_many_source *source, fd_many_chunk *c, Py_ssize_t start, Py_ssize_t n,
                         int (*get_buffer)(PyObject *item, Py_buffer *view), const Py_buffer *out);

/* Locates rows [start, start + n) of a 2-D buffer: no Python, no GIL. */
void fd_many_locate_rows(const fd_many_source *source, fd_many_chunk *c, Py_ssize_t start,
                         Py_ssize_t n);

/* Whether len bytes at data share a byte with out. Pointers into unrelated
 * objects are compared as integers: relational operators on them are
 * undefined in C. */
static inline bool fd_many_shares_memory(const uint8_t *data, size_t len, const Py_buffer *out)
{
    const uintptr_t start = (uintptr_t)data, out_start = (uintptr_t)out->buf;

    return len != 0 && out->len != 0 && start < out_start + (uintptr_t)out->len &&
           out_start < start + len;
}

/* No item index is this large: the mark of no shared memory found. */
#define FD_MANY_NO_ITEM PY_SSIZE_T_MAX

/* The first row of a 2-D buffer that shares memory with out, or
 * FD_MANY_NO_ITEM. */
Py_ssize_t fd_many_first_row_sharing(const fd_many_source *source, const Py_buffer *out);

/* Raises the ValueError of item `index`, which shares memory with out. */
void fd_many_raise_shared_memory(Py_ssize_t index);

/* Rewrites the exception raised for item `index` so that its message names
 * the item, keeping its type. */
void fd_many_name_bad_item(Py_ssize_t index);

/* ---- a call (batch.c) ---------------------------------------------------- */

/* What a digest_many call hashes, with what, and into what. */
typedef struct fd_many_call {
    fd_batch_job job;
    int (*get_buffer)(PyObject *item, Py_buffer *view);
    size_t digest_len;
    /* What is written for each message: the digest_len bytes of its
     * digest, or with hex their 2 * digest_len hex digits (a str in the
     * list, ASCII bytes in out). */
    bool hex;
    size_t result_len;
    size_t threads;
    fd_many_source source;
    PyObject *result; /* the list of digests, or NULL when they go to out */
    bool has_out;
    Py_buffer out; /* out=, held from the start of the call to its end */
    /* Rows of a buffer into out: preparing a chunk touches no Python object,
     * and the pipeline's producer runs without the GIL. */
    bool without_python;
} fd_many_call;

/* Where the digest of message `index` goes in out=. */
static inline uint8_t *fd_many_digest_in_out(const fd_many_call *call, Py_ssize_t index)
{
    return (uint8_t *)call->out.buf + (size_t)index * call->result_len;
}

/* The number of messages in the batch's chunk `index`. */
static inline Py_ssize_t fd_many_chunk_messages(const fd_many_call *call, size_t index)
{
    const Py_ssize_t start = (Py_ssize_t)index * FD_MANY_CHUNK_MESSAGES;
    return call->source.count - start < FD_MANY_CHUNK_MESSAGES ? call->source.count - start
                                                               : FD_MANY_CHUNK_MESSAGES;
}

/* ---- held stretches (batch_stretches.c) ---------------------------------- */

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
#define FD_MANY_STRETCH_WORK_PER_THREAD ((size_t)4 << 20)

/* The work no chunk of a stretch has: the mark of one that cannot be in
 * one. */
#define FD_MANY_NOT_IN_A_STRETCH SIZE_MAX

/* Whether the next chunks may be hashed in held stretches: their digests
 * go to out=, and the list is still read in place (never under free
 * threading, where it is a tuple from the start). */
static inline bool fd_many_in_stretches(const fd_many_call *call)
{
    return call->has_out && call->source.in_place_list;
}

/* Locates items [start, start + n) of the list read in place into
 * messages, with their digests aimed into out, for a held stretch (with
 * messages NULL, only finds whether they can be): without references,
 * views or errors, on any thread while the calling thread holds the GIL.
 * Returns the chunk's work, or FD_MANY_NOT_IN_A_STRETCH. */
size_t fd_many_locate_stretch_chunk(const fd_many_call *call, fd_message *messages,
                                    Py_ssize_t start, Py_ssize_t n);

/* Hashes a held stretch from the batch's chunk `first` on, on up to
 * `threads` threads, part p locating its chunks in chunks[p]. Returns the
 * first chunk not hashed (every chunk before it is, none after it), and
 * sets *unfit when that chunk cannot be in a stretch. */
size_t fd_many_hash_stretch(const fd_many_call *call, fd_many_chunk *chunks, size_t first,
                            size_t threads, bool *unfit);

/* Ends a held stretch, once every chunk of it is hashed: lets the other
 * Python threads run. */
void fd_many_end_stretch(void);

#endif /* FD_PYTHON_BATCH_H */
