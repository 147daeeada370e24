/* The plain-C parts of fingerprint() (data/fingerprint.c), the encoding
 * that docs/fingerprint.md defines, version FD_FINGERPRINT_VERSION: the tag
 * of each kind of value, the writers of the bytes that follow a tag, the
 * stream that hashes them through a bounded buffer, the scratch buffer and
 * the sort that put a dict's keys and a set's elements in their canonical
 * order, the element copy of strided arrays, and the Arrow values' type
 * descriptor and rows (encoding.md's bytes). The walk over Python objects
 * is python/data_api/fingerprint.c's, the only part that needs the interpreter; this
 * one runs in the C drivers and under the fuzzers. Plain C: no Python.h.
 *
 * Every number is written little-endian whatever the machine, so that a
 * fingerprint is the same on every CPU. */
#ifndef FD_CORE_FINGERPRINT_H
#define FD_CORE_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow_import.h"
#include "data/byte_sink.h"
#include "hash/algorithms.h"

/* The version of docs/fingerprint.md these functions write, which is the
 * last byte of the header every fingerprinted message starts with. */
#define FD_FINGERPRINT_VERSION 1

/* The header: "fdfp" and the version. */
#define FD_FINGERPRINT_HEADER "fdfp\x01"
#define FD_FINGERPRINT_HEADER_LEN 5

/* The first byte of each value's encoding: its kind (docs/fingerprint.md's
 * table, which says what follows each). */
enum fd_fingerprint_tag {
    FD_FP_NONE = 'N',
    FD_FP_FALSE = 'F',
    FD_FP_TRUE = 'T',
    FD_FP_INT = 'i',
    FD_FP_FLOAT = 'f',
    FD_FP_COMPLEX = 'c',
    FD_FP_DECIMAL = 'd',
    FD_FP_STR = 's',
    FD_FP_BYTES = 'b', /* bytes, bytearray, memoryview */
    FD_FP_LIST = 'l',
    FD_FP_TUPLE = 't',
    FD_FP_DICT = 'm',
    FD_FP_SET = 'u', /* set and frozenset */
    FD_FP_DATE = 'D',
    FD_FP_DATETIME = 'W',
    FD_FP_TIME = 'H',
    FD_FP_TIMEDELTA = 'P',
    FD_FP_UUID = 'U',
    FD_FP_ENUM = 'E',
    FD_FP_DATACLASS = 'C',
    FD_FP_NDARRAY = 'n',
    FD_FP_NUMPY_SCALAR = 'g',
    FD_FP_ARROW = 'A',
};

/* A Decimal's kind, the byte after its sign. */
enum fd_fingerprint_decimal_kind {
    FD_FP_DECIMAL_FINITE = 0,
    FD_FP_DECIMAL_INFINITY = 1,
    FD_FP_DECIMAL_NAN = 2,
    FD_FP_DECIMAL_SIGNALING_NAN = 3,
};

/* The byte after an Arrow value's last row. */
#define FD_FP_ARROW_END 2

/* ---- the stream ------------------------------------------------------------ */

/* The bytes written to sink are hashed as the buffer fills: the working set
 * is the buffer whatever the value. Bytes long enough not to be worth a
 * copy go to fd_fingerprint_stream_in_place, which hashes them where they
 * lie. */
#define FD_FINGERPRINT_BUFFER_BYTES 4096

typedef struct fd_fingerprint_stream {
    fd_sink sink; /* first: make_room gets the stream from it */
    const fd_algorithm *algorithm;
    fd_hash_state state;
    uint8_t buffer[FD_FINGERPRINT_BUFFER_BYTES];
} fd_fingerprint_stream;

/* Starts a fingerprint of algorithm id: the hash state initialised and the
 * header written. */
void fd_fingerprint_stream_init(fd_fingerprint_stream *stream, enum fd_algorithm_id id);

/* Hashes what the buffer holds, leaving it empty. */
void fd_fingerprint_stream_flush(fd_fingerprint_stream *stream);

/* Hashes len bytes after those written so far, in place (data may be NULL
 * when len is 0): the buffer is hashed first. The caller may hold no lock
 * of the interpreter meanwhile; nothing else may use the stream. */
void fd_fingerprint_stream_in_place(fd_fingerprint_stream *stream, const uint8_t *data, size_t len);

/* Writes the digest (the algorithm's digest_len bytes) into out. */
void fd_fingerprint_stream_final(fd_fingerprint_stream *stream, uint8_t *out);

/* ---- the scratch buffer ---------------------------------------------------- */

/* A sink that grows (realloc) to hold everything written to it: where the
 * keys of a dict and the elements of a set are encoded, to be sorted before
 * they are written on. When memory runs out, failed is set and what is
 * written from then on is dropped (a sink cannot fail a write): the writer
 * checks failed at the end. */
typedef struct fd_fingerprint_scratch {
    fd_sink sink; /* first: make_room gets the scratch from it */
    bool failed;
    uint8_t dropped[64]; /* the buffer when none could be allocated */
} fd_fingerprint_scratch;

