"""Writes the seed corpus of tests/fuzz/fuzz_arrow.c into tests/fuzz/corpus_arrow/ (committed; rerun this
after changing the input format, described at the top of fuzz_arrow.c).

Seeds: each layout (int32 offsets, int64 offsets, views), bare and as the child of a struct, binary and hex,
every algorithm, with and without validity bitmaps (the child's, the struct's, trusted or not by
null_count), sliced (child and struct offsets), long enough for several hashing chunks; and one of each
breakage: raw offsets or views, a null positions or data buffer, a wrong buffer count, a negative buffer
size, and each corrupted extent (codes 240-249). And for the typed mode (byte 7's top bit): a tree whose root
is each of its 23 kinds (the pool's second byte picks it), consistent and with rules broken, as a column and
as a table, in hex and binary, for every algorithm.

    python tests/fuzz/make_corpus_arrow.py
"""

import random
from pathlib import Path

CORPUS = Path(__file__).parent / 'corpus_arrow'
LAYOUTS = {'offsets32': 0, 'offsets64': 1, 'views': 2}


def seed(
    layout,
    *,
    hex=False,
    in_struct=False,
    raw=False,
    child_count_zero=False,
    parent_count_zero=False,
    many_rows=False,
    algorithm=3,
    rows=9,
    child_bitmap=False,
    parent_bitmap=False,
    positions_null=False,
    data_null=False,
    wrong_buffers=False,
    negative_size=False,
    child_offset=0,
    parent_offset=0,
    extra_rows=0,
    extent=0,
    variadic=2,
    pool_len=96,
    rng=None,
):
    byte0 = (
        LAYOUTS[layout]
        | hex << 2
        | in_struct << 3
        | raw << 4
        | child_count_zero << 5
        | parent_count_zero << 6
        | many_rows << 7
    )
    flags = (
        child_bitmap
        | parent_bitmap << 1
        | positions_null << 2
        | data_null << 3
        | wrong_buffers << 4
        | negative_size << 5
    )
    header = bytes([byte0, algorithm, rows, flags, child_offset, parent_offset | extra_rows << 4, extent, variadic])
    return header + rng.randbytes(pool_len)


def main():
    rng = random.Random(16)
    seeds = {}
    for layout in LAYOUTS:
        for in_struct in (False, True):
            for hex in (False, True):
                name = '%s-%s-%s' % (layout, 'struct' if in_struct else 'bare', 'hex' if hex else 'binary')
                for algorithm in range(8):
                    seeds['%s-algorithm%d' % (name, algorithm)] = seed(
                        layout, hex=hex, in_struct=in_struct, algorithm=algorithm, rng=rng
                    )
                seeds[name + '-empty'] = seed(layout, hex=hex, in_struct=in_struct, rows=0, rng=rng)
                seeds[name + '-nulls'] = seed(
                    layout, hex=hex, in_struct=in_struct, rows=40, child_bitmap=True, parent_bitmap=True, rng=rng
                )
                seeds[name + '-bitmap-ignored'] = seed(
                    layout,
                    hex=hex,
                    in_struct=in_struct,
                    rows=40,
                    child_bitmap=True,
                    child_count_zero=True,
                    parent_bitmap=True,
                    parent_count_zero=True,
                    rng=rng,
                )
                seeds[name + '-sliced'] = seed(
                    layout,
                    hex=hex,
                    in_struct=in_struct,
                    rows=30,
                    child_offset=13,
                    parent_offset=5,
                    extra_rows=3,
                    child_bitmap=True,
                    rng=rng,
                )
                seeds[name + '-chunks'] = seed(
                    layout, hex=hex, in_struct=in_struct, rows=250, many_rows=True, child_bitmap=True, rng=rng
                )
        seeds[layout + '-raw'] = seed(layout, raw=True, rows=20, rng=rng)
        seeds[layout + '-raw-struct-nulls'] = seed(
            layout, raw=True, in_struct=True, rows=20, child_bitmap=True, rng=rng
        )
        seeds[layout + '-positions-null'] = seed(layout, positions_null=True, rng=rng)
        seeds[layout + '-positions-null-empty'] = seed(layout, positions_null=True, rows=0, rng=rng)
        seeds[layout + '-data-null'] = seed(layout, data_null=True, rng=rng)
        seeds[layout + '-wrong-buffers'] = seed(layout, wrong_buffers=True, rng=rng)
        seeds[layout + '-no-variadic'] = seed(layout, variadic=0, rng=rng)
        for code in range(240, 250):
            seeds['%s-extent-%d' % (layout, code)] = seed(layout, in_struct=code >= 246, extent=code, rng=rng)
    seeds['views-negative-size'] = seed('views', negative_size=True, rng=rng)
    seeds['views-negative-size-empty'] = seed('views', negative_size=True, rows=0, rng=rng)
    # The typed mode: byte 0 the algorithm, byte 1 hex | table << 1 | broken << 2, byte 2 the rows, byte 3
    # the budget (times 8); the pool's first bytes are the root's offset and kind (column) or the table's
    # offset, bitmap choice and column count.
    for kind in range(23):
        for broken in (False, True):
            header = bytes([kind % 8, (kind & 1) | broken << 2, 20 + kind, 40, 0, 0, 0, 0x80])
            seeds['typed-kind%d%s' % (kind, '-broken' if broken else '')] = (
                header + bytes([kind % 4, kind]) + rng.randbytes(400)
            )
    for algorithm in range(8):
        for table in (False, True):
            for broken in (False, True):
                header = bytes([algorithm, (algorithm & 1) | table << 1 | broken << 2, 70, 200, 0, 0, 0, 0x80])
                name = 'typed-%s-algorithm%d%s' % ('table' if table else 'column', algorithm, '-broken' * broken)
                seeds[name] = header + rng.randbytes(600)
    # All rows empty over a null data buffer: valid.
    seeds['offsets32-all-empty-data-null'] = bytes([0, 3, 5, 8, 0, 0, 0, 0]) + bytes([0] * 16)

    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print('%d seeds in %s' % (len(seeds), CORPUS))


if __name__ == '__main__':
    main()
