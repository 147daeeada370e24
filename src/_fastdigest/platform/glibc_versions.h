/* The glibc symbol versions the extension binds to, so that a build against
 * a new glibc still runs on glibc 2.17 and keeps the manylinux2014 tag that
 * .ci/package.sh checks. glibc gives a function a new symbol version when
 * it moves or changes it, and a program linked against that glibc requires
 * the new version; the old one stays exported, the same function or its
 * old entry point, for programs linked before. Builds against an older
 * glibc (the manylinux images) bind to the old versions anyway. Linux on
 * x86-64 and aarch64, the wheels' targets; elsewhere nothing changes. Plain
 * C: no Python.h.
 *
 * Included once each by the files that make the calls, after the system
 * headers: platform/parallel.c (the threads) and files/system.c (fstat). */
#ifndef FD_CORE_GLIBC_VERSIONS_H
#define FD_CORE_GLIBC_VERSIONS_H

#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
#define FD_GLIBC_AT_LEAST(minor) (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= (minor)))
/* The first symbol version of each architecture: every function the
 * extension calls existed by then. */
#if defined(__x86_64__)
#define FD_GLIBC_FIRST_VERSION "GLIBC_2.2.5"
#else
#define FD_GLIBC_FIRST_VERSION "GLIBC_2.17"
#endif

/* glibc 2.34 moved the threads into libc under a new symbol version;
 * libc still exports the first versions of these calls. Setting a
 * condition's clock came with glibc 2.3.3 on x86-64. */
#if defined(__x86_64__)
#define FD_GLIBC_CONDITION_CLOCK_VERSION "GLIBC_2.3.3"
#else
#define FD_GLIBC_CONDITION_CLOCK_VERSION FD_GLIBC_FIRST_VERSION
#endif
#if FD_GLIBC_AT_LEAST(34)
#define FD_GLIBC_BIND_THREADS()                                                \
    __asm__(".symver pthread_create, pthread_create@" FD_GLIBC_FIRST_VERSION); \
    __asm__(".symver pthread_join, pthread_join@" FD_GLIBC_FIRST_VERSION);     \
    __asm__(".symver pthread_condattr_setclock, "                              \
            "pthread_condattr_setclock@" FD_GLIBC_CONDITION_CLOCK_VERSION)
#endif

/* glibc 2.33 made fstat a function of libc's (fstat64, under a new
 * version); before, sys/stat.h turned it into a call of __fxstat64 with the
 * version of struct stat as its first argument: _STAT_VER, 1 on x86-64 and
 * 0 on aarch64 (glibc's bits/stat.h of each). That entry point is still
 * exported, and fd_fstat calls it under a name of the extension's own. A
 * 64-bit struct stat is struct stat64 on both. */
#if FD_GLIBC_AT_LEAST(33)
#if defined(__x86_64__)
#define FD_GLIBC_STAT_VERSION 1
#else
#define FD_GLIBC_STAT_VERSION 0
#endif
struct stat;
int fd_glibc_fxstat64(int stat_version, int descriptor, struct stat *status);
__asm__(".symver fd_glibc_fxstat64, __fxstat64@" FD_GLIBC_FIRST_VERSION);
#define fd_fstat(descriptor, status) fd_glibc_fxstat64(FD_GLIBC_STAT_VERSION, descriptor, status)
#endif
#endif

#ifndef FD_GLIBC_BIND_THREADS
#define FD_GLIBC_BIND_THREADS() _Static_assert(1, "the threads' first versions need no binding")
#endif
#ifndef fd_fstat
#define fd_fstat fstat
#endif

#endif /* FD_CORE_GLIBC_VERSIONS_H */
