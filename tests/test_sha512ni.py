"""The SHA512-instruction kernel (src/_fastdigest/kernels/x86/sha512ni/) where no CPU here has the
instructions, in the heavy tier.

- On the Bochs CPU (tests/bochs/run.sh): the kernel as clang-19 builds it with the instructions runs in a
  bochscpu session on hundreds of messages and random chains, against hashlib, the portable C and the
  model of the instructions, which is also compared with each instruction on random operands, and the
  CPU detection (dispatch/features.c) runs on a CPU that has them. Seconds, most of them the builds; it
  installs clang-19 and bochscpu-python where they are missing.
- Builds of the whole extension with clang-19, and with GCC and clang-19 for the kernel's file alone
  (FASTDIGEST_SHA512NI_CC, as the x86-64 Linux wheels may be built), compile the kernel in, rank it in
  the SHA-512 table after AVX-512 and before AVX2, and select it only on a CPU that has the
  instructions; each build hashes as hashlib does. Two builds at -O1, under a minute each on two cores.

The model build itself runs in the C driver (tests/c/run.sh native and sanitize) on any AVX2 CPU.
"""

import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys

import pytest

from conftest import finished_job

pytestmark = pytest.mark.heavy

TESTS = pathlib.Path(__file__).resolve().parent
SOURCE_TREE = TESTS.parent
RUN_SH = TESTS / 'bochs' / 'run.sh'
SUMMARY = re.compile(r'^Bochs sha512ni: (\d+) passed, (\d+) failed$', re.MULTILINE)
X86_64_LINUX = sys.platform.startswith('linux') and platform.machine().lower() in ('x86_64', 'amd64')
NOT_X86_64_LINUX = f'the SHA512 instructions are x86-64, and the harness x86-64 Linux only, not {platform.machine()}'
CLANG, OBJDUMP = 'clang-19', 'llvm-objdump-19'


@pytest.mark.parametrize(
    'job',
    [
        pytest.param('bochs/sha512ni', marks=pytest.mark.job('bochs/sha512ni', [RUN_SH], 0.2))
        if X86_64_LINUX
        else pytest.param('bochs/sha512ni', marks=pytest.mark.skip(reason=NOT_X86_64_LINUX))
    ],
)
def test_kernel_on_the_bochs_cpu(job, jobs):
    _, output = finished_job(jobs, job)
    summary = SUMMARY.search(output)
    assert summary, output[-4000:]
    passed, failed = map(int, summary.groups())
    assert failed == 0 and passed > 5000, output[-4000:]
    # Each kind of check ran.
    for group in ('vs-hashlib', 'vs-portable', 'model-kernel', 'model-instructions'):
        assert re.search(rf'^\[{group}\] [1-9]\d* passed, 0 failed$', output, re.MULTILINE), (group, output[-4000:])


def ensure_clang():
    if shutil.which(CLANG) and shutil.which(OBJDUMP):
        return
    # llvm-19 brings llvm-objdump-19, which clang-19 only recommends.
    subprocess.run(['bash', '-c', f'source "{TESTS}/apt.sh" && apt_install clang-19 llvm-19'], check=True)


# CC=clang-19 builds everything; with CC=gcc where it does not know the intrinsics (Debian 12's GCC 12)
# FASTDIGEST_SHA512NI_CC=clang-19 builds the kernel's file alone, as the x86-64 Linux wheels may do
# (pyproject.toml).
BUILDS = {'clang': {'CC': CLANG}, 'gcc+clang': {'CC': 'gcc', 'FASTDIGEST_SHA512NI_CC': CLANG}}


@pytest.fixture(scope='module', params=list(BUILDS))
def clang_build(request, tmp_path_factory):
    """A copy of the source tree built in place with clang-19, and the build's output."""
    if not X86_64_LINUX:
        pytest.skip(NOT_X86_64_LINUX)
    if not (SOURCE_TREE / 'setup.py').is_file():
        pytest.skip('the tests run away from the source tree (against an installed wheel): nothing to build')
    ensure_clang()
    if request.param == 'gcc+clang' and 'FD_HAVE_SHA512NI' in preprocessed_header('gcc'):
        pytest.skip(
            'this GCC knows the SHA512 intrinsics: FASTDIGEST_SHA512NI_CC would only build where its assembler cannot'
        )
    copy = tmp_path_factory.mktemp('clang-build')
    shutil.copy(SOURCE_TREE / 'setup.py', copy)
    shutil.copytree(SOURCE_TREE / 'src', copy / 'src')
    shutil.copytree(
        SOURCE_TREE / 'fastdigest', copy / 'fastdigest', ignore=shutil.ignore_patterns('*.so', '*.pyd', '__pycache__')
    )
    environment = dict(os.environ, FASTDIGEST_STRICT='1', FASTDIGEST_CFLAGS='-O1', **BUILDS[request.param])
    environment.pop('FASTDIGEST_LDFLAGS', None)
    result = subprocess.run(
        [sys.executable, 'setup.py', 'build_ext', '--inplace', '--parallel', str(os.cpu_count() or 1)],
        check=False,
        cwd=str(copy),
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-6000:]
    if request.param == 'gcc+clang':
        assert f'the sha512ni kernel is built by {CLANG}' in result.stdout, result.stdout[-4000:]
    return copy, result.stdout


