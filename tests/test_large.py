"""Single updates of 2**31-1 .. 5 GiB, after 0, 1 and 63 bytes already buffered, against hashlib and known
answers.

These catch lengths truncated to 32 bits (signed or unsigned) anywhere between the buffer protocol and the
compression loop, and 32-bit byte or bit counters. The cases, chosen to keep the run near a minute and a half
on this 2-core machine:

- all eight algorithms: 2**32+1 bytes after 63 buffered bytes;
- md5, sha1, sha256 and sha512: one update of 4 GiB + 3 bytes, and 5 GiB of zeros in one update against
  known answers (FIVE_GIB_OF_ZEROS);
- sha256 (~1.7 GB/s with SHA-NI here) besides: every size with nothing buffered, and 2**31-1 and 2**32-1
  bytes after 1 and after 63 buffered bytes (where the total, not the update, crosses 2**31 or 2**32),
  and 2**32 bytes after 1;
- sha1 and sha512 besides: 2**31 bytes after 1 buffered byte.

With 0 bytes buffered the data goes to the constructor, otherwise to update() after a constructor given the
buffered bytes. Everything is hashed from one shared anonymous mmap of zeros through memoryview slices, so
the memory used stays small whatever the sizes (reads of untouched pages map the kernel's zero page; the
memory check still asks for the whole buffer, as if every page were resident). hashlib's reference for each
(algorithm, buffered bytes) is one streaming pass taking copy() at each size, computed in a background thread
while fastdigest hashes.
"""

import concurrent.futures
import hashlib
import mmap
import os
import sys

import pytest

import fastdigest

SIZES = (2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1)

# algorithm -> [(bytes buffered before the big update, size of the big update)]
CASES = {
    'md5': [(63, 2**32 + 1), (0, 2**32 + 3)],
    'sha1': [(63, 2**32 + 1), (1, 2**31), (0, 2**32 + 3)],
    'sha224': [(63, 2**32 + 1)],
    'sha256': [(0, size) for size in SIZES]
    + [(1, 2**31 - 1), (1, 2**32 - 1), (1, 2**32), (63, 2**31 - 1), (63, 2**32 - 1), (63, 2**32 + 1)]
    + [(0, 2**32 + 3)],
    'sha384': [(63, 2**32 + 1)],
    'sha512': [(63, 2**32 + 1), (1, 2**31), (0, 2**32 + 3)],
    'sha512_224': [(63, 2**32 + 1)],
    'sha512_256': [(63, 2**32 + 1)],
}

# Known answers for 5 GiB (5 * 2**30 bytes) of zeros, hashed here in one update. No published values
# were found; these come from GNU coreutils 9.1 (`head -c 5G /dev/zero | sha256sum`, and md5sum, sha1sum,
# sha512sum), whose implementations share no code with OpenSSL's, and OpenSSL 3.0.19 (hashlib) agrees.
FIVE_GIB = 5 * 2**30
FIVE_GIB_OF_ZEROS = {
    'md5': 'ec4bcc8776ea04479b786e063a9ace45',
    'sha1': '13edccc7871c2016fbe8a2a0d808e19a90fbfc63',
    'sha256': '7f06c62352aebd8125b2a1841e2b9e1ffcbed602f381c3dcb3200200e383d1d5',
    'sha512': 'e4f21997407b9cb0df347f6eba2feaeb14c19f15cf784da06b78e1d5ff776a41'
    '9535c894dea10a859fa72bcb234e94ada0fc86de0ff127bf9280eede8d473edb',
}

BUFFER_SIZE = max(max(SIZES), 2**32 + 3, FIVE_GIB)
# The mmap's pages are only read, but count them as if they were all resident, with some room beside.
MEMORY_NEEDED = BUFFER_SIZE + (512 << 20)
REFERENCE_CHUNK = 256 << 20


def available_memory():
    """Bytes of memory available now: the larger of sysconf's free pages and /proc/meminfo's MemAvailable
    (which counts reclaimable cache that sysconf leaves out)."""
    candidates = []
    try:
        candidates.append(os.sysconf('SC_AVPHYS_PAGES') * os.sysconf('SC_PAGE_SIZE'))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        with open('/proc/meminfo') as meminfo:
            for line in meminfo:
                if line.startswith('MemAvailable:'):
                    candidates.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    return max(candidates) if candidates else None


def skip_reason():
    if sys.maxsize < BUFFER_SIZE:
        return f'a {BUFFER_SIZE}-byte buffer does not fit in this {sys.maxsize.bit_length() + 1}-bit process'
    available = available_memory()
    if available is not None and available < MEMORY_NEEDED:
        return (
            f'needs {MEMORY_NEEDED / 2**30:.1f} GiB of available memory for one {BUFFER_SIZE}-byte buffer, '
            f'the machine has {available / 2**30:.1f} GiB available'
        )
    return None


def buffered_bytes(count):
    # Non-zero, distinct bytes: a buffered tail that got lost or misplaced must change the digest.
    return bytes(range(1, count + 1))


@pytest.fixture(scope='module')
def zeros():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    mapping = mmap.mmap(-1, BUFFER_SIZE)
    view = memoryview(mapping)
    yield view
    view.release()
    mapping.close()


def reference_digests(zeros, name, buffered, sizes):
    """{size: hashlib digest of buffered_bytes(buffered) + size zero bytes}, from one streaming pass."""
    reference = hashlib.new(name, buffered_bytes(buffered))
    hashed = 0
    digests = {}
    for size in sorted(sizes):
        while hashed < size:
            step = min(REFERENCE_CHUNK, size - hashed)
            reference.update(zeros[:step])
            hashed += step
        digests[size] = reference.copy().digest()
    return digests


@pytest.fixture(scope='module')
def references(zeros):
    """Futures of every reference pass, queued in test order on one background thread (hashlib releases the
    GIL on large updates, so it runs beside fastdigest's hashing on the other core)."""
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    futures = {}
    for name, cases in CASES.items():
        for buffered in sorted({buffered for buffered, _ in cases}):
            sizes = [size for case_buffered, size in cases if case_buffered == buffered]
            futures[name, buffered] = executor.submit(reference_digests, zeros, name, buffered, sizes)
    yield futures
    for future in futures.values():
        future.cancel()
    executor.shutdown(wait=True)


@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(CASES))
def test_single_huge_update(name, zeros, references):
    mismatches = []
    for buffered, size in CASES[name]:
        if buffered == 0:
            hash_object = getattr(fastdigest, name)(zeros[:size])
        else:
            hash_object = fastdigest.new(name, buffered_bytes(buffered))
            assert hash_object.update(zeros[:size]) is None
        expected = references[name, buffered].result()[size]
        if hash_object.digest() != expected:
            mismatches.append(f'{buffered} bytes buffered, then {size} bytes')
    assert not mismatches, f'{name}: wrong digest for ' + '; '.join(mismatches)


@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(FIVE_GIB_OF_ZEROS))
def test_five_gib_of_zeros(name, zeros):
    assert len(zeros) >= FIVE_GIB
    assert getattr(fastdigest, name)(zeros[:FIVE_GIB]).hexdigest() == FIVE_GIB_OF_ZEROS[name]
