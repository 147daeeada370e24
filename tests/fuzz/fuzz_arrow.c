/* libFuzzer target of the Arrow import and hashing (data/arrow_*.c,
 * digest_array's and digest_rows' C), in two modes, told apart by the top
 * bit of byte 7. Built and run by tests/fuzz/run.sh with clang
 * -fsanitize=fuzzer,address,undefined.
 *
 * Every buffer is a heap allocation of exactly the size its array claims, so
 * that ASan reports any read past one.
 *
 * The binary layouts (byte 7 below 128): raw ArrowArray structs of the
 * three layouts of binary and string columns, bare or as the one child of
 * a struct, with arbitrary lengths, offsets, offsets buffers, views,
 * validity bitmaps and buffer counts. The import (fd_arrow_import_array)
 * must accept exactly the arrays that a plain restatement of the rules here
 * (expected_valid) accepts; an accepted array is hashed (digest_array's row
 * source, fd_digest_column_hash, the best kernels) on the calling thread,
 * exported and compared row by row with the portable kernel's fd_hash of
 * the row's bytes as this file locates them: digests, nulls, hex
 * characters, offsets; then hashed again split among three threads,
 * exported as schema and stream, its validity and digests compared byte for
 * byte with the first, and released (leaks are ASan reports too).
 *
 * The typed mode (byte 7's top bit set; fuzz_typed below): a tree of arrays
 * of every type the import reads (every primitive and temporal type,
 * decimals of each width, fixed-size binaries, the binary layouts, lists,
 * large lists, list views, fixed-size lists, structs, maps, run-end encoded
 * and dictionary-encoded arrays, nested up to four levels, each with an
 * offset and a validity bitmap of its own), as a column (digest_array) or
 * as the columns of a table (digest_rows); consistent, or with rules
 * broken at random (offsets that step back or start below 0, list views
 * outside their child, children too short, run ends that do not increase
 * or cover, null run ends, dictionary indices out of range, views outside
 * their buffers, negative buffer sizes, wrong buffer and child counts).
 * A consistent tree must be accepted; a broken one may be refused; an
 * accepted one is hashed on one thread and on three (the same bytes), and
 * each row compared with the portable kernel's fd_hash of its encoding
 * written whole (fd_arrow_encode_value or _field into a growing buffer):
 * the driver's sink, its moves, streamed rows and in-place rows against the
 * plain encoding. That every rule is enforced is what ASan shows: a tree
 * the import wrongly accepts is read past its buffers when it is hashed.
 *
 * run.sh builds this target with chunks of 37 rows, parts of 50 rows or
 * more and a sink of 61 bytes (FD_ARROW_CHUNK_ROWS,
 * FD_ARROW_MIN_ROWS_PER_THREAD and FD_ARROW_SINK_BYTES; the extension has
 * 4096, 16384 and 256 KiB), so that a column of a hundred rows is already
 * split, its seams fall inside bytes of the validity bitmap, and encoded
 * rows fill the sink, are moved to its start and outgrow it all the time.
 *
 * The binary layouts' input:
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
 *   byte 7   view data buffers (mod 4), below 128
 *   the rest the pool: bitmaps, offsets, lengths, views and data bytes are
 *            taken from it in turn, cycling (zeros if it is empty)
 *
 * The typed input is described at fuzz_typed.
 *
 * A mismatch prints what differed and aborts, which libFuzzer reports as a
 * crash and saves the input. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/algorithms.h"
#include "data/arrow_digest_column.h"
#include "data/arrow_encode.h"
#include "data/arrow_export.h"
#include "data/arrow_hash.h"
#include "data/arrow_import.h"
#include "hash/batch.h"
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

/* ---- the typed mode: arrays of every type ------------------------------------------ */

/* Everything one typed input builds, freed at its end: the nodes (a schema
 * and an array each, over buffers and children of their own) and every
 * buffer, each a heap allocation of exactly the size its array claims. */
typedef struct typed_gen {
    pool *p;
    bool corrupt;  /* may break a rule the checks must enforce */
    bool broken;   /* did break one: the import may refuse the array */
    size_t budget; /* values left to make: bounds the whole tree */
    void **allocations;
    size_t allocation_count, allocation_capacity;
} typed_gen;

