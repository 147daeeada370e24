"""Every Arrow type through digest_array and digest_rows, against the encoding of docs/encoding.md.

The reference is tests/encoding_reference.py, a pure-Python implementation of the page, with hashlib: every
type (hypothesis over values, nulls, nesting, slices, chunkings, dictionary and run-end encodings, threads),
the layouts the page says hash alike, the producers (polars, DuckDB, pandas) against pyarrow, the golden
digests of tests/data/encoding_v2.json and encoding_v1.json (which froze what the reference and the C gave), the framing that
keeps distinct rows apart, and the errors (types that cannot be hashed, missing columns, malformed nested
arrays built with ctypes).
"""

import datetime
import decimal
import hashlib
import json
import random
import re
import struct
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from arrow_raw import LITTLE_ENDIAN, RELEASED, RawArray, bits, int32s, int64s, ints, view
from conftest import ALGORITHMS, examples

pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')
pc = pytest.importorskip('pyarrow.compute', reason='pyarrow (test extra) is not installed or has no wheel here')

import encoding_cases  # noqa: E402 (needs pyarrow)
import encoding_reference as reference  # noqa: E402 (needs pyarrow)

GOLDEN = encoding_cases.GOLDEN
GOLDEN_V1 = encoding_cases.GOLDEN_V1


def imported(result):
    return pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)


def array_digests(array, name='sha256', hex=False, **options):
    return imported(fastdigest.digest_array(name, array, hex=hex, **options)).to_pylist()


def row_digests(table, columns=None, name='sha256', hex=False, **options):
    return imported(fastdigest.digest_rows(name, table, columns, hex=hex, **options)).to_pylist()


def hashed(messages, name='sha256', hex=False):
    out = []
    for message in messages:
        if message is None:
            out.append(None)
            continue
        h = hashlib.new(name, message)
        out.append(h.hexdigest() if hex else h.digest())
    return out


def check_array(array, name='sha256', hex=False):
    """digest_array of array equals the reference, value by value."""
    assert array_digests(array, name, hex) == hashed(reference.column_values(array), name, hex)


def check_rows(table, columns=None, name='sha256', hex=False):
    assert row_digests(table, columns, name, hex) == hashed(reference.table_rows(table, columns), name, hex)


# ---- the types, as hypothesis draws them -------------------------------------------------------------------------


def integers(bits, signed):
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else st.integers(0, 2**bits - 1)


def decimals(precision, scale):
    """Decimals of the type's precision, exact (hypothesis' own decimals round wide bounds in the default
    28-digit context)."""
    exact = decimal.Context(prec=100)
    unscaled = st.integers(-(10**precision - 1), 10**precision - 1)
    return unscaled.map(lambda u: decimal.Decimal(u).scaleb(-scale, context=exact))


TEXT = st.text(alphabet=st.characters(codec='utf-8'), max_size=20)
INT64 = integers(64, True)

LEAVES = [
    (pa.null(), st.none()),
    (pa.bool_(), st.booleans()),
    *[
        (getattr(pa, f'{kind}{bits}')(), integers(bits, kind == 'int'))
        for kind in ('int', 'uint')
        for bits in (8, 16, 32, 64)
    ],
    (pa.float16(), st.floats(width=16)),
    (pa.float32(), st.floats(width=32)),
    (pa.float64(), st.floats()),
    (pa.decimal32(7, 3), decimals(7, 3)),
    (pa.decimal64(18, 0), decimals(18, 0)),
    (pa.decimal128(38, 10), decimals(38, 10)),
    (pa.decimal256(76, 38), decimals(76, 38)),
    (pa.date32(), integers(32, True)),
    (pa.date64(), st.integers(-(10**8), 10**8).map(lambda days: days * 86_400_000)),
    (pa.time32('s'), st.integers(0, 86_399)),
    (pa.time32('ms'), st.integers(0, 86_399_999)),
    (pa.time64('us'), st.integers(0, 86_399_999_999)),
    (pa.time64('ns'), st.integers(0, 86_399_999_999_999)),
    *[(pa.timestamp(unit, tz), INT64) for unit in ('s', 'ms', 'us', 'ns') for tz in (None, 'UTC', 'Asia/Kolkata')],
    *[(pa.duration(unit), INT64) for unit in ('s', 'ms', 'us', 'ns')],
    (pa.month_day_nano_interval(), st.tuples(integers(32, True), integers(32, True), INT64)),
    (pa.binary(), st.binary(max_size=20)),
    (pa.large_binary(), st.binary(max_size=20)),
    (pa.binary_view(), st.binary(max_size=20)),
    (pa.binary(3), st.binary(min_size=3, max_size=3)),
    (pa.string(), TEXT),
    (pa.large_string(), TEXT),
    (pa.string_view(), TEXT),
]


def nullable(values):
    return st.none() | values


LIST_KINDS = [pa.list_, pa.large_list, pa.list_view, pa.large_list_view]


