/* fastdigest's C API: its kernels for C and Cython code, with no Python on
 * the hot path.
 *
 * A C extension (or Cython module) includes this header, built with
 * include_dirs=[fastdigest.get_include()], and gets the API once, with the
 * GIL, from the capsule fastdigest._fastdigest._C_API:
 *
 *     static const FastDigest_CAPI *fastdigest;
 *     ...in the module's exec function or PyInit:
 *     fastdigest = FastDigest_Import();
 *     if (fastdigest == NULL)
 *         return -1;  (an ImportError is set)
 *
 * and from then on calls its functions from any thread, with or without the
 * GIL, with no Python object: they touch nothing of the interpreter. They
 * run the kernels the import of fastdigest chose and checked against known
 * answers (FASTDIGEST_DISABLE and FASTDIGEST_BACKEND apply), the very ones
 * fastdigest.implementation and fastdigest.batch_implementation name; the
 * states are the caller's memory, so a hash is copied with memcpy. None of
 * the functions fails but pbkdf2_hmac on bad arguments; every pointer a
 * function takes must be valid for its length (data may be NULL where its
 * length is 0), and an algorithm is one that algorithm() or
 * algorithm_by_name() returned.
 *
 * Versions: FastDigest_CAPI begins with its major and minor version and its
 * size. A minor version only ever appends members (and algorithms, whose
 * ids never change); anything else is a new major version. An extension
 * runs on a fastdigest whose major version is the one it was built for and
 * whose minor version is at least FASTDIGEST_C_API_REQUIRED_MINOR (by
 * default the header's own: define it lower before including this header
 * to run on older fastdigests, and test api->minor before using what they
 * lack). FastDigest_Import checks both and raises ImportError otherwise.
 *
 * Include it where you would include Python.h, or after it. The
 * documentation's page "From C and Cython" (docs/c-api.md) has a complete
 * extension and a Cython module, with fastdigest.pxd, the declarations of
 * this header for `cimport fastdigest`, beside it. */
#ifndef FASTDIGEST_H
#define FASTDIGEST_H

#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FASTDIGEST_C_API_MAJOR 1
#define FASTDIGEST_C_API_MINOR 0
#ifndef FASTDIGEST_C_API_REQUIRED_MINOR
#define FASTDIGEST_C_API_REQUIRED_MINOR FASTDIGEST_C_API_MINOR
#endif

#define FASTDIGEST_CAPSULE_NAME "fastdigest._fastdigest._C_API"

/* The algorithms' ids (api->algorithm(id)), the order of fastdigest's
 * algorithm table; a new algorithm is given the next id. */
#define FASTDIGEST_MD5 0
#define FASTDIGEST_SHA1 1
#define FASTDIGEST_SHA224 2
#define FASTDIGEST_SHA256 3
#define FASTDIGEST_SHA384 4
#define FASTDIGEST_SHA512 5
#define FASTDIGEST_SHA512_224 6
#define FASTDIGEST_SHA512_256 7

/* The longest digest of any algorithm of this major version. */
#define FASTDIGEST_MAX_DIGEST_SIZE 64

/* Room for the state of any algorithm of this major version, and for an
 * HMAC state: memory to declare on the stack or inside a struct of one's
 * own. An algorithm's state_size (and hmac_state_size) is what is used of
 * it, and what a copy needs. */
#define FASTDIGEST_STATE_SIZE 256
#define FASTDIGEST_HMAC_STATE_SIZE 576

typedef union fastdigest_state {
    unsigned char bytes[FASTDIGEST_STATE_SIZE];
    uint64_t alignment_;
    void *pointer_alignment_;
} fastdigest_state;

typedef union fastdigest_hmac_state {
    unsigned char bytes[FASTDIGEST_HMAC_STATE_SIZE];
    uint64_t alignment_;
    void *pointer_alignment_;
} fastdigest_hmac_state;

/* An algorithm. Never changed; valid for as long as the process runs. */
typedef struct fastdigest_algorithm {
    int id;           /* FASTDIGEST_MD5, ... */
    const char *name; /* hashlib's name: "md5", "sha256", "sha512_224", ... */
    size_t digest_size;
    size_t block_size;
    size_t state_size;  /* the bytes of the state that init() writes and a copy needs */
    size_t state_align; /* the alignment the state needs */
} fastdigest_algorithm;

/* One message of digest_many or hmac_many: length bytes at data, and where
 * its digest goes (the algorithm's digest_size bytes). */
typedef struct fastdigest_message {
    const void *data;
    size_t length;
    unsigned char *digest;
} fastdigest_message;

