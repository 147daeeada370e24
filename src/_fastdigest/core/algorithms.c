/* The descriptor table: adapts each family's typed interface to the one
 * shape the binding and the tools drive. */
#include "core/algorithms.h"

#include <string.h>

static void md5_init(fd_hash_state *s)
{
    fd_md5_init(&s->md5);
}
static void sha1_init(fd_hash_state *s)
{
    fd_sha1_init(&s->sha1);
}
static void sha224_init(fd_hash_state *s)
{
    fd_sha224_init(&s->sha256);
}
static void sha256_init(fd_hash_state *s)
{
    fd_sha256_init(&s->sha256);
}
static void sha384_init(fd_hash_state *s)
{
    fd_sha384_init(&s->sha512);
}
static void sha512_init(fd_hash_state *s)
{
    fd_sha512_init(&s->sha512);
}
static void sha512_224_init(fd_hash_state *s)
{
    fd_sha512_224_init(&s->sha512);
}
static void sha512_256_init(fd_hash_state *s)
{
    fd_sha512_256_init(&s->sha512);
}

static void md5_update(fd_hash_state *s, const uint8_t *data, size_t len)
{
    fd_md5_update(&s->md5, data, len);
}

static void sha1_update(fd_hash_state *s, const uint8_t *data, size_t len)
{
    fd_sha1_update(&s->sha1, data, len);
}

static void sha256_update(fd_hash_state *s, const uint8_t *data, size_t len)
{
    fd_sha256_update(&s->sha256, data, len);
}

static void sha512_update(fd_hash_state *s, const uint8_t *data, size_t len)
{
    fd_sha512_update(&s->sha512, data, len);
}

static void md5_final(fd_hash_state *s, uint8_t *out)
{
    fd_md5_final(&s->md5, out);
}
static void sha1_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha1_final(&s->sha1, out);
}

static void sha224_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha256_final(&s->sha256, out, FD_SHA224_DIGEST_LEN);
}

static void sha256_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha256_final(&s->sha256, out, FD_SHA256_DIGEST_LEN);
}

static void sha384_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha512_final(&s->sha512, out, FD_SHA384_DIGEST_LEN);
}

static void sha512_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha512_final(&s->sha512, out, FD_SHA512_DIGEST_LEN);
}

static void sha512_224_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha512_final(&s->sha512, out, FD_SHA512_224_DIGEST_LEN);
}

static void sha512_256_final(fd_hash_state *s, uint8_t *out)
{
    fd_sha512_final(&s->sha512, out, FD_SHA512_256_DIGEST_LEN);
}

/* What the algorithms of one family share. */
#define MD5_FAMILY \
    .family = FD_FAMILY_MD5, .block_len = FD_MD5_BLOCK_LEN, .state_len = sizeof(fd_md5_state)
#define SHA1_FAMILY \
    .family = FD_FAMILY_SHA1, .block_len = FD_SHA1_BLOCK_LEN, .state_len = sizeof(fd_sha1_state)
#define SHA256_FAMILY                                             \
    .family = FD_FAMILY_SHA256, .block_len = FD_SHA256_BLOCK_LEN, \
    .state_len = sizeof(fd_sha256_state), .update = sha256_update
#define SHA512_FAMILY                                             \
    .family = FD_FAMILY_SHA512, .block_len = FD_SHA512_BLOCK_LEN, \
    .state_len = sizeof(fd_sha512_state), .update = sha512_update

const fd_algorithm fd_algorithms[FD_ALGORITHM_COUNT] = {
    [FD_MD5] = {.name = "md5",
                .digest_len = FD_MD5_DIGEST_LEN,
                MD5_FAMILY,
                .init = md5_init,
                .update = md5_update,
                .final = md5_final},
    [FD_SHA1] = {.name = "sha1",
                 .digest_len = FD_SHA1_DIGEST_LEN,
                 SHA1_FAMILY,
                 .init = sha1_init,
                 .update = sha1_update,
                 .final = sha1_final},
    [FD_SHA224] = {.name = "sha224",
                   .digest_len = FD_SHA224_DIGEST_LEN,
                   SHA256_FAMILY,
                   .init = sha224_init,
                   .final = sha224_final},
    [FD_SHA256] = {.name = "sha256",
                   .digest_len = FD_SHA256_DIGEST_LEN,
                   SHA256_FAMILY,
                   .init = sha256_init,
                   .final = sha256_final},
    [FD_SHA384] = {.name = "sha384",
                   .digest_len = FD_SHA384_DIGEST_LEN,
                   SHA512_FAMILY,
                   .init = sha384_init,
                   .final = sha384_final},
    [FD_SHA512] = {.name = "sha512",
                   .digest_len = FD_SHA512_DIGEST_LEN,
                   SHA512_FAMILY,
                   .init = sha512_init,
                   .final = sha512_final},
    [FD_SHA512_224] = {.name = "sha512_224",
                       .digest_len = FD_SHA512_224_DIGEST_LEN,
                       SHA512_FAMILY,
                       .init = sha512_224_init,
                       .final = sha512_224_final},
    [FD_SHA512_256] = {.name = "sha512_256",
                       .digest_len = FD_SHA512_256_DIGEST_LEN,
                       SHA512_FAMILY,
                       .init = sha512_256_init,
                       .final = sha512_256_final},
};

void fd_hash(enum fd_algorithm_id id, const uint8_t *data, size_t len, uint8_t *out)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    fd_hash_state state;

    algorithm->init(&state);
    algorithm->update(&state, data, len);
    algorithm->final(&state, out);
    fd_secure_zero(&state, algorithm->state_len);
}

void fd_secure_zero(void *p, size_t len)
{
#if defined(__GNUC__) /* also Clang */
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