typedef struct typed_node {
    struct ArrowSchema schema;
    struct ArrowArray array;
    const void *buffers[8];
    struct ArrowSchema *schema_children[4];
    struct ArrowArray *array_children[4];
    char format[40];
} typed_node;

static void *gen_alloc(typed_gen *g, size_t size)
{
    if (g->allocation_count == g->allocation_capacity) {
        g->allocation_capacity = g->allocation_capacity ? 2 * g->allocation_capacity : 64;
        g->allocations = realloc(g->allocations, g->allocation_capacity * sizeof *g->allocations);
        if (g->allocations == NULL)
            abort();
    }
    void *p = checked_malloc(size);
    g->allocations[g->allocation_count++] = p;
    return p;
}

static uint8_t *gen_bytes(typed_gen *g, size_t size)
{
    uint8_t *bytes = gen_alloc(g, size);
    take_bytes(g->p, bytes, size);
    return bytes;
}

/* Whether to break a rule here: rarely, and only in a corrupting input. */
static bool breaks(typed_gen *g)
{
    if (!g->corrupt || take(g->p) >= 12)
        return false;
    g->broken = true;
    return true;
}

static void store_width(uint8_t *p, size_t slot, uint32_t width, int64_t v)
{
    if (width == 2) {
        int16_t x = (int16_t)v;
        memcpy(p + 2 * slot, &x, 2);
    }
    else if (width == 4) {
        store32(p + 4 * slot, (int32_t)v);
    }
    else {
        store64(p + 8 * slot, v);
    }
}

/* Whether slot s of a node is valid as the import will read it. */
static bool slot_valid(const typed_node *n, size_t slot)
{
    const uint8_t *bitmap = n->array.n_buffers > 0 ? n->buffers[0] : NULL;
    return n->array.null_count == 0 || bitmap == NULL || bit(bitmap, slot);
}

static typed_node *gen_node(typed_gen *g, size_t length, unsigned depth);

static typed_node *new_node(typed_gen *g, size_t length, size_t slots_offset)
{
    typed_node *n = gen_alloc(g, sizeof *n);
    memset(n, 0, sizeof *n);
    n->schema.format = n->format;
    n->schema.release = release_no_schema;
    n->schema.children = n->schema_children;
    n->array.length = (int64_t)length;
    n->array.offset = (int64_t)slots_offset;
    n->array.buffers = n->buffers;
    n->array.children = n->array_children;
    n->array.release = release_nothing;
    g->budget = g->budget > length ? g->budget - length : 0;
    return n;
}

static void add_child(typed_node *n, typed_node *child)
{
    n->schema_children[n->schema.n_children++] = &child->schema;
    n->array_children[n->array.n_children++] = &child->array;
}

/* A validity bitmap for slots, trusted (null_count -1) or not (0), or none. */
static void gen_validity(typed_gen *g, typed_node *n, size_t slots)
{
    const uint8_t choice = take(g->p);
    if (choice % 3 == 0) {
        n->buffers[0] = NULL;
        n->array.null_count = 0;
        return;
    }
    n->buffers[0] = gen_bytes(g, (slots + 7) / 8);
    n->array.null_count = choice % 3 == 1 ? -1 : 0;
}

/* offsets of slots [0, slots], at most max_step apart; returns the largest. */
static int64_t gen_offsets(typed_gen *g, uint8_t *offsets, size_t slots, uint32_t width,
                           unsigned max_step)
{
    int64_t value = take(g->p) % 3, largest = value;
    if (breaks(g))
        value = -1 - take(g->p) % 3;
    store_width(offsets, 0, width, value);
    for (size_t s = 1; s <= slots; s++) {
        unsigned step = g->budget > 0 ? take(g->p) % (max_step + 1) : 0;
        value += step;
        if (breaks(g))
            value -= 1 + take(g->p) % 4; /* a step back */
        store_width(offsets, s, width, value);
        largest = value > largest ? value : largest;
    }
    return largest < 0 ? 0 : largest;
}

