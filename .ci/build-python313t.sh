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
# Usage: .ci/build-python313t.sh PREFIX      e.g. /opt/fastdigest-ci/python3.13t
# Prints PREFIX/bin/python3.13t's version when done.
set -euo pipefail

PREFIX=${1:?usage: $0 PREFIX}
case "$PREFIX" in /*) ;; *) echo "PREFIX must be an absolute path: $PREFIX" >&2; exit 2 ;; esac
PYTHON="$PREFIX/bin/python3.13t"

is_free_threaded_313() {
    [ -x "$PYTHON" ] && "$PYTHON" -c '
import sys, sysconfig
sys.exit(0 if sys.version_info[:2] == (3, 13) and sysconfig.get_config_var("Py_GIL_DISABLED") else 1)'
}

if is_free_threaded_313; then
    echo "free-threaded Python already in $PREFIX: $("$PYTHON" -VV)"
    exit 0
fi

# One build at a time per PREFIX (two CI runs on one machine would race).
mkdir -p "$(dirname "$PREFIX")"
exec 9>"$PREFIX.lock"
flock 9
if is_free_threaded_313; then
    echo "free-threaded Python built meanwhile in $PREFIX: $("$PYTHON" -VV)"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
began=$SECONDS

# The build dependencies of CPython's extension modules, from bookworm.
needed=(build-essential pkg-config libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev
        libsqlite3-dev libreadline-dev uuid-dev libgdbm-dev libncurses-dev xz-utils)
missing=()
for package in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
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

# Built into a staging folder and moved into place when whole, so that an
# interrupted build never leaves a PREFIX that looks finished.
staging="$PREFIX.partial"
rm -rf "$staging"
cd "$source_dir"
nice -n 10 ./configure --disable-gil --prefix="$PREFIX" --with-ensurepip=install >"$work/configure.log" 2>&1 ||
    { tail -n 40 "$work/configure.log" >&2; exit 1; }
nice -n 10 make -j2 >"$work/make.log" 2>&1 || { tail -n 60 "$work/make.log" >&2; exit 1; }
nice -n 10 make install DESTDIR="$staging" >"$work/install.log" 2>&1 ||
    { tail -n 40 "$work/install.log" >&2; exit 1; }
echo "== built ($((SECONDS - began)) s so far)"

# Trim: the test suite, static libraries, symbols.
root="$staging$PREFIX"
rm -rf "$root"/lib/python3.13t/test "$root"/lib/python3.13t/idlelib/idle_test
find "$root" -name '*.a' -delete
find "$root" -type d -name __pycache__ -path '*/test/*' -prune -exec rm -rf {} +
strip --strip-unneeded "$root"/bin/python3.13t "$root"/lib/python3.13t/lib-dynload/*.so 2>/dev/null || true

rm -rf "$PREFIX"
mv "$root" "$PREFIX"
rm -rf "$staging"
is_free_threaded_313 || { echo "the build in $PREFIX is not a free-threaded 3.13" >&2; exit 1; }
echo "== free-threaded Python in $PREFIX: $("$PYTHON" -VV), $(du -sh "$PREFIX" | cut -f1), $((SECONDS - began)) s"
