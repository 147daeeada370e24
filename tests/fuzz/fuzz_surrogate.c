/* libFuzzer target of surrogate_key's C (data/arrow_flat.c, arrow_text.c,
 * arrow_surrogate.c): a raw struct array (a record batch) of one to four
 * flat columns built from the input, each of any type surrogate_key takes
 * (integers of every width, booleans, date32 and date64, decimals of the
 * four widths, the three string layouts, the null type), with its own
 * offset, extra rows, validity bitmap and null_count, under a struct of its
 * own offset and validity; and random format strings through the schema
 * reader (the decimal parser above all). Built and run by tests/fuzz/run.sh
 * with clang -fsanitize=fuzzer,address,undefined.
 *
 * Every buffer is a heap allocation of exactly the size its column needs,
 * so that ASan reports any read past one. The checks (fd_flat_check_struct,
 * fd_flat_check_field) must accept exactly the tables this file did not
 * corrupt; an accepted table's keys (fd_surrogate_key_hash, the best
 * kernels, on one thread) are compared row by row with keys this file
 * builds itself from a plain restatement of the engines' texts (snprintf
 * for integers, the Fliegel-Van Flandern day-number algorithm for dates
 * where arrow_text.c has Hinnant's, a byte-wise division by 10 for
 * decimals where it divides 32-bit limbs by 10^9) hashed by the portable
 * kernel; then hashed again split among three threads and compared byte
 * for byte. A value the engines write differently (a date outside years 1
 * to 9999, a date64 that is no whole day) must be refused with the first
 * such row and column.
 *
 * run.sh builds this target with chunks of 37 rows, parts of 50 rows or
 * more and a key buffer of 256 bytes (FD_SURROGATE_CHUNK_ROWS,
 * FD_ARROW_MIN_ROWS_PER_THREAD, FD_SURROGATE_TEXT_BYTES; the extension has
 * 4096, 16384 and 256 KiB), so that short tables cross chunk and thread
 * seams, buffer flushes and the piece-by-piece hashing of long keys.
 *
 * The input:
 *
 *   byte 0   bits 0-1 columns - 1; bit 2 struct bitmap; bit 3 the struct's
 *            null_count 0 (its bitmap ignored) instead of -1; bits 4-7 a
 *            corruption (see corrupt), none from 9 on
 *   byte 1   algorithm (mod 8)
 *   byte 2   rows (times 13 with byte 9 bit 0: up to 3315)
 *   byte 3   the struct's offset (mod 16)
 *   bytes 4-7 each column's kind (mod KIND_COUNT)
 *   byte 8   bits 0-1 separator length, bits 2-4 null token length
 *   byte 9   bit 0 many rows; bits 1-2 the corrupted column
 *   the rest the pool: offsets, lengths, bitmaps, values and bytes are
 *            taken from it in turn, cycling (zeros if it is empty)
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
#include "data/arrow_export.h"
#include "data/arrow_flat.h"
#include "data/arrow_surrogate.h"
#include "data/arrow_text.h"
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
    fprintf(stderr, "fuzz_surrogate MISMATCH: %s (%zu)\n", what, detail);
    abort();
}

static void *checked_malloc(size_t size)
{
    void *p = malloc(size != 0 ? size : 1);
    if (p == NULL)
        abort();
    return p;
}

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

static uint64_t take_u64(pool *p, size_t bytes)
{
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; i++)
        value |= (uint64_t)take(p) << (8 * i);
    return value;
}

static bool bit(const uint8_t *bitmap, size_t i)
{
    return (bitmap[i / 8] >> (i % 8)) & 1;
}

static void release_nothing(struct ArrowArray *array)
{
    array->release = NULL;
}

static void release_no_schema(struct ArrowSchema *schema)
{
    schema->release = NULL;
}

/* ---- the kinds of column --------------------------------------------------- */

enum {
    KIND_NULL = 8 + 3 + 4, /* after 8 integers, bool, date32, date64, 4 decimals */
    KIND_UTF8,
    KIND_LARGE_UTF8,
    KIND_UTF8_VIEW,
    KIND_COUNT
};

static const char *const integer_formats[8] = {"c", "s", "i", "l", "C", "S", "I", "L"};
static const size_t integer_widths[8] = {1, 2, 4, 8, 1, 2, 4, 8};
static const size_t decimal_widths[4] = {16, 4, 8, 32};
static const int decimal_max_precision[4] = {38, 9, 18, 76};

