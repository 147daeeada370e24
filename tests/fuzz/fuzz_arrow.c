/* libFuzzer target of the Arrow importer (core/arrow_*.c, digest_array's C): raw
 * ArrowArray structs built from the input, of any of the three layouts,
 * bare or as the one child of a struct, with arbitrary lengths, offsets,
 * offsets buffers, views, validity bitmaps and buffer counts. Built and run
 * by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined.
 *
 * Every buffer is a heap allocation of exactly the size its array claims, so
 * that ASan reports any read past one. The checks (fd_arrow_check_array)
 * must accept exactly the arrays that a plain restatement of the rules here
 * (expected_valid) accepts; an accepted array is hashed (fd_digest_column_hash,
 * the best kernels) on the calling thread, exported and compared row by row
 * with the portable kernel's fd_hash of the row's bytes as this file
 * locates them: digests, nulls, hex characters, offsets; then hashed again
 * split among three threads, exported as schema and stream, its validity
 * and digests compared byte for byte with the first, and released (leaks
 * are ASan reports too).
 *
 * run.sh builds this target with chunks of 37 rows and parts of 50 rows or
 * more (FD_ARROW_CHUNK_ROWS and FD_ARROW_MIN_ROWS_PER_THREAD; the extension
 * has 4096 and 16384), so that a column of a hundred rows is already split,
 * and its seams fall inside bytes of the validity bitmap.
 *
 * The input:
 *
 *   byte 0   bits 0-1 layout (0 offsets32, 1 offsets64, 2 views, 3 views);
 *            bit 2 hex; bit 3 in a struct; bit 4 raw offsets or views
 *            (instead of consistent ones: views of arbitrary bytes; offsets
 *            of arbitrary words, or a walk that may step back, by the next
 *            pool byte's low bit);
 *            bit 5 the child's null_count 0 (its bitmap ignored) instead of -1;
 *            bit 6 the struct's null_count 0; bit 7 many rows (long runs of
 *            chunks in each part)
 *   byte 1   algorithm (mod 8)
 *   byte 2   rows (times 17 with many rows: up to 4335)
 *   byte 3   bit 0 child bitmap present; bit 1 struct bitmap present; bit 2
 *            positions buffer null; bit 3 data buffer null (views: data
 *            buffer 0); bit 4 a wrong n_buffers; bit 5 a negative buffer size
 *            (views); bits 6-7 with byte 6, which extent to corrupt
 *   byte 4   the child's offset (mod 64)
 *   byte 5   the struct's offset (mod 16), and (bits 4-7) extra child rows
 *   byte 6   an extent corrupted when >= 240 (see corrupt_extent)
 *   byte 7   view data buffers (mod 4)
 *   the rest the pool: bitmaps, offsets, lengths, views and data bytes are
 *            taken from it in turn, cycling (zeros if it is empty)
 *
 * A mismatch prints what differed and aborts, which libFuzzer reports as a
 * crash and saves the input. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algorithms.h"
#include "core/arrow_encode.h"
#include "core/arrow_export.h"
#include "core/arrow_hash.h"
#include "core/arrow_import.h"
#include "core/batch.h"
#include "dispatch/dispatch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fd_select_kernels(false);
    return 0;
}

static void fail(const char *what, size_t detail)
{
    fprintf(stderr, "fuzz_arrow MISMATCH: %s (%zu)\n", what, detail);
    abort();
}

static void *checked_malloc(size_t size)
{
    void *p = malloc(size != 0 ? size : 1);
    if (p == NULL)
        abort();
    return p;
}

/* The pool of input bytes, read in turn. */
typedef struct pool {
    const uint8_t *bytes;
    size_t len;
    size_t next;
} pool;

static uint8_t take(pool *p)
{
    if (p->len == 0)
        return 0;
    uint8_t byte = p->bytes[p->next];
    p->next = (p->next + 1) % p->len;
    return byte;
}

static void take_bytes(pool *p, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = take(p);
}

static void store32(uint8_t *p, int32_t v)
{
    memcpy(p, &v, 4);
}

static void store64(uint8_t *p, int64_t v)
{
    memcpy(p, &v, 8);
}

