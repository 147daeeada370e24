/* libFuzzer target of json_digest's texts (data/json_text.c): strings of
 * the three kinds CPython stores, doubles and int64s, written as json.dumps
 * writes them, into a sink whose buffer is a few bytes (so that every text
 * crosses its seams), and compared with what this file works out itself.
 * Built and run by tests/fuzz/run.sh with clang
 * -fsanitize=fuzzer,address,undefined.
 *
 * - A string is compared with a plain restatement of json's escaping (one
 *   code point at a time, snprintf for \uXXXX), for ensure_ascii both ways;
 *   without it, fd_json_write_string must refuse exactly the texts that hold
 *   a surrogate code point.
 * - A double's text must read back (strtod) as the double, be in fixed
 *   notation with '.0' after a whole number, and be the shortest that does:
 *   the nearest decimal of one digit fewer (snprintf's %.*e, correctly
 *   rounded in glibc) must not read back, and where the nearest one of as
 *   many digits reads back, the digits must be its own, as float.__repr__
 *   takes the nearest of the shortest. A text of 0 bytes (CPython's repr
 *   then) is allowed only outside 1e-4 to 1e15 or for a tie, which
 *   snprintf cannot tell apart here: it is not checked further.
 * - An int64 must be snprintf's %lld.
 *
 * The input: byte 0 the mode (mod 4: string, double from its bits, double
 * from a decimal, int64); byte 1 the sink's size (1 to 64 bytes); byte 2
 * bit 0 ensure_ascii, bits 1-2 a string's kind (1, 2 or 4 bytes a code
 * point). Then a string's code points (little-endian, four-byte ones
 * reduced below 0x110000), or 8 bytes of a double or an int64, or a
 * decimal: up to 17 digits from the bytes' low nibbles (mod 10) and an
 * exponent from the last byte. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/json_text.h"

/* ---- a sink that keeps everything -------------------------------------- */

typedef struct kept_sink {
    fd_sink sink;
    uint8_t *kept;
    size_t kept_len, kept_capacity;
    uint8_t window[64];
} kept_sink;

static void keep(kept_sink *k, const uint8_t *bytes, size_t len)
{
    if (k->kept_len + len > k->kept_capacity) {
        size_t capacity = k->kept_capacity ? k->kept_capacity : 256;
        while (capacity < k->kept_len + len)
            capacity *= 2;
        k->kept = realloc(k->kept, capacity);
        if (k->kept == NULL)
            abort();
        k->kept_capacity = capacity;
    }
    if (len != 0)
        memcpy(k->kept + k->kept_len, bytes, len);
    k->kept_len += len;
}

static void make_room(fd_sink *sink)
{
    kept_sink *k = (kept_sink *)sink; /* the first member */
    keep(k, k->window, sink->used);
    sink->used = 0;
}

static void kept_init(kept_sink *k, size_t window)
{
    memset(k, 0, sizeof *k);
    k->sink = (fd_sink){.buffer = k->window, .capacity = window, .make_room = make_room};
}

static void kept_flush(kept_sink *k)
{
    make_room(&k->sink);
}

static void fail(const char *what, const void *got, size_t got_len, const void *want,
                 size_t want_len)
{
    fprintf(stderr, "fuzz_json: %s\n  got  (%zu) %.*s\n  want (%zu) %.*s\n", what, got_len,
            (int)got_len, (const char *)got, want_len, (int)want_len, (const char *)want);
    abort();
}

/* ---- strings -------------------------------------------------------------- */

static void append(uint8_t **out, size_t *len, const char *bytes, size_t n)
{
    memcpy(*out + *len, bytes, n);
    *len += n;
}

static void append_u_escape(uint8_t **out, size_t *len, uint32_t unit)
{
    char text[8];
    snprintf(text, sizeof text, "\\u%04x", (unsigned)unit);
    append(out, len, text, 6);
}

/* json's text of one code point, as its docs state the rules; false for a
 * surrogate without ensure_ascii. */
