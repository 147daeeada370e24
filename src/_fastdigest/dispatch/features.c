/* CPU feature detection: the only code that asks the CPU or the OS what the
 * CPU can do, and the mask of features FASTDIGEST_DISABLE hides. */
#include "dispatch/features.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- x86: CPUID and XGETBV ---------------------------------------------
 * MSVC and clang-cl (FD_COMPILER_MSVC_INTRINSICS) have __cpuidex and
 * _xgetbv in <intrin.h>; GCC and Clang elsewhere, MinGW included, have
 * <cpuid.h> and inline assembly. ARM64EC defines _M_X64 but runs no x86
 * kernel (kernels/x86/x86.h leaves them out), so it detects nothing here. */
#if (defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)) && \
    !defined(_M_ARM64EC)
#if defined(FD_COMPILER_MSVC_INTRINSICS)
#define FD_X86_CPUID 1
#include <intrin.h>
#elif defined(FD_COMPILER_GNU)
#define FD_X86_CPUID 1
#include <cpuid.h>
#endif
#endif

/* ---- ARM: what the OS reports ------------------------------------------ */
#if defined(__aarch64__) || defined(_M_ARM64)
#if defined(__linux__)
#define FD_ARM_LINUX_HWCAP 1
#include <sys/auxv.h>
/* The bits of AT_HWCAP on Linux/arm64 (arch/arm64/include/uapi/asm/hwcap.h). */
#define FD_HWCAP_SHA1 (1ul << 5)
#define FD_HWCAP_SHA2 (1ul << 6)
#define FD_HWCAP_SHA512 (1ul << 21)
#elif defined(__APPLE__)
#define FD_ARM_APPLE_SYSCTL 1
#include <sys/sysctl.h>
#elif defined(_WIN32)
#define FD_ARM_WINDOWS 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#endif
#endif

#if defined(FD_X86_CPUID)
/* The CPUID bits read below (Intel SDM volume 2A, CPUID: "Feature
 * Information" for leaf 1, "Structured Extended Feature Flags" for leaf 7
 * subleaves 0 and 1). Spelled out here because <cpuid.h> lacks some names
 * in older compilers (bit_SHA) and MSVC has no such header. */
#define FD_CPUID1_ECX_SSSE3 (1u << 9)
#define FD_CPUID1_ECX_SSE41 (1u << 19)
#define FD_CPUID1_ECX_OSXSAVE (1u << 27)
#define FD_CPUID1_ECX_AVX (1u << 28)
#define FD_CPUID7_EBX_BMI1 (1u << 3)
#define FD_CPUID7_EBX_AVX2 (1u << 5)
#define FD_CPUID7_EBX_BMI2 (1u << 8)
#define FD_CPUID7_EBX_AVX512F (1u << 16)
#define FD_CPUID7_EBX_SHA (1u << 29)
#define FD_CPUID7_EBX_AVX512BW (1u << 30)
#define FD_CPUID7_EBX_AVX512VL (1u << 31)
#define FD_CPUID7_1_EAX_SHA512 (1u << 0) /* leaf 7 subleaf 1 */

enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

/* The highest standard CPUID leaf (0 where there is no CPUID at all, which
 * only a 32-bit CPU older than the Pentium can lack). */
static unsigned cpuid_max_leaf(void)
{
#if defined(FD_COMPILER_MSVC_INTRINSICS)
    int regs[4];
    __cpuid(regs, 0);
    return (unsigned)regs[CPUID_EAX];
#else
    return __get_cpuid_max(0, NULL);
#endif
}

static void cpuid(unsigned leaf, unsigned subleaf, uint32_t regs[4])
{
#if defined(FD_COMPILER_MSVC_INTRINSICS)
    int out[4];
    __cpuidex(out, (int)leaf, (int)subleaf);
    for (int i = 0; i < 4; i++)
        regs[i] = (uint32_t)out[i];
#else
    unsigned eax, ebx, ecx, edx;
    __cpuid_count(leaf, subleaf, eax, ebx, ecx, edx);
    regs[CPUID_EAX] = eax;
    regs[CPUID_EBX] = ebx;
    regs[CPUID_ECX] = ecx;
    regs[CPUID_EDX] = edx;
#endif
}

