/* The descriptor table: each algorithm of FD_ALGORITHMS (kernels/kernel.h) as
 * the one shape the binding and the tools drive, its functions the stream
 * layer of buffer.h with its family and digest length built in. */
#include "hash/algorithms.h"

#include <assert.h>
#include <string.h>

#include "hash/buffer.h"
#include "kernels/compiler.h"

/* ---- initial chains -------------------------------------------------------- */

/* Each algorithm's, from its row, as its family's chain type. */
#define ALGORITHM_IV(algorithm, ALGORITHM, family, FAMILY, digest_len, state_code, ...) \
    static const fd_##family##_chain algorithm##_iv = {{__VA_ARGS__}};
FD_ALGORITHMS(ALGORITHM_IV)
#undef ALGORITHM_IV

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

/* Each algorithm's init (its IV) and final (its digest length). */
#define ALGORITHM_FUNCTIONS(algorithm, ALGORITHM, family, FAMILY, digest_len, ...)              \
    static void algorithm##_init(fd_hash_state *state)                                          \
    {                                                                                           \
        fd_stream_init(FD_FAMILY_##FAMILY, state, &algorithm##_iv, sizeof(algorithm##_iv));     \
    }                                                                                           \
    static void algorithm##_final(fd_hash_state *state, uint8_t *out)                           \
    {                                                                                           \
        fd_stream_final(FD_FAMILY_##FAMILY, &fd_active_kernels[FD_FAMILY_##FAMILY], state, out, \
                        digest_len);                                                            \
    }
FD_ALGORITHMS(ALGORITHM_FUNCTIONS)
#undef ALGORITHM_FUNCTIONS

#define ALGORITHM_ROW(algo, ALGO, fam, FAM, digest, ...) \
    [FD_##ALGO] = {                                      \
        .name = #algo,                                   \
        .family = FD_FAMILY_##FAM,                       \
        .digest_len = (digest),                          \
        .block_len = FD_##FAM##_BLOCK_LEN,               \
        .state_len = sizeof(fd_##fam##_state),           \
        .init = algo##_init,                             \
        .update = fam##_update,                          \
        .final = algo##_final,                           \
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
