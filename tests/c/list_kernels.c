/* Lists the kernels of a build: for tests that check what a build with
 * another compiler or other flags compiled in (tests/test_sha512ni.py),
 * linked with the core's objects of that build. One line per kernel of
 * every family's single-stream table, in the table's order:
 *   kernel FAMILY NAME runs|lacks
 * (whether this CPU has the kernel's features), then one per family:
 *   selected FAMILY NAME
 * the kernel fd_select_kernels installs. */
#include <stdio.h>

#include "dispatch/dispatch.h"
#include "dispatch/features.h"

#define FAMILY_NAME(name, NAME, ...) [FD_FAMILY_##NAME] = #name,
static const char *const family_names[FD_FAMILY_COUNT] = {FD_FAMILIES(FAMILY_NAME)};
#undef FAMILY_NAME

int main(void)
{
    const uint32_t features = fd_cpu_features();
    for (int family = 0; family < FD_FAMILY_COUNT; family++) {
        for (const fd_kernel *kernel = fd_kernel_lists[family]; kernel->name != NULL; kernel++) {
            const int runs = (kernel->required_features & ~features) == 0;
            printf("kernel %s %s %s\n", family_names[family], kernel->name,
                   runs ? "runs" : "lacks");
        }
    }
    fd_select_kernels(false);
    for (int family = 0; family < FD_FAMILY_COUNT; family++)
        printf("selected %s %s\n", family_names[family], fd_active_kernels[family].name);
    return 0;
}