@st.composite
def nested(draw, child):
    """A list, fixed-size list, struct or map over child types."""
    kind = draw(st.sampled_from(['list', 'fixed', 'struct', 'map']))
    if kind == 'list':
        t, values = draw(child)
        return draw(st.sampled_from(LIST_KINDS))(t), st.lists(nullable(values), max_size=4)
    if kind == 'fixed':
        t, values = draw(child)
        size = draw(st.integers(1, 3))
        return pa.list_(t, size), st.lists(nullable(values), min_size=size, max_size=size)
    if kind == 'struct':
        fields = draw(st.lists(child, min_size=1, max_size=3))
        names = [f'f{k}' for k in range(len(fields))]
        t = pa.struct([(name, ft) for name, (ft, _) in zip(names, fields, strict=True)])
        return t, st.fixed_dictionaries(
            {name: nullable(values) for name, (_, values) in zip(names, fields, strict=True)}
        )
    key_type, keys = draw(st.sampled_from([(pa.string(), TEXT), (pa.int32(), integers(32, True))]))
    t, values = draw(child)
    return pa.map_(key_type, t), st.lists(st.tuples(keys, nullable(values)), max_size=3)


TYPES = st.recursive(st.sampled_from(LEAVES), nested, max_leaves=5)


def encoded(array, draw):
    """array as it is, dictionary-encoded (any index type) or run-end encoded (any run end type)."""
    how = draw(st.sampled_from(['plain', 'plain', 'dictionary', 'run_end']))
    try:
        if how == 'dictionary':
            index = draw(st.sampled_from([pa.int8(), pa.uint8(), pa.int16(), pa.uint16(), pa.int32(), pa.uint64()]))
            encoded = array.dictionary_encode()
            if len(encoded.dictionary) > 100:
                return array
            return pa.DictionaryArray.from_arrays(encoded.indices.cast(index), encoded.dictionary)
        if how == 'run_end':
            return pc.run_end_encode(array, run_end_type=draw(st.sampled_from([pa.int16(), pa.int32(), pa.int64()])))
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    return array


@st.composite
def columns(draw, length=None):
    t, values = draw(TYPES)
    values = draw(st.lists(nullable(values), min_size=length or 0, max_size=length if length is not None else 12))
    return encoded(pa.array(values, t), draw)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(column=columns(), data=st.data(), name=st.sampled_from(ALGORITHMS), hex=st.booleans())
def test_every_type_against_the_reference(column, data, name, hex):
    check_array(column, name, hex)
    start = data.draw(st.integers(0, len(column)))
    length = data.draw(st.integers(0, len(column) - start))
    check_array(column.slice(start, length), name, hex)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(column)), max_size=3)))
    chunks = [column.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, len(column)], strict=True)]
    assert array_digests(pa.chunked_array(chunks, column.type), name, hex) == array_digests(column, name, hex)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), length=st.integers(0, 10), name=st.sampled_from(ALGORITHMS))
def test_rows_of_every_type_against_the_reference(data, length, name):
    count = data.draw(st.integers(0, 4))
    table = pa.table({f'c{k}': data.draw(columns(length)) for k in range(count)})
    check_rows(table, name=name)
    check_rows(table, name=name, hex=True)
    if count > 1:
        chosen = data.draw(st.lists(st.sampled_from(table.column_names), max_size=4))
        check_rows(table, chosen, name=name)
    start = data.draw(st.integers(0, length))
    check_rows(table.slice(start), name=name)
    batches = table.to_batches(max_chunksize=3)
    reader = pa.RecordBatchReader.from_batches(table.schema, batches)
    assert row_digests(reader) == row_digests(table)
    for batch in batches:
        check_rows(batch)


# ---- what the page says hashes alike -----------------------------------------------------------------------------


def same_digests(*arrays):
    first = array_digests(arrays[0])
    for array in arrays[1:]:
        assert array_digests(array) == first, array.type
    return first


def test_integers_of_every_width_hash_alike():
    values = [0, 1, 5, 127, None, -1, -128]
    signed = [pa.array(values, t) for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64())]
    digests = same_digests(*signed)
    assert digests[2] == hashlib.sha256((5).to_bytes(8, 'little')).digest()
    unsigned = [pa.array([0, 1, 5, 127, None, 255], t) for t in (pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64())]
    assert same_digests(*unsigned)[:5] == digests[:5]
    # The one cross-type coincidence the page names: uint64 from 2**63 has the bytes of negative int64s.
    assert array_digests(pa.array([2**64 - 1], pa.uint64())) == array_digests(pa.array([-1], pa.int64()))


def test_floats_of_every_width_hash_alike_and_zeros_and_nans_are_one():
    import numpy as np

    values = [1.5, -2.25, 0.0, float('inf'), 65504.0]
    digests = same_digests(
        pa.array(np.array(values, np.float16)), pa.array(values, pa.float32()), pa.array(values, pa.float64())
    )
    assert digests[0] == hashlib.sha256(struct.pack('<d', 1.5)).digest()
    nans = [struct.unpack('<d', struct.pack('<Q', bits_))[0] for bits_ in (0x7FF8000000000000, 0xFFF8000000000001)]
    signalling32 = struct.unpack('<f', struct.pack('<I', 0x7F800001))[0]
    zeros = array_digests(pa.array([0.0, -0.0]))
    assert zeros[0] == zeros[1]
    assert len(set(array_digests(pa.array(nans)) + array_digests(pa.array([signalling32], pa.float32())))) == 1
    assert array_digests(pa.array(nans))[0] == hashlib.sha256(bytes.fromhex('000000000000f87f')).digest()
    assert array_digests(pa.array(np.array([np.nan, -0.0], np.float16))) == array_digests(pa.array([nans[0], 0.0]))


