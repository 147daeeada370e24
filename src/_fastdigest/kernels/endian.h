/* Byte-order helpers for the hash cores.
 *
 * Every load and store goes through bytes and shifts, never through a cast of
 * a byte pointer to a wider type: input buffers come from Python at any
 * alignment, and the same code must be right on big- and little-endian CPUs.
 * GCC and Clang recognise these patterns and emit a single (byte-swapping)
 * move where the target allows it. */
#ifndef FD_ENDIAN_H
#define FD_ENDIAN_H

#include <stdint.h>

static inline uint32_t fd_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t fd_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t fd_load_le64(const uint8_t *p)
{
    return (uint64_t)fd_load_le32(p + 4) << 32 | fd_load_le32(p);
}

static inline uint64_t fd_load_be64(const uint8_t *p)
{
    return (uint64_t)fd_load_be32(p) << 32 | fd_load_be32(p + 4);
}

static inline void fd_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void fd_store_le64(uint8_t *p, uint64_t v)
{
    fd_store_le32(p, (uint32_t)v);
    fd_store_le32(p + 4, (uint32_t)(v >> 32));
}

static inline void fd_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void fd_store_be64(uint8_t *p, uint64_t v)
{
    fd_store_be32(p, (uint32_t)(v >> 32));
    fd_store_be32(p + 4, (uint32_t)v);
}

static inline uint32_t fd_rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> ((32 - n) & 31));
}

static inline uint32_t fd_rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

static inline uint64_t fd_rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << ((64 - n) & 63));
}

#endif /* FD_ENDIAN_H */
