/* Test driver of fingerprint()'s plain C (data/fingerprint.h): the bytes
 * each writer gives, against docs/fingerprint.md's examples and values
 * tests/fingerprint_reference.py computed, on every CPU tests/c/run.sh
 * builds it for: natively, under ASan/UBSan, and on big-endian s390x under
 * qemu, where a str's code units, an array's elements and Arrow's buffers
 * are in the other byte order and the bytes written must not be.
 *
 *   - varints (LEB128, zigzag) of 64-bit values and of numbers of any size;
 *   - ints, floats (every bit kept), complex numbers;
 *   - strs of CPython's three forms, surrogates included, in pieces larger
 *     than a small sink, which must make room as they are written;
 *   - dates (the civil-day count), clocks, timedeltas to their extremes;
 *   - the canonical order of encoded values;
 *   - strided arrays: transposed, reversed, byte-swapped, booleans, 0-d,
 *     empty, and elements larger than a piece;
 *   - the stream: a message written through its buffer and in place hashes
 *     as the whole message does;
 *   - an Arrow table's descriptor and rows, imported from C structs.
 *
 * Usage: test_fingerprint [--seed=N]
 * Prints a line per group, then "C fingerprint: N passed, N failed"; exits
 * 1 on any failure. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/arrow_import.h"
#include "data/byte_sink.h"
#include "data/fingerprint.h"
#include "harness.h"
#include "hash/algorithms.h"

/* ---- a sink that keeps everything, in a small buffer that grows --------- */

/* Grows by 7 bytes at a time, so that writers meet a full sink often. */
typedef struct test_sink {
    fd_sink sink;
    uint8_t *all;
    size_t all_len;
} test_sink;

static void keep_and_empty(fd_sink *sink)
{
    test_sink *t = (test_sink *)sink;
    t->all = realloc(t->all, t->all_len + sink->used + 1);
    if (t->all == NULL) {
        fprintf(stderr, "test_fingerprint: out of memory\n");
        exit(2);
    }
    memcpy(t->all + t->all_len, sink->buffer, sink->used);
    t->all_len += sink->used;
    sink->used = 0;
}

static uint8_t small_buffer[7];

static void sink_start(test_sink *t)
{
    free(t->all);
    *t = (test_sink){.sink = {.buffer = small_buffer,
                              .capacity = sizeof small_buffer,
                              .make_room = keep_and_empty}};
}

/* Everything written, as hex into out (room for 2 * len + 1). */
static const char *sink_hex(test_sink *t)
{
    keep_and_empty(&t->sink);
    static char out[4096];
    static const char digits[] = "0123456789abcdef";
    size_t n = t->all_len < (sizeof out - 1) / 2 ? t->all_len : (sizeof out - 1) / 2;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[t->all[i] >> 4];
        out[2 * i + 1] = digits[t->all[i] & 15];
    }
    out[2 * n] = '\0';
    return out;
}

static test_sink sink;

static void expect(group_tally *tally, const char *want, const char *what)
{
    const char *got = sink_hex(&sink);
    check(tally, strcmp(got, want) == 0, "%s: %s, want %s", what, got, want);
    sink_start(&sink);
}

/* ---- varints and numbers ---------------------------------------------------- */