def test_decimals_of_every_width_hash_alike_and_scale_is_not_hashed():
    d = decimal.Decimal
    values = [d('1.25'), d('-1.28'), d('0'), None, d('99999.99')]
    digests = same_digests(
        *[pa.array(values, f(7, 2)) for f in (pa.decimal32, pa.decimal64, pa.decimal128, pa.decimal256)]
    )
    # Iceberg's bytes: 125 = 7d, -128 = 80, 0 = 00, 9999999 = 00 98 96 7f.
    assert digests == hashed([b'\x7d', b'\x80', b'\x00', None, bytes.fromhex('0098967f')])
    assert array_digests(pa.array([d('1.25')], pa.decimal128(5, 2))) == array_digests(
        pa.array([d('0.125')], pa.decimal128(5, 3))
    )


def test_temporal_units_and_zones_hash_alike():
    instant = datetime.datetime(2024, 2, 29, 12, 30, 15, tzinfo=datetime.timezone.utc)
    arrays = [
        pa.array([instant, None], pa.timestamp(unit, tz))
        for unit in ('s', 'ms', 'us', 'ns')
        for tz in ('UTC', 'America/Lima')
    ]
    naive = [pa.array([instant.replace(tzinfo=None), None], pa.timestamp(unit)) for unit in ('s', 'ms', 'us', 'ns')]
    digests = same_digests(*arrays, *naive)
    nanoseconds = int(instant.timestamp()) * 10**9
    assert digests[0] == hashlib.sha256(nanoseconds.to_bytes(16, 'little', signed=True)).digest()
    same_digests(
        *[
            pa.array([-3 * 10**9 // per, 7 * 10**9 // per], pa.duration(unit))
            for unit, per in reference.NANOSECONDS.items()
        ]
    )
    for unit, per in reference.NANOSECONDS.items():
        time = pa.array([3723 * 10**9 // per], pa.time32(unit) if unit in ('s', 'ms') else pa.time64(unit))
        assert array_digests(time) == hashed([(3723 * 10**9).to_bytes(16, 'little')])
    dates = same_digests(
        pa.array([datetime.date(1969, 12, 31)], pa.date32()), pa.array([datetime.date(1969, 12, 31)], pa.date64())
    )
    assert dates == hashed([(-86_400_000).to_bytes(8, 'little', signed=True)])
    # Beyond int64 nanoseconds (year 2262) a timestamp of seconds is still exact.
    far = pa.array([2**62], pa.timestamp('s'))
    assert array_digests(far) == hashed([(2**62 * 10**9).to_bytes(16, 'little', signed=True)])


def test_strings_and_binaries_hash_their_bytes_in_every_layout():
    values = ['', 'a', None, 'é' * 20, 'abcdefghijklm']
    digests = same_digests(*[pa.array(values, t) for t in (pa.string(), pa.large_string(), pa.string_view())])
    raw = [None if v is None else v.encode() for v in values]
    assert digests == hashed(raw)
    same_digests(*[pa.array(raw, t) for t in (pa.binary(), pa.large_binary(), pa.binary_view())], pa.array(values))
    assert array_digests(pa.array([b'abc'], pa.binary(3))) == hashed([b'abc'])
    assert array_digests(pa.array([uuid.UUID(int=7).bytes], pa.uuid())) == hashed([uuid.UUID(int=7).bytes])


def test_list_kinds_hash_alike():
    values = [[1, None, 3], None, [], [4, 5, 6]]
    digests = same_digests(*[pa.array(values, kind(pa.int64())) for kind in LIST_KINDS])
    assert digests[1] is None
    assert (
        digests[0]
        == hashlib.sha256(
            (3).to_bytes(8, 'little')
            + b'\x01'
            + (1).to_bytes(8, 'little')
            + b'\x00'
            + b'\x01'
            + (3).to_bytes(8, 'little')
        ).digest()
    )
    fixed = [[1, 2, 3], None, [4, 5, 6]]
    same_digests(pa.array(fixed, pa.list_(pa.int8(), 3)), pa.array(fixed, pa.list_(pa.int64())))
    # Views out of order, overlapping and sharing elements: each list as its elements.
    views = pa.ListViewArray.from_arrays(pa.array([4, 0, 1, 4], pa.int32()), pa.array([2, 3, 3, 0], pa.int32()),
                                         pa.array([10, 11, 12, 13, 14, 15]))  # fmt: skip
    assert array_digests(views) == array_digests(pa.array([[14, 15], [10, 11, 12], [11, 12, 13], []]))


def test_a_map_hashes_as_its_list_of_entries():
    entries = [[('a', 1), ('b', None)], None, []]
    as_map = pa.array(entries, pa.map_(pa.string(), pa.int64()))
    as_list = pa.array([None if e is None else [{'key': k, 'value': v} for k, v in e] for e in entries],
                       pa.list_(pa.struct([('key', pa.string()), ('value', pa.int64())])))  # fmt: skip
    same_digests(as_map, as_list)
    check_array(as_map)


def test_dictionaries_and_run_ends_hash_as_decoded():
    values = ['x', None, 'y', 'x', 'zz', None]
    plain = pa.array(values)
    encoded = plain.dictionary_encode()
    dictionaries = [
        pa.DictionaryArray.from_arrays(encoded.indices.cast(index), encoded.dictionary)
        for index in (pa.int8(), pa.uint8(), pa.int16(), pa.uint16(), pa.int32(), pa.uint32(), pa.int64(), pa.uint64())
    ]
    runs = [pc.run_end_encode(plain, run_end_type=t) for t in (pa.int16(), pa.int32(), pa.int64())]
    digests = same_digests(plain, *dictionaries, *runs)
    # Slices of each (the run-end array's offset is in logical rows), nulls in the dictionary itself.
    for array in [*dictionaries, *runs]:
        assert array_digests(array.slice(1, 4)) == digests[1:5]
    with_null_value = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1, 0], pa.int8()), pa.array(['a', None]))
    assert array_digests(with_null_value) == array_digests(pa.array(['a', None, None, 'a']))
    # Nested: a list of dictionary-encoded values, a dictionary of lists, a struct with a run-end field.
    list_of_dict = pa.ListArray.from_arrays(pa.array([0, 2, 6], pa.int32()), dictionaries[3])
    assert array_digests(list_of_dict) == array_digests(pa.array([values[:2], values[2:]]))
    lists = pa.array([[1], [2, 3], None])
    dict_of_lists = pa.DictionaryArray.from_arrays(pa.array([2, 1, 0, 1], pa.int32()), lists)
    assert array_digests(dict_of_lists) == array_digests(pa.array([None, [2, 3], [1], [2, 3]]))
    struct = pa.StructArray.from_arrays([runs[0], plain], names=['a', 'b'])
    assert array_digests(struct) == array_digests(pa.StructArray.from_arrays([plain, plain], names=['a', 'b']))


def test_children_with_offsets_and_struct_nulls():
    child = pa.array([100, 101, 102, 103, 104, 105])
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), child.slice(3))
    assert array_digests(lists) == array_digests(pa.array([[103, 104], [105]]))
    struct = pa.StructArray.from_arrays([child.slice(2), pa.array(list('abcdef')).slice(2)], names=['n', 's'],
                                        mask=pa.array([False, True, False, False]))  # fmt: skip
    want = pa.array([{'n': 102, 's': 'c'}, None, {'n': 104, 's': 'e'}, {'n': 105, 's': 'f'}])
    assert array_digests(struct) == array_digests(want)
    assert array_digests(struct.slice(1)) == array_digests(want.slice(1))
    # digest_rows: a null row of a struct hashes as a row of nulls.
    assert row_digests(struct) == row_digests(pa.table({'n': [102, None, 104, 105], 's': ['c', None, 'e', 'f']}))


