/* The encoding of Arrow values (arrow_encode.h, docs/encoding.md): each
 * type's value bytes, the framing of fields, and digest_array's and
 * digest_rows' row sources.
 *
 * Every multi-byte number is written little-endian through kernels/endian.h,
 * whatever the machine's order (Arrow's buffers are in the machine's own),
 * so that a digest is the same on every CPU. */
#include "data/arrow_encode.h"

#include <string.h>

#include "kernels/endian.h"

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Little-endian stores: a plain copy on a little-endian machine (which the
 * compiler folds to one move), kernels/endian.h's shifts elsewhere. GCC 12
 * does not merge those shifts into one store in the encoders' code, and
 * the stores are most of the work for an integer column. */
static inline void put_le64(uint8_t *out, uint64_t value)
{
    if (host_is_little_endian())
        memcpy(out, &value, 8);
    else
        fd_store_le64(out, value);
}

static inline void put_le32(uint8_t *out, uint32_t value)
{
    if (host_is_little_endian())
        memcpy(out, &value, 4);
    else
        fd_store_le32(out, value);
}

/* ---- scalars ---------------------------------------------------------------------- */

/* The bits of a float16 as the float64 of the same value (every float16
 * is one exactly). */
static uint64_t float16_to_float64_bits(uint16_t half)
{
    const uint64_t sign = (uint64_t)(half >> 15) << 63;
    const unsigned exponent = (half >> 10) & 0x1f;
    uint64_t mantissa = half & 0x3ff;
    if (exponent == 0x1f) /* infinity or NaN */
        return sign | 0x7ff0000000000000u | mantissa << 42;
    if (exponent != 0)
        return sign | (uint64_t)(exponent - 15 + 1023) << 52 | mantissa << 42;
    if (mantissa == 0)
        return sign;
    /* A subnormal float16, mantissa * 2**-24, is a normal float64. */
    int shift = 0;
    while ((mantissa & 0x400) == 0) {
        mantissa <<= 1;
        shift++;
    }
    return sign | (uint64_t)(1023 - 14 - shift) << 52 | (mantissa & 0x3ff) << 42;
}

/* A float's value as float64 bits, with every zero +0.0 and every NaN the
 * one quiet NaN, as Iceberg canonicalizes them (docs/encoding.md). */
static uint64_t canonical_float_bits(const fd_arrow_array *a, int64_t index)
{
    const size_t slot = (size_t)(a->offset + index);
    uint64_t bits;
    if (a->type->width == 2) {
        uint16_t half;
        memcpy(&half, a->values + 2 * slot, 2);
        bits = float16_to_float64_bits(half);
    }
    else if (a->type->width == 4) {
        float single;
        memcpy(&single, a->values + 4 * slot, 4);
        const double widened = single;
        memcpy(&bits, &widened, 8);
    }
    else {
        memcpy(&bits, a->values + 8 * slot, 8);
    }
    if ((bits & 0x7fffffffffffffffu) == 0)
        return 0;
    if ((bits & 0x7ff0000000000000u) == 0x7ff0000000000000u && (bits & 0x000fffffffffffffu) != 0)
        return 0x7ff8000000000000u;
    return bits;
}

/* The unscaled integer of a decimal in the fewest bytes of big-endian two's
 * complement (Java's BigInteger.toByteArray(), as Iceberg hashes decimals):
 * 1 to 32 bytes into out, their count returned. */
static size_t decimal_bytes(const fd_arrow_array *a, int64_t index, uint8_t *out)
{
    const size_t width = a->type->width;
    const uint8_t *native = a->values + width * (size_t)(a->offset + index);
    uint8_t little[32];
    if (host_is_little_endian()) {
        memcpy(little, native, width);
    }
    else {
        for (size_t k = 0; k < width; k++)
            little[k] = native[width - 1 - k];
    }
    size_t n = width;
    /* A top byte that only repeats the sign of the byte below it goes. */
    while (n > 1 && ((little[n - 1] == 0x00 && (little[n - 2] & 0x80) == 0) ||
                     (little[n - 1] == 0xff && (little[n - 2] & 0x80) != 0)))
        n--;
    for (size_t k = 0; k < n; k++)
        out[k] = little[n - 1 - k];
    return n;
}

/* value * factor as a 16-byte little-endian two's complement integer: any
 * int64 count of seconds is a count of nanoseconds there. */
