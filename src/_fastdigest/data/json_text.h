/* The texts of JSON values as Python's json module writes them, for
 * json_digest's walk over the Python objects, whose walker
 * (python/data_api/json_walker.c) writes each value's text here into a
 * byte sink (data/byte_sink.h) that hashes what it is given: strings,
 * integers and floats, in UTF-8, the bytes of `json.dumps(...).encode()`.
 * Plain C: no Python.h, so that the fuzzer (tests/fuzz/fuzz_json.c) runs
 * it without an interpreter. */
#ifndef FD_DATA_JSON_TEXT_H
#define FD_DATA_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/byte_sink.h"

/* Writes the JSON string literal of a text, its quotes included: `length`
 * code points of `kind` bytes each (1, 2 or 4, as CPython stores a str:
 * Latin-1, UCS-2, UCS-4) at `data` (NULL when length is 0), as json's
 * encoders write it and str.encode() then encodes it in UTF-8.
 *
 * ensure_ascii: as json.encoder.encode_basestring_ascii, every code point
 * outside ' '..'~' is escaped (\" \\ \b \f \n \r \t, else \u00XX with
 * lowercase hexadecimal digits, a code point above U+FFFF as the \uXXXX
 * escapes of its UTF-16 surrogate pair), and so is every '"' and '\'.
 * Else, as encode_basestring: only '"', '\' and the code points below
 * U+0020 are escaped, in the same words, and every other code point is
 * written in UTF-8.
 *
 * Returns true; or false, in UTF-8 only, at the first surrogate code point
 * (U+D800..U+DFFF), which str.encode() refuses: the sink then holds part
 * of the literal. */
bool fd_json_write_string(fd_sink *sink, const void *data, size_t length, unsigned kind,
                          bool ensure_ascii);

/* The most bytes fd_json_format_int and fd_json_format_double write. */
#define FD_JSON_NUMBER_MAX 32

/* Writes value in decimal, as int.__repr__ does, to out; returns the
 * length. */
size_t fd_json_format_int(int64_t value, char *out);

/* Writes a finite double as float.__repr__ writes it (the shortest digits
 * that read back as the same double, the nearest to it where several are
 * as short, '.0' after a whole number, fixed notation from 1e-4 to below
 * 1e16 and an exponent outside), to out, for both zeros and any double
 * whose magnitude lies from 1e-4 to below 1e15 but for rare ties: where
 * data's floats lie, and where exact arithmetic of at most 128 bits finds
 * those digits. Returns the length; or 0 for any other double, whose text
 * the caller gets from CPython's own float repr. */
size_t fd_json_format_double(double value, char *out);

/* Compares two texts by code point, as Python compares str: < 0, 0 or > 0.
 * Kinds and data as for fd_json_write_string. */
int fd_json_compare_text(const void *a, size_t a_length, unsigned a_kind, const void *b,
                         size_t b_length, unsigned b_kind);

#endif /* FD_DATA_JSON_TEXT_H */
