/* The texts of JSON values as Python's json module writes them: see
 * json_text.h. */
#include "data/json_text.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/endian.h"

/* The longest Latin-1 text written straight into the sink's buffer where
 * it has room for the longest literal: the texts of keys and of most
 * values, for which the checks of room for each run and escape cost more
 * than the text itself. Longer ones go run by run. */
#define FD_JSON_IN_PLACE_MAX 256

static const char hex_digits[] = "0123456789abcdef";

/* ---- strings ------------------------------------------------------------ */

/* Whether code point c is written as it is: ' '..'~' but '"' and '\', and
 * in UTF-8 also DEL (json.encoder.encode_basestring escapes only what is
 * below ' '). Code points from U+0080 are escaped or encoded, never
 * copied. */
static inline bool is_plain(uint32_t c, bool ensure_ascii)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && (c != 0x7f || !ensure_ascii);
}

/* \uXXXX of a code point below U+10000, to out (6 bytes). */
static size_t write_u_escape(uint32_t c, uint8_t *out)
{
    out[0] = '\\';
    out[1] = 'u';
    out[2] = (uint8_t)hex_digits[(c >> 12) & 0xf];
    out[3] = (uint8_t)hex_digits[(c >> 8) & 0xf];
    out[4] = (uint8_t)hex_digits[(c >> 4) & 0xf];
    out[5] = (uint8_t)hex_digits[c & 0xf];
    return 6;
}

/* The escape of a code point below U+0080 that is not plain, to out (6
 * bytes): the two-character escapes json has, else \u00XX. */
static size_t escape_ascii(uint32_t c, uint8_t *out)
{
    char letter;
    switch (c) {
    case '"':
        letter = '"';
        break;
    case '\\':
        letter = '\\';
        break;
    case '\b':
        letter = 'b';
        break;
    case '\f':
        letter = 'f';
        break;
    case '\n':
        letter = 'n';
        break;
    case '\r':
        letter = 'r';
        break;
    case '\t':
        letter = 't';
        break;
    default:
        return write_u_escape(c, out);
    }
    out[0] = '\\';
    out[1] = (uint8_t)letter;
    return 2;
}

/* The text of a code point that is not plain, to out (12 bytes): its
 * escape, or in UTF-8 its encoding from U+0080 on. Returns the length, or
 * 0 for a surrogate in UTF-8. */
static size_t escape_code_point(uint32_t c, uint8_t *out, bool ensure_ascii)
{
    if (c < 0x80)
        return escape_ascii(c, out);
    if (ensure_ascii) {
        if (c < 0x10000)
            return write_u_escape(c, out);
        const uint32_t above = c - 0x10000;
        write_u_escape(0xd800 | (above >> 10), out);
        write_u_escape(0xdc00 | (above & 0x3ff), out + 6);
        return 12;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xc0 | (c >> 6));
        out[1] = (uint8_t)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        if (c >= 0xd800 && c <= 0xdfff)
            return 0;
        out[0] = (uint8_t)(0xe0 | (c >> 12));
        out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | (c >> 18));
    out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (uint8_t)(0x80 | (c & 0x3f));
    return 4;
}

/* Latin-1 text is scanned eight bytes at a time, as a little-endian word
 * (the first byte the lowest, on every CPU): bit 7 of each byte that needs
 * work is set, a byte from 0x80 (escaped or encoded), below 0x20, equal to
 * '"' or '\' (and DEL with ensure_ascii), with the carry-free tests of "Bit
 * Twiddling Hacks" (haszero, hasless). A borrow may flag a byte above one
 * that needs work, never one below it: the lowest flag is exact. */
static inline uint64_t special_bytes(uint64_t word, bool ensure_ascii)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const uint64_t quote = word ^ (ones * '"'), backslash = word ^ (ones * '\\');
    uint64_t special = word | ((word - ones * 0x20) & ~word) | ((quote - ones) & ~quote) |
                       ((backslash - ones) & ~backslash);
    if (ensure_ascii) {
        const uint64_t del = word ^ (ones * 0x7f);
        special |= (del - ones) & ~del;
    }
    return special & highs;
}

