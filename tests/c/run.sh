#!/usr/bin/env bash
# Builds the C core's test driver (tests/c/test_core.c) and runs it, here or
# on other CPUs under qemu-user.
#
#   tests/c/run.sh [TARGET...]      (default: native)
#
#   native    gcc, -O2 -Wall -Wextra -Werror, on this machine: every kernel
#             this CPU runs; then tests/c/test_batch.c, the batch driver and
#             the multi-buffer kernels against the single-stream ones (native
#             and sanitize only: the multi-buffer kernels are x86-only, and
#             the other targets build them out); then tests/c/test_files.c,
#             the file reader on files it writes under BUILD_DIR (native and
#             sanitize: its system calls are the host's, whatever the CPU);
#             tests/c/test_parts.c, a file's parts through every
#             multi-buffer kernel's lanes on threads, and a file changed
#             between two rounds of reads (native, sanitize and tsan);
#             tests/c/test_select.c, the selection's known-answer checks
#             refusing kernels made wrong on purpose (native and sanitize:
#             those kernels are portable C, the same on every CPU);
#             tests/c/test_columns.c, digest_array's and surrogate_key's
#             columns on 1 to 5 threads (native, sanitize and tsan), built
#             with chunks and thread parts as small as the fuzzers', so that
#             its columns of a few thousand rows are cut for every thread;
#             tests/c/test_fingerprint.c, fingerprint()'s plain C against
#             the bytes docs/fingerprint.md defines (native, sanitize and
#             s390x: the writers must not depend on the byte order); and
#             tests/c/wrong_family_row.c, whose rows with a kernel of the
#             wrong family must not compile
#   sanitize  the same with -fsanitize=address,undefined and -UNDEBUG: the
#             core's assert()s of its preconditions run (the extension's own
#             build keeps Python's -DNDEBUG); the binaries are checked to
#             call __assert_fail
#   tsan      the drivers of the threaded paths with clang's
#             -fsanitize=thread (and -UNDEBUG): the batch driver on threads
#             and the pipeline of digest_many, digests and HMACs
#             (test_batch --threads-only), the file reader and its
#             relay of a big file between two threads (test_files), the
#             digest columns and their references (test_columns).
#             halt_on_error=1 and exitcode=66 are added to any TSAN_OPTIONS
#             given: a report stops the driver and fails the run. No
#             suppressions.
#   aarch64   Debian's aarch64-linux-gnu-gcc, run under qemu-aarch64 twice:
#             -cpu max (SHA-1, SHA-2 and SHA-512 instructions) and
#             -cpu cortex-a72 (no SHA-512 instructions: the portable SHA-512
#             must be chosen, and an unguarded SHA-512 kernel would SIGILL)
#   aarch64-sanitize
#             the aarch64 build with -fsanitize=address,undefined (and
#             -UNDEBUG) under
#             qemu-aarch64 -cpu max: the ARM kernels are only ever run
#             emulated here, so they get their out-of-bounds checks there
#             (LeakSanitizer is off: it cannot run under qemu-user)
#   s390x     big-endian, under qemu-s390x: the portable C and the byte-order
#             helpers on a CPU where loads are not little-endian, and
#             test_fingerprint's bytes
#   all       all of the above
#
# Every test group runs for every kernel, under qemu too: the whole aarch64
# run takes about 25 s of emulation, most of it the Monte tests. Should that
# grow, FD_QEMU_MONTE=selected runs Monte under qemu only with the kernel
# fd_select_kernels picks for each family (the driver's --monte=selected).
#
# Missing cross compilers and qemu are installed with apt-get (root, or
# sudo), and missing test vectors with pip, so CI on a fresh Debian machine
# can call this as it is. Environment:
#   PYTHON          interpreter that has (or gets) cryptography-vectors
#   FD_VECTORS_DIR  the .../cryptography_vectors/hashes directory, to skip
#                   the lookup
#   FD_TEST_SEED    seed of the random tests (the driver prints the default)
#   CC              compiler for native and sanitize (default gcc)
#   TSAN_CC         compiler for tsan (default clang)
#   BUILD_DIR       where binaries go (default: a new folder
#                   ${TMPDIR:-/tmp}/fastdigest-tests-c.XXXXXX, named when
#                   the run begins, so that two runs at once never share one)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
src_dir="$repo_root/src/_fastdigest"
tests_dir="$repo_root/tests/c"
build_dir=${BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/fastdigest-tests-c.XXXXXX")}
echo "== building into $build_dir"
python=${PYTHON:-python3}
cflags=(-std=c11 -O2 -Wall -Wextra -Werror)
qemu_monte=${FD_QEMU_MONTE:-all}

mkdir -p "$build_dir"

# shellcheck source=../core_objects.sh
source "$repo_root/tests/core_objects.sh"
# Each build's objects of the core, under a folder named by its compiler and
# flags (core_objects), made afresh by each run.
rm -rf "$build_dir/objects"

# shellcheck source=../apt.sh
source "$repo_root/tests/apt.sh"

# ensure_cross TRIPLET QEMU LIBC_DEV GCC_PACKAGE
ensure_cross() {
    local triplet=$1 qemu=$2 libc_dev=$3 gcc_package=$4
    if ! command -v "$triplet-gcc" >/dev/null || ! command -v "$qemu" >/dev/null ||
        [ ! -e "/usr/$triplet/include/stdio.h" ]; then
        apt_install "$gcc_package" "$libc_dev" qemu-user
    fi
}

vectors_dir() {
    if [ -n "${FD_VECTORS_DIR:-}" ]; then
        printf '%s\n' "$FD_VECTORS_DIR"
        return
    fi
    local find='import cryptography_vectors, os; print(os.path.join(os.path.dirname(cryptography_vectors.__file__), "hashes"))'
    # Debian's python3-cryptography-vectors, outside most interpreters' path.
    local debian_dir=/usr/lib/python3/dist-packages/cryptography_vectors/hashes
    "$python" -c "$find" 2>/dev/null && return
    echo "== installing cryptography-vectors with $python -m pip" >&2
    if "$python" -m pip install -q cryptography-vectors >&2; then
        "$python" -c "$find" && return
    fi
    # A system interpreter may refuse pip (PEP 668): fall back to Debian's
    # package.
    if [ ! -d "$debian_dir" ] && command -v apt-get >/dev/null; then
        apt_install python3-cryptography-vectors || true
    fi
    if [ -d "$debian_dir" ]; then
        echo "$debian_dir"
    else
        # The driver gets a path that does not exist and fails: missing
        # vectors are a failure, never a skip.
        echo "$build_dir/cryptography-vectors-not-installed"
    fi
}

# run_timed LABEL COMMAND...: runs the driver, prints its output and the
# wall time, and remembers a failure.
failures=()
run_timed() {
    local label=$1
    shift
    echo "== $label: $*"
    local start=$SECONDS status=0
    "$@" || status=$?
    echo "== $label: exit $status, $((SECONDS - start)) s wall"
    [ "$status" = 0 ] || failures+=("$label")
}

# build DRIVER OUTPUT COMPILER EXTRA_FLAGS...: tests/c/DRIVER.c (test_core,
# test_batch: the batch driver's and the multi-buffer kernels' own,
# test_files: the file reader's, test_select: the checked selection's, or
# test_columns: the digest columns') with the shared test harness
# (harness.c), the kernels built on models of instructions the CPU may lack
# (model_kernels.c) and the core's objects of this compiler and these flags.
build() {
    local driver=$1 output=$2 compiler=$3 build_name
    shift 3
    local driver_flags=()
    # test_columns: the fuzzers' small chunks, thread parts and buffers
    # (tests/fuzz/run.sh), so that a few thousand rows make parts for five
    # threads, fill the sinks and key buffers and outgrow them.
    [ "$driver" = test_columns ] && driver_flags=(-DFD_ARROW_CHUNK_ROWS=37
        -DFD_ARROW_MIN_ROWS_PER_THREAD=50 -DFD_ARROW_SINK_BYTES=61 -DFD_SURROGATE_CHUNK_ROWS=37
        -DFD_SURROGATE_TEXT_BYTES=256)
    echo "== building $output with $compiler"
    build_name=$(printf '%s\n' "$compiler" "$@" | cksum | cut -d' ' -f1)
    core_objects "$build_dir/objects/$build_name" "$compiler" "${cflags[@]}" "$@" -I"$src_dir" \
        -- "${driver_flags[@]}"
    "$compiler" "${cflags[@]}" "$@" "${driver_flags[@]}" -I"$src_dir" -o "$output" \
        "$tests_dir/$driver.c" "$tests_dir/harness.c" "$tests_dir/model_kernels.c" "${core_object_list[@]}"
}

# tests/c/wrong_family_row.c compiles as it is and refuses, with the
# compiler's incompatible-pointer diagnosis, each row that puts a kernel in
# another family's row (WRONG_ROW=1..4): the families' kernel types differ.
check_wrong_family_rows() {
    local compiler=$1 log="$build_dir/wrong_family_row.log" row refused=0
    echo "== wrong-family dispatch rows with $compiler"
    if ! "$compiler" "${cflags[@]}" -I"$src_dir" -c "$tests_dir/wrong_family_row.c" \
        -o "$build_dir/wrong_family_row.o"; then
        failures+=("wrong_family_row.c without WRONG_ROW does not compile")
        return
    fi
    for row in 1 2 3 4; do
        if "$compiler" "${cflags[@]}" -DWRONG_ROW="$row" -I"$src_dir" -c \
            "$tests_dir/wrong_family_row.c" -o "$build_dir/wrong_family_row.o" 2>"$log"; then
            echo "== WRONG_ROW=$row compiled: a kernel of another family fits the row" >&2
            failures+=("wrong-family row $row compiled")
        elif ! grep -q incompatible "$log"; then
            cat "$log" >&2
            failures+=("wrong-family row $row failed for another reason")
        else
            refused=$((refused + 1))
        fi
    done
    echo "== wrong-family dispatch rows: $refused of 4 refused"
}

run_native() {
    check_wrong_family_rows "${CC:-gcc}"
    build test_core "$build_dir/test_core" "${CC:-gcc}"
    run_timed native "$build_dir/test_core" "$vectors"
    build test_batch "$build_dir/test_batch" "${CC:-gcc}"
    run_timed "native batch" "$build_dir/test_batch"
    build test_files "$build_dir/test_files" "${CC:-gcc}"
    run_timed "native files" "$build_dir/test_files" "$build_dir"
    build test_parts "$build_dir/test_parts" "${CC:-gcc}"
    run_timed "native parts" "$build_dir/test_parts" "$build_dir"
    build test_select "$build_dir/test_select" "${CC:-gcc}"
    run_timed "native select" "$build_dir/test_select"
    build test_columns "$build_dir/test_columns" "${CC:-gcc}"
    run_timed "native columns" "$build_dir/test_columns"
    build test_fingerprint "$build_dir/test_fingerprint" "${CC:-gcc}"
    run_timed "native fingerprint" "$build_dir/test_fingerprint"
}

# The sanitizer builds' flags: -UNDEBUG keeps the core's assert()s in even
# where CFLAGS-like settings carry -DNDEBUG.
sanitize_flags=(-g -UNDEBUG -fsanitize=address,undefined -fno-sanitize-recover=all)

# require_asserts BINARY: the build kept the core's assert()s (a binary
# without them calls no __assert_fail). Not grep -q: nm could then die of
# SIGPIPE, which pipefail counts as the pipeline failing.
require_asserts() {
    if ! nm "$1" | grep __assert_fail >/dev/null; then
        echo "== $1 has no assert(): built with NDEBUG" >&2
        failures+=("$(basename "$1") without assert()")
    fi
}

run_sanitize() {
    build test_core "$build_dir/test_core-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_core-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed sanitize "$build_dir/test_core-asan" "$vectors"
    build test_batch "$build_dir/test_batch-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_batch-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize batch" "$build_dir/test_batch-asan"
    build test_files "$build_dir/test_files-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_files-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize files" "$build_dir/test_files-asan" "$build_dir"
    build test_parts "$build_dir/test_parts-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_parts-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize parts" "$build_dir/test_parts-asan" "$build_dir"
    build test_select "$build_dir/test_select-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_select-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize select" "$build_dir/test_select-asan"
    build test_columns "$build_dir/test_columns-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_columns-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize columns" "$build_dir/test_columns-asan"
    build test_fingerprint "$build_dir/test_fingerprint-asan" "${CC:-gcc}" "${sanitize_flags[@]}" \
        -fno-omit-frame-pointer
    require_asserts "$build_dir/test_fingerprint-asan"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        run_timed "sanitize fingerprint" "$build_dir/test_fingerprint-asan"
}

# The ThreadSanitizer build: clang, as CPython's TSan CI and the TSan
# interpreter (.ci/build-python313t.sh --tsan) build. gcc 12 cannot: with its
# libtsan, the binding of fstat to glibc's first version
# (platform/glibc_versions.h) links a PLT relocation of type 0 that the loader
# refuses. Its flags, -UNDEBUG as the other sanitizer's; and its options:
# whatever the caller's TSAN_OPTIONS say, the first report stops the driver
# with exit code 66, which fails the run.
tsan_cc=${TSAN_CC:-clang}
tsan_flags=(-g -UNDEBUG -fsanitize=thread)
tsan_options="${TSAN_OPTIONS:+$TSAN_OPTIONS:}halt_on_error=1:exitcode=66"

# require_tsan BINARY: the build is instrumented (calls __tsan_init).
require_tsan() {
    if ! nm "$1" | grep __tsan_init >/dev/null; then
        echo "== $1 is not built with -fsanitize=thread" >&2
        failures+=("$(basename "$1") without ThreadSanitizer")
    fi
}

run_tsan() {
    local driver
    # clang's TSan runtime is in libclang-rt-N-dev, which clang only
    # recommends: the link of an empty program tells whether it is there.
    command -v "$tsan_cc" >/dev/null || apt_install clang
    printf 'int main(void) { return 0; }\n' >"$build_dir/tsan-probe.c"
    if ! "$tsan_cc" -fsanitize=thread -o "$build_dir/tsan-probe" "$build_dir/tsan-probe.c" 2>/dev/null; then
        apt_install "libclang-rt-$("$tsan_cc" -dumpversion | cut -d. -f1)-dev"
    fi
    for driver in test_batch test_files test_parts test_columns; do
        build "$driver" "$build_dir/$driver-tsan" "$tsan_cc" "${tsan_flags[@]}"
        require_asserts "$build_dir/$driver-tsan"
        require_tsan "$build_dir/$driver-tsan"
    done
    TSAN_OPTIONS=$tsan_options run_timed "tsan batch" "$build_dir/test_batch-tsan" --threads-only
    TSAN_OPTIONS=$tsan_options run_timed "tsan files" "$build_dir/test_files-tsan" "$build_dir"
    TSAN_OPTIONS=$tsan_options run_timed "tsan parts" "$build_dir/test_parts-tsan" "$build_dir"
    TSAN_OPTIONS=$tsan_options run_timed "tsan columns" "$build_dir/test_columns-tsan"
}

run_aarch64() {
    ensure_cross aarch64-linux-gnu qemu-aarch64 libc6-dev-arm64-cross gcc-aarch64-linux-gnu
    build test_core "$build_dir/test_core-aarch64" aarch64-linux-gnu-gcc
    local cpu
    for cpu in max cortex-a72; do
        run_timed "aarch64 -cpu $cpu" qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu "$cpu" \
            "$build_dir/test_core-aarch64" "$vectors" --monte="$qemu_monte"
    done
}

run_aarch64_sanitize() {
    ensure_cross aarch64-linux-gnu qemu-aarch64 libc6-dev-arm64-cross gcc-aarch64-linux-gnu
    build test_core "$build_dir/test_core-aarch64-asan" aarch64-linux-gnu-gcc "${sanitize_flags[@]}"
    require_asserts "$build_dir/test_core-aarch64-asan"
    ASAN_OPTIONS=detect_leaks=0 run_timed "aarch64-sanitize -cpu max" \
        qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max \
        "$build_dir/test_core-aarch64-asan" "$vectors" --monte="$qemu_monte"
}

run_s390x() {
    ensure_cross s390x-linux-gnu qemu-s390x libc6-dev-s390x-cross gcc-s390x-linux-gnu
    build test_core "$build_dir/test_core-s390x" s390x-linux-gnu-gcc
    run_timed s390x qemu-s390x -L /usr/s390x-linux-gnu \
        "$build_dir/test_core-s390x" "$vectors" --monte="$qemu_monte"
    build test_fingerprint "$build_dir/test_fingerprint-s390x" s390x-linux-gnu-gcc
    run_timed "s390x fingerprint" qemu-s390x -L /usr/s390x-linux-gnu "$build_dir/test_fingerprint-s390x"
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(native)
for target in "${targets[@]}"; do
    case $target in
    native | sanitize | tsan | aarch64 | aarch64-sanitize | s390x) ;;
    all) ;;
    *)
        echo "run.sh: unknown target '$target' (native, sanitize, tsan, aarch64, aarch64-sanitize, s390x, all)" >&2
        exit 2
        ;;
    esac
done

vectors=$(vectors_dir)
for target in "${targets[@]}"; do
    case $target in
    all)
        run_native
        run_sanitize
        run_tsan
        run_aarch64
        run_aarch64_sanitize
        run_s390x
        ;;
    *) "run_${target//-/_}" ;;
    esac
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "== FAILED: ${failures[*]}"
    exit 1
fi
echo "== all passed: ${targets[*]}"
