/* Every algorithm of the family table (FD_ALGORITHMS, kernels/kernel.h)
 * behind one descriptor, so that the Python binding, the C test driver and
 * the tools drive every algorithm through the same code. Everything here is
 * plain C: no Python.h. */
#ifndef FD_ALGORITHMS_H
#define FD_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/family.h"
#include "dispatch/dispatch.h"
#include "kernels/compiler.h"
#include "kernels/kernel.h"

/* Every algorithm of FD_ALGORITHMS (kernels/kernel.h), by id: FD_NAME. */
#define FD_ALGORITHM_ENUMERATOR(name, NAME, ...) FD_##NAME,
enum fd_algorithm_id { FD_ALGORITHMS(FD_ALGORITHM_ENUMERATOR) FD_ALGORITHM_COUNT };
#undef FD_ALGORITHM_ENUMERATOR

typedef struct fd_algorithm {
    const char *name;      /* hashlib's name: "md5", "sha512_224", ... */
    enum fd_family family; /* whose compress kernel it runs */
    size_t digest_len;
    size_t block_len;
    size_t state_len; /* the bytes of fd_hash_state this algorithm uses */
    /* block_len and state_len are its family's (fd_family(family)), kept
     * here for the binding. */
    void (*init)(fd_hash_state *state);
    /* data may be NULL when len is 0. */
    void (*update)(fd_hash_state *state, const uint8_t *data, size_t len);
    /* Writes digest_len bytes and leaves state padded: finalize a copy to
     * keep hashing. */
    void (*final)(fd_hash_state *state, uint8_t *out);
} fd_algorithm;

extern const fd_algorithm fd_algorithms[FD_ALGORITHM_COUNT];

/* The digest length of an algorithm of `family` whose descriptor says
 * digest_len: the one length of the family's algorithms where they all have
 * the same (MD5, SHA-1), so that code instantiated with a constant family
 * (hash/batch.c, hash/hmac.c) stores those digests with loops of constant
 * length; digest_len itself for the families of several lengths. */
static FD_ALWAYS_INLINE size_t fd_family_digest_len(enum fd_family family, size_t digest_len)
{
    size_t one_len = 0;
    bool several = false;

#define FD_DIGEST_LEN_OF_FAMILY(algorithm, ALGORITHM, family_name, FAMILY, len, ...) \
    if (family == FD_FAMILY_##FAMILY) {                                              \
        several = several || (one_len != 0 && one_len != (len));                     \
        one_len = (len);                                                             \
    }
    FD_ALGORITHMS(FD_DIGEST_LEN_OF_FAMILY)
#undef FD_DIGEST_LEN_OF_FAMILY
    return several ? digest_len : one_len;
}

/* One-shot: out receives fd_algorithms[id].digest_len bytes. */
void fd_hash(enum fd_algorithm_id id, const uint8_t *data, size_t len, uint8_t *out);

/* A descriptor's update and final, and the one-shot, with `kernel`, a
 * single-stream kernel of the algorithm's family, in place of the family's
 * active one: the known-answer checks and the self-test (hash/
 * known_answers.h) run a kernel so without installing it, so that other
 * threads hashing meanwhile keep theirs. They read and write nothing
 * global. The caller guarantees the CPU has kernel->required_features. */
void fd_update_with(const fd_kernel *kernel, const fd_algorithm *algorithm, fd_hash_state *state,
                    const uint8_t *data, size_t len);
void fd_final_with(const fd_kernel *kernel, const fd_algorithm *algorithm, fd_hash_state *state,
                   uint8_t *out);
void fd_hash_with(const fd_kernel *kernel, enum fd_algorithm_id id, const uint8_t *data, size_t len,
                  uint8_t *out);

/* Overwrites len bytes in a way the compiler may not elide, for wiping
 * states that held secret-derived data. */
void fd_secure_zero(void *p, size_t len);

#endif /* FD_ALGORITHMS_H */