static void test_numbers(group_tally *tally)
{
    static const struct {
        uint64_t value;
        const char *hex;
    } unsigned_cases[] = {
        {0, "00"}, {127, "7f"}, {128, "8001"}, {300, "ac02"}, {UINT64_MAX, "ffffffffffffffffff01"}};
    for (size_t i = 0; i < sizeof unsigned_cases / sizeof unsigned_cases[0]; i++) {
        fd_fingerprint_put_uvarint(&sink.sink, unsigned_cases[i].value);
        expect(tally, unsigned_cases[i].hex, "uvarint");
    }
    static const struct {
        int64_t value;
        const char *hex;
    } signed_cases[] = {{0, "00"},
                        {-1, "01"},
                        {1, "02"},
                        {-64, "7f"},
                        {64, "8001"},
                        {INT64_MIN, "ffffffffffffffffff01"},
                        {INT64_MAX, "feffffffffffffffff01"}};
    for (size_t i = 0; i < sizeof signed_cases / sizeof signed_cases[0]; i++) {
        fd_fingerprint_put_svarint(&sink.sink, signed_cases[i].value);
        expect(tally, signed_cases[i].hex, "svarint");
    }
    /* 2**64 as little-endian bytes (a zigzagged big int), with high zeros. */
    const uint8_t two_to_64[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    fd_fingerprint_put_uvarint_bytes(&sink.sink, two_to_64, sizeof two_to_64);
    expect(tally, "80808080808080808002", "uvarint of 2**64's bytes");
    fd_fingerprint_put_uvarint_bytes(&sink.sink, two_to_64, 8);
    expect(tally, "00", "uvarint of zero bytes");
    const uint8_t three_hundred[2] = {0x2c, 0x01};
    fd_fingerprint_put_uvarint_bytes(&sink.sink, three_hundred, 2);
    expect(tally, "ac02", "uvarint of 300's bytes");
    /* A 64-bit value through the bytes and directly: one encoding. */
    test_rng rng = rng_for(1, 0);
    for (int i = 0; i < 200; i++) {
        const uint64_t value = rng_next(&rng) >> rng_below(&rng, 64);
        uint8_t little[8];
        for (int k = 0; k < 8; k++)
            little[k] = (uint8_t)(value >> (8 * k));
        fd_fingerprint_put_uvarint_bytes(&sink.sink, little, 8);
        char bytes_form[64];
        snprintf(bytes_form, sizeof bytes_form, "%s", sink_hex(&sink));
        sink_start(&sink);
        fd_fingerprint_put_uvarint(&sink.sink, value);
        expect(tally, bytes_form, "uvarint of bytes and of a uint64");
    }

    fd_fingerprint_put_int(&sink.sink, 7);
    expect(tally, "690e", "int 7");
    fd_fingerprint_put_float(&sink.sink, -0.0);
    expect(tally, "660000000000000080", "float -0.0");
    fd_fingerprint_put_float(&sink.sink, 1.5);
    expect(tally, "66000000000000f83f", "float 1.5");
    uint64_t nan_bits = 0x7ff0000000000001u;
    double nan;
    memcpy(&nan, &nan_bits, 8);
    fd_fingerprint_put_float(&sink.sink, nan);
    expect(tally, "66010000000000f07f", "a NaN's payload");
}

/* ---- strs ------------------------------------------------------------------ */

static void test_strings(group_tally *tally)
{
    const uint8_t latin1[] = {'c', 'a', 'f', 0xe9};
    fd_fingerprint_put_str(&sink.sink, latin1, 4, 1);
    expect(tally, "7305636166c3a9", "Latin-1 'café'");
    const uint16_t euro = 0x20ac, surrogate = 0xd800;
    fd_fingerprint_put_str(&sink.sink, &euro, 1, 2);
    expect(tally, "7303e282ac", "UCS-2 '€'");
    fd_fingerprint_put_str(&sink.sink, &surrogate, 1, 2);
    expect(tally, "7303eda080", "a lone surrogate");
    const uint32_t smiley = 0x1f600;
    fd_fingerprint_put_str(&sink.sink, &smiley, 1, 4);
    expect(tally, "7304f09f9880", "UCS-4 U+1F600");
    const uint32_t pair[2] = {0xd83d, 0xde00};
    fd_fingerprint_put_str(&sink.sink, pair, 2, 4);
    expect(tally, "7306eda0bdedb880", "a surrogate pair as two code points");
    fd_fingerprint_put_text(&sink.sink, latin1, 0, 1);
    expect(tally, "00", "an empty name");

    /* Long strs of every form against the UTF-8 built here, unit by unit. */
    test_rng rng = rng_for(2, 0);
    static const uint32_t samples[] = {'a',    0x7f,   0x80,   0xff,   0x100,  0x7ff,   0x800,
                                       0xd7ff, 0xdc00, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff};
    for (int round = 0; round < 60; round++) {
        const int unit_size = round % 3 == 0 ? 1 : round % 3 == 1 ? 2 : 4;
        const size_t length = rng_below(&rng, 300);
        uint8_t *units = checked_malloc(length * 4 + 1);
        uint8_t *utf8 = checked_malloc(length * 4 + 1);
        size_t utf8_len = 0;
        for (size_t i = 0; i < length; i++) {
            uint32_t cp = samples[rng_below(&rng, sizeof samples / sizeof samples[0])];
            if (unit_size == 1)
                cp &= 0xff;
            if (unit_size == 2)
                cp &= 0xffff;
            if (unit_size == 1) {
                units[i] = (uint8_t)cp;
            }
            else if (unit_size == 2) {
                const uint16_t unit = (uint16_t)cp;
                memcpy(units + 2 * i, &unit, 2);
            }
            else {
                memcpy(units + 4 * i, &cp, 4);
            }
            if (cp < 0x80) {
                utf8[utf8_len++] = (uint8_t)cp;
            }
            else if (cp < 0x800) {
                utf8[utf8_len++] = (uint8_t)(0xc0 | cp >> 6);
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp & 0x3f));
            }
            else if (cp < 0x10000) {
                utf8[utf8_len++] = (uint8_t)(0xe0 | cp >> 12);
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp & 0x3f));
            }
            else {
                utf8[utf8_len++] = (uint8_t)(0xf0 | cp >> 18);
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
                utf8[utf8_len++] = (uint8_t)(0x80 | (cp & 0x3f));
            }
        }
        fd_fingerprint_put_text(&sink.sink, units, length, unit_size);
        keep_and_empty(&sink.sink);
        uint8_t head[FD_FINGERPRINT_UVARINT_MAX];
        const size_t head_len = fd_fingerprint_uvarint(head, utf8_len);
        check(tally,
              sink.all_len == head_len + utf8_len && memcmp(sink.all, head, head_len) == 0 &&
                  memcmp(sink.all + head_len, utf8, utf8_len) == 0,
              "a str of %zu units of %d bytes", length, unit_size);
        check(tally, fd_fingerprint_utf8_length(units, length, unit_size) == utf8_len,
              "the UTF-8 length of %zu units of %d bytes", length, unit_size);
        sink_start(&sink);
        free(units);
        free(utf8);
    }
}

