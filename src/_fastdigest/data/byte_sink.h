/* Where an encoder writes the bytes of a row (data/arrow_encode.h, and any
 * other encoder that fd_digest_column_hash drives): a buffer with room for
 * `capacity` bytes, and a callback that makes room when it is full. The
 * writer does not know what making room means (arrow_hash.c hashes the
 * rows written so far, or streams a row that outgrew the buffer into a
 * hash state), so an encoder's output has no length limit and its working
 * set is the buffer. Plain C: no Python.h. */
#ifndef FD_CORE_BYTE_SINK_H
#define FD_CORE_BYTE_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fd_sink fd_sink;

struct fd_sink {
    uint8_t *buffer;
    size_t used;
    size_t capacity;
    /* Called when used == capacity; returns with used < capacity. */
    void (*make_room)(fd_sink *sink);
};

static inline void fd_sink_write_slow(fd_sink *sink, const uint8_t *bytes, size_t len)
{
    while (len > 0) {
        if (sink->used == sink->capacity)
            sink->make_room(sink);
        size_t room = sink->capacity - sink->used;
        size_t n = len < room ? len : room;
        memcpy(sink->buffer + sink->used, bytes, n);
        sink->used += n;
        bytes += n;
        len -= n;
    }
}

/* Appends len bytes (bytes may be NULL when len is 0). */
static inline void fd_sink_write(fd_sink *sink, const void *bytes, size_t len)
{
    if (len <= sink->capacity - sink->used) {
        if (len != 0)
            memcpy(sink->buffer + sink->used, bytes, len);
        sink->used += len;
        return;
    }
    fd_sink_write_slow(sink, bytes, len);
}

/* Where n more bytes can be written in place (then fd_sink_advance(sink,
 * n)), or NULL when the buffer has less room: the caller writes them with
 * fd_sink_write instead. For the short values an encoder writes most. */
static inline uint8_t *fd_sink_room(fd_sink *sink, size_t n)
{
    return n <= sink->capacity - sink->used ? sink->buffer + sink->used : NULL;
}

static inline void fd_sink_advance(fd_sink *sink, size_t n)
{
    sink->used += n;
}

static inline void fd_sink_byte(fd_sink *sink, uint8_t byte)
{
    if (sink->used == sink->capacity)
        sink->make_room(sink);
    sink->buffer[sink->used++] = byte;
}

#endif /* FD_CORE_BYTE_SINK_H */
