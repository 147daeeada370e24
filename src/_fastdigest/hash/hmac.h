/* HMAC (RFC 2104) and PBKDF2-HMAC (RFC 8018, 5.2) over every algorithm of
 * algorithms.h. Plain C: no Python.h.
 *
 * HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), where K' is the key
 * zero-padded to one block (hashed first when longer than a block). Both
 * keyed prefixes are exactly one block, so the inner and outer hash states
 * after absorbing them are computed once per key and then only copied: that
 * is what fd_hmac_state holds. */
#ifndef FD_HMAC_H
#define FD_HMAC_H

#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"
#include "dispatch/dispatch.h"

typedef struct fd_hmac_state {
    const fd_algorithm *algorithm;
    /* The inner hash: after the block K' ^ ipad, then fed the message. */
    fd_hash_state inner;
    /* The outer hash after the block K' ^ opad: never changed after keying,
     * finalization runs on a copy of it. */
    fd_hash_state outer;
} fd_hmac_state;

/* Keys hmac for algorithm id; key may be NULL when key_len is 0, and may be
 * of any length. Cannot fail. */
void fd_hmac_init(fd_hmac_state *hmac, enum fd_algorithm_id id, const uint8_t *key, size_t key_len);

/* Feeds len bytes of the message; data may be NULL when len is 0. */
void fd_hmac_update(fd_hmac_state *hmac, const uint8_t *data, size_t len);

/* Writes the algorithm's digest_len bytes of MAC over everything fed so far.
 * hmac itself is not changed, so more data may follow. */
void fd_hmac_final(const fd_hmac_state *hmac, uint8_t *out);

/* Overwrites the key-derived states; call it before hmac's memory is
 * released or reused. */
void fd_hmac_wipe(fd_hmac_state *hmac);

/* One-shot HMAC: out receives fd_algorithms[id].digest_len bytes. Leaves no
 * key-derived data behind on the stack. */
void fd_hmac(enum fd_algorithm_id id, const uint8_t *key, size_t key_len, const uint8_t *data,
             size_t len, uint8_t *out);

/* fd_hmac with `kernel`, a single-stream kernel of the algorithm's family,
 * in place of the active one (hash/algorithms.h's fd_hash_with says
 * why): nothing global is read or written. The caller guarantees the CPU
 * has kernel->required_features. */
void fd_hmac_with(const fd_kernel *kernel, enum fd_algorithm_id id, const uint8_t *key,
                  size_t key_len, const uint8_t *data, size_t len, uint8_t *out);

/* PBKDF2 with HMAC over algorithm id (RFC 8018, 5.2): writes out_len bytes
 * of derived key to out.
 *
 * Requires iterations >= 1 and 1 <= out_len <= (2^32 - 1) * digest_len (the
 * RFC's limit; hashlib's INT_MAX cap on out_len is far below it). password
 * and salt may be NULL when their length is 0. Cannot fail.
 *
 * Each iteration after the first is exactly two compressions of one block
 * that was padded once, by the family's active kernel (fd_active_kernels):
 * its own PBKDF2 loop where it has one (SHA-NI), with the digest kept in
 * registers, or else two calls of its compress function. Output blocks are
 * derived side by side, several per loop, through the kernel's PBKDF2 lanes
 * (fd_kernel.pbkdf2_lanes) or else, when enough blocks are left, the
 * family's multi-buffer kernel (fd_active_multi_kernels). Nothing is
 * buffered, allocated or finalized in the loops, and no key-derived data is
 * left on the stack. */
void fd_pbkdf2_hmac(enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                    const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                    size_t out_len);

/* fd_pbkdf2_hmac with `kernel` and `multi` (a multi-buffer kernel of the
 * family, or NULL for none) in place of the active ones, as fd_hmac_with. */
void fd_pbkdf2_hmac_with(const fd_kernel *kernel, const fd_multi_kernel *multi,
                         enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                         const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                         size_t out_len);

#endif /* FD_HMAC_H */
