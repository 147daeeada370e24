/* The export of digest columns (arrow_export.h): each exported array,
 * schema and stream owns a small block (its buffers' pointers, its format
 * and name) that its release callback frees, with the references it holds. */
#include "data/arrow_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/arrow_digest_column.h"

typedef struct exported_array {
    fd_digest_column *digests;
    const void *buffers[3];
} exported_array;

static void release_exported_array(struct ArrowArray *array)
{
    exported_array *exported = array->private_data;
    fd_digest_column_unref(exported->digests);
    free(exported);
    array->release = NULL;
}

bool fd_digest_column_export(fd_digest_column *digests, struct ArrowArray *out)
{
    exported_array *exported = malloc(sizeof *exported);
    if (exported == NULL)
        return false;
    exported->digests = digests;
    exported->buffers[0] = digests->validity;
    int64_t n_buffers;
    if (digests->hex) {
        exported->buffers[1] = digests->offsets;
        exported->buffers[2] = digests->values;
        n_buffers = 3;
    }
    else {
        exported->buffers[1] = digests->values;
        exported->buffers[2] = NULL;
        n_buffers = 2;
    }
    fd_digest_column_ref(digests);
    *out = (struct ArrowArray){
        .length = digests->length,
        .null_count = digests->null_count,
        .offset = 0,
        .n_buffers = n_buffers,
        .n_children = 0,
        .buffers = exported->buffers,
        .children = NULL,
        .dictionary = NULL,
        .release = release_exported_array,
        .private_data = exported,
    };
    return true;
}

typedef struct exported_schema {
    char format[24];
    char *name;
} exported_schema;

static void release_exported_schema(struct ArrowSchema *schema)
{
    exported_schema *exported = schema->private_data;
    free(exported->name);
    free(exported);
    schema->release = NULL;
}

/* A heap copy of a C string (strdup is POSIX, not C11); NULL stays NULL.
 * Returns false when memory runs out. */
static bool copy_string(const char *string, char **copy)
{
    *copy = NULL;
    if (string == NULL)
        return true;
    size_t len = strlen(string) + 1;
    *copy = malloc(len);
    if (*copy == NULL)
        return false;
    memcpy(*copy, string, len);
    return true;
}

bool fd_digest_schema_export(enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowSchema *out)
{
    exported_schema *exported = malloc(sizeof *exported);
    if (exported == NULL)
        return false;
    if (!copy_string(name, &exported->name)) {
        free(exported);
        return false;
    }
    if (hex)
        strcpy(exported->format, large ? "U" : "u");
    else
        snprintf(exported->format, sizeof exported->format, "w:%zu", fd_algorithms[id].digest_len);
    *out = (struct ArrowSchema){
        .format = exported->format,
        .name = exported->name,
        .metadata = NULL,
        .flags = ARROW_FLAG_NULLABLE,
        .n_children = 0,
        .children = NULL,
        .dictionary = NULL,
        .release = release_exported_schema,
        .private_data = exported,
    };
    return true;
}

typedef struct exported_stream {
    fd_digest_column **digests;
    size_t count;
    size_t next;
    enum fd_algorithm_id id;
    bool hex;
    bool large;
    char *name;
    bool out_of_memory; /* what the last failed call ran into */
} exported_stream;

static int stream_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    exported_stream *exported = stream->private_data;
    if (!fd_digest_schema_export(exported->id, exported->hex, exported->large, exported->name,
                                 out)) {
        exported->out_of_memory = true;
        return ENOMEM;
    }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    exported_stream *exported = stream->private_data;
    if (exported->next == exported->count) {
        out->release = NULL; /* the end of the stream */
        return 0;
    }
    if (!fd_digest_column_export(exported->digests[exported->next], out)) {
        exported->out_of_memory = true;
        return ENOMEM;
    }
    exported->next++;
    return 0;
}

static const char *stream_get_last_error(struct ArrowArrayStream *stream)
{
    exported_stream *exported = stream->private_data;
    return exported->out_of_memory ? "out of memory" : NULL;
}

static void release_exported_stream(struct ArrowArrayStream *stream)
{
    exported_stream *exported = stream->private_data;
    for (size_t i = 0; i < exported->count; i++)
        fd_digest_column_unref(exported->digests[i]);
    free(exported->digests);
    free(exported->name);
    free(exported);
    stream->release = NULL;
}

bool fd_digest_stream_export(fd_digest_column *const *digests, size_t count,
                             enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowArrayStream *out)
{
    exported_stream *exported = calloc(1, sizeof *exported);
    if (exported == NULL)
        return false;
    exported->digests = malloc(count * sizeof *exported->digests + 1);
    if (exported->digests == NULL || !copy_string(name, &exported->name)) {
        free(exported->digests);
        free(exported);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        exported->digests[i] = digests[i];
        fd_digest_column_ref(digests[i]);
    }
    exported->count = count;
    exported->id = id;
    exported->hex = hex;
    exported->large = large;
    *out = (struct ArrowArrayStream){
        .get_schema = stream_get_schema,
        .get_next = stream_get_next,
        .get_last_error = stream_get_last_error,
        .release = release_exported_stream,
        .private_data = exported,
    };
    return true;
}
