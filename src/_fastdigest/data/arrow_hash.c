/* The hashing of rows (arrow_hash.h): the digest column's validity from
 * the source's, the rows cut into parts for threads (platform/parallel.h),
 * each part hashed in chunks through the batch driver, the bytes that
 * encoders write gathered in each part's sink, and the column's reference
 * count. */

/* madvise is not POSIX (posix_madvise is, without MADV_POPULATE_WRITE):
 * glibc and musl declare it only under _GNU_SOURCE (or their default
 * sources), and -std=c11 defines none of them. It must come before the
 * first system header. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "data/arrow_hash.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "data/arrow.h"
#include "data/arrow_digest_column.h"
#include "hash/batch.h"
#include "hash/hex.h"
#include "platform/parallel.h"

/* Rows per call of the batch driver: bounds the message array (and in hex
 * the digest scratch) of each hashing thread whatever the column's length.
 * The fuzzer builds with fewer (tests/fuzz/run.sh), so that its columns of
 * a few thousand rows cross many chunk and thread seams. */
#ifndef FD_ARROW_CHUNK_ROWS
#define FD_ARROW_CHUNK_ROWS 4096
#endif

/* The fewest rows a hashing thread is worth. Every row costs at least one
 * compression, so that even at the fastest rate of one thread (short
 * SHA-256 rows with SHA-NI) this many rows are about the millisecond of work
 * a part needs against the tens of microseconds a thread costs to start and
 * join (platform/parallel.h). Smaller columns are hashed on fewer threads, or on
 * the caller's alone. The fuzzer builds with fewer, as with
 * FD_ARROW_CHUNK_ROWS. */
#ifndef FD_ARROW_MIN_ROWS_PER_THREAD
#define FD_ARROW_MIN_ROWS_PER_THREAD 16384
#endif

/* The bytes each hashing thread gathers encoded rows in before the batch
 * driver hashes them: several chunks' worth of short rows, small enough to
 * stay in a core's cache between being written and being hashed. The
 * fuzzer builds with a few dozen, so that rows fill it, are moved to its
 * start and outgrow it (and are streamed) all the time. */
#ifndef FD_ARROW_SINK_BYTES
#define FD_ARROW_SINK_BYTES ((size_t)256 << 10)
#endif

static int64_t count_zero_bits(const uint8_t *bitmap, size_t count)
{
    size_t set = 0;
    for (size_t j = 0; j < (count + 7) / 8; j++) {
        for (unsigned byte = bitmap[j]; byte != 0; byte &= byte - 1)
            set++;
    }
    return (int64_t)(count - set);
}

/* The result's validity from the source's, or none when no row is null.
 * Returns false when memory runs out. */
static bool build_validity(fd_digest_column *digests, const fd_row_source *source)
{
    if (source->nulls == NULL || source->length == 0)
        return true;
    const size_t count = source->length;
    digests->validity = malloc((count + 7) / 8);
    if (digests->validity == NULL)
        return false;
    source->nulls(source->context, digests->validity);
    if (count % 8 != 0)
        digests->validity[count / 8] &= (uint8_t)((1u << (count % 8)) - 1);
    digests->null_count = count_zero_bits(digests->validity, count);
    if (digests->null_count == 0) {
        free(digests->validity);
        digests->validity = NULL;
    }
    return true;
}

bool fd_digest_hex_needs_large(enum fd_algorithm_id id, int64_t length)
{
    return length > INT32_MAX / (int64_t)(2 * fd_algorithms[id].digest_len);
}

static void free_digest_column(fd_digest_column *digests)
{
    free(digests->validity);
    free(digests->values);
    free(digests->offsets);
    free(digests);
}

static size_t offset_width(bool large)
{
    return large ? 8 : 4;
}