/* The bytes of a word below its lowest flag, of a non-zero special_bytes:
 * that flag, bit 8k + 7, shifted to bit 8k, times bytes 7, 6, .. 0 puts k
 * in the top byte. Plain C, where a count of trailing zeros is not. */
static inline size_t bytes_below_flag(uint64_t flags)
{
    const uint64_t lowest = flags & (0 - flags);
    return (size_t)(((lowest >> 7) * UINT64_C(0x0001020304050607)) >> 56);
}

/* The last bytes of a text, 1 to 7, as a word padded with plain bytes,
 * with no read past the text: two loads of four bytes that overlap, or of
 * the first, middle and last of up to three (the same byte read twice
 * lands in the same place). */
static inline uint64_t load_tail(const uint8_t *text, size_t count)
{
    uint64_t word;
    if (count >= 4)
        word = fd_load_le32(text) | (uint64_t)fd_load_le32(text + count - 4) << (8 * (count - 4));
    else
        word = text[0] | (uint64_t)text[count / 2] << (8 * (count / 2)) |
               (uint64_t)text[count - 1] << (8 * (count - 1));
    const uint64_t kept = (UINT64_C(1) << (8 * count)) - 1;
    return word | (UINT64_C(0x6161616161616161) & ~kept); /* 'a' */
}

/* The number of plain bytes of the text from i, at most `count`. */
static inline size_t plain_run(const uint8_t *text, size_t count, bool ensure_ascii)
{
    const uint64_t word = count >= 8 ? fd_load_le64(text) : load_tail(text, count);
    const uint64_t flags = special_bytes(word, ensure_ascii);
    const size_t plain = flags == 0 ? 8 : bytes_below_flag(flags);
    return plain < count ? plain : count;
}

/* The end of the run of plain bytes of Latin-1 text from i. */
static size_t skip_plain_bytes(const uint8_t *text, size_t i, size_t length, bool ensure_ascii)
{
    while (i < length) {
        const size_t plain = plain_run(text + i, length - i, ensure_ascii);
        i += plain;
        if (plain < 8)
            break;
    }
    return i;
}

/* The text of a Latin-1 byte that is not plain, to out (6 bytes). */
static size_t escape_latin1(uint8_t c, uint8_t *out, bool ensure_ascii)
{
    if (c < 0x80)
        return escape_ascii(c, out);
    if (ensure_ascii)
        return write_u_escape(c, out);
    out[0] = (uint8_t)(0xc0 | (c >> 6));
    out[1] = (uint8_t)(0x80 | (c & 0x3f));
    return 2;
}

/* The most bytes write_latin1_in_place writes for a text of length bytes:
 * 6 a byte (\u00XX) and the quotes, and a word's store past the end. */
static inline size_t latin1_in_place_room(size_t length)
{
    return 6 * length + 2 + 8;
}

/* The literal of Latin-1 text, quotes and all, straight into out, which
 * has latin1_in_place_room(length) bytes: each word of plain bytes is
 * stored whole, as it was loaded, and the bytes after the run it begins
 * are written over. Returns the length written. */
static size_t write_latin1_in_place(uint8_t *out, const uint8_t *text, size_t length,
                                    bool ensure_ascii)
{
    size_t n = 0, i = 0;
    out[n++] = '"';
    while (i < length) {
        const size_t count = length - i;
        const uint64_t word = count >= 8 ? fd_load_le64(text + i) : load_tail(text + i, count);
        const uint64_t flags = special_bytes(word, ensure_ascii);
        size_t plain = flags == 0 ? 8 : bytes_below_flag(flags);
        plain = plain < count ? plain : count;
        fd_store_le64(out + n, word);
        n += plain;
        i += plain;
        if (plain < 8 && i < length)
            n += escape_latin1(text[i++], out + n, ensure_ascii);
    }
    out[n++] = '"';
    return n;
}

static void write_latin1(fd_sink *sink, const uint8_t *text, size_t length, bool ensure_ascii)
{
    size_t i = 0;
    while (i < length) {
        const size_t start = i;
        i = skip_plain_bytes(text, i, length, ensure_ascii);
        fd_sink_write(sink, text + start, i - start);
        if (i == length)
            return;
        uint8_t escape[6];
        fd_sink_write(sink, escape, escape_latin1(text[i++], escape, ensure_ascii));
    }
}

