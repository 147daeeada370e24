#!/usr/bin/env bash
# Builds free-threaded CPython 3.13 (configure --disable-gil) into PREFIX, a
# fixed folder outside the checkout, unless a free-threaded 3.13 is there
# already: a machine that keeps PREFIX saves the build (about 4 minutes of
# both cores here).
#
# No binary package of 3.13t exists for Debian bookworm, so the source comes
# from Debian's python3.13 source package in sid (its upstream tarball; the
# Debian patches are not applied). sid's deb-src entry lives in a private apt
# configuration in a temporary folder: the machine's own apt sources and
# lists are not touched. The installed tree is trimmed (no test/, no static
# libraries, stripped binaries): about 80 MB instead of 425.
#
# With --tsan, the interpreter is built for ThreadSanitizer instead, as
# CPython's own free-threaded TSan CI builds it (clang, --with-thread-sanitizer),
# for tests/hardening/tsan_python.sh, which runs the suite's threaded tests
# on it with fastdigest built with -fsanitize=thread. Only what those tests
# need is built: no test modules (--disable-test-modules) and none of the
# stdlib's extension modules that neither they, pytest, hypothesis nor
# setuptools import (TSAN_SKIPPED_MODULES); no pip, no PGO, no LTO. Its
# binaries keep their symbols (TSan's reports and suppressions name
# functions), and CPython's suppressions for its own known reports
# (Tools/tsan/suppressions_free_threading.txt) are installed beside it as
# PREFIX/share/tsan/suppressions_free_threading.txt.
#
# Usage: .ci/build-python313t.sh [--tsan] PREFIX
#        e.g. /opt/fastdigest-ci/python3.13t, /opt/fastdigest-ci/python3.13t-tsan
# Prints PREFIX/bin/python3.13t's version when done.
set -euo pipefail

tsan=no
if [ "${1:-}" = --tsan ]; then
    tsan=yes
    shift