static void store_product_le128(uint8_t *out, int64_t value, uint32_t factor)
{
    const bool negative = value < 0;
    const uint64_t magnitude = negative ? 0 - (uint64_t)value : (uint64_t)value;
    const uint64_t low_part = (magnitude & 0xffffffffu) * factor;
    const uint64_t high_part = (magnitude >> 32) * factor;
    uint64_t low = low_part + (high_part << 32);
    uint64_t high = (high_part >> 32) + (low < low_part);
    if (negative) {
        low = ~low + 1;
        high = ~high + (low == 0);
    }
    put_le64(out, low);
    put_le64(out + 8, high);
}

static uint32_t nanoseconds_per(enum fd_arrow_unit unit)
{
    switch (unit) {
    case FD_ARROW_SECONDS:
        return 1000000000u;
    case FD_ARROW_MILLISECONDS:
        return 1000000u;
    case FD_ARROW_MICROSECONDS:
        return 1000u;
    default:
        return 1u;
    }
}

/* The value bytes of a scalar leaf (BOOL to INTERVAL) into out (32 bytes
 * of room); returns their count. */
static size_t scalar_bytes(const fd_arrow_array *a, int64_t index, uint8_t *out)
{
    const size_t slot = (size_t)(a->offset + index);
    switch (a->type->id) {
    case FD_ARROW_BOOL:
        out[0] = fd_arrow_bit_is_set(a->values, slot) ? 1 : 0;
        return 1;
    case FD_ARROW_INT:
        put_le64(out, (uint64_t)fd_arrow_int_value(a, index));
        return 8;
    case FD_ARROW_FLOAT:
        put_le64(out, canonical_float_bits(a, index));
        return 8;
    case FD_ARROW_DECIMAL:
        return decimal_bytes(a, index, out);
    case FD_ARROW_DATE: {
        const int64_t value = fd_arrow_int_value(a, index);
        /* int32 days times 86,400,000 stays within int64. */
        put_le64(out, (uint64_t)(a->type->unit == FD_ARROW_DAYS ? value * 86400000 : value));
        return 8;
    }
    case FD_ARROW_TIME:
    case FD_ARROW_TIMESTAMP:
    case FD_ARROW_DURATION:
        store_product_le128(out, fd_arrow_int_value(a, index), nanoseconds_per(a->type->unit));
        return 16;
    case FD_ARROW_INTERVAL: {
        const uint8_t *value = a->values + a->type->width * slot;
        int64_t months = 0, days = 0, nanoseconds = 0;
        if (a->type->unit == FD_ARROW_MONTHS) {
            months = fd_arrow_load_int32(value);
        }
        else if (a->type->unit == FD_ARROW_DAY_TIME) {
            days = fd_arrow_load_int32(value);
            nanoseconds = fd_arrow_load_int32(value + 4) * (int64_t)1000000;
        }
        else {
            months = fd_arrow_load_int32(value);
            days = fd_arrow_load_int32(value + 4);
            nanoseconds = fd_arrow_load_int64(value + 8);
        }
        put_le32(out, (uint32_t)months);
        put_le32(out + 4, (uint32_t)days);
        put_le64(out + 8, (uint64_t)nanoseconds);
        return 16;
    }
    default:
        return 0;
    }
}

static bool is_bytes_type(enum fd_arrow_type_id id)
{
    return id == FD_ARROW_BINARY || id == FD_ARROW_LARGE_BINARY || id == FD_ARROW_BINARY_VIEW ||
           id == FD_ARROW_FIXED_BINARY;
}

/* A short value's bytes, prefix_len bytes of prefix (a field's tag) and
 * what writer puts after them (at most 40 bytes in all), built in place in
 * the sink when it has room for them, as it mostly does, else in a scratch
 * buffer that is then written. */
typedef size_t scalar_writer(const fd_arrow_array *a, int64_t index, uint8_t *out);

static void write_scalar(fd_sink *sink, const uint8_t *prefix, size_t prefix_len,
                         scalar_writer *writer, const fd_arrow_array *a, int64_t index)
{
    uint8_t scratch[1 + 8 + 32];
    uint8_t *out = fd_sink_room(sink, sizeof scratch);
    uint8_t *at = out != NULL ? out : scratch;
    if (prefix_len != 0)
        memcpy(at, prefix, prefix_len);
    const size_t len = prefix_len + writer(a, index, at + prefix_len);
    if (out != NULL)
        fd_sink_advance(sink, len);
    else
        fd_sink_write(sink, scratch, len);
}

/* ---- values and fields --------------------------------------------------------------- */

