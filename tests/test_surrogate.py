"""surrogate_key(table, columns): every row's key equal to what dbt_utils.generate_surrogate_key gives on DuckDB.

The reference is DuckDB itself, executing the SQL that dbt compiles for it (dbt-utils' macro
generate_surrogate_key over dbt's default hash, concat and type_string: dbt-duckdb overrides none of them):

    md5(cast(coalesce(cast(a as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(...) as TEXT))

over the same Arrow table, row by row, nulls included: every supported type (integers of each width signed and
unsigned, booleans, date32 and date64, decimal32/64/128, the three string layouts, the null type), hypothesis
over values (negative numbers, zero, extremes, empty strings, strings holding the separator, unicode), slices,
chunks, threads, rows longer than a thread's key buffer, and the producers (pyarrow, polars, DuckDB, pandas).
For the other algorithms, DuckDB's text of the key is hashed with hashlib. decimal256, which DuckDB does not
import, is compared through decimal128 where it fits and against Python's plain decimal text where it does not.
PostgreSQL and Spark run dbt's SQL for them in tests/test_postgres.py and tests/test_spark.py (heavy tier). Malformed C structs
are built with ctypes and must raise ValueError; the C checks themselves are fuzzed by
tests/fuzz/fuzz_surrogate.c.
"""

import ctypes
import datetime
import decimal
import hashlib
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples

pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')
duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')

from arrow_raw import ArrowArray, ArrowSchema, PyCapsule_New, int32s, int64s, release_array, release_schema  # noqa: E402

TOKEN = '_dbt_utils_surrogate_key_null_'
EXACT = decimal.Context(prec=100)  # the default context's 28 digits would round the wide decimals


def scaled(unscaled, scale):
    """The decimal unscaled / 10**scale, exactly."""
    return decimal.Decimal(unscaled).scaleb(-scale, context=EXACT)


def quoted(name):
    return '"%s"' % name.replace('"', '""')


def literal(text):
    return "'%s'" % text.replace("'", "''")


def dbt_key_text_sql(columns, separator='-', null=TOKEN):
    """The part of dbt's SQL inside md5(): each column cast to TEXT, coalesced to the token, joined with ||."""
    fields = ['coalesce(cast(%s as TEXT), %s)' % (quoted(c), literal(null)) for c in columns]
    return (' || %s || ' % literal(separator)).join(fields)


def duckdb_keys(table, columns, name='md5', separator='-', null=TOKEN):
    """DuckDB's keys of every row: dbt's SQL itself for md5, hashlib over DuckDB's key text for the others."""
    con = duckdb.connect()
    con.register('t', table)
    text = dbt_key_text_sql(columns, separator, null)
    if name == 'md5':
        return [row[0] for row in con.sql('SELECT md5(cast(%s as TEXT)) FROM t' % text).fetchall()]
    texts = [row[0] for row in con.sql('SELECT cast(%s as TEXT) FROM t' % text).fetchall()]
    return [hashlib.new(name, t.encode()).hexdigest() for t in texts]


def keys(table, columns, **options):
    """surrogate_key's keys, imported back with pyarrow: a list of str, checking the result's type."""
    result = fastdigest.surrogate_key(table, columns, **options)
    imported = pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)
    assert imported.type == pa.string()
    assert imported.null_count == 0
    assert len(result) == len(imported)
    return imported.to_pylist()


def check(table, columns=None, **options):
    columns = list(table.column_names) if columns is None else columns
    got = keys(table, columns, **options)
    assert got == duckdb_keys(table, columns, **options)
    return got


# ---- every type ---------------------------------------------------------------------------------------------

INTEGERS = {
    'int8': (pa.int8(), -(2**7), 2**7 - 1),
    'int16': (pa.int16(), -(2**15), 2**15 - 1),
    'int32': (pa.int32(), -(2**31), 2**31 - 1),
    'int64': (pa.int64(), -(2**63), 2**63 - 1),
    'uint8': (pa.uint8(), 0, 2**8 - 1),
    'uint16': (pa.uint16(), 0, 2**16 - 1),
    'uint32': (pa.uint32(), 0, 2**32 - 1),
    'uint64': (pa.uint64(), 0, 2**64 - 1),
}
DECIMALS = [(5, 2), (1, 0), (10, 0), (18, 6), (19, 4), (38, 0), (38, 10), (38, 37), (20, 19)]
STRINGS = {'utf8': pa.string(), 'large_utf8': pa.large_string(), 'utf8_view': pa.string_view()}


