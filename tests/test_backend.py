"""Kernel selection: fastdigest.implementation, FASTDIGEST_BACKEND, FASTDIGEST_DISABLE and
fastdigest.cpu_features.

Every digest test in the suite runs on whatever kernels this process selected; CI runs the suite
again with FASTDIGEST_BACKEND=portable and with features hidden by FASTDIGEST_DISABLE, so each
kernel this CPU has is tested against hashlib. These tests check the selection itself.
"""

import json
import os
import platform
import struct
import subprocess
import sys

import pytest

import fastdigest

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')
KERNEL_NAMES = {'portable', 'tuned', 'ssse3', 'shani', 'avx2', 'avx512', 'sha512ni', 'armv8'}


# FASTDIGEST_DISABLE's names, in dispatch/features.c's order, and the /proc/cpuinfo flags each stands for.
FEATURE_FLAGS = {
    'ssse3': {'ssse3'},
    'sse41': {'sse4_1'},
    'avx': {'avx'},
    'avx2': {'avx2'},
    'bmi1': {'bmi1'},
    'bmi2': {'bmi2'},
    'shani': {'sha_ni'},
    'avx512': {'avx512f', 'avx512vl', 'avx512bw'},
    'sha512ni': {'sha512'},
    'armsha1': {'sha1'},
    'armsha2': {'sha2'},
    'armsha512': {'sha512'},
}
X86_FEATURES = ('ssse3', 'sse41', 'avx', 'avx2', 'bmi1', 'bmi2', 'shani', 'avx512', 'sha512ni')
ARM_FEATURES = ('armsha1', 'armsha2', 'armsha512')


def import_in_child(backend):
    """Imports fastdigest in a new interpreter with FASTDIGEST_BACKEND set (None: unset), and this
    process's FASTDIGEST_DISABLE."""
    environment = dict(os.environ)
    environment.pop('FASTDIGEST_BACKEND', None)
    if backend is not None:
        environment['FASTDIGEST_BACKEND'] = backend
    code = (
        'import json, fastdigest; print(json.dumps([fastdigest.implementation, fastdigest.sha256(b"abc").hexdigest()]))'
    )
    return subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)


# What a child reports: its kernels and features, and whether it hashes as hashlib does (one-shot,
# streaming over several blocks, and digest_many, which runs the multi-buffer kernels).
CHILD_CODE = r"""
import hashlib, json, random, fastdigest
rng = random.Random(14)
messages = [rng.randbytes(rng.randrange(300)) for _ in range(40)]
agrees = all(
    fastdigest.digest_many(name, messages) == [hashlib.new(name, m).digest() for m in messages]
    and fastdigest.new(name, messages[0] * 50).digest() == hashlib.new(name, messages[0] * 50).digest()
    for name in ALGORITHMS
)
print(json.dumps({
    'implementation': fastdigest.implementation,
    'batch_implementation': fastdigest.batch_implementation,
    'cpu_features': sorted(fastdigest.cpu_features),
    'agrees_with_hashlib': agrees,
}))
""".replace('ALGORITHMS', repr(ALGORITHMS))


def run_child(disable, backend=None):
    """A new interpreter importing fastdigest with FASTDIGEST_DISABLE=disable (None: unset) and
    FASTDIGEST_BACKEND=backend (None: unset), whatever this process has."""
    environment = dict(os.environ)
    environment.pop('FASTDIGEST_BACKEND', None)
    environment.pop('FASTDIGEST_DISABLE', None)
    if backend is not None:
        environment['FASTDIGEST_BACKEND'] = backend
    if disable is not None:
        environment['FASTDIGEST_DISABLE'] = disable
    return subprocess.run([sys.executable, '-c', CHILD_CODE], env=environment, capture_output=True, text=True)


def child_state(disable, backend=None):
    result = run_child(disable, backend)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state['agrees_with_hashlib'], (disable, backend, state)
    return state


