/* The shared part of the C test drivers and fuzz targets: see harness.h. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/algorithms.h"
#include "hash/family.h"
#include "kernels/portable/portable.h"

/* ---- the run ----------------------------------------------------------- */

static const char *program_name = "test";
static uint64_t test_seed;
static unsigned long total_passed, total_failed;

static bool parse_seed(const char *text)
{
    char *end;
    unsigned long long value = strtoull(text, &end, 0);
    if (*text == '\0' || *end != '\0')
        return false;
    test_seed = (uint64_t)value;
    return true;
}

void harness_start(const char *program, uint64_t default_seed)
{
    program_name = program;
    test_seed = default_seed;
    const char *env_seed = getenv("FD_TEST_SEED");
    if (env_seed != NULL && !parse_seed(env_seed))
        fail_setup("FD_TEST_SEED=%s is not a number", env_seed);
}

bool take_seed_option(const char *arg)
{
    if (strncmp(arg, "--seed=", 7) != 0)
        return false;
    if (!parse_seed(arg + 7))
        fail_setup("%s: not a number", arg);
    return true;
}

void print_seed(void)
{
    printf("random seed: %#llx (override with --seed=N or FD_TEST_SEED=N)\n",
           (unsigned long long)test_seed);
}

int finish_run(const char *summary)
{
    printf("%s: %lu passed, %lu failed\n", summary, total_passed, total_failed);
    fflush(stdout);
    return total_failed == 0 ? 0 : 1;
}

/* ---- tallies ----------------------------------------------------------- */

/* The first few failures of a group say enough; the rest are counted. */
enum { FAILURES_DESCRIBED_PER_GROUP = 5 };

void check(group_tally *tally, bool ok, const char *fmt, ...)
{
    if (ok) {
        tally->passed++;
        return;
    }
    tally->failed++;
    if (tally->failed <= FAILURES_DESCRIBED_PER_GROUP) {
        va_list args;
        va_start(args, fmt);
        printf("    FAIL: ");
        vprintf(fmt, args);
        printf("\n");
        va_end(args);
    }
}

void report_group(const char *family, const char *kernel, const char *group, const char *detail,
                  const group_tally *tally)
{
    char label[64];
    snprintf(label, sizeof label, "[%s/%s]", family, kernel);
    printf("%-20s %-20s %7lu passed, %lu failed%s%s\n", label, group, tally->passed, tally->failed,
           detail[0] ? "  " : "", detail);
    if (tally->failed > FAILURES_DESCRIBED_PER_GROUP)
        printf("    (%lu more failures not shown)\n", tally->failed - FAILURES_DESCRIBED_PER_GROUP);
    total_passed += tally->passed;
    total_failed += tally->failed;
    fflush(stdout);
}

void fail_setup(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    printf("FAIL: ");
    vprintf(fmt, args);
    printf("\n");
    va_end(args);
    total_failed++;
}

void fail_fatal(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "%s MISMATCH: ", program_name);
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
    abort();
}

/* ---- random inputs ------------------------------------------------------ */

uint64_t rng_next(test_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

size_t rng_below(test_rng *rng, size_t bound)
{
    return (size_t)(rng_next(rng) % bound);
}

void rng_fill(test_rng *rng, uint8_t *out, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(rng_next(rng) >> 56);
}

test_rng rng_for(unsigned group, unsigned index)
{
    test_rng rng = {test_seed ^ ((uint64_t)group << 40) ^ ((uint64_t)index << 32)};
    rng_next(&rng);
    return rng;
}

/* ---- memory and hex ----------------------------------------------------- */

void *checked_malloc(size_t len)
{
    void *p = malloc(len != 0 ? len : 1);
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory (%zu bytes)\n", program_name, len);
        exit(2);
    }
    return p;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long decode_hex(const char *hex, uint8_t *out)
{
    size_t len = strlen(hex);
    if (len % 2 != 0)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        int high = hex_value(hex[i]), low = hex_value(hex[i + 1]);
        if (high < 0 || low < 0)
            return -1;
        out[i / 2] = (uint8_t)(high << 4 | low);
    }
    return (long)(len / 2);
}

const char *hex_string(const uint8_t *bytes, size_t len)
{
    static char text[2 * FD_MAX_DIGEST_LEN + 1];
    static const char digits[] = "0123456789abcdef";
    if (len > FD_MAX_DIGEST_LEN)
        len = FD_MAX_DIGEST_LEN;
    for (size_t i = 0; i < len; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 15];
    }
    text[2 * len] = '\0';
    return text;
}