/* Entries [first, end) of a hex column's offsets: row i at i * row_width. */
static void fill_offsets(void *offsets, size_t first, size_t end, size_t row_width, bool large)
{
    for (size_t i = first; i < end; i++) {
        if (large) {
            int64_t value = (int64_t)(i * row_width);
            memcpy((uint8_t *)offsets + 8 * i, &value, 8);
        }
        else {
            int32_t value = (int32_t)(i * row_width);
            memcpy((uint8_t *)offsets + 4 * i, &value, 4);
        }
    }
}

static void *make_offsets(size_t length, size_t row_width, bool large)
{
    void *offsets = malloc((length + 1) * offset_width(large));
    if (offsets != NULL)
        fill_offsets(offsets, 0, length + 1, row_width, large);
    return offsets;
}

/* Linux's value (uapi asm-generic/mman-common.h), for C libraries whose
 * headers predate it, as manylinux2014's glibc 2.17 does; an older kernel
 * refuses it with EINVAL. */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* Makes the pages of [start, start + len) present and writable at once, so
 * that a thread about to write them all pays one system call instead of a
 * page fault for every page. Fresh memory from malloc is mapped lazily,
 * and its first touch by faults costs markedly more than populating it in
 * one call (most of all in a virtual machine): for a column of millions of
 * rows that is a large part of the whole call, on one thread or several.
 * Linux 5.14 and newer (MADV_POPULATE_WRITE); elsewhere, for less
 * than 1 MiB, or where the call fails, nothing: the pages then fault in as
 * they are written. The contents are not changed. */
static void prefault(void *start, size_t len)
{
#ifdef __linux__
    /* madvise needs a page-aligned start. The page is this system's: 4 KiB
     * on x86-64, but 16 or 64 KiB on some arm64 kernels (Apple silicon,
     * distributions built with 64 KiB pages), where a start aligned to 4 KiB
     * only would be refused and nothing populated. */
    const long page_size = sysconf(_SC_PAGESIZE);
    if (len < ((size_t)1 << 20) || page_size <= 0)
        return;
    const uintptr_t page = (uintptr_t)page_size;
    uintptr_t first = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t end = (uintptr_t)start + len;
    (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)start;
    (void)len;
#endif
}

/* What every part of one column's hashing shares: fd_parallel_run's
 * context for hash_part. */
typedef struct hash_job {
    enum fd_algorithm_id id;
    const fd_row_source *source;
    fd_digest_column *digests; /* validity built, values allocated */
    size_t part_rows;          /* rows of each part but the last */
} hash_job;

/* One part's sink (sink first: make_room gets it as its fd_sink) and the
 * messages of the chunk being hashed. The rows an encoder wrote lie in the
 * buffer one after the other: those complete from `row_start` back are
 * messages waiting for the batch driver, the row being written runs from
 * row_start to `used`. A row that fills the whole buffer is streamed:
 * hashed with the single-stream kernel, a buffer at a time. */
typedef struct part_sink {
    fd_sink sink;
    enum fd_algorithm_id id;
    fd_message *messages;
    size_t count;
    size_t row_start;
    bool streaming;
    fd_hash_state state;
} part_sink;

static void make_room(fd_sink *sink)
{
    part_sink *part = (part_sink *)sink;
    const fd_algorithm *algorithm = &fd_algorithms[part->id];
    if (part->streaming) {
        algorithm->update(&part->state, sink->buffer, sink->used);
        sink->used = 0;
        return;
    }
    if (part->row_start > 0) {
        /* Hash the rows before the one being written (and the rows in
         * place among them, which costs nothing to do now), and move it to
         * the start. */
        fd_hash_many(part->id, part->messages, part->count);
        part->count = 0;
        memmove(sink->buffer, sink->buffer + part->row_start, sink->used - part->row_start);
        sink->used -= part->row_start;
        part->row_start = 0;
        if (sink->used < sink->capacity)
            return;
    }
    algorithm->init(&part->state);
    algorithm->update(&part->state, sink->buffer, sink->used);
    sink->used = 0;
    part->streaming = true;
}

/* Row i's digest goes to slot: its bytes in place or in the sink become a
 * message of the chunk, or a streamed row is finished at once. */
