#!/usr/bin/env bash
# The C core on the operating systems CI cannot run natively: cross-compiled
# with zig's clang (PyPI's ziglang, in a venv kept under FASTDIGEST_CI_ROOT) for macOS, Windows
# and musl Linux, compile-checked in MSVC mode, and the C test drivers run on
# Windows x86-64 under Debian's wine64.
#
#   .ci/cross.sh [PART...]    (default: every part; ziglang always runs)
#
# Parts, each timed:
#   ziglang     python3 -m venv + pip install ziglang (and cryptography-vectors
#               when no interpreter here has them)
#   TARGET      for aarch64-macos, x86_64-macos, x86_64-windows-gnu,
#               aarch64-windows-gnu, aarch64-linux-musl: every core source
#               compiled with -std=c11 -O2 -Wall -Wextra -Werror; the objects of
#               dispatch/features.c checked for the detection that target must have
#               (cpuid and xgetbv on x86-64, sysctlbyname on macOS arm64,
#               IsProcessorFeaturePresent on Windows arm64, getauxval on
#               Linux); then tests/c/test_core.c, test_batch.c and test_files.c linked
#               against them (not for musl: zig would first build musl from
#               source, and Linux/aarch64 links in tests/c/run.sh aarch64; not
#               for aarch64-windows-gnu: zig would first build the MinGW
#               runtime for it, ~220 s on a fresh machine, and the
#               x86_64-windows-gnu link, which the wine part runs, covers the
#               Windows link).
#               macOS binaries cannot run here: those targets are compile-and-
#               link checks only.
#   msvc        x86_64-windows-msvc with __clang__ undefined: the branches
#               MSVC itself compiles (_MSC_VER without __GNUC__ or __clang__:
#               __cpuidex/_xgetbv), with -Wvla -pedantic, and the core's
#               preprocessed lines searched for GCC-only constructs. zig ships no MSVC C library headers, so
#               -ffreestanding keeps clang's intrinsic headers from reaching
#               for them and a stub directory declares the few CRT and Win32
#               functions the core calls; clang, unlike MSVC, compiles an intrinsic only
#               for an enabled instruction set, hence the -m flags.
#   clang-cl    the same target with __clang__ kept: the branches clang-cl
#               compiles (_MSC_VER and __clang__).
#   wine        test_core.exe and test_batch.exe (x86_64-windows-gnu) under
#               wine64: every kernel this CPU has (the driver skips only those
#               whose features CPUID lacks, and wine's CPUID must report what
#               /proc/cpuinfo does); and test_files.exe, the file reader's
#               Windows branch (CreateFileW, ReadFile) on files it writes.
#
# The first run on a machine also has zig build the MinGW C runtimes (a few
# minutes each, cached in zig's global cache, ~/.cache/zig).
#
# Environment:
#   ZIGLANG_VERSION  the ziglang release (default 0.17.1)
#   ZIG_PYTHON       an interpreter that already has ziglang: skips the venv
#   FASTDIGEST_CI_ROOT  where the ziglang venv and zig's cache are kept
#                    between runs (default /opt/fastdigest-ci)
#   FD_VECTORS_DIR   .../cryptography_vectors/hashes, to skip the lookup
#   FD_TEST_SEED     seed of the drivers' random tests
#   FD_CROSS_JOBS    parallel compiles (default: the number of CPUs)
#   BUILD_DIR        where objects go (default ${TMPDIR:-/tmp}/fastdigest-cross)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/.." && pwd)
src_dir="$repo_root/src/_fastdigest"
build_dir=${BUILD_DIR:-${TMPDIR:-/tmp}/fastdigest-cross}
ziglang_version=${ZIGLANG_VERSION:-0.17.1}
ci_root=${FASTDIGEST_CI_ROOT:-/opt/fastdigest-ci}
zig_cache=$ci_root/zig-cache-$ziglang_version
jobs_max=${FD_CROSS_JOBS:-$(nproc)}
cflags=(-std=c11 -O2 -Wall -Wextra -Werror)
targets=(aarch64-macos x86_64-macos x86_64-windows-gnu aarch64-windows-gnu aarch64-linux-musl)