/* ---- the families and their kernels ------------------------------------- */

/* Everything here is read off the families' rows (kernels/kernel.h's
 * FD_FAMILIES) through hash/family.h, so the drivers test a new family as
 * soon as it has a row. */

#define FAMILY_NAME(name, NAME, ...) [FD_FAMILY_##NAME] = #name,
const char *const family_names[FD_FAMILY_COUNT] = {FD_FAMILIES(FAMILY_NAME)};
#undef FAMILY_NAME

size_t family_block_len(enum fd_family family)
{
    return fd_family(family)->block_len;
}

size_t family_chain_len(enum fd_family family)
{
    return fd_family(family)->chain_len;
}

void *chain_of(enum fd_family family, test_chains *chains, unsigned lane)
{
    return fd_lane_chain(family, chains, lane);
}

void call_kernel(enum fd_family family, const fd_kernel *kernel, test_chains *chains, unsigned lane,
                 const uint8_t *blocks, size_t nblocks)
{
    fd_call_blocks(family, kernel, fd_lane_chain(family, chains, lane), blocks, nblocks);
}

void call_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel, test_chains *chains,
                       const uint8_t *const *blocks, size_t nblocks)
{
    fd_call_blocks_multi(family, kernel, chains, blocks, nblocks);
}

bool same_kernel(enum fd_family family, const fd_kernel *a, const fd_kernel *b)
{
    switch (family) {
#define SAME_BLOCKS_CASE(name, NAME, ...) \
    case FD_FAMILY_##NAME:                \
        return a->blocks.name == b->blocks.name;
        FD_FAMILIES(SAME_BLOCKS_CASE)
#undef SAME_BLOCKS_CASE
    case FD_FAMILY_COUNT:
        break;
    }
    return false;
}

#define PORTABLE_KERNEL(fam, FAM, ...) \
    [FD_FAMILY_##FAM] = {.name = "portable", .blocks.fam = fd_##fam##_blocks_portable},
static const fd_kernel portable_kernels[FD_FAMILY_COUNT] = {FD_FAMILIES(PORTABLE_KERNEL)};
#undef PORTABLE_KERNEL

const fd_kernel *portable_kernel(enum fd_family family)
{
    return &portable_kernels[family];
}

/* ---- the CPU ----------------------------------------------------------- */

/* fd_cpu_features() reads CPUID (or the auxiliary vector) on every call. */
static uint32_t this_cpu_features(void)
{
    static bool read;
    static uint32_t features;
    if (!read) {
        features = fd_cpu_features();
        read = true;
    }
    return features;
}

bool cpu_runs(uint32_t required_features)
{
    return (required_features & ~this_cpu_features()) == 0;
}

bool cpu_runs_or_say_skipped(enum fd_family family, const char *kernel_name,
                             uint32_t required_features)
{
    if (cpu_runs(required_features))
        return true;
    printf("[%s/%s] skipped: this CPU lacks ", family_names[family], kernel_name);
    print_features(required_features & ~this_cpu_features());
    printf("\n");
    return false;
}

static const struct {
    uint32_t bit;
    const char *name;
} feature_names[] = {
    {FD_CPU_SSSE3, "ssse3"},       {FD_CPU_SSE41, "sse4.1"},
    {FD_CPU_AVX, "avx"},           {FD_CPU_AVX2, "avx2"},
    {FD_CPU_BMI1, "bmi1"},         {FD_CPU_BMI2, "bmi2"},
    {FD_CPU_SHANI, "sha_ni"},      {FD_CPU_ARM_SHA1, "arm-sha1"},
    {FD_CPU_ARM_SHA2, "arm-sha2"}, {FD_CPU_ARM_SHA512, "arm-sha512"},
    {FD_CPU_AVX512F, "avx512f"},   {FD_CPU_AVX512VL, "avx512vl"},
    {FD_CPU_AVX512BW, "avx512bw"}, {FD_CPU_SHA512NI, "sha512ni"},
};

void print_features(uint32_t features)
{
    bool any = false;
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (features & feature_names[i].bit) {
            printf("%s%s", any ? " " : "", feature_names[i].name);
            any = true;
        }
    }
    if (!any)
        printf("(none)");
}
