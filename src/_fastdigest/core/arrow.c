/* Arrow columns hashed in place (arrow.h): schema and array checks, the
 * hashing loop over the batch driver, and the exported arrays, schemas and
 * streams with their release callbacks.
 *
 * Buffers are read with memcpy: the specification asks producers for
 * aligned buffers, but a buffer sliced out of an IPC message or a file need
 * not be, and a misaligned int32_t * would be undefined behaviour. Arrow's
 * C interface data is in the machine's own byte order. */
#include "core/arrow.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/hex.h"
#include "core/parallel.h"
#include "kernels/compiler.h"

/* The reference count of a digest column. Arrays exported from one column
 * may be released by different threads at once (a consumer's worker
 * threads), so the count is atomic: MSVC's C compiler offers C11 atomics only
 * behind an experimental switch, so there the Interlocked intrinsics. */
#ifdef _MSC_VER
#include <intrin.h>
typedef volatile long fd_refcount;
static void refcount_init(fd_refcount *count)
{
    *count = 1;
}
static void refcount_add(fd_refcount *count)
{
    _InterlockedIncrement(count);
}
/* True when that was the last reference. */
static bool refcount_drop(fd_refcount *count)
{
    return _InterlockedDecrement(count) == 0;
}
#else
#include <stdatomic.h>
typedef atomic_long fd_refcount;
static void refcount_init(fd_refcount *count)
{
    atomic_init(count, 1);
}
static void refcount_add(fd_refcount *count)
{
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
}
static bool refcount_drop(fd_refcount *count)
{
    /* acq_rel: the thread that frees sees every other thread's last use. */
    return atomic_fetch_sub_explicit(count, 1, memory_order_acq_rel) == 1;
}
#endif