def test_integers():
    columns = {}
    for type_name, (arrow_type, low, high) in INTEGERS.items():
        values = [low, high, 0, None, 1, -1 if low < 0 else 2, low + 1, high - 1, None, 10, 99, 100, 101]
        columns[type_name] = pa.array(values, arrow_type)
    table = pa.table(columns)
    check(table)
    for type_name in INTEGERS:
        check(table, [type_name])  # dbt's SQL for one column has no concatenation


def test_booleans_dates_and_nulls():
    table = pa.table(
        {
            'b': pa.array([True, False, None, True, False, None]),
            'd32': pa.array(
                [
                    datetime.date(2024, 1, 5),
                    datetime.date(1, 1, 1),
                    datetime.date(9999, 12, 31),
                    None,
                    datetime.date(1969, 12, 31),
                    datetime.date(2000, 2, 29),
                ]
            ),
            'd64': pa.array(
                [
                    datetime.date(1970, 1, 1),
                    None,
                    datetime.date(1, 1, 1),
                    datetime.date(9999, 12, 31),
                    datetime.date(1600, 2, 29),
                    datetime.date(1899, 12, 31),
                ],
                pa.date64(),
            ),
            'n': pa.nulls(6),
        }
    )
    got = check(table)
    assert got[0] == hashlib.md5(('true-2024-01-05-1970-01-01-' + TOKEN).encode()).hexdigest()
    check(table, ['n'])


def test_every_day_of_some_years():
    # The civil calendar of dates: every day from 1969 to 1973 and around the leap-year rules' centuries.
    days = []
    for start, count in [
        (datetime.date(1969, 1, 1), 5 * 366),
        (datetime.date(1899, 12, 1), 800),
        (datetime.date(1999, 12, 1), 800),
        (datetime.date(1, 1, 1), 800),
        (datetime.date(9997, 1, 1), 1095),
    ]:
        days += [start + datetime.timedelta(days=k) for k in range(count)]
    check(pa.table({'d': pa.array(days), 'd64': pa.array(days, pa.date64())}))


@pytest.mark.parametrize('precision, scale', DECIMALS)
def test_decimal128(precision, scale):
    rng = random.Random(precision * 100 + scale)
    top = 10**precision - 1
    unscaled = [
        0,
        1,
        -1,
        top,
        -top,
        5,
        -5,
        10**scale,
        -(10**scale),
        10 ** (scale + 1) if 10 ** (scale + 1) <= top else 7,
    ]
    unscaled += [rng.randrange(-top, top + 1) for _ in range(40)] + [rng.randrange(-9, 10) for _ in range(10)]
    values = [scaled(u, scale) for u in unscaled] + [None]
    if scale == precision:
        pytest.skip('scale equal to precision is refused (test_refused_types)')
    check(pa.table({'m': pa.array(values, pa.decimal128(precision, scale)), 'tag': pa.array(['x'] * len(values))}))


@pytest.mark.parametrize('width, precision', [(32, 9), (64, 18), (256, 38)])
def test_other_decimal_widths(width, precision):
    # Compared with the keys DuckDB gives the same values as decimal128 (DuckDB does not import decimal256, nor
    # decimal32 and decimal64 before 1.2); pyarrow has decimal32 and decimal64 from 18.
    factory = getattr(pa, 'decimal%d' % width, None)
    if factory is None:
        pytest.skip('this pyarrow has no decimal%d (pyarrow 18 added decimal32 and decimal64)' % width)
    for scale in (0, 2, precision - 1):
        top = 10**precision - 1
        unscaled = [0, 1, -1, top, -top, 12345, -12345, None]
        values = [None if u is None else scaled(u, scale) for u in unscaled]
        table = pa.table({'m': pa.array(values, factory(precision, scale))})
        as_decimal128 = pa.table({'m': pa.array(values, pa.decimal128(precision, scale))})
        assert keys(table, ['m']) == duckdb_keys(as_decimal128, ['m'])