def test_rows_of_several_columns_are_digest_array_of_the_struct():
    table = pa.table({'a': [1, None], 'b': ['x', None], 'c': [[1.5], None]})
    assert array_digests(table) == row_digests(table)
    # A table of one column is that column for digest_array, a row of one field for digest_rows.
    one = pa.table({'s': ['x']})
    assert array_digests(one) == hashed([b'x'])
    assert row_digests(one) == hashed([b'\x01' + (1).to_bytes(8, 'little') + b'x'])


def test_a_table_of_no_columns_hashes_empty_rows():
    table = pa.table({'a': [1, 2, 3]})
    assert row_digests(table, []) == hashed([b''] * 3)


# ---- what the page says never hashes alike -----------------------------------------------------------------------


def distinct(*tables):
    digests = [row_digests(table) for table in tables]
    assert len({tuple(d) for d in digests}) == len(digests), digests


def test_framing_keeps_rows_apart():
    # dbt-utils #1015: '-' joins make these one key; numpy #29229: ['ab', 'cd'] and ['abcd'].
    distinct(pa.table({'a': ['123-'], 'b': ['456']}), pa.table({'a': ['123'], 'b': ['-456']}))
    distinct(pa.table({'a': [None], 'b': ['x']}), pa.table({'a': ['x'], 'b': [None]}))
    distinct(pa.table({'a': pa.array([None], pa.string())}), pa.table({'a': ['']}))
    distinct(pa.table({'a': [['ab', 'cd']]}), pa.table({'a': [['abcd']]}), pa.table({'a': [['a', 'bcd']]}))
    distinct(pa.table({'a': [[None]]}), pa.table({'a': [[]]}), pa.table({'a': pa.array([None], pa.list_(pa.int64()))}))
    distinct(
        pa.table({'a': [[[1], [2]]]}),
        pa.table({'a': [[[1, 2]]]}),
        pa.table(
            {
                'a': [
                    [[1], []],
                ]
            }
        ),
    )
    distinct(pa.table({'s': pa.array([{'x': None}], pa.struct([('x', pa.int8())]))}),
             pa.table({'s': pa.array([None], pa.struct([('x', pa.int8())]))}))  # fmt: skip
    distinct(pa.table({'a': [b'\x01'], 'b': [b'']}), pa.table({'a': [b''], 'b': [b'\x01']}))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_distinct_values_of_one_type_have_distinct_bytes(data):
    t, values = data.draw(TYPES)
    pair = data.draw(st.lists(nullable(values), min_size=2, max_size=2))
    array = pa.array(pair, t)
    one, other = reference.column_values(array)
    fields = [reference.field_bytes(t, scalar) for scalar in array]
    # Equal bytes only for equal values (the page's one exception: every zero and every NaN is one float).
    values = [canonical(t, scalar) for scalar in array]
    if one == other and one is not None:
        assert values[0] == values[1]
    if fields[0] == fields[1]:
        assert values[0] == values[1]
    assert array_digests(array) == hashed(reference.column_values(array))


