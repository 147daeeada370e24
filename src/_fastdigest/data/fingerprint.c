/* The plain-C parts of fingerprint() (fingerprint.h, docs/fingerprint.md):
 * the stream and the scratch buffer, the canonical order, the writers of
 * each kind's bytes, strided arrays, and Arrow values' descriptors and rows.
 *
 * Numbers are written with kernels/endian.h's stores, which are the same
 * bytes on every CPU, and read from memory (a str's code units, an array's
 * elements) with memcpy, which is the machine's own order. */
#include "data/fingerprint.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "data/arrow_encode.h"
#include "kernels/endian.h"

bool fd_fingerprint_host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ---- the stream ------------------------------------------------------------ */

static void stream_make_room(fd_sink *sink)
{
    fd_fingerprint_stream_flush((fd_fingerprint_stream *)sink);
}

void fd_fingerprint_stream_init(fd_fingerprint_stream *stream, enum fd_algorithm_id id)
{
    stream->algorithm = &fd_algorithms[id];
    stream->algorithm->init(&stream->state);
    stream->sink = (fd_sink){
        .buffer = stream->buffer, .capacity = sizeof stream->buffer, .make_room = stream_make_room};
    fd_sink_write(&stream->sink, FD_FINGERPRINT_HEADER, FD_FINGERPRINT_HEADER_LEN);
}

void fd_fingerprint_stream_flush(fd_fingerprint_stream *stream)
{
    if (stream->sink.used != 0)
        stream->algorithm->update(&stream->state, stream->buffer, stream->sink.used);
    stream->sink.used = 0;
}

void fd_fingerprint_stream_in_place(fd_fingerprint_stream *stream, const uint8_t *data, size_t len)
{
    fd_fingerprint_stream_flush(stream);
    stream->algorithm->update(&stream->state, data, len);
}

void fd_fingerprint_stream_final(fd_fingerprint_stream *stream, uint8_t *out)
{
    fd_fingerprint_stream_flush(stream);
    stream->algorithm->final(&stream->state, out);
}

/* ---- the scratch buffer ---------------------------------------------------- */

static void scratch_make_room(fd_sink *sink)
{
    fd_fingerprint_scratch *scratch = (fd_fingerprint_scratch *)sink;
    if (!scratch->failed) {
        const size_t capacity = sink->capacity < 256 ? 256 : 2 * sink->capacity;
        uint8_t *grown = capacity > sink->capacity ? realloc(sink->buffer, capacity) : NULL;
        if (grown != NULL) {
            sink->buffer = grown;
            sink->capacity = capacity;
            return;
        }
        scratch->failed = true;
        if (sink->buffer == NULL) {
            sink->buffer = scratch->dropped;
            sink->capacity = sizeof scratch->dropped;
        }
    }
    /* Out of memory: from here on the bytes are dropped, written over each
     * other at the buffer's start. */
    sink->used = 0;
}

void fd_fingerprint_scratch_init(fd_fingerprint_scratch *scratch)
{
    scratch->sink = (fd_sink){.make_room = scratch_make_room};
    scratch->failed = false;
}

void fd_fingerprint_scratch_free(fd_fingerprint_scratch *scratch)
{
    if (scratch->sink.buffer != scratch->dropped)
        free(scratch->sink.buffer);
    fd_fingerprint_scratch_init(scratch);
}

/* ---- the canonical order --------------------------------------------------- */

/* Encodings mostly differ within their first bytes (a tag, a length, the
 * start of a key), which are compared here before memcmp is called. */
static inline int compare_spans_inline(const fd_fingerprint_span *a, const fd_fingerprint_span *b)
{
    const size_t common = a->len < b->len ? a->len : b->len;
    const size_t first = common < 16 ? common : 16;
    for (size_t i = 0; i < first; i++) {
        if (a->bytes[i] != b->bytes[i])
            return a->bytes[i] < b->bytes[i] ? -1 : 1;
    }
    const int order = common > first ? memcmp(a->bytes + first, b->bytes + first, common - first)
                                     : 0;
    if (order != 0)
        return order;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

int fd_fingerprint_compare(const fd_fingerprint_span *a, const fd_fingerprint_span *b)
{
    return compare_spans_inline(a, b);
}

static int compare_spans(const void *a, const void *b)
{
    return compare_spans_inline(a, b);
}

static void insertion_sort(fd_fingerprint_span *spans, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        const fd_fingerprint_span next = spans[i];
        size_t j = i;
        while (j > 0 && compare_spans_inline(&spans[j - 1], &next) > 0) {
            spans[j] = spans[j - 1];
            j--;
        }
        spans[j] = next;
    }
}