void fd_arrow_encode_value(const fd_arrow_array *leaf, int64_t index, fd_sink *sink)
{
    uint8_t count[8];
    switch (leaf->type->id) {
    case FD_ARROW_FIXED_BINARY:
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
    case FD_ARROW_BINARY_VIEW: {
        const uint8_t *data;
        size_t len;
        fd_arrow_bytes_value(leaf, index, &data, &len);
        fd_sink_write(sink, data, len);
        return;
    }
    case FD_ARROW_LIST:
    case FD_ARROW_LARGE_LIST:
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
    case FD_ARROW_FIXED_LIST:
    case FD_ARROW_MAP: {
        int64_t start, end;
        fd_arrow_list_range(leaf, index, &start, &end);
        put_le64(count, (uint64_t)(end - start));
        fd_sink_write(sink, count, 8);
        for (int64_t k = start; k < end; k++)
            fd_arrow_encode_field(&leaf->children[0], k, sink);
        return;
    }
    case FD_ARROW_STRUCT:
        for (size_t k = 0; k < leaf->type->n_children; k++)
            fd_arrow_encode_field(&leaf->children[k], leaf->offset + index, sink);
        return;
    default:
        write_scalar(sink, NULL, 0, scalar_bytes, leaf, index);
        return;
    }
}

/* A decimal's field: its length (1 to 32) before its bytes. */
static size_t framed_decimal_bytes(const fd_arrow_array *a, int64_t index, uint8_t *out)
{
    const size_t len = decimal_bytes(a, index, out + 8);
    put_le64(out, len);
    return 8 + len;
}

void fd_arrow_encode_field(const fd_arrow_array *array, int64_t index, fd_sink *sink)
{
    static const uint8_t present = 1;
    const fd_arrow_array *leaf = array;
    switch (array->type->id) {
    case FD_ARROW_DICTIONARY:
    case FD_ARROW_RUN_END:
    case FD_ARROW_NULL:
        leaf = fd_arrow_resolve(array, &index);
        break;
    default:
        if (!fd_arrow_slot_is_valid(array, index))
            leaf = NULL;
        break;
    }
    if (leaf == NULL) {
        fd_sink_byte(sink, 0);
        return;
    }
    switch (leaf->type->id) {
    case FD_ARROW_FIXED_BINARY:
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
    case FD_ARROW_BINARY_VIEW: {
        const uint8_t *data;
        size_t len;
        uint8_t head[9] = {1};
        fd_arrow_bytes_value(leaf, index, &data, &len);
        put_le64(head + 1, len);
        fd_sink_write(sink, head, 9);
        fd_sink_write(sink, data, len);
        return;
    }
    case FD_ARROW_DECIMAL:
        write_scalar(sink, &present, 1, framed_decimal_bytes, leaf, index);
        return;
    case FD_ARROW_BOOL:
    case FD_ARROW_INT:
    case FD_ARROW_FLOAT:
    case FD_ARROW_DATE:
    case FD_ARROW_TIME:
    case FD_ARROW_TIMESTAMP:
    case FD_ARROW_DURATION:
    case FD_ARROW_INTERVAL:
        write_scalar(sink, &present, 1, scalar_bytes, leaf, index);
        return;
    default:
        fd_sink_byte(sink, 1);
        fd_arrow_encode_value(leaf, index, sink);
        return;
    }
}

/* ---- digest_array's rows ------------------------------------------------------------ */

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

static bool is_one_field_struct(const fd_arrow_type *type)
{
    return type->id == FD_ARROW_STRUCT && type->n_children == 1;
}

/* Whether a row of the column may lead past its own array: a dictionary or
 * run-end array leads to another, and a struct of one field that no parent
 * unwrapped to its field. */
static bool rows_lead_elsewhere(const fd_arrow_column_rows *rows)
{
    const enum fd_arrow_type_id id = rows->column->type->id;
    return id == FD_ARROW_NULL || id == FD_ARROW_DICTIONARY || id == FD_ARROW_RUN_END ||
           (rows->parent == NULL && is_one_field_struct(rows->column->type));
}

/* The array holding the value that row `row` hashes, with *index its index
 * there, or NULL for a null row: the column's value, dictionaries and run
 * ends followed, and where that value is a struct of one field (digest_array
 * hashes a one-field struct as its field, in every layout) that field's,
 * unless a parent (the struct itself) already made the field the column. */
static const fd_arrow_array *row_value(const fd_arrow_column_rows *rows, size_t row, int64_t *index)
{
    if (rows->parent != NULL && !fd_arrow_slot_is_valid(rows->parent, (int64_t)row))
        return NULL;
    *index = rows->first + (int64_t)row;
    const fd_arrow_array *value = fd_arrow_resolve(rows->column, index);
    if (value != NULL && rows->parent == NULL && is_one_field_struct(value->type)) {
        *index += value->offset;
        value = fd_arrow_resolve(&value->children[0], index);
    }
    return value;
}

