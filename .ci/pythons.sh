#!/usr/bin/env bash
# CI for every CPython the project supports: pyenv's 3.10, 3.11, 3.12 and 3.13
# (GIL builds), a free-threaded 3.13t (built by .ci/build-python313t.sh into a
# fixed prefix outside the checkout, once per machine), and Debian sid's 3.14
# and 3.15 (unpacked by .ci/sid-pythons.sh into another such prefix; they
# bring OpenSSL 3.6, so their hashlib is the newest one users meet).
#
# For each interpreter: build a wheel from a clean copy of the sources
# (FASTDIGEST_STRICT=1: warnings are errors), make a fresh venv, install the
# wheel with its test extras, and run the suite against the installed wheel
# from a folder holding only a copy of tests/ and pyproject.toml, so that the
# checkout's fastdigest/ cannot be imported (a conftest.py there checks that
# fastdigest comes from the venv). The suite's quick tier runs there: the
# heavy tier (the C core's driver, the hardening jobs, the multi-gigabyte
# tests, the CPU levels, Dask and Spark) runs once, in .ci/run.
# Every part is timed; a summary table ends the run. A failing suite does
# not stop the others: the script exits 1 at the end, naming the failures.
#
# Environment:
#   FASTDIGEST_PYTHONS    which to test, e.g. "3.12 3.13t" (default: all seven)
#   FASTDIGEST_CI_ROOT    where the interpreters made here live (default
#                         /opt/fastdigest-ci): CI_ROOT/python3.13t, CI_ROOT/sid
#   FASTDIGEST_CI_KEEP=1  keep the work folder (wheels, venvs) for a look
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD

pythons=${FASTDIGEST_PYTHONS:-"3.10 3.11 3.12 3.13 3.13t 3.14 3.15"}
ci_root=${FASTDIGEST_CI_ROOT:-/opt/fastdigest-ci}

work=$(mktemp -d /tmp/fastdigest-pythons.XXXXXX)
if [ "${FASTDIGEST_CI_KEEP:-}" = 1 ]; then
    trap 'echo "work folder kept: $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

declare -a summary=() failed=()
note() { summary+=("$(printf '%-6s %-26s %5d s' "$1" "$2" "$3")"); printf '   %s: %d s\n' "$2" "$3"; }

# The real binary of pyenv's newest 3.X.* GIL build: not the shim, which adds
# ~60 ms to every start. A free-threaded pyenv build (3.13.0t) is not it.
pyenv_python() {
    local minor=$1 root candidate found=
    root=$(pyenv root 2>/dev/null) || { echo "pyenv is not installed: no Python $minor" >&2; return 1; }
    for candidate in $(ls -d "$root"/versions/"$minor".* 2>/dev/null | grep -v 't$' | sort -V); do
        [ -x "$candidate/bin/python3" ] && found=$candidate/bin/python3
    done
    [ -n "$found" ] || { echo "no Python $minor under $root/versions/$minor.*/bin/python3" >&2; return 1; }
    echo "$found"
}

# The sources as committed plus untracked files that are not ignored: what a
# fresh clone would have, without build/ or egg-info left by earlier builds.
source_copy=$work/source
mkdir -p "$source_copy"
git -C "$checkout" ls-files -z --cached --others --exclude-standard |
    (cd "$checkout" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) | tar -xf - -C "$source_copy"