def kernels_of(state, algorithms=ALGORITHMS):
    """The single-stream and batch kernels STATE runs ALGORITHMS on."""
    return {state[table][name] for table in ('implementation', 'batch_implementation') for name in algorithms}


def disabled_names():
    """The names in this process's FASTDIGEST_DISABLE."""
    return {item.strip() for item in os.environ.get('FASTDIGEST_DISABLE', '').split(',')} - {''}


# The bits of AT_HWCAP on Linux/arm64 (arch/arm64/include/uapi/asm/hwcap.h) that FEATURE_FLAGS names,
# by their names in /proc/cpuinfo's Features line.
AT_HWCAP = 16
ARM64_HWCAP_BITS = {'sha1': 1 << 5, 'sha2': 1 << 6, 'sha512': 1 << 21}


def arm64_hwcap_flags(auxv_path='/proc/self/auxv'):
    """The Features of ARM64_HWCAP_BITS that this process's auxiliary vector reports (pairs of native
    unsigned longs, type then value)."""
    with open(auxv_path, 'rb') as auxv:
        data = auxv.read()
    pair = struct.calcsize('@LL')
    for offset in range(0, len(data) - pair + 1, pair):
        kind, value = struct.unpack_from('@LL', data, offset)
        if kind == AT_HWCAP:
            return {name for name, bit in ARM64_HWCAP_BITS.items() if value & bit}
    return set()


def cpu_flags():
    """The CPU's /proc/cpuinfo flags, less those this process's FASTDIGEST_DISABLE hides, so that
    expectations follow the level the suite runs at."""
    flags = set()
    found = None
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith(('flags', 'Features')):
                    found = line.split(':', 1)[0].strip()
                    flags = set(line.split(':', 1)[1].split())
                    break
    except OSError:
        pass
    if platform.machine().lower() in ('aarch64', 'arm64') and sys.platform.startswith('linux') and found != 'Features':
        # An arm64 process whose /proc/cpuinfo describes another CPU: qemu-user passes the host's file
        # through (x86-64 flags, no Features line). The kernel derives Features from AT_HWCAP, which
        # qemu-user does emulate in /proc/self/auxv, for the CPU it emulates (QEMU_CPU).
        flags = arm64_hwcap_flags()
    for name in disabled_names():
        flags -= FEATURE_FLAGS.get(name, set())
    return flags


def cpu_name():
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def test_implementation_names_every_algorithm():
    # Every algorithm of the extension's table, in its order (tests/test_typing.py holds the table to the
    # stubs), these among them.
    assert list(fastdigest.implementation) == list(fastdigest._fastdigest._algorithms)
    assert set(ALGORITHMS) <= set(fastdigest.implementation)
    assert set(fastdigest.implementation.values()) <= KERNEL_NAMES
    # One kernel per family.
    assert fastdigest.implementation['sha224'] == fastdigest.implementation['sha256']
    for name in ('sha384', 'sha512_224', 'sha512_256'):
        assert fastdigest.implementation[name] == fastdigest.implementation['sha512']


def test_portable_forced_by_environment():
    result = import_in_child('portable')
    assert result.returncode == 0, result.stderr
    implementation, abc = json.loads(result.stdout)
    assert implementation == {name: 'portable' for name in fastdigest._fastdigest._algorithms}
    assert abc == 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'  # FIPS 180-2, B.1


def test_unknown_backend_is_an_import_error():
    result = import_in_child('fastest-please')
    assert result.returncode != 0
    assert "ImportError: FASTDIGEST_BACKEND must be 'portable', 'best' or unset, not 'fastest-please'" in result.stderr


