#!/usr/bin/env bash
# Builds the extension with gcc's -fsanitize=address,undefined into a scratch
# directory and runs the Python suite under it with the best kernels this CPU
# runs (BACKENDS=portable or "best portable" adds a run with the portable C,
# which CI leaves out: the C driver and the fuzzers run the portable kernels
# under the same sanitizers, and tests/test_levels.py runs the suite with
# them). -UNDEBUG undoes Python's -DNDEBUG, so the C core's assert()s run too.
#
#   tests/hardening/sanitize_python.sh [PYTEST_ARGS...]
#
# The in-place build (fastdigest/_fastdigest*.so, used by the editable
# install) is never touched: the package's Python files are copied to
# BUILD_DIR/package/fastdigest, the extension is built there with
# `setup.py build_ext --build-lib`, and pytest runs the repository's tests
# from BUILD_DIR with PYTHONPATH=BUILD_DIR/package (checked before the run:
# the suite must import the sanitized extension, not the in-place one).
#
# Python itself is not instrumented, so the sanitizer runtimes are preloaded
# (LD_PRELOAD) and PYTHONMALLOC=malloc makes every Python object a malloc
# block that ASan guards. Leak detection is off (detect_leaks=0): an
# interpreter leaves objects behind at exit by design; leaks are the business
# of tests/hardening/leaks.sh. Every report goes to a file under
# BUILD_DIR/reports (child interpreters of the suite's subprocess tests
# included; UBSan's go to stderr, see below), halt_on_error and
# -fno-sanitize-recover=all stop the process at the first one, and the
# script fails if pytest fails or any report exists.
#
# Left out:
#   - the multi-gigabyte tests (slow: minutes under ASan; their kernels run
#     here on smaller inputs);
#   - the C driver (c_core: tests/c/run.sh sanitize runs it under the same
#     sanitizers) and the hardening tests (they call this script);
#   - test_memory.py: ASan's quarantine holds freed blocks back by design,
#     so the resident set it measures grows;
#   - test_typing.py: mypy reads the stubs and never calls the extension;
#   - the tests that count malloc calls with an LD_PRELOAD shim of their
#     own (test_allocations.py, test_hmac.py::test_no_c_heap_allocation):
#     the shim replaces malloc, as the ASan runtime does;
#   - the tests that time threads against each other (the *releases_the_gil
#     ones: what they assert is a share of wall time, which instrumented
#     code skews; test_stress.py and the rest of test_threads.py run the
#     same GIL-released paths here) and RFC 6070's 16,777,216-iteration
#     PBKDF2 (the same loop the other iteration counts run).
#
# Environment:
#   PYTHON      the interpreter (default python3); it needs pytest and
#               hypothesis (the test extra)
#   CC          the compiler (default gcc: its libasan and libubsan are the
#               ones preloaded)
#   BUILD_DIR   scratch directory (default: a new one under ${TMPDIR:-/tmp},
#               removed after a successful run)
#   BACKENDS    the runs to do (default "best"; "best portable" for both)
#   FASTDIGEST_TEST_EXAMPLES  the share of each property test's examples
#               (default 0.5; tests/conftest.py)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=package.sh
source "$repo_root/tests/hardening/package.sh"
python=${PYTHON:-python3}
cc=${CC:-gcc}
backends=${BACKENDS:-best}

if ! command -v "$cc" >/dev/null; then
    echo "sanitize_python.sh: no C compiler '$cc'" >&2
    exit 1
fi
use_build_dir sanitize
package_dir="$build_dir/package"
reports_dir="$build_dir/reports"
rm -rf "$package_dir" "$reports_dir" "$build_dir/temp"
mkdir -p "$package_dir/fastdigest" "$reports_dir"

# The runtimes the sanitized extension links against; they must be loaded
# before anything else, hence LD_PRELOAD rather than the extension's own
# dependency.
runtime() {
    local path
    path=$("$cc" -print-file-name="$1")
    if [ "$path" = "$1" ] || [ ! -e "$path" ]; then
        echo "sanitize_python.sh: $cc has no $1 (Debian: apt-get install gcc)" >&2
        exit 1
    fi
    readlink -f "$path"
}
preload="$(runtime libasan.so) $(runtime libubsan.so)"

