/* Preloaded (LD_PRELOAD) into the Python that runs bochscpu-python 0.4.0 on
 * an older glibc than its wheel was built for, and with a CPU model that has
 * the SHA512 instructions. Built by tests/bochs/run.sh.
 *
 * - The wheel calls glibc 2.38's __isoc23_sscanf and __isoc23_strtoull
 *   (what <stdio.h> and <stdlib.h> name sscanf and strtoull when compiling
 *   for C23); Debian 12 has glibc 2.36. The C23 versions differ only in
 *   accepting binary numbers ("0b..."), which bochscpu's own parameter
 *   strings do not contain.
 * - Bochs reads its CPU model from the enum parameter "cpu.model", which the
 *   wheel sets to a model without the SHA512 instructions (CPUID.(EAX=7,
 *   ECX=1):EAX = 0, so they raise #UD). Its parameters are kept by the
 *   wheel's sim_get_param_enum; this one answers "cpu.model" with a
 *   parameter of its own whose value is FD_BOCHS_CPU_MODEL (default 31, the
 *   wheel's Arrow Lake: CPUID.(EAX=7,ECX=1):EAX = 0x8008d7) and hands every
 *   other name to the wheel's. The guest reads CPUID.(EAX=7,ECX=1) and
 *   the driver says what it found, so another model number shows at once.
 *   The wheel's own exports: sim_new_param_enum(name, choices, value). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __isoc23_sscanf(const char *text, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int matched = vsscanf(text, format, args);
    va_end(args);
    return matched;
}

unsigned long long __isoc23_strtoull(const char *text, char **end, int base)
{
    return strtoull(text, end, base);
}

typedef void *param_lookup(const char *name);
typedef void *param_enum_maker(const char *name, const char **choices, long value);

/* The wheel's definition of a symbol this library also defines: looked up
 * in the object that called us (the wheel's extension, which dlopen loaded
 * with RTLD_LOCAL, out of reach of RTLD_NEXT). */
static void *wheel_symbol(void *caller, const char *symbol)
{
    Dl_info info;
    if (dladdr(caller, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    void *wheel = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (wheel == NULL)
        return NULL;
    void *found = dlsym(wheel, symbol);
    dlclose(wheel);
    return found;
}

void *sim_get_param_enum(const char *name)
{
    static param_lookup *wheel_lookup;
    static void *cpu_model;
    void *caller = __builtin_return_address(0);

    if (wheel_lookup == NULL)
        wheel_lookup = (param_lookup *)wheel_symbol(caller, "sim_get_param_enum");
    if (name != NULL && strcmp(name, "cpu.model") == 0) {
        if (cpu_model == NULL) {
            param_enum_maker *make = (param_enum_maker *)wheel_symbol(caller, "sim_new_param_enum");
            /* Enough choices for any model number: bx_param_enum_c takes
             * the choices' count as its range. */
            static const char *choices[129];
            for (int i = 0; i < 128; i++)
                choices[i] = "model";
            const char *wanted = getenv("FD_BOCHS_CPU_MODEL");
            long model = wanted != NULL ? strtol(wanted, NULL, 10) : 31;
            if (make == NULL || model < 0 || model >= 128) {
                fprintf(stderr, "bochscpu_shim: cannot make the cpu.model parameter\n");
                abort();
            }
            cpu_model = make("model", choices, model);
        }
        return cpu_model;
    }
    if (wheel_lookup == NULL || wheel_lookup == (param_lookup *)sim_get_param_enum) {
        fprintf(stderr, "bochscpu_shim: the wheel's sim_get_param_enum is not found\n");
        abort();
    }
    return wheel_lookup(name);
}
