/* dbt's surrogate keys (arrow_surrogate.h): each thread writes its rows'
 * keys (texts, separators, tokens) into its own buffer, hands them to the
 * batch driver whenever the buffer is full and at the end of each chunk,
 * and writes the chunk's digests in hex into the result. */
#include "data/arrow_surrogate.h"

#include <stdlib.h>
#include <string.h>

#include "data/arrow_digest_column.h"
#include "data/arrow_text.h"
#include "hash/batch.h"
#include "hash/hex.h"
#include "platform/parallel.h"

/* Rows per chunk: bounds the message array and the digest scratch of each
 * thread, as digest_array's chunks do (data/arrow_hash.c). The fuzzer
 * builds with fewer (tests/fuzz/run.sh). */
#ifndef FD_SURROGATE_CHUNK_ROWS
#define FD_SURROGATE_CHUNK_ROWS 4096
#endif

/* Each thread's buffer of keys. Keys of a few dozen bytes fill it with
 * thousands of rows, so that the batch driver gets full calls; a key longer
 * than all of it is hashed on its own, from the columns' bytes. The fuzzer
 * builds with a small one, so that its rows cross both paths. */
#ifndef FD_SURROGATE_TEXT_BYTES
#define FD_SURROGATE_TEXT_BYTES ((size_t)256 * 1024)
#endif

/* One column's text in a key, where it lies. */
typedef struct piece {
    const uint8_t *data; /* NULL only when len is 0 */
    size_t len;
} piece;

/* What a part ran into, beside running out of memory. */
typedef struct part_result {
    bool refused;
    size_t row, column;
} part_result;

/* What every part of one table's keys shares: fd_parallel_run's context. */
typedef struct key_job {
    const fd_surrogate_spec *spec;
    const fd_flat_column *columns;
    size_t count;
    fd_digest_column *digests; /* values and offsets allocated */
    size_t part_rows;          /* rows of each part but the last */
    part_result *results;      /* one a part */
} key_job;

/* Each thread's working set: its size does not depend on the rows. */
typedef struct workspace {
    fd_message *messages; /* FD_SURROGATE_CHUNK_ROWS */
    uint8_t *digests;     /* a chunk's binary digests, before hex */
    uint8_t *text;        /* FD_SURROGATE_TEXT_BYTES */
    piece *pieces;        /* a row's, one a column */
    uint8_t *values;      /* a row's texts of non-string values: FD_TEXT_MAX_LEN a column */
} workspace;

static void free_workspace(workspace *w)
{
    free(w->messages);
    free(w->digests);
    free(w->text);
    free(w->pieces);
    free(w->values);
}

static bool make_workspace(workspace *w, size_t chunk_rows, size_t digest_len, size_t count)
{
    w->messages = malloc(chunk_rows * sizeof *w->messages + 1);
    w->digests = malloc(chunk_rows * digest_len + 1);
    w->text = malloc(FD_SURROGATE_TEXT_BYTES);
    w->pieces = malloc(count * sizeof *w->pieces);
    w->values = malloc(count * FD_TEXT_MAX_LEN);
    if (w->messages == NULL || w->digests == NULL || w->text == NULL || w->pieces == NULL ||
        w->values == NULL) {
        free_workspace(w);
        return false;
    }
    return true;
}

