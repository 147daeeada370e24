#!/usr/bin/env bash
# Runs the suite's threaded tests (those marked `threads`: they start Python
# threads, or fastdigest's own through threads= and the CLI's workers) on a
# free-threaded CPython 3.13 built for ThreadSanitizer, with the extension
# built with -fsanitize=thread, and fails on any report.
#
#   tests/hardening/tsan_python.sh [PYTEST_ARGS...]
#
# The interpreter is .ci/build-python313t.sh --tsan's, in a fixed prefix
# outside the checkout (built there on the first run, reused after it), with
# pytest, hypothesis and setuptools installed into it when it lacks them (by
# PYTHON's pip, see below). The extension is built by that interpreter
# (its compiler, clang, and its flags, which carry -fsanitize=thread) into a
# scratch directory, as in sanitize_python.sh, and the tests run from there
# with the checkout's tests.
#
# TSan's reports go to files under BUILD_DIR/reports (the suite's child
# interpreters' too); every process that reported exits 66 at its end
# (halt_on_error=0, so that one run shows every report), which fails its
# test or pytest, and the script fails if pytest fails or any report exists.
# The only suppressions are CPython's own for its free-threaded build
# (Tools/tsan/suppressions_free_threading.txt, installed beside the
# interpreter): reports inside the interpreter that CPython knows of. The
# script prints which of them matched.
#
# Left out, as in sanitize_python.sh: the tests that time threads against
# each other (*releases_the_gil: a share of wall time, which instrumented
# code skews). And the truncated SHA-2s (sha224, sha384, sha512_224,
# sha512_256): each runs its family's code (sha256's, sha512's), on the
# same threads, with another IV and a shorter digest, which the rest of the
# heavy tier checks; a quarter of the threaded tests, minutes under TSan. The Arrow tests need pyarrow, which is not installed here:
# their threaded C paths run under TSan in tests/c/run.sh tsan
# (test_columns). And a memoryview released while another thread takes its
# buffer (test_stress.py), a race inside 3.13t's memoryview that TSan
# reports for hashlib as well (conftest.py's MEMORYVIEW_EXPORTS_RACE_REASON).
#
# Environment:
#   PYTHON      the interpreter whose pip installs the test tools and whose
#               cryptography-vectors the tests read (default python3; the
#               heavy tier's jobs pass their own)
#   FASTDIGEST_CI_ROOT  where CI's interpreters live (default /opt/fastdigest-ci): the
#               interpreter is CI_ROOT/python3.13t-tsan
#   BUILD_DIR   scratch directory (default: a new one under ${TMPDIR:-/tmp},
#               removed after a successful run)
#   FASTDIGEST_TEST_EXAMPLES  the share of each property test's examples
#               (default 0.25; tests/conftest.py)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=package.sh
source "$repo_root/tests/hardening/package.sh"
prefix=${FASTDIGEST_CI_ROOT:-/opt/fastdigest-ci}/python3.13t-tsan
python=$prefix/bin/python3.13t
suppressions=$prefix/share/tsan/suppressions_free_threading.txt

use_build_dir tsan
package_dir="$build_dir/package"
reports_dir="$build_dir/reports"
rm -rf "$package_dir" "$reports_dir" "$build_dir/temp"
mkdir -p "$package_dir/fastdigest" "$reports_dir"

# Installing, building and checking run the interpreter with reports off:
# they test nothing of fastdigest's.
quiet() { TSAN_OPTIONS=report_bugs=0 "$@"; }

echo "== the interpreter: $prefix"
start=$SECONDS
bash "$repo_root/.ci/build-python313t.sh" --tsan "$prefix"
echo "== interpreter (build or reuse): $((SECONDS - start)) s wall"

