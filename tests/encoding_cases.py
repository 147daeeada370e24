"""The golden cases of docs/encoding.md version 2: every type at its edges, and rows.

Each case is an array (hashed by digest_array) or a table (by digest_rows). tests/data/encoding_v2.json holds,
for each, the bytes that the reference encoder (tests/encoding_reference.py) gives each value or row and their
SHA-256 digests; tests/test_types.py checks both the reference and fastdigest against the file.

    python tests/encoding_cases.py     # rewrites the file, after checking that fastdigest agrees

A file is written once, when its version is defined, and is not rewritten for a change of the encoding: a new
version gets a new file. tests/data/encoding_v1.json is version 1's, whose cases version 2 hashes alike (it
changed only what the V2_CASES below show: a one-field struct in a dictionary or a run-end encoding).
"""

import datetime
import decimal
import hashlib
import json
import os
import sys
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import encoding_reference as reference
import fastdigest
from arrow_raw import RawArray, int32s

D = decimal.Decimal
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'encoding_v2.json')
GOLDEN_V1 = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'encoding_v1.json')


def imported(result):
    return pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)


class ArrayCase:
    """digest_array of make(); the reference reads like() (the same values as pyarrow builds them)."""

    def __init__(self, make, like=None):
        self.make = make
        self.like = like or make

    def type(self):
        return str(self.like().type)

    def messages(self):
        return reference.column_values(self.like())

    def digests(self):
        return imported(fastdigest.digest_array('sha256', self.make(), hex=True)).to_pylist()


class RowsCase:
    def __init__(self, make, columns=None):
        self.make = make
        self.columns = columns

    def type(self):
        table = self.make()
        names = table.column_names if self.columns is None else self.columns
        return 'rows of ' + ', '.join(f'{name}: {table.schema.field(name).type}' for name in names)

    def messages(self):
        return reference.table_rows(self.make(), self.columns)

    def digests(self):
        return imported(fastdigest.digest_rows('sha256', self.make(), self.columns, hex=True)).to_pylist()


def ints_at_edges(t):
    bits = t.bit_width
    if pa.types.is_signed_integer(t):
        return [-(2 ** (bits - 1)), -1, 0, 1, 2 ** (bits - 1) - 1, None]
    return [0, 1, 2**bits - 1, None]


def invalid_utf8():
    """A utf8 column whose values are no UTF-8 (b'\\xff\\xfe', b'A'), as a producer that checks nothing makes it."""
    return pa.StringArray.from_buffers(2, pa.py_buffer(int32s(0, 2, 3)), pa.py_buffer(b'\xff\xfeA'))


# The cases whose digests version 2 changed: in version 1 the dictionary and run-end ones hashed the struct
# (field(v) of its field), where the plain one hashed the field.
V2_CASES = ('dictionary<int8, struct<one: utf8>>', 'run_end_encoded<int32, struct<one: utf8>>')