def canonical(t, scalar):
    """A value to compare with ==, exact (temporal values as their integers) and with the floats' exception."""
    t = reference.storage(t)
    scalar = reference.logical(scalar)
    if scalar is None or not scalar.is_valid:
        return None
    if pa.types.is_temporal(t) and not pa.types.is_interval(t):
        return reference.integer_of(scalar)
    if pa.types.is_floating(t):
        value = float(scalar.as_py())
        return 'nan' if value != value else value + 0.0
    if pa.types.is_map(t):
        entries = scalar.values
        return [(canonical(t.key_type, entries.field(0)[k]), canonical(t.item_type, entries.field(1)[k]))
                for k in range(len(entries))]  # fmt: skip
    if reference.is_list_like(t):
        return [canonical(t.value_type, element) for element in scalar.values]
    if pa.types.is_struct(t):
        return [canonical(t.field(k).type, scalar[k]) for k in range(t.num_fields)]
    return scalar.as_py()


# ---- the golden digests --------------------------------------------------------------------------------------------


def test_golden_digests():
    """Version 2 of the encoding, frozen: the bytes and digests that the reference and the C gave when it was written.

    A change of the C, of the reference or of a case breaks this; the page's version then changes too.
    """
    with open(GOLDEN) as f:
        golden = json.load(f)
    assert golden['version'] == 2
    cases = encoding_cases.cases()
    assert sorted(golden['cases']) == sorted(cases)
    for name, case in cases.items():
        want = golden['cases'][name]
        assert [None if b is None else b.hex() for b in case.messages()] == want['bytes'], name
        assert hashed([None if b is None else bytes.fromhex(b) for b in want['bytes']], hex=True) == want['sha256'], (
            name
        )
        assert case.digests() == want['sha256'], name


def test_version_1_digests_that_version_2_kept():
    """Version 2 changed the digests of one-field structs in dictionaries and run-end encodings only: every case
    of version 1's file hashes as it did."""
    with open(GOLDEN_V1) as f:
        golden = json.load(f)
    assert golden['version'] == 1
    cases = encoding_cases.cases()
    assert not set(golden['cases']) & set(encoding_cases.V2_CASES)
    for name, want in golden['cases'].items():
        assert cases[name].digests() == want['sha256'], name


def test_a_one_field_struct_hashes_as_its_field_in_every_layout():
    """digest_array takes a one-column table as its column, and so a struct of one field as its field: plain,
    dictionary-encoded or run-end encoded alike (version 1 hashed the last two as the struct, field(v) of the
    field, and a valid row whose field is null as 00 rather than null)."""
    rows = [{'one': 'a'}, {'one': None}, None, {'one': 'a'}, {'one': ''}]
    plain = pa.array(rows)
    want = hashed([b'a', None, None, b'a', b''])
    assert array_digests(plain) == want
    dictionary = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0, 2], pa.int16()), pa.array(rows[:2] + rows[4:]))
    nulls_in_dictionary = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, 2, 0, 3], pa.uint8()), pa.array(rows[:3] + rows[4:])
    )
    run_ends = pa.RunEndEncodedArray.from_arrays(pa.array([1, 2, 3, 4, 5], pa.int64()), plain)
    for layout in (dictionary, nulls_in_dictionary, run_ends, pa.chunked_array([plain.slice(0, 2), plain.slice(2)])):
        assert array_digests(layout) == want, layout.type
        assert array_digests(layout.slice(1, 3)) == want[1:4], layout.type
    # Unwrapped once: a struct of one field inside it is that field's struct, as the plain layout gives.
    inner = pa.array([{'one': {'two': 'x'}}])
    field_bytes = b'\x01' + (1).to_bytes(8, 'little') + b'x'
    assert array_digests(inner) == hashed([field_bytes])
    assert array_digests(pa.DictionaryArray.from_arrays(pa.array([0], pa.int8()), inner)) == hashed([field_bytes])
    # A field that is itself dictionary-encoded, in a dictionary-encoded struct.
    encoded_field = pa.StructArray.from_arrays([pa.array(['a', None, 'a']).dictionary_encode()], names=['one'])
    assert array_digests(pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int8()), encoded_field)) == hashed(
        [b'a', None, b'a']
    )


def test_the_page_s_edge_cases():
    """A struct of no fields: value(v) is no bytes (field(v) is 01); invalid UTF-8 in a utf8 column: its bytes as
    stored; an extension type: its storage type's bytes and framing."""
    empty = pa.array([{}, None], pa.struct([]))
    assert array_digests(empty) == hashed([b'', None])
    assert row_digests(pa.table({'e': empty})) == hashed([b'\x01', b'\x00'])
    assert array_digests(pa.array([[{}, None]], pa.list_(pa.struct([])))) == hashed(
        [(2).to_bytes(8, 'little') + b'\x01\x00']
    )
    invalid = encoding_cases.invalid_utf8()
    assert array_digests(invalid) == hashed([b'\xff\xfe', b'A']) == array_digests(pa.array([b'\xff\xfe', b'A']))
    u = uuid.UUID(int=7).bytes
    assert row_digests(pa.table({'u': pa.array([u], pa.uuid())})) == hashed([b'\x01' + (16).to_bytes(8, 'little') + u])
    assert row_digests(pa.table({'u': pa.array([u], pa.uuid())})) == row_digests(
        pa.table({'u': pa.array([u], pa.binary(16))})
    )


# ---- producers ----------------------------------------------------------------------------------------------------


