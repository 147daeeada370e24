/* An LD_PRELOAD shim that counts C heap allocations while counting is on.
 *
 * tests/test_allocations.py builds it, preloads it into a child interpreter
 * and switches counting on around many calls of one operation (through
 * ctypes: the functions below are found in the process's global namespace).
 * Every allocator entry point glibc offers is wrapped, and each forwards to
 * glibc's own implementation (__libc_malloc and friends), which avoids the
 * dlsym(RTLD_NEXT) bootstrap problem: dlsym itself allocates. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_bool counting;
static atomic_ulong allocations;

static void count_one(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void fd_count_allocations_start(void)
{
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

unsigned long fd_count_allocations_stop(void)
{
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

void *malloc(size_t size)
{
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size)
{
    count_one();
    return __libc_realloc(ptr, size);
}

void *memalign(size_t alignment, size_t size)
{
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    count_one();
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size)
{
    count_one();
    return __libc_memalign(4096, size);
}

int posix_memalign(void **result, size_t alignment, size_t size)
{
    count_one();
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    void *ptr = __libc_memalign(alignment, size);
    if (ptr == NULL)
        return ENOMEM;
    *result = ptr;
    return 0;
}