/* fd_fingerprint_put_short against fd_fingerprint_put_sized at every length
 * its moves treat apart and beyond, at both ends of a buffer: the same
 * bytes and nothing past them, or false and nothing written. */
static void test_short_runs(group_tally *tally)
{
    uint8_t data[200];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(37 * i + 11);
    for (size_t len = 0; len <= sizeof data; len++) {
        for (size_t at = 0; at <= 3 * FD_FINGERPRINT_SHORT_MAX; at += FD_FINGERPRINT_SHORT_MAX) {
            uint8_t got[4 * FD_FINGERPRINT_SHORT_MAX], want[sizeof data + 4];
            memset(got, 0xee, sizeof got);
            fd_sink out = {.buffer = got, .used = at, .capacity = sizeof got};
            fd_sink reference = {.buffer = want, .capacity = sizeof want};
            fd_fingerprint_put_sized(&reference, FD_FP_STR, data, len);
            const bool room = sizeof got - at >= 2 + FD_FINGERPRINT_SHORT_MAX;
            const bool wrote = fd_fingerprint_put_short(&out, FD_FP_STR, data, len);
            bool untouched = true;
            for (size_t i = wrote ? at + reference.used : at; i < sizeof got; i++)
                untouched = untouched && got[i] == 0xee;
            if (len <= FD_FINGERPRINT_SHORT_MAX && room)
                check(tally,
                      wrote && out.used == at + reference.used &&
                          memcmp(got + at, want, reference.used) == 0 && untouched,
                      "a run of %zu bytes written short at %zu", len, at);
            else
                check(tally, !wrote && out.used == at && untouched,
                      "a run of %zu bytes refused at %zu", len, at);
        }
    }
    static const int64_t ints[] = {0,    1,    -1,        63,        -64,       64,       -65,
                                   8191, 8192, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        uint8_t got[1 + FD_FINGERPRINT_UVARINT_MAX + 1], want[1 + FD_FINGERPRINT_UVARINT_MAX];
        memset(got, 0xee, sizeof got);
        fd_sink reference = {.buffer = want, .capacity = sizeof want};
        fd_fingerprint_put_int(&reference, ints[k]);
        const size_t len = (size_t)(fd_fingerprint_int_at(got, ints[k]) - got);
        check(tally, len == reference.used && memcmp(got, want, len) == 0 && got[len] == 0xee,
              "the int %lld built in place", (long long)ints[k]);
    }
}