def test_wide_decimal256_is_plain_text():
    # Precisions past 38 only PostgreSQL holds: its text is the same plain form (tests/test_postgres.py
    # compares it there), which Python's format(Decimal, 'f') writes too.
    rng = random.Random(5)
    for precision, scale in [(76, 0), (76, 30), (50, 49), (39, 1)]:
        top = 10**precision - 1
        unscaled = [0, top, -top, 1, -1] + [rng.randrange(-top, top + 1) for _ in range(20)]
        values = [scaled(u, scale) for u in unscaled]
        table = pa.table({'m': pa.array(values, pa.decimal256(precision, scale))})
        assert keys(table, ['m']) == [hashlib.md5(format(v, 'f').encode()).hexdigest() for v in values]


@pytest.mark.parametrize('type_name', STRINGS)
def test_strings(type_name):
    values = ['', 'a', None, 'x-y', '-', '--', TOKEN, 'é€\U0001f600', 'a' * 100, ' ', "it's", 'null', None, '\0']
    table = pa.table({'s': pa.array(values, STRINGS[type_name]), 't': pa.array(values[::-1], STRINGS[type_name])})
    check(table)
    check(table, ['t', 's', 't'])  # any order, a column twice


def test_separator_and_token():
    table = pa.table({'a': ['x', None, ''], 'b': pa.array([1, 2, None], pa.int32())})
    for separator, null in [('|', ''), ('', 'NULL'), ('::', '∅'), ('-', '')]:
        check(table, ['a', 'b'], separator=separator, null=null)
    # dbt's surrogate_key_treat_nulls_as_empty_strings: a null and an empty string are the same text.
    assert keys(table, ['a'], null='')[1:] == [hashlib.md5(b'').hexdigest()] * 2
    # dbt-utils #1015: the text form does not tell ('123-', '456') from ('123', '-456'); neither does the key.
    ambiguous = pa.table({'a': ['123-', '123'], 'b': ['456', '-456']})
    first, second = check(ambiguous)
    assert first == second


@pytest.mark.parametrize('name', ALGORITHMS)
def test_every_algorithm(name):
    table = pa.table(
        {'s': ['a', None, 'b'], 'i': pa.array([1, None, -3]), 'd': pa.array([datetime.date(2020, 1, 1)] * 3)}
    )
    check(table, name=name)
    assert keys(table, ['s'], name=getattr(fastdigest, name)) == duckdb_keys(table, ['s'], name=name)


def test_slices_and_chunks():
    rng = random.Random(7)
    n = 300
    strings = [
        None if rng.random() < 0.2 else ''.join(rng.choice('ab-é') for _ in range(rng.randrange(6))) for _ in range(n)
    ]
    ints = [None if rng.random() < 0.2 else rng.randrange(-(2**63), 2**63) for _ in range(n)]
    table = pa.table({'s': pa.array(strings), 'i': pa.array(ints, pa.int64())})
    for offset, length in [(1, 50), (7, 100), (8, 8), (13, 0), (299, 1), (63, 237)]:
        check(table.slice(offset, length))
    chunked = pa.concat_tables([table.slice(0, 10), table.slice(10, 0), table.slice(10, 290)])
    assert chunked.column(0).num_chunks >= 2
    result = fastdigest.surrogate_key(chunked, ['s', 'i'])
    assert isinstance(result, fastdigest.DigestStream)
    assert [len(c) for c in pa.chunked_array(result).chunks] == [len(c) for c in chunked.column(0).chunks]
    check(chunked)
    # A sliced record batch: its struct's offset reaches every column.
    batch = table.to_batches()[0].slice(5, 60)
    assert isinstance(fastdigest.surrogate_key(batch, ['i']), fastdigest.DigestArray)
    assert keys(batch, ['s', 'i']) == duckdb_keys(pa.table(batch), ['s', 'i'])


def test_struct_nulls():
    # A null row of a struct array (a record batch from a StructArray) makes every field of that row null.
    struct = pa.StructArray.from_arrays(
        [pa.array(['a', 'b', 'c']), pa.array([1, 2, 3])], names=['s', 'i'], mask=pa.array([False, True, False])
    )
    got = keys(struct, ['s', 'i'])
    assert got[1] == hashlib.md5((TOKEN + '-' + TOKEN).encode()).hexdigest()
    assert got[0] == hashlib.md5(b'a-1').hexdigest()
    assert keys(struct.slice(1), ['i'])[0] == hashlib.md5(TOKEN.encode()).hexdigest()


