#!/usr/bin/env bash
# Runs the core of the Python suite under valgrind memcheck and fails on any
# definite leak, or any memcheck error (invalid read or write, use of an
# uninitialised value, bad free), whose stack passes through the extension.
#
#   tests/hardening/leaks.sh [PYTEST_ARGS...]
#
# The extension is built with -O2 -g into a scratch directory (the in-place
# build is never touched) and imported from there, as in sanitize_python.sh.
# PYTHONMALLOC=malloc makes every Python object a malloc block valgrind
# tracks, so a hash object that is never freed shows up as definitely lost,
# allocated through the extension.
#
# The interpreter leaves blocks behind at exit and has memcheck reports of
# its own (CPython 3.11 has uninitialised-value reports in its small-int
# cache): those are counted and shown in the summary, but only reports whose
# stack has a frame in _fastdigest*.so fail the run. valgrind's XML output is
# parsed for that, frame by frame, rather than grepping text.
#
# valgrind 3.19 does not run SHA-NI or AVX-512 instructions and hides them
# from CPUID, so under valgrind the extension itself picks what valgrind
# runs: the portable C for SHA-1 and SHA-256, MD5's tuned C, and AVX2 for
# SHA-512 (printed below). The SHA-NI and AVX-512 kernels hold no heap
# memory; ASan checks them (sanitize_python.sh, tests/fuzz/run.sh).
#
# The tests: the one-shots, the hash objects' API, the published vectors,
# HMAC/PBKDF2, digest_many and resume, minus what takes minutes under
# valgrind or exercises no new C path there (see the -k below); about three
# minutes on 2 cores. Debian's valgrind is installed with apt-get when
# missing (root, or sudo): a missing tool fails, it never skips.
#
# Environment:
#   PYTHON      the interpreter (default python3)
#   BUILD_DIR   scratch directory (default: a new one under ${TMPDIR:-/tmp},
#               removed after a successful run)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=package.sh
source "$repo_root/tests/hardening/package.sh"
python=${PYTHON:-python3}

# shellcheck source=../apt.sh
source "$repo_root/tests/apt.sh"

if ! command -v valgrind >/dev/null; then
    apt_install valgrind
fi
valgrind --version

use_build_dir leaks
package_dir="$build_dir/package"
rm -rf "$package_dir" "$build_dir/temp" "$build_dir"/memcheck*.xml
mkdir -p "$package_dir/fastdigest"

echo "== building the extension (-O2 -g) into $package_dir"
copy_package_python "$package_dir"
start=$SECONDS
(
    cd "$repo_root"
    FASTDIGEST_STRICT=1 FASTDIGEST_CFLAGS="-O2 -g" \
        "$python" setup.py -q build_ext --build-lib "$package_dir" --build-temp "$build_dir/temp"
)
echo "== build: $((SECONDS - start)) s wall"

# valgrind must run the interpreter's binary itself: a launcher script (such
# as pyenv's shims) would be what memcheck watches.
interpreter=$("$python" -c 'import sys; print(sys.executable)')
export PYTHONMALLOC=malloc
# A quarter of each property test's examples (unless the caller chose): a leak shows on the first call
# of a path, and the suite's main run draws the examples in full.
export FASTDIGEST_TEST_EXAMPLES=${FASTDIGEST_TEST_EXAMPLES:-0.25}
export PYTHONPATH="$package_dir"
cd "$build_dir"

