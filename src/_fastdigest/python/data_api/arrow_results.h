/* digest_array's results (arrow_results.c): DigestArray, over the digests
 * of one Arrow array, and DigestStream, over those of every array of a
 * stream, one digest column (data/arrow_hash.h) a chunk. python/data_api/arrow.c
 * builds them; the export methods hand out their buffers. */
#ifndef FD_PYTHON_ARROW_RESULTS_H
#define FD_PYTHON_ARROW_RESULTS_H

#include "python/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow_hash.h"

typedef struct {
    PyObject_HEAD
    enum fd_algorithm_id id;
    bool hex;
    bool large; /* hex with int64 offsets */
    char *name; /* the input column's name, NULL if none */
    fd_digest_column **chunks;
    size_t chunk_count; /* 1 for a DigestArray */
    int64_t length;
    int64_t null_count;
} fd_digests_object;

/* A new result object of type (the module state's digest_array_type or
 * digest_stream_type), holding no chunks yet, with a copy of the column's
 * name (NULL: none). Returns NULL with an exception set when memory runs
 * out. */
fd_digests_object *fd_digests_new(PyTypeObject *type, enum fd_algorithm_id id, bool hex,
                                  const char *name);

/* Appends a chunk, taking over its reference (also when this fails).
 * *capacity is the caller's count of chunk slots allocated so far (0 for a
 * new object). Returns 0, or -1 with MemoryError set. */
int fd_digests_add_chunk(fd_digests_object *self, fd_digest_column *digests, size_t *capacity);

/* Makes the two result types and adds them to the module and its state.
 * Returns 0, or -1 with an exception set. */
int fd_digests_add_types(PyObject *module, fd_module_state *state);

#endif /* FD_PYTHON_ARROW_RESULTS_H */