static size_t add_saturating(size_t a, size_t b)
{
    return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

/* The pieces of row's key and its length (SIZE_MAX if it does not fit a
 * size_t); false, with the column, for a value the engines write
 * differently. */
static bool row_pieces(const key_job *job, size_t row, workspace *w, size_t *total,
                       size_t *refused_column)
{
    const fd_surrogate_spec *spec = job->spec;
    size_t sum = 0;
    for (size_t c = 0; c < job->count; c++) {
        const fd_flat_column *column = &job->columns[c];
        piece *p = &w->pieces[c];
        if (fd_flat_is_null(column, row)) {
            p->data = spec->null_token;
            p->len = spec->null_token_len;
        }
        else if (!fd_text_of_value(column, row, w->values + c * FD_TEXT_MAX_LEN, &p->data,
                                   &p->len)) {
            *refused_column = c;
            return false;
        }
        sum = add_saturating(sum, p->len);
        if (c > 0)
            sum = add_saturating(sum, spec->separator_len);
    }
    *total = sum;
    return true;
}

static void join_pieces(const key_job *job, const piece *pieces, uint8_t *out)
{
    const fd_surrogate_spec *spec = job->spec;
    for (size_t c = 0; c < job->count; c++) {
        if (c > 0 && spec->separator_len != 0) {
            memcpy(out, spec->separator, spec->separator_len);
            out += spec->separator_len;
        }
        if (pieces[c].len != 0) {
            memcpy(out, pieces[c].data, pieces[c].len);
            out += pieces[c].len;
        }
    }
}

/* A key too long for the buffer, hashed from where its pieces lie. */
static void hash_pieces(const key_job *job, const piece *pieces, uint8_t *digest)
{
    const fd_surrogate_spec *spec = job->spec;
    const fd_algorithm *algorithm = &fd_algorithms[spec->id];
    fd_hash_state state;
    algorithm->init(&state);
    for (size_t c = 0; c < job->count; c++) {
        if (c > 0)
            algorithm->update(&state, spec->separator, spec->separator_len);
        algorithm->update(&state, pieces[c].data, pieces[c].len);
    }
    algorithm->final(&state, digest);
}

/* One part's rows, chunk by chunk. Returns false, its rows unwritten, when
 * its workspace cannot be allocated or a value is refused (then recorded in
 * its result). */
static bool hash_part(void *context, size_t part)
{
    const key_job *job = context;
    fd_digest_column *digests = job->digests;
    const enum fd_algorithm_id id = job->spec->id;
    const size_t digest_len = fd_algorithms[id].digest_len;
    const size_t length = (size_t)digests->length;
    const size_t first = part * job->part_rows;
    const size_t end = first + job->part_rows < length ? first + job->part_rows : length;
    const size_t chunk_rows = end - first < FD_SURROGATE_CHUNK_ROWS ? end - first
                                                                    : FD_SURROGATE_CHUNK_ROWS;
    workspace w;
    if (!make_workspace(&w, chunk_rows, digest_len, job->count))
        return false;
    fd_digest_column_prepare_rows(digests, first, end);

    bool written = true;
    for (size_t start = first; start < end && written; start += chunk_rows) {
        const size_t n = end - start < chunk_rows ? end - start : chunk_rows;
        size_t used = 0, pending = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t *slot = w.digests + i * digest_len;
            size_t total, column;
            if (!row_pieces(job, start + i, &w, &total, &column)) {
                job->results[part] = (part_result){
                    .refused = true, .row = start + i, .column = column};
                written = false;
                break;
            }
            if (total > FD_SURROGATE_TEXT_BYTES) {
                hash_pieces(job, w.pieces, slot);
                continue;
            }
            if (total > FD_SURROGATE_TEXT_BYTES - used) {
                fd_hash_many(id, w.messages, pending);
                used = pending = 0;
            }
            join_pieces(job, w.pieces, w.text + used);
            w.messages[pending++] = (fd_message){w.text + used, total, slot};
            used += total;
        }
        if (!written)
            break;
        fd_hash_many(id, w.messages, pending);
        fd_hex_encode(w.digests, n * digest_len,
                      (char *)digests->values + start * digests->row_width);
    }
    free_workspace(&w);
    return written;
}

fd_digest_column *fd_surrogate_key_hash(const fd_surrogate_spec *spec,
                                        const fd_flat_column *columns, size_t count, size_t threads,
                                        fd_surrogate_failure *failure)
{
    *failure = (fd_surrogate_failure){.out_of_memory = true};
    const size_t length = columns[0].rows.length;
    fd_digest_column *digests = fd_digest_column_new(spec->id, true, length);
    if (digests == NULL)
        return NULL;
    key_job job = {.spec = spec, .columns = columns, .count = count, .digests = digests};
    const size_t parts = fd_arrow_split_rows(length, threads, &job.part_rows);
    job.results = calloc(parts, sizeof *job.results);
    if (job.results == NULL) {
        fd_digest_column_unref(digests);
        return NULL;
    }
    if (!fd_parallel_run(parts, hash_part, &job)) {
        /* Parts are consecutive rows: the first refused is the lowest row. */
        for (size_t part = 0; part < parts; part++) {
            if (job.results[part].refused) {
                *failure = (fd_surrogate_failure){.row = job.results[part].row,
                                                  .column = job.results[part].column};
                break;
            }
        }
        fd_digest_column_unref(digests);
        digests = NULL;
    }
    free(job.results);
    return digests;
}
