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

/* Copies len bytes with moves of fixed sizes that overlap where len falls
 * between them: for short runs, which memcpy of a length known only at run
 * time copies in a call. From 8 to 32 bytes, four moves of 8 whose places
 * are picked without a branch, as a run of words' lengths would mispredict
 * one. */
static inline void fd_copy_short(uint8_t *to, const uint8_t *from, size_t len)
{
    if (len >= 8 && len <= 32) {
        const size_t second = len < 16 ? len - 8 : 8;
        const size_t third = len > 16 ? len - 16 : 0;
        memcpy(to, from, 8);
        memcpy(to + second, from + second, 8);
        memcpy(to + third, from + third, 8);
        memcpy(to + len - 8, from + len - 8, 8);
    }
    else if (len > 32) {
        memcpy(to, from, len);
    }
    else if (len >= 4) {
        memcpy(to, from, 4);
        memcpy(to + len - 4, from + len - 4, 4);
    }
    else if (len > 0) {
        to[0] = from[0];
        to[len / 2] = from[len / 2];
        to[len - 1] = from[len - 1];
    }
}

static inline void fd_sink_byte(fd_sink *sink, uint8_t byte)
{
    if (sink->used == sink->capacity)
        sink->make_room(sink);
    sink->buffer[sink->used++] = byte;
}

#endif /* FD_CORE_BYTE_SINK_H */
