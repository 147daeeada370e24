/* The eight algorithms behind one descriptor, so that the Python binding, the
 * C test driver and the tools drive every algorithm through the same code.
 * Everything here is plain C: no Python.h. */
#ifndef FD_ALGORITHMS_H
#define FD_ALGORITHMS_H

#include <stddef.h>
#include <stdint.h>

#include "core/md5.h"
#include "core/sha1.h"
#include "core/sha256.h"
#include "core/sha512.h"
#include "kernels/kernel.h"

#define FD_MAX_DIGEST_LEN FD_SHA512_DIGEST_LEN
#define FD_MAX_BLOCK_LEN FD_SHA512_BLOCK_LEN

enum fd_algorithm_id {
    FD_MD5,
    FD_SHA1,
    FD_SHA224,
    FD_SHA256,
    FD_SHA384,
    FD_SHA512,
    FD_SHA512_224,
    FD_SHA512_256,
    FD_ALGORITHM_COUNT
};

/* Big enough for any algorithm's state; an algorithm uses its own member. */
typedef union fd_hash_state {
    fd_md5_state md5;
    fd_sha1_state sha1;
    fd_sha256_state sha256;
    fd_sha512_state sha512;
} fd_hash_state;

typedef struct fd_algorithm {
    const char *name;      /* hashlib's name: "md5", "sha512_224", ... */
    enum fd_family family; /* whose compress kernel it runs */
    size_t digest_len;
    size_t block_len;
    size_t state_len; /* the bytes of fd_hash_state this algorithm uses */
    void (*init)(fd_hash_state *state);
    /* data may be NULL when len is 0. */
    void (*update)(fd_hash_state *state, const uint8_t *data, size_t len);
    /* Writes digest_len bytes and leaves state padded: finalize a copy to
     * keep hashing. */
    void (*final)(fd_hash_state *state, uint8_t *out);
} fd_algorithm;

extern const fd_algorithm fd_algorithms[FD_ALGORITHM_COUNT];

/* One-shot: out receives fd_algorithms[id].digest_len bytes. */
void fd_hash(enum fd_algorithm_id id, const uint8_t *data, size_t len, uint8_t *out);

/* Overwrites len bytes in a way the compiler may not elide, for wiping
 * states that held secret-derived data. */
void fd_secure_zero(void *p, size_t len);

#endif /* FD_ALGORITHMS_H */