def test_best_kernels_follow_the_cpu():
    result = import_in_child(None)
    assert result.returncode == 0, result.stderr
    implementation, _ = json.loads(result.stdout)
    assert implementation['md5'] == 'tuned'
    flags = cpu_flags()
    machine = platform.machine().lower()
    if machine in ('x86_64', 'amd64'):
        # SHA-1 and SHA-256 alike: SHA-NI, else the AVX2 schedule with BMI rounds, else SSSE3.
        if {'sha_ni', 'ssse3', 'sse4_1'} <= flags:
            expected_sha = 'shani'
        elif {'avx2', 'bmi1', 'bmi2'} <= flags:
            expected_sha = 'avx2'
        elif 'ssse3' in flags:
            expected_sha = 'ssse3'
        else:
            expected_sha = 'portable'
        expected_sha1 = expected_sha
        if {'avx512f', 'avx512vl', 'avx512bw', 'bmi1', 'bmi2'} <= flags:
            expected_sha512 = 'avx512'
        elif {'sha512', 'avx2'} <= flags:
            # Or 'avx2' from a compiler that leaves the kernel out (kernels/x86/sha512ni/sha512ni.h).
            expected_sha512 = ('sha512ni', 'avx2')
        elif {'avx2', 'bmi1', 'bmi2'} <= flags:
            expected_sha512 = 'avx2'
        else:
            expected_sha512 = 'portable'
    elif machine in ('aarch64', 'arm64'):
        expected_sha = 'armv8' if 'sha2' in flags else 'portable'
        expected_sha1 = 'armv8' if 'sha1' in flags else 'portable'
        expected_sha512 = 'armv8' if 'sha512' in flags else 'portable'
    else:
        expected_sha = expected_sha1 = expected_sha512 = 'portable'
    assert implementation['sha1'] == expected_sha1
    assert implementation['sha256'] == expected_sha
    assert implementation['sha512'] in (expected_sha512 if isinstance(expected_sha512, tuple) else (expected_sha512,))


# ---- FASTDIGEST_DISABLE and cpu_features ---------------------------------------------------------

SHANI_KERNELS = {'shani', 'shani_x2'}
AVX512_KERNELS = {'avx512', 'avx512_x16', 'avx512_x8'}
AVX2_KERNELS = {'avx2', 'avx2_x8', 'avx2_x4'}
FAST_KERNELS = SHANI_KERNELS | AVX512_KERNELS | AVX2_KERNELS | {'sha512ni', 'armv8'}


def test_arm64_hwcap_flags_reads_the_auxiliary_vector(tmp_path):
    # What the arm64 expectations rest on under qemu-user, checked on every platform with a made-up
    # vector: AT_PAGESZ, AT_HWCAP with the SHA-1 and SHA-512 bits (and bit 0, FP), AT_HWCAP2 with bit 6
    # set (not SHA-2: another vector), AT_NULL.
    auxv = tmp_path / 'auxv'
    entries = [(6, 4096), (AT_HWCAP, (1 << 5) | (1 << 21) | 1), (26, 1 << 6), (0, 0)]
    auxv.write_bytes(b''.join(struct.pack('@LL', *entry) for entry in entries))
    assert arm64_hwcap_flags(str(auxv)) == {'sha1', 'sha512'}


def test_cpu_features_name_what_the_cpu_has():
    assert isinstance(fastdigest.cpu_features, frozenset)
    assert fastdigest.cpu_features <= set(FEATURE_FLAGS)
    assert not fastdigest.cpu_features & disabled_names()
    if os.path.exists('/proc/cpuinfo'):
        flags = cpu_flags()
        # The names of this architecture: /proc/cpuinfo calls both SHA-512 extensions sha512.
        machine = platform.machine().lower()
        names = ARM_FEATURES if machine in ('aarch64', 'arm64') else X86_FEATURES
        expected = {name for name in names if FEATURE_FLAGS[name] <= flags}
        # Linux need not name the x86 SHA512 instructions in /proc/cpuinfo (its cpufeatures.h shows the
        # flags whose names it quotes, and leaves X86_FEATURE_SHA512 unquoted): where the flag is missing,
        # the file says nothing about them.
        unknown = set() if 'sha512' in flags or names is ARM_FEATURES else {'sha512ni'}
        assert fastdigest.cpu_features - unknown == expected - unknown