static void add_row(part_sink *part, const fd_row_source *source, size_t row, uint8_t *slot)
{
    fd_message *message = &part->messages[part->count];
    if (source->bytes(source->context, row, &part->sink, &message->data, &message->len)) {
        message->digest = slot;
        part->count++;
        return;
    }
    fd_sink *sink = &part->sink;
    if (part->streaming) {
        const fd_algorithm *algorithm = &fd_algorithms[part->id];
        algorithm->update(&part->state, sink->buffer, sink->used);
        algorithm->final(&part->state, slot);
        part->streaming = false;
        sink->used = 0;
        part->row_start = 0;
        return;
    }
    message = &part->messages[part->count++]; /* make_room may have hashed the others */
    message->data = sink->buffer + part->row_start;
    message->len = sink->used - part->row_start;
    message->digest = slot;
    part->row_start = sink->used;
}

/* At most one part per FD_ARROW_MIN_ROWS_PER_THREAD rows, each a whole
 * number of chunks so that every batch-driver call but a part's last is
 * full, as even as that allows. */
size_t fd_arrow_split_rows(size_t length, size_t threads, size_t *part_rows)
{
    size_t parts = length / FD_ARROW_MIN_ROWS_PER_THREAD;
    if (parts > threads)
        parts = threads;
    if (parts <= 1) {
        *part_rows = length;
        return 1;
    }
    size_t chunks = (length + FD_ARROW_CHUNK_ROWS - 1) / FD_ARROW_CHUNK_ROWS;
    *part_rows = (chunks + parts - 1) / parts * FD_ARROW_CHUNK_ROWS;
    /* Rounding up to whole chunks may leave the last parts nothing. */
    parts = (length + *part_rows - 1) / *part_rows;
    assert(parts >= 1 && parts <= threads);
    return parts;
}

/* Hashes one part's rows (its validity bits and digest slots are its own,
 * so parts run side by side) with its own messages, sink and hex scratch.
 * Returns false, its rows unwritten, when those cannot be allocated. */
static bool hash_part(void *context, size_t part)
{
    const hash_job *job = context;
    fd_digest_column *digests = job->digests;
    const size_t digest_len = fd_algorithms[job->id].digest_len;
    const size_t length = (size_t)digests->length;
    const size_t first = part * job->part_rows;
    const size_t end = first + job->part_rows < length ? first + job->part_rows : length;
    const size_t chunk_rows = end - first < FD_ARROW_CHUNK_ROWS ? end - first : FD_ARROW_CHUNK_ROWS;

    /* fd_arrow_split_rows leaves no part empty (but the one part of no
     * rows). */
    assert(first < length || (part == 0 && length == 0));
    part_sink sink = {.sink = {.capacity = FD_ARROW_SINK_BYTES, .make_room = make_room},
                      .id = job->id};
    sink.messages = malloc(chunk_rows * sizeof *sink.messages + 1);
    sink.sink.buffer = malloc(FD_ARROW_SINK_BYTES);
    uint8_t *scratch = digests->hex ? malloc(chunk_rows * digest_len + 1) : NULL;
    if (sink.messages == NULL || sink.sink.buffer == NULL || (digests->hex && scratch == NULL)) {
        free(sink.messages);
        free(sink.sink.buffer);
        free(scratch);
        return false;
    }
    fd_digest_column_prepare_rows(digests, first, end);
    for (size_t start = first; start < end; start += chunk_rows) {
        const size_t n = end - start < chunk_rows ? end - start : chunk_rows;
        uint8_t *slots = digests->hex ? scratch : digests->values + start * digest_len;
        for (size_t i = 0; i < n; i++) {
            uint8_t *slot = slots + i * digest_len;
            if (digests->validity != NULL && !fd_arrow_bit_is_set(digests->validity, start + i)) {
                memset(slot, 0, digest_len);
                continue;
            }
            add_row(&sink, job->source, start + i, slot);
        }
        fd_hash_many(job->id, sink.messages, sink.count);
        sink.count = 0;
        sink.sink.used = 0;
        sink.row_start = 0;
        if (digests->hex)
            fd_hex_encode(scratch, n * digest_len,
                          (char *)digests->values + start * digests->row_width);
    }
    free(sink.messages);
    free(sink.sink.buffer);
    free(scratch);
    return true;
}

