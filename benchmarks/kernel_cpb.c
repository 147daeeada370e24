/* Cycles per byte of every compress kernel this CPU runs, beside OpenSSL's
 * own code for the same algorithm, in one process with interleaved rounds.
 *
 * Build and run from the repository root (x86-64 Linux, GCC or Clang):
 *   gcc -std=c11 -O3 -Isrc/_fastdigest \
 *       $(find src/_fastdigest -path src/_fastdigest/python -prune -o -name '*.c' -print) \
 *       benchmarks/kernel_cpb.c -lcrypto -o /tmp/kernel_cpb
 * (every source but the binding's). Against another OpenSSL 3 (the same
 * soname), run it with that OpenSSL's libraries first, e.g. Debian sid's
 * (.ci/sid-pythons.sh unpacks them):
 *   ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path ROOT/usr/lib/x86_64-linux-gnu /tmp/kernel_cpb
 *   OPENSSL_ia32cap=":~0x20000000" /tmp/kernel_cpb [sha1|sha256|sha512] [KIB] [ROUNDS]
 * (the mask hides SHA-NI from OpenSSL, which then runs its AVX2 code; see
 * shared notes for the other masks). Defaults: sha256, 256 KiB (in L2, so
 * memory plays no part), 101 rounds.
 *
 * Each round hashes the same buffer, one byte past an aligned address, once
 * with each kernel and once with OpenSSL's EVP digest. Printed per kernel:
 * the minimum and median TSC cycles per byte, and the median over rounds of
 * OpenSSL's time divided by the kernel's (> 1: the kernel is faster). The
 * TSC ticks at a fixed rate; the core's own clock is estimated once from a
 * chain of dependent adds (one cycle each) and printed as a factor. On a
 * shared machine, trust the minima and the ratios, not one median. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hash/family.h"
#include "dispatch/dispatch.h"

#define MAX_ROUNDS 1001
#define MAX_KERNELS 8

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

/* Core cycles per TSC tick: the fastest of many runs of 1,000 dependent
 * adds, which take one core cycle each. */
static double core_cycles_per_tick(void)
{
    unsigned long long best = ~0ull;

    for (int run = 0; run < 2000; run++) {
        unsigned long long x = 1, start = __rdtsc();
        for (int i = 0; i < 100; i++)
            __asm__ volatile("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                             "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                             "add %0, %0\n\tadd %0, %0"
                             : "+r"(x));
        unsigned long long ticks = __rdtsc() - start;
        if (ticks < best)
            best = ticks;
    }
    return 1000.0 / (double)best;
}

/* One call of kernel over the whole buffer, in TSC ticks. */
static unsigned long long time_kernel(enum fd_family family, const fd_kernel *kernel,
                                      const uint8_t *data, size_t len)
{
    fd_any_chain chain = {0};
    const size_t nblocks = len / fd_family(family)->block_len;
    unsigned long long start = __rdtsc();

    fd_call_blocks(family, kernel, &chain, data, nblocks);
    return __rdtsc() - start;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "sha256";
    size_t len = (size_t)(argc > 2 ? atoi(argv[2]) : 256) << 10;
    int rounds = argc > 3 ? atoi(argv[3]) : 101;
    enum fd_family family;
    const EVP_MD *md;

    if (strcmp(name, "sha1") == 0) {
        family = FD_FAMILY_SHA1;
        md = EVP_sha1();
    }
    else if (strcmp(name, "sha256") == 0) {
        family = FD_FAMILY_SHA256;
        md = EVP_sha256();
    }
    else if (strcmp(name, "sha512") == 0) {
        family = FD_FAMILY_SHA512;
        md = EVP_sha512();
    }
    else {
        fprintf(stderr, "usage: %s [sha1|sha256|sha512] [KIB] [ROUNDS]\n", argv[0]);
        return 2;
    }
    if (len == 0 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "KIB must be > 0 and ROUNDS 1..%d\n", MAX_ROUNDS);
        return 2;
    }

    uint8_t *buffer = malloc(len + 1);
    if (buffer == NULL)
        return 1;
    for (size_t i = 0; i <= len; i++)
        buffer[i] = (uint8_t)(i * 131 + (i >> 9));
    const uint8_t *data = buffer + 1;

    const uint32_t features = fd_cpu_features();
    const fd_kernel *kernels[MAX_KERNELS];
    int kernel_count = 0;
    for (const fd_kernel *k = fd_kernel_lists[family]; k->name != NULL; k++)
        if ((k->required_features & ~features) == 0 && kernel_count < MAX_KERNELS)
            kernels[kernel_count++] = k;

    static double cpb[MAX_KERNELS][MAX_ROUNDS], ratio[MAX_KERNELS][MAX_ROUNDS];
    static double openssl_cpb[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        unsigned long long ticks[MAX_KERNELS];
        for (int k = 0; k < kernel_count; k++)
            ticks[k] = time_kernel(family, kernels[k], data, len);
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned digest_len;
        unsigned long long start = __rdtsc();
        EVP_Digest(data, len, digest, &digest_len, md, NULL);
        unsigned long long openssl_ticks = __rdtsc() - start;
        openssl_cpb[r] = (double)openssl_ticks / (double)len;
        for (int k = 0; k < kernel_count; k++) {
            cpb[k][r] = (double)ticks[k] / (double)len;
            ratio[k][r] = (double)openssl_ticks / (double)ticks[k];
        }
    }

    printf("%s, %zu KiB, %d rounds; core cycles per TSC tick ~%.3f; %s\n", name, len >> 10, rounds,
           core_cycles_per_tick(), OpenSSL_version(OPENSSL_VERSION));
    printf("%-10s %10s %10s %14s\n", "kernel", "min cpb", "median cpb", "OpenSSL/kernel");
    for (int k = 0; k < kernel_count; k++) {
        double median_cpb = median(cpb[k], rounds);
        printf("%-10s %10.3f %10.3f %14.3f\n", kernels[k]->name, cpb[k][0], median_cpb,
               median(ratio[k], rounds));
    }
    double openssl_median = median(openssl_cpb, rounds);
    printf("%-10s %10.3f %10.3f\n", "openssl", openssl_cpb[0], openssl_median);
    free(buffer);
    return 0;
}