# shellcheck source=../tests/apt.sh
source "$repo_root/tests/apt.sh"

# The C core: every .c file of the extension but the Python binding.
core_sources() {
    find "$src_dir" -name '*.c' ! -path "$src_dir/python/*" | LC_ALL=C sort
}

# The object file name of a source: its path under src_dir, '/' as '_'.
object_name() {
    local relative=${1#"$src_dir"/}
    relative=${relative//\//_}
    printf '%s\n' "${relative%.c}.o"
}

failures=()
# part NAME COMMAND...: runs a part, prints its wall time, remembers a failure.
# (set -e does not reach into a command tested with ||: the parts' functions
# return their failures themselves.)
part() {
    local name=$1
    shift
    echo "== $name"
    local start status=0
    start=$(date +%s.%N)
    "$@" || status=$?
    awk -v name="$name" -v status="$status" -v start="$start" -v end="$(date +%s.%N)" \
        'BEGIN { printf "== %s: %s, %.1f s\n", name, status == 0 ? "ok" : "FAILED (exit " status ")", end - start }'
    [ "$status" = 0 ] || failures+=("$name")
}

zig_cc() {
    "$zig_python" -m ziglang cc "$@"
}

# compile_objects OUT_DIR FLAG...: every core source into OUT_DIR, in parallel.
compile_objects() {
    local out=$1 source running=0 failed=0
    shift
    rm -rf "$out"
    mkdir -p "$out"
    mapfile -t sources < <(core_sources)
    for source in "${sources[@]}"; do
        if [ "$running" -ge "$jobs_max" ]; then
            wait -n || failed=1
            running=$((running - 1))
        fi
        zig_cc "$@" -I"$src_dir" -c "$source" -o "$out/$(object_name "$source")" &
        running=$((running + 1))
    done
    while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    [ "$failed" = 0 ] || echo "some sources did not compile (above)" >&2
    return "$failed"
}

disassemble() {
    llvm-objdump -d "$1"
}

# require_instructions OBJECT MNEMONIC...: each instruction is in OBJECT.
require_instructions() {
    local object=$1 mnemonic listing
    shift
    listing=$(disassemble "$object")
    for mnemonic in "$@"; do
        if ! grep -qw "$mnemonic" <<<"$listing"; then
            echo "$(basename "$object"): no $mnemonic instruction: this target detects no x86 feature" >&2
            return 1
        fi
    done
    echo "$(basename "$object"): has $*"
}

# require_symbol OBJECT NAME: OBJECT refers to NAME (an OS feature query).
require_symbol() {
    if ! llvm-nm "$1" | grep -q "$2"; then
        echo "$(basename "$1"): does not call $2: this target detects no ARM feature" >&2
        return 1
    fi
    echo "$(basename "$1"): calls $2"
}

check_detection() { # check_detection TARGET OBJECT_DIR
    local cpu_object=$2/dispatch_features.o
    case $1 in
    x86_64-*) require_instructions "$cpu_object" cpuid xgetbv ;;
    aarch64-macos) require_symbol "$cpu_object" sysctlbyname ;;
    aarch64-windows-*) require_symbol "$cpu_object" IsProcessorFeaturePresent ;;
    aarch64-linux-*) require_symbol "$cpu_object" getauxval ;;
    esac
}

