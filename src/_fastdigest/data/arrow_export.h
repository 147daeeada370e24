/* The export of digest columns (arrow_export.c) through the C Data and
 * Stream Interfaces (data/arrow.h): arrays, schemas and streams over the
 * column's own buffers, each with the release callback that drops what it
 * holds. Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_EXPORT_H
#define FD_CORE_ARROW_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/algorithms.h"
#include "data/arrow.h"
#include "data/arrow_hash.h"

/* Fills out with a new array over digests (one more reference, dropped by
 * out->release): no copy. Returns false when memory runs out. */
bool fd_digest_column_export(fd_digest_column *digests, struct ArrowArray *out);

/* Fills out with the schema of a digest column: fixed_size_binary
 * ("w:<digest_len>"), or utf8 "u" / large_utf8 "U" for hex; nullable; name
 * copied (NULL for none). Returns false when memory runs out. */
bool fd_digest_schema_export(enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowSchema *out);

/* Fills out with a stream yielding an array over each of digests[0..count)
 * in turn, each of that schema (one more reference to each column, dropped
 * by out->release). Returns false when memory runs out. */
bool fd_digest_stream_export(fd_digest_column *const *digests, size_t count,
                             enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowArrayStream *out);

#endif /* FD_CORE_ARROW_EXPORT_H */
