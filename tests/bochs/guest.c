/* What the Bochs guest does with a mailbox the driver (run_guest.py) fills:
 * runs the SHA512-instruction kernel over each job's blocks, and each of the
 * three instructions on each case's operands. Built twice from this file by
 * tests/bochs/run.sh:
 *   - freestanding, by clang-19 with the instructions, linked at a fixed
 *     address (guest.ld) into the flat binary the Bochs CPU runs: _start
 *     below, with the mailbox's address in rdi;
 *   - with the model of the instructions (FD_SHA512NI_MODEL), as a shared
 *     library the driver calls on a copy of the same mailbox, so that the
 *     model and the instructions see the same inputs.
 *
 * The mailbox, 64-bit little-endian words from its start; offsets count
 * bytes from the start, so the same mailbox works at any address:
 *   0 magic ("FDBOCHS1")   1 job count    2 offset of the jobs
 *   3 case count           4 offset of the cases
 *   5 CPUID.(EAX=7,ECX=0):EAX and 6 CPUID.(EAX=7,ECX=1):EAX, written by the
 *     guest before anything else (0 in the native build)
 *   7 set to 1 when every job and case is done
 *   8 the features dispatch/features.c detects on this CPU (the guest links
 *     it), 9 the kernel's FD_SHA512NI_FEATURES and 10 FD_CPU_AVX512F, which
 *     the driver reads to check the detection (0 in the native build)
 *   11..15 unused
 * A job is 10 words: offset of its blocks, block count, and the chain
 * (a..h), which the kernel updates in place. A case is 22 words: the
 * operands a[4], b[4], c[2] and the results vsha512rnds2(a, b, c),
 * vsha512msg1(a, c) and vsha512msg2(a, b), 4 words each. */
#include <stddef.h>
#include <stdint.h>

#include "kernels/x86/sha512ni/sha512ni.h"

#include <immintrin.h>

#ifndef FD_HAVE_SHA512NI
#error "the guest needs the SHA512-instruction kernel (clang-19, or FD_SHA512NI_MODEL)"
#endif

#include "dispatch/features.h"

#ifdef FD_SHA512NI_MODEL
#include "kernels/x86/sha512ni/sha512ni_model.h"
/* tests/c/model_kernels.c, linked beside. */
fd_sha512_blocks_fn fd_sha512_blocks_sha512ni_model;
#define GUEST_KERNEL fd_sha512_blocks_sha512ni_model
#define GUEST_RNDS2 fd_model_mm256_sha512rnds2_epi64
#define GUEST_MSG1 fd_model_mm256_sha512msg1_epi64
#define GUEST_MSG2 fd_model_mm256_sha512msg2_epi64
#else
#define GUEST_KERNEL fd_sha512_blocks_sha512ni
#define GUEST_RNDS2 _mm256_sha512rnds2_epi64
#define GUEST_MSG1 _mm256_sha512msg1_epi64
#define GUEST_MSG2 _mm256_sha512msg2_epi64
#endif

enum {
    MAILBOX_MAGIC,
    MAILBOX_JOB_COUNT,
    MAILBOX_JOBS,
    MAILBOX_CASE_COUNT,
    MAILBOX_CASES,
    MAILBOX_CPUID_7_0_EAX,
    MAILBOX_CPUID_7_1_EAX,
    MAILBOX_DONE,
    MAILBOX_FEATURES,
    MAILBOX_KERNEL_FEATURES,
    MAILBOX_AVX512F,
    JOB_WORDS = 10,
    CASE_WORDS = 22,
};

#define MAILBOX_MAGIC_VALUE UINT64_C(0x3153484342444621) /* "!FDBCHS1" */

FD_TARGET_SHA512NI
static __m256i load4(const uint64_t *words)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)words);
}

FD_TARGET_SHA512NI
static void store4(uint64_t *words, __m256i value)
{
    _mm256_storeu_si256((__m256i *)(void *)words, value);
}

FD_TARGET_SHA512NI
static void run_case(uint64_t *c)
{
    const __m256i a = load4(c), b = load4(c + 4);
    const __m128i k = _mm_loadu_si128((const __m128i *)(const void *)(c + 8));

    store4(c + 10, GUEST_RNDS2(a, b, k));
    store4(c + 14, GUEST_MSG1(a, k));
    store4(c + 18, GUEST_MSG2(a, b));
}

/* Exported for the native build, called by _start in the guest. */
void guest_run(uint8_t *mailbox);