static void gen_leaf(typed_gen *g, typed_node *n, size_t slots, unsigned kind)
{
    static const char ints[] = "cCsSiIlL";
    static const char units[] = "smun";
    const uint8_t choice = take(g->p);
    size_t width = 0;
    n->array.n_buffers = 2;
    switch (kind) {
    case 0: /* null */
        strcpy(n->format, "n");
        n->array.n_buffers = 0;
        n->array.null_count = (int64_t)(slots - (size_t)n->array.offset);
        return;
    case 1:
        strcpy(n->format, "b");
        gen_validity(g, n, slots);
        n->buffers[1] = gen_bytes(g, (slots + 7) / 8);
        return;
    case 2:
        snprintf(n->format, sizeof n->format, "%c", ints[choice % 8]);
        width = (size_t)1 << (choice % 8 / 2);
        break;
    case 3:
        snprintf(n->format, sizeof n->format, "%c", "efg"[choice % 3]);
        width = (size_t)2 << (choice % 3);
        break;
    case 4: {
        static const unsigned bits[4] = {32, 64, 128, 256};
        snprintf(n->format, sizeof n->format, "d:%u,%d,%u", 1 + choice % 38,
                 (int)(take(g->p) % 12) - 2, bits[choice % 4]);
        width = bits[choice % 4] / 8;
        break;
    }
    case 5:
        snprintf(n->format, sizeof n->format, "td%c", choice & 1 ? 'D' : 'm');
        width = choice & 1 ? 4 : 8;
        break;
    case 6:
        snprintf(n->format, sizeof n->format, "tt%c", units[choice % 4]);
        width = choice % 4 < 2 ? 4 : 8;
        break;
    case 7:
        snprintf(n->format, sizeof n->format, "ts%c:%s", units[choice % 4],
                 choice & 4 ? "UTC" : "");
        width = 8;
        break;
    case 8:
        snprintf(n->format, sizeof n->format, "tD%c", units[choice % 4]);
        width = 8;
        break;
    case 9:
        snprintf(n->format, sizeof n->format, "ti%c", "MDn"[choice % 3]);
        width = (size_t)4 << (choice % 3);
        break;
    default: /* fixed_size_binary */
        width = choice % 6;
        snprintf(n->format, sizeof n->format, "w:%zu", width);
        break;
    }
    gen_validity(g, n, slots);
    n->buffers[1] = gen_bytes(g, slots * width);
}

/* binary/utf8 (width 4) or large (8): offsets and a data buffer as long as
 * the largest of them. */
static void gen_binary(typed_gen *g, typed_node *n, size_t slots, uint32_t width)
{
    const uint8_t choice = take(g->p);
    snprintf(n->format, sizeof n->format, "%c", width == 4 ? "zu"[choice & 1] : "ZU"[choice & 1]);
    n->array.n_buffers = 3;
    gen_validity(g, n, slots);
    uint8_t *offsets = gen_alloc(g, (slots + 1) * width);
    int64_t largest = gen_offsets(g, offsets, slots, width, 9);
    n->buffers[1] = offsets;
    n->buffers[2] = gen_bytes(g, (size_t)largest);
}

static void gen_views(typed_gen *g, typed_node *n, size_t slots)
{
    const uint8_t choice = take(g->p);
    strcpy(n->format, choice & 1 ? "vz" : "vu");
    const size_t buffers = choice / 2 % 3;
    n->array.n_buffers = 3 + (int64_t)buffers;
    gen_validity(g, n, slots);
    int64_t sizes[2] = {0, 0};
    uint8_t *sizes_buffer = gen_alloc(g, 8 * buffers + 1);
    for (size_t k = 0; k < buffers; k++) {
        sizes[k] = 13 + take(g->p) % 40;
        n->buffers[2 + k] = gen_bytes(g, (size_t)sizes[k]);
        store64(sizes_buffer + 8 * k, breaks(g) ? -1 : sizes[k]);
    }
    n->buffers[2 + buffers] = sizes_buffer;
    uint8_t *views = gen_alloc(g, 16 * slots + 1);
    for (size_t s = 0; s < slots; s++) {
        uint8_t *view = views + 16 * s;
        memset(view, 0, 16);
        int32_t len = (int32_t)(take(g->p) % 30);
        if (len > 12 && buffers == 0)
            len = 12;
        if (len > 12) {
            int32_t index = (int32_t)(take(g->p) % buffers);
            len = len > sizes[index] ? (int32_t)sizes[index] : len;
            int32_t offset = (int32_t)(take(g->p) % (sizes[index] - len + 1));
            if (breaks(g))
                offset = (int32_t)sizes[index];
            store32(view + 8, breaks(g) ? (int32_t)buffers : index);
            store32(view + 12, offset);
        }
        else {
            take_bytes(g->p, view + 4, (size_t)len);
        }
        store32(view, breaks(g) ? -1 : len);
    }
    n->buffers[1] = views;
}

