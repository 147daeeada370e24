/* CPU feature detection: the only code that asks the CPU or the OS what the
 * CPU can do. */
#include "dispatch/dispatch.h"

#include <stdbool.h>
#include <stddef.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FD_X86_CPUID 1
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#define FD_ARM_HWCAP 1
#include <sys/auxv.h>
/* The bits of AT_HWCAP on Linux/arm64 (arch/arm64/include/uapi/asm/hwcap.h). */
#define FD_HWCAP_SHA1 (1ul << 5)
#define FD_HWCAP_SHA2 (1ul << 6)
#define FD_HWCAP_SHA512 (1ul << 21)
#endif

#if defined(FD_X86_CPUID)
/* XCR0, read with XGETBV: which register states the OS saves on a context
 * switch. Emitted as bytes so no -mxsave flag is needed. */
static uint64_t read_xcr0(void)
{
    uint32_t eax, edx;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
    return (uint64_t)edx << 32 | eax;
}

static uint32_t detect_x86(void)
{
    unsigned eax, ebx, ecx, edx;
    uint32_t features = 0;
    unsigned max_leaf = __get_cpuid_max(0, NULL);

    if (max_leaf < 1)
        return 0;
    __cpuid(1, eax, ebx, ecx, edx);
    if (ecx & bit_SSSE3)
        features |= FD_CPU_SSSE3;
    if (ecx & bit_SSE4_1)
        features |= FD_CPU_SSE41;
    /* AVX registers are usable only if the OS saves XMM and YMM state
     * (XCR0 bits 1 and 2), which it reports through OSXSAVE and XGETBV. */
    uint64_t xcr0 = (ecx & bit_OSXSAVE) ? read_xcr0() : 0;
    bool ymm_saved = (xcr0 & 0x6) == 0x6;
    /* AVX-512 also needs the opmask, upper-ZMM and ZMM16-31 states saved
     * (XCR0 bits 5, 6 and 7). */
    bool zmm_saved = ymm_saved && (xcr0 & 0xe0) == 0xe0;
    if (ymm_saved && (ecx & bit_AVX))
        features |= FD_CPU_AVX;

    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (ebx & bit_BMI)
            features |= FD_CPU_BMI1;
        if (ebx & bit_BMI2)
            features |= FD_CPU_BMI2;
        if (ymm_saved && (ebx & bit_AVX2))
            features |= FD_CPU_AVX2;
        if (ebx & (1u << 29)) /* SHA extensions; <cpuid.h> names it bit_SHA only lately */
            features |= FD_CPU_SHANI;
        if (zmm_saved && (ebx & bit_AVX512F))
            features |= FD_CPU_AVX512F;
        if (zmm_saved && (ebx & bit_AVX512VL))
            features |= FD_CPU_AVX512VL;
        if (zmm_saved && (ebx & bit_AVX512BW))
            features |= FD_CPU_AVX512BW;
    }
    return features;
}
#endif

uint32_t fd_cpu_features(void)
{
#if defined(FD_X86_CPUID)
    return detect_x86();
#elif defined(FD_ARM_HWCAP)
    unsigned long hwcap = getauxval(AT_HWCAP);
    uint32_t features = 0;
    if (hwcap & FD_HWCAP_SHA1)
        features |= FD_CPU_ARM_SHA1;
    if (hwcap & FD_HWCAP_SHA2)
        features |= FD_CPU_ARM_SHA2;
    if (hwcap & FD_HWCAP_SHA512)
        features |= FD_CPU_ARM_SHA512;
    return features;
#else
    return 0;
#endif
}
