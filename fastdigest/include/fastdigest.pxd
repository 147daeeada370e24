# cython: language_level=3
# The declarations of fastdigest.h, fastdigest's C API, for Cython: `cimport fastdigest` (or
# `from fastdigest cimport ...`) with this folder, fastdigest.get_include(), on both the Cython include
# path and the C compiler's (docs/c-api.md). The header says what each member does. Every function of
# the API runs without the GIL and raises nothing: call them in `with nogil:` blocks.

from libc.stdint cimport uint32_t


cdef extern from "fastdigest.h" nogil:
    enum:
        FASTDIGEST_C_API_MAJOR
        FASTDIGEST_C_API_MINOR
        FASTDIGEST_MD5
        FASTDIGEST_SHA1
        FASTDIGEST_SHA224
        FASTDIGEST_SHA256
        FASTDIGEST_SHA384
        FASTDIGEST_SHA512
        FASTDIGEST_SHA512_224
        FASTDIGEST_SHA512_256
        FASTDIGEST_MAX_DIGEST_SIZE
        FASTDIGEST_STATE_SIZE
        FASTDIGEST_HMAC_STATE_SIZE

    ctypedef union fastdigest_state:
        unsigned char bytes[FASTDIGEST_STATE_SIZE]

    ctypedef union fastdigest_hmac_state:
        unsigned char bytes[FASTDIGEST_HMAC_STATE_SIZE]

    ctypedef struct fastdigest_algorithm:
        int id
        const char *name
        size_t digest_size
        size_t block_size
        size_t state_size
        size_t state_align

    ctypedef struct fastdigest_message:
        const void *data
        size_t length
        unsigned char *digest

    ctypedef struct FastDigest_CAPI:
        unsigned int major
        unsigned int minor
        size_t size

        size_t algorithm_count
        const fastdigest_algorithm *(*algorithm)(int id) noexcept nogil
        const fastdigest_algorithm *(*algorithm_by_name)(const char *name) noexcept nogil

        const char *(*kernel)(const fastdigest_algorithm *algorithm) noexcept nogil
        const char *(*batch_kernel)(const fastdigest_algorithm *algorithm) noexcept nogil

        void (*init)(const fastdigest_algorithm *algorithm, void *state) noexcept nogil
        void (*update)(const fastdigest_algorithm *algorithm, void *state, const void *data,
                       size_t length) noexcept nogil
        void (*final)(const fastdigest_algorithm *algorithm, void *state,
                      unsigned char *digest) noexcept nogil

        void (*digest)(const fastdigest_algorithm *algorithm, const void *data, size_t length,
                       unsigned char *digest) noexcept nogil
        void (*digest_many)(const fastdigest_algorithm *algorithm, const fastdigest_message *messages,
                            size_t count) noexcept nogil

        size_t hmac_state_size
        size_t hmac_state_align
        void (*hmac_init)(const fastdigest_algorithm *algorithm, void *hmac_state, const void *key,
                          size_t key_length) noexcept nogil
        void (*hmac_update)(void *hmac_state, const void *data, size_t length) noexcept nogil
        void (*hmac_final)(const void *hmac_state, unsigned char *mac) noexcept nogil
        void (*hmac_wipe)(void *hmac_state) noexcept nogil
        void (*hmac)(const fastdigest_algorithm *algorithm, const void *key, size_t key_length,
                     const void *data, size_t length, unsigned char *mac) noexcept nogil
        void (*hmac_many)(const fastdigest_algorithm *algorithm, const void *key, size_t key_length,
                          const fastdigest_message *messages, size_t count) noexcept nogil

        int (*pbkdf2_hmac)(const fastdigest_algorithm *algorithm, const void *password,
                           size_t password_length, const void *salt, size_t salt_length,
                           uint32_t iterations, unsigned char *key, size_t key_length) noexcept nogil


# Needs the GIL: it imports fastdigest and raises ImportError on a version mismatch.
cdef extern from "fastdigest.h":
    const FastDigest_CAPI *FastDigest_Import() except NULL