static bool expected_code_point(uint8_t **out, size_t *len, uint32_t c, bool ensure_ascii)
{
    static const char *const named[] = {
        ['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
        ['\n'] = "\\n", ['\r'] = "\\r",  ['\t'] = "\\t"};
    if (c < sizeof named / sizeof named[0] && named[c] != NULL) {
        append(out, len, named[c], 2);
        return true;
    }
    if (c < 0x20 || (ensure_ascii && c > 0x7e)) {
        if (c > 0xffff) {
            const uint32_t v = c - 0x10000;
            append_u_escape(out, len, 0xd800 | (v >> 10));
            append_u_escape(out, len, 0xdc00 | (v & 0x3ff));
        }
        else {
            append_u_escape(out, len, c);
        }
        return true;
    }
    char utf8[4];
    size_t n;
    if (c < 0x80) {
        utf8[0] = (char)c;
        n = 1;
    }
    else if (c < 0x800) {
        utf8[0] = (char)(0xc0 | (c >> 6));
        utf8[1] = (char)(0x80 | (c & 0x3f));
        n = 2;
    }
    else if (c < 0x10000) {
        if (c >= 0xd800 && c <= 0xdfff)
            return false;
        utf8[0] = (char)(0xe0 | (c >> 12));
        utf8[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        utf8[2] = (char)(0x80 | (c & 0x3f));
        n = 3;
    }
    else {
        utf8[0] = (char)(0xf0 | (c >> 18));
        utf8[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        utf8[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        utf8[3] = (char)(0x80 | (c & 0x3f));
        n = 4;
    }
    append(out, len, utf8, n);
    return true;
}

static void check_string(const uint8_t *data, size_t size, unsigned kind, bool ensure_ascii,
                         size_t window)
{
    const size_t length = size / kind;
    /* The code points, in a buffer of exactly their size (NULL when none). */
    void *text = length ? malloc(length * kind) : NULL;
    uint32_t *code_points = length ? malloc(length * sizeof *code_points) : NULL;
    for (size_t i = 0; i < length; i++) {
        uint32_t c = 0;
        for (unsigned b = 0; b < kind; b++)
            c |= (uint32_t)data[i * kind + b] << (8 * b);
        if (kind == 4)
            c %= 0x110000;
        code_points[i] = c;
        if (kind == 1)
            ((uint8_t *)text)[i] = (uint8_t)c;
        else if (kind == 2)
            ((uint16_t *)text)[i] = (uint16_t)c;
        else
            ((uint32_t *)text)[i] = c;
    }

    /* At most 12 bytes a code point (two \u escapes), and the quotes. */
    uint8_t *want = malloc(length * 12 + 2);
    size_t want_len = 0;
    bool want_ok = true;
    append(&want, &want_len, "\"", 1);
    for (size_t i = 0; i < length && want_ok; i++)
        want_ok = expected_code_point(&want, &want_len, code_points[i], ensure_ascii);
    append(&want, &want_len, "\"", 1);

    kept_sink k;
    kept_init(&k, window);
    const bool ok = fd_json_write_string(&k.sink, text, length, kind, ensure_ascii);
    kept_flush(&k);
    if (ok != want_ok)
        fail(ok ? "a surrogate was written" : "a text was refused", k.kept, k.kept_len, want,
             want_len);
    if (ok && (k.kept_len != want_len || memcmp(k.kept, want, want_len) != 0))
        fail("string", k.kept, k.kept_len, want, want_len);
    free(k.kept);
    free(want);
    free(code_points);
    free(text);
}

/* ---- numbers ------------------------------------------------------------ */

/* The significant digits of a fixed-notation text ("-0.00123" -> "123"),
 * without the trailing zeros of a whole number's ".0"; false if the text
 * is not [-]digits.digits. */
static bool significant_digits(const char *text, size_t len, char *digits, size_t *count)
{
    size_t i = text[0] == '-' ? 1 : 0, points = 0, n = 0;
    const size_t first = i;
    for (; i < len; i++) {
        if (text[i] == '.') {
            points++;
            continue;
        }
        if (text[i] < '0' || text[i] > '9')
            return false;
        if (n == 0 && text[i] == '0')
            continue;
        digits[n++] = text[i];
    }
    if (points != 1 || text[first] == '.' || text[len - 1] == '.')
        return false;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    *count = n;
    return n > 0;
}

/* The nearest decimal of `count` significant digits (count >= 1), as
 * snprintf rounds it: its digits, and whether it reads back as value. */
static bool nearest(double value, size_t count, char *digits)
{
    char text[64];
    snprintf(text, sizeof text, "%.*e", (int)count - 1, value);
    size_t n = 0;
    for (const char *p = text; *p != '\0' && *p != 'e'; p++) {
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    }
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return strtod(text, NULL) == value;
}

static void check_double(double value)
{
    if (!isfinite(value))
        return;
    char text[FD_JSON_NUMBER_MAX + 1];
    const size_t len = fd_json_format_double(value, text);
    if (len == 0)
        return;
    if (len > FD_JSON_NUMBER_MAX)
        fail("double: too long", text, len, "", 0);
    text[len] = '\0';
    if (value == 0) {
        const char *zero = signbit(value) ? "-0.0" : "0.0";
        if (strcmp(text, zero) != 0)
            fail("double: zero", text, len, zero, strlen(zero));
        return;
    }
    char digits[40], other[40];
    size_t count;
    if (!significant_digits(text, len, digits, &count))
        fail("double: not fixed notation", text, len, "", 0);
    digits[count] = '\0';
    const double back = strtod(text, NULL);
    if (back != value || (text[0] == '-') != (signbit(value) != 0))
        fail("double: does not read back", text, len, "", 0);
    if (count > 1 && nearest(value, count - 1, other))
        fail("double: a shorter decimal reads back", text, len, other, strlen(other));
    if (nearest(value, count, other) && strcmp(other, digits) != 0)
        fail("double: not the nearest of the shortest", text, len, other, strlen(other));
}

static void check_int(int64_t value)
{
    char text[FD_JSON_NUMBER_MAX], want[32];
    const size_t len = fd_json_format_int(value, text);
    const int want_len = snprintf(want, sizeof want, "%" PRId64, value);
    if (len != (size_t)want_len || memcmp(text, want, len) != 0)
        fail("int", text, len, want, (size_t)want_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const unsigned mode = data[0] % 4;
    const size_t window = 1 + data[1] % 64;
    const bool ensure_ascii = data[2] & 1;
    const unsigned kinds[] = {1, 2, 4, 1};
    const unsigned kind = kinds[(data[2] >> 1) & 3];
    data += 3;
    size -= 3;
    if (mode == 0) {
        check_string(data, size, kind, ensure_ascii, window);
    }
    else if (mode == 1 || mode == 3) {
        uint8_t bytes[8] = {0};
        memcpy(bytes, data, size < 8 ? size : 8);
        if (mode == 1) {
            double value;
            memcpy(&value, bytes, sizeof value);
            check_double(value);
        }
        else {
            uint64_t bits = 0;
            for (int i = 7; i >= 0; i--)
                bits = bits << 8 | bytes[i];
            check_int((int64_t)bits);
        }
    }
    else {
        /* A decimal of up to 17 digits: the doubles nearest to short
         * decimals, and to ties of 16 and 17 digits. */
        char text[40];
        size_t n = 0;
        const size_t digits = size < 18 ? size : 18;
        for (size_t i = 0; i + 1 < digits; i++)
            text[n++] = (char)('0' + (data[i] & 15) % 10);
        if (n == 0)
            text[n++] = '1';
        const int exponent = size > 0 ? (int)(data[size - 1] % 48) - 36 : 0;
        snprintf(text + n, sizeof text - n, "e%d", exponent);
        check_double(strtod(text, NULL));
    }
    return 0;
}