@pytest.mark.threads
def test_many_rows_on_threads():
    # More rows than the threads' split needs (two parts from 32,768 rows), keys of every length, nulls.
    rng = random.Random(8)
    n = 70_000
    strings = [None if rng.random() < 0.1 else 'x' * rng.randrange(0, 200) for _ in range(n)]
    table = pa.table(
        {
            's': pa.array(strings, pa.large_string()),
            'i': pa.array([rng.randrange(-(2**63), 2**63) for _ in range(n)], pa.int64()),
            'd': pa.array(
                [datetime.date(1, 1, 1) + datetime.timedelta(days=rng.randrange(3_652_058)) for _ in range(n)]
            ),
        }
    )
    want = duckdb_keys(table, ['s', 'i', 'd'])
    for threads in (None, 1, 2, 3):
        assert keys(table, ['s', 'i', 'd'], threads=threads) == want


def test_rows_longer_than_the_key_buffer():
    # A thread writes keys into a buffer of 256 KiB: keys that leave it no room go to the batch driver first; a
    # key longer than all of it is hashed piece by piece from the columns' own bytes.
    big = 'y' * (300 * 1024)
    near = 'z' * (100 * 1024)
    values = ['a', big, 'b', near, near, near, '', big + 'é', None, near]
    table = pa.table(
        {'s': pa.array(values), 'i': pa.array(range(len(values)), pa.int16()), 't': pa.array(values[::-1])}
    )
    check(table)
    check(table, ['s'], name='sha512')


def test_empty_tables():
    table = pa.table({'s': pa.array([], pa.string()), 'i': pa.array([], pa.int64())})
    assert keys(table, ['s', 'i']) == []
    assert keys(pa.record_batch([pa.array([], pa.int64())], names=['i']), ['i']) == []
    assert len(fastdigest.surrogate_key(pa.table({'i': pa.array([], pa.int8())}).slice(0, 0), ['i'])) == 0


# ---- hypothesis ---------------------------------------------------------------------------------------------

FIRST_DATE, LAST_DATE = datetime.date(1, 1, 1), datetime.date(9999, 12, 31)


def column_strategy(kind):
    """(arrow type, strategy of one value) of a column kind."""
    if kind in INTEGERS:
        arrow_type, low, high = INTEGERS[kind]
        near_edges = st.sampled_from([low, high, 0, low + 1, high - 1, 1])
        return arrow_type, near_edges | st.integers(low, high)
    if kind in STRINGS:
        pieces = st.sampled_from(['-', '', TOKEN, 'é', '€', '\U0001f600', "'", 'a', '0'])
        return STRINGS[kind], st.text(max_size=12) | st.lists(pieces, max_size=5).map(''.join)
    if kind == 'bool':
        return pa.bool_(), st.booleans()
    if kind in ('date32', 'date64'):
        dates = st.dates(FIRST_DATE, LAST_DATE) | st.sampled_from([FIRST_DATE, LAST_DATE, datetime.date(1970, 1, 1)])
        return (pa.date32() if kind == 'date32' else pa.date64()), dates
    precision, scale = {'decimal(5,2)': (5, 2), 'decimal(38,10)': (38, 10), 'decimal(18,0)': (18, 0)}[kind]
    top = 10**precision - 1
    unscaled = st.integers(-top, top) | st.sampled_from([0, top, -top, 1, -1])
    return pa.decimal128(precision, scale), unscaled.map(lambda u: scaled(u, scale))


KINDS = [*INTEGERS, *STRINGS, 'bool', 'date32', 'date64', 'decimal(5,2)', 'decimal(38,10)', 'decimal(18,0)']


@st.composite
def tables(draw):
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))
    rows = draw(st.integers(0, 25))
    columns = {}
    for k, kind in enumerate(kinds):
        arrow_type, values = column_strategy(kind)
        column = draw(st.lists(st.none() | values, min_size=rows, max_size=rows))
        columns['c%d' % k] = pa.array(column, arrow_type)
    table = pa.table(columns)
    start = draw(st.integers(0, rows))
    return table.slice(start, draw(st.integers(0, rows - start)))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), separator=st.sampled_from(['-', '', '|', 'é-']), null=st.sampled_from([TOKEN, '', 'N']))
def test_hypothesis_against_duckdb(table, separator, null):
    check(table, separator=separator, null=null)


# ---- producers ----------------------------------------------------------------------------------------------


