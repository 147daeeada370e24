"""Writes the seed corpus of tests/fuzz/fuzz_surrogate.c into tests/fuzz/corpus_surrogate/ (committed; rerun this
after changing the input format, described at the top of fuzz_surrogate.c).

Seeds: each column kind alone and beside others, every algorithm, with and without the struct's and the
columns' validity bitmaps (trusted or not by null_count), sliced, long enough for many chunks and threads,
separators and tokens of each length; and one of each corruption (codes 9-15).

    python tests/fuzz/make_corpus_surrogate.py
"""

import random
from pathlib import Path

CORPUS = Path(__file__).parent / 'corpus_surrogate'
KIND_COUNT = 19  # fuzz_surrogate.c's: 8 integers, bool, date32, date64, 4 decimals, null, 3 string layouts


def seed(
    kinds,
    *,
    algorithm=0,
    rows=20,
    many=False,
    struct_bitmap=False,
    struct_count_zero=False,
    offset=0,
    separator=1,
    token=3,
    corruption=0,
    corrupted_column=0,
    pool_len=200,
    rng=None,
):
    rng = rng or random.Random(0)
    kinds = list(kinds)[:4]
    byte0 = (len(kinds) - 1) | struct_bitmap << 2 | struct_count_zero << 3 | corruption << 4
    header = bytes(
        [
            byte0,
            algorithm,
            rows,
            offset,
            *(kinds + [0] * (4 - len(kinds))),
            separator | token << 2,
            many | corrupted_column << 1,
        ]
    )
    return header + bytes(rng.randrange(256) for _ in range(pool_len))


def main():
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    rng = random.Random(27)
    seeds = {}
    for kind in range(KIND_COUNT):
        seeds['kind%d-alone' % kind] = seed([kind], rng=rng)
        seeds['kind%d-with-others' % kind] = seed(
            [kind, (kind + 5) % KIND_COUNT, (kind + 11) % KIND_COUNT], rng=rng, struct_bitmap=True, offset=3
        )
    for algorithm in range(8):
        seeds['algorithm%d' % algorithm] = seed([3, 17, 9], algorithm=algorithm, rng=rng)
    seeds['many-rows'] = seed([16, 3, 9, 11], many=True, rows=200, struct_bitmap=True, pool_len=400, rng=rng)
    seeds['many-rows-views'] = seed([18, 14, 10], many=True, rows=120, pool_len=600, rng=rng)
    seeds['struct-bitmap-ignored'] = seed([0, 15], struct_bitmap=True, struct_count_zero=True, rng=rng)
    seeds['empty'] = seed([2, 16], rows=0, rng=rng)
    for separator in range(4):
        for token in (0, 7):
            seeds['separator%d-token%d' % (separator, token)] = seed(
                [15, 16], separator=separator, token=token, rng=rng
            )
    for corruption in range(9, 16):
        for column in range(2):
            seeds['corrupt%d-column%d' % (corruption, column)] = seed(
                [1, 17], corruption=corruption, corrupted_column=column, rng=rng
            )
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print('%d seeds in %s' % (len(seeds), CORPUS))


if __name__ == '__main__':
    main()
