#!/usr/bin/env bash
# Unpacks Debian sid's CPython 3.14 and 3.15 (GIL builds, with their test
# suites, headers and pip) into ROOT, a fixed folder outside the checkout,
# unless both are there already: a machine that keeps ROOT saves the
# download (about 40 MB).
#
# No Debian suite that bookworm can install has 3.14 or 3.15, and sid's
# packages need sid's glibc (2.38+) and libssl3t64. So nothing is installed
# with dpkg: the packages are unpacked with dpkg-deb -x into ROOT, beside
# sid's own C library, and each interpreter is patched with patchelf to use
# ROOT's dynamic loader and a DT_RPATH of ROOT's library folder. An RPATH,
# not a RUNPATH, so that the modules the interpreter dlopens (_ssl,
# _hashlib) find sid's libssl too; and the binary itself, so that every
# subprocess that runs sys.executable (pip's build steps) works as well.
# sid's package index lives in a private apt configuration in a temporary
# folder: the machine's own apt sources and lists are not touched.
#
# Usage: .ci/sid-pythons.sh ROOT        e.g. /opt/fastdigest-ci/sid
# Afterwards: ROOT/usr/bin/python3.14 and ROOT/usr/bin/python3.15 run as
# they are; build extensions with CFLAGS=-IROOT/usr/include (Debian's
# pyconfig.h sits in a multiarch folder sysconfig does not name), and get
# pip from ROOT/usr/share/python-wheels (`python3.X -m ensurepip` is not
# in Debian's minimal packages; .ci/pythons.sh makes its venvs
# --without-pip and installs that wheel).
set -euo pipefail

ROOT=${1:?usage: $0 ROOT}
case "$ROOT" in /*) ;; *) echo "ROOT must be an absolute path: $ROOT" >&2; exit 2 ;; esac
VERSIONS=(3.14 3.15)
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
loader=$(case "$arch" in amd64) echo ld-linux-x86-64.so.2 ;; arm64) echo ld-linux-aarch64.so.1 ;; esac)
[ -n "$loader" ] || { echo "sid-pythons.sh: no loader name known for $arch" >&2; exit 2; }

all_present() {
    local version
    for version in "${VERSIONS[@]}"; do
        "$ROOT/usr/bin/python$version" -c 'import ssl, hashlib, test.support, venv' 2>/dev/null || return 1
    done
}

if all_present; then
    for version in "${VERSIONS[@]}"; do echo "Python $version already in $ROOT: $("$ROOT/usr/bin/python$version" -VV)"; done
    exit 0
fi

# patchelf is Debian's; the rest (apt-get, dpkg-deb) every Debian has.
if ! command -v patchelf >/dev/null; then
    echo "== installing patchelf"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends patchelf
fi

# One unpacking at a time per ROOT (two CI runs on one machine would race).
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9
if all_present; then
    echo "Pythons unpacked meanwhile in $ROOT"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
began=$SECONDS

uri=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
uri=${uri:-http://deb.debian.org/debian}
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main" >"$work/apt/sources.list"
apt_private=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
             -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
             -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Architecture=$arch")
echo "== sid's package index"
apt-get "${apt_private[@]}" update -q

# The C library and what the interpreters and their extension modules link
# (ssl, hashlib, ctypes, sqlite3, decimal, readline, ...), then the
# interpreters: minimal (the core and the binary), stdlib, dev (headers),
# testsuite (Lib/test, for CPython's own test_hashlib and test_hmac), and
# pip and setuptools as wheels.
packages=(libc6 libssl3t64 libexpat1 zlib1g libffi8 libzstd1 libbz2-1.0 liblzma5 libsqlite3-0
          libmpdec4 libuuid1 libncursesw6 libtinfo6 libreadline8t64 libgcc-s1 libcrypt1
          python3-pip-whl python3-setuptools-whl python3-wheel-whl)
for version in "${VERSIONS[@]}"; do
    packages+=("python$version-minimal" "libpython$version-minimal" "libpython$version-stdlib"
               "libpython$version-dev" "libpython$version-testsuite" "python$version" "python$version-venv")
done
cd "$work/debs"
echo "== downloading ${#packages[@]} packages"
apt-get "${apt_private[@]}" download -q "${packages[@]}"

# Unpacked into a staging folder and moved into place when whole, so that an
# interrupted run never leaves a ROOT that looks finished.
staging="$ROOT.partial"
rm -rf "$staging"
mkdir -p "$staging"
for deb in *.deb; do
    dpkg-deb -x "$deb" "$staging"
done
rm -rf "$ROOT"
mv "$staging" "$ROOT"

# Patched after all the unpacking: unpacking again restores the binaries.
libdir=$ROOT/usr/lib/$multiarch
for version in "${VERSIONS[@]}"; do
    patchelf --set-interpreter "$libdir/$loader" --force-rpath --set-rpath "$libdir" "$ROOT/usr/bin/python$version"
done
all_present || { echo "sid-pythons.sh: the unpacked interpreters do not run (see above)" >&2;
                 for version in "${VERSIONS[@]}"; do "$ROOT/usr/bin/python$version" -c 'import ssl, hashlib, test.support, venv' || true; done
                 exit 1; }
for version in "${VERSIONS[@]}"; do
    echo "== Python $version in $ROOT: $("$ROOT/usr/bin/python$version" -VV)," \
        "$("$ROOT/usr/bin/python$version" -c 'import ssl; print(ssl.OPENSSL_VERSION)')"
done
echo "== $(du -sh "$ROOT" | cut -f1) in $ROOT, $((SECONDS - began)) s"