def producer_table():
    return pa.table(
        {
            's': pa.array(['a', None, '', 'x-y', 'é€']),
            'i': pa.array([1, -2, None, 2**63 - 1, -(2**63)], pa.int64()),
            'b': pa.array([True, None, False, True, False]),
            'd': pa.array(
                [
                    datetime.date(2024, 1, 5),
                    None,
                    datetime.date(1, 1, 1),
                    datetime.date(9999, 12, 31),
                    datetime.date(1970, 1, 1),
                ]
            ),
        }
    )


def test_polars():
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    table = producer_table()
    df = pl.from_arrow(table)
    want = duckdb_keys(table, ['s', 'i', 'b', 'd'])
    assert keys(df, ['s', 'i', 'b', 'd']) == want  # polars exports strings as utf8_view
    df = df.with_columns(pl.Series(fastdigest.surrogate_key(df, ['s', 'i', 'b', 'd'])).alias('key'))
    assert df['key'].to_list() == want
    decimals = pl.DataFrame({'m': pl.Series([decimal.Decimal('1.50'), None], dtype=pl.Decimal(10, 2))})
    assert keys(decimals, ['m']) == [hashlib.md5(b'1.50').hexdigest(), hashlib.md5(TOKEN.encode()).hexdigest()]


def test_duckdb_relation():
    table = producer_table()
    con = duckdb.connect()
    con.register('t', table)
    assert keys(con.sql('SELECT s, i, b, d FROM t'), ['s', 'i', 'b', 'd']) == duckdb_keys(table, ['s', 'i', 'b', 'd'])
    # DuckDB exports HUGEINT as decimal(38,0): the same digits as its own text of the number.
    huge = con.sql('SELECT cast(i as HUGEINT) * 1000 as h FROM t')
    texts = [r[0] for r in con.sql('SELECT md5(coalesce(cast(h as TEXT), %s)) FROM huge' % literal(TOKEN)).fetchall()]
    assert keys(huge, ['h']) == texts


def test_duckdb_uhugeint_from_2_to_the_127_needs_a_cast():
    """DuckDB 2.0 exports UHUGEINT as decimal128(38, 0), where 2**127 and more wrap negative: their keys are the
    negative numbers' until the query casts the column to text, as docs/surrogate-keys.md says."""
    query = 'SELECT * FROM (VALUES (%d::UHUGEINT), (%d::UHUGEINT), (5::UHUGEINT)) t(k)' % (2**127, 2**128 - 1)
    con = duckdb.connect()
    dbt = [
        r[0]
        for r in con.sql('SELECT md5(coalesce(cast(k as TEXT), %s)) FROM (%s)' % (literal(TOKEN), query)).fetchall()
    ]
    assert dbt == [hashlib.md5(str(n).encode()).hexdigest() for n in (2**127, 2**128 - 1, 5)]
    exported = con.sql(query).to_arrow_table()
    if exported.schema.field('k').type == pa.decimal128(38, 0):  # DuckDB 2.0's export; a later one may differ
        assert keys(con.sql(query), ['k'])[:2] == [
            hashlib.md5(b'-%d' % 2**127).hexdigest(),
            hashlib.md5(b'-1').hexdigest(),
        ]
    assert keys(con.sql('SELECT cast(k AS VARCHAR) AS k FROM (%s)' % query), ['k']) == dbt


def test_pandas():
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    table = producer_table()
    # Arrow-backed columns keep the types; a default int column with a null would be float64, refused.
    pdf = table.to_pandas(types_mapper=pd.ArrowDtype)
    want = duckdb_keys(table, ['s', 'i', 'b', 'd'])
    assert keys(pa.Table.from_pandas(pdf), ['s', 'i', 'b', 'd']) == want
    if hasattr(pd.DataFrame, '__arrow_c_stream__'):  # pandas 2.2+ exports a DataFrame itself
        assert keys(pdf, ['s', 'i', 'b', 'd']) == want
        frame = pd.DataFrame({'s': ['a', None], 'i': pd.array([1, None], dtype='Int64')})
        assert keys(frame, ['s', 'i']) == duckdb_keys(pa.Table.from_pandas(frame), ['s', 'i'])
        with pytest.raises(TypeError, match="column 'f'.*float"):
            fastdigest.surrogate_key(pd.DataFrame({'f': [1.0, None]}), ['f'])


# ---- errors -------------------------------------------------------------------------------------------------


def test_missing_column_raises_key_error():
    table = pa.table({'a': [1], 'b': ['x']})
    with pytest.raises(KeyError, match="no column 'c'"):
        fastdigest.surrogate_key(table, ['a', 'c'])
    with pytest.raises(KeyError, match="no column 'A'"):
        fastdigest.surrogate_key(table.to_batches()[0], ['A'])


