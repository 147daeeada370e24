/* The descriptor table: each algorithm of FD_ALGORITHMS (algorithms.h) as
 * the one shape the binding and the tools drive, its functions the stream
 * layer of buffer.h with its family and digest length built in. */
#include "hash/algorithms.h"

#include <assert.h>
#include <string.h>

#include "hash/buffer.h"
#include "kernels/compiler.h"

/* ---- initial chains -------------------------------------------------------- */

/* RFC 1321, 3.3 (MD5); FIPS 180-4, 5.3.1 (SHA-1), 5.3.2 and 5.3.3 (SHA-224,
 * SHA-256), 5.3.4 to 5.3.6 (SHA-384, SHA-512, SHA-512/224, SHA-512/256). */
static const fd_any_chain md5_iv = {.md5 = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}}};
static const fd_any_chain sha1_iv = {
    .sha1 = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}}};
static const fd_any_chain sha224_iv = {
    .sha256 = {{0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7,
                0xbefa4fa4}}};
static const fd_any_chain sha256_iv = {
    .sha256 = {{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19}}};
static const fd_any_chain sha384_iv = {.sha512 = {{
                                           0xcbbb9d5dc1059ed8,
                                           0x629a292a367cd507,
                                           0x9159015a3070dd17,
                                           0x152fecd8f70e5939,
                                           0x67332667ffc00b31,
                                           0x8eb44a8768581511,
                                           0xdb0c2e0d64f98fa7,
                                           0x47b5481dbefa4fa4,
                                       }}};
static const fd_any_chain sha512_iv = {.sha512 = {{
                                           0x6a09e667f3bcc908,
                                           0xbb67ae8584caa73b,
                                           0x3c6ef372fe94f82b,
                                           0xa54ff53a5f1d36f1,
                                           0x510e527fade682d1,
                                           0x9b05688c2b3e6c1f,
                                           0x1f83d9abfb41bd6b,
                                           0x5be0cd19137e2179,
                                       }}};
static const fd_any_chain sha512_224_iv = {.sha512 = {{
                                               0x8c3d37c819544da2,
                                               0x73e1996689dcd4d6,
                                               0x1dfab7ae32ff9c82,
                                               0x679dd514582f9fcf,
                                               0x0f6d2b697bd44da8,
                                               0x77e36f7304c48942,
                                               0x3f9d85a86a1d36c8,
                                               0x1112e6ad91d692a1,
                                           }}};
static const fd_any_chain sha512_256_iv = {.sha512 = {{
                                               0x22312194fc2bf72c,
                                               0x9f555fa3c84c64c2,
                                               0x2393b86b6f53b151,
                                               0x963877195940eabd,
                                               0x96283ee2a88effe3,
                                               0xbe5e1e2553863992,
                                               0x2b0199fc2c85b8aa,
                                               0x0eb72ddc81c52ca2,
                                           }}};

/* ---- the functions of the descriptors ------------------------------------- */

/* Each family's update: buffer.h's, with the family and its active kernel
 * built in. */
#define FAMILY_UPDATE(family, FAMILY, ...)                                                        \
    static void family##_update(fd_hash_state *state, const uint8_t *data, size_t len)            \
    {                                                                                             \
        fd_stream_update(FD_FAMILY_##FAMILY, &fd_active_kernels[FD_FAMILY_##FAMILY], state, data, \
                         len);                                                                    \
    }
FD_FAMILIES(FAMILY_UPDATE)
#undef FAMILY_UPDATE

/* Each algorithm's init (its IV, of its family's chain type) and final (its
 * digest length); the digest is whole 32-bit words of its family's chain
 * (buffer.h's final and the HMAC and PBKDF2 code store it word by word). */
