/* The hashing of an Arrow column (arrow_hash.h): the digest column's
 * validity from the input's, the rows cut into parts for threads
 * (core/parallel.h), each part hashed in chunks through the batch driver,
 * and the column's reference count. */

/* madvise is not POSIX (posix_madvise is, without MADV_POPULATE_WRITE):
 * glibc and musl declare it only under _GNU_SOURCE (or their default
 * sources), and -std=c11 defines none of them. It must come before the
 * first system header. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "core/arrow_hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "core/arrow_digest_column.h"
#include "core/batch.h"
#include "core/hex.h"
#include "core/parallel.h"

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
 * join (core/parallel.h). Smaller columns are hashed on fewer threads, or on
 * the caller's alone. The fuzzer builds with fewer, as with
 * FD_ARROW_CHUNK_ROWS. */
#ifndef FD_ARROW_MIN_ROWS_PER_THREAD
#define FD_ARROW_MIN_ROWS_PER_THREAD 16384
#endif

/* out's bits [0, count) from in's bits [first, first + count); with
 * and_into, ANDed into what out holds. Reads only the bytes holding those
 * bits; the bits past count in out's last byte are cleared. */
static void copy_bits(uint8_t *out, const uint8_t *in, size_t first, size_t count, bool and_into)
{
    const uint8_t *source = in + first / 8;
    const unsigned shift = (unsigned)(first % 8);
    const size_t source_bytes = (first % 8 + count + 7) / 8;
    const size_t out_bytes = (count + 7) / 8;
    for (size_t j = 0; j < out_bytes; j++) {
        unsigned bits = (unsigned)source[j] >> shift;
        if (shift != 0 && j + 1 < source_bytes)
            bits |= (unsigned)source[j + 1] << (8 - shift);
        out[j] = (uint8_t)(and_into ? out[j] & bits : bits);
    }
    if (count % 8 != 0)
        out[out_bytes - 1] &= (uint8_t)((1u << (count % 8)) - 1);
}

static int64_t count_zero_bits(const uint8_t *bitmap, size_t count)
{
    size_t set = 0;
    for (size_t j = 0; j < (count + 7) / 8; j++) {
        for (unsigned byte = bitmap[j]; byte != 0; byte &= byte - 1)
            set++;
    }
    return (int64_t)(count - set);
}

/* The result's validity: one bitmap from the column's and its struct's, or
 * none when no row is null. Returns false when memory runs out. */
static bool build_validity(fd_digest_column *digests, const fd_arrow_column *column)
{
    if (column->validity == NULL && column->parent_validity == NULL)
        return true;
    size_t count = column->length;
    digests->validity = malloc((count + 7) / 8);
    if (digests->validity == NULL)
        return false;
    if (column->validity != NULL) {
        copy_bits(digests->validity, column->validity, column->first, count, false);
        if (column->parent_validity != NULL)
            copy_bits(digests->validity, column->parent_validity, column->parent_first, count,
                      true);
    }
    else {
        copy_bits(digests->validity, column->parent_validity, column->parent_first, count, false);
    }
    digests->null_count = count_zero_bits(digests->validity, count);
    if (digests->null_count == 0) {
        free(digests->validity);
        digests->validity = NULL;
    }
    return true;
}

/* Where row's bytes are, in a column fd_arrow_check_array accepted. */
static fd_message row_message(const fd_arrow_column *column, size_t row)
{
    fd_message message = {NULL, 0, NULL};
    fd_arrow_row_bytes(column, row, &message.data, &message.len);
    return message;
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

/* What every part of one column's hashing shares: fd_parallel_run's
 * context for hash_part. */
typedef struct hash_job {
    enum fd_algorithm_id id;
    const fd_arrow_column *column;
    fd_digest_column *digests; /* validity built, values allocated */
    size_t part_rows;          /* rows of each part but the last */
} hash_job;

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
    return (length + *part_rows - 1) / *part_rows;
}

/* Hashes one part's rows (its validity bits and digest slots are its own,
 * so parts run side by side) with its own message array and hex scratch.
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

    fd_message *messages = malloc(chunk_rows * sizeof *messages + 1);
    uint8_t *scratch = digests->hex ? malloc(chunk_rows * digest_len + 1) : NULL;
    if (messages == NULL || (digests->hex && scratch == NULL)) {
        free(messages);
        free(scratch);
        return false;
    }
    fd_digest_column_prepare_rows(digests, first, end);
    for (size_t start = first; start < end; start += chunk_rows) {
        const size_t n = end - start < chunk_rows ? end - start : chunk_rows;
        uint8_t *slots = digests->hex ? scratch : digests->values + start * digest_len;
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t *slot = slots + i * digest_len;
            if (digests->validity != NULL && !fd_arrow_bit_is_set(digests->validity, start + i)) {
                memset(slot, 0, digest_len);
                continue;
            }
            messages[count] = row_message(job->column, start + i);
            messages[count++].digest = slot;
        }
        fd_hash_many(job->id, messages, count);
        if (digests->hex)
            fd_hex_encode(scratch, n * digest_len,
                          (char *)digests->values + start * digests->row_width);
    }
    free(messages);
    free(scratch);
    return true;
}

fd_digest_column *fd_digest_column_hash(enum fd_algorithm_id id, bool hex,
                                        const fd_arrow_column *column, size_t threads)
{
    const size_t length = column->length;
    fd_digest_column *digests = fd_digest_column_new(id, hex, length);
    if (digests == NULL)
        return NULL;
    if (!build_validity(digests, column))
        goto fail;

    hash_job job = {.id = id, .column = column, .digests = digests};
    const size_t parts = fd_arrow_split_rows(length, threads, &job.part_rows);
    if (!fd_parallel_run(parts, hash_part, &job))
        goto fail;
    return digests;

fail:
    free_digest_column(digests);
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
