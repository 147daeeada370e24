"""Writes the seed corpus of tests/fuzz/fuzz_core.c into tests/fuzz/corpus/ (committed; rerun this after
changing the input format).

An input is: byte 0 = split count n (mod 17), byte 1 = the update after which the stream is copied,
n bytes of update sizes (b < 192: b bytes; b >= 192: (b - 191) * 61 bytes), then the message. The seeds
are the boundary cases of both block sizes (64 and 128 bytes): messages of 0, 1, 55, 56, 57, 63, 64,
65, 111, 112, 113, 119, 120, 127, 128, 129 bytes and multi-block ones, each in one update, and odd
split patterns (one byte at a time, updates that stop just before or after a block or padding boundary,
empty updates, multi-block updates, many small updates), each with a copy point inside.

    python tests/fuzz/make_corpus.py
"""

import random
from pathlib import Path

CORPUS = Path(__file__).parent / 'corpus'

BOUNDARY_LENGTHS = [0, 1, 55, 56, 57, 63, 64, 65, 111, 112, 113, 119, 120, 127, 128, 129, 191, 192, 255, 256,
                    257, 1000, 4099]  # fmt: skip

# (name, update size codes, copy point code, message length)
SPLIT_PATTERNS = [
    ('bytewise', [1], 70, 300),
    ('55-then-1', [55, 1], 1, 200),
    ('56-then-8', [56, 8], 2, 200),
    ('63-1-64', [63, 1, 64], 3, 400),
    ('111-then-1', [111, 1], 1, 400),
    ('112-then-16', [112, 16], 2, 400),
    ('127-2', [127, 2], 1, 400),
    ('empty-updates', [0, 0, 65, 0], 3, 300),
    ('all-empty', [0, 0, 0], 2, 129),
    ('multi-block-61x', [192 + 4, 3], 1, 2000),  # 305 bytes, then 3
    ('multi-block-big', [255, 7], 1, 4200),  # 3904 bytes, then 7
    ('primes', [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53], 9, 1500),
    ('block-minus-one', [63, 127], 4, 1000),
    ('block-plus-one', [65, 129], 4, 1000),
    ('copy-at-end', [64], 255, 256),
    ('copy-at-start', [100], 0, 300),
]


def seed_input(size_codes, copy_code, message):
    assert len(size_codes) <= 16
    return bytes([len(size_codes), copy_code]) + bytes(size_codes) + message


def main():
    rng = random.Random(20261130)
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    seeds = {}
    for length in BOUNDARY_LENGTHS:
        seeds[f'one-update-{length}'] = seed_input([], 0, rng.randbytes(length))
        # The same lengths with a copy halfway: two updates, the first of half the message.
        half = min(length // 2, 191)
        seeds[f'copy-after-{half}-of-{length}'] = seed_input([half], 1, rng.randbytes(length))
    seeds['one-update-1000-zeros'] = seed_input([], 0, bytes(1000))
    seeds['one-update-1000-ones'] = seed_input([], 0, b'\xff' * 1000)
    for name, size_codes, copy_code, length in SPLIT_PATTERNS:
        seeds[f'split-{name}'] = seed_input(size_codes, copy_code, rng.randbytes(length))
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f'{len(seeds)} seeds in {CORPUS}')


if __name__ == '__main__':
    main()