void fd_fingerprint_scratch_init(fd_fingerprint_scratch *scratch);
void fd_fingerprint_scratch_free(fd_fingerprint_scratch *scratch);

/* One encoded value in a buffer, and the caller's index of it, which the
 * sort carries along. */
typedef struct fd_fingerprint_span {
    const uint8_t *bytes;
    size_t len;
    size_t index;
} fd_fingerprint_span;

/* The canonical order: the bytes compared as unsigned numbers, the first
 * that differs decides, and a span that is a prefix of another comes
 * first. Negative, zero or positive, as memcmp. */
int fd_fingerprint_compare(const fd_fingerprint_span *a, const fd_fingerprint_span *b);

/* Sorts count spans into the canonical order. */
void fd_fingerprint_sort(fd_fingerprint_span *spans, size_t count);

/* ---- writers --------------------------------------------------------------- */

/* Every integer of the encoding is a varint: a length or count n as
 * uvarint(n), unsigned LEB128 (seven bits a byte, the least significant
 * first, the top bit set on every byte but the last; the fewest bytes, so 0
 * is 00 and 128 is 80 01), and an int's value v as svarint(v),
 * uvarint(zigzag(v)) with zigzag(v) = 2v for v >= 0 and -2v - 1 below
 * (protobuf's sint64, for any size). The bits of floats are the one fixed
 * width: 8 bytes, little-endian. */
#define FD_FINGERPRINT_UVARINT_MAX 10 /* bytes of a uint64's */

/* The uvarint of value into out (FD_FINGERPRINT_UVARINT_MAX bytes of
 * room); returns its length. */
