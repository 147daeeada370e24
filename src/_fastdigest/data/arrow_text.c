/* The engines' text of a value (arrow_text.h): integers, dates and
 * decimals written in decimal digits without the C library (no locale, no
 * printf per row), strings passed through. */
#include "data/arrow_text.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "kernels/endian.h"

/* ---- which types ------------------------------------------------------------- */

const char *fd_text_refusal(const fd_flat_type *type)
{
    switch (type->kind) {
    case FD_FLAT_BINARY:
        return "DuckDB writes bytes as escapes ('\\xAA'), PostgreSQL as hex ('\\xaa'), Spark as "
               "UTF-8 text";
    case FD_FLAT_DECIMAL:
        if (type->scale < 0)
            return "DuckDB, PostgreSQL and Spark have no decimals of negative scale";
        if (type->scale >= type->precision)
            return "DuckDB writes a decimal whose scale is its precision without the leading 0 "
                   "('.500' for decimal(3,3)'s 0.5), PostgreSQL and Spark with it ('0.500')";
        return NULL;
    case FD_FLAT_NULL:
    case FD_FLAT_BOOL:
    case FD_FLAT_SIGNED:
    case FD_FLAT_UNSIGNED:
    case FD_FLAT_DATE32:
    case FD_FLAT_DATE64:
    case FD_FLAT_STRING:
        break;
    }
    return NULL;
}

const char *fd_text_refusal_of_format(const char *format)
{
    if (strcmp(format, "e") == 0 || strcmp(format, "f") == 0 || strcmp(format, "g") == 0)
        return "DuckDB and Spark write the float 1.0 as '1.0', PostgreSQL as '1'";
    if (strncmp(format, "ts", 2) == 0)
        return "the engines write timestamps differently (time zones, fractions of a second: "
               "dbt-utils #1004)";
    if (strncmp(format, "tt", 2) == 0)
        return "Spark has no time of day type";
    if (strncmp(format, "tD", 2) == 0 || strncmp(format, "ti", 2) == 0)
        return "each engine writes durations and intervals in its own form";
    if (strncmp(format, "w:", 2) == 0)
        return "DuckDB writes bytes as escapes ('\\xAA'), PostgreSQL as hex ('\\xaa'), Spark as "
               "UTF-8 text";
    if (format[0] == '+')
        return "nested values (lists, structs, maps, unions) have no text all three engines "
               "share";
    return "DuckDB, PostgreSQL and Spark do not all have it, or write it alike";
}

/* ---- integers ------------------------------------------------------------------ */

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                  "31323334353637383940414243444546474849505152535455565758596061"
                                  "6263646566676869707172737475767778798081828384858687888990919293"
                                  "949596979899";

/* The decimal digits of value at out (up to 20); returns their count. */
static size_t write_unsigned(uint64_t value, uint8_t *out)
{
    uint8_t digits[20];
    size_t start = sizeof digits;
    while (value >= 100) {
        const unsigned pair = (unsigned)(value % 100);
        value /= 100;
        start -= 2;
        memcpy(digits + start, digit_pairs + 2 * pair, 2);
    }
    if (value >= 10) {
        start -= 2;
        memcpy(digits + start, digit_pairs + 2 * value, 2);
    }
    else {
        digits[--start] = (uint8_t)('0' + value);
    }
    memcpy(out, digits + start, sizeof digits - start);
    return sizeof digits - start;
}

static size_t write_signed(int64_t value, uint8_t *out)
{
    if (value >= 0)
        return write_unsigned((uint64_t)value, out);
    out[0] = '-';
    /* The magnitude in unsigned arithmetic: -INT64_MIN overflows int64. */
    return 1 + write_unsigned((uint64_t)0 - (uint64_t)value, out + 1);
}