void guest_run(uint8_t *mailbox)
{
    uint64_t *box = (uint64_t *)(void *)mailbox;
    if (box[MAILBOX_MAGIC] != MAILBOX_MAGIC_VALUE)
        return;
    uint64_t *jobs = (uint64_t *)(void *)(mailbox + box[MAILBOX_JOBS]);
    for (uint64_t i = 0; i < box[MAILBOX_JOB_COUNT]; i++) {
        uint64_t *job = jobs + JOB_WORDS * i;
        /* The chain is the job's words from 2 on; the kernel takes it typed. */
        fd_sha512_chain chain;
        for (size_t w = 0; w < 8; w++)
            chain.words[w] = job[2 + w];
        GUEST_KERNEL(&chain, mailbox + job[0], (size_t)job[1]);
        for (size_t w = 0; w < 8; w++)
            job[2 + w] = chain.words[w];
    }
    uint64_t *cases = (uint64_t *)(void *)(mailbox + box[MAILBOX_CASES]);
    for (uint64_t i = 0; i < box[MAILBOX_CASE_COUNT]; i++)
        run_case(cases + CASE_WORDS * i);
    box[MAILBOX_DONE] = 1;
}

#ifndef FD_SHA512NI_MODEL
/* ---- the freestanding guest ---------------------------------------------- */

static uint32_t cpuid_eax(uint32_t leaf, uint32_t subleaf)
{
    uint32_t eax, ebx, ecx, edx;
    __asm__ volatile("cpuid"
                     : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
                     : "a"(leaf), "c"(subleaf));
    return eax;
}

void guest_main(uint8_t *mailbox);

void guest_main(uint8_t *mailbox)
{
    uint64_t *box = (uint64_t *)(void *)mailbox;
    box[MAILBOX_CPUID_7_0_EAX] = cpuid_eax(7, 0);
    box[MAILBOX_CPUID_7_1_EAX] = cpuid_eax(7, 1);
    box[MAILBOX_FEATURES] = fd_cpu_detected_features();
    box[MAILBOX_KERNEL_FEATURES] = FD_SHA512NI_FEATURES;
    box[MAILBOX_AVX512F] = FD_CPU_AVX512F;
    guest_run(mailbox);
}

/* What dispatch/features.c calls beyond the detection, which the guest
 * never reaches (the names of FASTDIGEST_DISABLE, the CPU's vendor). */
size_t strlen(const char *text);
int strcmp(const char *a, const char *b);
int snprintf(char *restrict out, size_t len, const char *restrict format, ...);

size_t strlen(const char *text)
{
    size_t len = 0;
    while (text[len] != '\0')
        len++;
    return len;
}

int strcmp(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int snprintf(char *restrict out, size_t len, const char *restrict format, ...)
{
    (void)format;
    if (len > 0)
        out[0] = '\0';
    return -1;
}

/* The four functions a freestanding C program must provide, which the
 * compiler may call for copies and clears. */
void *memcpy(void *restrict to, const void *restrict from, size_t len);
void *memmove(void *to, const void *from, size_t len);
void *memset(void *to, int value, size_t len);
int memcmp(const void *a, const void *b, size_t len);

void *memcpy(void *restrict to, const void *restrict from, size_t len)
{
    return memmove(to, from, len);
}

void *memmove(void *to, const void *from, size_t len)
{
    uint8_t *t = to;
    const uint8_t *f = from;
    if ((uintptr_t)t < (uintptr_t)f) {
        for (size_t i = 0; i < len; i++)
            t[i] = f[i];
    }
    else {
        for (size_t i = len; i != 0; i--)
            t[i - 1] = f[i - 1];
    }
    return to;
}

void *memset(void *to, int value, size_t len)
{
    volatile uint8_t *t = to;
    for (size_t i = 0; i < len; i++)
        t[i] = (uint8_t)value;
    return to;
}

int memcmp(const void *a, const void *b, size_t len)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < len; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

/* The entry point: the driver sets rdi to the mailbox's address and stops
 * the CPU at the hlt. */
static uint8_t guest_stack[1 << 16] __attribute__((aligned(64), used));

__asm__(".section .text.start, \"ax\", @progbits\n"
        ".globl _start\n"
        "_start:\n"
        "    lea guest_stack+65536(%rip), %rsp\n"
        "    call guest_main\n"
        "1:  hlt\n"
        "    jmp 1b\n"
        ".previous\n");
#endif