static void gen_list(typed_gen *g, typed_node *n, size_t slots, unsigned depth, bool large,
                     bool map)
{
    const uint32_t width = large ? 8 : 4;
    strcpy(n->format, map ? "+m" : large ? "+L" : "+l");
    n->array.n_buffers = 2;
    gen_validity(g, n, slots);
    uint8_t *offsets = gen_alloc(g, (slots + 1) * width);
    int64_t largest = gen_offsets(g, offsets, slots, width, 3);
    n->buffers[1] = offsets;
    size_t child_length = (size_t)largest + take(g->p) % 2;
    if (child_length > 0 && breaks(g))
        child_length--;
    typed_node *child;
    if (map) {
        /* Entries: a struct of two fields. */
        child = new_node(g, child_length, 0);
        strcpy(child->format, "+s");
        child->array.n_buffers = 1;
        child->buffers[0] = NULL;
        add_child(child, gen_node(g, child_length, depth + 1));
        add_child(child, gen_node(g, child_length, depth + 1));
    }
    else {
        child = gen_node(g, child_length, depth + 1);
    }
    add_child(n, child);
}

static void gen_list_views(typed_gen *g, typed_node *n, size_t slots, unsigned depth, bool large)
{
    const uint32_t width = large ? 8 : 4;
    strcpy(n->format, large ? "+vL" : "+vl");
    n->array.n_buffers = 3;
    gen_validity(g, n, slots);
    const size_t child_length = g->budget > 0 ? take(g->p) % 9 : 0;
    uint8_t *offsets = gen_alloc(g, slots * width + 1), *sizes = gen_alloc(g, slots * width + 1);
    for (size_t s = 0; s < slots; s++) {
        int64_t offset = take(g->p) % (child_length + 1);
        int64_t size = take(g->p) % (child_length - (size_t)offset + 1);
        if (breaks(g))
            size = (int64_t)child_length - offset + 1;
        if (breaks(g))
            offset = -1;
        store_width(offsets, s, width, offset);
        store_width(sizes, s, width, size);
    }
    n->buffers[1] = offsets;
    n->buffers[2] = sizes;
    add_child(n, gen_node(g, child_length, depth + 1));
}

static void gen_fixed_list(typed_gen *g, typed_node *n, size_t slots, unsigned depth)
{
    const size_t size = g->budget > 0 ? take(g->p) % 4 : 0;
    snprintf(n->format, sizeof n->format, "+w:%zu", size);
    n->array.n_buffers = 1;
    gen_validity(g, n, slots);
    size_t child_length = slots * size + take(g->p) % 2;
    if (child_length > 0 && breaks(g))
        child_length--;
    add_child(n, gen_node(g, child_length, depth + 1));
}

static void gen_struct(typed_gen *g, typed_node *n, size_t slots, unsigned depth)
{
    strcpy(n->format, "+s");
    n->array.n_buffers = 1;
    gen_validity(g, n, slots);
    const size_t fields = take(g->p) % 4;
    for (size_t k = 0; k < fields; k++) {
        size_t child_length = slots + take(g->p) % 2;
        if (child_length > 0 && breaks(g))
            child_length--;
        add_child(n, gen_node(g, child_length, depth + 1));
    }
}

/* Run ends covering slots: strictly increasing, the last at slots or
 * beyond, in a child of their own with an offset; values for each run. */