fd_digest_column *fd_digest_column_new(enum fd_algorithm_id id, bool hex, size_t length)
{
    const size_t digest_len = fd_algorithms[id].digest_len;
    fd_digest_column *digests = calloc(1, sizeof *digests);
    if (digests == NULL)
        return NULL;
    fd_refcount_init(&digests->refs);
    digests->id = id;
    digests->hex = hex;
    digests->length = (int64_t)length;
    digests->row_width = hex ? 2 * digest_len : digest_len;
    if (length > (SIZE_MAX - 1) / digests->row_width)
        goto fail;

    /* Never a null pointer, even for no rows: consumers may not expect one
     * where the format has a buffer. */
    digests->values = malloc(length * digests->row_width + 1);
    if (digests->values == NULL)
        goto fail;
    if (hex) {
        digests->large = fd_digest_hex_needs_large(id, (int64_t)length);
        /* Filled by the hashing threads, each its rows' offsets. */
        digests->offsets = malloc((length + 1) * offset_width(digests->large));
        if (digests->offsets == NULL)
            goto fail;
    }
    return digests;

fail:
    free_digest_column(digests);
    return NULL;
}

void fd_digest_column_prepare_rows(fd_digest_column *digests, size_t first, size_t end)
{
    const size_t length = (size_t)digests->length;
    /* This part's digests, and in hex its offsets (the last part's
     * including the end offset), each part its own pages. */
    prefault(digests->values + first * digests->row_width, (end - first) * digests->row_width);
    if (digests->hex) {
        const size_t offsets_end = end == length ? end + 1 : end;
        const size_t width = offset_width(digests->large);
        prefault((uint8_t *)digests->offsets + first * width, (offsets_end - first) * width);
        fill_offsets(digests->offsets, first, offsets_end, digests->row_width, digests->large);
    }
}

fd_digest_column *fd_digest_column_hash(enum fd_algorithm_id id, bool hex,
                                        const fd_row_source *source, size_t threads)
{
    fd_digest_column *digests = fd_digest_column_new(id, hex, source->length);
    if (digests == NULL)
        return NULL;
    if (!build_validity(digests, source))
        goto fail;
    hash_job job = {.id = id, .source = source, .digests = digests};
    const size_t parts = fd_arrow_split_rows(source->length, threads, &job.part_rows);
    if (!fd_parallel_run(parts, hash_part, &job))
        goto fail;
    return digests;

fail:
    fd_digest_column_unref(digests);
    return NULL;
}

int64_t fd_digest_column_length(const fd_digest_column *digests)
{
    return digests->length;
}

int64_t fd_digest_column_null_count(const fd_digest_column *digests)
{
    return digests->null_count;
}

const uint8_t *fd_digest_column_row(const fd_digest_column *digests, int64_t row, size_t *len)
{
    *len = digests->row_width;
    if (digests->validity != NULL && !(digests->validity[row >> 3] & (1u << (row & 7))))
        return NULL;
    return digests->values + (size_t)row * digests->row_width;
}

bool fd_digest_column_widen_offsets(fd_digest_column *digests)
{
    if (!digests->hex || digests->large)
        return true;
    void *offsets = make_offsets((size_t)digests->length, digests->row_width, true);
    if (offsets == NULL)
        return false;
    free(digests->offsets);
    digests->offsets = offsets;
    digests->large = true;
    return true;
}

void fd_digest_column_ref(fd_digest_column *digests)
{
    fd_refcount_add(&digests->refs);
}

void fd_digest_column_unref(fd_digest_column *digests)
{
    if (fd_refcount_drop(&digests->refs))
        free_digest_column(digests);
}