/* XCR0, read with XGETBV: which register states the OS saves on a context
 * switch. Call it only when CPUID reports OSXSAVE. */
#if defined(FD_COMPILER_MSVC_INTRINSICS) && defined(FD_COMPILER_CLANG)
/* clang-cl declares _xgetbv for code compiled for XSAVE only. */
__attribute__((target("xsave")))
#endif
static uint64_t
read_xcr0(void)
{
#if defined(FD_COMPILER_MSVC_INTRINSICS)
    return _xgetbv(0);
#else
    /* Emitted as bytes so that no -mxsave flag is needed. */
    uint32_t eax, edx;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
    return (uint64_t)edx << 32 | eax;
#endif
}

static uint32_t detect_x86(void)
{
    uint32_t regs[4];
    uint32_t features = 0;
    unsigned max_leaf = cpuid_max_leaf();

    if (max_leaf < 1)
        return 0;
    cpuid(1, 0, regs);
    const uint32_t ecx1 = regs[CPUID_ECX];
    if (ecx1 & FD_CPUID1_ECX_SSSE3)
        features |= FD_CPU_SSSE3;
    if (ecx1 & FD_CPUID1_ECX_SSE41)
        features |= FD_CPU_SSE41;
    /* AVX registers are usable only if the OS saves XMM and YMM state
     * (XCR0 bits 1 and 2), which it reports through OSXSAVE and XGETBV. */
    uint64_t xcr0 = (ecx1 & FD_CPUID1_ECX_OSXSAVE) ? read_xcr0() : 0;
    bool ymm_saved = (xcr0 & 0x6) == 0x6;
    /* AVX-512 also needs the opmask, upper-ZMM and ZMM16-31 states saved
     * (XCR0 bits 5, 6 and 7). */
    bool zmm_saved = ymm_saved && (xcr0 & 0xe0) == 0xe0;
    if (ymm_saved && (ecx1 & FD_CPUID1_ECX_AVX))
        features |= FD_CPU_AVX;

    if (max_leaf >= 7) {
        cpuid(7, 0, regs);
        const uint32_t ebx7 = regs[CPUID_EBX];
        if (ebx7 & FD_CPUID7_EBX_BMI1)
            features |= FD_CPU_BMI1;
        if (ebx7 & FD_CPUID7_EBX_BMI2)
            features |= FD_CPU_BMI2;
        if (ymm_saved && (ebx7 & FD_CPUID7_EBX_AVX2))
            features |= FD_CPU_AVX2;
        if (ebx7 & FD_CPUID7_EBX_SHA)
            features |= FD_CPU_SHANI;
        if (zmm_saved && (ebx7 & FD_CPUID7_EBX_AVX512F))
            features |= FD_CPU_AVX512F;
        if (zmm_saved && (ebx7 & FD_CPUID7_EBX_AVX512VL))
            features |= FD_CPU_AVX512VL;
        if (zmm_saved && (ebx7 & FD_CPUID7_EBX_AVX512BW))
            features |= FD_CPU_AVX512BW;
        /* Subleaf 0's EAX is the highest subleaf; the SHA512 instructions
         * are VEX.256, so they need the YMM state saved too. */
        if (regs[CPUID_EAX] >= 1) {
            cpuid(7, 1, regs);
            if (ymm_saved && (regs[CPUID_EAX] & FD_CPUID7_1_EAX_SHA512))
                features |= FD_CPU_SHA512NI;
        }
    }
    return features;
}

/* The vendor string of leaf 0 (EBX, EDX, ECX) and the display family and
 * model of leaf 1 (Intel SDM 2A, CPUID; AMD's APM volume 3 agrees): the
 * extended model counts for families 6 and 15, the extended family for 15. */