/* UCS-2 and UCS-4 text: plain code points narrowed straight into the sink,
 * as many at a time as it has room for; the others escaped or encoded. */
static bool write_wide(fd_sink *sink, const void *data, size_t length, unsigned kind,
                       bool ensure_ascii)
{
    const uint16_t *ucs2 = data;
    const uint32_t *ucs4 = data;
    size_t i = 0;
    while (i < length) {
        if (sink->used == sink->capacity)
            sink->make_room(sink);
        uint8_t *out = sink->buffer + sink->used;
        const size_t room = sink->capacity - sink->used;
        size_t n = 0;
        if (kind == 2) {
            while (n < room && i < length && is_plain(ucs2[i], ensure_ascii))
                out[n++] = (uint8_t)ucs2[i++];
        }
        else {
            while (n < room && i < length && is_plain(ucs4[i], ensure_ascii))
                out[n++] = (uint8_t)ucs4[i++];
        }
        sink->used += n;
        if (i == length)
            break;
        const uint32_t c = kind == 2 ? ucs2[i] : ucs4[i];
        if (is_plain(c, ensure_ascii))
            continue; /* the sink was full */
        uint8_t escape[12];
        const size_t len = escape_code_point(c, escape, ensure_ascii);
        if (len == 0)
            return false;
        fd_sink_write(sink, escape, len);
        i++;
    }
    return true;
}

bool fd_json_write_string(fd_sink *sink, const void *data, size_t length, unsigned kind,
                          bool ensure_ascii)
{
    if (kind == 1 && length <= FD_JSON_IN_PLACE_MAX) {
        uint8_t *out = fd_sink_room(sink, latin1_in_place_room(length));
        if (out != NULL) {
            fd_sink_advance(sink, write_latin1_in_place(out, data, length, ensure_ascii));
            return true;
        }
    }
    fd_sink_byte(sink, '"');
    if (kind == 1)
        write_latin1(sink, data, length, ensure_ascii);
    else if (!write_wide(sink, data, length, kind, ensure_ascii))
        return false;
    fd_sink_byte(sink, '"');
    return true;
}

/* ---- numbers ------------------------------------------------------------ */

/* The decimal digits of value, most significant first, to out; returns
 * their count. */
static size_t write_digits(uint64_t value, char *out)
{
    /* Two digits per division, from the end of a buffer of the widest. */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char text[20];
    size_t start = sizeof text;
    while (value >= 100) {
        const size_t pair = (size_t)(value % 100) * 2;
        value /= 100;
        start -= 2;
        text[start] = pairs[pair];
        text[start + 1] = pairs[pair + 1];
    }
    if (value >= 10) {
        start -= 2;
        text[start] = pairs[value * 2];
        text[start + 1] = pairs[value * 2 + 1];
    }
    else {
        text[--start] = (char)('0' + value);
    }
    memcpy(out, text + start, sizeof text - start);
    return sizeof text - start;
}

size_t fd_json_format_int(int64_t value, char *out)
{
    if (value >= 0)
        return write_digits((uint64_t)value, out);
    out[0] = '-';
    return 1 + write_digits((uint64_t)0 - (uint64_t)value, out + 1);
}

/* ---- floats --------------------------------------------------------------
 *
 * float.__repr__ writes the shortest decimal that reads back as the double
 * (David Gay's dtoa, mode 0), the nearest to it where several are as short,
 * in fixed notation from 1e-4 to below 1e16. Data's floats mostly lie from
 * 1e-4 to below 1e15, where two exact searches find those digits with no
 * big-number arithmetic: one for fifteen digits or fewer, in double, and
 * one for sixteen or seventeen, in 128-bit integers. Anything else, and the
 * rare ties between two candidates, goes to CPython's own repr. */

/* The searches assume each operation on doubles rounds to double, as
 * FLT_EVAL_METHOD 0 and 1 promise (1, floats evaluated as doubles, is GCC's
 * strict C on s390x). Wider registers (the x87's 2) round otherwise; there
 * every float goes to CPython's repr. */
