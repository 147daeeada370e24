/* What a C caller pays for going through fastdigest's C API: 64-byte
 * messages hashed through the capsule fastdigest._fastdigest._C_API
 * (python/capi.c, inside the extension) beside the core's own functions
 * (hash/, compiled into this program), in one process, in interleaved
 * rounds. Three ways: the one-shot (api->digest beside fd_hash), a stream
 * (api->init, update, final beside the algorithm descriptor's), and a batch
 * of 1024 messages (api->digest_many beside fd_hash_many). Both sides run
 * the same kernels, chosen the same way (FASTDIGEST_DISABLE applies to both;
 * the program checks that the names agree).
 *
 * Build and run from the repository root, after the in-place build of the
 * extension (pip install -e .), with the interpreter that built it:
 *   PY=python3   # the venv's python
 *   gcc -std=c11 -O3 -DNDEBUG -fwrapv -fPIC -fvisibility=hidden -pthread \
 *       -Isrc/_fastdigest -Ifastdigest/include \
 *       $($PY -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])') \
 *       $(find src/_fastdigest -path src/_fastdigest/python -prune -o -name '*.c' -print) \
 *       benchmarks/bench_capi.c \
 *       -L$($PY -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))') \
 *       -lpython$($PY -c 'import sysconfig; print(sysconfig.get_config_var("LDVERSION"))') \
 *       -Wl,-rpath,$($PY -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))') \
 *       -o /tmp/bench_capi
 *   PYTHONPATH=$PWD /tmp/bench_capi [ALGORITHM] [ROUNDS]
 * (-DNDEBUG -fwrapv -fPIC: the flags the extension's core is built with,
 * from Python's CFLAGS, so that the two sides differ by the capsule alone;
 * without -DNDEBUG the core's assertions cost more than the capsule.
 * -fvisibility=hidden keeps this program's copy of the core out of the
 * symbols the extension could bind to; PYTHONPATH lets the embedded
 * interpreter import the checkout's fastdigest.) Defaults: sha256, 101
 * rounds.
 *
 * Printed per way: the median nanoseconds per message of each side and the
 * median over rounds of capsule time / core time (1.00: no cost; above:
 * what the capsule's extra call costs). On a shared machine trust the
 * ratios, not one time. */
#define PY_SSIZE_T_CLEAN
#include "fastdigest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch/features.h"
#include "hash/algorithms.h"
#include "hash/batch.h"
#include "hash/known_answers.h"

#define MESSAGE_LEN 64
#define BATCH 1024
#define CALLS 4096 /* one-shots and streams per timing */
#define MAX_ROUNDS 1001

static const FastDigest_CAPI *api;
static const fastdigest_algorithm *algorithm;
static enum fd_algorithm_id id;
static unsigned char messages[BATCH][MESSAGE_LEN];
static unsigned char digests[BATCH][FASTDIGEST_MAX_DIGEST_SIZE];
static fastdigest_message api_batch[BATCH];
static fd_message core_batch[BATCH];
/* What the loops write, so that no loop is optimized away. */
static volatile unsigned char sink;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof values[0], compare_doubles);
    return values[count / 2];
}

/* Nanoseconds per message of one way, on one side. */
static double one_shots_api(void)
{
    unsigned char digest[FASTDIGEST_MAX_DIGEST_SIZE];
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) {
        api->digest(algorithm, messages[i % BATCH], MESSAGE_LEN, digest);
        sink ^= digest[0];
    }
    return (now_ns() - start) / CALLS;
}

static double one_shots_core(void)
{
    uint8_t digest[FD_MAX_DIGEST_LEN];
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) {
        fd_hash(id, messages[i % BATCH], MESSAGE_LEN, digest);
        sink ^= digest[0];
    }
    return (now_ns() - start) / CALLS;
}

static double streams_api(void)
{
    fastdigest_state state;
    unsigned char digest[FASTDIGEST_MAX_DIGEST_SIZE];
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) {
        api->init(algorithm, &state);
        api->update(algorithm, &state, messages[i % BATCH], MESSAGE_LEN);
        api->final(algorithm, &state, digest);
        sink ^= digest[0];
    }
    return (now_ns() - start) / CALLS;
}

static double streams_core(void)
{
    const fd_algorithm *core = &fd_algorithms[id];
    fd_hash_state state;
    uint8_t digest[FD_MAX_DIGEST_LEN];
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) {
        core->init(&state);
        core->update(&state, messages[i % BATCH], MESSAGE_LEN);
        core->final(&state, digest);
        sink ^= digest[0];
    }
    return (now_ns() - start) / CALLS;
}

static double batch_api(void)
{
    double start = now_ns();
    api->digest_many(algorithm, api_batch, BATCH);
    sink ^= digests[BATCH - 1][0];
    return (now_ns() - start) / BATCH;
}

