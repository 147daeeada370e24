/* The C API: fastdigest._fastdigest._C_API, a capsule of the struct of
 * function pointers that fastdigest/include/fastdigest.h declares, for C
 * and Cython code to hash with the core directly.
 *
 * Every function here is a thin layer over the core (hash/): no Python
 * object, no GIL, nothing allocated, and the same kernels the binding runs,
 * chosen and checked by the module's exec before the capsule exists. The
 * algorithms are FD_ALGORITHMS' rows, and the header's ids are checked
 * against the table below: a row without an id in the header, or with
 * another one, does not compile. The struct and the descriptors are static
 * and never written, so every interpreter's capsule holds the same. */
#include "python/binding.h"

#include <stdint.h>
#include <string.h>

#include "fastdigest.h"
#include "hash/batch.h"
#include "hash/hmac.h"

/* ---- the algorithms --------------------------------------------------------- */

/* The header's id of each algorithm is its row's, and its state and digest
 * fit what the header promises of every algorithm of this major version. */
#define CHECK_PUBLIC_ALGORITHM(name, NAME, family, FAMILY, digest_len, ...)                      \
    _Static_assert(FASTDIGEST_##NAME == FD_##NAME, "fastdigest.h's id of " #name);               \
    _Static_assert((digest_len) <= FASTDIGEST_MAX_DIGEST_SIZE, #name "'s digest fits");          \
    _Static_assert(sizeof(fd_##family##_state) <= FASTDIGEST_STATE_SIZE, #name "'s state fits"); \
    _Static_assert(_Alignof(fd_##family##_state) <= _Alignof(fastdigest_state),                  \
                   "fastdigest_state is aligned for " #name);
FD_ALGORITHMS(CHECK_PUBLIC_ALGORITHM)
#undef CHECK_PUBLIC_ALGORITHM
_Static_assert(sizeof(fd_hmac_state) <= FASTDIGEST_HMAC_STATE_SIZE, "an HMAC state fits");
_Static_assert(_Alignof(fd_hmac_state) <= _Alignof(fastdigest_hmac_state),
               "fastdigest_hmac_state is aligned for an HMAC state");

#define PUBLIC_ALGORITHM(algorithm, ALGORITHM, family, FAMILY, digest_len, ...) \
    [FD_##ALGORITHM] = {                                                        \
        .id = FD_##ALGORITHM,                                                   \
        .name = #algorithm,                                                     \
        .digest_size = (digest_len),                                            \
        .block_size = FD_##FAMILY##_BLOCK_LEN,                                  \
        .state_size = sizeof(fd_##family##_state),                              \
        .state_align = _Alignof(fd_##family##_state),                           \
    },
static const fastdigest_algorithm public_algorithms[FD_ALGORITHM_COUNT] = {
    FD_ALGORITHMS(PUBLIC_ALGORITHM)};
#undef PUBLIC_ALGORITHM

static const fastdigest_algorithm *capi_algorithm(int id)
{
    return id >= 0 && id < FD_ALGORITHM_COUNT ? &public_algorithms[id] : NULL;
}

static const fastdigest_algorithm *capi_algorithm_by_name(const char *name)
{
    for (int id = 0; name != NULL && id < FD_ALGORITHM_COUNT; id++) {
        const char *known = public_algorithms[id].name;
        size_t i = 0;
        /* ASCII case folded by hand: tolower() follows the C locale, which
         * a caller may have changed. */
        while (known[i] != '\0' &&
               (name[i] == known[i] ||
                (name[i] >= 'A' && name[i] <= 'Z' && (char)(name[i] - 'A' + 'a') == known[i])))
            i++;
        if (known[i] == '\0' && name[i] == '\0')
            return &public_algorithms[id];
    }
    return NULL;
}

static const fd_algorithm *core_algorithm(const fastdigest_algorithm *algorithm)
{
    return &fd_algorithms[algorithm->id];
}

/* ---- kernels ------------------------------------------------------------------ */

/* The family's multi-buffer kernel for a batch, or NULL where it has none,
 * settled first: its first batch selects it and checks it against known
 * answers (dispatch.h's fd_batch_multi_kernel), as the binding's batches do. The one call
 * the C API makes for that, so that moving the settling changes one line.
 * A kernel the check refuses here cannot be warned of (no GIL): it is in
 * the record of refused kernels that every later import of fastdigest warns
 * of, and fastdigest.self_test() reports. */
static const fd_multi_kernel *settled_batch_kernel(enum fd_family family)
{
    return fd_batch_multi_kernel(family);
}

static const char *capi_kernel(const fastdigest_algorithm *algorithm)
{
    return fd_active_kernels[core_algorithm(algorithm)->family].name;
}

static const char *capi_batch_kernel(const fastdigest_algorithm *algorithm)
{
    const enum fd_family family = core_algorithm(algorithm)->family;
    const fd_multi_kernel *multi = settled_batch_kernel(family);
    return multi != NULL ? multi->name : fd_active_kernels[family].name;
}

/* ---- streams and one-shots ------------------------------------------------------ */

static void capi_init(const fastdigest_algorithm *algorithm, void *state)
{
    core_algorithm(algorithm)->init(state);
}

static void capi_update(const fastdigest_algorithm *algorithm, void *state, const void *data,
                        size_t length)
{
    core_algorithm(algorithm)->update(state, data, length);
}

static void capi_final(const fastdigest_algorithm *algorithm, void *state, unsigned char *digest)
{
    core_algorithm(algorithm)->final(state, digest);
}

static void capi_digest(const fastdigest_algorithm *algorithm, const void *data, size_t length,
                        unsigned char *digest)
{
    fd_hash((enum fd_algorithm_id)algorithm->id, data, length, digest);
}

/* ---- batches ------------------------------------------------------------------ */

/* The batch driver takes its own message type (hash/batch.h), which the
 * header does not show: the caller's messages are copied into it a chunk at
 * a time, on the stack. A chunk holds many times the most lanes a kernel
 * has, so its last, partly filled lanes cost little beside the rest. */
#define MESSAGES_PER_CHUNK 128

static size_t next_chunk(const fastdigest_message *messages, size_t count,
                         fd_message chunk[MESSAGES_PER_CHUNK])
{
    const size_t n = count < MESSAGES_PER_CHUNK ? count : MESSAGES_PER_CHUNK;
    for (size_t i = 0; i < n; i++) {
        chunk[i].data = messages[i].data;
        chunk[i].len = messages[i].length;
        chunk[i].digest = messages[i].digest;
    }
    return n;
}

static void capi_digest_many(const fastdigest_algorithm *algorithm,
                             const fastdigest_message *messages, size_t count)
{
    const enum fd_algorithm_id id = (enum fd_algorithm_id)algorithm->id;
    const fd_multi_kernel *multi = settled_batch_kernel(fd_algorithms[id].family);
    fd_message chunk[MESSAGES_PER_CHUNK];

    for (size_t done = 0; done < count;) {
        const size_t n = next_chunk(messages + done, count - done, chunk);
        fd_hash_many_using(multi, id, chunk, n);
        done += n;
    }
}

/* ---- HMAC and PBKDF2 ------------------------------------------------------------- */

static void capi_hmac_init(const fastdigest_algorithm *algorithm, void *hmac_state, const void *key,
                           size_t key_length)
{
    fd_hmac_init(hmac_state, (enum fd_algorithm_id)algorithm->id, key, key_length);
}

static void capi_hmac_update(void *hmac_state, const void *data, size_t length)
{
    fd_hmac_update(hmac_state, data, length);
}

static void capi_hmac_final(const void *hmac_state, unsigned char *mac)
{
    fd_hmac_final(hmac_state, mac);
}

static void capi_hmac_wipe(void *hmac_state)
{
    fd_hmac_wipe(hmac_state);
}

static void capi_hmac(const fastdigest_algorithm *algorithm, const void *key, size_t key_length,
                      const void *data, size_t length, unsigned char *mac)
{
    fd_hmac((enum fd_algorithm_id)algorithm->id, key, key_length, data, length, mac);
}

static void capi_hmac_many(const fastdigest_algorithm *algorithm, const void *key,
                           size_t key_length, const fastdigest_message *messages, size_t count)
{
    const enum fd_algorithm_id id = (enum fd_algorithm_id)algorithm->id;
    const fd_multi_kernel *multi = settled_batch_kernel(fd_algorithms[id].family);
    fd_message chunk[MESSAGES_PER_CHUNK];
    fd_hmac_state keyed;

    fd_hmac_init(&keyed, id, key, key_length);
    for (size_t done = 0; done < count;) {
        const size_t n = next_chunk(messages + done, count - done, chunk);
        fd_hmac_many_using(multi, &keyed, chunk, n);
        done += n;
    }
    fd_hmac_wipe(&keyed);
}

static int capi_pbkdf2_hmac(const fastdigest_algorithm *algorithm, const void *password,
                            size_t password_length, const void *salt, size_t salt_length,
                            uint32_t iterations, unsigned char *key, size_t key_length)
{
    const enum fd_algorithm_id id = (enum fd_algorithm_id)algorithm->id;
    const enum fd_family family = fd_algorithms[id].family;
    /* RFC 8018's limit on the derived key: 2^32 - 1 blocks of a digest. */
    const uint64_t most_blocks = UINT32_MAX;
    if (iterations == 0 || key_length == 0 ||
        (uint64_t)key_length / fd_algorithms[id].digest_len >= most_blocks)
        return -1;
    fd_pbkdf2_hmac_with(&fd_active_kernels[family], settled_batch_kernel(family), id, password,
                        password_length, salt, salt_length, iterations, key, key_length);
    return 0;
}

/* ---- the capsule ------------------------------------------------------------- */

static const FastDigest_CAPI c_api = {
    .major = FASTDIGEST_C_API_MAJOR,
    .minor = FASTDIGEST_C_API_MINOR,
    .size = sizeof(FastDigest_CAPI),
    .algorithm_count = FD_ALGORITHM_COUNT,
    .algorithm = capi_algorithm,
    .algorithm_by_name = capi_algorithm_by_name,
    .kernel = capi_kernel,
    .batch_kernel = capi_batch_kernel,
    .init = capi_init,
    .update = capi_update,
    .final = capi_final,
    .digest = capi_digest,
    .digest_many = capi_digest_many,
    .hmac_state_size = sizeof(fd_hmac_state),
    .hmac_state_align = _Alignof(fd_hmac_state),
    .hmac_init = capi_hmac_init,
    .hmac_update = capi_hmac_update,
    .hmac_final = capi_hmac_final,
    .hmac_wipe = capi_hmac_wipe,
    .hmac = capi_hmac,
    .hmac_many = capi_hmac_many,
    .pbkdf2_hmac = capi_pbkdf2_hmac,
};

int fd_capi_module_exec(PyObject *module, fd_module_state *Py_UNUSED(state))
{
    /* The capsule hands out a pointer to const: nothing writes the struct. */
    PyObject *capsule = PyCapsule_New((void *)&c_api, FASTDIGEST_CAPSULE_NAME, NULL);
    if (capsule == NULL)
        return -1;
    const int added = PyModule_AddObjectRef(module, "_C_API", capsule);
    Py_DECREF(capsule);
    return added;
}