def producer_table():
    rng = random.Random(27)
    n = 300

    def maybe(value):
        return None if rng.random() < 0.15 else value

    base = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    naive = datetime.datetime(2001, 2, 3)

    def column(make, arrow_type=None):
        return pa.array([maybe(make()) for _ in range(n)], arrow_type)

    return pa.table({
        'i': column(lambda: rng.randrange(-10**12, 10**12), pa.int64()),
        'small': column(lambda: rng.randrange(-100, 100), pa.int32()),
        'f': column(lambda: rng.choice([0.5, -0.0, 1e300, rng.random()])),
        'b': column(lambda: rng.random() < 0.5),
        's': column(lambda: ''.join(rng.choice('aé€ z') for _ in range(rng.randrange(20)))),
        'd': column(lambda: datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randrange(9000))),
        'ts': column(lambda: base + datetime.timedelta(microseconds=rng.randrange(10**14)), pa.timestamp('us', 'UTC')),
        'naive': column(lambda: naive + datetime.timedelta(seconds=rng.randrange(10**8)), pa.timestamp('us')),
        'dec': column(lambda: decimal.Decimal(rng.randrange(-10**9, 10**9)).scaleb(-3), pa.decimal128(18, 3)),
        'l': column(lambda: [rng.randrange(9) for _ in range(rng.randrange(4))], pa.list_(pa.int64())),
        'st': column(lambda: {'x': maybe(rng.randrange(5)), 'y': maybe('q')}),
        'cat': column(lambda: rng.choice(['red', 'green', 'blue'])).dictionary_encode(),
    })  # fmt: skip


def test_polars_agrees_with_pyarrow():
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    table = producer_table()
    frame = pl.from_arrow(table)
    # polars has its own string (view), categorical and nanosecond types: the encoding ignores which.
    frame = frame.with_columns(pl.col('ts').cast(pl.Datetime('ns', 'UTC')), pl.col('cat').cast(pl.Categorical))
    assert row_digests(frame) == row_digests(table)
    for name in table.column_names:
        assert array_digests(frame[name]) == array_digests(table.column(name)), name
    assert row_digests(frame.lazy().collect(), ['s', 'i']) == row_digests(table, ['s', 'i'])


def test_duckdb_agrees_with_pyarrow():
    duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')
    table = producer_table()
    relation = duckdb.from_arrow(table)
    assert row_digests(relation) == row_digests(table)
    computed = duckdb.sql(
        'SELECT i, small::BIGINT AS small, s, d::TIMESTAMP::DATE AS d, ts FROM relation'
    )  # other types, same values
    assert row_digests(computed) == row_digests(table, ['i', 'small', 's', 'd', 'ts'])


def test_pandas_agrees_with_pyarrow():
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    table = producer_table().drop_columns(['st'])
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    assert row_digests(frame) == row_digests(table)
    numpy_backed = pd.DataFrame(
        {'i': [1, 2, None], 's': ['a', None, 'c'], 'ts': pd.to_datetime(['2020-01-01', None, '2021-06-01'])}
    )
    days = [datetime.datetime(2020, 1, 1), None, datetime.datetime(2021, 6, 1)]
    want = pa.table({'i': pa.array([1.0, 2.0, None]), 's': ['a', None, 'c'], 'ts': pa.array(days, pa.timestamp('ns'))})
    assert row_digests(pa.Table.from_pandas(numpy_backed, preserve_index=False)) == row_digests(want)


# ---- threads and the working set ---------------------------------------------------------------------------------


@pytest.mark.threads
def test_rows_on_threads_and_rows_larger_than_the_sink():
    rng = random.Random(5)
    n = 40_000
    table = pa.table({'i': list(range(n)), 's': [str(rng.random()) for _ in range(n)]})
    assert row_digests(table, threads=1) == row_digests(table, threads=4) == row_digests(table)
    check_rows(table.slice(0, 500))
    # Rows of 100 KB and of a few MB go through the sink that each thread hashes as it fills (256 KiB): moved
    # to its start, and streamed when one row outgrows it.
    big = pa.table({'l': [['x' * 100_000] * k for k in (1, 2, 3, 0, 30, 1)], 'n': [1, None, 3, 4, 5, 6]})
    check_rows(big)
    check_array(big.column('l'))


def test_threads_argument_and_hex():
    table = pa.table({'a': [1, 2]})
    for name in ALGORITHMS:
        assert row_digests(table, name=name, hex=True) == hashed(reference.table_rows(table), name, hex=True)
    with pytest.raises(ValueError, match=re.escape('digest_rows(): threads must be at least 1 or None, not 0')):
        fastdigest.digest_rows('md5', table, threads=0)
    with pytest.raises(TypeError, match=re.escape('digest_rows(): threads must be an int or None, not float')):
        fastdigest.digest_rows('md5', table, threads=1.0)


# ---- errors -------------------------------------------------------------------------------------------------------


def test_missing_and_bad_columns():
    table = pa.table({'a': [1], 'b': ['x']})
    # The column and the table's columns named, as surrogate_key names them.
    with pytest.raises(KeyError) as raised:
        fastdigest.digest_rows('sha256', table, ['a', 'nope'])
    assert raised.value.args == ("digest_rows(): the table has no column 'nope' (its columns: 'a', 'b')",)
    wide = pa.table({'c%d' % i: [i] for i in range(25)})
    with pytest.raises(KeyError) as raised:
        fastdigest.digest_rows('sha256', wide, ['nope'])
    assert raised.value.args[0].endswith("'c18', 'c19', ... (25 in all))")
    with pytest.raises(KeyError, match=re.escape("no column 'a' (its columns: none)")):
        fastdigest.digest_rows('sha256', pa.table({}), ['a'])
    with pytest.raises(TypeError, match='columns must be a sequence of column names, not str'):
        fastdigest.digest_rows('sha256', table, 'a')
    with pytest.raises(TypeError, match=r'columns must be column names \(str\), not int'):
        fastdigest.digest_rows('sha256', table, [0])
    with pytest.raises(TypeError, match='columns must be a sequence of column names or None, not int'):
        fastdigest.digest_rows('sha256', table, 3)
    duplicated = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=['a', 'a'])
    with pytest.raises(ValueError, match=re.escape("digest_rows(): the table has 2 columns named 'a': rename them")):
        fastdigest.digest_rows('sha256', duplicated, ['a'])
    assert row_digests(duplicated) == row_digests(pa.table({'x': [1], 'y': [2]}))
    assert row_digests(table, columns=('b', 'a', 'b')) == row_digests(pa.table({'1': ['x'], '2': [1], '3': ['x']}))