/* A merge sort whose comparisons are inlined, with room for count / 2
 * spans at spare: the halves sorted, then the first moved to spare and
 * merged back with the second, which the merge never overtakes. */
static void merge_sort(fd_fingerprint_span *spans, size_t count, fd_fingerprint_span *spare)
{
    if (count <= 16) {
        insertion_sort(spans, count);
        return;
    }
    const size_t half = count / 2;
    merge_sort(spans, half, spare);
    merge_sort(spans + half, count - half, spare);
    if (compare_spans_inline(&spans[half - 1], &spans[half]) <= 0)
        return;
    memcpy(spare, spans, half * sizeof *spans);
    size_t left = 0, right = half, out = 0;
    while (left < half && right < count) {
        if (compare_spans_inline(&spans[right], &spare[left]) < 0)
            spans[out++] = spans[right++];
        else
            spans[out++] = spare[left++];
    }
    memcpy(spans + out, spare + left, (half - left) * sizeof *spans);
}

void fd_fingerprint_sort(fd_fingerprint_span *spans, size_t count)
{
    /* Most dicts are small, sorted in place by insertion; larger ones by a
     * merge, either with the comparison inlined, which costs a fraction of
     * qsort's calls of it (qsort stays for when no memory is left). */
    if (count <= 16) {
        insertion_sort(spans, count);
        return;
    }
    fd_fingerprint_span *spare = malloc(count / 2 * sizeof *spare);
    if (spare == NULL) {
        qsort(spans, count, sizeof *spans, compare_spans);
        return;
    }
    merge_sort(spans, count, spare);
    free(spare);
}

/* ---- writers --------------------------------------------------------------- */

void fd_fingerprint_put_uvarint(fd_sink *sink, uint64_t value)
{
    uint8_t bytes[FD_FINGERPRINT_UVARINT_MAX];
    fd_sink_write(sink, bytes, fd_fingerprint_uvarint(bytes, value));
}

void fd_fingerprint_put_svarint(fd_sink *sink, int64_t value)
{
    fd_fingerprint_put_uvarint(sink, fd_fingerprint_zigzag(value));
}

void fd_fingerprint_put_uvarint_bytes(fd_sink *sink, const uint8_t *little_endian, size_t len)
{
    while (len > 0 && little_endian[len - 1] == 0)
        len--;
    /* Seven bits at a time from the bottom, carried across the bytes. */
    uint32_t bits = 0;
    unsigned held = 0;
    size_t next = 0;
    for (;;) {
        while (held < 7 && next < len) {
            bits |= (uint32_t)little_endian[next++] << held;
            held += 8;
        }
        const uint8_t group = (uint8_t)(bits & 0x7f);
        bits >>= 7;
        held = held > 7 ? held - 7 : 0;
        const bool more = next < len || bits != 0;
        fd_sink_byte(sink, (uint8_t)(group | (more ? 0x80 : 0)));
        if (!more)
            return;
    }
}

static uint64_t double_bits(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, 8);
    return bits;
}

void fd_fingerprint_put_float(fd_sink *sink, double value)
{
    uint8_t bytes[9] = {FD_FP_FLOAT};
    fd_store_le64(bytes + 1, double_bits(value));
    fd_sink_write(sink, bytes, sizeof bytes);
}

void fd_fingerprint_put_complex(fd_sink *sink, double real, double imag)
{
    uint8_t bytes[17] = {FD_FP_COMPLEX};
    fd_store_le64(bytes + 1, double_bits(real));
    fd_store_le64(bytes + 9, double_bits(imag));
    fd_sink_write(sink, bytes, sizeof bytes);
}

/* Code unit i of a str's units. */
static uint32_t code_unit(const void *units, size_t i, int unit_size)
{
    if (unit_size == 1)
        return ((const uint8_t *)units)[i];
    if (unit_size == 2) {
        uint16_t unit;
        memcpy(&unit, (const uint8_t *)units + 2 * i, 2);
        return unit;
    }
    uint32_t unit;
    memcpy(&unit, (const uint8_t *)units + 4 * i, 4);
    return unit > 0x10ffff ? 0xfffd : unit;
}

static size_t utf8_width(uint32_t code_point)
{
    return code_point < 0x80 ? 1 : code_point < 0x800 ? 2 : code_point < 0x10000 ? 3 : 4;
}

