/* Batch hashing: many independent messages in one call (digest_many).
 *
 * A single message is bound by the latency of its compression's dependency
 * chain; independent messages are not. A multi-buffer kernel runs the
 * compressions of several messages side by side, in separate SIMD lanes
 * (AVX2: 8 MD5 or 4 SHA-512 lanes; AVX-512: 16 MD5, SHA-1 or SHA-256 lanes,
 * 8 SHA-512 lanes) or interleaved two at a time through the SHA extensions,
 * whose round instructions leave one stream waiting on their latency (SHA-1,
 * SHA-256). The batch driver (batch.c) feeds the lanes and hashes what is
 * left with the single-stream kernel of fd_active_kernels.
 *
 * Plain C: no Python.h. The kernel files are the only ones that include
 * intrinsics; each exists in the build under its FD_HAVE_* macro below, and
 * -DFD_NO_MULTI_BUFFER leaves all of them out (as do the instruction sets'
 * own opt-outs, FD_NO_SHANI, FD_NO_AVX2, FD_NO_AVX512). */
#ifndef FD_BATCH_H
#define FD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms.h"
#include "cpu.h"
#include "kernels_x86.h"

/* One message of a batch: len bytes at data (data may be NULL when len is
 * 0), and where its digest goes (fd_algorithms[id].digest_len bytes). */
typedef struct fd_message {
    const uint8_t *data;
    size_t len;
    uint8_t *digest;
} fd_message;

/* Writes the digest of every messages[i], i < count, to messages[i].digest,
 * with the multi-buffer kernel of fd_active_multi_kernels and the
 * single-stream kernel of fd_active_kernels. Cannot fail; allocates nothing;
 * safe to call from many threads at once once the kernels are selected. */
void fd_hash_many(enum fd_algorithm_id id, const fd_message *messages, size_t count);

/* ---- multi-buffer kernels ---------------------------------------------- */

/* The most lanes any kernel has, and so the most messages in flight. */
#define FD_BATCH_MAX_LANES 16

/* Compresses nblocks consecutive blocks from blocks[lane] (any alignment)
 * into chains[lane] for each of the kernel's lanes: every lane advances by
 * the same number of blocks. Chains are in FIPS order, as for the
 * single-stream kernels. */
typedef void fd_md5_blocks_multi_fn(uint32_t (*chains)[4], const uint8_t *const *blocks,
                                    size_t nblocks);
typedef void fd_sha1_blocks_multi_fn(uint32_t (*chains)[5], const uint8_t *const *blocks,
                                     size_t nblocks);
typedef void fd_sha256_blocks_multi_fn(uint32_t (*chains)[8], const uint8_t *const *blocks,
                                       size_t nblocks);
typedef void fd_sha512_blocks_multi_fn(uint64_t (*chains)[8], const uint8_t *const *blocks,
                                       size_t nblocks);

typedef struct fd_multi_kernel {
    const char *name; /* "shani_x2", "avx2_x8", ... */
    uint32_t required_features;
    unsigned lanes; /* 2..FD_BATCH_MAX_LANES */
    /* At the end of a batch, the fewest busy lanes for which a call of this
     * kernel, idle lanes included, still beats hashing the busy lanes' messages
     * one at a time: lanes divided by the kernel's speed-up over the
     * single-stream kernel (measured on Zen 4), rounded up; lanes itself where
     * it never does. */
    unsigned drain_min_busy;
    union {
        fd_md5_blocks_multi_fn *md5;
        fd_sha1_blocks_multi_fn *sha1;
        fd_sha256_blocks_multi_fn *sha256;
        fd_sha512_blocks_multi_fn *sha512;
    } blocks;
} fd_multi_kernel;

/* The multi-buffer kernels compiled into this build for each family,
 * fastest first, each list ending with {NULL}; a family may have none. */
extern const fd_multi_kernel *const fd_multi_kernel_lists[FD_FAMILY_COUNT];

/* The multi-buffer kernel each family's batches use; name NULL (lanes 0)
 * means none: every message goes through the single-stream kernel. None
 * until fd_select_multi_kernels runs. */
extern fd_multi_kernel fd_active_multi_kernels[FD_FAMILY_COUNT];

/* Installs, for every family, the first multi-buffer kernel whose features
 * the CPU has; with single_stream_only, none. Not thread-safe: call it
 * before any thread hashes a batch (the extension calls it at import). */
void fd_select_multi_kernels(bool single_stream_only);

/* Installs one multi-buffer kernel for one family, or none when kernel is
 * NULL (tests and benchmarks). The caller guarantees the CPU has
 * kernel->required_features. */
void fd_use_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel);

/* fd_hash_many with the given multi-buffer kernel of the algorithm's family
 * instead of the active one, or with none (NULL: the single-stream kernel
 * alone), changing no global state: benchmarks compare the two. The caller
 * guarantees the CPU has multi->required_features. */
void fd_hash_many_using(const fd_multi_kernel *multi, enum fd_algorithm_id id,
                        const fd_message *messages, size_t count);

#if (defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))) &&                      \
    !defined(FD_NO_MULTI_BUFFER)

#ifdef FD_HAVE_SHANI
#define FD_HAVE_SHANI_X2 1
/* Two messages interleaved through the SHA extensions; require
 * FD_CPU_SHANI | FD_CPU_SSE41 | FD_CPU_SSSE3. */
fd_sha1_blocks_multi_fn fd_sha1_blocks_shani_x2;     /* sha1_shani_x2.c */
fd_sha256_blocks_multi_fn fd_sha256_blocks_shani_x2; /* sha256_shani_x2.c */
/* HMAC's two keyed blocks at once (hmac.c): K' ^ ipad compressed onto
 * inner_chain and K' ^ opad onto outer_chain, from the padded key K'. */
void fd_sha1_hmac_key_shani_x2(const uint8_t padded_key[FD_SHA1_BLOCK_LEN],
                               uint32_t inner_chain[5], uint32_t outer_chain[5]);
void fd_sha256_hmac_key_shani_x2(const uint8_t padded_key[FD_SHA256_BLOCK_LEN],
                                 uint32_t inner_chain[8], uint32_t outer_chain[8]);
#endif

#ifndef FD_NO_AVX2
#define FD_HAVE_AVX2_MULTI 1
/* Eight MD5 lanes and four SHA-512 lanes of AVX2; require FD_CPU_AVX2. */
fd_md5_blocks_multi_fn fd_md5_blocks_avx2_x8;       /* md5_avx2_x8.c */
fd_sha512_blocks_multi_fn fd_sha512_blocks_avx2_x4; /* sha512_avx2_x4.c */
#endif

#ifndef FD_NO_AVX512
#define FD_HAVE_AVX512_MULTI 1
/* Sixteen MD5 lanes of AVX-512, requiring FD_CPU_AVX512F; eight SHA-512
 * lanes, requiring FD_CPU_AVX512F | FD_CPU_AVX512BW. */
fd_md5_blocks_multi_fn fd_md5_blocks_avx512_x16;       /* md5_avx512_x16.c */
fd_sha512_blocks_multi_fn fd_sha512_blocks_avx512_x8; /* sha512_avx512_x8.c */
/* Sixteen SHA-1 and SHA-256 lanes, requiring FD_CPU_AVX512F |
 * FD_CPU_AVX512BW. */
fd_sha1_blocks_multi_fn fd_sha1_blocks_avx512_x16;     /* sha1_avx512_x16.c */
fd_sha256_blocks_multi_fn fd_sha256_blocks_avx512_x16; /* sha256_avx512_x16.c */
#endif

#endif

#endif /* FD_BATCH_H */