def test_bad_input_and_arguments():
    with pytest.raises(
        TypeError,
        match=re.escape(
            "digest_rows() hashes the rows of a table, a record batch or a stream of them (Arrow format '+s'), "
            "not of Arrow format 'l'"
        ),
    ):
        fastdigest.digest_rows('sha256', pa.array([1]))
    with pytest.raises(TypeError, match='Arrow PyCapsule interface'):
        fastdigest.digest_rows('sha256', [[1]])
    with pytest.raises(TypeError, match='digest_rows expected 2 or 3 positional arguments, got 1'):
        fastdigest.digest_rows('sha256')
    with pytest.raises(TypeError, match='digest_rows expected 2 or 3 positional arguments, got 4'):
        fastdigest.digest_rows('sha256', pa.table({'a': [1]}), None, True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        fastdigest.digest_rows('sha256', pa.table({'a': [1]}), colums=['a'])
    with pytest.raises(ValueError, match='unsupported hash'):
        fastdigest.digest_rows('sha3_256', pa.table({'a': [1]}))
    union = pa.UnionArray.from_dense(
        pa.array([0, 1], pa.int8()), pa.array([0, 0], pa.int32()), [pa.array([1]), pa.array(['a'])]
    )
    with pytest.raises(TypeError, match=re.escape("cannot hash Arrow format '+ud:0,1' (a dense union) of field 'u'")):
        fastdigest.digest_rows('sha256', pa.table({'a': [1, 2], 'u': union}))
    # A column not hashed is not read: its type does not matter.
    assert row_digests(pa.table({'a': [1, 2], 'u': union}), ['a']) == row_digests(pa.table({'a': [1, 2]}))
    with pytest.raises(TypeError, match=re.escape("cannot hash Arrow format '+ud:0,1' (a dense union)")):
        fastdigest.digest_array('sha256', union)


def test_the_nesting_limit():
    deep = RawArray('l', 1, [None, int64s(1)])
    for _ in range(70):
        deep = RawArray('+l', 1, [None, int32s(0, 1)], children=[deep])
    with pytest.raises(TypeError, match='nested more than 64 levels deep'):
        fastdigest.digest_array('sha256', deep)


# Raw C structs of the new types that contradict themselves: each a ValueError naming what, never a crash or a
# read out of bounds (the fuzz target, tests/fuzz/fuzz_arrow.c, tries the rest).

little_endian_only = pytest.mark.skipif(not LITTLE_ENDIAN, reason='the raw structs here are written little-endian')


def int_child(*values):
    return RawArray('l', len(values), [None, int64s(*values)])


def claiming(raw, **fields):
    """raw with some fields of its array struct set to other values than the buffers and children have."""
    for name, value in fields.items():
        setattr(raw.array, name, value)
    return raw


@little_endian_only
def test_raw_nested_arrays_that_hold():
    RELEASED.clear()
    lists = RawArray('+l', 2, [None, int32s(1, 3, 4)], children=[int_child(9, 1, 2, 3)])
    assert array_digests(lists) == array_digests(pa.array([[1, 2], [3]]))
    views = RawArray(
        '+vl', 3, [bits(1, 0, 1), int32s(2, 99, 0), int32s(2, -5, 4)], children=[int_child(1, 2, 3, 4)], null_count=1
    )
    assert array_digests(views) == array_digests(pa.array([[3, 4], None, [1, 2, 3, 4]]))
    runs = RawArray('+r', 4, [], children=[RawArray('s', 2, [None, ints(2, 3, 6)]), int_child(7, 8)], offset=2)
    assert array_digests(runs) == array_digests(pa.array([7, 8, 8, 8]))
    dictionary = RawArray('C', 3, [bits(1, 0, 1), bytes([1, 200, 0])], dictionary=int_child(5, 6), null_count=1)
    assert array_digests(dictionary) == array_digests(pa.array([6, None, 5]))
    months = RawArray('tiM', 2, [None, int32s(14, -1)])
    day_time = RawArray('tiD', 1, [None, int32s(3, 1500)])
    assert array_digests(months) == array_digests(pa.array([(14, 0, 0), (-1, 0, 0)], pa.month_day_nano_interval()))
    assert array_digests(day_time) == array_digests(pa.array([(0, 3, 1_500_000_000)], pa.month_day_nano_interval()))
    nulls = RawArray('n', 3, [])
    assert array_digests(nulls) == [None] * 3
    assert sorted(RELEASED) == ['array'] * 7 + ['schema'] * 7


@little_endian_only
@pytest.mark.parametrize(
    'raw, message',
    [
        (
            RawArray('+l', 2, [None, int32s(0, 3, 2)], children=[int_child(1, 2, 3)]),
            'row 1 ends at 2, before its start 3',
        ),
        (
            RawArray('+l', 1, [None, int32s(0, 4)], children=[int_child(1, 2, 3)]),
            'reaches value 3 of its child, which has 3 values',
        ),
        (RawArray('+L', 1, [None, int64s(-1, 0)], children=[int_child(1)]), 'offset of row 0 is negative'),
        (RawArray('+l', 1, [None, None], children=[int_child(1)]), 'offsets buffer is null under 1 rows'),
        (
            RawArray('+vl', 1, [None, int32s(2), int32s(2)], children=[int_child(1, 2, 3)]),
            'list view of 2 values at 2 is outside its child of 3',
        ),
        (RawArray('+vl', 1, [None, int32s(0), int32s(-1)], children=[int_child(1)]), 'list view of -1 values'),
        (RawArray('+vl', 1, [None, int32s(0), None], children=[int_child(1)]), 'sizes buffer is null'),
        (RawArray('+w:2', 3, [None], children=[int_child(1, 2, 3, 4, 5)]), 'need 6 child values, not 5'),
        (RawArray('+w:2', 1, [None], children=[int_child(1, 2)], offset=1), 'need 4 child values, not 2'),
        (RawArray('+s', 3, [None], children=[int_child(1, 2)]), 'has 3 rows from 0 but its field 0 only 2'),
        (claiming(RawArray('+s', 1, [None], children=[int_child(1)]), n_children=0), 'has 1 child, not 0'),
        (claiming(RawArray('+s', 1, [None], children=[int_child(1)]), n_buffers=2), 'has 1 buffer, not 2'),
        (
            RawArray('+r', 3, [], children=[RawArray('i', 2, [None, int32s(2, 2)]), int_child(1, 2)]),
            'run end 1 is 2, not above the one before it',
        ),
        (
            RawArray('+r', 3, [], children=[RawArray('i', 1, [None, int32s(2)]), int_child(1)]),
            'the runs end at 2, before',
        ),
        (
            RawArray('+r', 2, [], children=[RawArray('i', 2, [None, int32s(1, 2)]), int_child(1)]),
            'has 2 runs but 1 values',
        ),
        (RawArray('+r', 2, [], children=[RawArray('i', 0, [None, b'']), int_child()]), 'has 2 rows but no runs'),
        (
            RawArray('+r', 1, [], children=[RawArray('i', 1, [bits(0), int32s(1)], null_count=1), int_child(1)]),
            'run end 0 is null',
        ),
        (
            RawArray('+r', 1, [None], children=[RawArray('i', 1, [None, int32s(1)]), int_child(1)]),
            'has 0 buffers, not 1',
        ),
        (
            RawArray('+r', 1, [], children=[RawArray('c', 1, [None, b'\x01']), int_child(1)]),
            'run ends of a run-end encoded field are int16',
        ),
        (
            RawArray('i', 2, [None, int32s(0, 2)], dictionary=int_child(5, 6)),
            'row 1: dictionary index 2 is outside the dictionary of 2',
        ),
        (RawArray('c', 1, [None, bytes([255])], dictionary=int_child(5)), 'row 0: dictionary index -1 is outside'),
        (
            RawArray('L', 1, [None, ints(8, 2**63, signed=False)], dictionary=int_child(5)),
            'dictionary index 9223372036854775808 is outside',
        ),
        (RawArray('g', 1, [None, b'\0' * 8], dictionary=int_child(5)), "indices of format 'g', not an integer"),
        (
            RawArray('+m', 1, [None, int32s(0, 1)], children=[int_child(1)]),
            "a map's entries must be a struct of two fields",
        ),
        (RawArray('l', 1, [None, None]), 'values buffer is null under 1 rows'),
        (RawArray('d:10,2,512', 1, [None, bytes(16)]), "cannot hash Arrow format 'd:10,2,512'"),
        (RawArray('w:-1', 1, [None, bytes(1)]), "cannot hash Arrow format 'w:-1'"),
        (RawArray('w:8', 2**60, [None, bytes(8)]), 'out of range'),
        (
            RawArray(
                '+l',
                1,
                [None, int32s(0, 1)],
                children=[RawArray('vz', 1, [None, view(20, b'x' * 20, 1, 0), b'x' * 20, int64s(20)])],
            ),
            'view points to data buffer 1 of 1',
        ),
    ],
)
def test_raw_nested_arrays_that_contradict_themselves(raw, message):
    RELEASED.clear()
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        fastdigest.digest_array('sha256', raw)
    assert sorted(RELEASED) == ['array', 'schema']


@little_endian_only
def test_hidden_values_are_not_read():
    # A struct's null row hides its fields (views with any bytes, indices out of range); a dictionary's null
    # index and a list view's null slot are never read either.
    garbage_view = int32s(99, 7, 7, 7)
    struct = RawArray('+s', 2, [bits(0, 1)], null_count=1, children=[
        RawArray('vz', 2, [None, garbage_view + view(1, b'a'), int64s()]),
        RawArray('i', 2, [None, int32s(1000, 0)], dictionary=int_child(5)),
    ])  # fmt: skip
    assert row_digests(struct) == row_digests(pa.table({'v': [None, b'a'], 'd': [None, 5]}))
    list_views = RawArray('+vl', 2, [bits(0, 1), int32s(-7, 0), int32s(99, 1)], null_count=1, children=[int_child(4)])
    assert array_digests(list_views) == array_digests(pa.array([None, [4]]))
