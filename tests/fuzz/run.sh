#!/usr/bin/env bash
# Builds the C core's libFuzzer target (tests/fuzz/fuzz_core.c) with
# clang -fsanitize=fuzzer,address,undefined and runs it.
#
#   tests/fuzz/run.sh [SECONDS]     (default 60)
#
# First every input of the committed seed corpus (tests/fuzz/corpus/: the
# padding and block boundaries, multi-block messages, odd split patterns) is
# run once, then the fuzzer mutates from it for SECONDS seconds. New inputs go
# to a scratch corpus under BUILD_DIR, never into the committed one; a
# mismatch or sanitizer report stops the run, saves the input as
# BUILD_DIR/crash-* and fails the script. Reproduce one with
# BUILD_DIR/fuzz_core CRASH_FILE.
#
# Debian 12's clang (clang 14) and libclang-rt-14-dev (libFuzzer and the
# sanitizer runtimes, only recommended by clang) are installed with apt-get
# when missing (root, or sudo): a missing tool fails, it never skips. Environment:
#   CLANG       the compiler (default clang, else clang-14)
#   BUILD_DIR   where the binary and the scratch corpus go (default
#               ${TMPDIR:-/tmp}/fastdigest-fuzz)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
src_dir="$repo_root/src/_fastdigest"
fuzz_dir="$repo_root/tests/fuzz"
build_dir=${BUILD_DIR:-${TMPDIR:-/tmp}/fastdigest-fuzz}
seconds=${1:-60}

case $seconds in
'' | *[!0-9]*)
    echo "fuzz/run.sh: SECONDS must be a whole number, not '$seconds'" >&2
    exit 2
    ;;
esac

# shellcheck source=../apt.sh
source "$repo_root/tests/apt.sh"

find_clang() {
    if [ -n "${CLANG:-}" ]; then
        command -v "$CLANG" && return
        echo "fuzz/run.sh: CLANG=$CLANG not found" >&2
        return 1
    fi
    command -v clang && return
    command -v clang-14 && return
    apt_install clang
    command -v clang
}

clang=$(find_clang)
mkdir -p "$build_dir/corpus"

# libFuzzer and the sanitizer runtimes are in libclang-rt-N-dev, which clang
# only recommends: a link of an empty target tells whether it is there.
probe="$build_dir/probe.c"
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$clang" -fsanitize=fuzzer,address,undefined -o "$build_dir/probe" "$probe" 2>/dev/null; then
    major=$("$clang" -dumpversion | cut -d. -f1)
    apt_install "libclang-rt-$major-dev"
    "$clang" -fsanitize=fuzzer,address,undefined -o "$build_dir/probe" "$probe"
fi

# Every .c file of the C core: all of src/_fastdigest but the Python binding
# (python/, the only code that includes Python.h); and the test harness the
# C drivers share (tests/c/harness.c), which every fuzz target links.
harness="$repo_root/tests/c/harness.c"
mapfile -t sources < <(find "$src_dir" -name '*.c' -not -path "$src_dir/python/*" | LC_ALL=C sort)

echo "== building $build_dir/fuzz_core with $("$clang" --version | head -n 1)"
"$clang" -std=c11 -g -O1 -Wall -Wextra -Werror -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$src_dir" -o "$build_dir/fuzz_core" "$fuzz_dir/fuzz_core.c" "$harness" "${sources[@]}"

seeds=$(find "$fuzz_dir/corpus" -type f | wc -l)
if [ "$seeds" = 0 ]; then
    echo "fuzz/run.sh: the seed corpus $fuzz_dir/corpus is empty" >&2
    exit 1
fi

# detect_leaks stays on: the target frees what it allocates. -max_len 8192
# allows messages of many blocks of both sizes after the header.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cd "$build_dir"

echo "== the $seeds seed inputs, once each"
start=$SECONDS
./fuzz_core -runs=0 "$fuzz_dir/corpus"
echo "== seeds: $((SECONDS - start)) s wall"

echo "== fuzzing for $seconds s"
start=$SECONDS
./fuzz_core -max_total_time="$seconds" -max_len=8192 -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 \
    "$build_dir/corpus" "$fuzz_dir/corpus"
echo "== fuzzing: $((SECONDS - start)) s wall, scratch corpus $(find "$build_dir/corpus" -type f | wc -l) inputs"
echo "== fuzz_core passed"
