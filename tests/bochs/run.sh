#!/usr/bin/env bash
# The SHA512-instruction kernel on the instructions themselves, which no CPU
# here has: on the Bochs CPU of bochscpu-python, against hashlib, the
# portable C and the model of the instructions (run_guest.py says what it
# runs and checks). x86-64 Linux only.
#
#   tests/bochs/run.sh
#
# Builds, in BUILD_DIR (default ${TMPDIR:-/tmp}/fastdigest-tests-bochs):
#   bochscpu_shim.so  the preload shim for the wheel (bochscpu_shim.c)
#   guest.bin         guest.c, the kernel and the CPU detection
#                     (dispatch/features.c), freestanding, by clang with the
#                     instructions, linked at 2 MiB (guest.ld) and flattened
#   guest_model.so    guest.c with the model (tests/c/model_kernels.c) and
#                     the portable kernel, by the native compiler
# then runs run_guest.py. Installs what is missing: clang-19 with apt-get
# (root, or sudo), and bochscpu-python 0.4.0 with pip into PYTHON.
# Environment:
#   PYTHON    interpreter to run the driver (default python3)
#   CLANG     a clang of version 17 or later (default clang-19)
#   CC        the native compiler for the model library (default gcc)
#   FD_TEST_SEED      seed of the random inputs (run_guest.py's default)
#   FD_BOCHS_CPU_MODEL  Bochs CPU model number (bochscpu_shim.c; default 31)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
src_dir="$repo_root/src/_fastdigest"
here="$repo_root/tests/bochs"
build_dir=${BUILD_DIR:-${TMPDIR:-/tmp}/fastdigest-tests-bochs}
python=${PYTHON:-python3}
clang=${CLANG:-clang-19}
cc=${CC:-gcc}
cflags=(-std=c11 -O2 -Wall -Wextra -Werror -I"$src_dir")

# shellcheck source=../apt.sh
source "$repo_root/tests/apt.sh"

if [ "$(uname -sm)" != "Linux x86_64" ]; then
    echo "run.sh: the Bochs harness runs on x86-64 Linux only, not $(uname -sm)" >&2
    exit 2
fi
if ! command -v "$clang" >/dev/null; then
    apt_install clang-19
fi
mkdir -p "$build_dir"
start=$SECONDS

echo "== building in $build_dir"
"$cc" -shared -fPIC -O2 -Wall -Wextra -Werror -o "$build_dir/bochscpu_shim.so" \
    "$here/bochscpu_shim.c" -ldl

# The guest: no libc, no position independence (it runs where guest.ld puts
# it), nothing that needs an operating system (stack protector, unwind
# tables); the kernel's target attribute enables the instructions.
guest_flags=(-ffreestanding -fno-pic -fno-pie -mno-red-zone -fno-stack-protector
    -fno-asynchronous-unwind-tables)
objects=()
for source in "$here/guest.c" "$src_dir/kernels/x86/sha512ni/sha512_sha512ni.c" \
    "$src_dir/kernels/round_constants.c" "$src_dir/dispatch/features.c"; do
    object="$build_dir/$(basename "$source" .c).o"
    "$clang" "${cflags[@]}" "${guest_flags[@]}" -c "$source" -o "$object"
    objects+=("$object")
done
ld -static -nostdlib -T "$here/guest.ld" -o "$build_dir/guest.elf" "${objects[@]}"
objcopy -O binary "$build_dir/guest.elf" "$build_dir/guest.bin"

"$cc" "${cflags[@]}" -shared -fPIC -DFD_SHA512NI_MODEL -o "$build_dir/guest_model.so" \
    "$here/guest.c" "$repo_root/tests/c/model_kernels.c" "$src_dir/kernels/round_constants.c" \
    "$src_dir/kernels/portable/sha512_portable.c"

preload="$build_dir/bochscpu_shim.so"
if ! LD_PRELOAD=$preload "$python" -c 'import bochscpu' 2>/dev/null; then
    echo "== installing bochscpu-python 0.4.0 with $python -m pip" >&2
    "$python" -m pip install -q bochscpu-python==0.4.0 >&2
fi
echo "== built in $((SECONDS - start)) s"

seed=()
[ -z "${FD_TEST_SEED:-}" ] || seed=(--seed "$FD_TEST_SEED")
LD_PRELOAD=$preload timeout 600 "$python" "$here/run_guest.py" "$build_dir/guest.bin" \
    "$build_dir/guest_model.so" "${seed[@]}"
echo "== all of run.sh: $((SECONDS - start)) s"