imported=$("$interpreter" -c 'import fastdigest._fastdigest as m; print(m.__file__)')
case $imported in
"$package_dir"/*) ;;
*)
    echo "leaks.sh: the suite would import $imported, not the build in $package_dir" >&2
    exit 1
    ;;
esac
echo "== kernels under valgrind: $(valgrind -q --tool=none "$interpreter" -c 'import fastdigest; print(fastdigest.implementation)')"

# Node ids are relative to the repository, pytest's rootdir.
tests=(
    "$repo_root/tests/test_oneshot.py"
    "$repo_root/tests/test_api.py"
    "$repo_root/tests/test_vectors.py"
    "$repo_root/tests/test_hmac.py"
    "$repo_root/tests/test_batch.py"
    "$repo_root/tests/test_resume.py"
)
# Left out, as they would take minutes under valgrind repeating C paths
# that smaller tests here run too: the million-'a' and Monte Carlo runs,
# RFC 6070's 16,777,216 PBKDF2 iterations, file_digest of files over 256
# KiB, new() with every letter case of every name, the sweeps of HMAC and
# PBKDF2 against the stdlib over many lengths (the RFC vectors stay) and of
# resumed objects over many lengths (the corrupted-state one, which runs
# the error paths, stays). Also left out: the tests that time threads
# against each other (valgrind runs one thread at a time), that read the
# CPU's flags from /proc/cpuinfo (valgrind hides SHA-NI and AVX-512 from
# the process), and that count malloc calls with a shim of their own.
deselect='not million and not monte and not 16777216 and not releases_the_gil and not thread'
deselect+=' and not 786437 and not 262143 and not 262144 and not 262145 and not any_letter_case'
deselect+=' and not hmac_matches_stdlib and not pbkdf2_matches_hashlib'
deselect+=' and not restored_object_continues_where_the_original_stopped'
deselect+=' and not follows_the_cpu and not no_c_heap_allocation'

echo "== pytest under valgrind memcheck"
start=$SECONDS
status=0
valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --num-callers=40 --track-origins=no \
    --xml=yes --xml-file="$build_dir/memcheck.%p.xml" \
    "$interpreter" -m pytest -q -p no:cacheprovider \
    -m 'not slow and not c_core and not hardening' -k "$deselect" "$@" "${tests[@]}" ||
    status=$?
echo "== pytest exit $status, $((SECONDS - start)) s wall"

# One XML file per process valgrind watched: the interpreter, and the
# children it forked (for subprocess tests) up to their exec, whose files
# end where the exec cut them off; read each as far as it goes.
parse_status=0
"$interpreter" - "$build_dir" <<'EOF' || parse_status=$?
import glob
import sys
import xml.etree.ElementTree as ElementTree

build_dir = sys.argv[1]
ours, theirs = [], {}
files = sorted(glob.glob(build_dir + '/memcheck.*.xml'))
if not files:
    sys.exit('leaks.sh: valgrind wrote no XML report')


def errors_in(path):
    try:
        for _, element in ElementTree.iterparse(path):
            if element.tag == 'error':
                yield element
    except ElementTree.ParseError:
        pass


for path in files:
    for error in errors_in(path):
        kind = error.findtext('kind')
        if kind.startswith('Leak_') and kind != 'Leak_DefinitelyLost':
            continue
        frames = [frame for stack in error.iter('stack') for frame in stack.iter('frame')]
        if any('_fastdigest' in (frame.findtext('obj') or '') for frame in frames):
            what = error.findtext('xwhat/text') or error.findtext('what')
            lines = ['%s: %s' % (kind, what)]
            for frame in frames[:12]:  # the allocation and the calls into it
                lines.append('    %s (%s:%s) in %s' % (frame.findtext('fn') or '?', frame.findtext('file') or '?',
                                                    frame.findtext('line') or '?', frame.findtext('obj') or '?'))
            ours.append('\n'.join(lines))
        else:
            theirs[kind] = theirs.get(kind, 0) + 1
print('== memcheck: %d report(s) through _fastdigest; outside it (the interpreter\'s own): %s'
      % (len(ours), ', '.join('%s %d' % item for item in sorted(theirs.items())) or 'none'))
for report in ours:
    print(report)
sys.exit(1 if ours else 0)
EOF
if [ "$status" != 0 ] || [ "$parse_status" != 0 ]; then
    echo "== FAILED: pytest exit $status, memcheck reports through _fastdigest: exit $parse_status (build kept in $build_dir)"
    exit 1
fi
[ "$keep_build_dir" = yes ] || rm -rf "$build_dir"
echo "== leaks passed"