typedef struct column_case {
    unsigned kind;
    char format[24];
    size_t width; /* bytes a value; 0 for bits, strings, nulls */
    int precision, scale;
    size_t offset, rows; /* the child's */
    bool bitmap;
    struct ArrowSchema schema;
    struct ArrowArray array;
    const void *buffers[4];
    uint8_t *validity, *values, *offsets, *data, *sizes;
    int64_t data_size;
} column_case;

typedef struct fuzz_case {
    size_t count, rows, parent_offset;
    enum fd_algorithm_id id;
    uint8_t separator[3], token[7];
    size_t separator_len, token_len;
    bool struct_bitmap_used;
    uint8_t *struct_bitmap;
    column_case columns[4];
    struct ArrowArray *children[4];
    struct ArrowSchema *schema_children[4];
    const void *parent_buffers[2];
    struct ArrowArray parent;
    struct ArrowSchema schema;
} fuzz_case;

static void free_case(fuzz_case *c)
{
    free(c->struct_bitmap);
    for (size_t k = 0; k < 4; k++) {
        column_case *col = &c->columns[k];
        free(col->validity);
        free(col->values);
        free(col->offsets);
        free(col->data);
        free(col->sizes);
    }
}

/* A date32 day, mostly within years 1 to 9999, now and then at or just past
 * either end, or anything. */
static int64_t take_day(pool *p)
{
    static const int64_t edges[4] = {-719163, -719162, 2932896, 2932897};
    const uint32_t raw = (uint32_t)take_u64(p, 4);
    const uint8_t roll = take(p) & 15;
    if (roll == 0)
        return (int32_t)raw;
    if (roll == 1)
        return edges[raw % 4];
    return (int64_t)(raw % 3652059) - 719162;
}

static void build_values(column_case *col, pool *p, size_t slots)
{
    if (col->kind == 8) { /* bits */
        col->values = checked_malloc((slots + 7) / 8);
        for (size_t i = 0; i < (slots + 7) / 8; i++)
            col->values[i] = take(p);
        return;
    }
    col->values = checked_malloc(slots * col->width);
    for (size_t i = 0; i < slots; i++) {
        uint8_t *slot = col->values + i * col->width;
        if (col->kind == 9) {
            int32_t day = (int32_t)take_day(p);
            memcpy(slot, &day, 4);
        }
        else if (col->kind == 10) {
            int64_t ms = take_day(p) * 86400000;
            if ((take(p) & 31) == 0)
                ms += (int64_t)(take(p) % 3) - 1;
            memcpy(slot, &ms, 8);
        }
        else {
            for (size_t b = 0; b < col->width; b++)
                slot[b] = take(p);
        }
    }
}

/* Offsets or views of strings, consistent, over one data buffer. */
static void build_strings(column_case *col, pool *p, size_t slots)
{
    size_t *lengths = checked_malloc(slots * sizeof *lengths);
    size_t total = 0;
    for (size_t i = 0; i < slots; i++) {
        uint8_t roll = take(p);
        lengths[i] = roll >= 250 ? 200 + (size_t)take(p) * 2 : roll % 24;
        total += lengths[i];
    }
    col->data = checked_malloc(total);
    for (size_t i = 0; i < total; i++)
        col->data[i] = take(p);
    col->data_size = (int64_t)total;
    if (col->kind == KIND_UTF8_VIEW) {
        col->offsets = checked_malloc(16 * slots);
        size_t at = 0;
        for (size_t i = 0; i < slots; i++) {
            uint8_t *view = col->offsets + 16 * i;
            int32_t len = (int32_t)lengths[i];
            memset(view, 0, 16);
            memcpy(view, &len, 4);
            if (lengths[i] <= 12) {
                memcpy(view + 4, col->data + at, lengths[i]);
            }
            else {
                int32_t index = 0, offset = (int32_t)at;
                memcpy(view + 4, col->data + at, 4);
                memcpy(view + 8, &index, 4);
                memcpy(view + 12, &offset, 4);
            }
            at += lengths[i];
        }
        col->sizes = checked_malloc(8);
        memcpy(col->sizes, &col->data_size, 8);
    }
    else {
        const size_t w = col->kind == KIND_UTF8 ? 4 : 8;
        col->offsets = checked_malloc(w * (slots + 1));
        int64_t at = 0;
        for (size_t i = 0; i <= slots; i++) {
            if (w == 4) {
                int32_t v = (int32_t)at;
                memcpy(col->offsets + 4 * i, &v, 4);
            }
            else {
                memcpy(col->offsets + 8 * i, &at, 8);
            }
            if (i < slots)
                at += (int64_t)lengths[i];
        }
    }
    free(lengths);
}