@pytest.mark.parametrize(
    'arrow_type, why',
    [
        (pa.float64(), "write the float 1.0 as '1.0', PostgreSQL as '1'"),
        (pa.float32(), 'the float'),
        (pa.float16(), 'the float'),
        (pa.timestamp('us'), 'timestamps'),
        (pa.timestamp('ns', tz='UTC'), 'timestamps'),
        (pa.time64('us'), 'no time of day type'),
        (pa.duration('s'), 'durations'),
        (pa.binary(), 'bytes as escapes'),
        (pa.large_binary(), 'bytes as escapes'),
        (pa.binary(4), 'bytes as escapes'),
        (pa.decimal128(3, 3), "'.500'"),
        (pa.decimal128(5, -2), 'negative scale'),
        (pa.list_(pa.int32()), 'nested'),
        (pa.struct({'x': pa.int32()}), 'nested'),
    ],
)
def test_refused_types(arrow_type, why):
    table = pa.table({'ok': pa.array([1], pa.int32()), 'x': pa.array([None], arrow_type)})
    with pytest.raises(
        TypeError,
        match=r"column 'x' \(Arrow format .*agree on.*%s.*cast it first" % why.replace('(', r'\(').replace('.', r'\.'),
    ):
        fastdigest.surrogate_key(table, ['ok', 'x'])
    assert keys(table, ['ok']) == [hashlib.md5(b'1').hexdigest()]  # the column refused is only refused if asked for


def test_pandas_dates_are_refused_saying_how_to_keep_them():
    """pandas has no date type: polars' to_pandas(), pd.to_datetime() and read_csv() give timestamps, which
    are refused, and the message says how to make dates of them again; either way gives dbt's keys."""
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    days = [datetime.date(2024, 1, 31), None]
    frame = pd.DataFrame({'day': pd.to_datetime(pd.Series(days))})
    advice = 'pandas holds dates as timestamps: column.dt.date, or column.astype(pd.ArrowDtype(pa.date32()))'
    with pytest.raises(TypeError, match=re.escape(advice)):
        fastdigest.surrogate_key(frame, ['day'])
    want = keys(pa.table({'day': pa.array(days, pa.date32())}), ['day'])
    assert want == [hashlib.md5(b'2024-01-31').hexdigest(), hashlib.md5(b'_dbt_utils_surrogate_key_null_').hexdigest()]
    assert keys(frame.assign(day=frame['day'].dt.date), ['day']) == want
    assert keys(frame.assign(day=frame['day'].astype(pd.ArrowDtype(pa.date32()))), ['day']) == want
    with pytest.raises(TypeError) as raised:
        fastdigest.surrogate_key(pa.table({'d': pa.array([1.5])}), ['d'])
    assert 'pandas' not in str(raised.value)  # the advice is for timestamps alone


def test_dictionary_is_refused_with_advice():
    table = pa.table({'x': pa.array(['a', 'b']).dictionary_encode()})
    with pytest.raises(TypeError, match=r"column 'x' is dictionary-encoded .*decode it first"):
        fastdigest.surrogate_key(table, ['x'])


def test_dates_outside_years_1_to_9999_raise():
    days = pa.array([0, 2932896, 2932897], pa.int32()).cast(pa.date32())
    table = pa.table({'s': ['a', 'b', 'c'], 'd': days})
    with pytest.raises(ValueError, match=r"row 2, column 'd': the date 2932897 days .*outside years 1 to 9999"):
        fastdigest.surrogate_key(table, ['s', 'd'])
    before = pa.table({'d': pa.array([-719162, -719163], pa.int32()).cast(pa.date32())})
    with pytest.raises(ValueError, match='row 1'):
        fastdigest.surrogate_key(before, ['d'])
    # Rows are numbered through the whole stream, past its first array.
    stream = pa.concat_tables([pa.table({'d': days.slice(0, 2)}), pa.table({'d': days.slice(2)})])
    with pytest.raises(ValueError, match='row 2'):
        fastdigest.surrogate_key(stream, ['d'])
    # A null row's value is never read.
    nulled = pa.table({'d': pa.array([1, 2932897], pa.int32()).cast(pa.date32()).filter(pa.array([True, True]))})
    masked = pa.Array.from_buffers(
        pa.date32(), 2, [pa.py_buffer(bytes([0b01])), nulled.column(0).chunks[0].buffers()[1]]
    )
    assert keys(pa.table({'d': masked}), ['d'])[1] == hashlib.md5(TOKEN.encode()).hexdigest()