link_driver() { # link_driver TARGET OBJECT_DIR DRIVER.c OUTPUT: with the drivers' harness
    zig_cc -target "$1" "${cflags[@]}" -I"$src_dir" -o "$4" "$3" "$repo_root/tests/c/harness.c" \
        "$repo_root/tests/c/model_kernels.c" "$2"/*.o
}

cross_target() { # cross_target TARGET
    local target=$1 objects="$build_dir/$1"
    compile_objects "$objects" -target "$target" "${cflags[@]}" || return 1
    check_detection "$target" "$objects" || return 1
    case $target in
    *-linux-musl | aarch64-windows-*) return 0 ;;
    esac
    local suffix=
    case $target in *-windows-*) suffix=.exe ;; esac
    link_driver "$target" "$objects" "$repo_root/tests/c/test_core.c" "$build_dir/test_core-$target$suffix" ||
        return 1
    link_driver "$target" "$objects" "$repo_root/tests/c/test_batch.c" "$build_dir/test_batch-$target$suffix" ||
        return 1
    link_driver "$target" "$objects" "$repo_root/tests/c/test_files.c" "$build_dir/test_files-$target$suffix" ||
        return 1
    echo "linked test_core-$target$suffix, test_batch-$target$suffix and test_files-$target$suffix"
}

# Declarations, with the signatures of Microsoft's C runtime and SDK, of what the
# core uses from <string.h>, <stdio.h>, <stdlib.h>, <math.h>, <errno.h>, <inttypes.h> and <assert.h>, and
# from <windows.h> and <process.h> (platform/parallel.c's threads, files/system.c's files and
# clock); the rest of the C
# library headers it includes are compiler-provided (stddef, stdint, stdbool,
# stdarg) and come with clang.
write_crt_stubs() {
    local dir=$1
    mkdir -p "$dir"
    cat >"$dir/string.h" <<'EOF'
#include <stddef.h>
void *memcpy(void *dest, const void *src, size_t count);
void *memmove(void *dest, const void *src, size_t count);
void *memset(void *dest, int c, size_t count);
int memcmp(const void *a, const void *b, size_t count);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t count);
char *strcpy(char *dest, const char *src);
char *strchr(const char *s, int c);
void *memchr(const void *s, int c, size_t count);
EOF
    cat >"$dir/stdlib.h" <<'EOF'
#include <stddef.h>
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
void abort(void);
void qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *));
EOF
    cat >"$dir/math.h" <<'EOF'
double fabs(double x);
double frexp(double x, int *exponent);
short _dsign(double x);
#define signbit(x) _dsign(x)
EOF
    cat >"$dir/errno.h" <<'EOF'
#define ENOMEM 12
EOF
    cat >"$dir/stdio.h" <<'EOF'
#include <stdarg.h>
#include <stddef.h>
int snprintf(char *buffer, size_t count, const char *format, ...);
int vsnprintf(char *buffer, size_t count, const char *format, va_list args);
EOF
    cat >"$dir/inttypes.h" <<'EOF'
#include <stdint.h>
#define PRIu64 "llu"
EOF
    cat >"$dir/assert.h" <<'EOF'
#undef assert
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#include <stddef.h>
void _wassert(const wchar_t *message, const wchar_t *file, unsigned line);
#define assert(expression) \
    ((void)(!!(expression) || (_wassert(L"" #expression, L"" __FILE__, (unsigned)__LINE__), 0)))
#endif
EOF
    cat >"$dir/windows.h" <<'EOF'
#include <stddef.h>
typedef void *HANDLE;
typedef unsigned long DWORD;
typedef unsigned short WORD;
typedef unsigned long ULONG;
typedef unsigned long long ULONGLONG;
typedef int BOOL;
typedef union _LARGE_INTEGER { long long QuadPart; } LARGE_INTEGER, *PLARGE_INTEGER;
typedef struct _FILETIME { DWORD dwLowDateTime; DWORD dwHighDateTime; } FILETIME, *LPFILETIME;
#define WINAPI __stdcall
#define INFINITE 0xFFFFFFFF
#define ALL_PROCESSOR_GROUPS 0xffff
#define GENERIC_READ 0x80000000UL
#define FILE_SHARE_READ 0x00000001
#define FILE_SHARE_WRITE 0x00000002
#define OPEN_EXISTING 3
#define FILE_FLAG_SEQUENTIAL_SCAN 0x08000000
#define FILE_TYPE_DISK 0x0001
#define ERROR_BROKEN_PIPE 109L
#define ERROR_HANDLE_EOF 38L
typedef struct _OVERLAPPED {
    unsigned long long Internal;
    unsigned long long InternalHigh;
    union {
        struct {
            DWORD Offset;
            DWORD OffsetHigh;
        };
        void *Pointer;
    };
    HANDLE hEvent;
} OVERLAPPED, *LPOVERLAPPED;
#define INVALID_HANDLE_VALUE ((HANDLE)(long long)-1)
HANDLE WINAPI CreateFileW(const wchar_t *file_name, DWORD desired_access, DWORD share_mode,
                          void *security_attributes, DWORD creation_disposition,
                          DWORD flags_and_attributes, HANDLE template_file);
BOOL WINAPI ReadFile(HANDLE file, void *buffer, DWORD bytes_to_read, DWORD *bytes_read,
                     void *overlapped);
DWORD WINAPI GetLastError(void);
DWORD WINAPI GetFileType(HANDLE file);
BOOL WINAPI GetFileSizeEx(HANDLE file, PLARGE_INTEGER size);
BOOL WINAPI GetFileTime(HANDLE file, LPFILETIME creation, LPFILETIME last_access, LPFILETIME last_write);
ULONGLONG WINAPI GetTickCount64(void);
BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *count);
BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *frequency);
BOOL WINAPI SwitchToThread(void);
DWORD WINAPI WaitForSingleObject(HANDLE handle, DWORD milliseconds);
BOOL WINAPI CloseHandle(HANDLE handle);
DWORD WINAPI GetActiveProcessorCount(WORD group_number);
typedef struct _RTL_SRWLOCK { void *Ptr; } SRWLOCK, *PSRWLOCK;
#define SRWLOCK_INIT {0}
typedef struct _RTL_CONDITION_VARIABLE { void *Ptr; } CONDITION_VARIABLE, *PCONDITION_VARIABLE;
void WINAPI InitializeSRWLock(PSRWLOCK lock);
void WINAPI AcquireSRWLockExclusive(PSRWLOCK lock);
void WINAPI ReleaseSRWLockExclusive(PSRWLOCK lock);
void WINAPI InitializeConditionVariable(PCONDITION_VARIABLE condition);
BOOL WINAPI SleepConditionVariableSRW(PCONDITION_VARIABLE condition, PSRWLOCK lock, DWORD milliseconds,
                                      ULONG flags);
void WINAPI WakeConditionVariable(PCONDITION_VARIABLE condition);
void WINAPI WakeAllConditionVariable(PCONDITION_VARIABLE condition);
EOF
    cat >"$dir/process.h" <<'EOF'
#include <stdint.h>
uintptr_t _beginthreadex(void *security, unsigned stack_size, unsigned(__stdcall *start_address)(void *),
                         void *arglist, unsigned initflag, unsigned *thrdaddr);
EOF
}

# gcc_constructs FLAG...: the lines of the core's own files that, preprocessed
# with FLAG..., still use a GCC or Clang extension MSVC lacks: attributes,
# inline assembly, typeof, statement expressions, GCC/Clang pragmas and
# builtins (but those of clang's intrinsic macros, va_* and offsetof, which
# expand inside the core's lines).
gcc_constructs() {
    local source found=0
    mapfile -t sources < <(core_sources)
    for source in "${sources[@]}"; do
        zig_cc "$@" -I"$src_dir" -E "$source" |
            awk -v src="$src_dir/" -v name="${source#"$src_dir"/}" '
                /^# [0-9]+ "/ { file = $3; gsub(/"/, "", file); own = index(file, src) == 1; next }
                own { print name ": " $0 }' |
            grep -P '__attribute__|__asm__|\basm\b|__typeof__|\btypeof\b|\(\{|#pragma (GCC|clang)|__builtin_(?!ia32_|va_|offsetof)' &&
            found=1
    done
    [ "$found" = 0 ] || { echo "GCC-only constructs outside the compiler guards (above)" >&2; return 1; }
    echo "no GCC-only construct in MSVC's branches"
}

# msvc_mode NAME EXTRA_FLAG...: the core for x86_64-windows-msvc.
msvc_mode() {
    local name=$1 objects="$build_dir/$1" stubs="$build_dir/msvc-crt-stubs"
    shift
    local flags=(-target x86_64-windows-msvc -ffreestanding -isystem "$stubs" "${cflags[@]}" -Wvla -pedantic
        -mssse3 -msse4.1 -mavx2 -mbmi -mbmi2 -msha -mavx512f -mavx512vl -mavx512bw -mxsave "$@")
    write_crt_stubs "$stubs" || return 1
    local macros
    macros=$(zig_cc "${flags[@]}" -dM -E -x c /dev/null) || return 1
    grep -q '#define _MSC_VER' <<<"$macros" || { echo "_MSC_VER is not defined" >&2; return 1; }
    if grep -q '#define __GNUC__' <<<"$macros"; then
        echo "__GNUC__ is defined: not MSVC's branches" >&2
        return 1
    fi
    if [ "$name" = msvc ] && grep -q '#define __clang__' <<<"$macros"; then
        echo "__clang__ is still defined" >&2
        return 1
    fi
    compile_objects "$objects" "${flags[@]}" || return 1
    if [ "$name" = msvc ]; then
        gcc_constructs "${flags[@]}" || return 1
    fi
    require_instructions "$objects/dispatch_features.o" cpuid xgetbv
}

vectors_dir() {
    local find='import cryptography_vectors, os; print(os.path.join(os.path.dirname(cryptography_vectors.__file__), "hashes"))'
    if [ -n "${FD_VECTORS_DIR:-}" ]; then
        printf '%s\n' "$FD_VECTORS_DIR"
    elif python3 -c "$find" 2>/dev/null; then
        :
    elif [ -d /usr/lib/python3/dist-packages/cryptography_vectors/hashes ]; then
        echo /usr/lib/python3/dist-packages/cryptography_vectors/hashes
    elif [ -n "${zig_venv:-}" ] && "$zig_venv/bin/pip" install -q cryptography-vectors >&2; then
        "$zig_venv/bin/python" -c "$find"
    else
        # The driver gets a path that does not exist and fails: missing
        # vectors are a failure, never a skip.
        echo "$build_dir/cryptography-vectors-not-installed"
    fi
}

find_wine() {
    command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || command -v wine
}

# The features test_core prints ("CPU features: ..."), in its order, that
# /proc/cpuinfo reports.
expected_driver_features() {
    local flags name
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    local -a pairs=(ssse3:ssse3 sse4_1:sse4.1 avx:avx avx2:avx2 bmi1:bmi1 bmi2:bmi2 sha_ni:sha_ni
        avx512f:avx512f avx512vl:avx512vl avx512bw:avx512bw)
    local out=()
    for name in "${pairs[@]}"; do
        [[ $flags == *" ${name%%:*} "* ]] && out+=("${name#*:}")
    done
    echo "${out[*]:-(none)}"
}

run_wine() {
    local wine
    wine=$(find_wine) || {
        apt_install wine64 || return 1
        wine=$(find_wine) || return 1
    }
    export WINEPREFIX="$build_dir/wineprefix" WINEDEBUG=-all
    local vectors log="$build_dir/wine-test_core.log" status=0
    vectors=$(vectors_dir)
    echo "$wine test_core-x86_64-windows-gnu.exe Z:$vectors"
    "$wine" "$build_dir/test_core-x86_64-windows-gnu.exe" "Z:$vectors" >"$log" 2>"$log.stderr" || status=$?
    grep -E '^(CPU features|selected kernels|C core)|skipped|FAIL' "$log" || true
    if [ "$status" != 0 ]; then
        tail -20 "$log" "$log.stderr" >&2
        return "$status"
    fi
    local seen expected
    seen=$(sed -n 's/^CPU features: //p' "$log" | tr -d '\r')
    expected=$(expected_driver_features)
    if [ "$seen" != "$expected" ]; then
        echo "under wine the driver saw '$seen', /proc/cpuinfo has '$expected'" >&2
        return 1
    fi
    log="$build_dir/wine-test_batch.log"
    "$wine" "$build_dir/test_batch-x86_64-windows-gnu.exe" >"$log" 2>"$log.stderr" || status=$?
    tail -3 "$log"
    if [ "$status" != 0 ]; then
        tail -20 "$log.stderr" >&2
        return "$status"
    fi
    # The file reader's CreateFileW/ReadFile branch, on files the driver writes under build_dir.
    log="$build_dir/wine-test_files.log"
    "$wine" "$build_dir/test_files-x86_64-windows-gnu.exe" "Z:$build_dir" >"$log" 2>"$log.stderr" || status=$?
    tail -3 "$log"
    [ "$status" = 0 ] || tail -20 "$log.stderr" >&2
    return "$status"
}

setup_ziglang() {
    if [ -n "${ZIG_PYTHON:-}" ]; then
        zig_python=$ZIG_PYTHON
    else
        # A fixed place outside the checkout, kept between runs like the
        # free-threaded Python (.ci/pythons.sh): zig's cache records the
        # paths of the zig it compiled with (MinGW's runtime, ~5 minutes to
        # build), and a cache made by a zig that has since been deleted
        # fails the next build instead of being rebuilt.
        local zig_venv=$ci_root/ziglang-$ziglang_version
        if ! "$zig_venv/bin/python" -m ziglang version >/dev/null 2>&1; then
            rm -rf "$zig_venv" "$zig_cache"
            python3 -m venv "$zig_venv" || return 1
            "$zig_venv/bin/pip" install -q "ziglang==$ziglang_version" || return 1
        fi
        zig_python="$zig_venv/bin/python"
    fi
    mkdir -p "$zig_cache"
    export ZIG_GLOBAL_CACHE_DIR=$zig_cache
    local version
    version=$("$zig_python" -m ziglang version) || return 1
    echo "zig $version"
}

mkdir -p "$build_dir"
command -v llvm-objdump >/dev/null && command -v llvm-nm >/dev/null || apt_install llvm
grep -m1 'model name' /proc/cpuinfo || true

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=("${targets[@]}" msvc clang-cl wine)
for name in "${parts[@]}"; do
    case " ${targets[*]} msvc clang-cl wine " in
    *" $name "*) ;;
    *)
        echo "cross.sh: unknown part '$name' (${targets[*]} msvc clang-cl wine)" >&2
        exit 2
        ;;
    esac
done

part ziglang setup_ziglang
[ ${#failures[@]} = 0 ] || { echo "== FAILED: no compiler"; exit 1; }
for name in "${parts[@]}"; do
    case $name in
    msvc) part msvc msvc_mode msvc -U__clang__ ;;
    clang-cl) part clang-cl msvc_mode clang-cl ;;
    wine)
        # The drivers come from the x86_64-windows-gnu part.
        case " ${parts[*]} " in
        *" x86_64-windows-gnu "*) ;;
        *) part x86_64-windows-gnu cross_target x86_64-windows-gnu ;;
        esac
        if [ -e "$build_dir/test_core-x86_64-windows-gnu.exe" ]; then
            part wine run_wine
        else
            failures+=("wine (no x86_64-windows-gnu build)")
        fi
        ;;
    *) part "$name" cross_target "$name" ;;
    esac
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "== FAILED: ${failures[*]}"
    exit 1
fi
echo "== all passed"