/* Arrow's values are in the machine's byte order (data/arrow.h). */
static int64_t load_signed(const uint8_t *p, size_t width)
{
    switch (width) {
    case 1: {
        int8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static uint64_t load_unsigned(const uint8_t *p, size_t width)
{
    switch (width) {
    case 1:
        return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* ---- dates --------------------------------------------------------------------- */

/* 0001-01-01 and 9999-12-31, in days from 1970-01-01. */
#define FIRST_DAY (-719162)
#define LAST_DAY 2932896
#define MS_PER_DAY 86400000

/* The day of a date64 value, false when it is no whole day. */
static bool date64_day(int64_t ms, int64_t *day)
{
    if (ms % MS_PER_DAY != 0)
        return false;
    *day = ms / MS_PER_DAY;
    return true;
}

static void write_two(unsigned value, uint8_t *out)
{
    memcpy(out, digit_pairs + 2 * value, 2);
}

/* YYYY-MM-DD of a day from FIRST_DAY to LAST_DAY. The civil-from-days
 * conversion of the proleptic Gregorian calendar in eras of 400 years
 * (146,097 days), from Howard Hinnant's "chrono-Compatible Low-Level Date
 * Algorithms" (howardhinnant.github.io/date_algorithms.html); with days
 * from year 1 on, every quantity is non-negative. */
static size_t write_date(int64_t day, uint8_t *out)
{
    const int64_t z = day + 719468; /* days from 0000-03-01 */
    const int64_t era = z / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);                          /* [0, 146096] */
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    const unsigned mp = (5 * doy + 2) / 153;         /* [0, 11], from March */
    const unsigned d = doy - (153 * mp + 2) / 5 + 1; /* [1, 31] */
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;    /* [1, 12] */
    const unsigned y = (unsigned)(yoe + era * 400) + (m <= 2);
    write_two(y / 100, out);
    write_two(y % 100, out + 2);
    out[4] = '-';
    write_two(m, out + 5);
    out[7] = '-';
    write_two(d, out + 8);
    return 10;
}

/* ---- decimals ------------------------------------------------------------------ */

static bool little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* The text of a width-byte two's complement integer (the machine's byte
 * order, the whole integer: Arrow's decimals) divided by 10^scale. Its
 * magnitude, in 32-bit limbs, is divided by 10^9 until nothing is left; the
 * remainders are its digits, nine at a time, least significant first. */
static size_t write_decimal(const uint8_t *p, size_t width, int scale, uint8_t *out)
{
    /* Zeroed so that no compiler at any level sees a limb read unwritten:
     * the widths Arrow's decimals have (4, 8, 16, 32) fill at least one. */
    uint32_t limbs[8] = {0};
    const size_t count = width / 4;
    assert(count >= 1 && count <= sizeof limbs / sizeof limbs[0]);
    const bool little = little_endian();
    for (size_t i = 0; i < count; i++)
        limbs[i] = little ? fd_load_le32(p + 4 * i) : fd_load_be32(p + width - 4 * (i + 1));
    const bool negative = (limbs[count - 1] >> 31) != 0;
    if (negative) {
        uint32_t carry = 1;
        for (size_t i = 0; i < count; i++) {
            limbs[i] = ~limbs[i] + carry;
            carry = carry && limbs[i] == 0;
        }
    }

    uint8_t digits[81]; /* 9 groups of 9 */
    size_t start = sizeof digits;
    size_t top = count; /* limbs below top may be non-zero */
    while (top > 0 && limbs[top - 1] == 0)
        top--;
    do {
        uint64_t remainder = 0;
        for (size_t i = top; i-- > 0;) {
            const uint64_t current = remainder << 32 | limbs[i];
            limbs[i] = (uint32_t)(current / 1000000000u);
            remainder = current % 1000000000u;
        }
        while (top > 0 && limbs[top - 1] == 0)
            top--;
        /* Nine digits, or only as many as there are in the last group. */
        uint32_t group = (uint32_t)remainder;
        for (int k = 0; k < 9 && (top > 0 || group != 0 || k == 0); k++) {
            digits[--start] = (uint8_t)('0' + group % 10);
            group /= 10;
        }
    } while (top > 0);

    const size_t n = sizeof digits - start;
    const size_t fraction = (size_t)scale;
    size_t len = 0;
    if (negative)
        out[len++] = '-';
    if (n > fraction) {
        memcpy(out + len, digits + start, n - fraction);
        len += n - fraction;
    }
    else {
        out[len++] = '0';
    }
    if (fraction > 0) {
        out[len++] = '.';
        if (n < fraction) {
            memset(out + len, '0', fraction - n);
            len += fraction - n;
        }
        const size_t shown = n < fraction ? n : fraction;
        memcpy(out + len, digits + start + (n - shown), shown);
        len += shown;
    }
    return len;
}

/* ---- one value ----------------------------------------------------------------- */

bool fd_text_of_value(const fd_flat_column *column, size_t row, uint8_t *scratch,
                      const uint8_t **text, size_t *len)
{
    const fd_arrow_column *rows = &column->rows;
    const size_t width = column->type.width;
    /* Fixed-width values; a string's positions are its offsets or views. */
    const uint8_t *value = rows->positions + (width != 0 ? (rows->first + row) * width : 0);
    *text = scratch;
    switch (column->type.kind) {
    case FD_FLAT_STRING:
        fd_arrow_row_bytes(rows, row, text, len);
        return true;
    case FD_FLAT_BOOL:
        if (fd_arrow_bit_is_set(rows->positions, rows->first + row)) {
            memcpy(scratch, "true", 4);
            *len = 4;
        }
        else {
            memcpy(scratch, "false", 5);
            *len = 5;
        }
        return true;
    case FD_FLAT_SIGNED:
        *len = write_signed(load_signed(value, width), scratch);
        return true;
    case FD_FLAT_UNSIGNED:
        *len = write_unsigned(load_unsigned(value, width), scratch);
        return true;
    case FD_FLAT_DATE32:
    case FD_FLAT_DATE64: {
        int64_t day = load_signed(value, width);
        if (column->type.kind == FD_FLAT_DATE64 && !date64_day(day, &day))
            return false;
        if (day < FIRST_DAY || day > LAST_DAY)
            return false;
        *len = write_date(day, scratch);
        return true;
    }
    case FD_FLAT_DECIMAL:
        *len = write_decimal(value, width, column->type.scale, scratch);
        return true;
    case FD_FLAT_NULL:
    case FD_FLAT_BINARY:
        break;
    }
    *len = 0; /* refused by fd_text_refusal, never asked */
    return false;
}

void fd_text_describe_refused(const fd_flat_column *column, size_t row, char *out, size_t size)
{
    const fd_arrow_column *rows = &column->rows;
    const int64_t value = load_signed(rows->positions + (rows->first + row) * column->type.width,
                                      column->type.width);
    if (column->type.kind == FD_FLAT_DATE64 && value % MS_PER_DAY != 0)
        snprintf(out, size, "the date64 value %lld is no whole day (a multiple of %d ms)",
                 (long long)value, MS_PER_DAY);
    else
        snprintf(out, size,
                 "the date %lld days from 1970-01-01 is outside years 1 to 9999, where DuckDB, "
                 "PostgreSQL and Spark write dates differently",
                 (long long)(column->type.kind == FD_FLAT_DATE64 ? value / MS_PER_DAY : value));
}