static void build_column(fuzz_case *c, column_case *col, unsigned kind, pool *p)
{
    col->kind = kind;
    if (kind < 8) {
        strcpy(col->format, integer_formats[kind]);
        col->width = integer_widths[kind];
    }
    else if (kind == 8) {
        strcpy(col->format, "b");
    }
    else if (kind == 9 || kind == 10) {
        strcpy(col->format, kind == 9 ? "tdD" : "tdm");
        col->width = kind == 9 ? 4 : 8;
    }
    else if (kind < KIND_NULL) {
        const unsigned d = kind - 11;
        col->width = decimal_widths[d];
        col->precision = 1 + take(p) % decimal_max_precision[d];
        col->scale = col->precision > 1 ? take(p) % col->precision : 0;
        if (d == 0)
            snprintf(col->format, sizeof col->format, "d:%d,%d", col->precision, col->scale);
        else
            snprintf(col->format, sizeof col->format, "d:%d,%d,%zu", col->precision, col->scale,
                     8 * col->width);
    }
    else if (kind == KIND_NULL) {
        strcpy(col->format, "n");
    }
    else {
        strcpy(col->format, kind == KIND_UTF8 ? "u" : kind == KIND_LARGE_UTF8 ? "U" : "vu");
    }
    col->offset = take(p) % 32;
    col->rows = c->parent_offset + c->rows + take(p) % 4;
    const size_t slots = col->offset + col->rows;
    const uint8_t flags = take(p);
    col->bitmap = flags & 1;
    if (col->bitmap && kind != KIND_NULL) {
        col->validity = checked_malloc((slots + 7) / 8);
        for (size_t i = 0; i < (slots + 7) / 8; i++)
            col->validity[i] = take(p);
    }
    col->array = (struct ArrowArray){
        .length = (int64_t)col->rows,
        .null_count = kind == KIND_NULL ? (int64_t)col->rows
                      : (flags & 2)     ? 0
                                        : -1,
        .offset = (int64_t)col->offset,
        .buffers = col->buffers,
        .release = release_nothing,
    };
    col->buffers[0] = col->validity;
    if (kind == KIND_NULL) {
        col->array.n_buffers = 0;
    }
    else if (kind >= KIND_UTF8) {
        build_strings(col, p, slots);
        col->buffers[1] = col->offsets;
        col->buffers[2] = col->data;
        col->buffers[3] = col->sizes;
        col->array.n_buffers = kind == KIND_UTF8_VIEW ? 4 : 3;
    }
    else {
        build_values(col, p, slots);
        col->buffers[1] = col->values;
        col->array.n_buffers = 2;
    }
    col->schema = (struct ArrowSchema){
        .format = col->format, .name = "c", .flags = 2, .release = release_no_schema};
}

/* Makes the table inconsistent in one of several ways the checks must
 * catch; returns whether it did. */
static bool corrupt(fuzz_case *c, unsigned which, size_t column)
{
    column_case *col = &c->columns[column % c->count];
    switch (which) {
    case 9:
        if (c->rows == 0)
            return false;
        col->array.length = (int64_t)(c->parent_offset + c->rows) - 1;
        return true;
    case 10:
        if (c->rows == 0 || col->kind == KIND_NULL)
            return false;
        col->buffers[1] = NULL;
        return true;
    case 11:
        if (c->rows == 0 || col->kind == KIND_NULL)
            return false;
        col->array.n_buffers = col->kind >= KIND_UTF8 ? 2 : 3;
        return true;
    case 12:
        col->array.offset = -1;
        return true;
    case 13:
        c->parent.n_children = (int64_t)c->count - 1;
        return true;
    case 14:
        c->parent.n_buffers = 2;
        return true;
    case 15:
        c->parent.offset = -1;
        return true;
    default:
        return false;
    }
}

/* ---- the reference ----------------------------------------------------------- */

typedef struct text {
    uint8_t *bytes;
    size_t len, capacity;
} text;