/* The UTF-8 of code_point into out (room for 4); returns its length. */
static size_t utf8_encode(uint32_t code_point, uint8_t *out)
{
    switch (utf8_width(code_point)) {
    case 1:
        out[0] = (uint8_t)code_point;
        return 1;
    case 2:
        out[0] = (uint8_t)(0xc0 | code_point >> 6);
        out[1] = (uint8_t)(0x80 | (code_point & 0x3f));
        return 2;
    case 3:
        out[0] = (uint8_t)(0xe0 | code_point >> 12);
        out[1] = (uint8_t)(0x80 | (code_point >> 6 & 0x3f));
        out[2] = (uint8_t)(0x80 | (code_point & 0x3f));
        return 3;
    default:
        out[0] = (uint8_t)(0xf0 | code_point >> 18);
        out[1] = (uint8_t)(0x80 | (code_point >> 12 & 0x3f));
        out[2] = (uint8_t)(0x80 | (code_point >> 6 & 0x3f));
        out[3] = (uint8_t)(0x80 | (code_point & 0x3f));
        return 4;
    }
}

size_t fd_fingerprint_utf8_length(const void *units, size_t length, int unit_size)
{
    size_t total = 0;
    if (unit_size == 1) {
        const uint8_t *latin1 = units;
        for (size_t i = 0; i < length; i++)
            total += 1 + (latin1[i] >> 7);
        return total;
    }
    for (size_t i = 0; i < length; i++)
        total += utf8_width(code_unit(units, i, unit_size));
    return total;
}

void fd_fingerprint_put_str(fd_sink *sink, const void *units, size_t length, int unit_size)
{
    fd_sink_byte(sink, FD_FP_STR);
    fd_fingerprint_put_text(sink, units, length, unit_size);
}

void fd_fingerprint_put_text(fd_sink *sink, const void *units, size_t length, int unit_size)
{
    fd_fingerprint_put_uvarint(sink, fd_fingerprint_utf8_length(units, length, unit_size));
    /* In pieces of up to 64 code points, each piece's UTF-8 built in place
     * when the sink has room for it. */
    uint8_t scratch[64 * 4];
    for (size_t start = 0; start < length; start += 64) {
        const size_t end = length - start < 64 ? length : start + 64;
        uint8_t *out = fd_sink_room(sink, sizeof scratch);
        uint8_t *at = out != NULL ? out : scratch;
        size_t written = 0;
        for (size_t i = start; i < end; i++)
            written += utf8_encode(code_unit(units, i, unit_size), at + written);
        if (out != NULL)
            fd_sink_advance(sink, written);
        else
            fd_sink_write(sink, scratch, written);
    }
}

void fd_fingerprint_put_decimal_head(fd_sink *sink, bool negative, uint8_t kind, int64_t exponent,
                                     size_t digit_count)
{
    const uint8_t head[3] = {FD_FP_DECIMAL, negative, kind};
    fd_sink_write(sink, head, sizeof head);
    fd_fingerprint_put_svarint(sink, exponent);
    fd_fingerprint_put_uvarint(sink, digit_count);
}

int64_t fd_fingerprint_days_from_civil(int year, int month, int day)
{
    /* Howard Hinnant's days_from_civil (the chrono-Compatible Low-Level
     * Date Algorithms): years counted from March, so that February's
     * length is the last thing of a year. */
    const int64_t y = (int64_t)year - (month <= 2);
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t year_of_era = y - era * 400;
    const int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 +
                               day_of_year;
    return era * 146097 + day_of_era - 719468;
}

void fd_fingerprint_put_date(fd_sink *sink, int year, int month, int day)
{
    fd_fingerprint_put_head(
        sink, FD_FP_DATE, fd_fingerprint_zigzag(fd_fingerprint_days_from_civil(year, month, day)));
}

void fd_fingerprint_put_clock(fd_sink *sink, uint8_t tag, int64_t microseconds, int fold,
                              bool aware, int64_t offset_microseconds)
{
    fd_fingerprint_put_head(sink, tag, fd_fingerprint_zigzag(microseconds));
    const uint8_t flags[2] = {fold != 0, aware};
    fd_sink_write(sink, flags, 2);
    if (aware)
        fd_fingerprint_put_svarint(sink, offset_microseconds);
}

int64_t fd_fingerprint_delta_microseconds(int64_t days, int64_t seconds, int64_t microseconds)
{
    return (days * 86400 + seconds) * 1000000 + microseconds;
}

