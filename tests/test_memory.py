"""Memory stays flat: millions of objects made, copied, digested and freed leave the process no larger.

A child interpreter runs each workload below twice: a warm-up round (the interpreter's own caches, free
lists and allocator arenas settle), then a measured round of the same size, between two readings of its
resident set (/proc/self/statm). A reference leaked per call (a hash object dealloc that does not free,
a digest's bytes object with one reference too many, an exception's message never released) grows the
measured round by at least the round's call count times the leaked object's size: several megabytes,
far above the bound. The workloads together make over two million objects and take a few seconds.

valgrind's view of the same (definite leaks, blocks by allocation stack) is tests/hardening/leaks.sh.
"""

import json
import os
import subprocess
import sys

import pytest

# Growth of the resident set allowed over a measured round: allocator noise (a new arena, a page of
# the interpreter's caches) stays well below it; a leak of 100 bytes per round iteration is 5 MB.
BOUND_BYTES = 2 << 20
ROUNDS = 50_000

# Runs in the child: prints {workload: [rss before, rss after the measured round, objects made]}.
CHILD = r"""
import gc, json, os, sys
import fastdigest
import fastdigest.hmac as fd_hmac

rounds = int(sys.argv[1])
page = os.sysconf('SC_PAGE_SIZE')
names = sorted(fastdigest.implementation)
constructors = [getattr(fastdigest, name) for name in names]
small = b'fastdigest memory test: a few blocks of data, ' * 4
large = bytes(2 * fastdigest._GIL_MINSIZE)  # hashed with the GIL released, under the object's lock
key = b'k' * 20


def resident():
    with open('/proc/self/statm') as statm:
        return int(statm.read().split()[1]) * page


def objects(i):
    # Per call: 2 hash objects, a bytes and a str per algorithm (32 objects).
    for constructor in constructors:
        hasher = constructor(small)
        clone = hasher.copy()
        clone.update(large if i % 16 == 0 else small)
        hasher.digest()
        clone.hexdigest()


def one_shots(i):
    # 16 results per call, half of them through a constructor as the name.
    for name, constructor in zip(names, constructors):
        fastdigest.digest(name, small)
        fastdigest.hexdigest(constructor, small)


def hmac_objects(i):
    # 3 HMAC objects and a result per call.
    name = names[i % len(names)]
    mac = fd_hmac.new(key, small, name)
    clone = mac.copy()
    clone.update(small)
    mac.digest()
    clone.hexdigest()
    fd_hmac.digest(key, small, name)


outs = {name: bytearray(4 * len(fastdigest.digest(name, b''))) for name in names}
rows = memoryview(bytearray(small * 4)).cast('B', (4, len(small)))


def batches(i):
    # A list and 4 digests per call; the same into out=, over the rows of a 2-D buffer and as HMACs (a list and
    # 4 MACs); a refused out= (an exception and its message).
    name = names[i % len(names)]
    messages = [small, small, b'', large if i % 16 == 0 else small]
    fastdigest.digest_many(name, messages)
    fastdigest.digest_many(name, messages, out=outs[name])
    fastdigest.digest_many(name, rows, out=outs[name])
    fd_hmac.digest_many(key, messages, name)
    try:
        fastdigest.digest_many(name, rows, out=bytes(outs[name]))
    except TypeError:
        pass
    else:
        raise AssertionError('a read-only out= was taken')


def states(i):
    # A state, a restored object and a digest per call.
    fastdigest.from_state(constructors[i % len(constructors)](small).state()).digest()


def errors(i):
    # An exception and its message per failing call.
    hasher = constructors[i % len(constructors)]()
    for failing in (lambda: hasher.update('text'), lambda: fastdigest.digest('nope', small),
                    lambda: fastdigest.new(names[0], None), lambda: fastdigest.from_state(b'not a state')):
        try:
            failing()
        except (TypeError, ValueError):
            pass
        else:
            raise AssertionError('no error from a failing call')


results = {}
for workload in (objects, one_shots, hmac_objects, batches, states, errors):
    for i in range(rounds):  # warm-up
        workload(i)
    gc.collect()
    before = resident()
    for i in range(rounds):
        workload(i)
    gc.collect()
    results[workload.__name__] = [before, resident()]
print(json.dumps(results))
"""


@pytest.fixture(scope='module')
def growth():
    if not os.path.exists('/proc/self/statm'):
        pytest.fail('the resident set is read from /proc/self/statm (Linux)')
    result = subprocess.run([sys.executable, '-c', CHILD, str(ROUNDS)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return {name: (before, after) for name, (before, after) in json.loads(result.stdout).items()}


@pytest.mark.parametrize('workload', ['objects', 'one_shots', 'hmac_objects', 'batches', 'states', 'errors'])
def test_memory_stays_flat(growth, workload):
    before, after = growth[workload]
    assert after - before < BOUND_BYTES, (
        f'{workload}: the resident set grew by {(after - before) / 2**20:.1f} MiB over {ROUNDS:,} rounds '
        f'({before / 2**20:.1f} -> {after / 2**20:.1f} MiB)'
    )
