#!/usr/bin/env bash
# Builds fastdigest as a release ships it and tests what was built, not the checkout:
#   1. sdist and wheel with `python -m build` (which builds the wheel from the sdist), with no
#      setuptools deprecation warning, and the metadata and contents of both archives checked
#      (License-Expression, LICENSE in both, the stubs and py.typed in the wheel, the C API's header
#      and .pxd in both, the whole tests/ and the C sources in the sdist, the classifiers known to
#      trove-classifiers);
#   2. `auditwheel show`: the wheel must be manylinux_2_17 (manylinux2014) compatible or better;
#   3. the wheel installed in a fresh venv, and the tests that depend on what the wheel holds (the
#      package's modules, the stubs and py.typed, the installed command, the vectors, the C API's header
#      with C extensions and a Cython module built against it) run from a copy of
#      tests/ outside the checkout, so that fastdigest is imported from the venv (checked). The rest
#      of the suite tests the same compiled code as the editable build's run in .ci/run, and the
#      whole quick tier runs against a wheel on every other Python in .ci/pythons.sh;
#      Then the command line's start-up CPU on one small file, against the bare interpreter's
#      (benchmarks/bench_cli.py --startup --max-ratio 1.5: the check that keeps it from creeping up);
#   4. `pip install` of the sdist in another fresh venv (a second build, from the sdist alone) and a
#      quick subset of the sdist's own tests against it.
# The build tools come from PyPI into a throwaway venv. Each stage prints its time.
#
# Environment: PYTHON (default python3) is the interpreter to build for; FASTDIGEST_CFLAGS and
# friends apply as in any build. Wheels for other platforms and Pythons: [tool.cibuildwheel] in
# pyproject.toml, which needs a container engine this machine lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fastdigest-package.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

stage_start=$SECONDS
stage() {
    echo "== $1 (previous stage: $((SECONDS - stage_start)) s)"
    stage_start=$SECONDS
}

stage "build tools"
"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/python" -m pip install -q build auditwheel trove-classifiers

stage "sdist and wheel (python -m build)"
"$WORK/tools/bin/python" -m build --outdir "$WORK/dist" "$ROOT" 2>&1 | tee "$WORK/build.log"
if grep -i 'deprecat' "$WORK/build.log"; then
    echo "package.sh: the build printed a deprecation warning (above)" >&2
    exit 1
