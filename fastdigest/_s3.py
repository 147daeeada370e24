"""S3's ETags and checksums of local files, as an upload in parts makes them (docs/objects.md).

The extension's _hash_parts reads the file once and hashes its parts side by side, in the lanes of the
multi-buffer kernels and on threads, and returns the parts' digests; what S3 makes of them is here.
"""

import base64
import os
import re
import stat
from typing import NamedTuple

from fastdigest import _fastdigest  # type: ignore[attr-defined]

MIB = 1 << 20
# S3's limits on a multipart upload (Amazon S3 User Guide, "Amazon S3 multipart upload limits"): parts of
# 5 MiB to 5 GiB, the last one smaller, and at most 10,000 of them.
MIN_PART_SIZE = 5 * MIB
MAX_PART_SIZE = 5 << 30
MAX_PARTS = 10_000
# boto3's and aws-cli's part size and multipart threshold (s3transfer's TransferConfig).
DEFAULT_PART_SIZE = 8 * MIB
# The checksums S3 computes with a hash fastdigest has, by the name of the algorithm that S3's API takes
# (ChecksumAlgorithm) in lower case.
CHECKSUM_NAMES = ('sha256', 'sha1', 'md5')
# The part sizes s3_etag_matches tries first: boto3's and aws-cli's, and those of other common uploaders.
COMMON_PART_SIZES = (8 * MIB, 5 * MIB, 16 * MIB, 15 * MIB, 64 * MIB)
# The most whole-MiB part sizes beyond those that s3_etag_matches hashes the file with.
MAX_OTHER_PART_SIZES = 64

_ETAG = re.compile(r'([0-9a-f]{32})(?:-([1-9][0-9]*))?')


class S3ETagMatch(NamedTuple):
    """What s3_etag_matches found: the part size that gives the ETag (None for one PUT) and the parts."""

    part_size: 'int | None'
    parts: int


def _index(value, name):
    if isinstance(value, bool) or not hasattr(type(value), '__index__'):
        raise TypeError(f'{name} must be an integer, not {type(value).__name__}')
    return value.__index__()


def _check_sizes(part_size, threshold):
    part_size = _index(part_size, 'part_size')
    if part_size < MIN_PART_SIZE:
        raise ValueError(
            f"part_size={part_size} is below S3's minimum part size of 5 MiB ({MIN_PART_SIZE} bytes); "
            'only the last part of an upload may be smaller'
        )
    if part_size > MAX_PART_SIZE:
        raise ValueError(f"part_size={part_size} is above S3's maximum part size of 5 GiB ({MAX_PART_SIZE} bytes)")
    if threshold is None:
        return part_size, part_size
    threshold = _index(threshold, 'threshold')
    if threshold < 0:
        raise ValueError(f'threshold={threshold} is negative')
    return part_size, threshold