/* ---- dates, clocks, durations -------------------------------------------------- */

static void test_temporal(group_tally *tally)
{
    static const struct {
        int year, month, day;
        int64_t days;
    } dates[] = {{1970, 1, 1, 0},     {1969, 12, 31, -1},      {2000, 3, 1, 11017},
                 {1, 1, 1, -719162},  {9999, 12, 31, 2932896}, {2000, 2, 29, 11016},
                 {1900, 3, 1, -25508}};
    for (size_t i = 0; i < sizeof dates / sizeof dates[0]; i++)
        check(tally,
              fd_fingerprint_days_from_civil(dates[i].year, dates[i].month, dates[i].day) ==
                  dates[i].days,
              "days to %04d-%02d-%02d", dates[i].year, dates[i].month, dates[i].day);
    fd_fingerprint_put_date(&sink.sink, 9999, 12, 31);
    expect(tally, "44c082e602", "date 9999-12-31");
    /* docs/fingerprint.md's worked example: 2024-02-29 12:30 at -05:00. */
    const int64_t wall = (fd_fingerprint_days_from_civil(2024, 2, 29) * 86400 + 12 * 3600 +
                          30 * 60) *
                         1000000;
    fd_fingerprint_put_clock(&sink.sink, FD_FP_DATETIME, wall, 0, true,
                             fd_fingerprint_delta_microseconds(-1, 68400, 0));
    expect(tally, "578088ceaf8da189060001ffcf918e8601", "an aware datetime");
    fd_fingerprint_put_clock(&sink.sink, FD_FP_TIME, 0, 1, false, 12345);
    expect(tally, "48000100", "a naive time of fold 1");
    /* timedelta.max, .min, -1 µs, -1 day + 1 µs (Python's normalised fields). */
    fd_fingerprint_put_timedelta(&sink.sink, 999999999, 86399, 999999);
    expect(tally, "50feffff9bf68ebb8ade12", "timedelta.max");
    fd_fingerprint_put_timedelta(&sink.sink, -999999999, 0, 0);
    expect(tally, "50ffffc4bef289bb8ade12", "timedelta.min");
    fd_fingerprint_put_timedelta(&sink.sink, -1, 86399, 999999);
    expect(tally, "5001", "timedelta of -1 µs");
    fd_fingerprint_put_timedelta(&sink.sink, -1, 0, 1);
    expect(tally, "50fdffbadd8305", "timedelta of -1 day + 1 µs");
    fd_fingerprint_put_timedelta(&sink.sink, 0, 0, 0);
    expect(tally, "5000", "timedelta 0");
    fd_fingerprint_put_decimal_head(&sink.sink, true, FD_FP_DECIMAL_FINITE, -2, 3);
    expect(tally, "6401000303", "Decimal('-1.20')'s head");
}

/* ---- the canonical order ------------------------------------------------------ */

