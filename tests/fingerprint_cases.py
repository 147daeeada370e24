"""The golden cases of docs/fingerprint.md version 1: every kind of value at its edges.

tests/data/fingerprint_v1.json holds, for each case, the message that the reference encoder
(tests/fingerprint_reference.py) gives its value and the message's SHA-256; tests/test_fingerprint.py checks
both the reference and fastdigest.fingerprint against the file.

    python tests/fingerprint_cases.py     # rewrites the file, after checking that fastdigest agrees

The file was written once, when version 1 was defined, and is not rewritten for a change of the encoding: a
new version gets a new file. The enums and dataclasses below are part of it (their module, fingerprint_cases,
and their qualified names are in the bytes).
"""

import dataclasses
import datetime
import decimal
import enum
import hashlib
import json
import os
import struct
import sys
import uuid

import fastdigest
import fingerprint_reference as reference

D = decimal.Decimal
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'fingerprint_v1.json')


class Color(enum.Enum):
    RED = 1
    GREEN = 'green'


class Level(enum.IntEnum):
    HIGH = 3


class Permission(enum.Flag):
    READ = 1
    WRITE = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Labelled:
    label: str
    point: Point
    cache: dict = dataclasses.field(default_factory=dict, compare=False)


class Repeated(datetime.tzinfo):
    """-04:00 for fold 0 and -05:00 for fold 1 of every wall time: the hour a clock repeats, without a time
    zone database."""

    def utcoffset(self, dt):
        return datetime.timedelta(hours=-5 if dt is not None and dt.fold else -4)

    def dst(self, dt):
        return None


def nan_with(bits):
    return struct.unpack('<d', struct.pack('<Q', bits))[0]