static void append(text *t, const void *bytes, size_t len)
{
    if (t->len + len > t->capacity) {
        t->capacity = 2 * (t->len + len) + 64;
        t->bytes = realloc(t->bytes, t->capacity);
        if (t->bytes == NULL)
            abort();
    }
    if (len != 0)
        memcpy(t->bytes + t->len, bytes, len);
    t->len += len;
}

static bool row_is_null(const fuzz_case *c, const column_case *col, size_t row)
{
    if (col->kind == KIND_NULL)
        return true;
    if (c->struct_bitmap_used && !bit(c->struct_bitmap, c->parent_offset + row))
        return true;
    return col->array.null_count != 0 && col->validity != NULL &&
           !bit(col->validity, col->offset + c->parent_offset + row);
}

static int64_t load_signed(const uint8_t *p, size_t width)
{
    int64_t v = 0;
    memcpy(&v, p, width);
    const unsigned shift = (unsigned)(64 - 8 * width);
    return shift == 0 ? v : (int64_t)((uint64_t)v << shift) >> shift; /* little-endian */
}

/* Fliegel and Van Flandern (1968): the Gregorian date of a Julian day
 * number, in integer arithmetic. */
static void civil_from_julian_day(int64_t jd, int *year, int *month, int *day)
{
    int64_t l = jd + 68569;
    const int64_t n = 4 * l / 146097;
    l = l - (146097 * n + 3) / 4;
    const int64_t i = 4000 * (l + 1) / 1461001;
    l = l - 1461 * i / 4 + 31;
    const int64_t j = 80 * l / 2447;
    *day = (int)(l - 2447 * j / 80);
    l = j / 11;
    *month = (int)(j + 2 - 12 * l);
    *year = (int)(100 * (n - 49) + i + l);
}

/* The digits of a little-endian two's complement integer divided by
 * 10^scale, by long division of its bytes by 10. */