fi
sdist=$(echo "$WORK"/dist/*.tar.gz)
wheel=$(echo "$WORK"/dist/*.whl)

stage "archive contents and metadata"
"$WORK/tools/bin/python" - "$sdist" "$wheel" <<'EOF'
import email.parser, sys, tarfile, zipfile
from trove_classifiers import classifiers as known_classifiers

sdist_path, wheel_path = sys.argv[1:]
problems = []

def check(condition, message):
    if not condition:
        problems.append(message)

with tarfile.open(sdist_path) as sdist:
    top = sdist.getnames()[0].split('/')[0]
    sdist_files = {name[len(top) + 1:] for name in sdist.getnames() if name.startswith(top + '/')}
    sdist_metadata = sdist.extractfile(f'{top}/PKG-INFO').read().decode()
with zipfile.ZipFile(wheel_path) as wheel:
    wheel_files = set(wheel.namelist())
    (metadata_name,) = [name for name in wheel_files if name.endswith('.dist-info/METADATA')]
    wheel_metadata = wheel.read(metadata_name).decode()
dist_info = metadata_name.rsplit('/', 1)[0]

for where, files in (('sdist', sdist_files), ('wheel', wheel_files)):
    check(not any(name.endswith(('.o', '.pyc')) for name in files), f'{where}: object or bytecode files')
for required in ('LICENSE', 'README.md', 'pyproject.toml', 'setup.py', 'fastdigest/_version.py',
                 'src/_fastdigest/python/module.c', 'src/_fastdigest/python/binding.h',
                 'src/_fastdigest/hash/family.h', 'src/_fastdigest/kernels/kernel.h',
                 'src/_fastdigest/kernels/x86/shani/sha256_shani_steps.h', 'tests/conftest.py',
                 'tests/data/state_golden.json', 'tests/test_api.py', 'tests/c/run.sh',
                 'fastdigest/include/fastdigest.h', 'fastdigest/include/fastdigest.pxd',
                 'tests/capi/capi_probe.c', 'docs/c-api.md'):
    check(required in sdist_files, f'sdist: no {required}')
check(not any(name.endswith(('.so', '.pyd')) for name in sdist_files), 'sdist: a built extension')
for required in (f'{dist_info}/licenses/LICENSE', 'fastdigest/__init__.pyi', 'fastdigest/hmac.pyi',
                 'fastdigest/py.typed', 'fastdigest/_version.py', 'fastdigest/include/fastdigest.h',
                 'fastdigest/include/fastdigest.pxd'):
    check(required in wheel_files, f'wheel: no {required}')
check(any(name.startswith('fastdigest/_fastdigest.') for name in wheel_files), 'wheel: no extension')
# The `fastdigest` command: on POSIX the plain script (setup.py says why), not an entry point.
check('scripts/fastdigest' in sdist_files, 'sdist: no scripts/fastdigest')
data_dir = dist_info.removesuffix('.dist-info') + '.data'
check(f'{data_dir}/scripts/fastdigest' in wheel_files, 'wheel: no fastdigest script')
check(f'{dist_info}/entry_points.txt' not in wheel_files, 'wheel: an entry point (pip would write a second command)')
check(not any(name.startswith(('tests/', 'src/')) for name in wheel_files), 'wheel: tests or C sources')

for where, text in (('sdist', sdist_metadata), ('wheel', wheel_metadata)):
    metadata = email.parser.Parser().parsestr(text)
    check(metadata['Metadata-Version'] in ('2.4', '2.5'), f"{where}: Metadata-Version {metadata['Metadata-Version']}")
    check(metadata['License-Expression'] == 'MIT', f"{where}: License-Expression {metadata['License-Expression']!r}")
    check(metadata.get_all('License-File') == ['LICENSE'], f"{where}: License-File {metadata.get_all('License-File')}")
    check(metadata['License'] is None, f'{where}: a legacy License field')
    classifiers = metadata.get_all('Classifier') or []
    unknown = [c for c in classifiers if c not in known_classifiers]
    check(not unknown, f'{where}: classifiers trove-classifiers does not know: {unknown}')
    check('Programming Language :: Python :: Free Threading :: 3 - Stable' in classifiers,
          f'{where}: no free-threading classifier')
    check(not any(c.startswith('License ::') for c in classifiers), f'{where}: a License classifier')
    print(f"{where}: {metadata['Name']} {metadata['Version']}, License-Expression {metadata['License-Expression']}, "
          f'{len(classifiers)} classifiers')
print(f'sdist: {len(sdist_files)} files; wheel: {len(wheel_files)} files')
if problems:
    sys.exit('package.sh: ' + '\n  '.join(['the archives are not as a release needs:'] + problems))
EOF

stage "auditwheel show"
"$WORK/tools/bin/auditwheel" show "$wheel" | tee "$WORK/auditwheel.txt"
tag=$(tr '\n' ' ' < "$WORK/auditwheel.txt" | grep -o 'platform tag: "[^"]*"' | head -1 | cut -d'"' -f2)
case "$tag" in
    manylinux_2_5_* | manylinux_2_12_* | manylinux_2_17_*) echo "manylinux_2_17 compatible: $tag" ;;
    *)
        echo "package.sh: the wheel's best platform tag is '$tag', newer than manylinux_2_17" >&2
        exit 1
        ;;
esac

stage "the wheel in a fresh venv: what depends on its contents, from a copy of tests/"
"$PYTHON" -m venv "$WORK/wheel-venv"
"$WORK/wheel-venv/bin/python" -m pip install -q "$wheel[test-core]"
# pyproject.toml beside them: the pytest configuration. No fastdigest/ nor scripts/ is copied, so
# test_cli runs the command the wheel installed.
mkdir "$WORK/suite"
cp -r "$ROOT/tests" "$WORK/suite/tests"
cp "$ROOT/pyproject.toml" "$WORK/suite/"
# The documentation too (with the pages test_docs_examples.py, whose reader of code blocks it uses, lists):
# tests/test_capi.py builds and runs the examples of docs/c-api.md.
cp -r "$ROOT/docs" "$WORK/suite/docs"
cp "$ROOT/README.md" "$ROOT/CONTRIBUTING.md" "$WORK/suite/"
rm -rf "$WORK/suite/tests/c/build"
# Run from $WORK, where neither the current directory nor the tests' directory holds a fastdigest/.
cd "$WORK"
"$WORK/wheel-venv/bin/python" -c '
import sys, fastdigest
assert fastdigest.__file__.startswith(sys.prefix), fastdigest.__file__
print("fastdigest", fastdigest.__version__, "from", fastdigest.__file__)'
"$WORK/wheel-venv/bin/python" -m pytest -q -p no:cacheprovider suite/tests/test_api.py \
    suite/tests/test_hashlib_namespace.py suite/tests/test_typing.py suite/tests/test_cli.py suite/tests/test_vectors.py
# The C API from the wheel: its header, C extensions and (heavy tier) a Cython module built against it.
"$WORK/wheel-venv/bin/python" -m pytest -q -p no:cacheprovider --heavy suite/tests/test_capi.py

stage "the command line's start-up from the wheel: within 1.5x the bare interpreter's CPU"
# Both ways in: the installed command and `python -I -m fastdigest`.
# From $WORK, so that `-m fastdigest` finds the venv's package, not the checkout's.
"$WORK/wheel-venv/bin/python" "$ROOT/benchmarks/bench_cli.py" --startup --runs 60 --max-ratio 1.5 \
    --python "$WORK/wheel-venv/bin/python"

stage "pip install of the sdist in another fresh venv: a quick subset of its own tests"
"$PYTHON" -m venv "$WORK/sdist-venv"
"$WORK/sdist-venv/bin/python" -m pip install -q "$sdist" pytest hypothesis
mkdir "$WORK/unpacked"
tar -xzf "$sdist" -C "$WORK/unpacked"
sdist_tests=$(echo "$WORK"/unpacked/*/tests)
"$WORK/sdist-venv/bin/python" -c '
import sys, fastdigest
assert fastdigest.__file__.startswith(sys.prefix), fastdigest.__file__
print("fastdigest", fastdigest.__version__, "from", fastdigest.__file__, fastdigest.implementation)'
"$WORK/sdist-venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$sdist_tests/test_api.py" "$sdist_tests/test_hashlib_namespace.py" "$sdist_tests/test_oneshot.py"

stage "done"