static fd_cpu_model detect_x86_model(void)
{
    uint32_t regs[4];
    fd_cpu_model model = {FD_CPU_VENDOR_OTHER, 0, 0};

    cpuid(0, 0, regs);
    char vendor[13];
    memcpy(vendor, &regs[CPUID_EBX], 4);
    memcpy(vendor + 4, &regs[CPUID_EDX], 4);
    memcpy(vendor + 8, &regs[CPUID_ECX], 4);
    vendor[12] = '\0';
    if (strcmp(vendor, "GenuineIntel") == 0)
        model.vendor = FD_CPU_VENDOR_INTEL;
    else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
        model.vendor = FD_CPU_VENDOR_AMD;
    if (regs[CPUID_EAX] < 1)
        return model;
    cpuid(1, 0, regs);
    uint32_t eax = regs[CPUID_EAX];
    unsigned family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
    model.family = family == 15 ? family + ((eax >> 20) & 0xff) : family;
    model.model = family == 6 || family == 15 ? ((eax >> 12) & 0xf0) | base_model : base_model;
    return model;
}
#endif /* FD_X86_CPUID */

#if defined(FD_ARM_LINUX_HWCAP)
static uint32_t detect_arm(void)
{
    unsigned long hwcap = getauxval(AT_HWCAP);
    uint32_t features = 0;
    if (hwcap & FD_HWCAP_SHA1)
        features |= FD_CPU_ARM_SHA1;
    if (hwcap & FD_HWCAP_SHA2)
        features |= FD_CPU_ARM_SHA2;
    if (hwcap & FD_HWCAP_SHA512)
        features |= FD_CPU_ARM_SHA512;
    return features;
}
#elif defined(FD_ARM_APPLE_SYSCTL)
/* A hw.optional flag of macOS: 1 or 0, or -1 where this macOS does not know
 * the name. */
static int apple_cpu_flag(const char *name)
{
    int value = 0;
    size_t len = sizeof value;
    if (sysctlbyname(name, &value, &len, NULL, 0) != 0 || len != sizeof value)
        return -1;
    return value != 0;
}

/* Apple's names for the instructions ("Determining instruction set
 * characteristics" in the sysctlbyname documentation) are
 * hw.optional.arm.FEAT_*, since macOS 12; macOS 11 had only
 * hw.optional.armv8_2_sha512 of these, and no flag for SHA-1 and SHA-256,
 * which every Apple arm64 CPU has (Go's internal/cpu and BoringSSL assume
 * them there, as this does where the new name is unknown). */
static uint32_t detect_arm(void)
{
    uint32_t features = 0;
    if (apple_cpu_flag("hw.optional.arm.FEAT_SHA1") != 0)
        features |= FD_CPU_ARM_SHA1;
    if (apple_cpu_flag("hw.optional.arm.FEAT_SHA256") != 0)
        features |= FD_CPU_ARM_SHA2;
    int sha512 = apple_cpu_flag("hw.optional.arm.FEAT_SHA512");
    if (sha512 < 0)
        sha512 = apple_cpu_flag("hw.optional.armv8_2_sha512");
    if (sha512 > 0)
        features |= FD_CPU_ARM_SHA512;
    return features;
}
#elif defined(FD_ARM_WINDOWS)
/* PF_ARM_V8_CRYPTO_INSTRUCTIONS_AVAILABLE covers AES, SHA-1 and SHA-256;
 * the SHA-512 flag is newer (Windows 11 SDKs, value 65) and is read where
 * the SDK defines it. */
static uint32_t detect_arm(void)
{
    uint32_t features = 0;
    if (IsProcessorFeaturePresent(PF_ARM_V8_CRYPTO_INSTRUCTIONS_AVAILABLE))
        features |= FD_CPU_ARM_SHA1 | FD_CPU_ARM_SHA2;
#ifdef PF_ARM_SHA512_INSTRUCTIONS_AVAILABLE
    if (IsProcessorFeaturePresent(PF_ARM_SHA512_INSTRUCTIONS_AVAILABLE))
        features |= FD_CPU_ARM_SHA512;
#endif
    return features;
}
#endif