def _boto3_part_size(size):
    """The part size boto3 and aws-cli upload a file of `size` bytes with: 8 MiB, doubled while it would
    make more than 10,000 parts (s3transfer's ChunksizeAdjuster)."""
    part_size = DEFAULT_PART_SIZE
    while -(-size // part_size) > MAX_PARTS:
        part_size *= 2
    return part_size


def _hash_parts(path, name, part_size, threshold, threads):
    """(multipart, parts' digests as a list) of the file uploaded in parts of part_size."""
    part_size, threshold = _check_sizes(part_size, threshold)
    # The extension's checks after its open, here first: a FIFO would block the open until a writer came, and
    # the part count's error gets a hint.
    try:
        status = os.stat(path)
    except (OSError, TypeError, ValueError):
        status = None  # the extension raises open()'s error
    size = None
    if status is not None and not stat.S_ISDIR(status.st_mode):
        if not stat.S_ISREG(status.st_mode):
            raise ValueError(f"{os.fspath(path)!r} is not a regular file: an upload's parts need the file's size first")
        size = status.st_size
    if size is not None and size >= threshold and -(-size // part_size) > MAX_PARTS:
        raise ValueError(
            f'{os.fspath(path)!r} has {size} bytes, which parts of {part_size} bytes cut into '
            f"{-(-size // part_size)} parts, more than S3's limit of 10,000 parts (boto3 and aws-cli upload it "
            f'in parts of {_boto3_part_size(size)} bytes)'
        )
    _, multipart, digests = _fastdigest._hash_parts(path, name, part_size, threshold, threads, True)
    # name is an algorithm's name or one of fastdigest's constructors, which the extension took.
    digest_size = (name() if callable(name) else _fastdigest.new(name)).digest_size
    return multipart, [digests[i : i + digest_size] for i in range(0, len(digests), digest_size)]


def s3_part_digests(path, /, name='md5', *, part_size=DEFAULT_PART_SIZE, threshold=None, threads=None):
    """The digests of the parts of an upload; see the stubs (fastdigest/__init__.pyi)."""
    return _hash_parts(path, name, part_size, threshold, threads)[1]


def _combine(name, multipart, parts):
    if not multipart:
        return parts[0], ''
    return _fastdigest.new(name, b''.join(parts)).digest(), f'-{len(parts)}'


def s3_etag(path, /, *, part_size=DEFAULT_PART_SIZE, threshold=None, threads=None):
    """The ETag S3 gives the file uploaded in parts of part_size; see the stubs (fastdigest/__init__.pyi)."""
    digest, suffix = _combine('md5', *_hash_parts(path, 'md5', part_size, threshold, threads))
    return digest.hex() + suffix


def s3_checksum(path, /, name='sha256', *, part_size=DEFAULT_PART_SIZE, threshold=None, threads=None):
    """S3's ChecksumSHA256 (or SHA1, MD5) of the file; see the stubs (fastdigest/__init__.pyi)."""
    if not isinstance(name, str):
        raise TypeError(f's3_checksum() argument 2 must be str, not {type(name).__name__}')
    algorithm = name.lower()
    if algorithm not in CHECKSUM_NAMES:
        raise ValueError(f"S3 has no checksum fastdigest computes named {name!r}: 'sha256', 'sha1' or 'md5'")
    digest, suffix = _combine(algorithm, *_hash_parts(path, algorithm, part_size, threshold, threads))
    return base64.b64encode(digest).decode('ascii') + suffix


def _candidate_part_sizes(size, parts):
    """The part sizes that cut size bytes into `parts` parts within S3's limits, common ones first and then
    whole MiB, at most MAX_OTHER_PART_SIZES of those."""
    if parts == 1:
        # Any part size from the file's size up makes the one part: the ETag is the same for all of them.
        if size > MAX_PART_SIZE:
            return []
        common = [p for p in (_boto3_part_size(size), *COMMON_PART_SIZES) if p >= size]
        return [min(common) if common else max(MIN_PART_SIZE, -(-size // MIB) * MIB)]
    # (parts - 1) * p < size <= parts * p
    low = max(MIN_PART_SIZE, -(-size // parts))
    high = min(MAX_PART_SIZE, -(-size // (parts - 1)) - 1)
    if low > high:
        return []
    candidates = [p for p in (_boto3_part_size(size), *COMMON_PART_SIZES) if low <= p <= high]
    for mib in range(-(-low // MIB), high // MIB + 1):
        if len(candidates) >= len(COMMON_PART_SIZES) + 1 + MAX_OTHER_PART_SIZES:
            break
        if mib * MIB not in candidates:
            candidates.append(mib * MIB)
    return list(dict.fromkeys(candidates))


def s3_etag_matches(path, etag, /, *, threads=None):
    """Whether the file has this ETag under some common part size; see the stubs (fastdigest/__init__.pyi)."""
    if not isinstance(etag, str):
        raise TypeError(f's3_etag_matches() argument 2 must be str, not {type(etag).__name__}')
    match = _ETAG.fullmatch(etag.strip().strip('"').lower())
    if match is None:
        raise ValueError(f'{etag!r} is not an S3 ETag: 32 hex digits, then -N for an upload in N parts')
    digest, parts = match.group(1), match.group(2)
    if parts is None:
        # One PUT, of at most 5 GiB: the file's MD5.
        if os.stat(path).st_size > MAX_PART_SIZE:
            return None
        multipart, digests = _hash_parts(path, 'md5', MAX_PART_SIZE, MAX_PART_SIZE + 1, threads)
        return S3ETagMatch(None, 1) if digests[0].hex() == digest else None
    parts = int(parts)
    if parts > MAX_PARTS:
        return None
    size = os.stat(path).st_size
    for part_size in _candidate_part_sizes(size, parts):
        multipart, digests = _hash_parts(path, 'md5', part_size, 0, threads)
        if multipart and len(digests) == parts and _combine('md5', multipart, digests)[0].hex() == digest:
            return S3ETagMatch(part_size, parts)
    return None