static void gen_run_ends(typed_gen *g, typed_node *n, size_t slots, unsigned depth)
{
    strcpy(n->format, "+r");
    n->array.n_buffers = 0;
    n->array.null_count = 0;
    static const uint32_t widths[3] = {2, 4, 8};
    const uint32_t width = widths[take(g->p) % 3];
    const size_t ends_offset = take(g->p) % 3;
    /* At most a run a slot, at least one when there are slots. */
    size_t runs = slots == 0 ? take(g->p) % 2 : 1 + take(g->p) % slots;
    typed_node *ends = new_node(g, runs, ends_offset);
    snprintf(ends->format, sizeof ends->format, "%c", width == 2 ? 's' : width == 4 ? 'i' : 'l');
    if (breaks(g))
        strcpy(ends->format, "c");
    ends->array.n_buffers = 2;
    ends->array.null_count = 0;
    if (breaks(g)) {
        uint8_t *bitmap = gen_alloc(g, (ends_offset + runs + 7) / 8 + 1);
        memset(bitmap, 0, (ends_offset + runs + 7) / 8 + 1);
        ends->buffers[0] = bitmap;
        ends->array.null_count = -1;
    }
    uint8_t *values = gen_alloc(g, (ends_offset + runs) * width + 1);
    int64_t end = 0;
    for (size_t j = 0; j < runs; j++) {
        /* Runs of 1 or more slots, the last reaching slots. */
        const size_t left = runs - j - 1;
        const int64_t room = (int64_t)slots - end - (int64_t)left;
        end += j + 1 == runs ? (room > 1 ? room : 1) : 1 + (room > 1 ? take(g->p) % room : 0);
        int64_t stored = end;
        if (breaks(g))
            stored = j == 0 ? 0 : end - 1 - (int64_t)(take(g->p) % 2);
        store_width(values, ends_offset + j, width, stored);
    }
    if (runs > 0 && breaks(g))
        store_width(values, ends_offset + runs - 1, width, (int64_t)slots - 1);
    ends->buffers[1] = values;
    add_child(n, ends);
    size_t value_count = runs + take(g->p) % 2;
    if (value_count > 0 && breaks(g))
        value_count--;
    add_child(n, gen_node(g, value_count, depth + 1));
}

static void gen_dictionary(typed_gen *g, typed_node *n, size_t slots, unsigned depth)
{
    static const char ints[] = "cCsSiIlL";
    const uint8_t choice = take(g->p);
    snprintf(n->format, sizeof n->format, "%c", ints[choice % 8]);
    const uint32_t width = 1u << (choice % 8 / 2);
    const bool is_signed = choice % 2 == 0;
    n->array.n_buffers = 2;
    const size_t entries = g->budget > 0 ? take(g->p) % 7 : 0;
    gen_validity(g, n, slots);
    if (entries == 0) {
        /* No dictionary value to point to: every slot null. */
        uint8_t *bitmap = gen_alloc(g, (slots + 7) / 8 + 1);
        memset(bitmap, 0, (slots + 7) / 8 + 1);
        n->buffers[0] = bitmap;
        n->array.null_count = -1;
    }
    uint8_t *indices = gen_alloc(g, slots * width + 1);
    for (size_t s = 0; s < slots; s++) {
        int64_t index = entries > 0 ? take(g->p) % entries : 0;
        if (!slot_valid(n, s))
            index = take(g->p); /* never read */
        if (breaks(g))
            index = is_signed ? -1 : (int64_t)entries;
        if (width == 1) {
            indices[s] = (uint8_t)index;
        }
        else {
            store_width(indices, s, width, index);
        }
    }
    n->buffers[1] = indices;
    typed_node *dictionary = gen_node(g, entries, depth + 1);
    n->schema.dictionary = &dictionary->schema;
    n->array.dictionary = &dictionary->array;
}

#define TYPED_LEAF_KINDS 14
#define TYPED_KINDS 23
#define TYPED_MAX_DEPTH 4

/* A node of length values (and a few slots of offset before them) of a type
 * chosen from the pool. */