def cases():
    out = {}

    def add(name, make, like=None):
        out[name] = ArrayCase(make, like)

    add('null', lambda: pa.array([None, None]))
    add('bool', lambda: pa.array([True, False, None]))
    for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()):
        add(str(t), lambda t=t: pa.array(ints_at_edges(t), t))
    add('float16', lambda: pa.array(np.array([1.5, -0.0, np.inf, -np.inf, np.nan, 65504.0, 2.0**-24], np.float16)))
    add('float32', lambda: pa.array([0.1, -0.0, float('nan'), 3.4028234663852886e38, 1e-45, None], pa.float32()))
    add('float64', lambda: pa.array([0.1, -0.0, 0.0, float('nan'), 5e-324, 1.7976931348623157e308, -float('inf')]))
    add(
        'decimal32',
        lambda: pa.array([D('1.25'), D('-1.28'), D('0'), D('9999999.99'), D('-9999999.99'), None], pa.decimal32(9, 2)),
    )
    add('decimal64', lambda: pa.array([D('127.0000'), D('128.0000'), D('-0.0001'), None], pa.decimal64(18, 4)))
    add('decimal128', lambda: pa.array([D(10**38 - 1), D(-(10**38 - 1)), D(255), D(-256)], pa.decimal128(38, 0)))
    add('decimal256', lambda: pa.array([D(f'{10**76 - 1}E-10'), D('-1E-10'), D(0)], pa.decimal256(76, 10)))
    add('date32', lambda: pa.array([-(2**31), -1, 0, 19_000, 2**31 - 1, None], pa.date32()))
    add('date64', lambda: pa.array([-86_400_000, 0, 1_640_995_200_000, None], pa.date64()))
    add('time32[s]', lambda: pa.array([0, 86_399, None], pa.time32('s')))
    add('time32[ms]', lambda: pa.array([0, 45_296_789], pa.time32('ms')))
    add('time64[us]', lambda: pa.array([45_296_789_012], pa.time64('us')))
    add('time64[ns]', lambda: pa.array([45_296_789_012_345, 86_399_999_999_999], pa.time64('ns')))
    for unit in ('s', 'ms', 'us', 'ns'):
        for tz in (None, 'UTC', 'Asia/Tokyo'):
            add(f'timestamp[{unit}, {tz}]', lambda unit=unit, tz=tz: pa.array(
                [-(2**63) + 1, -1, 0, 1_700_000_000, 2**63 - 1, None], pa.timestamp(unit, tz)))  # fmt: skip
        add(f'duration[{unit}]', lambda unit=unit: pa.array([-(2**63) + 1, -1, 0, 86_400, None], pa.duration(unit)))
    add(
        'month_day_nano_interval',
        lambda: pa.array([(1, -2, 3), (-(2**31), 2**31 - 1, -(2**63)), None], pa.month_day_nano_interval()),
    )
    add('interval_months (raw)', lambda: RawArray('tiM', 2, [None, int32s(14, -1)]),
        lambda: pa.array([(14, 0, 0), (-1, 0, 0)], pa.month_day_nano_interval()))  # fmt: skip
    add('interval_day_time (raw)', lambda: RawArray('tiD', 2, [None, int32s(3, 1500, -1, -2**31)]),
        lambda: pa.array([(0, 3, 1_500_000_000), (0, -1, -(2**31) * 10**6)], pa.month_day_nano_interval()))  # fmt: skip
    add('binary', lambda: pa.array([b'', b'\x00', b'\xff' * 3, None]))
    add('large_binary', lambda: pa.array([b'abc', None], pa.large_binary()))
    add('binary_view', lambda: pa.array([b'twelve bytes', b'thirteen bytes', b''], pa.binary_view()))
    add('fixed_size_binary', lambda: pa.array([b'\x00\x01\x02\x03', None], pa.binary(4)))
    add('utf8', lambda: pa.array(['', 'a', 'é€\U0001f600', None]))
    add('utf8 sliced', lambda: pa.array(['skipped', 'x', 'yz', None]).slice(1))
    add('large_utf8', lambda: pa.array(['iceberg'], pa.large_string()))
    add('utf8_view', lambda: pa.array(['short', 'not short at all'], pa.string_view()))
    add('list<int32>', lambda: pa.array([[1, None, -1], [], None], pa.list_(pa.int32())))
    add('large_list<utf8>', lambda: pa.array([['a', None, ''], []], pa.large_list(pa.string())))
    add('list_view<bool>', lambda: pa.array([[True], None, [False, None]], pa.list_view(pa.bool_())))
    add('large_list_view<int8>', lambda: pa.array([[1, 2]], pa.large_list_view(pa.int8())))
    add('fixed_size_list<int8, 2>', lambda: pa.array([[1, 2], None, [None, 3]], pa.list_(pa.int8(), 2)))
    add('list<list<utf8>>', lambda: pa.array([[['ab', 'cd']], [['abcd']], [['a', 'bcd']], [[], None]]))
    add('struct', lambda: pa.array([{'a': 1, 'b': 'x', 'c': [1.5]}, {'a': None, 'b': None, 'c': None}, None]))
    add('map<utf8, int64>', lambda: pa.array([[('a', 1), ('b', None)], [], None], pa.map_(pa.string(), pa.int64())))
    add('dictionary<int8, utf8>', lambda: pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None, 0], pa.int8()), pa.array(['red', 'green'])))  # fmt: skip
    add('run_end_encoded<int16, float64>', lambda: pc.run_end_encode(
        pa.array([2.5, 2.5, None, -0.0]), run_end_type=pa.int16()))  # fmt: skip
    add('uuid (extension)', lambda: pa.array([uuid.UUID('f79c3e09-677c-4bbd-a479-3f349cb785e7').bytes], pa.uuid()))
    # Version 2: a struct of one field is its field in every layout.
    one_field = [{'one': 'a'}, {'one': None}, None, {'one': 'a'}]
    add('struct<one: utf8>', lambda: pa.array(one_field))
    add('dictionary<int8, struct<one: utf8>>', lambda: pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None, 0], pa.int8()), pa.array(one_field[:2])))  # fmt: skip
    add('run_end_encoded<int32, struct<one: utf8>>', lambda: pa.RunEndEncodedArray.from_arrays(
        pa.array([1, 2, 3, 4], pa.int32()), pa.array(one_field)))  # fmt: skip
    add('struct<one: struct<two: utf8>> (unwrapped once)', lambda: pa.array([{'one': {'two': 'x'}}, {'one': None}]))
    add('struct<> (no fields)', lambda: pa.array([{}, None], pa.struct([])))
    add('list<struct<>>', lambda: pa.array([[{}, None], []], pa.list_(pa.struct([]))))
    add('utf8 of invalid UTF-8 (raw)', invalid_utf8)

    def rows(name, make, columns=None):
        out[name] = RowsCase(make, columns)

    rows('rows: string, int64, date, timestamp', lambda: pa.table({
        's': ['alice', None, ''],
        'n': pa.array([42, 7, None], pa.int64()),
        'd': pa.array([datetime.date(2024, 1, 31), None, datetime.date(1970, 1, 1)]),
        't': pa.array([datetime.datetime(2024, 1, 31, 12, 0), None, None], pa.timestamp('us', 'UTC')),
    }))  # fmt: skip
    rows('rows: columns chosen and repeated', lambda: pa.table({'a': [1, 2], 'b': ['x', 'y']}), ['b', 'a', 'b'])
    rows('rows: no columns', lambda: pa.table({'a': [1, 2]}), [])
    rows('rows: uuid (extension), int64', lambda: pa.table({
        'u': pa.array([uuid.UUID(int=7).bytes, None], pa.uuid()), 'n': [1, 2]}))  # fmt: skip
    rows('rows: utf8 of invalid UTF-8', lambda: pa.table({'s': invalid_utf8()}))
    rows('rows: struct<> column', lambda: pa.table({'e': pa.array([{}, None], pa.struct([])), 'n': [1, 2]}))
    rows("rows: dbt-utils #1015's pair", lambda: pa.table({'a': ['123-', '123'], 'b': ['456', '-456']}))
    rows('rows: nulls in each place', lambda: pa.table({'a': pa.array([None, 'x', None], pa.string()),
                                                        'b': pa.array(['x', None, None], pa.string())}))  # fmt: skip
    return out


def write():
    golden = {
        'version': 2,
        'about': 'docs/encoding.md version 2: for each case, the bytes hashed for each value (digest_array) or '
        'row (digest_rows), null for a null value, and their SHA-256 digests; written by tests/encoding_cases.py.',
        'cases': {},
    }
    for name, case in cases().items():
        messages = case.messages()
        digests = case.digests()
        expected = [None if m is None else hashlib.sha256(m).hexdigest() for m in messages]
        if digests != expected:
            sys.exit(f'fastdigest and the reference disagree on {name}: {digests} != {expected}')
        golden['cases'][name] = {
            'type': case.type(),
            'bytes': [None if m is None else m.hex() for m in messages],
            'sha256': expected,
        }
    with open(GOLDEN, 'w') as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)
        f.write('\n')


if __name__ == '__main__':
    write()