static int64_t load_int32(const uint8_t *p)
{
    int32_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

static int64_t load_int64(const uint8_t *p)
{
    int64_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

static bool bit_is_set(const uint8_t *bitmap, size_t index)
{
    return (bitmap[index >> 3] >> (index & 7)) & 1;
}

static FD_PRINTF_LIKE(3, 4) bool fail(fd_arrow_error *error, enum fd_arrow_status status,
                                      const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    error->status = status;
    return false;
}

/* ---- schema ------------------------------------------------------------------ */

static bool layout_of_format(const char *format, enum fd_arrow_layout *layout)
{
    if (strcmp(format, "z") == 0 || strcmp(format, "u") == 0)
        *layout = FD_ARROW_OFFSETS32;
    else if (strcmp(format, "Z") == 0 || strcmp(format, "U") == 0)
        *layout = FD_ARROW_OFFSETS64;
    else if (strcmp(format, "vz") == 0 || strcmp(format, "vu") == 0)
        *layout = FD_ARROW_VIEWS;
    else
        return false;
    return true;
}

#define HASHED_TYPES                                                                            \
    "it hashes binary ('z'), large_binary ('Z'), binary_view ('vz'), utf8 ('u'), " \
    "large_utf8 ('U') and utf8_view ('vu')"

bool fd_arrow_check_schema(const struct ArrowSchema *schema, fd_arrow_input_type *type,
                           fd_arrow_error *error)
{
    if (schema->release == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the Arrow schema is released");
    if (schema->format == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the Arrow schema has no format string");

    const struct ArrowSchema *column = schema;
    type->in_struct = false;
    if (strcmp(schema->format, "+s") == 0) {
        if (schema->n_children != 1)
            return fail(error, FD_ARROW_BAD_TYPE,
                        "cannot hash a struct of %lld fields (Arrow format '+s'): pass one "
                        "column, or a table of exactly one column",
                        (long long)schema->n_children);
        if (schema->children == NULL || schema->children[0] == NULL ||
            schema->children[0]->format == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "the Arrow struct schema lacks its field");
        column = schema->children[0];
        type->in_struct = true;
    }
    if (column->dictionary != NULL) {
        const char *values = column->dictionary->format;
        return fail(error, FD_ARROW_BAD_TYPE,
                    "cannot hash a dictionary-encoded column (Arrow format '%.32s', values "
                    "'%.32s'): decode it first; " HASHED_TYPES,
                    column->format, values != NULL ? values : "?");
    }
    if (!layout_of_format(column->format, &type->layout))
        return fail(error, FD_ARROW_BAD_TYPE, "cannot hash Arrow format '%.32s'; " HASHED_TYPES,
                    column->format);
    type->name = column->name;
    return true;
}

/* ---- array checks -------------------------------------------------------------- */

/* What every array must satisfy before its length and offset are used:
 * slots up to offset + length, plus one (an offsets buffer has one more
 * entry than rows), of up to 16 bytes (a view) fit a size_t. */
static bool check_extent(const struct ArrowArray *array, const char *what,
                         fd_arrow_error *error)
{
    if (array->release == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array is released", what);
    if (array->length < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's length is negative (%lld)", what,
                    (long long)array->length);
    if (array->offset < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's offset is negative (%lld)", what,
                    (long long)array->offset);
    if (array->offset > INT64_MAX - 1 - array->length ||
        (uint64_t)(array->offset + array->length + 1) > SIZE_MAX / 16)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the %s array's offset %lld plus length %lld is out of range", what,
                    (long long)array->offset, (long long)array->length);
    if (array->n_buffers < 0 || (array->n_buffers > 0 && array->buffers == NULL))
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's buffers are missing", what);
    return true;
}

static const char *layout_name(enum fd_arrow_layout layout)
{
    switch (layout) {
    case FD_ARROW_OFFSETS32:
        return "binary/utf8";
    case FD_ARROW_OFFSETS64:
        return "large_binary/large_utf8";
    case FD_ARROW_VIEWS:
        break;
    }
    return "binary_view/utf8_view";
}

static bool row_is_null(const fd_arrow_column *column, size_t row)
{
    return (column->validity != NULL && !bit_is_set(column->validity, column->first + row)) ||
           (column->parent_validity != NULL &&
            !bit_is_set(column->parent_validity, column->parent_first + row));
}

/* Offsets of rows [0, length] from slot first on: at 0 or more, never
 * decreasing; the bytes under the rows need a data buffer. */
static bool check_offsets(const struct ArrowArray *array, fd_arrow_column *column,
                          fd_arrow_error *error)
{
    const size_t width = column->layout == FD_ARROW_OFFSETS32 ? 4 : 8;
    const uint8_t *offsets = column->positions + column->first * width;
    int64_t start = width == 4 ? load_int32(offsets) : load_int64(offsets);
    if (start < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the offset of row 0 is negative (%lld)",
                    (long long)start);
    int64_t previous = start;
    for (size_t row = 0; row < column->length; row++) {
        const uint8_t *next_entry = offsets + (row + 1) * width;
        int64_t next = width == 4 ? load_int32(next_entry) : load_int64(next_entry);
        if (next < previous)
            return fail(error, FD_ARROW_BAD_DATA,
                        "inconsistent offsets: row %zu ends at %lld, before its start %lld",
                        row, (long long)next, (long long)previous);
        previous = next;
    }
    /* Row pointers are data + offset: the end must be an address. */
    if ((uint64_t)previous > (uint64_t)PTRDIFF_MAX)
        return fail(error, FD_ARROW_BAD_DATA, "offset %lld is beyond the address space",
                    (long long)previous);
    column->data = array->buffers[2];
    if (previous > start && column->data == NULL)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the data buffer is null under %lld bytes of rows",
                    (long long)(previous - start));
    return true;
}

/* The views of every non-null row, against the data buffers' sizes from the
 * last buffer. */
static bool check_views(const struct ArrowArray *array, fd_arrow_column *column,
                        fd_arrow_error *error)
{
    const uint8_t *sizes = array->buffers[array->n_buffers - 1];
    column->variadic = array->buffers + 2;
    column->variadic_count = (size_t)(array->n_buffers - 3);
    if (column->variadic_count > 0 && sizes == NULL)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the view array's buffer sizes (its last buffer) are missing");
    for (size_t k = 0; k < column->variadic_count; k++) {
        int64_t size = load_int64(sizes + 8 * k);
        if (size < 0)
            return fail(error, FD_ARROW_BAD_DATA, "data buffer %zu has a negative size (%lld)",
                        k, (long long)size);
        if (size > 0 && column->variadic[k] == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "data buffer %zu of %lld bytes is null", k,
                        (long long)size);
    }
    const uint8_t *views = column->positions + column->first * 16;
    for (size_t row = 0; row < column->length; row++) {
        if (row_is_null(column, row))
            continue;
        const uint8_t *view = views + row * 16;
        int64_t len = load_int32(view);
        if (len < 0)
            return fail(error, FD_ARROW_BAD_DATA, "row %zu: negative view length %lld", row,
                        (long long)len);
        if (len <= 12)
            continue; /* inline in the view */
        int64_t index = load_int32(view + 8);
        int64_t offset = load_int32(view + 12);
        if (index < 0 || (uint64_t)index >= column->variadic_count)
            return fail(error, FD_ARROW_BAD_DATA,
                        "row %zu: view points to data buffer %lld of %zu", row,
                        (long long)index, column->variadic_count);
        int64_t size = load_int64(sizes + 8 * (size_t)index);
        if (offset < 0 || offset + len > size)
            return fail(error, FD_ARROW_BAD_DATA,
                        "row %zu: view of %lld bytes at %lld is outside data buffer %lld "
                        "(%lld bytes)",
                        row, (long long)len, (long long)offset, (long long)index,
                        (long long)size);
    }
    return true;
}

bool fd_arrow_check_array(const struct ArrowArray *array, const fd_arrow_input_type *type,
                          fd_arrow_column *column, fd_arrow_error *error)
{
    *column = (fd_arrow_column){.layout = type->layout};
    const struct ArrowArray *values = array;
    int64_t first_row = 0;
    int64_t rows = array->length;

    if (type->in_struct) {
        if (!check_extent(array, "struct", error))
            return false;
        if (array->n_buffers != 1)
            return fail(error, FD_ARROW_BAD_DATA, "a struct array has 1 buffer, not %lld",
                        (long long)array->n_buffers);
        if (array->n_children != 1 || array->children == NULL || array->children[0] == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "the struct array lacks its one child");
        values = array->children[0];
        first_row = array->offset;
        if (array->length > 0 && array->null_count != 0)
            column->parent_validity = array->buffers[0];
        column->parent_first = (size_t)array->offset;
    }
    if (!check_extent(values, "column", error))
        return false;
    if (type->in_struct && values->length < array->offset + array->length)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the struct array has %lld rows from %lld but its column only %lld",
                    (long long)array->length, (long long)array->offset,
                    (long long)values->length);

    if (type->layout == FD_ARROW_VIEWS ? values->n_buffers < 3 : values->n_buffers != 3)
        return fail(error, FD_ARROW_BAD_DATA, "a %s array has %s3 buffers, not %lld",
                    layout_name(type->layout), type->layout == FD_ARROW_VIEWS ? "at least " : "",
                    (long long)values->n_buffers);

    column->length = (size_t)rows;
    column->first = (size_t)(values->offset + first_row);
    if (rows == 0) {
        column->parent_validity = NULL;
        return true; /* nothing is read */
    }
    if (values->null_count != 0)
        column->validity = values->buffers[0];
    column->positions = values->buffers[1];
    if (column->positions == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the %s buffer is null under %lld rows",
                    type->layout == FD_ARROW_VIEWS ? "views" : "offsets", (long long)rows);
    return type->layout == FD_ARROW_VIEWS ? check_views(values, column, error)
                                          : check_offsets(values, column, error);
}

/* ---- hashing --------------------------------------------------------------------- */

struct fd_digest_column {
    fd_refcount refs;
    enum fd_algorithm_id id;
    bool hex;
    bool large;        /* hex: int64 offsets */
    int64_t length;
    int64_t null_count;
    size_t row_width;  /* digest_len, or twice that in hex */
    uint8_t *validity; /* NULL when no row is null */
    uint8_t *values;
    void *offsets;     /* hex only */
};

/* Rows per call of the batch driver: bounds the message array (and in hex
 * the digest scratch) of each hashing thread whatever the column's length.
 * The fuzzer builds with fewer (tests/fuzz/run.sh), so that its columns of
 * a few thousand rows cross many chunk and thread seams. */
#ifndef FD_ARROW_CHUNK_ROWS
#define FD_ARROW_CHUNK_ROWS 4096
#endif

/* The fewest rows a hashing thread is worth. Every row costs at least one
 * compression, and at the fastest rate one thread was measured at (about 17
 * million SHA-256 rows a second, of 8 to 64 bytes, with SHA-NI, Zen 3)
 * 16,384 rows still take about 1 ms, against the tens of microseconds a
 * thread costs to start and join. Smaller columns are hashed on fewer threads, or on the
 * caller's alone. The fuzzer builds with fewer, as with FD_ARROW_CHUNK_ROWS. */
#ifndef FD_ARROW_MIN_ROWS_PER_THREAD
#define FD_ARROW_MIN_ROWS_PER_THREAD 16384
#endif

/* out's bits [0, count) from in's bits [first, first + count); with
 * and_into, ANDed into what out holds. Reads only the bytes holding those
 * bits; the bits past count in out's last byte are cleared. */
static void copy_bits(uint8_t *out, const uint8_t *in, size_t first, size_t count,
                      bool and_into)
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
        copy_bits(digests->validity, column->parent_validity, column->parent_first, count,
                  false);
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
    size_t slot = column->first + row;
    int64_t start, end;
    switch (column->layout) {
    case FD_ARROW_OFFSETS32:
        start = load_int32(column->positions + slot * 4);
        end = load_int32(column->positions + slot * 4 + 4);
        break;
    case FD_ARROW_OFFSETS64:
        start = load_int64(column->positions + slot * 8);
        end = load_int64(column->positions + slot * 8 + 8);
        break;
    case FD_ARROW_VIEWS:
    default: {
        const uint8_t *view = column->positions + slot * 16;
        message.len = (size_t)load_int32(view);
        if (message.len <= 12)
            message.data = view + 4;
        else
            message.data = (const uint8_t *)column->variadic[load_int32(view + 8)] +
                           load_int32(view + 12);
        return message;
    }
    }
    message.len = (size_t)(end - start);
    /* No arithmetic on a null data buffer (allowed under empty rows). */
    if (message.len != 0)
        message.data = column->data + start;
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

/* What every part of one column's hashing shares: fd_parallel_run's
 * context for hash_part. */
typedef struct hash_job {
    enum fd_algorithm_id id;
    const fd_arrow_column *column;
    fd_digest_column *digests; /* validity built, values allocated */
    size_t part_rows;          /* rows of each part but the last */
} hash_job;

/* How many parts to hash length rows in, on at most threads threads, and
 * the rows of each but the last (which has the rest): at most one part per
 * FD_ARROW_MIN_ROWS_PER_THREAD rows, each a whole number of chunks so that
 * every batch-driver call but a part's last is full, as even as that
 * allows. */
static size_t split_rows(size_t length, size_t threads, size_t *part_rows)
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
    const size_t chunk_rows = end - first < FD_ARROW_CHUNK_ROWS ? end - first
                                                                : FD_ARROW_CHUNK_ROWS;

    fd_message *messages = malloc(chunk_rows * sizeof *messages + 1);
    uint8_t *scratch = digests->hex ? malloc(chunk_rows * digest_len + 1) : NULL;
    if (messages == NULL || (digests->hex && scratch == NULL)) {
        free(messages);
        free(scratch);
        return false;
    }
    /* This part's digests, and in hex its offsets (the last part's
     * including the end offset), each part its own pages. */
    fd_prefault(digests->values + first * digests->row_width,
                (end - first) * digests->row_width);
    if (digests->hex) {
        const size_t offsets_end = end == length ? end + 1 : end;
        const size_t width = offset_width(digests->large);
        fd_prefault((uint8_t *)digests->offsets + first * width, (offsets_end - first) * width);
        fill_offsets(digests->offsets, first, offsets_end, digests->row_width, digests->large);
    }
    for (size_t start = first; start < end; start += chunk_rows) {
        const size_t n = end - start < chunk_rows ? end - start : chunk_rows;
        uint8_t *slots = digests->hex ? scratch : digests->values + start * digest_len;
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t *slot = slots + i * digest_len;
            if (digests->validity != NULL && !bit_is_set(digests->validity, start + i)) {
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
    const size_t digest_len = fd_algorithms[id].digest_len;
    const size_t length = column->length;
    fd_digest_column *digests = calloc(1, sizeof *digests);
    if (digests == NULL)
        return NULL;
    refcount_init(&digests->refs);
    digests->id = id;
    digests->hex = hex;
    digests->length = (int64_t)length;
    digests->row_width = hex ? 2 * digest_len : digest_len;
    if (length > (SIZE_MAX - 1) / digests->row_width)
        goto fail;

    /* Never a null pointer, even for no rows: consumers may not expect one
     * where the format has a buffer. */
    digests->values = malloc(length * digests->row_width + 1);
    if (digests->values == NULL || !build_validity(digests, column))
        goto fail;
    if (hex) {
        digests->large = fd_digest_hex_needs_large(id, (int64_t)length);
        /* Filled by the hashing threads, each its rows' offsets. */
        digests->offsets = malloc((length + 1) * offset_width(digests->large));
        if (digests->offsets == NULL)
            goto fail;
    }

    hash_job job = {.id = id, .column = column, .digests = digests};
    const size_t parts = split_rows(length, threads, &job.part_rows);
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
    refcount_add(&digests->refs);
}

void fd_digest_column_unref(fd_digest_column *digests)
{
    if (refcount_drop(&digests->refs))
        free_digest_column(digests);
}

/* ---- export ---------------------------------------------------------------------- */

typedef struct exported_array {
    fd_digest_column *digests;
    const void *buffers[3];
} exported_array;

static void release_exported_array(struct ArrowArray *array)
{
    exported_array *exported = array->private_data;
    fd_digest_column_unref(exported->digests);
    free(exported);
    array->release = NULL;
}

bool fd_digest_column_export(fd_digest_column *digests, struct ArrowArray *out)
{
    exported_array *exported = malloc(sizeof *exported);
    if (exported == NULL)
        return false;
    exported->digests = digests;
    exported->buffers[0] = digests->validity;
    int64_t n_buffers;
    if (digests->hex) {
        exported->buffers[1] = digests->offsets;
        exported->buffers[2] = digests->values;
        n_buffers = 3;
    }
    else {
        exported->buffers[1] = digests->values;
        exported->buffers[2] = NULL;
        n_buffers = 2;
    }
    fd_digest_column_ref(digests);
    *out = (struct ArrowArray){
        .length = digests->length,
        .null_count = digests->null_count,
        .offset = 0,
        .n_buffers = n_buffers,
        .n_children = 0,
        .buffers = exported->buffers,
        .children = NULL,
        .dictionary = NULL,
        .release = release_exported_array,
        .private_data = exported,
    };
    return true;
}

typedef struct exported_schema {
    char format[24];
    char *name;
} exported_schema;

static void release_exported_schema(struct ArrowSchema *schema)
{
    exported_schema *exported = schema->private_data;
    free(exported->name);
    free(exported);
    schema->release = NULL;
}

/* A heap copy of a C string (strdup is POSIX, not C11); NULL stays NULL.
 * Returns false when memory runs out. */
static bool copy_string(const char *string, char **copy)
{
    *copy = NULL;
    if (string == NULL)
        return true;
    size_t len = strlen(string) + 1;
    *copy = malloc(len);
    if (*copy == NULL)
        return false;
    memcpy(*copy, string, len);
    return true;
}

bool fd_digest_schema_export(enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowSchema *out)
{
    exported_schema *exported = malloc(sizeof *exported);
    if (exported == NULL)
        return false;
    if (!copy_string(name, &exported->name)) {
        free(exported);
        return false;
    }
    if (hex)
        strcpy(exported->format, large ? "U" : "u");
    else
        snprintf(exported->format, sizeof exported->format, "w:%zu",
                 fd_algorithms[id].digest_len);
    *out = (struct ArrowSchema){
        .format = exported->format,
        .name = exported->name,
        .metadata = NULL,
        .flags = ARROW_FLAG_NULLABLE,
        .n_children = 0,
        .children = NULL,
        .dictionary = NULL,
        .release = release_exported_schema,
        .private_data = exported,
    };
    return true;
}

typedef struct exported_stream {
    fd_digest_column **digests;
    size_t count;
    size_t next;
    enum fd_algorithm_id id;
    bool hex;
    bool large;
    char *name;
    bool out_of_memory; /* what the last failed call ran into */
} exported_stream;

static int stream_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    exported_stream *exported = stream->private_data;
    if (!fd_digest_schema_export(exported->id, exported->hex, exported->large, exported->name,
                                 out)) {
        exported->out_of_memory = true;
        return ENOMEM;
    }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    exported_stream *exported = stream->private_data;
    if (exported->next == exported->count) {
        out->release = NULL; /* the end of the stream */
        return 0;
    }
    if (!fd_digest_column_export(exported->digests[exported->next], out)) {
        exported->out_of_memory = true;
        return ENOMEM;
    }
    exported->next++;
    return 0;
}

static const char *stream_get_last_error(struct ArrowArrayStream *stream)
{
    exported_stream *exported = stream->private_data;
    return exported->out_of_memory ? "out of memory" : NULL;
}

static void release_exported_stream(struct ArrowArrayStream *stream)
{
    exported_stream *exported = stream->private_data;
    for (size_t i = 0; i < exported->count; i++)
        fd_digest_column_unref(exported->digests[i]);
    free(exported->digests);
    free(exported->name);
    free(exported);
    stream->release = NULL;
}

bool fd_digest_stream_export(fd_digest_column *const *digests, size_t count,
                             enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowArrayStream *out)
{
    exported_stream *exported = calloc(1, sizeof *exported);
    if (exported == NULL)
        return false;
    exported->digests = malloc(count * sizeof *exported->digests + 1);
    if (exported->digests == NULL || !copy_string(name, &exported->name)) {
        free(exported->digests);
        free(exported);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        exported->digests[i] = digests[i];
        fd_digest_column_ref(digests[i]);
    }
    exported->count = count;
    exported->id = id;
    exported->hex = hex;
    exported->large = large;
    *out = (struct ArrowArrayStream){
        .get_schema = stream_get_schema,
        .get_next = stream_get_next,
        .get_last_error = stream_get_last_error,
        .release = release_exported_stream,
        .private_data = exported,
    };
    return true;
}