static typed_node *gen_node(typed_gen *g, size_t length, unsigned depth)
{
    const size_t offset = take(g->p) % 4;
    const size_t slots = offset + length;
    typed_node *n = new_node(g, length, offset);
    const unsigned kind = take(g->p) % (depth >= TYPED_MAX_DEPTH || g->budget == 0
                                            ? TYPED_LEAF_KINDS
                                            : TYPED_KINDS);
    switch (kind) {
    case 11:
        gen_binary(g, n, slots, 4);
        break;
    case 12:
        gen_binary(g, n, slots, 8);
        break;
    case 13:
        gen_views(g, n, slots);
        break;
    case 14:
    case 15:
        gen_list(g, n, slots, depth, kind == 15, false);
        break;
    case 16:
    case 17:
        gen_list_views(g, n, slots, depth, kind == 17);
        break;
    case 18:
        gen_fixed_list(g, n, slots, depth);
        break;
    case 19:
        gen_struct(g, n, slots, depth);
        break;
    case 20:
        gen_list(g, n, slots, depth, false, true);
        break;
    case 21:
        gen_run_ends(g, n, slots, depth);
        break;
    case 22:
        gen_dictionary(g, n, slots, depth);
        break;
    default:
        gen_leaf(g, n, slots, kind);
        break;
    }
    if (breaks(g)) {
        /* A count the import checks before it reads a buffer or a child. */
        if (take(g->p) & 1)
            n->array.n_buffers += 1;
        else
            n->array.n_children += 1;
    }
    return n;
}

/* A sink that grows: the expected bytes of one value or row, whole. */
static void grow(fd_sink *sink)
{
    sink->capacity = sink->capacity ? 2 * sink->capacity : 256;
    sink->buffer = realloc(sink->buffer, sink->capacity);
    if (sink->buffer == NULL)
        abort();
}

/* The digests of source's rows as the driver made them (threads 1 and 3,
 * the same bytes), against fd_hash with the portable kernel of the bytes
 * expected(row) writes whole, NULL for the null rows. */
typedef bool expected_bytes(const fd_arrow_array *a, size_t row, fd_sink *sink);

static void check_typed_digests(enum fd_algorithm_id id, bool hex, const fd_row_source *source,
                                const fd_arrow_array *a, expected_bytes *expected)
{
    const size_t digest_len = fd_algorithms[id].digest_len;
    const size_t width = hex ? 2 * digest_len : digest_len;
    fd_digest_column *one = fd_digest_column_hash(id, hex, source, 1);
    fd_digest_column *three = fd_digest_column_hash(id, hex, source, 3);
    if (one == NULL || three == NULL)
        abort();
    if (one->null_count != three->null_count ||
        memcmp(one->values, three->values, source->length * width) != 0 ||
        (one->validity == NULL) != (three->validity == NULL) ||
        (one->validity != NULL &&
         memcmp(one->validity, three->validity, (source->length + 7) / 8) != 0))
        fail("typed: one thread and three differ", source->length);

    const enum fd_family family = fd_algorithms[id].family;
    const fd_kernel *portable = fd_kernel_lists[family];
    while (portable[1].name != NULL)
        portable++;
    fd_use_kernel(family, portable);
    fd_sink sink = {.make_room = grow};
    int64_t nulls = 0;
    for (size_t row = 0; row < source->length; row++) {
        sink.used = 0;
        const bool is_null = !expected(a, row, &sink);
        if (is_null != (one->validity != NULL && !bit(one->validity, row)))
            fail("typed: validity bit", row);
        uint8_t digest[FD_MAX_DIGEST_LEN];
        if (is_null) {
            nulls++;
            memset(digest, 0, digest_len);
        }
        else {
            fd_hash(id, sink.buffer, sink.used, digest);
        }
        const uint8_t *slot = one->values + row * width;
        if (hex) {
            static const char digits[] = "0123456789abcdef";
            for (size_t j = 0; j < digest_len; j++) {
                if (slot[2 * j] != digits[digest[j] >> 4] ||
                    slot[2 * j + 1] != digits[digest[j] & 15])
                    fail("typed: hex digest", row);
            }
        }
        else if (memcmp(slot, digest, digest_len) != 0) {
            fail("typed: digest", row);
        }
    }
    if (one->null_count != nulls)
        fail("typed: null count", (size_t)nulls);
    free(sink.buffer);
    fd_select_kernels(false);
    fd_digest_column_unref(one);
    fd_digest_column_unref(three);
}

/* digest_array's rows: value(v), or null; a struct of one field, in any
 * layout, as its field (encoding.md, version 2). */