#if FLT_EVAL_METHOD == 0 || FLT_EVAL_METHOD == 1
#define DOUBLES_ROUND_AS_DOUBLES 1
#else
#define DOUBLES_ROUND_AS_DOUBLES 0
#endif

#if DOUBLES_ROUND_AS_DOUBLES

/* Unsigned 128-bit integers as two halves: portable C, for MSVC has no
 * 128-bit type. */
typedef struct u128 {
    uint64_t high, low;
} u128;

static u128 multiply_64(uint64_t a, uint64_t b)
{
    const uint64_t a_low = a & 0xffffffffu, a_high = a >> 32;
    const uint64_t b_low = b & 0xffffffffu, b_high = b >> 32;
    const uint64_t low_low = a_low * b_low, high_low = a_high * b_low;
    const uint64_t low_high = a_low * b_high, high_high = a_high * b_high;
    /* At most (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1: no carry is lost. */
    const uint64_t middle = (low_low >> 32) + (high_low & 0xffffffffu) + low_high;
    return (u128){high_high + (high_low >> 32) + (middle >> 32),
                  (middle << 32) | (low_low & 0xffffffffu)};
}

/* x << n for n below 128, which the callers keep from overflowing. */
static u128 shift_left(u128 x, unsigned n)
{
    if (n == 0)
        return x;
    if (n >= 64)
        return (u128){x.low << (n - 64), 0};
    return (u128){(x.high << n) | (x.low >> (64 - n)), x.low << n};
}

static int compare_u128(u128 a, u128 b)
{
    if (a.high != b.high)
        return a.high < b.high ? -1 : 1;
    return a.low < b.low ? -1 : a.low > b.low ? 1 : 0;
}

static const double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define POWERS_OF_TEN (sizeof powers_of_ten / sizeof powers_of_ten[0])

/* 5^0 .. 5^22, each below 2^52. */
static const uint64_t powers_of_five[] = {UINT64_C(1),
                                          UINT64_C(5),
                                          UINT64_C(25),
                                          UINT64_C(125),
                                          UINT64_C(625),
                                          UINT64_C(3125),
                                          UINT64_C(15625),
                                          UINT64_C(78125),
                                          UINT64_C(390625),
                                          UINT64_C(1953125),
                                          UINT64_C(9765625),
                                          UINT64_C(48828125),
                                          UINT64_C(244140625),
                                          UINT64_C(1220703125),
                                          UINT64_C(6103515625),
                                          UINT64_C(30517578125),
                                          UINT64_C(152587890625),
                                          UINT64_C(762939453125),
                                          UINT64_C(3814697265625),
                                          UINT64_C(19073486328125),
                                          UINT64_C(95367431640625),
                                          UINT64_C(476837158203125),
                                          UINT64_C(2384185791015625)};

static uint64_t power_of_five(int t)
{
    return powers_of_five[t];
}

/* A double's exact value and its rounding interval, over one power of two:
 * the double is value * 2^exponent, and the decimals that read back as it
 * lie between low and high * 2^exponent, on them too when `even` (the
 * midpoints between doubles round to the even significand). The lower
 * neighbour of a power of two is half as far. */
typedef struct exact_double {
    uint64_t value, low, high;
    int exponent;
    bool even;
} exact_double;

static exact_double exact_of(double magnitude)
{
    uint64_t bits;
    memcpy(&bits, &magnitude, sizeof bits);
    const uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
    const int biased = (int)(bits >> 52);
    const uint64_t significand = fraction | (UINT64_C(1) << 52);
    return (exact_double){.value = 4 * significand,
                          .low = fraction == 0 && biased > 1 ? 4 * significand - 1
                                                             : 4 * significand - 2,
                          .high = 4 * significand + 2,
                          .exponent = biased - 1075 - 2,
                          .even = (significand & 1) == 0};
}

/* The sign of c * 10^-t - x * 2^exponent, exactly: c against
 * x * 5^t * 2^(exponent + t), the side with the negative power of two
 * shifted instead. The callers' magnitudes keep both sides within 128
 * bits (c < 10^17 shifted at most 50 bits; x < 2^55 times 5^t < 2^47). */