void fd_fingerprint_put_timedelta(fd_sink *sink, int64_t days, int64_t seconds,
                                  int64_t microseconds)
{
    /* |days * 86400 + seconds| fits 47 bits for any int32 days; times 10^6
     * it needs up to 67, so the magnitude is made of two 32-bit halves, and
     * the zigzag, 2m for a value m >= 0 and 2|m| - 1 below, in 128 bits. */
    const int64_t whole_seconds = days * 86400 + seconds;
    const bool negative = whole_seconds < 0;
    const uint64_t magnitude = negative ? 0 - (uint64_t)whole_seconds : (uint64_t)whole_seconds;
    const uint64_t low_part = (magnitude & 0xffffffffu) * 1000000u;
    const uint64_t high_part = (magnitude >> 32) * 1000000u;
    uint64_t low = low_part + (high_part << 32);
    uint64_t high = (high_part >> 32) + (low < low_part);
    /* |value| = |whole_seconds| * 10^6 -/+ microseconds (0 to 999,999): a
     * negative value's microseconds bring it nearer zero. */
    if (negative) {
        const uint64_t before = low;
        low -= (uint64_t)microseconds;
        high -= low > before;
    }
    else {
        const uint64_t before = low;
        low += (uint64_t)microseconds;
        high += low < before;
    }
    /* zigzag: 2 |value|, less one for a negative value. */
    const bool nonzero = (low | high) != 0;
    high = high << 1 | low >> 63;
    low <<= 1;
    if (negative && nonzero) {
        high -= low == 0;
        low -= 1;
    }
    uint8_t little[16];
    fd_store_le64(little, low);
    fd_store_le64(little + 8, high);
    fd_sink_byte(sink, FD_FP_TIMEDELTA);
    fd_fingerprint_put_uvarint_bytes(sink, little, sizeof little);
}

/* ---- arrays ---------------------------------------------------------------- */

/* count elements of item_size bytes, from data at stride bytes apart, into
 * out (count * item_size bytes) as fd_fingerprint_put_strided writes them. */
static void copy_elements(uint8_t *out, const uint8_t *data, int64_t stride, size_t count,
                          const fd_fingerprint_strided *array)
{
    const size_t size = array->item_size;
    if (array->boolean) {
        for (size_t i = 0; i < count; i++, data += stride) {
            uint8_t any = 0;
            for (size_t k = 0; k < size; k++)
                any |= data[k];
            out[i] = any != 0;
        }
        return;
    }
    if (!array->swap || array->swap_unit == 1) {
        if (stride == (int64_t)size) {
            memcpy(out, data, count * size);
            return;
        }
        for (size_t i = 0; i < count; i++, data += stride)
            memcpy(out + i * size, data, size);
        return;
    }
    const size_t unit = array->swap_unit;
    for (size_t i = 0; i < count; i++, data += stride) {
        for (size_t at = 0; at < size; at += unit) {
            for (size_t k = 0; k < unit; k++)
                out[i * size + at + k] = data[at + unit - 1 - k];
        }
    }
}

/* Elements are gathered in pieces of up to this many bytes, written to the
 * sink in place when it has room for a piece, else through a buffer. */
#define STRIDED_PIECE_BYTES 1024