static bool expected_value(const fd_arrow_array *a, size_t row, fd_sink *sink)
{
    int64_t index = (int64_t)row;
    const fd_arrow_array *leaf = fd_arrow_resolve(a, &index);
    if (leaf != NULL && leaf->type->id == FD_ARROW_STRUCT && leaf->type->n_children == 1) {
        index += leaf->offset;
        leaf = fd_arrow_resolve(&leaf->children[0], &index);
    }
    if (leaf == NULL)
        return false;
    fd_arrow_encode_value(leaf, index, sink);
    return true;
}

/* digest_rows' rows: each field's field(v), 00 under a null struct row. */
static bool expected_row(const fd_arrow_array *a, size_t row, fd_sink *sink)
{
    for (size_t k = 0; k < a->type->n_children; k++) {
        if (!fd_arrow_slot_is_valid(a, (int64_t)row))
            fd_sink_byte(sink, 0);
        else
            fd_arrow_encode_field(&a->children[k], a->offset + (int64_t)row, sink);
    }
    return true;
}

/* Imports the node's schema and array: a consistent one must be accepted,
 * a broken one may be refused (BAD_DATA, or BAD_TYPE for a schema the
 * break made foreign); what is accepted is hashed and checked. */
static void import_and_hash(typed_gen *g, typed_node *root, enum fd_algorithm_id id, bool hex,
                            bool as_table)
{
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(&root->schema, NULL, 0, &error);
    fd_arrow_array *checked = type != NULL ? fd_arrow_import_array(&root->array, type, &error)
                                           : NULL;
    if (checked == NULL) {
        if (!g->broken) {
            fprintf(stderr, "typed: refused: %s\n", error.message);
            fail("typed: a consistent array refused", 0);
        }
        if (error.status != FD_ARROW_BAD_DATA && error.status != FD_ARROW_BAD_TYPE)
            fail("typed: error status", (size_t)error.status);
        fd_arrow_type_free(type);
        return;
    }
    fd_row_source source;
    fd_arrow_column_rows rows = {.column = checked, .length = (size_t)checked->length};
    if (as_table) {
        fd_arrow_table_source(checked, &source);
        check_typed_digests(id, hex, &source, checked, expected_row);
    }
    else {
        fd_arrow_column_source(&rows, &source);
        check_typed_digests(id, hex, &source, checked, expected_value);
    }
    fd_arrow_array_free(checked);
    fd_arrow_type_free(type);
}

/* The typed input (byte 7's top bit set):
 *
 *   byte 0   algorithm (mod 8)
 *   byte 1   bit 0 hex; bit 1 as a table (a struct root of the node and a
 *            second column, digest_rows' source) instead of digest_array's;
 *            bit 2 may break rules (else every array is consistent)
 *   byte 2   rows at the root (mod 80)
 *   byte 3   the value budget of the whole tree (times 8)
 *   bytes 4-6 unused
 *   the rest the pool, as for the binary layouts. */
static int fuzz_typed(const uint8_t *data, size_t size)
{
    pool p = {data + 8, size - 8, 0};
    typed_gen g = {.p = &p, .corrupt = data[1] & 4, .budget = (size_t)data[3] * 8 + 8};
    const enum fd_algorithm_id id = (enum fd_algorithm_id)(data[0] % FD_ALGORITHM_COUNT);
    const bool hex = data[1] & 1, as_table = data[1] & 2;
    const size_t rows = data[2] % 80;
    typed_node *root;
    if (as_table) {
        root = new_node(&g, rows, take(&p) % 4);
        strcpy(root->format, "+s");
        root->array.n_buffers = 1;
        gen_validity(&g, root, (size_t)root->array.offset + rows);
        const size_t columns = 1 + take(&p) % 2;
        for (size_t k = 0; k < columns; k++)
            add_child(root, gen_node(&g, (size_t)root->array.offset + rows, 1));
    }
    else {
        root = gen_node(&g, rows, 0);
    }
    import_and_hash(&g, root, id, hex, as_table);
    for (size_t k = 0; k < g.allocation_count; k++)
        free(g.allocations[k]);
    free(g.allocations);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    if (data[7] & 0x80)
        return fuzz_typed(data, size);
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
