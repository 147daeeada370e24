#!/usr/bin/env bash
# Builds the libFuzzer targets with clang -fsanitize=fuzzer,address,undefined
# (and -UNDEBUG, so that the core's assert()s run) and runs them, one after
# the other:
#   fuzz_core   the C core (tests/fuzz/fuzz_core.c): every kernel, stream,
#               batch, HMAC and PBKDF2 against the portable kernel
#   fuzz_arrow  the Arrow import (tests/fuzz/fuzz_arrow.c): raw ArrowArray
#               structs of every type through the checks, the encoding, the
#               hashing and the export
#   fuzz_surrogate  surrogate_key's C (tests/fuzz/fuzz_surrogate.c): raw
#               record batches of flat columns through the checks, the
#               texts and the keys, against a restatement of the texts
#   fuzz_json   json_digest's texts (tests/fuzz/fuzz_json.c): strings,
#               doubles and ints against a restatement of json's escapes,
#               strtod and snprintf
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]   (default 60 s each, every target)
#
# First every input of a target's committed seed corpus (tests/fuzz/corpus/
# for fuzz_core: the padding and block boundaries, multi-block messages, odd
# split patterns; tests/fuzz/corpus_arrow/ for fuzz_arrow: each binary
# layout, bare and in a struct, consistent and broken, and trees of every
# type, as columns and as tables; tests/fuzz/corpus_surrogate/ for
# fuzz_surrogate: each column kind, consistent and broken; tests/fuzz/corpus_json/
# for fuzz_json: each mode, kind and escape, floats near ties) is run once, then the fuzzer
# mutates from it for SECONDS seconds. New inputs go to a scratch corpus
# under BUILD_DIR, never into the committed one; a mismatch or sanitizer
# report stops the run, saves the input as BUILD_DIR/crash-* and fails the
# script. Reproduce one with BUILD_DIR/TARGET CRASH_FILE.
#
# Debian 12's clang (clang 14) and libclang-rt-14-dev (libFuzzer and the
# sanitizer runtimes, only recommended by clang) are installed with apt-get
# when missing (root, or sudo): a missing tool fails, it never skips. Environment:
#   CLANG       the compiler (default clang, else clang-14)
#   BUILD_DIR   where the binaries and the scratch corpora go (default
#               ${TMPDIR:-/tmp}/fastdigest-fuzz)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
src_dir="$repo_root/src/_fastdigest"
fuzz_dir="$repo_root/tests/fuzz"
build_dir=${BUILD_DIR:-${TMPDIR:-/tmp}/fastdigest-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_core fuzz_arrow fuzz_surrogate fuzz_json)

case $seconds in
'' | *[!0-9]*)
    echo "fuzz/run.sh: SECONDS must be a whole number, not '$seconds'" >&2
    exit 2
    ;;
esac
for target in "${targets[@]}"; do
    case $target in
    fuzz_core | fuzz_arrow | fuzz_surrogate | fuzz_json) ;;
    *)
        echo "fuzz/run.sh: unknown target '$target' (fuzz_core, fuzz_arrow, fuzz_surrogate, fuzz_json)" >&2
        exit 2
        ;;
    esac
done

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
mkdir -p "$build_dir"

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

# The test harness the C drivers share (tests/c/harness.c), which fuzz_core
# links; the C core itself is compiled once for every target
# (tests/core_objects.sh).
harness="$repo_root/tests/c/harness.c"
# shellcheck source=../core_objects.sh
source "$repo_root/tests/core_objects.sh"
# -UNDEBUG: the core's assert()s of its preconditions run here too.
cflags=(-std=c11 -g -O1 -Wall -Wextra -Werror -UNDEBUG -fno-omit-frame-pointer
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$src_dir")
objects_dir="$build_dir/objects"
rm -rf "$objects_dir"

corpus_of() {
    case $1 in
    fuzz_core) echo "$fuzz_dir/corpus" ;;
    fuzz_arrow) echo "$fuzz_dir/corpus_arrow" ;;
    fuzz_surrogate) echo "$fuzz_dir/corpus_surrogate" ;;
    fuzz_json) echo "$fuzz_dir/corpus_json" ;;
    esac
}

# detect_leaks stays on: the targets free what they allocate.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

for target in "${targets[@]}"; do
    extra_sources=()
    extra_flags=()
    [ "$target" = fuzz_core ] && extra_sources=("$harness")
    # fuzz_arrow's columns have up to 4335 rows: with chunks and thread parts
    # this small (4096 and 16384 in the extension) they cross many seams of
    # the hashing loop and are split among threads, and with a sink this
    # small (256 KiB) encoded rows fill it, move and are streamed (see
    # fuzz_arrow.c).
    [ "$target" = fuzz_arrow ] &&
        extra_flags=(-DFD_ARROW_CHUNK_ROWS=37 -DFD_ARROW_MIN_ROWS_PER_THREAD=50 -DFD_ARROW_SINK_BYTES=61)
    # fuzz_surrogate's too, and a key buffer of 256 bytes (256 KiB in the
    # extension), so that keys flush it and longer ones are hashed in pieces.
    [ "$target" = fuzz_surrogate ] && extra_flags=(-DFD_ARROW_CHUNK_ROWS=37 -DFD_ARROW_MIN_ROWS_PER_THREAD=50
        -DFD_SURROGATE_CHUNK_ROWS=37 -DFD_SURROGATE_TEXT_BYTES=256)
    echo "== building $build_dir/$target with $("$clang" --version | head -n 1)"
    start=$SECONDS
    core_objects "$objects_dir" "$clang" "${cflags[@]}" -- "${extra_flags[@]}"
    "$clang" "${cflags[@]}" "${extra_flags[@]}" -o "$build_dir/$target" "$fuzz_dir/$target.c" \
        "${extra_sources[@]}" "${core_object_list[@]}"
    echo "== built: $((SECONDS - start)) s wall"
    # (Not grep -q: under pipefail nm's SIGPIPE would fail the check.)
    if ! nm "$build_dir/$target" | grep __assert_fail >/dev/null; then
        echo "fuzz/run.sh: $target was built without assert() (NDEBUG)" >&2
        exit 1
    fi

    seed_dir=$(corpus_of "$target")
    seeds=$(find "$seed_dir" -type f | wc -l)
    if [ "$seeds" = 0 ]; then
        echo "fuzz/run.sh: the seed corpus $seed_dir is empty" >&2
        exit 1
    fi
    scratch="$build_dir/corpus-$target"
    [ "$target" = fuzz_core ] && scratch="$build_dir/corpus" # where it always was
    mkdir -p "$scratch"

    (
        cd "$build_dir"
        echo "== $target: the $seeds seed inputs, once each"
        start=$SECONDS
        "./$target" -runs=0 "$seed_dir"
        echo "== seeds: $((SECONDS - start)) s wall"

        # fuzz_core: -max_len 8192 allows messages of many blocks of both
        # sizes after the header. fuzz_arrow: its pool is cycled, so short
        # inputs already make thousands of rows.
        echo "== $target: fuzzing for $seconds s"
        start=$SECONDS
        "./$target" -max_total_time="$seconds" -max_len=8192 -timeout=30 -rss_limit_mb=2048 \
            -print_final_stats=1 \
            "$scratch" "$seed_dir"
        echo "== fuzzing: $((SECONDS - start)) s wall, scratch corpus $(find "$scratch" -type f | wc -l) inputs"
    )
    echo "== $target passed"
done