static void test_order(group_tally *tally)
{
    static const uint8_t a[] = {0x73, 0x01, 'b'}, b[] = {0x73, 0x01, 'a'}, c[] = {0x73},
                         d[] = {0x69, 0x00}, e[] = {0x73, 0x01, 'a'};
    fd_fingerprint_span spans[] = {{a, 3, 0}, {b, 3, 1}, {c, 1, 2},
                                   {d, 2, 3}, {e, 3, 4}, {NULL, 0, 5}};
    fd_fingerprint_sort(spans, 6);
    const size_t want[] = {5, 3, 2}; /* then 1 and 4 (equal bytes) in either order, then 0 */
    check(tally,
          spans[0].index == want[0] && spans[1].index == want[1] && spans[2].index == want[2] &&
              spans[5].index == 0 &&
              ((spans[3].index == 1 && spans[4].index == 4) ||
               (spans[3].index == 4 && spans[4].index == 1)),
          "the canonical order");
    check(tally, fd_fingerprint_compare(&spans[3], &spans[4]) == 0, "equal bytes compare equal");
    check(tally, fd_fingerprint_compare(&spans[2], &spans[5]) < 0, "a prefix comes first");

    /* Counts on both sides of the insertion sort's, of spans that share
     * prefixes and repeat: sorted, and each span still there once. */
    test_rng rng = rng_for(7, 0);
    static uint8_t pool[64];
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)rng_below(&rng, 3);
    for (size_t count = 0; count <= 300; count += count < 40 ? 1 : 37) {
        fd_fingerprint_span *many = checked_malloc((count + 1) * sizeof *many);
        bool *seen = checked_malloc(count + 1);
        for (size_t k = 0; k < count; k++) {
            const size_t start = rng_below(&rng, 8);
            many[k] = (fd_fingerprint_span){pool + start, rng_below(&rng, 6), k};
            seen[k] = false;
        }
        fd_fingerprint_sort(many, count);
        bool sorted = true;
        for (size_t k = 0; k < count; k++) {
            sorted = sorted && many[k].index < count && !seen[many[k].index] &&
                     (k == 0 || fd_fingerprint_compare(&many[k - 1], &many[k]) <= 0);
            if (many[k].index < count)
                seen[many[k].index] = true;
        }
        check(tally, sorted, "%zu spans sorted", count);
        free(many);
        free(seen);
    }
}

/* ---- arrays ----------------------------------------------------------------- */

static void store_native16(uint8_t *out, uint16_t value)
{
    memcpy(out, &value, 2);
}

static void test_arrays(group_tally *tally)
{
    const bool little = fd_fingerprint_host_is_little_endian();
    /* [[1, 2], [3, 4]] as int16 in the machine's order, read transposed:
     * [[1, 3], [2, 4]], written little-endian. */
    uint8_t native[8];
    for (int i = 0; i < 4; i++)
        store_native16(native + 2 * i, (uint16_t)(i + 1));
    const int64_t shape[2] = {2, 2}, transposed[2] = {2, 4};
    fd_fingerprint_strided array = {.data = native,
                                    .ndim = 2,
                                    .shape = shape,
                                    .strides = transposed,
                                    .item_size = 2,
                                    .swap_unit = 2,
                                    .swap = !little};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "0100030002000400", "a transposed int16 array in the machine's order");
    /* The same bytes taken as big-endian on a little-endian machine (and
     * the other way round): each element's bytes reversed. */
    array.swap = little;
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "0001000300020004", "the same, byte-swapped");
    /* Reversed rows (a negative stride), from the last row's start. */
    const int64_t reversed[2] = {-4, 2};
    array = (fd_fingerprint_strided){.data = native + 4,
                                     .ndim = 2,
                                     .shape = shape,
                                     .strides = reversed,
                                     .item_size = 2,
                                     .swap_unit = 2,
                                     .swap = !little};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "0300040001000200", "reversed rows");
    /* A complex64 swapped in 4-byte halves. */
    const uint8_t complex_big[8] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}; /* 1+2j, big-endian */
    const int64_t one[1] = {1}, eight[1] = {8};
    array = (fd_fingerprint_strided){.data = complex_big,
                                     .ndim = 1,
                                     .shape = one,
                                     .strides = eight,
                                     .item_size = 8,
                                     .swap_unit = 4,
                                     .swap = true};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "0000803f00000040", "a big-endian complex64");
    /* Booleans: any byte not zero is 01. */
    const uint8_t flags[4] = {2, 0, 255, 1};
    const int64_t four[1] = {4}, unit[1] = {1};
    array = (fd_fingerprint_strided){
        .data = flags, .ndim = 1, .shape = four, .strides = unit, .item_size = 1, .boolean = true};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "01000101", "booleans");
    /* A 0-d array: one element; an empty one: none. */
    array = (fd_fingerprint_strided){
        .data = native, .ndim = 0, .item_size = 2, .swap_unit = 2, .swap = !little};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "0100", "a 0-d array");
    const int64_t empty[2] = {3, 0};
    array = (fd_fingerprint_strided){
        .data = native, .ndim = 2, .shape = empty, .strides = transposed, .item_size = 2};
    fd_fingerprint_put_strided(&sink.sink, &array);
    expect(tally, "", "an empty array");
    /* Elements larger than a piece, strided, swapped in 8-byte units. */
    enum { big = 2504 };
    uint8_t *items = checked_malloc(3 * big);
    for (size_t i = 0; i < 3 * big; i++)
        items[i] = (uint8_t)(i * 7 + 3);
    const int64_t two[1] = {2}, every_other[1] = {2 * big};
    array = (fd_fingerprint_strided){.data = items,
                                     .ndim = 1,
                                     .shape = two,
                                     .strides = every_other,
                                     .item_size = big,
                                     .swap_unit = 8,
                                     .swap = true};
    fd_fingerprint_put_strided(&sink.sink, &array);
    keep_and_empty(&sink.sink);
    bool same = sink.all_len == 2 * big;
    for (size_t e = 0; same && e < 2; e++) {
        for (size_t k = 0; same && k < big; k++)
            same = sink.all[e * big + k] == items[2 * e * big + (k / 8) * 8 + 7 - k % 8];
    }
    check(tally, same, "elements of %d bytes, swapped in 8-byte units", big);
    sink_start(&sink);
    free(items);
}