def test_date64_that_is_no_whole_day_raises():
    ms = pa.array([86_400_000, 86_400_001], pa.int64()).view(pa.date64())
    with pytest.raises(ValueError, match=r"row 1, column 'd': the date64 value 86400001 is no whole day"):
        fastdigest.surrogate_key(pa.table({'d': ms}), ['d'])


def test_argument_errors():
    table = pa.table({'a': [1], 'a2': [2]})
    with pytest.raises(TypeError, match='argument 2 must be a list of column names, not str'):
        fastdigest.surrogate_key(table, 'a')
    with pytest.raises(TypeError, match=r'must hold column names \(str\), not int'):
        fastdigest.surrogate_key(table, [0])
    with pytest.raises(TypeError, match='must be a list of column names, not NoneType'):
        fastdigest.surrogate_key(table, None)
    with pytest.raises(ValueError, match='at least one column'):
        fastdigest.surrogate_key(table, [])
    with pytest.raises(TypeError, match="argument 'separator' must be str, not bytes"):
        fastdigest.surrogate_key(table, ['a'], separator=b'-')
    with pytest.raises(TypeError, match="argument 'null' must be str, not NoneType"):
        fastdigest.surrogate_key(table, ['a'], null=None)
    with pytest.raises(ValueError, match='unsupported hash'):
        fastdigest.surrogate_key(table, ['a'], name='sha3_256')
    with pytest.raises(TypeError, match="argument 'name' must be str or a fastdigest constructor"):
        fastdigest.surrogate_key(table, ['a'], name=hashlib.md5)
    with pytest.raises(ValueError, match='threads must be at least 1'):
        fastdigest.surrogate_key(table, ['a'], threads=0)
    with pytest.raises(TypeError, match='threads must be an int or None'):
        fastdigest.surrogate_key(table, ['a'], threads=True)
    with pytest.raises(TypeError, match='expected 2 positional arguments, got 1'):
        fastdigest.surrogate_key(table)
    with pytest.raises(TypeError, match='unexpected keyword'):
        fastdigest.surrogate_key(table, ['a'], hex=True)
    with pytest.raises(TypeError, match='must have the Arrow PyCapsule interface'):
        fastdigest.surrogate_key([{'a': 1}], ['a'])
    with pytest.raises(TypeError, match=r"must be a table .*not a column of Arrow format 'l'"):
        fastdigest.surrogate_key(pa.array([1]), ['a'])
    duplicated = pa.table([pa.array([1]), pa.array([2])], names=['a', 'a'])
    with pytest.raises(ValueError, match="2 columns named 'a'"):
        fastdigest.surrogate_key(duplicated, ['a'])


def test_stream_error_is_raised():
    def batches():
        yield pa.record_batch({'s': ['a']})
        raise ValueError('the producer broke')

    reader = pa.RecordBatchReader.from_batches(pa.schema({'s': pa.string()}), batches())
    with pytest.raises((ValueError, OSError), match='the producer broke'):
        fastdigest.surrogate_key(reader, ['s'])


# ---- raw C structs ------------------------------------------------------------------------------------------