echo "== building the sanitized extension into $package_dir with $cc"
copy_package_python "$package_dir"
start=$SECONDS
(
    cd "$repo_root"
    CC=$cc FASTDIGEST_STRICT=1 \
        FASTDIGEST_CFLAGS="-O2 -g -UNDEBUG -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
        FASTDIGEST_LDFLAGS="-fsanitize=address,undefined" \
        "$python" setup.py -q build_ext --build-lib "$package_dir" --build-temp "$build_dir/temp"
)
echo "== build: $((SECONDS - start)) s wall"
# Python's CFLAGS carry -DNDEBUG; FASTDIGEST_CFLAGS come after them, and
# -UNDEBUG there keeps the core's assert()s in: checked, as a build that
# lost them would pass every test. (Not grep -q: under pipefail nm's
# SIGPIPE would fail the check.)
extension=$(find "$package_dir/fastdigest" -name '_fastdigest*.so' | head -n 1)
if ! nm -D "$extension" | grep __assert_fail >/dev/null; then
    echo "sanitize_python.sh: $extension was built without assert() (NDEBUG)" >&2
    exit 1
fi

export LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}"
export PYTHONMALLOC=malloc
# Half of each property test's examples (unless the caller chose): the suite's main run draws them all,
# and the sanitizers look for the memory errors of the same paths.
export FASTDIGEST_TEST_EXAMPLES=${FASTDIGEST_TEST_EXAMPLES:-0.5}
export PYTHONPATH="$package_dir"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:log_path=$reports_dir/asan"
# gcc's UBSan runtime beside ASan ignores log_path: its reports go to stderr
# (searched below) and abort the process, which fails pytest, or the test
# whose child it was.
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"

# From BUILD_DIR, so that `python -m` puts no checkout on sys.path first.
# Node ids (--deselect) stay relative to the repository, pytest's rootdir.
cd "$build_dir"
imported=$("$python" -c 'import fastdigest._fastdigest as m; print(m.__file__)')
case $imported in
"$package_dir"/*) echo "== the suite imports $imported" ;;
*)
    echo "sanitize_python.sh: the suite would import $imported, not the sanitized build in $package_dir" >&2
    exit 1
    ;;
esac

failures=()
for backend in $backends; do
    case $backend in
    best) unset FASTDIGEST_BACKEND ;;
    portable) export FASTDIGEST_BACKEND=portable ;;
    *)
        echo "sanitize_python.sh: unknown backend '$backend' (best, portable)" >&2
        exit 2
        ;;
    esac
    echo "== pytest under ASan/UBSan, backend $backend: $("$python" -c 'import fastdigest; print(fastdigest.implementation, fastdigest.batch_implementation)' 2>&1 || true)"
    start=$SECONDS
    status=0
    log="$build_dir/pytest-$backend.log"
    # --capture=sys: a report written to file descriptor 2 by a dying process
    # reaches the log instead of pytest's capture file.
    "$python" -m pytest -q -p no:cacheprovider --capture=sys -m 'not slow and not c_core and not hardening' \
        --ignore="$repo_root/tests/test_typing.py" --ignore="$repo_root/tests/test_allocations.py" \
        --ignore="$repo_root/tests/test_memory.py" \
        --deselect=tests/test_hmac.py::test_no_c_heap_allocation \
        --deselect='tests/test_hmac.py::test_rfc_6070[iterations=16777216]' \
        -k 'not releases_the_gil' \
        "$@" "$repo_root/tests" 2>&1 | tee "$log" || status=$?
    echo "== backend $backend: pytest exit $status, $((SECONDS - start)) s wall"
    [ "$status" = 0 ] || failures+=("pytest ($backend)")
    if grep -E -q 'runtime error:|ERROR: AddressSanitizer|UndefinedBehaviorSanitizer' "$log"; then
        failures+=("sanitizer report in the output ($backend)")
    fi
    reports=$(find "$reports_dir" -type f | sort)
    if [ -n "$reports" ]; then
        for report in $reports; do
            echo "== sanitizer report $report"
            cat "$report"
        done
        failures+=("sanitizer reports ($backend)")
        rm -f "$reports_dir"/*
    fi
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "== FAILED: ${failures[*]} (build kept in $build_dir)"
    exit 1
fi
[ "$keep_build_dir" = yes ] || rm -rf "$build_dir"
echo "== sanitize_python passed: ${backends}"