/* ---- the stream --------------------------------------------------------------- */

static void test_stream(group_tally *tally)
{
    enum { total = 3 * FD_FINGERPRINT_BUFFER_BYTES + 17 };
    uint8_t *message = checked_malloc(FD_FINGERPRINT_HEADER_LEN + total);
    memcpy(message, FD_FINGERPRINT_HEADER, FD_FINGERPRINT_HEADER_LEN);
    test_rng rng = rng_for(5, 0);
    rng_fill(&rng, message + FD_FINGERPRINT_HEADER_LEN, total);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        for (int round = 0; round < 20; round++) {
            fd_fingerprint_stream *stream = checked_malloc(sizeof *stream);
            fd_fingerprint_stream_init(stream, (enum fd_algorithm_id)id);
            size_t at = 0;
            while (at < total) {
                size_t n = rng_below(&rng, round < 10 ? 300 : 6000);
                n = n < total - at ? n : total - at;
                if (rng_below(&rng, 2))
                    fd_sink_write(&stream->sink, message + FD_FINGERPRINT_HEADER_LEN + at, n);
                else
                    fd_fingerprint_stream_in_place(stream, message + FD_FINGERPRINT_HEADER_LEN + at,
                                                   n);
                at += n;
            }
            uint8_t got[FD_MAX_DIGEST_LEN], want[FD_MAX_DIGEST_LEN];
            fd_fingerprint_stream_final(stream, got);
            fd_hash((enum fd_algorithm_id)id, message, FD_FINGERPRINT_HEADER_LEN + total, want);
            check(tally, memcmp(got, want, fd_algorithms[id].digest_len) == 0,
                  "%s: the stream's digest", fd_algorithms[id].name);
            free(stream);
        }
    }
    free(message);
}

/* ---- Arrow ------------------------------------------------------------------ */

static void release_schema(struct ArrowSchema *schema)
{
    schema->release = NULL;
}

static void release_array(struct ArrowArray *array)
{
    array->release = NULL;
}