class RawTable:
    """A struct array (a record batch) of raw children: (name, format, length, buffers, offset, null_count)."""

    def __init__(self, length, children, offset=0, n_children=None, struct_buffers=(None,)):
        self.keep = []
        schemas, arrays = [], []
        for name, fmt, child_length, buffers, child_offset, null_count in children:
            kept = [b if b is None else ctypes.create_string_buffer(b, len(b)) for b in buffers]
            pointers = (ctypes.c_void_p * max(1, len(buffers)))(
                *[None if b is None else ctypes.addressof(b) for b in kept]
            )
            schema = ArrowSchema(format=fmt.encode(), name=name.encode(), flags=2, release=release_schema)
            array = ArrowArray(
                length=child_length,
                null_count=null_count,
                offset=child_offset,
                n_buffers=len(buffers),
                buffers=pointers,
                release=release_array,
            )
            self.keep += [kept, pointers]
            schemas.append(schema)
            arrays.append(array)
        self.schemas, self.arrays = schemas, arrays
        self.schema_children = (ctypes.POINTER(ArrowSchema) * max(1, len(schemas)))(
            *[ctypes.pointer(s) for s in schemas]
        )
        self.array_children = (ctypes.POINTER(ArrowArray) * max(1, len(arrays)))(*[ctypes.pointer(a) for a in arrays])
        self.struct_buffers = (ctypes.c_void_p * 1)(None)
        self.schema = ArrowSchema(
            format=b'+s', flags=0, n_children=len(schemas), children=self.schema_children, release=release_schema
        )
        self.array = ArrowArray(
            length=length,
            null_count=0,
            offset=offset,
            n_buffers=len(struct_buffers),
            n_children=len(arrays) if n_children is None else n_children,
            buffers=self.struct_buffers,
            children=self.array_children,
            release=release_array,
        )

    def __arrow_c_array__(self, requested_schema=None):
        return (
            PyCapsule_New(ctypes.addressof(self.schema), b'arrow_schema', None),
            PyCapsule_New(ctypes.addressof(self.array), b'arrow_array', None),
        )


@pytest.fixture
def little_endian():
    import sys

    if sys.byteorder != 'little':
        pytest.skip('the raw structs here are written little-endian')


def test_raw_table_valid(little_endian):
    raw = RawTable(
        2, [('i', 'l', 3, [None, int64s(7, -1, 5)], 1, 0), ('s', 'u', 2, [None, int32s(0, 1, 3), b'abc'], 0, 0)]
    )
    assert keys(raw, ['i', 's']) == [hashlib.md5(b'-1-a').hexdigest(), hashlib.md5(b'5-bc').hexdigest()]
    nulls = RawTable(3, [('n', 'n', 3, [], 0, 3), ('b', 'b', 3, [bytes([0b101]), bytes([0b011])], 0, 1)])
    assert keys(nulls, ['n', 'b']) == [
        hashlib.md5((TOKEN + '-' + t).encode()).hexdigest() for t in ('true', TOKEN, 'false')
    ]


@pytest.mark.parametrize(
    'table, message',
    [
        (
            lambda: RawTable(2, [('i', 'l', 1, [None, int64s(7)], 0, 0)]),
            'struct array has 2 rows from 0 but its column only 1',
        ),
        (lambda: RawTable(1, [('i', 'l', 1, [None, None], 0, 0)]), 'values buffer is null under 1 rows'),
        (lambda: RawTable(1, [('i', 'l', 1, [None], 0, 0)]), 'has 2 buffers, not 1'),
        (lambda: RawTable(1, [('i', 'l', -1, [None, int64s(1)], 0, 0)]), 'length is negative'),
        (lambda: RawTable(1, [('i', 'l', 1, [None, int64s(1)], -1, 0)]), 'offset is negative'),
        (lambda: RawTable(1, [('i', 'l', 1, [None, int64s(1)], 0, 0)], offset=-1), "struct array's offset is negative"),
        (
            lambda: RawTable(1, [('i', 'l', 1, [None, int64s(1)], 0, 0)], n_children=0),
            'has 0 children where its schema has 1',
        ),
        (
            lambda: RawTable(1, [('i', 'l', 1, [None, int64s(1)], 0, 0)], struct_buffers=(None, None)),
            'has 1 buffer, not 2',
        ),
        (lambda: RawTable(2, [('s', 'u', 2, [None, int32s(0, 3, 1), b'abc'], 0, 0)]), 'before its start'),
        (lambda: RawTable(1, [('m', 'd:5,2,256', 2**59 + 10, [None, b''], 0, 0)]), 'out of range'),
    ],
)
def test_raw_table_inconsistent_raises_value_error(little_endian, table, message):
    with pytest.raises(ValueError, match=message):
        fastdigest.surrogate_key(table(), [table().schemas[0].name.decode()])


@pytest.mark.parametrize('fmt', ['d:0,0', 'd:10,2,48', 'd:39,2', 'd:5', 'd:5,2,', 'd:x,2', 'd:5,2x', 'tdx', 'ld'])
def test_raw_table_malformed_formats_raise_type_error(little_endian, fmt):
    raw = RawTable(1, [('x', fmt, 1, [None, bytes(32)], 0, 0)])
    with pytest.raises(TypeError, match=r"column 'x' \(Arrow format '%s'\)" % fmt):
        fastdigest.surrogate_key(raw, ['x'])