static int64_t read32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int64_t read64(const uint8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static bool bit(const uint8_t *bitmap, size_t i)
{
    return (bitmap[i / 8] >> (i % 8)) & 1;
}

/* The structs here own nothing: the harness frees the buffers itself. */
static void release_nothing(struct ArrowArray *array)
{
    array->release = NULL;
}

static void release_no_schema(struct ArrowSchema *schema)
{
    schema->release = NULL;
}

/* The three layouts of the binary and string types. */
enum fuzz_layout { LAYOUT_OFFSETS32, LAYOUT_OFFSETS64, LAYOUT_VIEWS };

/* Everything one input builds; freed by free_case. */
typedef struct fuzz_case {
    enum fuzz_layout layout;
    bool hex, in_struct, raw;
    enum fd_algorithm_id id;
    size_t rows; /* the struct's rows, or the bare array's */
    size_t child_offset, parent_offset, child_rows;
    size_t variadic_count;
    bool expect_valid;
    bool backed; /* the buffers are as long as the offsets say */

    struct ArrowArray child, parent;
    struct ArrowArray *children[1];
    const void *child_buffers[8];
    const void *parent_buffers[2];
    uint8_t *child_bitmap, *parent_bitmap, *positions, *data, *sizes;
    uint8_t *variadic[4];
    int64_t variadic_sizes[4];
} fuzz_case;

static void free_case(fuzz_case *c)
{
    free(c->child_bitmap);
    free(c->parent_bitmap);
    free(c->positions);
    free(c->data);
    free(c->sizes);
    for (size_t k = 0; k < 4; k++)
        free(c->variadic[k]);
}

static uint8_t *make_bitmap(pool *p, size_t slots)
{
    uint8_t *bitmap = checked_malloc((slots + 7) / 8);
    take_bytes(p, bitmap, (slots + 7) / 8);
    return bitmap;
}

/* Row i is null by the bitmaps the checks are told to trust. */
static bool null_row(const fuzz_case *c, size_t i)
{
    if (c->child.null_count != 0 && c->child_bitmap != NULL &&
        !bit(c->child_bitmap, c->child_offset + c->parent_offset + i))
        return true;
    return c->in_struct && c->parent.null_count != 0 && c->parent_bitmap != NULL &&
           !bit(c->parent_bitmap, c->parent_offset + i);
}

/* The offsets layouts: offsets for every slot, consistent unless raw; the
 * data buffer as long as the largest offset of the rows read, when that is
 * small enough to allocate. */
static void build_offsets(fuzz_case *c, pool *p, size_t slots, bool data_null)
{
    const size_t width = c->layout == LAYOUT_OFFSETS32 ? 4 : 8;
    c->positions = checked_malloc((slots + 1) * width);
    /* Raw offsets are either arbitrary words or a walk that may step back
     * (one decrease among otherwise consistent offsets). */
    const bool arbitrary_words = c->raw && (take(p) & 1);
    int64_t value = take(p) % 8 - (c->raw ? 2 : 0);
    for (size_t s = 0; s <= slots; s++) {
        if (arbitrary_words) {
            uint8_t word[8] = {0};
            take_bytes(p, word, width);
            memcpy(c->positions + s * width, word, width);
            continue;
        }
        if (s > 0) {
            uint8_t step = take(p);
            if (c->raw)
                value += step < 16 ? -(int64_t)step : step % 50; /* back 1 in 16 */
            else
                value += step >= 250 ? 300 + step : step % 70;
        }
        if (width == 4)
            store32(c->positions + s * width, (int32_t)value);
        else
            store64(c->positions + s * width, value);
    }
    /* The largest offset under the rows read, and whether they are
     * consistent: the rule the checks enforce, restated. */
    const size_t first = c->child_offset + c->parent_offset;
    int64_t start = 0, previous = 0, largest = 0;
    bool consistent = true;
    for (size_t i = 0; i <= c->rows; i++) {
        const uint8_t *entry = c->positions + (first + i) * width;
        int64_t v = width == 4 ? read32(entry) : read64(entry);
        if (i == 0) {
            start = v;
            consistent = v >= 0;
        }
        else if (v < previous) {
            consistent = false;
        }
        previous = v;
        if (v > largest)
            largest = v;
    }
    if (c->rows > 0 && (!consistent || (data_null && previous > start)))
        c->expect_valid = false;
    if (largest <= (1 << 20) && !data_null) {
        c->data = checked_malloc((size_t)largest);
        take_bytes(p, c->data, (size_t)largest);
    }
    else if (!data_null) {
        /* Offsets past what this harness allocates: the checks cannot know
         * a buffer's length, so such an array is not hashed. */
        c->data = checked_malloc(16);
        c->backed = false;
    }
}

/* The views layout: data buffers of sizes from the pool, views into them,
 * consistent unless raw. */
static void build_views(fuzz_case *c, pool *p, size_t slots, bool data_null, bool negative_size)
{
    for (size_t k = 0; k < c->variadic_count; k++) {
        c->variadic_sizes[k] = take(p) % 201;
        if (!(data_null && k == 0)) {
            c->variadic[k] = checked_malloc((size_t)c->variadic_sizes[k]);
            take_bytes(p, c->variadic[k], (size_t)c->variadic_sizes[k]);
        }
    }
    if (negative_size && c->variadic_count > 0)
        c->variadic_sizes[c->variadic_count - 1] = -1 - take(p);
    if (c->variadic_count > 0) {
        c->sizes = checked_malloc(8 * c->variadic_count);
        for (size_t k = 0; k < c->variadic_count; k++)
            store64(c->sizes + 8 * k, c->variadic_sizes[k]);
    }
    c->positions = checked_malloc(slots * 16);
    for (size_t s = 0; s < slots; s++) {
        uint8_t *view = c->positions + 16 * s;
        if (c->raw) {
            take_bytes(p, view, 16);
            continue;
        }
        memset(view, 0, 16);
        int32_t len = take(p) % 40;
        store32(view, len);
        if (len <= 12) {
            take_bytes(p, view + 4, (size_t)len);
            continue;
        }
        int32_t index = c->variadic_count > 0 ? take(p) % (int32_t)c->variadic_count : 0;
        int64_t size = c->variadic_count > 0 ? c->variadic_sizes[index] : 0;
        int32_t offset = size >= len ? (int32_t)(take(p) % (size - len + 1)) : take(p);
        store32(view + 8, index);
        store32(view + 12, offset);
    }
    if (c->rows == 0)
        return; /* nothing is checked */
    for (size_t k = 0; k < c->variadic_count; k++) {
        if (c->variadic_sizes[k] < 0 || (c->variadic_sizes[k] > 0 && c->variadic[k] == NULL))
            c->expect_valid = false;
    }
    const size_t first = c->child_offset + c->parent_offset;
    for (size_t i = 0; i < c->rows; i++) {
        if (null_row(c, i))
            continue;
        const uint8_t *view = c->positions + 16 * (first + i);
        int64_t len = read32(view);
        if (len < 0) {
            c->expect_valid = false;
            continue;
        }
        if (len <= 12)
            continue;
        int64_t index = read32(view + 8), offset = read32(view + 12);
        if (index < 0 || index >= (int64_t)c->variadic_count || offset < 0 ||
            offset + len > c->variadic_sizes[index])
            c->expect_valid = false;
    }
}

/* Byte 6 >= 240 picks one extent to break; each makes the array invalid.
 * Returns whether it broke one. */
static bool corrupt_extent(fuzz_case *c, uint8_t code)
{
    struct ArrowArray *top = c->in_struct ? &c->parent : &c->child;
    switch (code) {
    case 240:
        top->length = -1 - (int64_t)c->rows;
        return true;
    case 241:
        top->offset = -1;
        return true;
    case 242:
        top->offset = INT64_MAX;
        return true;
    case 243:
        top->length = INT64_MAX / 2;
        top->offset = INT64_MAX / 2;
        return true;
    case 244:
        top->release = NULL;
        return true;
    case 245:
        c->child.length = -1;
        return true;
    case 246:
        if (!c->in_struct || c->rows == 0)
            return false;
        c->child.length = (int64_t)(c->parent_offset + c->rows) - 1;
        return true;
    case 247:
        if (!c->in_struct)
            return false;
        c->parent.n_children = 0;
        return true;
    case 248:
        if (!c->in_struct)
            return false;
        c->parent.n_buffers = 2;
        return true;
    case 249:
        c->child.buffers = NULL;
        return true;
    default:
        return false;
    }
}

static void check_digests(const fuzz_case *c, const struct ArrowArray *out)
{
    const size_t digest_len = fd_algorithms[c->id].digest_len;
    const size_t width = c->hex ? 2 * digest_len : digest_len;
    const uint8_t *validity = out->buffers[0];
    const uint8_t *values = out->buffers[c->hex ? 2 : 1];
    if (out->length != (int64_t)c->rows || out->offset != 0 || out->n_children != 0 ||
        out->n_buffers != (c->hex ? 3 : 2))
        fail("exported array's shape", c->rows);

    /* The references, by the portable kernels. */
    const enum fd_family family = fd_algorithms[c->id].family;
    const fd_kernel *portable = fd_kernel_lists[family];
    while (portable[1].name != NULL)
        portable++;
    fd_use_kernel(family, portable);

    const size_t first = c->child_offset + c->parent_offset;
    int64_t nulls = 0;
    for (size_t i = 0; i < c->rows; i++) {
        uint8_t expected[FD_MAX_DIGEST_LEN];
        const bool is_null = null_row(c, i);
        if (is_null != (validity != NULL && !bit(validity, i)))
            fail("validity bit", i);
        if (is_null) {
            nulls++;
            memset(expected, 0, digest_len);
        }
        else {
            const uint8_t *bytes = NULL;
            size_t len = 0;
            if (c->layout == LAYOUT_VIEWS) {
                const uint8_t *view = c->positions + 16 * (first + i);
                len = (size_t)read32(view);
                bytes = len <= 12 ? view + 4 : c->variadic[read32(view + 8)] + read32(view + 12);
            }
            else {
                const size_t w = c->layout == LAYOUT_OFFSETS32 ? 4 : 8;
                const uint8_t *entry = c->positions + (first + i) * w;
                int64_t start = w == 4 ? read32(entry) : read64(entry);
                int64_t end = w == 4 ? read32(entry + w) : read64(entry + w);
                len = (size_t)(end - start);
                bytes = len != 0 ? c->data + start : NULL;
            }
            fd_hash(c->id, bytes, len, expected);
        }
        const uint8_t *slot = values + i * width;
        if (c->hex) {
            static const char digits[] = "0123456789abcdef";
            for (size_t j = 0; j < digest_len; j++) {
                if (slot[2 * j] != digits[expected[j] >> 4] ||
                    slot[2 * j + 1] != digits[expected[j] & 15])
                    fail("hex digest", i);
            }
            if (read32((const uint8_t *)out->buffers[1] + 4 * i) != (int64_t)(i * width))
                fail("hex offsets", i);
        }
        else if (memcmp(slot, expected, digest_len) != 0) {
            fail("digest", i);
        }
    }
    if (c->hex &&
        read32((const uint8_t *)out->buffers[1] + 4 * c->rows) != (int64_t)(c->rows * width))
        fail("last hex offset", c->rows);
    if (out->null_count != nulls || (nulls == 0) != (validity == NULL))
        fail("null count", (size_t)nulls);
    fd_select_kernels(false);
}

/* The validity and digests of two exports of one column's digests, byte
 * for byte (the offsets differ when one was widened). */
static void compare_exports(const fuzz_case *c, const struct ArrowArray *one,
                            const struct ArrowArray *other)
{
    const size_t width = (c->hex ? 2 : 1) * fd_algorithms[c->id].digest_len;
    const size_t values = c->hex ? 2 : 1; /* the buffer of the digests */
    const uint8_t *validity = one->buffers[0], *other_validity = other->buffers[0];
    if (one->length != other->length || one->null_count != other->null_count ||
        (validity == NULL) != (other_validity == NULL))
        fail("split: length, null count or validity", c->rows);
    if (validity != NULL && memcmp(validity, other_validity, (c->rows + 7) / 8) != 0)
        fail("split: validity bits", c->rows);
    if (memcmp(one->buffers[values], other->buffers[values], c->rows * width) != 0)
        fail("split: digests", c->rows);
}

static void hash_and_check(fuzz_case *c, const fd_row_source *column)
{
    /* On the calling thread alone: checked row by row. */
    fd_digest_column *digests = fd_digest_column_hash(c->id, c->hex, column, 1);
    if (digests == NULL)
        abort();
    struct ArrowArray out;
    if (!fd_digest_column_export(digests, &out))
        abort();
    check_digests(c, &out);
    fd_digest_column_unref(digests); /* the export keeps the column alive */

    /* Split among three threads (this build's small parts make that happen
     * from a hundred rows), with widened offsets, as a stream with a large
     * chunk would have them: the same bytes as on one thread. */
    digests = fd_digest_column_hash(c->id, c->hex, column, 3);
    if (digests == NULL || !fd_digest_column_widen_offsets(digests))
        abort();
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    if (!fd_digest_stream_export(&digests, 1, c->id, c->hex, c->hex, "column", &stream))
        abort();
    fd_digest_column_unref(digests);
    if (stream.get_schema(&stream, &schema) != 0)
        abort();
    char format[16];
    snprintf(format, sizeof format, "w:%zu", fd_algorithms[c->id].digest_len);
    if (strcmp(schema.format, c->hex ? "U" : format) != 0 || strcmp(schema.name, "column") != 0)
        fail("stream schema", 0);
    schema.release(&schema);
    struct ArrowArray split;
    if (stream.get_next(&stream, &split) != 0 || split.release == NULL)
        fail("stream's first array", 0);
    if (split.length != (int64_t)c->rows)
        fail("stream array length", c->rows);
    if (c->hex && c->rows > 0 &&
        read64((const uint8_t *)split.buffers[1] + 8 * c->rows) !=
            (int64_t)(c->rows * 2 * fd_algorithms[c->id].digest_len))
        fail("widened offsets", c->rows);
    compare_exports(c, &out, &split);
    split.release(&split);
    out.release(&out);
    if (stream.get_next(&stream, &split) != 0 || split.release != NULL)
        fail("stream's end", 0);
    stream.release(&stream);
}

/* The schema side: the six formats, bare and in a struct, are read as
 * their types; a format from the pool is read or refused, never crashes. */
static void check_schemas(fuzz_case *c, pool *p)
{
    static const char *const formats[3][2] = {{"z", "u"}, {"Z", "U"}, {"vz", "vu"}};
    static const enum fd_arrow_type_id ids[3] = {FD_ARROW_BINARY, FD_ARROW_LARGE_BINARY,
                                                 FD_ARROW_BINARY_VIEW};
    struct ArrowSchema column = {
        .format = formats[c->layout][take(p) & 1], .name = "s", .release = release_no_schema};
    struct ArrowSchema *children[1] = {&column};
    struct ArrowSchema table = {
        .format = "+s", .n_children = 1, .children = children, .release = column.release};
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(c->in_struct ? &table : &column, NULL, 0, &error);
    const fd_arrow_type *leaf = type != NULL && c->in_struct ? &type->children[0] : type;
    if (type == NULL || leaf->id != ids[c->layout] ||
        (type->id == FD_ARROW_STRUCT) != c->in_struct || strcmp(leaf->name, "s") != 0)
        fail("schema of a hashed type", c->layout);
    fd_arrow_type_free(type);

    char random_format[4] = {0};
    for (size_t i = 0; i < 3; i++)
        random_format[i] = (char)(take(p) % 128);
    column.format = random_format;
    type = fd_arrow_import_type(&column, NULL, 0, &error);
    if (type == NULL && error.status != FD_ARROW_BAD_TYPE && error.status != FD_ARROW_BAD_DATA)
        fail("schema of another type", (size_t)(unsigned char)random_format[0]);
    fd_arrow_type_free(type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    fuzz_case c;
    memset(&c, 0, sizeof c);
    pool p = {data + 8, size - 8, 0};

    c.layout = (data[0] & 3) >= 2 ? LAYOUT_VIEWS : (enum fuzz_layout)(data[0] & 3);
    c.hex = data[0] & 4;
    c.in_struct = data[0] & 8;
    c.raw = data[0] & 16;
    c.id = (enum fd_algorithm_id)(data[1] % FD_ALGORITHM_COUNT);
    c.rows = (data[0] & 128) ? (size_t)data[2] * 17 : data[2];
    const uint8_t flags = data[3];
    c.child_offset = data[4] % 64;
    c.parent_offset = c.in_struct ? data[5] % 16 : 0;
    c.child_rows = c.in_struct ? c.parent_offset + c.rows + (data[5] >> 4) : c.rows;
    c.variadic_count = data[7] % 4;
    c.expect_valid = true;
    c.backed = true;

    check_schemas(&c, &p);

    const size_t slots = c.child_offset + c.child_rows;
    if (flags & 1)
        c.child_bitmap = make_bitmap(&p, slots);
    if (c.in_struct && (flags & 2))
        c.parent_bitmap = make_bitmap(&p, c.parent_offset + c.rows);

    c.child = (struct ArrowArray){
        .length = (int64_t)c.child_rows,
        .null_count = (data[0] & 32) ? 0 : -1,
        .offset = (int64_t)c.child_offset,
        .buffers = c.child_buffers,
        .release = release_nothing,
    };
    c.parent = (struct ArrowArray){
        .length = (int64_t)c.rows,
        .null_count = (data[0] & 64) ? 0 : -1,
        .offset = (int64_t)c.parent_offset,
        .n_buffers = 1,
        .n_children = 1,
        .buffers = c.parent_buffers,
        .children = c.children,
        .release = release_nothing,
    };
    c.children[0] = &c.child;
    c.parent_buffers[0] = c.parent_bitmap;

    /* Built before the corruptions, from the sizes as they were. */
    const bool data_null = flags & 8;
    if (c.layout == LAYOUT_VIEWS)
        build_views(&c, &p, slots, data_null, flags & 32);
    else
        build_offsets(&c, &p, slots, data_null);

    c.child_buffers[0] = c.child_bitmap;
    c.child_buffers[1] = (flags & 4) ? NULL : c.positions;
    if (c.layout == LAYOUT_VIEWS) {
        for (size_t k = 0; k < c.variadic_count; k++)
            c.child_buffers[2 + k] = c.variadic[k];
        c.child_buffers[2 + c.variadic_count] = c.sizes;
        c.child.n_buffers = 3 + (int64_t)c.variadic_count;
    }
    else {
        c.child_buffers[2] = c.data;
        c.child.n_buffers = 3;
    }
    if ((flags & 4) && c.rows > 0)
        c.expect_valid = false;
    if (flags & 16) {
        /* A count the checks can tell is wrong: for views, one that leaves
         * no room for the sizes buffer (a count that is merely off by some
         * data buffers cannot be told from a real one). */
        c.child.n_buffers = c.layout == LAYOUT_VIEWS ? 2 : (flags & 64) ? 2 : 4;
        c.expect_valid = false;
    }
    if (corrupt_extent(&c, data[6]))
        c.expect_valid = false;

    static const char *const formats[3] = {"z", "U", "vu"};
    struct ArrowSchema column_schema = {
        .format = formats[c.layout], .name = "s", .release = release_no_schema};
    struct ArrowSchema *schema_children[1] = {&column_schema};
    struct ArrowSchema table_schema = {
        .format = "+s", .n_children = 1, .children = schema_children, .release = release_no_schema};
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(c.in_struct ? &table_schema : &column_schema, NULL,
                                               0, &error);
    if (type == NULL)
        fail("schema refused", c.layout);
    fd_arrow_array *checked = fd_arrow_import_array(c.in_struct ? &c.parent : &c.child, type,
                                                    &error);
    const bool valid = checked != NULL;
    if (valid != c.expect_valid) {
        fprintf(stderr, "checks said %s: %s\n", valid ? "valid" : "invalid",
                valid ? "" : error.message);
        fail(c.expect_valid ? "a valid array refused" : "an invalid array accepted", c.rows);
    }
    if (!valid && error.status != FD_ARROW_BAD_DATA)
        fail("error status", (size_t)error.status);
    if (valid && c.backed) {
        fd_arrow_column_rows rows = {.column = checked, .length = (size_t)checked->length};
        if (c.in_struct) {
            rows.column = &checked->children[0];
            rows.first = checked->offset;
            rows.parent = checked;
        }
        fd_row_source source;
        fd_arrow_column_source(&rows, &source);
        hash_and_check(&c, &source);
    }
    fd_arrow_array_free(checked);
    fd_arrow_type_free(type);
    free_case(&c);
    return 0;
}