static void test_arrow(group_tally *tally)
{
    /* pyarrow.table({'id': [1, None], 'name': ['a', 'bc']}) as C structs,
     * its buffers in the machine's order: docs/fingerprint.md's example. */
    struct ArrowSchema id_schema = {.format = "l", .name = "id", .release = release_schema};
    struct ArrowSchema name_schema = {.format = "u", .name = "name", .release = release_schema};
    struct ArrowSchema *fields[2] = {&id_schema, &name_schema};
    struct ArrowSchema table_schema = {
        .format = "+s", .n_children = 2, .children = fields, .release = release_schema};
    const int64_t ids[2] = {1, 0};
    const uint8_t id_validity[1] = {1};
    const int32_t offsets[3] = {0, 1, 3};
    const void *id_buffers[2] = {id_validity, ids};
    const void *name_buffers[3] = {NULL, offsets, "abc"};
    const void *table_buffers[1] = {NULL};
    struct ArrowArray id_array = {.length = 2,
                                  .null_count = 1,
                                  .n_buffers = 2,
                                  .buffers = id_buffers,
                                  .release = release_array};
    struct ArrowArray name_array = {
        .length = 2, .n_buffers = 3, .buffers = name_buffers, .release = release_array};
    struct ArrowArray *columns[2] = {&id_array, &name_array};
    struct ArrowArray table = {.length = 2,
                               .n_buffers = 1,
                               .n_children = 2,
                               .buffers = table_buffers,
                               .children = columns,
                               .release = release_array};
    fd_arrow_error error;
    fd_arrow_type *type = fd_arrow_import_type(&table_schema, NULL, 0, &error);
    fd_arrow_array *checked = type != NULL ? fd_arrow_import_array(&table, type, &error) : NULL;
    if (checked == NULL) {
        check(tally, false, "the table imports: %s", error.message);
        fd_arrow_type_free(type);
        return;
    }
    fd_fingerprint_arrow_type(type, &sink.sink);
    expect(tally,
           "7202"
           "02696469"
           "046e616d6573",
           "the table's descriptor");
    fd_fingerprint_arrow_rows(checked, &sink.sink);
    expect(tally,
           "01"
           "01"
           "0100000000000000"
           "01"
           "0100000000000000"
           "61"
           "01"
           "00"
           "01"
           "0200000000000000"
           "6263",
           "the table's rows");
    fd_arrow_array_free(checked);
    fd_arrow_type_free(type);

    /* Descriptors of other types: widths, units and layouts that hash alike
     * share one; uint64 and a decimal's scale do not. */
    static const struct {
        const char *format;
        const char *hex;
    } leaves[] = {{"n", "6e"},         {"b", "62"},   {"c", "69"},   {"I", "69"},
                  {"L", "75"},         {"e", "66"},   {"g", "66"},   {"d:5,2", "6404"},
                  {"d:38,-3", "6405"}, {"tdD", "44"}, {"ttn", "48"}, {"tsu:UTC", "57"},
                  {"tDs", "50"},       {"tin", "56"}, {"vu", "73"},  {"Z", "79"},
                  {"w:16", "79"}};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        struct ArrowSchema leaf = {.format = leaves[i].format, .release = release_schema};
        fd_arrow_type *t = fd_arrow_import_type(&leaf, NULL, 0, &error);
        if (t == NULL) {
            check(tally, false, "format %s imports: %s", leaves[i].format, error.message);
            continue;
        }
        fd_fingerprint_arrow_type(t, &sink.sink);
        expect(tally, leaves[i].hex, leaves[i].format);
        fd_arrow_type_free(t);
    }
}

int main(int argc, char **argv)
{
    harness_start("test_fingerprint", 0x66645f66705f3132u); /* "fd_fp_12" */
    for (int i = 1; i < argc; i++) {
        if (!take_seed_option(argv[i])) {
            fprintf(stderr, "test_fingerprint: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    print_seed();
    fd_select_kernels(false);
    sink_start(&sink);
    static const struct {
        const char *name;
        void (*run)(group_tally *);
    } groups[] = {{"varints and numbers", test_numbers}, {"strs", test_strings},
                  {"short runs", test_short_runs},       {"dates and times", test_temporal},
                  {"the canonical order", test_order},   {"strided arrays", test_arrays},
                  {"the stream", test_stream},           {"Arrow values", test_arrow}};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        group_tally tally = {0, 0};
        groups[g].run(&tally);
        report_group("all", "selected", groups[g].name,
                     fd_fingerprint_host_is_little_endian() ? "little-endian" : "big-endian",
                     &tally);
    }
    free(sink.all);
    return finish_run("C fingerprint");
}