start=$SECONDS
# One start of the interpreter says whether the tools are there (each start
# under TSan takes seconds).
tool_versions='import hypothesis, pytest, setuptools
print("pytest", pytest.__version__, "hypothesis", hypothesis.__version__, "setuptools", setuptools.__version__)'
if ! tools=$(quiet "$python" -c "$tool_versions" 2>/dev/null); then
    # One install at a time into the prefix (the build script's lock).
    exec {lock}>"$prefix.lock"
    flock "$lock"
    # Installed by the pip of the interpreter that runs this script (PYTHON)
    # into the prefix's site-packages (--target: nothing goes into PYTHON's
    # own), for 3.13 and pure-Python wheels only, since pip itself, run by
    # the interpreter under TSan, took minutes: the packages are the same.
    # Pure wheels: newer hypothesis releases bring an abi3 extension, which
    # no free-threaded build loads. setuptools 77 for pyproject.toml's
    # license field (pyproject.toml's test-core extra). The bytecode is then
    # compiled by the TSan interpreter, as the build compiled the library's
    # (pygments, which the tests never import, left out).
    site_packages=$(quiet "$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    "${PYTHON:-python3}" -m pip install -q --root-user-action=ignore --disable-pip-version-check \
        --target "$site_packages" --no-compile --only-binary ':all:' --python-version 3.13 \
        --implementation py --abi none --platform any pytest hypothesis 'setuptools>=77'
    quiet "$python" -m compileall -q -x '/pygments/' "$site_packages" >/dev/null
    exec {lock}>&-
    tools=$(quiet "$python" -c "$tool_versions")
fi
echo "== test tools: $tools ($((SECONDS - start)) s wall)"

echo "== building the extension with -fsanitize=thread into $package_dir"
copy_package_python "$package_dir"
start=$SECONDS
# The interpreter's flags carry -fno-strict-overflow, which its clang 14
# takes but ignores with a warning that the strict build makes an error.
(
    cd "$repo_root"
    FASTDIGEST_STRICT=1 \
        FASTDIGEST_CFLAGS="-O2 -g -UNDEBUG -fsanitize=thread -Wno-unused-command-line-argument" \
        FASTDIGEST_LDFLAGS="-fsanitize=thread" \
        quiet "$python" setup.py -q build_ext --build-lib "$package_dir" --build-temp "$build_dir/temp"
)
echo "== build: $((SECONDS - start)) s wall"
# Instrumented: calls into TSan's runtime, which the interpreter carries.
# (Not grep -q: under pipefail nm's SIGPIPE would fail the check.)
extension=$(find "$package_dir/fastdigest" -name '_fastdigest*.so' | head -n 1)
if ! nm -D "$extension" | grep __tsan_func_entry >/dev/null; then
    echo "tsan_python.sh: $extension was built without -fsanitize=thread" >&2
    exit 1
fi

# The test vectors (test_hmac.py reads them at import) are data: those of the
# interpreter that runs this script (PYTHON, as tests/c/run.sh takes them),
# which has the test extra, rather than a second copy of tens of megabytes
# installed by pip under TSan.
vectors_dir="$build_dir/vectors"
rm -rf "$vectors_dir"
mkdir -p "$vectors_dir"
vectors=$("${PYTHON:-python3}" -c 'import cryptography_vectors, os; print(os.path.dirname(cryptography_vectors.__file__))')
ln -s "$vectors" "$vectors_dir/cryptography_vectors"
export PYTHONPATH="$package_dir:$vectors_dir"
export FASTDIGEST_TEST_EXAMPLES=${FASTDIGEST_TEST_EXAMPLES:-0.25}
# From BUILD_DIR, so that `python -m` puts no checkout on sys.path first.
cd "$build_dir"
# One start for both: the extension the suite imports, and its kernels.
{
    read -r imported
    read -r kernels
} < <(quiet "$python" -c 'import fastdigest, fastdigest._fastdigest as m; print(m.__file__); print(fastdigest.implementation)')
case $imported in
"$package_dir"/*) echo "== the suite imports $imported" ;;
*)
    echo "tsan_python.sh: the suite would import $imported, not the TSan build in $package_dir" >&2
    exit 1
    ;;
esac

echo "== pytest -m threads under TSan: $kernels"
start=$SECONDS
status=0
# Only the files that hold threaded tests: collecting the others (importing
# them) takes minutes under TSan.
mapfile -t test_files < <(grep -l 'pytest\.mark\.threads' "$repo_root"/tests/test_*.py)
TSAN_OPTIONS="suppressions=$suppressions:halt_on_error=0:exitcode=66:print_suppressions=1:log_path=$reports_dir/tsan" \
    "$python" -m pytest -q -rs -p no:cacheprovider --durations=10 -m threads \
    -k 'not releases_the_gil and not sha224 and not sha384 and not sha512_224 and not sha512_256' \
    "$@" "${test_files[@]}" || status=$?
echo "== pytest under TSan: exit $status, $((SECONDS - start)) s wall"

failures=()
[ "$status" = 0 ] || failures+=("pytest (exit $status)")
# A report file holds the reports of one process, and with print_suppressions
# the suppressions that matched in it.
reported=no
for report in $(find "$reports_dir" -type f | sort); do
    if grep -q 'WARNING: ThreadSanitizer\|ERROR: ThreadSanitizer\|FATAL: ThreadSanitizer' "$report"; then
        echo "== TSan report $report"
        cat "$report"
        reported=yes
    fi
done
[ "$reported" = no ] || failures+=("TSan reports")
# print_suppressions writes "ThreadSanitizer: Matched N suppressions" and a
# line "COUNT TYPE:PATTERN" for each.
matched=$(find "$reports_dir" -type f -exec cat {} + | awk '
    /ThreadSanitizer: Matched/ { on = 1; next }
    on && NF == 2 && $1 ~ /^[0-9]+$/ { count[$2] += $1; next }
    { on = 0 }
    END { for (s in count) print count[s], s }' | sort -rn | tr '\n' ',')
echo "== CPython's suppressions that matched (reports, suppression): ${matched:-none}"

if [ ${#failures[@]} -gt 0 ]; then
    echo "== FAILED: ${failures[*]} (build kept in $build_dir)"
    exit 1
fi
[ "$keep_build_dir" = yes ] || rm -rf "$build_dir"
echo "== tsan_python passed"