static int compare_decimal(uint64_t c, int t, uint64_t x, int exponent)
{
    const u128 right = multiply_64(x, power_of_five(t));
    const int shift = exponent + t;
    if (shift >= 0)
        return compare_u128((u128){0, c}, shift_left(right, (unsigned)shift));
    return compare_u128(shift_left((u128){0, c}, (unsigned)-shift), right);
}

/* Whether the decimal c * 10^-t reads back as d. */
static bool reads_back(const exact_double *d, uint64_t c, int t)
{
    const int above = compare_decimal(c, t, d->low, d->exponent);
    const int below = compare_decimal(c, t, d->high, d->exponent);
    return (above > 0 || (d->even && above == 0)) && (below < 0 || (d->even && below == 0));
}

/* floor(d * 10^t) and what is left below it, as a fraction of 2^shift
 * (remainder, half = 2^(shift - 1)). False where d * 10^t is no fraction
 * of 2^64 at most, which the callers' magnitudes never give. */
static bool floor_scaled(const exact_double *d, int t, uint64_t *whole, uint64_t *remainder,
                         uint64_t *half)
{
    const u128 product = multiply_64(d->value, power_of_five(t));
    const int shift = -(d->exponent + t);
    if (shift <= 0 || shift >= 64)
        return false;
    const unsigned s = (unsigned)shift;
    if ((product.high >> s) != 0)
        return false;
    *whole = (product.high << (64 - s)) | (product.low >> s);
    *remainder = product.low & ((UINT64_C(1) << s) - 1);
    *half = UINT64_C(1) << (s - 1);
    return true;
}

/* Fifteen digits or fewer, for magnitude from 1e-4 to below 1e15: why the
 * search finds float.__repr__'s digits when there are so few.
 *
 * - Let k be the most places after the point that keep magnitude * 10^k
 *   below 1e15 (at least 1e14 then, as magnitude is 1e-4 or more). Two
 *   decimals with k places differ by at least 1e-15 of their size, while
 *   the doubles that read back as d span at most 2^-52 of it: at most one
 *   such decimal reads back as d. A decimal with fewer places is one with
 *   k places too, so the shortest one that reads back, if any, is that
 *   one, with its trailing zeros dropped; and no tie is broken.
 * - Its digits are n / 10^k with |n - d*10^k| <= 2^-53 * d*10^k < 0.12
 *   (n/10^k rounds to d), and d*10^k computed in double (10^k is exact to
 *   10^22, so one rounding) is within 0.12 of the true product: rounding
 *   it to the nearest integer gives n.
 * - n / 10^k in double is the correctly rounded quotient of two exact
 *   doubles: d exactly when the decimal reads back as d, as strtod reads it.
 *
 * One division, then, where a search from no places up would divide at
 * every step. Returns the digits in *digits, with *scale places after the
 * point, or false when there are more than fifteen; *places is k either
 * way, from which the longer search starts. */
static bool short_digits(double magnitude, uint64_t *digits, int *scale, int *places)
{
    /* Up from a few places below k, found from the binary exponent:
     * magnitude < 2^e, so log10(magnitude) < e * log10(2) < a + 1 for a
     * that product truncated, and magnitude * 10^(13 - a) < 1e14. */
    int exponent;
    frexp(magnitude, &exponent);
    const int lower = 13 - exponent * 30103 / 100000;
    size_t k = lower > 0 ? (size_t)lower : 0;
    while (k + 1 < POWERS_OF_TEN && magnitude * powers_of_ten[k + 1] < 1e15)
        k++;
    *places = (int)k;
    const double scaled = magnitude * powers_of_ten[k];
    if (scaled >= 1e15)
        return false;
    uint64_t n = (uint64_t)(scaled + 0.5);
    if ((double)n / powers_of_ten[k] != magnitude)
        return false;
    while (k > 0 && n % 10 == 0) {
        n /= 10;
        k--;
    }
    *digits = n;
    *scale = (int)k;
    return true;
}

/* Sixteen or seventeen digits, for magnitude from 1e-4 to below 1e15
 * where short_digits found none: the 16-digit decimals just below and just
 * above d (the nearest of them where both read back as d), else d rounded
 * to 17 digits, which always reads back. Exact: the candidates and the
 * interval are compared as integers. False for a tie between two
 * candidates, whose choice is CPython's. */