SHA256_FAMILY = ('sha224', 'sha256')
SHA512_FAMILY = ('sha384', 'sha512', 'sha512_224', 'sha512_256')


@pytest.mark.parametrize(
    ('disable', 'needs', 'gone', 'algorithms'),
    [
        # The levels CI runs the suite at, and what may no longer run at each.
        ('shani', ('shani',), SHANI_KERNELS, ALGORITHMS),
        ('shani,avx512', ('shani', 'avx512'), SHANI_KERNELS | AVX512_KERNELS, ALGORITHMS),
        # A CPU without AVX2 has no AVX-512 either: the names are independent, so both go.
        ('avx512,avx2', ('avx2',), AVX512_KERNELS | AVX2_KERNELS, ALGORITHMS),
        # The SHA-NI kernels need SSSE3 as well, and the AVX2/AVX-512 SHA-512 ones BMI2 (rorx).
        ('ssse3', ('shani',), SHANI_KERNELS, ALGORITHMS),
        ('bmi2', ('bmi2', 'avx2'), {'avx2', 'avx512'}, ALGORITHMS),
        # Each ARM feature is one family's instructions: the other families keep their kernels.
        ('armsha1', ('armsha1',), {'armv8'}, ('sha1',)),
        ('armsha2', ('armsha2',), {'armv8'}, SHA256_FAMILY),
        ('armsha512', ('armsha512',), {'armv8'}, SHA512_FAMILY),
        (','.join(FEATURE_FLAGS), (), FAST_KERNELS, ALGORITHMS),
    ],
)
def test_disabled_features_change_the_kernels(disable, needs, gone, algorithms):
    best = child_state(disable=None)
    missing = [name for name in needs if name not in best['cpu_features']]
    if missing:
        pytest.skip(f'this CPU ({cpu_name()}, {platform.machine()}) lacks {", ".join(missing)}')
    names = set(disable.split(','))
    masked = child_state(disable=disable)
    assert set(masked['cpu_features']) == set(best['cpu_features']) - names
    if needs:
        assert kernels_of(best, algorithms) & gone, f'nothing to hide: the best kernels use none of {gone}'
    assert not kernels_of(masked, algorithms) & gone, masked
    for name in set(ALGORITHMS) - set(algorithms):
        for table in ('implementation', 'batch_implementation'):
            assert masked[table][name] == best[table][name], (table, name, masked)
    if not needs:
        assert set(masked['implementation'].values()) <= {'portable', 'tuned'}


def test_names_of_the_other_architecture_change_nothing():
    best = child_state(disable=None)
    machine = platform.machine().lower()
    other = ARM_FEATURES if machine in ('x86_64', 'amd64', 'i686', 'i386') else X86_FEATURES
    assert child_state(disable=','.join(other)) == best


@pytest.mark.parametrize('disable', ['', ',', ' ', ' shani , ,avx512,, ', '\tshani,\navx512'])
def test_white_space_and_empty_items_are_ignored(disable):
    want = child_state(disable='shani,avx512' if 'shani' in disable else None)
    assert child_state(disable=disable) == want


def test_disable_applies_under_the_portable_backend_too():
    state = child_state(disable='shani', backend='portable')
    assert set(state['implementation'].values()) == {'portable'}
    assert 'shani' not in state['cpu_features']


@pytest.mark.parametrize('name', ['sha-ni', 'SHANI', 'avx-512', 'neon'])
def test_unknown_feature_name_is_an_import_error(name):
    result = run_child(disable=f'shani,{name}')
    assert result.returncode != 0
    valid = ', '.join(FEATURE_FLAGS)
    assert f"ImportError: FASTDIGEST_DISABLE: unknown feature '{name}'; the names are: {valid}" in result.stderr


def test_a_long_unknown_name_is_cut_in_the_message():
    result = run_child(disable='x' * 500)
    assert result.returncode != 0
    assert "unknown feature '" + 'x' * 40 + "...'; the names are: ssse3," in result.stderr
