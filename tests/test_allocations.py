"""fastdigest's calls allocate nothing on the C heap beyond the objects they return.

Python objects of these sizes come from CPython's own small-object allocator
(obmalloc's arenas), not from malloc; so a call that makes no C heap allocation
of its own makes no malloc call at all. A child interpreter runs with an
LD_PRELOAD shim (tests/c/count_allocations.c, built here) that counts malloc,
calloc, realloc and the aligned allocators while the child switches counting on
around many calls of one operation. hashlib's digest(), which makes an OpenSSL
context per call, is counted too: it proves that the shim sees allocations.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import fastdigest

SHIM_SOURCE = Path(__file__).parent / 'c' / 'count_allocations.c'
CALLS = 2000

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith('linux'), reason="the counting shim relies on glibc's __libc_malloc"
)

# Runs in the child: prints {operation: allocations during CALLS calls}.
CHILD = r"""
import ctypes, hashlib, json, sys
import fastdigest

calls = int(sys.argv[1])
shim = ctypes.CDLL(None)
start = shim.fd_count_allocations_start
stop = shim.fd_count_allocations_stop
stop.restype = ctypes.c_ulong


def count(operation):
    operation()  # first call outside: lazy set-up (method caches, a lock) is not per call
    start()
    for _ in range(calls):
        operation()
    return stop()


small = b"fastdigest" * 5
large = bytes(3 * fastdigest._GIL_MINSIZE)
counts = {"hashlib.sha256(data).digest()": count(lambda: hashlib.sha256(small).digest())}
for name in sorted(fastdigest.implementation):
    constructor = getattr(fastdigest, name)
    hasher = constructor(small)
    warm = constructor()
    operations = {
        "constructor()": lambda: constructor(),
        "constructor(bytes)": lambda: constructor(small),
        "constructor(bytearray)": lambda: constructor(bytearray(small)),
        "new(name, memoryview)": lambda: fastdigest.new(name, memoryview(small)),
        "copy()": hasher.copy,
        "digest()": hasher.digest,
        "hexdigest()": hasher.hexdigest,
        "update(small)": lambda: warm.update(small),
        "update(large)": lambda: warm.update(large),
        "digest(name, data)": lambda: fastdigest.digest(name, small),
        "hexdigest(constructor, data)": lambda: fastdigest.hexdigest(constructor, small),
        "digest(name, large)": lambda: fastdigest.digest(name, large),
    }
    for label, operation in operations.items():
        counts[name + " " + label] = count(operation)
print(json.dumps(counts))
"""


@pytest.fixture(scope='module')
def allocation_counts(tmp_path_factory):
    compiler = os.environ.get('CC') or sysconfig.get_config_var('CC').split()[0]
    if shutil.which(compiler) is None:
        pytest.fail(f'a C compiler ({compiler}) is needed to build the counting shim')
    shim = tmp_path_factory.mktemp('shim') / 'count_allocations.so'
    subprocess.run(
        [
            compiler,
            '-std=c11',
            '-O2',
            '-Wall',
            '-Wextra',
            '-Werror',
            '-shared',
            '-fPIC',
            str(SHIM_SOURCE),
            '-o',
            str(shim),
        ],
        check=True,
    )
    environment = dict(os.environ)
    environment['LD_PRELOAD'] = ' '.join(filter(None, [str(shim), environment.get('LD_PRELOAD')]))
    child = subprocess.run(
        [sys.executable, '-c', CHILD, str(CALLS)], env=environment, capture_output=True, text=True, check=True
    )
    return json.loads(child.stdout)


def test_the_shim_counts_allocations(allocation_counts):
    # OpenSSL allocates a context per hash object and per digest(): at least one per call.
    assert allocation_counts['hashlib.sha256(data).digest()'] >= CALLS


@pytest.mark.parametrize('algorithm', sorted(fastdigest.implementation))
def test_no_c_heap_allocation(allocation_counts, algorithm):
    mine = {label: n for label, n in allocation_counts.items() if label.startswith(algorithm + ' ')}
    assert len(mine) == 12
    assert mine == {label: 0 for label in mine}