static void column_nulls(const void *context, uint8_t *validity)
{
    const fd_arrow_column_rows *rows = context;
    const fd_arrow_array *column = rows->column;
    const size_t length = rows->length;
    if (!rows_lead_elsewhere(rows)) {
        /* The value's nullness is its own bit: the bitmaps copied. */
        memset(validity, 0xff, (length + 7) / 8);
        if (column->validity != NULL)
            copy_bits(validity, column->validity, (size_t)(column->offset + rows->first), length,
                      false);
        if (rows->parent != NULL && rows->parent->validity != NULL)
            copy_bits(validity, rows->parent->validity, (size_t)rows->parent->offset, length, true);
    }
    else {
        memset(validity, 0, (length + 7) / 8);
        for (size_t i = 0; i < length; i++) {
            int64_t index;
            if (row_value(rows, i, &index) != NULL)
                validity[i / 8] |= (uint8_t)(1u << (i % 8));
        }
    }
}

static bool column_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                         size_t *len)
{
    const fd_arrow_column_rows *rows = context;
    int64_t index = rows->first + (int64_t)row;
    const fd_arrow_array *leaf = rows->column;
    /* A row that is not null has a value (column_nulls). */
    if (rows_lead_elsewhere(rows))
        leaf = row_value(rows, row, &index);
    if (is_bytes_type(leaf->type->id)) {
        fd_arrow_bytes_value(leaf, index, data, len);
        return true;
    }
    fd_arrow_encode_value(leaf, index, sink);
    return false;
}

/* The columns of strings and binaries, most of what digest_array hashes:
 * each layout's rows read straight from its buffers (as
 * fd_arrow_bytes_value reads them), without a switch a row. */
static bool offsets32_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                            size_t *len)
{
    const fd_arrow_column_rows *rows = context;
    const fd_arrow_array *a = rows->column;
    const size_t slot = (size_t)(a->offset + rows->first) + row;
    const int64_t start = fd_arrow_load_int32(a->values + 4 * slot);
    *len = (size_t)(fd_arrow_load_int32(a->values + 4 * slot + 4) - start);
    *data = *len != 0 ? a->data + start : NULL;
    (void)sink;
    return true;
}

static bool offsets64_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                            size_t *len)
{
    const fd_arrow_column_rows *rows = context;
    const fd_arrow_array *a = rows->column;
    const size_t slot = (size_t)(a->offset + rows->first) + row;
    const int64_t start = fd_arrow_load_int64(a->values + 8 * slot);
    *len = (size_t)(fd_arrow_load_int64(a->values + 8 * slot + 8) - start);
    *data = *len != 0 ? a->data + start : NULL;
    (void)sink;
    return true;
}

static bool views_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                        size_t *len)
{
    const fd_arrow_column_rows *rows = context;
    fd_arrow_bytes_value(rows->column, rows->first + (int64_t)row, data, len);
    (void)sink;
    return true;
}

void fd_arrow_column_source(const fd_arrow_column_rows *rows, fd_row_source *source)
{
    *source = (fd_row_source){
        .length = rows->length, .context = rows, .nulls = column_nulls, .bytes = column_bytes};
    switch (rows->column->type->id) {
    case FD_ARROW_BINARY:
        source->bytes = offsets32_bytes;
        break;
    case FD_ARROW_LARGE_BINARY:
        source->bytes = offsets64_bytes;
        break;
    case FD_ARROW_BINARY_VIEW:
    case FD_ARROW_FIXED_BINARY:
        source->bytes = views_bytes;
        break;
    default:
        break;
    }
}

/* ---- digest_rows' rows --------------------------------------------------------------- */

static bool table_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                        size_t *len)
{
    const fd_arrow_array *table = context;
    (void)data;
    (void)len;
    if (!fd_arrow_slot_is_valid(table, (int64_t)row)) {
        for (size_t k = 0; k < table->type->n_children; k++)
            fd_sink_byte(sink, 0);
        return false;
    }
    for (size_t k = 0; k < table->type->n_children; k++)
        fd_arrow_encode_field(&table->children[k], table->offset + (int64_t)row, sink);
    return false;
}

void fd_arrow_table_source(const fd_arrow_array *table, fd_row_source *source)
{
    *source = (fd_row_source){
        .length = (size_t)table->length, .context = table, .nulls = NULL, .bytes = table_bytes};
}
