/* The bytes hashed for Arrow values (arrow_encode.c): the encoding that
 * docs/encoding.md defines, version FD_ARROW_ENCODING_VERSION, for every
 * type the import reads (data/arrow_import.h), and the two row sources that
 * the hashing driver (data/arrow_hash.h) takes from it: digest_array's
 * (each value of a column, a string's bytes in place) and digest_rows'
 * (each row of a table, its fields framed). The encoding is written to a
 * byte sink (data/byte_sink.h), so values of any size need no buffer of
 * their own. Plain C: no Python.h.
 *
 * In short (the page says it all, with the reasons): value(v) is the bytes
 * of one non-null value, which digest_array hashes: a string's or binary's
 * own bytes, an integer's as int64 or uint64, a float's as a canonical
 * float64, a decimal's unscaled integer in the fewest big-endian bytes,
 * times and instants as nanoseconds; a list's count and elements, a
 * struct's fields. field(v) is what a nested value or a row holds: 00 for
 * a null, else 01 and value(v), with its length before it (uint64) where
 * the type does not fix it. A row is the field() of each of its columns. */
#ifndef FD_CORE_ARROW_ENCODE_H
#define FD_CORE_ARROW_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow_hash.h"
#include "data/arrow_import.h"
#include "data/byte_sink.h"

/* The version of docs/encoding.md these functions write. */
#define FD_ARROW_ENCODING_VERSION 2

/* Writes value(v) of value index of leaf, an array fd_arrow_resolve
 * returned for it (so not null, not a dictionary or run-end array). */
void fd_arrow_encode_value(const fd_arrow_array *leaf, int64_t index, fd_sink *sink);

/* Writes field(v) of value index of array (any type: dictionaries and run
 * ends are followed, a null value is 00). */
void fd_arrow_encode_field(const fd_arrow_array *array, int64_t index, fd_sink *sink);

/* digest_array's rows: row i (i < length) is value first + i of column,
 * null where that value is (fd_arrow_resolve) or where row i of parent is
 * (a struct whose one field is column: a one-column table or record batch;
 * NULL for none), else hashed as value(v), a string's or binary's bytes in
 * place. Without a parent, a value that is a struct of one field, in any
 * layout (plain, dictionary-encoded, run-end encoded), is its field's
 * value, null where the field is: a one-field struct hashes as its field
 * whatever its layout (encoding.md, version 2). Fills source over rows,
 * which must outlive its use. */
typedef struct fd_arrow_column_rows {
    const fd_arrow_array *column;
    int64_t first;
    const fd_arrow_array *parent;
    size_t length;
} fd_arrow_column_rows;

void fd_arrow_column_source(const fd_arrow_column_rows *rows, fd_row_source *source);

/* digest_rows' rows: row i of table, a struct (a table's or record batch's
 * columns, those fd_arrow_import_type kept, in order), is the field() of
 * each of its children's value table->offset + i, concatenated; where the
 * struct's own row i is null, each field is null (00). No row is null. */
void fd_arrow_table_source(const fd_arrow_array *table, fd_row_source *source);

#endif /* FD_CORE_ARROW_ENCODE_H */