static void decimal_text(const uint8_t *value, size_t width, int scale, text *out)
{
    uint8_t magnitude[32];
    memcpy(magnitude, value, width);
    const bool negative = magnitude[width - 1] & 0x80;
    if (negative) {
        unsigned carry = 1;
        for (size_t b = 0; b < width; b++) {
            unsigned v = (uint8_t)~magnitude[b] + carry;
            magnitude[b] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[100];
    size_t n = 0;
    bool zero;
    do {
        unsigned remainder = 0;
        zero = true;
        for (size_t b = width; b-- > 0;) {
            unsigned current = remainder << 8 | magnitude[b];
            magnitude[b] = (uint8_t)(current / 10);
            remainder = current % 10;
            zero = zero && magnitude[b] == 0;
        }
        digits[n++] = (char)('0' + remainder);
    } while (!zero);
    while (n < (size_t)scale + 1)
        digits[n++] = '0';
    if (negative)
        append(out, "-", 1);
    for (size_t k = n; k-- > 0;) {
        if (k + 1 == (size_t)scale)
            append(out, ".", 1);
        append(out, &digits[k], 1);
    }
}

/* Appends the column's text of row; false for a value the engines write
 * differently. */
static bool value_text(const fuzz_case *c, const column_case *col, size_t row, text *out)
{
    const size_t slot = col->offset + c->parent_offset + row;
    char buffer[64];
    if (col->kind < 8) {
        const uint8_t *v = col->values + slot * col->width;
        if (col->kind < 4)
            snprintf(buffer, sizeof buffer, "%lld", (long long)load_signed(v, col->width));
        else {
            uint64_t u = 0;
            memcpy(&u, v, col->width);
            snprintf(buffer, sizeof buffer, "%llu", (unsigned long long)u);
        }
        append(out, buffer, strlen(buffer));
        return true;
    }
    if (col->kind == 8) {
        const char *word = bit(col->values, slot) ? "true" : "false";
        append(out, word, strlen(word));
        return true;
    }
    if (col->kind == 9 || col->kind == 10) {
        int64_t day = load_signed(col->values + slot * col->width, col->width);
        if (col->kind == 10) {
            if (day % 86400000 != 0)
                return false;
            day /= 86400000;
        }
        if (day < -719162 || day > 2932896)
            return false;
        int y, m, d;
        civil_from_julian_day(day + 2440588, &y, &m, &d);
        snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", y, m, d);
        append(out, buffer, strlen(buffer));
        return true;
    }
    if (col->kind < KIND_NULL) {
        decimal_text(col->values + slot * col->width, col->width, col->scale, out);
        return true;
    }
    /* strings */
    const uint8_t *bytes;
    size_t len;
    if (col->kind == KIND_UTF8_VIEW) {
        const uint8_t *view = col->offsets + 16 * slot;
        int32_t n, index, offset;
        memcpy(&n, view, 4);
        memcpy(&index, view + 8, 4);
        memcpy(&offset, view + 12, 4);
        len = (size_t)n;
        bytes = len <= 12 ? view + 4 : col->data + offset;
    }
    else {
        int64_t start = 0, end = 0;
        const size_t w = col->kind == KIND_UTF8 ? 4 : 8;
        memcpy(&start, col->offsets + w * slot, w);
        memcpy(&end, col->offsets + w * (slot + 1), w);
        len = (size_t)(end - start);
        bytes = col->data + start;
    }
    append(out, bytes, len);
    return true;
}

/* Compares the keys with the reference's, or the refusal with the first
 * refused value. */
static void check_keys(const fuzz_case *c, const fd_digest_column *digests,
                       const fd_surrogate_failure *failure)
{
    const enum fd_family family = fd_algorithms[c->id].family;
    const fd_kernel *portable = fd_kernel_lists[family];
    while (portable[1].name != NULL)
        portable++;
    fd_use_kernel(family, portable);

    const size_t digest_len = fd_algorithms[c->id].digest_len;
    text key = {NULL, 0, 0};
    for (size_t row = 0; row < c->rows; row++) {
        key.len = 0;
        for (size_t k = 0; k < c->count; k++) {
            const column_case *col = &c->columns[k];
            if (k > 0)
                append(&key, c->separator, c->separator_len);
            if (row_is_null(c, col, row)) {
                append(&key, c->token, c->token_len);
            }
            else if (!value_text(c, col, row, &key)) {
                if (digests != NULL)
                    fail("a refused value accepted", row);
                if (failure->out_of_memory || failure->row != row || failure->column != k)
                    fail("the first refused value", row);
                free(key.bytes);
                fd_select_kernels(false);
                return;
            }
        }
        if (digests == NULL)
            continue; /* refused: at a later row, the reference must find */
        uint8_t expected[FD_MAX_DIGEST_LEN];
        fd_hash(c->id, key.bytes, key.len, expected);
        const uint8_t *slot = digests->values + row * 2 * digest_len;
        static const char hex[] = "0123456789abcdef";
        for (size_t j = 0; j < digest_len; j++) {
            if (slot[2 * j] != hex[expected[j] >> 4] || slot[2 * j + 1] != hex[expected[j] & 15])
                fail("key", row);
        }
    }
    free(key.bytes);
    if (digests == NULL)
        fail("keys refused without a refused value", c->rows);
    if (digests->validity != NULL || digests->length != (int64_t)c->rows)
        fail("key column's shape", c->rows);
    fd_select_kernels(false);
}

/* ---- schemas ------------------------------------------------------------------ */

/* Random formats through the schema reader: a decimal it accepts has a
 * precision its width holds; anything but the flat formats is refused as a
 * type. */
static void check_formats(pool *p)
{
    char format[16];
    const size_t len = take(p) % 15;
    for (size_t i = 0; i < len; i++)
        format[i] = (char)(take(p) % 2 == 0 ? "d:0123456789,-"[take(p) % 14] : take(p) % 128);
    format[len] = '\0';
    if (len >= 2 && (take(p) & 1)) {
        format[0] = 'd';
        format[1] = ':';
    }
    struct ArrowSchema field = {.format = format, .name = "x", .release = release_no_schema};
    fd_flat_type type;
    fd_arrow_error error;
    if (!fd_flat_read_field(&field, &type, &error)) {
        if (error.status != FD_ARROW_BAD_TYPE)
            fail("a format refused as bad data", len);
        return;
    }
    if (type.kind == FD_FLAT_DECIMAL) {
        const int max = type.width == 4 ? 9 : type.width == 8 ? 18 : type.width == 16 ? 38 : 76;
        if (type.precision < 1 || type.precision > max || strncmp(format, "d:", 2) != 0 ||
            (type.width != 4 && type.width != 8 && type.width != 16 && type.width != 32))
            fail("a decimal format accepted", (size_t)type.precision);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 10)
        return 0;
    fuzz_case c;
    memset(&c, 0, sizeof c);
    pool p = {data + 10, size - 10, 0};
    check_formats(&p);

    c.count = 1 + (data[0] & 3);
    c.id = (enum fd_algorithm_id)(data[1] % FD_ALGORITHM_COUNT);
    c.rows = (data[9] & 1) ? (size_t)data[2] * 13 : data[2];
    c.parent_offset = data[3] % 16;
    c.separator_len = data[8] & 3;
    c.token_len = (data[8] >> 2) & 7;
    for (size_t i = 0; i < c.separator_len; i++)
        c.separator[i] = take(&p);
    for (size_t i = 0; i < c.token_len; i++)
        c.token[i] = take(&p);
    if (data[0] & 4) {
        c.struct_bitmap = checked_malloc((c.parent_offset + c.rows + 7) / 8);
        for (size_t i = 0; i < (c.parent_offset + c.rows + 7) / 8; i++)
            c.struct_bitmap[i] = take(&p);
        c.struct_bitmap_used = !(data[0] & 8) && c.rows > 0;
    }
    for (size_t k = 0; k < c.count; k++) {
        build_column(&c, &c.columns[k], data[4 + k] % KIND_COUNT, &p);
        c.children[k] = &c.columns[k].array;
        c.schema_children[k] = &c.columns[k].schema;
    }
    c.parent_buffers[0] = c.struct_bitmap;
    c.parent = (struct ArrowArray){
        .length = (int64_t)c.rows,
        .null_count = (data[0] & 8) ? 0 : -1,
        .offset = (int64_t)c.parent_offset,
        .n_buffers = 1,
        .n_children = (int64_t)c.count,
        .buffers = c.parent_buffers,
        .children = c.children,
        .release = release_nothing,
    };
    c.schema = (struct ArrowSchema){.format = "+s",
                                    .n_children = (int64_t)c.count,
                                    .children = c.schema_children,
                                    .release = release_no_schema};
    const bool corrupted = corrupt(&c, data[0] >> 4, (data[9] >> 1) & 3);

    /* The schema: every column read as the type it was built as. */
    fd_flat_type types[4];
    fd_arrow_error error;
    for (size_t k = 0; k < c.count; k++) {
        if (!fd_flat_read_field(&c.columns[k].schema, &types[k], &error) ||
            fd_text_refusal(&types[k]) != NULL)
            fail("a column's schema refused", k);
        if (types[k].kind == FD_FLAT_DECIMAL &&
            (types[k].width != c.columns[k].width || types[k].scale != c.columns[k].scale))
            fail("a decimal's schema", k);
    }

    fd_flat_column columns[4];
    bool valid = fd_flat_check_struct(&c.parent, c.schema.n_children, &error);
    for (size_t k = 0; valid && k < c.count; k++)
        valid = fd_flat_check_field(&c.parent, k, &types[k], &columns[k], &error);
    if (valid == corrupted) {
        fprintf(stderr, "checks said %s: %s\n", valid ? "valid" : "invalid",
                valid ? "" : error.message);
        fail(corrupted ? "an invalid table accepted" : "a valid table refused", c.rows);
    }
    if (!valid && error.status != FD_ARROW_BAD_DATA)
        fail("error status", (size_t)error.status);
    if (valid) {
        const fd_surrogate_spec spec = {.id = c.id,
                                        .separator = c.separator,
                                        .separator_len = c.separator_len,
                                        .null_token = c.token,
                                        .null_token_len = c.token_len};
        fd_surrogate_failure failure, split_failure;
        fd_digest_column *digests = fd_surrogate_key_hash(&spec, columns, c.count, 1, &failure);
        if (digests == NULL && failure.out_of_memory)
            abort();
        check_keys(&c, digests, &failure);
        fd_digest_column *split = fd_surrogate_key_hash(&spec, columns, c.count, 3, &split_failure);
        if ((digests == NULL) != (split == NULL))
            fail("split: refused on one side", c.rows);
        if (digests != NULL) {
            if (memcmp(digests->values, split->values,
                       c.rows * 2 * fd_algorithms[c.id].digest_len) != 0)
                fail("split: keys", c.rows);
            struct ArrowArray out;
            if (!fd_digest_column_export(split, &out))
                abort();
            if (out.length != (int64_t)c.rows || out.null_count != 0 || out.n_buffers != 3)
                fail("export", c.rows);
            out.release(&out);
            fd_digest_column_unref(split);
            fd_digest_column_unref(digests);
        }
        else if (split_failure.row != failure.row || split_failure.column != failure.column) {
            fail("split: the first refused value", split_failure.row);
        }
    }
    free_case(&c);
    return 0;
}