def preprocessed_header(compiler):
    """The macros kernels/x86/sha512ni/sha512ni.h defines with COMPILER."""
    return subprocess.run(
        [compiler, '-dM', '-E', f'-I{SOURCE_TREE / "src" / "_fastdigest"}', '-x', 'c', '-'],
        input='#include "kernels/x86/sha512ni/sha512ni.h"\n',
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_clang_build_compiles_the_kernel_in(clang_build):
    copy, output = clang_build
    assert 'building without the sha512ni kernel' not in output, output[-4000:]
    (library,) = (copy / 'fastdigest').glob('_fastdigest.*')
    disassembly = subprocess.run(
        [OBJDUMP, '-d', '--no-show-raw-insn', '--disassemble-symbols=fd_sha512_blocks_sha512ni', str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for instruction in ('vsha512rnds2', 'vsha512msg1', 'vsha512msg2'):
        assert re.search(rf'\s{instruction}\s', disassembly), (instruction, disassembly[-3000:])


def child_report(copy):
    """fastdigest of the clang build, imported in a fresh interpreter: its SHA-512 kernel, the CPU's
    features, and whether the SHA-512 family hashes as hashlib does."""
    code = r"""
import hashlib, json, random, fastdigest
rng = random.Random(512)
messages = [rng.randbytes(n) for n in list(range(300)) + [4096, 30000]]
names = ('sha384', 'sha512', 'sha512_224', 'sha512_256')
print(json.dumps({
    'file': fastdigest.__file__,
    'sha512': fastdigest.implementation['sha512'],
    'cpu_features': sorted(fastdigest.cpu_features),
    'agrees': all(fastdigest.new(name, m).digest() == hashlib.new(name, m).digest() for name in names for m in messages),
}))
"""
    environment = dict(os.environ, PYTHONPATH=str(copy))
    environment.pop('FASTDIGEST_BACKEND', None)
    environment.pop('FASTDIGEST_DISABLE', None)
    # Run in the copy, so that the checkout's fastdigest/ is not found first.
    output = subprocess.check_output([sys.executable, '-c', code], cwd=str(copy), env=environment, text=True)
    report = json.loads(output)
    assert pathlib.Path(report['file']).is_relative_to(copy), report
    return report


def kernel_list(copy):
    """tests/c/list_kernels.c linked with the clang build's core objects: the kernel tables and the
    selection of that very build (the binding's objects left out, which need Python)."""
    objects = [
        str(path)
        for path in sorted(copy.glob('build/temp*/src/_fastdigest/**/*.o'))
        if 'python' not in path.relative_to(copy).parts[2:]
    ]
    assert objects, list(copy.glob('build/**'))
    program = copy / 'list_kernels'
    subprocess.run(
        [CLANG, '-std=c11', '-O1', f'-I{copy / "src" / "_fastdigest"}', '-o', str(program)]
        + [str(TESTS / 'c' / 'list_kernels.c')]
        + objects
        + ['-pthread'],
        check=True,
    )
    return subprocess.check_output([str(program)], text=True)


def test_clang_build_lists_the_kernel_and_selects_it_only_where_the_cpu_has_it(clang_build):
    copy, _ = clang_build
    report = child_report(copy)
    assert report['agrees'], report
    listing = kernel_list(copy)
    sha512 = re.findall(r'^kernel sha512 (\S+) (runs|lacks)$', listing, re.MULTILINE)
    names = [name for name, _ in sha512]
    assert 'sha512ni' in names, listing
    # OpenSSL 3.6's order, after the AVX-512 kernel where both exist.
    assert names.index('avx512') < names.index('sha512ni') < names.index('avx2'), names
    runs = dict(sha512)['sha512ni'] == 'runs'
    assert runs == ('sha512ni' in report['cpu_features']), (listing, report)
    (selected,) = re.findall(r'^selected sha512 (\S+)$', listing, re.MULTILINE)
    assert selected == report['sha512'], (listing, report)
    if not runs:
        assert report['sha512'] != 'sha512ni', report
    elif 'avx512' not in report['cpu_features']:
        assert report['sha512'] == 'sha512ni', report