static bool long_digits(double magnitude, int places, uint64_t *digits, int *scale)
{
    const exact_double d = exact_of(magnitude);
    const uint64_t ten_16 = UINT64_C(10000000000000000), ten_17 = 10 * ten_16;
    uint64_t whole, remainder, half;
    /* The scale that puts 17 digits before the point: two places more
     * than short_digits' 15, which its rounding may leave one off near a
     * power of ten, as the integer test corrects. */
    int t = places + 2;
    for (int tries = 0;; tries++) {
        if (tries == 3 || t < 1 || t >= (int)POWERS_OF_TEN ||
            !floor_scaled(&d, t, &whole, &remainder, &half))
            return false;
        if (whole < ten_16)
            t++;
        else if (whole >= ten_17)
            t--;
        else
            break;
    }
    uint64_t whole_16, remainder_16, half_16;
    if (!floor_scaled(&d, t - 1, &whole_16, &remainder_16, &half_16))
        return false;
    const bool below = reads_back(&d, whole_16, t - 1);
    const bool above = remainder_16 != 0 && reads_back(&d, whole_16 + 1, t - 1);
    if (below || above) {
        if (below && above && remainder_16 == half_16)
            return false;
        *digits = below && (!above || remainder_16 < half_16) ? whole_16 : whole_16 + 1;
        *scale = t - 1;
    }
    else {
        if (remainder == half)
            return false;
        *digits = whole + (remainder > half);
        *scale = t;
        if (*digits >= ten_17 || !reads_back(&d, *digits, t))
            return false;
    }
    /* A trailing zero would mean a shorter decimal, which short_digits
     * would have found. */
    return *digits % 10 != 0;
}

#endif /* DOUBLES_ROUND_AS_DOUBLES */

size_t fd_json_format_double(double value, char *out)
{
#if !DOUBLES_ROUND_AS_DOUBLES
    (void)value;
    (void)out;
    return 0;
#else
    size_t len = 0;
    if (signbit(value))
        out[len++] = '-';
    const double magnitude = fabs(value);
    if (magnitude == 0) {
        memcpy(out + len, "0.0", 3);
        return len + 3;
    }
    if (!(magnitude >= 1e-4 && magnitude < 1e15))
        return 0;
    uint64_t n;
    int scale;
    int places;
    if (!short_digits(magnitude, &n, &scale, &places) &&
        !long_digits(magnitude, places, &n, &scale))
        return 0;
    /* The digits with `scale` of them after the point: '.0' after a whole
     * number, '0.' and zeros before a fraction below 1. */
    char digits[20];
    const size_t count = write_digits(n, digits);
    const size_t k = (size_t)scale;
    if (k == 0) {
        memcpy(out + len, digits, count);
        memcpy(out + len + count, ".0", 2);
        return len + count + 2;
    }
    if (count > k) {
        memcpy(out + len, digits, count - k);
        len += count - k;
        out[len++] = '.';
        memcpy(out + len, digits + count - k, k);
        return len + k;
    }
    out[len++] = '0';
    out[len++] = '.';
    memset(out + len, '0', k - count);
    len += k - count;
    memcpy(out + len, digits, count);
    return len + count;
#endif
}

/* ---- order -------------------------------------------------------------- */

static inline uint32_t code_point_at(const void *data, unsigned kind, size_t i)
{
    if (kind == 1)
        return ((const uint8_t *)data)[i];
    if (kind == 2)
        return ((const uint16_t *)data)[i];
    return ((const uint32_t *)data)[i];
}

int fd_json_compare_text(const void *a, size_t a_length, unsigned a_kind, const void *b,
                         size_t b_length, unsigned b_kind)
{
    const size_t common = a_length < b_length ? a_length : b_length;
    if (a_kind == 1 && b_kind == 1) {
        const int order = common == 0 ? 0 : memcmp(a, b, common);
        if (order != 0)
            return order;
    }
    else {
        for (size_t i = 0; i < common; i++) {
            const uint32_t ca = code_point_at(a, a_kind, i), cb = code_point_at(b, b_kind, i);
            if (ca != cb)
                return ca < cb ? -1 : 1;
        }
    }
    return a_length < b_length ? -1 : a_length > b_length ? 1 : 0;
}