static double batch_core(void)
{
    double start = now_ns();
    fd_hash_many(id, core_batch, BATCH);
    sink ^= digests[BATCH - 1][0];
    return (now_ns() - start) / BATCH;
}

typedef struct way {
    const char *name;
    double (*through_api)(void);
    double (*through_core)(void);
} way;

static const way ways[] = {
    {"one-shot", one_shots_api, one_shots_core},
    {"stream", streams_api, streams_core},
    {"digest_many", batch_api, batch_core},
};

/* The core's own selection, as the extension's import makes it. */
static int select_core_kernels(void)
{
    uint32_t disabled = 0;
    char reason[320];
    if (!fd_cpu_parse_disable(getenv("FASTDIGEST_DISABLE"), &disabled, reason, sizeof reason)) {
        fprintf(stderr, "FASTDIGEST_DISABLE: %s\n", reason);
        return -1;
    }
    fd_cpu_disable(disabled);
    const char *backend = getenv("FASTDIGEST_BACKEND");
    const bool portable_only = backend != NULL && strcmp(backend, "portable") == 0;
    if (!fd_select_checked_kernels(portable_only, NULL, reason, sizeof reason)) {
        fprintf(stderr, "kernel selection: %s\n", reason);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "sha256";
    const int rounds = argc > 2 ? atoi(argv[2]) : 101;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [ALGORITHM] [ROUNDS, 1..%d]\n", argv[0], MAX_ROUNDS);
        return 2;
    }
    if (select_core_kernels() < 0)
        return 1;

    Py_Initialize();
    api = FastDigest_Import();
    if (api == NULL) {
        PyErr_Print();
        return 1;
    }
    PyObject *sys_version = PySys_GetObject("version");
    const char *python = sys_version != NULL ? PyUnicode_AsUTF8(sys_version) : "?";
    algorithm = api->algorithm_by_name(name);
    if (algorithm == NULL) {
        fprintf(stderr, "no algorithm named %s\n", name);
        return 2;
    }
    id = (enum fd_algorithm_id)algorithm->id;
    const enum fd_family family = fd_algorithms[id].family;
    /* Settled on both sides before the rounds: the first batch checks the
     * multi-buffer kernel. */
    const char *api_batch_kernel = api->batch_kernel(algorithm);
    const fd_multi_kernel *multi = fd_batch_multi_kernel(family);
    const char *core_batch_kernel = multi != NULL ? multi->name : fd_active_kernels[family].name;
    if (strcmp(api->kernel(algorithm), fd_active_kernels[family].name) != 0 ||
        strcmp(api_batch_kernel, core_batch_kernel) != 0) {
        fprintf(stderr, "the sides chose other kernels: %s/%s through the capsule, %s/%s here\n",
                api->kernel(algorithm), api_batch_kernel, fd_active_kernels[family].name,
                core_batch_kernel);
        return 1;
    }

    for (int i = 0; i < BATCH; i++) {
        for (int j = 0; j < MESSAGE_LEN; j++)
            messages[i][j] = (unsigned char)(i * 131 + j * 7);
        api_batch[i] = (fastdigest_message){messages[i], MESSAGE_LEN, digests[i]};
        core_batch[i] = (fd_message){messages[i], MESSAGE_LEN, digests[i]};
    }

    enum { WAYS = sizeof ways / sizeof ways[0] };
    static double api_ns[WAYS][MAX_ROUNDS], core_ns[WAYS][MAX_ROUNDS], ratio[WAYS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        for (int w = 0; w < WAYS; w++) {
            /* Alternating which side goes first. */
            double a, c;
            if (r % 2 == 0) {
                a = ways[w].through_api();
                c = ways[w].through_core();
            }
            else {
                c = ways[w].through_core();
                a = ways[w].through_api();
            }
            api_ns[w][r] = a;
            core_ns[w][r] = c;
            ratio[w][r] = a / c;
        }
    }

    printf("%s, %d-byte messages, %d rounds; kernels %s (stream), %s (batch); C API %u.%u\n", name,
           MESSAGE_LEN, rounds, fd_active_kernels[family].name, core_batch_kernel, api->major,
           api->minor);
    printf("Python %s\n", python);
    printf("%-12s %14s %14s %14s\n", "way", "capsule ns/msg", "core ns/msg", "capsule/core");
    for (int w = 0; w < WAYS; w++) {
        printf("%-12s %14.1f %14.1f %14.3f\n", ways[w].name, median(api_ns[w], rounds),
               median(core_ns[w], rounds), median(ratio[w], rounds));
    }
    return Py_FinalizeEx() < 0 ? 1 : 0;
}
