/* The text of a value (arrow_text.c), as DuckDB, PostgreSQL and Spark all
 * write it when SQL casts it to a string (`cast(x as TEXT)`, `cast(x as
 * string)`), for surrogate_key (data/arrow_surrogate.h): one encoder per
 * flat type of arrow_flat.h, each writing the engines' text of one value.
 *
 *   strings    their UTF-8 bytes, as they are
 *   integers   decimal digits, '-' before a negative number: -128,
 *              18446744073709551615 (every width, signed and unsigned)
 *   booleans   true, false
 *   dates      YYYY-MM-DD, from 0001-01-01 to 9999-12-31
 *   decimals   the digits with exactly scale digits after a '.', and a
 *              '0' before it when the integer part is zero: 1.50, -0.50,
 *              0.00, 5 (scale 0)
 *
 * Everything else is refused (fd_text_refusal says why): where the engines
 * write a type differently, no key can equal all three. Dates outside years
 * 1 to 9999 are refused row by row (DuckDB writes year 10000 as 10000-01-01,
 * Spark as +10000-01-01; before year 1 DuckDB writes '(BC)', PostgreSQL
 * 'BC', Spark a year 0), as are date64 values that are no whole day.
 * Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_TEXT_H
#define FD_CORE_ARROW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow_flat.h"

/* The longest text of a value that is not a string: a decimal256's 77
 * digits (76 of precision, or 78 that fit its bits), a sign, a point. */
#define FD_TEXT_MAX_LEN 80

/* NULL when the three engines write every value of type alike (dates and
 * date64 values checked row by row), else why they do not, for a
 * TypeError: a phrase ("DuckDB writes ..."). */
const char *fd_text_refusal(const fd_flat_type *type);

/* Why a column of an Arrow format that is not a flat type (a float, a
 * timestamp, a list, ...) has no text the engines agree on, as a phrase. */
const char *fd_text_refusal_of_format(const char *format);

/* The text of row, not null, of a column whose type fd_text_refusal
 * accepted: a string's bytes in place (*text points into the column's
 * buffers; NULL when *len is 0), anything else written to scratch
 * (FD_TEXT_MAX_LEN bytes) with *text pointing there. Returns false for a
 * value whose text the engines write differently (a date outside years 1 to
 * 9999, a date64 that is not a whole day). Allocates nothing; any thread. */
bool fd_text_of_value(const fd_flat_column *column, size_t row, uint8_t *scratch,
                      const uint8_t **text, size_t *len);

/* What fd_text_of_value refused at row, for a ValueError: a phrase naming
 * the value, in out (size bytes). */
void fd_text_describe_refused(const fd_flat_column *column, size_t row, char *out, size_t size);

#endif /* FD_CORE_ARROW_TEXT_H */