uint32_t fd_cpu_detected_features(void)
{
#if defined(FD_X86_CPUID)
    return detect_x86();
#elif defined(FD_ARM_LINUX_HWCAP) || defined(FD_ARM_APPLE_SYSCTL) || defined(FD_ARM_WINDOWS)
    return detect_arm();
#else
    return 0;
#endif
}

fd_cpu_model fd_cpu_model_detected(void)
{
#if defined(FD_X86_CPUID)
    return detect_x86_model();
#else
    return (fd_cpu_model){FD_CPU_VENDOR_OTHER, 0, 0};
#endif
}

/* ---- the run-time mask (FASTDIGEST_DISABLE) ---------------------------- */

/* Independent names: disabling avx2 leaves the AVX-512 kernels (a CPU with
 * AVX-512 has AVX2 too, so a CPU without AVX2 is "avx512,avx2"); disabling
 * ssse3 also rules out the SHA-NI kernels, which require it, and avx2 the
 * SHA512-instruction kernel. */
const fd_cpu_feature_name fd_cpu_feature_names[] = {
    {"ssse3", FD_CPU_SSSE3},
    {"sse41", FD_CPU_SSE41},
    {"avx", FD_CPU_AVX},
    {"avx2", FD_CPU_AVX2},
    {"bmi1", FD_CPU_BMI1},
    {"bmi2", FD_CPU_BMI2},
    {"shani", FD_CPU_SHANI},
    {"avx512", FD_CPU_AVX512F | FD_CPU_AVX512VL | FD_CPU_AVX512BW},
    {"sha512ni", FD_CPU_SHA512NI},
    {"armsha1", FD_CPU_ARM_SHA1},
    {"armsha2", FD_CPU_ARM_SHA2},
    {"armsha512", FD_CPU_ARM_SHA512},
    {NULL, 0},
};

static uint32_t disabled_features;

void fd_cpu_disable(uint32_t mask)
{
    disabled_features = mask;
}

uint32_t fd_cpu_features(void)
{
    return fd_cpu_detected_features() & ~disabled_features;
}

static bool is_list_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The names, comma-separated, into out (cut to out_len, NUL-terminated). */
static void write_valid_names(char *out, size_t out_len)
{
    size_t used = 0;
    for (const fd_cpu_feature_name *f = fd_cpu_feature_names; f->name != NULL && used < out_len;
         f++) {
        int written = snprintf(out + used, out_len - used, "%s%s",
                               f == fd_cpu_feature_names ? "" : ", ", f->name);
        if (written < 0)
            break;
        used += (size_t)written;
    }
}

bool fd_cpu_parse_disable(const char *list, uint32_t *mask, char *reason, size_t reason_len)
{
    if (list == NULL)
        return true;
    const char *item = list;
    for (;;) {
        const char *end = item;
        while (*end != '\0' && *end != ',')
            end++;
        const char *first = item, *last = end;
        while (first < last && is_list_space(*first))
            first++;
        while (last > first && is_list_space(last[-1]))
            last--;
        const size_t len = (size_t)(last - first);
        if (len > 0) {
            const fd_cpu_feature_name *f = fd_cpu_feature_names;
            while (f->name != NULL && !(strlen(f->name) == len && memcmp(f->name, first, len) == 0))
                f++;
            if (f->name == NULL) {
                if (reason_len > 0) {
                    /* A long item is cut: the message is for a person. */
                    int shown = len > 40 ? 40 : (int)len;
                    int written = snprintf(reason, reason_len,
                                           "unknown feature '%.*s%s'; the names are: ", shown,
                                           first, len > 40 ? "..." : "");
                    if (written >= 0 && (size_t)written < reason_len)
                        write_valid_names(reason + written, reason_len - (size_t)written);
                }
                return false;
            }
            *mask |= f->bits;
        }
        if (*end == '\0')
            return true;
        item = end + 1;
    }
}