test_one() {
    local version=$1 python began start wheel_dir venv run_dir wheel install_args=() extras
    local venv_args=() build_cflags=${CFLAGS:-}
    echo
    echo "== Python $version"
    began=$SECONDS
    if [ "$version" = 3.13t ]; then
        start=$SECONDS
        bash "$checkout/.ci/build-python313t.sh" "$ci_root/python3.13t"
        note "$version" "interpreter (build or reuse)" $((SECONDS - start))
        python=$ci_root/python3.13t/bin/python3.13t
        # hypothesis > 6.155 and mypy 2.x have no cp313t wheels and their
        # sdists need Rust: take the newest versions that come as wheels.
        install_args=(--only-binary ':all:')
        # Of the test extras only the core: duckdb, polars and pyspark have no
        # cp313t wheels, so the column tests skip there, saying so.
        extras=test-core
    elif [ "$version" = 3.14 ] || [ "$version" = 3.15 ]; then
        start=$SECONDS
        bash "$checkout/.ci/sid-pythons.sh" "$ci_root/sid"
        note "$version" "interpreter (unpack or reuse)" $((SECONDS - start))
        python=$ci_root/sid/usr/bin/python$version
        # Debian's minimal packages have no ensurepip: the venv gets pip from
        # sid's pip wheel. Debian's pyconfig.h sits in a multiarch folder
        # that sysconfig does not name.
        venv_args=(--without-pip)
        build_cflags="-I$ci_root/sid/usr/include $build_cflags"
        extras=test-core,test-arrow
    else
        # The suite and the Arrow producers; the Dask and Spark tests, which
        # start clusters and a JVM, run once, in the main job.
        extras=test-core,test-arrow
        python=$(pyenv_python "$version")
    fi
    "$python" -VV
    "$python" -c 'import sys, sysconfig; print("   free-threaded build:", bool(sysconfig.get_config_var("Py_GIL_DISABLED")), "executable:", sys.executable)'

    start=$SECONDS
    venv=$work/venv-$version
    "$python" -m venv "${venv_args[@]}" "$venv"
    if [ ! -x "$venv/bin/pip" ]; then
        "$venv/bin/python" "$(ls "$ci_root"/sid/usr/share/python-wheels/pip-*.whl | head -n1)/pip" install -q pip
    fi
    "$venv/bin/python" -m pip install -q --upgrade pip
    note "$version" "venv" $((SECONDS - start))

    start=$SECONDS
    wheel_dir=$work/wheels-$version
    rm -rf "$source_copy/build"
    CFLAGS=$build_cflags FASTDIGEST_STRICT=1 "$venv/bin/python" -m pip wheel -q --no-deps -w "$wheel_dir" "$source_copy"
    wheel=$(ls "$wheel_dir"/fastdigest-*.whl)
    echo "   wheel: $(basename "$wheel")"
    note "$version" "wheel" $((SECONDS - start))

    start=$SECONDS
    "$venv/bin/python" -m pip install -q "${install_args[@]}" "$wheel[$extras]"
    "$venv/bin/python" -m pip list --format=freeze 2>/dev/null |
        grep -iE '^(pytest|hypothesis|mypy|cryptography.vectors|fastdigest|pyarrow|polars|duckdb|pandas)==' | tr '\n' ' '
    echo
    note "$version" "install wheel + test deps" $((SECONDS - start))

    start=$SECONDS
    run_dir=$work/run-$version
    mkdir -p "$run_dir"
    cp -r "$source_copy/tests" "$source_copy/pyproject.toml" "$run_dir/"
    cp "$checkout/.ci/installed_conftest.py" "$run_dir/conftest.py"
    local status=0
    # A quarter of each property test's examples: .ci/run's main run draws them all.
    # CFLAGS as for the wheel: tests/test_capi.py builds extensions against the installed header.
    (cd "$run_dir" && CFLAGS=$build_cflags FASTDIGEST_TEST_EXAMPLES=${FASTDIGEST_TEST_EXAMPLES:-0.25} \
        "$venv/bin/python" -m pytest -q -p no:cacheprovider -W error::RuntimeWarning tests) || status=$?
    note "$version" "suite" $((SECONDS - start))
    note "$version" "total" $((SECONDS - began))
    if [ "$status" -ne 0 ]; then
        failed+=("$version")
        summary+=("$version   suite FAILED (pytest exit $status)")
    fi
}

all_began=$SECONDS
for version in $pythons; do
    case "$version" in
        3.10 | 3.11 | 3.12 | 3.13 | 3.13t | 3.14 | 3.15) test_one "$version" ;;
        *) echo "unknown Python '$version' (choose from 3.10 3.11 3.12 3.13 3.13t 3.14 3.15)" >&2; exit 2 ;;
    esac
done

echo
echo "== seconds per part"
printf '%s\n' "${summary[@]}"
echo "all Pythons: $((SECONDS - all_began)) s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED on: ${failed[*]}"
    exit 1
fi
echo "passed on: $pythons"