fi
PREFIX=${1:?usage: $0 [--tsan] PREFIX}
case "$PREFIX" in /*) ;; *) echo "PREFIX must be an absolute path: $PREFIX" >&2; exit 2 ;; esac
PYTHON="$PREFIX/bin/python3.13t"

SUPPRESSIONS="$PREFIX/share/tsan/suppressions_free_threading.txt"

# The build wanted is in PREFIX: a free-threaded 3.13, and with --tsan one
# configured for ThreadSanitizer, with CPython's suppressions beside it.
is_free_threaded_313() {
    [ -x "$PYTHON" ] && { [ "$tsan" = no ] || [ -f "$SUPPRESSIONS" ]; } &&
        TSAN_OPTIONS=report_bugs=0 "$PYTHON" -c '
import sys, sysconfig
tsan = "--with-thread-sanitizer" in sysconfig.get_config_var("CONFIG_ARGS")
sys.exit(0 if sys.version_info[:2] == (3, 13) and sysconfig.get_config_var("Py_GIL_DISABLED")
         and tsan == (sys.argv[1] == "yes") else 1)' "$tsan"
}

if is_free_threaded_313; then
    echo "free-threaded Python already in $PREFIX: $(TSAN_OPTIONS=report_bugs=0 "$PYTHON" -VV)"
    exit 0
fi

# One build at a time per PREFIX (two CI runs on one machine would race).
mkdir -p "$(dirname "$PREFIX")"
exec 9>"$PREFIX.lock"
flock 9
if is_free_threaded_313; then
    echo "free-threaded Python built meanwhile in $PREFIX: $(TSAN_OPTIONS=report_bugs=0 "$PYTHON" -VV)"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
began=$SECONDS

# The build dependencies of CPython's extension modules, from bookworm. The
# TSan build leaves out the modules of most of them (below); CPython's TSan
# CI builds with clang, whose runtime is libclang-rt's, and llvm-symbolizer
# (llvm) names the functions in reports.
if [ "$tsan" = no ]; then
    needed=(build-essential pkg-config libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev
            libsqlite3-dev libreadline-dev uuid-dev libgdbm-dev libncurses-dev xz-utils)
else
    needed=(build-essential pkg-config libssl-dev zlib1g-dev libffi-dev xz-utils clang
            libclang-rt-14-dev llvm)
fi
missing=()
for package in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]}"
    # One apt-get at a time (tests/apt.sh's lock): the heavy tier's jobs
    # that install their tools run beside this one.
    exec 8>"${TMPDIR:-/tmp}/fastdigest-apt.lock"
    flock 8
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    exec 8>&-
fi

# sid's source index in a private apt configuration: the same archive as
# the machine's Debian entry.
uri=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
uri=${uri:-http://deb.debian.org/debian}
mkdir -p "$work/apt/parts" "$work/apt/lists/partial" "$work/src"
cat >"$work/apt/parts/sid-src.sources" <<SOURCES
Types: deb-src
URIs: $uri
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_private=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/parts"
             -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
echo "== sid's source index"
apt-get "${apt_private[@]}" update -q

# The newest versions in the index may not be downloadable any more (404):
# try each listed version, newest first.
cd "$work/src"
downloaded=
for version in $(apt-cache "${apt_private[@]}" madison python3.13 | awk -F'|' '/Sources/ {gsub(/ /, "", $2); print $2}'); do
    echo "== trying python3.13=$version"
    if apt-get "${apt_private[@]}" source --download-only -q "python3.13=$version"; then
        downloaded=$version
        break
    fi
done
[ -n "$downloaded" ] || { echo "no python3.13 source package could be downloaded" >&2; exit 1; }
tarball=$(ls python3.13_*.orig.tar.* | head -n1)
tar -xf "$tarball"
source_dir=$(find . -maxdepth 1 -type d -name 'Python-3.13*' | head -n1)
[ -n "$source_dir" ] || { echo "no Python-3.13* folder in $tarball" >&2; exit 1; }
echo "== source $tarball ($((SECONDS - began)) s so far)"

# The TSan build leaves out what the threaded tests never load: every module
# of CPython's own tests (--disable-test-modules), and these stdlib extension
# modules, which neither the suite, pytest, hypothesis nor setuptools
# import (or import only in a try, with a pure-Python fallback: decimal,
# asyncio, zoneinfo, statistics, uuid, and bz2 and lzma in shutil and
# zipfile). configure reads py_cv_module_NAME=n/a as "not available here".
TSAN_SKIPPED_MODULES=(_asyncio _bz2 _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr
    _codecs_tw _curses _curses_panel _dbm _decimal _elementtree _gdbm _interpchannels
    _interpqueues _interpreters _lsprof _lzma _multibytecodec _multiprocessing _posixshmem _sqlite3
    _statistics _tkinter _uuid _xxtestfuzz _zoneinfo cmath pyexpat readline syslog xxlimited
    xxlimited_35 xxsubtype)
# Built into a staging folder and moved into place when whole, so that an
# interrupted build never leaves a PREFIX that looks finished.
staging="$PREFIX.partial"
configure_args=(--disable-gil --prefix="$PREFIX")
configure_env=()
install_args=(DESTDIR="$staging")
if [ "$tsan" = yes ]; then
    configure_args+=(--with-thread-sanitizer --disable-test-modules --with-ensurepip=no)
    # -O2 rather than the default -O3 (the same code under TSan, built
    # faster); line tables so that TSan's reports show inlined frames, which
    # CPython's suppressions name.
    configure_env+=(CC=clang "OPT=-DNDEBUG -gline-tables-only -fwrapv -O2 -Wall")
    for module in "${TSAN_SKIPPED_MODULES[@]}"; do
        configure_env+=("py_cv_module_$module=n/a")
    done
    # make install would run the new interpreter to compile the whole
    # library to bytecode three times over (-O0, -O1, -O2), minutes under
    # TSan for files the tests never import, and to check the modules it
    # just built: with no interpreter for those steps (PYTHON_FOR_BUILD, the
    # make variable they run) they do nothing, and the library is compiled
    # once, below.
    install_args+=("PYTHON_FOR_BUILD=:")
    # The build and what runs the new interpreter here (freezing modules,
    # compileall) test nothing: TSan reports nothing there.
    export TSAN_OPTIONS=report_bugs=0
else
    configure_args+=(--with-ensurepip=install)
fi

rm -rf "$staging"
cd "$source_dir"
step=$SECONDS
nice -n 10 env "${configure_env[@]}" ./configure "${configure_args[@]}" >"$work/configure.log" 2>&1 ||
    { tail -n 40 "$work/configure.log" >&2; exit 1; }
echo "== configure: $((SECONDS - step)) s"
step=$SECONDS
nice -n 10 make -j2 >"$work/make.log" 2>&1 || { tail -n 60 "$work/make.log" >&2; exit 1; }
echo "== make -j2: $((SECONDS - step)) s"
step=$SECONDS
nice -n 10 make install "${install_args[@]}" >"$work/install.log" 2>&1 ||
    { tail -n 40 "$work/install.log" >&2; exit 1; }
echo "== make install: $((SECONDS - step)) s"

# Trim: the test suite, static libraries, symbols (not the TSan build's:
# its reports and suppressions need the function names).
root="$staging$PREFIX"
rm -rf "$root"/lib/python3.13t/test "$root"/lib/python3.13t/idlelib/idle_test
find "$root" -name '*.a' -delete
find "$root" -type d -name __pycache__ -path '*/test/*' -prune -exec rm -rf {} +
[ "$tsan" = yes ] ||
    strip --strip-unneeded "$root"/bin/python3.13t "$root"/lib/python3.13t/lib-dynload/*.so 2>/dev/null || true

rm -rf "$PREFIX"
mv "$root" "$PREFIX"
rm -rf "$staging"
if [ "$tsan" = yes ]; then
    # In place (bytecode goes where the interpreter has its prefix): the
    # library's bytecode at the one level the tests run, which an interpreter
    # under TSan would otherwise compile anew at every start (PYTHONDONTWRITEBYTECODE
    # keeps it from caching it), and last the suppressions, which mark the
    # build finished. No pip: pip under TSan takes minutes, and
    # tests/hardening/tsan_python.sh installs its pure-Python tools with
    # another interpreter's pip.
    step=$SECONDS
    # As make install does, a file that does not compile is no failure: it
    # is compiled when imported.
    nice -n 10 "$PYTHON" -m compileall -q -o 0 -x 'bad_coding|badsyntax|site-packages' \
        "$PREFIX/lib/python3.13t" >"$work/compileall.log" 2>&1 || tail -n 20 "$work/compileall.log"
    echo "== compileall: $((SECONDS - step)) s"
    mkdir -p "$(dirname "$SUPPRESSIONS")"
    cp Tools/tsan/suppressions_free_threading.txt "$SUPPRESSIONS"
fi
echo "== built ($((SECONDS - began)) s so far)"
is_free_threaded_313 || { echo "the build in $PREFIX is not the free-threaded 3.13 wanted" >&2; exit 1; }
echo "== free-threaded Python in $PREFIX: $(TSAN_OPTIONS=report_bugs=0 "$PYTHON" -VV), $(du -sh "$PREFIX" | cut -f1), $((SECONDS - began)) s"