void fd_fingerprint_put_strided(fd_sink *sink, const fd_fingerprint_strided *array)
{
    const size_t written_size = array->boolean ? 1 : array->item_size;
    size_t rows = 1;
    for (int d = 0; d < array->ndim; d++) {
        if (array->shape[d] == 0)
            return;
        if (d < array->ndim - 1)
            rows *= (size_t)array->shape[d];
    }
    if (written_size == 0)
        return;
    /* The last dimension is a row, read at its stride; the others are an
     * index counted like an odometer. A 0-d array is one row of one. */
    const size_t row_length = array->ndim > 0 ? (size_t)array->shape[array->ndim - 1] : 1;
    const int64_t row_stride = array->ndim > 0 ? array->strides[array->ndim - 1] : 0;
    const size_t per_piece = written_size < STRIDED_PIECE_BYTES ? STRIDED_PIECE_BYTES / written_size
                                                                : 1;
    int64_t index[64] = {0};
    assert(array->ndim <= 64);
    uint8_t scratch[STRIDED_PIECE_BYTES];
    const uint8_t *row_start = array->data;
    for (size_t r = 0; r < rows; r++) {
        for (size_t first = 0; first < row_length; first += per_piece) {
            const size_t count = row_length - first < per_piece ? row_length - first : per_piece;
            const uint8_t *from = row_start + (int64_t)first * row_stride;
            const size_t bytes = count * written_size;
            if (bytes > sizeof scratch) {
                /* One element larger than a piece: copied unit by unit. */
                fd_fingerprint_strided one = *array;
                for (size_t at = 0; at < array->item_size; at += sizeof scratch) {
                    const size_t n = array->item_size - at < sizeof scratch ? array->item_size - at
                                                                            : sizeof scratch;
                    one.item_size = n;
                    copy_elements(scratch, from + at, 0, 1, &one);
                    fd_sink_write(sink, scratch, n);
                }
                continue;
            }
            uint8_t *out = fd_sink_room(sink, bytes);
            copy_elements(out != NULL ? out : scratch, from, row_stride, count, array);
            if (out != NULL)
                fd_sink_advance(sink, bytes);
            else
                fd_sink_write(sink, scratch, bytes);
        }
        /* The next row: the odometer over the dimensions before the last. */
        for (int d = array->ndim - 2; d >= 0; d--) {
            row_start += array->strides[d];
            if (++index[d] < array->shape[d])
                break;
            row_start -= array->strides[d] * array->shape[d];
            index[d] = 0;
        }
    }
}

/* ---- Arrow values ----------------------------------------------------------- */

static void put_name(fd_sink *sink, const char *name)
{
    const size_t len = name != NULL ? strlen(name) : 0;
    fd_fingerprint_put_uvarint(sink, len);
    fd_sink_write(sink, name, len);
}

void fd_fingerprint_arrow_type(const fd_arrow_type *type, fd_sink *sink)
{
    switch (type->id) {
    case FD_ARROW_NULL:
        fd_sink_byte(sink, 'n');
        return;
    case FD_ARROW_BOOL:
        fd_sink_byte(sink, 'b');
        return;
    case FD_ARROW_INT:
        /* uint64 alone holds values that int64 does not, whose bytes
         * (encoding.md) are those of negative int64s. */
        fd_sink_byte(sink, !type->is_signed && type->width == 8 ? 'u' : 'i');
        return;
    case FD_ARROW_FLOAT:
        fd_sink_byte(sink, 'f');
        return;
    case FD_ARROW_DECIMAL:
        fd_sink_byte(sink, 'd');
        fd_fingerprint_put_svarint(sink, type->scale);
        return;
    case FD_ARROW_DATE:
        fd_sink_byte(sink, 'D');
        return;
    case FD_ARROW_TIME:
        fd_sink_byte(sink, 'H');
        return;
    case FD_ARROW_TIMESTAMP:
        fd_sink_byte(sink, 'W');
        return;
    case FD_ARROW_DURATION:
        fd_sink_byte(sink, 'P');
        return;
    case FD_ARROW_INTERVAL:
        fd_sink_byte(sink, 'V');
        return;
    case FD_ARROW_FIXED_BINARY:
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
    case FD_ARROW_BINARY_VIEW:
        fd_sink_byte(sink, type->is_text ? 's' : 'y');
        return;
    case FD_ARROW_LIST:
    case FD_ARROW_LARGE_LIST:
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
    case FD_ARROW_FIXED_LIST:
        fd_sink_byte(sink, 'l');
        fd_fingerprint_arrow_type(&type->children[0], sink);
        return;
    case FD_ARROW_MAP:
        /* The entries' struct: its key and its value. */
        fd_sink_byte(sink, 'm');
        fd_fingerprint_arrow_type(&type->children[0].children[0], sink);
        fd_fingerprint_arrow_type(&type->children[0].children[1], sink);
        return;
    case FD_ARROW_STRUCT:
        fd_sink_byte(sink, 'r');
        fd_fingerprint_put_uvarint(sink, type->n_children);
        for (size_t k = 0; k < type->n_children; k++) {
            put_name(sink, type->children[k].name);
            fd_fingerprint_arrow_type(&type->children[k], sink);
        }
        return;
    case FD_ARROW_RUN_END:
        fd_fingerprint_arrow_type(&type->children[1], sink);
        return;
    case FD_ARROW_DICTIONARY:
        fd_fingerprint_arrow_type(type->dictionary, sink);
        return;
    }
}

void fd_fingerprint_arrow_rows(const fd_arrow_array *array, fd_sink *sink)
{
    for (int64_t i = 0; i < array->length; i++)
        fd_arrow_encode_field(array, i, sink);
}