typedef struct FastDigest_CAPI {
    /* ---- 1.0 ---- */
    unsigned int major;
    unsigned int minor;
    size_t size; /* sizeof(FastDigest_CAPI) in the running fastdigest */

    /* Ids 0 to algorithm_count - 1 are algorithms. */
    size_t algorithm_count;
    /* The algorithm of an id, or NULL for an id that is none. */
    const fastdigest_algorithm *(*algorithm)(int id);
    /* The algorithm of hashlib's name for it ("sha256"; ASCII case is
     * ignored), or NULL for a name that is none. */
    const fastdigest_algorithm *(*algorithm_by_name)(const char *name);

    /* The name of the kernel that hashes a stream of the algorithm ("shani",
     * "avx512", "armv8", "portable", ...), as fastdigest.implementation. */
    const char *(*kernel)(const fastdigest_algorithm *algorithm);
    /* The name of the kernel that digest_many, hmac_many and pbkdf2_hmac run
     * for the algorithm, a multi-buffer one ("avx512_x16", "shani_x2", ...)
     * or else the single-stream one, as fastdigest.batch_implementation.
     * The first call for an algorithm's family may check the multi-buffer
     * kernel against known answers first, as the first batch does. */
    const char *(*batch_kernel)(const fastdigest_algorithm *algorithm);

    /* A hash on a state of the caller's (state_size bytes, aligned to
     * state_align; a fastdigest_state holds any): init starts it, update
     * feeds it, final writes the digest (digest_size bytes) and leaves the
     * state spent, to be init'ed again. To keep hashing after a digest,
     * copy the state's state_size bytes (memcpy) and finalize the copy. */
    void (*init)(const fastdigest_algorithm *algorithm, void *state);
    void (*update)(const fastdigest_algorithm *algorithm, void *state, const void *data,
                   size_t length);
    void (*final)(const fastdigest_algorithm *algorithm, void *state, unsigned char *digest);

    /* The digest of one message. */
    void (*digest)(const fastdigest_algorithm *algorithm, const void *data, size_t length,
                   unsigned char *digest);
    /* The digest of each of count messages, several at once in the lanes of
     * the CPU's multi-buffer kernel (batch_kernel), on the calling thread. */
    void (*digest_many)(const fastdigest_algorithm *algorithm, const fastdigest_message *messages,
                        size_t count);

    /* HMAC (RFC 2104) on a state of the caller's (hmac_state_size bytes,
     * aligned to hmac_state_align; a fastdigest_hmac_state holds it):
     * hmac_init keys it (a key of any length), hmac_update feeds the
     * message, hmac_final writes the MAC (digest_size bytes) and leaves the
     * state as it was, so that more may follow. The state holds key-derived
     * data: hmac_wipe it before its memory is freed or reused. A keyed state
     * is copied with memcpy. */
    size_t hmac_state_size;
    size_t hmac_state_align;
    void (*hmac_init)(const fastdigest_algorithm *algorithm, void *hmac_state, const void *key,
                      size_t key_length);
    void (*hmac_update)(void *hmac_state, const void *data, size_t length);
    void (*hmac_final)(const void *hmac_state, unsigned char *mac);
    void (*hmac_wipe)(void *hmac_state);
    /* The MAC of one message. */
    void (*hmac)(const fastdigest_algorithm *algorithm, const void *key, size_t key_length,
                 const void *data, size_t length, unsigned char *mac);
    /* The MAC of each of count messages under one key, several at once as
     * digest_many hashes them: the key's blocks are hashed once. */
    void (*hmac_many)(const fastdigest_algorithm *algorithm, const void *key, size_t key_length,
                      const fastdigest_message *messages, size_t count);

    /* PBKDF2-HMAC (RFC 8018, 5.2), as hashlib.pbkdf2_hmac: writes key_length
     * bytes of derived key to key. Returns 0; or -1, writing nothing, when
     * iterations is 0, key_length is 0 or more than RFC 8018 allows
     * ((2^32 - 1) times the digest size). */
    int (*pbkdf2_hmac)(const fastdigest_algorithm *algorithm, const void *password,
                       size_t password_length, const void *salt, size_t salt_length,
                       uint32_t iterations, unsigned char *key, size_t key_length);
} FastDigest_CAPI;

/* The API, or NULL with ImportError set: fastdigest cannot be imported, or
 * its C API is of another major version, or of an older minor version than
 * FASTDIGEST_C_API_REQUIRED_MINOR. Call it with the GIL held, once (in the
 * module's exec function); the pointer stays valid for the process. */
static inline const FastDigest_CAPI *FastDigest_Import(void)
{
    const FastDigest_CAPI *api = (const FastDigest_CAPI *)PyCapsule_Import(FASTDIGEST_CAPSULE_NAME,
                                                                           0);
    if (api == NULL)
        return NULL;
    if (api->major != FASTDIGEST_C_API_MAJOR) {
        PyErr_Format(PyExc_ImportError,
                     "fastdigest C API version mismatch: this module was built for major version "
                     "%d (fastdigest.h %d.%d), but the installed fastdigest provides %u.%u; "
                     "rebuild the module against the installed fastdigest's header",
                     FASTDIGEST_C_API_MAJOR, FASTDIGEST_C_API_MAJOR, FASTDIGEST_C_API_MINOR,
                     api->major, api->minor);
        return NULL;
    }
    /* Every minor version is at least 0: a comparison with it would draw
     * -Wtype-limits in the user's build. */
#if FASTDIGEST_C_API_REQUIRED_MINOR > 0
    if (api->minor < FASTDIGEST_C_API_REQUIRED_MINOR) {
        PyErr_Format(PyExc_ImportError,
                     "fastdigest C API version mismatch: this module needs version %d.%d or a "
                     "newer minor version, but the installed fastdigest provides %u.%u; upgrade "
                     "fastdigest",
                     FASTDIGEST_C_API_MAJOR, FASTDIGEST_C_API_REQUIRED_MINOR, api->major,
                     api->minor);
        return NULL;
    }
#endif
    return api;
}

#ifdef __cplusplus
}
#endif

#endif /* FASTDIGEST_H */