#define ALGORITHM_FUNCTIONS(algorithm, ALGORITHM, family, FAMILY, digest_len)                   \
    _Static_assert((digest_len) % 4 == 0 && (digest_len) <= sizeof(fd_##family##_chain),        \
                   #algorithm "'s digest is whole 32-bit words of its chain");                  \
    static void algorithm##_init(fd_hash_state *state)                                          \
    {                                                                                           \
        const fd_##family##_chain *iv = &algorithm##_iv.family; /* of its family's type */      \
        fd_stream_init(FD_FAMILY_##FAMILY, state, iv);                                          \
    }                                                                                           \
    static void algorithm##_final(fd_hash_state *state, uint8_t *out)                           \
    {                                                                                           \
        fd_stream_final(FD_FAMILY_##FAMILY, &fd_active_kernels[FD_FAMILY_##FAMILY], state, out, \
                        digest_len);                                                            \
    }
FD_ALGORITHMS(ALGORITHM_FUNCTIONS)
#undef ALGORITHM_FUNCTIONS

#define ALGORITHM_ROW(algo, ALGO, fam, FAM, digest) \
    [FD_##ALGO] = {                                 \
        .name = #algo,                              \
        .family = FD_FAMILY_##FAM,                  \
        .digest_len = (digest),                     \
        .block_len = FD_##FAM##_BLOCK_LEN,          \
        .state_len = sizeof(fd_##fam##_state),      \
        .init = algo##_init,                        \
        .update = fam##_update,                     \
        .final = algo##_final,                      \
    },
const fd_algorithm fd_algorithms[FD_ALGORITHM_COUNT] = {FD_ALGORITHMS(ALGORITHM_ROW)};
#undef ALGORITHM_ROW

void fd_hash(enum fd_algorithm_id id, const uint8_t *data, size_t len, uint8_t *out)
{
    assert((unsigned)id < FD_ALGORITHM_COUNT);
    const fd_algorithm *algorithm = &fd_algorithms[id];
    fd_hash_state state;

    algorithm->init(&state);
    algorithm->update(&state, data, len);
    algorithm->final(&state, out);
    fd_secure_zero(&state, algorithm->state_len);
}

void fd_update_with(const fd_kernel *kernel, const fd_algorithm *algorithm, fd_hash_state *state,
                    const uint8_t *data, size_t len)
{
    switch (algorithm->family) {
#define UPDATE_WITH_CASE(name, NAME, ...)                             \
    case FD_FAMILY_##NAME:                                            \
        fd_stream_update(FD_FAMILY_##NAME, kernel, state, data, len); \
        break;
        FD_FAMILIES(UPDATE_WITH_CASE)
#undef UPDATE_WITH_CASE
    case FD_FAMILY_COUNT:
        break;
    }
}

void fd_final_with(const fd_kernel *kernel, const fd_algorithm *algorithm, fd_hash_state *state,
                   uint8_t *out)
{
    switch (algorithm->family) {
#define FINAL_WITH_CASE(name, NAME, ...)                                              \
    case FD_FAMILY_##NAME:                                                            \
        fd_stream_final(FD_FAMILY_##NAME, kernel, state, out, algorithm->digest_len); \
        break;
        FD_FAMILIES(FINAL_WITH_CASE)
#undef FINAL_WITH_CASE
    case FD_FAMILY_COUNT:
        break;
    }
}

void fd_hash_with(const fd_kernel *kernel, enum fd_algorithm_id id, const uint8_t *data, size_t len,
                  uint8_t *out)
{
    assert((unsigned)id < FD_ALGORITHM_COUNT);
    const fd_algorithm *algorithm = &fd_algorithms[id];
    fd_hash_state state;

    algorithm->init(&state);
    fd_update_with(kernel, algorithm, &state, data, len);
    fd_final_with(kernel, algorithm, &state, out);
    fd_secure_zero(&state, algorithm->state_len);
}

void fd_secure_zero(void *p, size_t len)
{
#if defined(FD_COMPILER_GNU)
    /* The empty asm claims to read the memory behind p, so the memset before
     * it is not a dead store the compiler may drop (BoringSSL's
     * OPENSSL_cleanse does the same); memset itself stays at full speed. */
    memset(p, 0, len);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    /* A store through a volatile pointer is an observable side effect. */
    volatile unsigned char *bytes = p;
    while (len--)
        *bytes++ = 0;
#endif
}