def cases():  # noqa: C901 (a list)
    import numpy as np

    out = {}

    def add(name, make):
        out[name] = make

    add('None', lambda: None)
    add('False', lambda: False)
    add('True', lambda: True)
    for n in (0, 1, -1, 255, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, -(2**64), 10**40):
        add(f'int {n}', lambda n=n: n)
    add('float 0.0', lambda: 0.0)
    add('float -0.0', lambda: -0.0)
    add('float 1.5', lambda: 1.5)
    add('float inf', lambda: float('inf'))
    add('float -inf', lambda: float('-inf'))
    add("float('nan')", lambda: float('nan'))
    add("float('-nan')", lambda: -float('nan'))
    add('float NaN with payload 0x7ff0000000000001', lambda: nan_with(0x7FF0000000000001))
    add('float 5e-324', lambda: 5e-324)
    add('float 1.7976931348623157e308', lambda: 1.7976931348623157e308)
    add('complex 1+2j', lambda: 1 + 2j)
    add('complex (-0.0, nan)', lambda: complex(-0.0, float('nan')))
    add("str ''", lambda: '')
    add("str 'a'", lambda: 'a')
    add("str 'café' (Latin-1)", lambda: 'café')
    add("str '€' (UCS-2)", lambda: '€')
    add("str '😀' (UCS-4)", lambda: '😀')
    add("str lone surrogate '\\ud800'", lambda: '\ud800')
    add("str surrogateescape byte '\\udcff'", lambda: 'caf\udcff')
    add("str surrogate pair as two code points '\\ud83d\\ude00'", lambda: '\ud83d\ude00')
    add("str 'x' * 5000", lambda: 'x' * 5000)
    add("bytes b''", lambda: b'')
    add("bytes b'\\x00\\xff'", lambda: b'\x00\xff')
    add("bytearray b'ab'", lambda: bytearray(b'ab'))
    add("memoryview of b'abcdef'[::2]", lambda: memoryview(b'abcdef')[::2])
    add('list []', lambda: [])
    add("list [1, 'a', None]", lambda: [1, 'a', None])
    add('list [[1], [2, [3]]]', lambda: [[1], [2, [3]]])
    add('tuple ()', lambda: ())
    add('tuple (1,)', lambda: (1,))
    add('tuple ((),)', lambda: ((),))
    add('dict {}', lambda: {})
    add("dict {'b': 1, 'a': 2}", lambda: {'b': 1, 'a': 2})
    add("dict {'a': 2, 'b': 1}", lambda: {'a': 2, 'b': 1})
    add('dict of mixed keys', lambda: {1: 'int', '1': 'str', b'1': 'bytes', 1.5: 'float', None: 'None',
                                       (1,): 'tuple', frozenset({1}): 'frozenset'})  # fmt: skip
    add('dict of two NaN keys', lambda: {float('nan'): 2, float('nan'): 1})
    add('set()', lambda: set())
    add('set {1, 2, 3}', lambda: {3, 1, 2})
    add("frozenset {'a', 'b'}", lambda: frozenset({'b', 'a'}))
    add("set {1, 'a', b'a', (1, 2)}", lambda: {1, 'a', b'a', (1, 2)})
    add('set of two NaNs', lambda: {float('nan'), float('nan')})
    for day in (datetime.date(1970, 1, 1), datetime.date(1, 1, 1), datetime.date(9999, 12, 31),
                datetime.date(2000, 2, 29), datetime.date(1969, 12, 31)):  # fmt: skip
        add(f'date {day}', lambda day=day: day)
    add('datetime 1970-01-01 00:00', lambda: datetime.datetime(1970, 1, 1))
    add('datetime 0001-01-01 00:00', lambda: datetime.datetime(1, 1, 1))
    add('datetime 9999-12-31 23:59:59.999999', lambda: datetime.datetime(9999, 12, 31, 23, 59, 59, 999999))
    add('datetime 2024-02-29 12:30:15.000123 fold=1', lambda: datetime.datetime(2024, 2, 29, 12, 30, 15, 123, fold=1))
    add('datetime 2024-02-29 12:30 UTC', lambda: datetime.datetime(2024, 2, 29, 12, 30, tzinfo=datetime.timezone.utc))
    add('datetime 2024-02-29 07:30 -05:00', lambda: datetime.datetime(
        2024, 2, 29, 7, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))))  # fmt: skip
    add('datetime 2024-02-29 12:30 +05:30:00.000007', lambda: datetime.datetime(2024, 2, 29, 12, 30, tzinfo=(
        datetime.timezone(datetime.timedelta(hours=5, minutes=30, microseconds=7)))))  # fmt: skip
    add(
        'datetime 2021-11-07 01:30 repeated hour fold=0',
        lambda: datetime.datetime(2021, 11, 7, 1, 30, tzinfo=Repeated()),
    )
    add('datetime 2021-11-07 01:30 repeated hour fold=1', lambda: datetime.datetime(
        2021, 11, 7, 1, 30, tzinfo=Repeated(), fold=1))  # fmt: skip
    add('time 00:00', lambda: datetime.time())
    add('time 23:59:59.999999 fold=1', lambda: datetime.time(23, 59, 59, 999999, fold=1))
    add('time 12:00 +01:00', lambda: datetime.time(12, tzinfo=datetime.timezone(datetime.timedelta(hours=1))))
    add('timedelta 0', lambda: datetime.timedelta())
    add('timedelta -1 microsecond', lambda: datetime.timedelta(microseconds=-1))
    add('timedelta max', lambda: datetime.timedelta.max)
    add('timedelta min', lambda: datetime.timedelta.min)
    add('timedelta 1 day', lambda: datetime.timedelta(days=1))
    for text in ('0', '-0', '1.20', '1.2', '1E+3', '-123.456E-7', 'Infinity', '-Infinity', 'NaN', 'NaN123', '-sNaN7'):
        add(f"Decimal('{text}')", lambda text=text: D(text))
    add('UUID nil', lambda: uuid.UUID(int=0))
    add('UUID f79c3e09-677c-4bbd-a479-3f349cb785e7', lambda: uuid.UUID('f79c3e09-677c-4bbd-a479-3f349cb785e7'))
    add('enum Color.RED', lambda: Color.RED)
    add('enum Color.GREEN', lambda: Color.GREEN)
    add('enum Level.HIGH (IntEnum)', lambda: Level.HIGH)
    add('enum Permission.READ | Permission.WRITE (Flag)', lambda: Permission.READ | Permission.WRITE)
    add('dataclass Point(1, 2)', lambda: Point(1, 2))
    add("dataclass Labelled('a', Point(1, 2)) (a field not compared)", lambda: Labelled('a', Point(1, 2), {'x': 1}))
    add('ndarray int64 2x3', lambda: np.arange(6, dtype=np.int64).reshape(2, 3))
    add('ndarray int64 2x3 Fortran order', lambda: np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)))
    add('ndarray >i4 (big-endian)', lambda: np.array([1, -2], dtype='>i4'))
    add('ndarray float32 [-0.0, nan, 1.5]', lambda: np.array([-0.0, np.nan, 1.5], dtype=np.float32))
    add('ndarray bool', lambda: np.array([True, False, True]))
    add("ndarray <U3 ['a', 'bcd']", lambda: np.array(['a', 'bcd']))
    add("ndarray S2 [b'a', b'bc']", lambda: np.array([b'a', b'bc']))
    add('ndarray datetime64[ns] with NaT', lambda: np.array(['2024-02-29T12:30', 'NaT'], dtype='datetime64[ns]'))
    add('ndarray timedelta64[s]', lambda: np.array([1, -1], dtype='timedelta64[s]'))
    add('ndarray complex64', lambda: np.array([1 + 2j], dtype=np.complex64))
    add("ndarray object [1, 'a', None]", lambda: np.array([1, 'a', None], dtype=object))
    add('ndarray 0-d float64', lambda: np.array(2.5))
    add('ndarray empty 0x3', lambda: np.zeros((0, 3)))
    add('numpy int8 -1', lambda: np.int8(-1))
    add('numpy float64 1.5', lambda: np.float64(1.5))
    add('numpy bool True', lambda: np.bool_(True))
    add("numpy str_ 'ab'", lambda: np.str_('ab'))
    add("numpy datetime64('2020-01-01')", lambda: np.datetime64('2020-01-01'))
    add("numpy bytes_ b'' (S0, whose 0-d array is S1)", lambda: np.bytes_(b''))
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # the golden file is written where pyarrow is installed
        return out
    add('arrow int64 [1, None, -1]', lambda: pa.array([1, None, -1], pa.int64()))
    add('arrow int32 [1, None, -1]', lambda: pa.array([1, None, -1], pa.int32()))
    add('arrow uint64 [1, 2**64 - 1]', lambda: pa.array([1, 2**64 - 1], pa.uint64()))
    add("arrow utf8 ['a', None, '']", lambda: pa.array(['a', None, '']))
    add("arrow binary [b'a']", lambda: pa.array([b'a']))
    add('arrow float64 [-0.0, nan]', lambda: pa.array([-0.0, float('nan')]))
    add('arrow decimal128(5, 2) [1.25]', lambda: pa.array([D('1.25')], pa.decimal128(5, 2)))
    add(
        'arrow timestamp[us, UTC]',
        lambda: pa.array([datetime.datetime(2024, 2, 29, 12, 30)], pa.timestamp('us', 'UTC')),
    )
    add('arrow list<int64> [[1, 2], [], None]', lambda: pa.array([[1, 2], [], None]))
    add("arrow map<utf8, int64> [[('a', 1)]]", lambda: pa.array([[('a', 1)]], pa.map_(pa.string(), pa.int64())))
    add("arrow struct<one: utf8> [{'one': 'a'}]", lambda: pa.array([{'one': 'a'}]))
    add("arrow dictionary<int8, utf8> ['red', 'red', None]", lambda: pa.array(['red', 'red', None]).dictionary_encode())
    add('arrow run_end_encoded<int32, float64> [2.5, 2.5]', lambda: pc.run_end_encode(pa.array([2.5, 2.5])))
    add('arrow null [None]', lambda: pa.array([None]))
    add('arrow empty int64', lambda: pa.array([], pa.int64()))
    add("arrow table {'id': [1, 2], 'name': ['a', None]}", lambda: pa.table({'id': [1, 2], 'name': ['a', None]}))
    add('arrow chunked int64 [[1], [2, 3]]', lambda: pa.chunked_array([[1], [2, 3]]))
    return out


def write():
    golden = {
        'version': 1,
        'about': 'docs/fingerprint.md version 1: for each case, the message that fingerprint() hashes (the header '
        'and the value) and its SHA-256; written by tests/fingerprint_cases.py.',
        'cases': {},
    }
    for name, make in cases().items():
        message = reference.encode(make())
        digest = hashlib.sha256(message).hexdigest()
        got = fastdigest.fingerprint('sha256', make(), hex=True)
        if got != digest:
            sys.exit(f'fastdigest and the reference disagree on {name}: {got} != {digest}')
        golden['cases'][name] = {'message': message.hex(), 'sha256': digest}
    with open(GOLDEN, 'w') as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)
        f.write('\n')


if __name__ == '__main__':
    # The cases' classes must be this module's, by its name, not __main__'s.
    import fingerprint_cases

    fingerprint_cases.write()