static inline size_t fd_fingerprint_uvarint(uint8_t *out, uint64_t value)
{
    size_t n = 0;
    while (value >= 0x80) {
        out[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

static inline uint64_t fd_fingerprint_zigzag(int64_t value)
{
    return value >= 0 ? (uint64_t)value << 1 : (((uint64_t) - (value + 1)) << 1) | 1;
}

/* tag and uvarint(value), built in place when the sink has room. */
static inline void fd_fingerprint_put_head(fd_sink *sink, uint8_t tag, uint64_t value)
{
    uint8_t scratch[1 + FD_FINGERPRINT_UVARINT_MAX];
    uint8_t *out = fd_sink_room(sink, sizeof scratch);
    uint8_t *at = out != NULL ? out : scratch;
    at[0] = tag;
    const size_t len = 1 + fd_fingerprint_uvarint(at + 1, value);
    if (out != NULL)
        fd_sink_advance(sink, len);
    else
        fd_sink_write(sink, scratch, len);
}

void fd_fingerprint_put_uvarint(fd_sink *sink, uint64_t value);
void fd_fingerprint_put_svarint(fd_sink *sink, int64_t value);

/* The uvarint of an unsigned number of any size, given as its len bytes,
 * little-endian (an int beyond int64's range, zigzagged). */
void fd_fingerprint_put_uvarint_bytes(fd_sink *sink, const uint8_t *little_endian, size_t len);

/* tag, uvarint(len) and len bytes (data may be NULL when len is 0). */
static inline void fd_fingerprint_put_sized(fd_sink *sink, uint8_t tag, const void *data,
                                            size_t len)
{
    fd_fingerprint_put_head(sink, tag, len);
    fd_sink_write(sink, data, len);
}

/* The longest run whose length is one uvarint byte. */
#define FD_FINGERPRINT_SHORT_MAX 127

/* tag, uvarint(len) and len bytes built at out, for len of at most
 * FD_FINGERPRINT_SHORT_MAX (2 + len bytes of room): returns their end. */
static inline uint8_t *fd_fingerprint_short_at(uint8_t *out, uint8_t tag, const void *data,
                                               size_t len)
{
    out[0] = tag;
    out[1] = (uint8_t)len;
    fd_copy_short(out + 2, (const uint8_t *)data, len);
    return out + 2 + len;
}

/* An int of int64's range built at out (1 + FD_FINGERPRINT_UVARINT_MAX
 * bytes of room): returns its end. */
static inline uint8_t *fd_fingerprint_int_at(uint8_t *out, int64_t value)
{
    out[0] = FD_FP_INT;
    return out + 1 + fd_fingerprint_uvarint(out + 1, fd_fingerprint_zigzag(value));
}

/* fd_fingerprint_put_sized of a run of at most FD_FINGERPRINT_SHORT_MAX
 * bytes when the sink has room for the longest such: true; else false and
 * nothing written. For the short strs that most values are made of, whose
 * cost is that of the calls around their bytes. */
static inline bool fd_fingerprint_put_short(fd_sink *sink, uint8_t tag, const void *data,
                                            size_t len)
{
    uint8_t *out = fd_sink_room(sink, 2 + FD_FINGERPRINT_SHORT_MAX);
    if (out == NULL || len > FD_FINGERPRINT_SHORT_MAX)
        return false;
    fd_sink_advance(sink, (size_t)(fd_fingerprint_short_at(out, tag, data, len) - out));
    return true;
}

/* An int of int64's range: 'i' and svarint(value). */
static inline void fd_fingerprint_put_int(fd_sink *sink, int64_t value)
{
    fd_fingerprint_put_head(sink, FD_FP_INT, fd_fingerprint_zigzag(value));
}

/* A float: 'f' and the IEEE 754 binary64 bits, as they are (no zero or NaN
 * is made another), little-endian. */
void fd_fingerprint_put_float(fd_sink *sink, double value);

/* A complex: 'c', the real part's bits and the imaginary part's. */
void fd_fingerprint_put_complex(fd_sink *sink, double real, double imag);

/* A str of length code points, each unit_size bytes in the machine's order
 * (1, 2 or 4: CPython's Latin-1, UCS-2 and UCS-4 forms): 's', the length of
 * its UTF-8 and the UTF-8, where a surrogate code point is encoded as the
 * three bytes the UTF-8 algorithm gives its value (Python's surrogatepass).
 * Code units above 0x10FFFF, which no str holds, are written as U+FFFD. */
void fd_fingerprint_put_str(fd_sink *sink, const void *units, size_t length, int unit_size);

/* The same without the tag: uvarint(the UTF-8's length) and the UTF-8 (the
 * names in an enum's and a dataclass's encoding). */
void fd_fingerprint_put_text(fd_sink *sink, const void *units, size_t length, int unit_size);

/* The length of that UTF-8. */
size_t fd_fingerprint_utf8_length(const void *units, size_t length, int unit_size);

/* A Decimal's bytes up to its digits: 'd', the sign (00 or 01), the kind,
 * svarint(exponent) and uvarint(digit_count); the digit_count ASCII digits
 * of the coefficient or the NaN's payload follow. */
void fd_fingerprint_put_decimal_head(fd_sink *sink, bool negative, uint8_t kind, int64_t exponent,
                                     size_t digit_count);

/* Days from 1970-01-01 to year-month-day of the proleptic Gregorian calendar
 * (year 1 to 9999). */
int64_t fd_fingerprint_days_from_civil(int year, int month, int day);

/* A date: 'D' and svarint(days since 1970-01-01). */
void fd_fingerprint_put_date(fd_sink *sink, int year, int month, int day);

/* A datetime ('W') or time ('H'): svarint of the wall clock's microseconds
 * (since 1970-01-01T00:00, or since midnight), the fold (00 or 01), and 00
 * for a naive value or 01 and svarint(the UTC offset in microseconds) for
 * an aware one. */
void fd_fingerprint_put_clock(fd_sink *sink, uint8_t tag, int64_t microseconds, int fold,
                              bool aware, int64_t offset_microseconds);

/* The microseconds of a timedelta (or of a UTC offset) from its normalised
 * days, seconds (0 to 86399) and microseconds (0 to 999999), for values
 * whose count fits an int64 (a UTC offset, under a day). */
int64_t fd_fingerprint_delta_microseconds(int64_t days, int64_t seconds, int64_t microseconds);

/* A timedelta: 'P' and svarint of its microseconds, days * 86,400,000,000 +
 * seconds * 1,000,000 + microseconds, for any int32 days (beyond int64's
 * range at the extremes: the varint takes any size). */
void fd_fingerprint_put_timedelta(fd_sink *sink, int64_t days, int64_t seconds,
                                  int64_t microseconds);

/* ---- arrays ---------------------------------------------------------------- */

/* The elements of an N-dimensional strided array in C order (the last index
 * fastest), each of item_size bytes: in units of swap_unit bytes (1, 2, 4 or
 * 8; item_size a multiple of it), each unit's bytes reversed when swap is
 * set, which turns big-endian numbers little-endian; with boolean, each
 * element written as 01 when any of its bytes is not zero, else 00. data
 * is the first element's address; shape and strides (in bytes, any sign)
 * have ndim entries. Written in pieces through the sink: a copy of any
 * length in a bounded buffer. */
typedef struct fd_fingerprint_strided {
    const uint8_t *data;
    int ndim;
    const int64_t *shape;
    const int64_t *strides;
    size_t item_size;
    size_t swap_unit;
    bool swap;
    bool boolean;
} fd_fingerprint_strided;

void fd_fingerprint_put_strided(fd_sink *sink, const fd_fingerprint_strided *array);

/* Whether this machine stores numbers little-endian. */
bool fd_fingerprint_host_is_little_endian(void);

/* ---- Arrow values ----------------------------------------------------------- */

/* The type descriptor of an Arrow value of type (docs/fingerprint.md): the
 * logical type, as the encoding of docs/encoding.md tells types apart. */
void fd_fingerprint_arrow_type(const fd_arrow_type *type, fd_sink *sink);

/* field(v) of every value of array (encoding.md), in order. */
void fd_fingerprint_arrow_rows(const fd_arrow_array *array, fd_sink *sink);

#endif /* FD_CORE_FINGERPRINT_H */
