"""digest_array(name, column, hex=...): every row of an Arrow column equal to hashlib's, from real producers.

The producers are the test extra's pyarrow, polars, duckdb and pandas (each through its own PyCapsule
export: pyarrow arrays as __arrow_c_array__, chunked arrays, polars Series, DuckDB relations and pandas
objects as __arrow_c_stream__), covering the six hashed types (polars exports string and binary views,
pandas large_utf8), slices, chunks, nulls, empty and long rows, all eight algorithms, binary and hex. The
results are imported back by each library. Malformed C structs (decreasing offsets, views out of bounds,
null buffers, consumed capsules) are built here with ctypes and must raise, never crash; the C checks
themselves are fuzzed by tests/fuzz/fuzz_arrow.c.
"""

import functools
import gc
import hashlib
import random
import re
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from arrow_raw import RELEASED, int32s, int64s, view
from arrow_raw import RawArray as RawColumn
from conftest import ALGORITHMS, examples, unsupported

pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')

TYPES = {
    'binary': pa.binary(),
    'large_binary': pa.large_binary(),
    'binary_view': pa.binary_view(),
    'utf8': pa.string(),
    'large_utf8': pa.large_string(),
    'utf8_view': pa.string_view(),
}
FORMATS = {'binary': 'z', 'large_binary': 'Z', 'binary_view': 'vz', 'utf8': 'u', 'large_utf8': 'U',
           'utf8_view': 'vu'}  # fmt: skip


def is_text(arrow_type):
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type)


def expected(name, values, hex=False):
    """hashlib's digest of each value (str as UTF-8), None for None."""
    out = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        h = hashlib.new(name, value.encode() if isinstance(value, str) else value)
        out.append(h.hexdigest() if hex else h.digest())
    return out


def sample_values(rng, count, text, null_share=0.2, max_len=80):
    """Random values: empty ones, long ones, non-ASCII text, nulls."""
    values = []
    for _ in range(count):
        roll = rng.random()
        if roll < null_share:
            values.append(None)
            continue
        n = 0 if roll < null_share + 0.05 else rng.randrange(2000, 5000) if roll > 0.97 else rng.randrange(max_len)
        if text:
            values.append(''.join(rng.choice('aé€\U0001f600z0 ') for _ in range(n)))
        else:
            values.append(rng.randbytes(n))
    return values


def check(name, column, values, hex=False):
    """digest_array over column (an array-like) equals hashlib row by row, with the result's type."""
    result = fastdigest.digest_array(name, column, hex=hex)
    assert len(result) == len(values)
    imported = pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)
    digest_size = hashlib.new(name).digest_size
    assert imported.type == (pa.string() if hex else pa.binary(digest_size))
    assert imported.to_pylist() == expected(name, values, hex)
    assert imported.null_count == sum(v is None for v in values)
    return result, imported


@pytest.mark.parametrize('type_name', TYPES)
@pytest.mark.parametrize('hex', [False, True], ids=['binary', 'hex'])
def test_every_type_and_algorithm(type_name, hex, algorithm):
    arrow_type = TYPES[type_name]
    values = sample_values(random.Random(type_name + algorithm), 300, is_text(arrow_type))
    result, _ = check(algorithm, pa.array(values, arrow_type), values, hex)
    assert isinstance(result, fastdigest.DigestArray)


@pytest.mark.parametrize('type_name', TYPES)
def test_slices(type_name):
    # Offsets that are not multiples of 8 shift the validity bitmap; slices of slices stack offsets.
    arrow_type = TYPES[type_name]
    values = sample_values(random.Random(1), 200, is_text(arrow_type), null_share=0.3)
    array = pa.array(values, arrow_type)
    for offset, length in [(1, 50), (7, 100), (8, 8), (13, 0), (199, 1), (0, 200), (63, 137)]:
        check('sha256', array.slice(offset, length), values[offset : offset + length], hex=offset % 2 == 1)
    check('md5', array.slice(5).slice(3, 20), values[8:28])


@pytest.mark.parametrize('type_name', TYPES)
def test_chunked_array(type_name):
    arrow_type = TYPES[type_name]
    rng = random.Random(2)
    chunks = [sample_values(rng, n, is_text(arrow_type)) for n in (10, 0, 4097, 1, 300)]
    chunked = pa.chunked_array([pa.array(c, arrow_type) for c in chunks], arrow_type)
    values = [v for c in chunks for v in c]
    for hex in (False, True):
        result, imported = check('sha1', chunked, values, hex)
        assert isinstance(result, fastdigest.DigestStream)
        # One result array per input array, in order.
        assert [len(c) for c in imported.chunks] == [len(c) for c in chunks]


def test_rows_across_hashing_chunks(algorithm):
    # More rows than one call of the batch driver takes (4096), with nulls on both sides of the seams.
    values = sample_values(random.Random(3), 9000, False, max_len=140)
    check(algorithm, pa.array(values, pa.binary()), values, hex=True)


@pytest.mark.parametrize('type_name', TYPES)
def test_empty_and_all_null(type_name):
    arrow_type = TYPES[type_name]
    check('sha512', pa.array([], arrow_type), [])
    check('sha512', pa.array([], arrow_type), [], hex=True)
    check('sha224', pa.array([None] * 70, arrow_type), [None] * 70)
    check('sha224', pa.array([None] * 70, arrow_type), [None] * 70, hex=True)
    check('md5', pa.chunked_array([], arrow_type), [])
    empty = b'' if not is_text(arrow_type) else ''
    check('md5', pa.array([empty] * 5, arrow_type), [empty] * 5, hex=True)


def test_null_slots_are_zero():
    # What lies under a null row is not specified by Arrow; here it is zero bytes (hex: '0' characters).
    result = pa.array(fastdigest.digest_array('md5', pa.array([b'a', None])))
    assert result.buffers()[1].to_pybytes()[16:] == bytes(16)
    result = pa.array(fastdigest.digest_array('md5', pa.array([b'a', None]), hex=True))
    assert result.buffers()[2].to_pybytes()[32:] == b'0' * 32


def test_long_and_empty_rows(algorithm):
    values = [b'', b'x' * 1_000_000, b'', bytes(range(256)) * 40, b'y']
    check(algorithm, pa.array(values, pa.large_binary()), values)
    check(algorithm, pa.array(values, pa.binary_view()), values, hex=True)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(st.none() | st.binary(max_size=150), max_size=60),
    type_name=st.sampled_from(list(TYPES)),
    name=st.sampled_from(ALGORITHMS),
    hex=st.booleans(),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
)
def test_hypothesis(values, type_name, name, hex, cut):
    arrow_type = TYPES[type_name]
    if is_text(arrow_type):
        values = [None if v is None else v.decode('latin-1') for v in values]
    start = min(cut[0], len(values))
    stop = max(start, min(cut[1], len(values)))
    check(name, pa.array(values, arrow_type).slice(start, stop - start), values[start:stop], hex)


def test_constructor_as_name():
    values = [b'abc', None]
    check('sha256', pa.array(values), values)
    assert pa.array(fastdigest.digest_array(fastdigest.sha256, pa.array(values))).to_pylist() == expected(
        'sha256', values
    )
    assert pa.array(fastdigest.digest_array('SHA256', pa.array(values))).to_pylist() == expected('sha256', values)


# ---- producers ------------------------------------------------------------------------------------


def test_record_batch_and_table():
    # A struct of one field (a one-column record batch or table) means that column, struct nulls included.
    values = ['a', None, 'bc', '']
    batch = pa.record_batch({'email': values})
    result = fastdigest.digest_array('sha256', batch, hex=True)
    assert isinstance(result, fastdigest.DigestArray)
    assert pa.array(result).to_pylist() == expected('sha256', values, True)
    table = pa.table({'email': values}).slice(1)
    assert pa.chunked_array(fastdigest.digest_array('sha256', table)).to_pylist() == expected('sha256', values[1:])
    struct = pa.StructArray.from_arrays([pa.array(values)], names=['s'], mask=pa.array([False, False, True, False]))
    assert pa.array(fastdigest.digest_array('md5', struct.slice(1))).to_pylist() == [
        None,
        None,
        expected('md5', [''])[0],
    ]


def test_polars():
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    rng = random.Random(4)
    strings = sample_values(rng, 5000, True)
    blobs = sample_values(rng, 5000, False)
    for values in (strings, blobs):
        series = pl.Series('col', values)  # exported as utf8_view / binary_view
        for hex in (False, True):
            result = fastdigest.digest_array('sha256', series, hex=hex)
            assert isinstance(result, fastdigest.DigestStream)
            back = pl.Series(result)
            assert back.name == 'col'
            assert back.to_list() == expected('sha256', values, hex)
        sliced = series.slice(17, 3000)
        assert pl.Series(fastdigest.digest_array('md5', sliced)).to_list() == expected('md5', values[17:3017])
    frame = pl.DataFrame({'s': strings})
    assert pl.Series(fastdigest.digest_array('sha1', frame, hex=True)).to_list() == expected('sha1', strings, True)
    # Chunked Series: one result array per chunk.
    chunked = pl.concat([pl.Series('c', strings[:10]), pl.Series('c', strings[10:])], rechunk=False)
    assert pl.Series(fastdigest.digest_array('sha512', chunked)).to_list() == expected('sha512', strings)


def duckdb_importable(duckdb, result):
    """The result as this DuckDB imports it: itself on DuckDB >= 2.0. DuckDB 1.x (the newest on Python
    3.10) takes only Arrow tables and streams of record batches, and reads a stream of a plain column as
    a table without columns, so there it is wrapped in a pyarrow table, as docs/columns.md says."""
    if int(duckdb.__version__.split('.')[0]) >= 2:
        return result
    if isinstance(result, fastdigest.DigestStream):
        return pa.table({'digest': pa.chunked_array(result)})
    return pa.table({'digest': pa.array(result)})


def test_duckdb():
    duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')
    con = duckdb.connect()
    relation = con.sql(
        "SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE repeat('ab', (i % 40)::INTEGER) || i::VARCHAR END AS s "
        'FROM range(5000) t(i)'
    )
    values = [row[0] for row in relation.fetchall()]
    digests = fastdigest.digest_array('sha256', relation, hex=True)
    assert isinstance(digests, fastdigest.DigestStream)
    result = duckdb_importable(duckdb, digests)  # noqa: F841 (DuckDB's replacement scan reads it by name)
    assert [row[0] for row in con.sql('SELECT * FROM result').fetchall()] == expected('sha256', values, True)
    # DuckDB's own sha256() agrees.
    ours = con.sql('SELECT * FROM result').fetchall()
    theirs = con.sql('SELECT sha256(s) FROM relation').fetchall()
    assert ours == theirs
    binary = fastdigest.digest_array('md5', con.sql("SELECT 'x'::BLOB AS b UNION ALL SELECT NULL"))
    assert sorted(duckdb.from_arrow(duckdb_importable(duckdb, binary)).fetchall(), key=repr) == sorted(
        [(hashlib.md5(b'x').digest(),), (None,)], key=repr
    )


def test_pandas():
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    if not hasattr(pd.Series, '__arrow_c_stream__'):
        pytest.skip('this pandas has no Arrow PyCapsule export (pandas >= 3.0 has it)')
    values = ['a', None, 'é' * 30, '']
    series = pd.Series(values, dtype='str')
    result = fastdigest.digest_array('sha256', series, hex=True)
    assert pa.chunked_array(result).to_pylist() == expected('sha256', values, True)
    frame = pd.DataFrame({'email': values})
    assert pa.chunked_array(fastdigest.digest_array('sha256', frame)).to_pylist() == expected('sha256', values)
    blobs = pd.Series([b'x', None, b''], dtype=object)
    assert pa.chunked_array(fastdigest.digest_array('md5', blobs)).to_pylist() == expected('md5', [b'x', None, b''])
    if hasattr(pd.Series, 'from_arrow'):
        back = pd.Series.from_arrow(result)
        assert [None if pd.isna(v) else v for v in back] == expected('sha256', values, True)


def test_round_trip_into_each_library():
    values = ['a', None, 'bcd']
    array_result = fastdigest.digest_array('sha256', pa.array(values), hex=True)
    stream_result = fastdigest.digest_array('sha256', pa.chunked_array([values[:1], values[1:]]), hex=True)
    want = expected('sha256', values, True)
    assert pa.array(array_result).to_pylist() == want
    assert pa.chunked_array(stream_result).to_pylist() == want
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    assert pl.Series(array_result).to_list() == want
    assert pl.Series(stream_result).to_list() == want
    duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')
    assert [r[0] for r in duckdb.from_arrow(duckdb_importable(duckdb, array_result)).fetchall()] == want
    assert [r[0] for r in duckdb.from_arrow(duckdb_importable(duckdb, stream_result)).fetchall()] == want


# ---- the result object ------------------------------------------------------------------------------


def test_exports_share_one_buffer():
    # Every import reads the result's own buffers: no copy, and the same address each time.
    result = fastdigest.digest_array('sha256', pa.array([b'x'] * 1000))
    first, second = pa.array(result), pa.array(result)
    assert first.buffers()[1].address == second.buffers()[1].address
    assert first.buffers()[1].size == 32 * 1000
    del result
    gc.collect()
    # The imported arrays keep the buffers alive after the result object is gone.
    assert first.to_pylist() == second.to_pylist() == [hashlib.sha256(b'x').digest()] * 1000


def test_stream_exported_twice():
    result = fastdigest.digest_array('md5', pa.chunked_array([[b'a'], [b'b', None]]))
    one, two = pa.chunked_array(result), pa.chunked_array(result)
    assert one.to_pylist() == two.to_pylist() == expected('md5', [b'a', b'b', None])
    assert one.num_chunks == 2


def test_unconsumed_capsules_are_released():
    # Capsules dropped without an import release their structs (ASan and valgrind runs see a leak otherwise).
    result = fastdigest.digest_array('sha1', pa.array([b'a']))
    for _ in range(100):
        schema, array = result.__arrow_c_array__()
        del schema, array
    stream = fastdigest.digest_array('sha1', pa.chunked_array([[b'a']]))
    for _ in range(100):
        stream.__arrow_c_stream__(requested_schema=None)


def test_result_repr_len_and_types():
    result = fastdigest.digest_array('sha512_256', pa.array([b'a', None]), hex=True)
    assert repr(result) == '<fastdigest.DigestArray sha512_256 hex, 2 rows, 1 nulls>'
    assert len(result) == 2
    with pytest.raises(TypeError):
        fastdigest.DigestArray()
    with pytest.raises(TypeError):
        fastdigest.DigestStream()
    assert not hasattr(result, '__arrow_c_stream__')
    assert not hasattr(fastdigest.digest_array('md5', pa.chunked_array([[b'a']])), '__arrow_c_array__')


# md5(b'345') ends in a zero byte, which NumPy's fixed-width bytes would drop from the item.
ENDS_IN_ZERO = b'345'


def results_of_each_kind():
    """A DigestArray and a DigestStream of two chunks, binary and hex, over values with a null and a digest
    that ends in a zero byte: (result, the values hashed, hex)."""
    values = [b'a', None, ENDS_IN_ZERO]
    for hex in (False, True):
        yield fastdigest.digest_array('md5', pa.array(values), hex=hex), values, hex
        yield fastdigest.digest_array('md5', pa.chunked_array([values[:1], [], values[1:]]), hex=hex), values, hex


def test_results_are_sequences_of_python_values():
    assert hashlib.md5(ENDS_IN_ZERO).digest().endswith(b'\x00')
    for result, values, hex in results_of_each_kind():
        want = expected('md5', values, hex)
        assert result.to_pylist() == list(result) == [result[i] for i in range(len(result))] == want
        assert result[-1] == want[-1] and result[-3] == want[0]
        for index in (3, -4):
            with pytest.raises(IndexError, match='index out of range'):
                result[index]
        with pytest.raises(TypeError):
            result[0:1]
    empty = fastdigest.digest_array('sha1', pa.chunked_array([], pa.binary()))
    assert empty.to_pylist() == list(empty) == []


def test_results_become_numpy_object_arrays():
    np = pytest.importorskip('numpy', reason='numpy (test extra) is not installed or has no wheel here')
    for result, values, hex in results_of_each_kind():
        array = np.asarray(result)
        assert array.dtype == object and array.shape == (3,)
        assert array.tolist() == expected('md5', values, hex)  # the zero byte kept
        with pytest.raises(ValueError, match='cannot become a NumPy array without a copy'):
            np.array(result, copy=False)
    hex_result = fastdigest.digest_array('md5', pa.array([b'a']), hex=True)
    assert np.asarray(hex_result, dtype='U32').tolist() == [hashlib.md5(b'a').hexdigest()]


def test_results_where_users_put_them():
    """A result assigned to a pandas column, or given to pd.Series, pd.array, polars or list(), holds the
    digests, one a row: never the result object itself in every row."""
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    for result, values, hex in results_of_each_kind():
        want = expected('md5', values, hex)
        frame = pd.DataFrame({'n': range(3)})
        frame['digest'] = result
        for column in (frame['digest'], pd.Series(result), pd.array(result)):
            assert [None if pd.isna(v) else v for v in column] == want
        assert list(result) == want
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    for result, values, hex in results_of_each_kind():
        assert pl.Series(result).to_list() == expected('md5', values, hex)


def result_name(result):
    """The name a DigestArray gives its column, read from its Arrow schema."""
    return pa.Field._import_from_c_capsule(result.__arrow_c_array__()[0]).name


def test_row_results_are_named_after_their_function():
    batch = pa.record_batch({'id': [1, 2], 'email': ['a', None]})
    assert result_name(fastdigest.digest_rows('md5', batch)) == 'digest_rows'
    assert result_name(fastdigest.surrogate_key(batch, ['id'])) == 'surrogate_key'
    assert result_name(fastdigest.digest_array('md5', batch.column(1))) == ''
    assert result_name(fastdigest.digest_array('md5', pa.record_batch({'email': ['a']}))) == 'email'
    pl = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    frame = pl.DataFrame({'id': [1, 2], 'email': ['a', None]})
    assert pl.Series(fastdigest.digest_rows('md5', frame)).name == 'digest_rows'
    assert pl.Series(fastdigest.surrogate_key(frame, ['id'])).name == 'surrogate_key'
    assert pl.Series(fastdigest.digest_array('md5', frame['email'])).name == 'email'


def test_a_duckdb_connection_is_told_to_pass_a_relation():
    """con.execute(query) returns the connection, which exports nothing: the error says what to pass."""
    duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')
    con = duckdb.connect()
    # The type's name is DuckDBPyConnection or, in some DuckDB releases, _duckdb.DuckDBPyConnection.
    hint = r'not (_duckdb\.)?DuckDBPyConnection ' + re.escape(
        '(con.execute() returns the connection: pass a relation, con.sql(query)'
    )
    with pytest.raises(TypeError, match='digest_rows\\(\\) argument 2 .*' + hint):
        fastdigest.digest_rows('md5', con.execute('SELECT 1 AS a'))
    with pytest.raises(TypeError, match='surrogate_key\\(\\) argument 1 .*' + hint):
        fastdigest.surrogate_key(duckdb.connect().execute('SELECT 1 AS a'), ['a'])
    assert fastdigest.digest_rows('md5', duckdb.connect().sql('SELECT 1 AS a')).to_pylist() == [
        hashlib.md5(b'\x01' + (1).to_bytes(8, 'little')).digest()
    ]


# ---- pandas DataFrames ----------------------------------------------------------------------------------------


def hashed_rows(function, table, columns):
    result = function(table, columns)
    return (pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)).to_pylist()


ROW_FUNCTIONS = {
    'digest_rows': lambda table, columns: fastdigest.digest_rows('sha256', table, columns),
    'surrogate_key': lambda table, columns: fastdigest.surrogate_key(table, columns),
}


@pytest.mark.parametrize('function', ROW_FUNCTIONS)
def test_pandas_columns_not_named_are_not_converted(function):
    """pandas' own export converts every column: one that pyarrow cannot convert failed the call though it
    was not hashed. Only the columns named are converted."""
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    hash_rows = ROW_FUNCTIONS[function]
    frame = pd.DataFrame({'id': [1, 2], 'email': ['a', None], 'obj': [object(), {1, 2}]})
    want = hashed_rows(hash_rows, pa.table({'email': ['a', None], 'id': [1, 2]}), ['email', 'id'])
    assert hashed_rows(hash_rows, frame, ['email', 'id']) == want
    assert hashed_rows(hash_rows, frame, ('email', 'id', 'email'))[0] != want[0]  # a name may repeat
    # Labels that are no str are named as Table.from_pandas names them; two unnamed columns of one label
    # are refused only where they are asked for.
    numbered = pd.DataFrame([[1, 'x', 'y'], [2, 'z', 'w']], columns=[0, 'a', 'a'])
    assert hashed_rows(hash_rows, numbered, ['0']) == hashed_rows(hash_rows, pa.table({'0': [1, 2]}), ['0'])
    with pytest.raises(ValueError, match=re.escape("%s(): the table has 2 columns named 'a': rename" % function)):
        hash_rows(numbered, ['a'])


@pytest.mark.parametrize('function', ROW_FUNCTIONS)
def test_pandas_missing_column_is_told_as_for_arrow(function):
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    hash_rows = ROW_FUNCTIONS[function]
    for columns, want in [
        ({'a': [1], 'b': [2]}, "'a', 'b')"),
        ({'c%d' % i: [i] for i in range(25)}, "'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10', "
         "'c11', 'c12', 'c13', 'c14', 'c15', 'c16', 'c17', 'c18', 'c19', ... (25 in all))"),
    ]:  # fmt: skip
        for table in (pd.DataFrame(columns), pa.table(columns)):
            with pytest.raises(KeyError) as raised:
                hash_rows(table, ['b', 'nope'] if 'b' in columns else ['c1', 'nope'])
            assert raised.value.args == ("%s(): the table has no column 'nope' (its columns: %s" % (function, want),)


def test_pandas_index_is_not_hashed():
    """pandas' own export adds the index as a column unless it is a RangeIndex: the same rows hashed
    differently after a sort or a filter, and a one-column frame became rows of two. The index is left out."""
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    frame = pd.DataFrame({'email': ['c', 'a', None], 'n': [3, 1, 2]}, index=['x', 'y', 'z'])
    arrow = pa.table({'email': ['c', 'a', None], 'n': [3, 1, 2]})
    assert hashed_rows(lambda t, c: fastdigest.digest_rows('md5', t, c), frame, None) == hashed_rows(
        lambda t, c: fastdigest.digest_rows('md5', t, c), arrow, None
    )
    emails = frame[['email']].sort_values('email')
    assert not isinstance(emails.index, pd.RangeIndex)
    assert pa.chunked_array(fastdigest.digest_array('md5', emails)).to_pylist() == expected('md5', ['a', 'c', None])
    # A frame of no columns, or rows of no columns: a digest of the empty row for each of the frame's rows.
    empty_row = [hashlib.md5(b'').digest()] * 3
    assert pa.chunked_array(fastdigest.digest_rows('md5', frame, [])).to_pylist() == empty_row
    assert pa.chunked_array(fastdigest.digest_rows('md5', frame[[]])).to_pylist() == empty_row


def test_pandas_without_pyarrow_says_so(monkeypatch):
    pd = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    monkeypatch.setitem(__import__('sys').modules, 'pyarrow', None)
    with pytest.raises(ImportError, match=re.escape('digest_rows() reads a pandas DataFrame through pyarrow')):
        fastdigest.digest_rows('md5', pd.DataFrame({'a': [1]}))


@pytest.mark.threads
def test_threads_share_one_column():
    values = sample_values(random.Random(5), 20000, False)
    array = pa.array(values, pa.binary())
    want = expected('sha256', values)
    results = []

    def work():
        for _ in range(3):
            results.append(pa.array(fastdigest.digest_array('sha256', array)).to_pylist() == want)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 12


# ---- threads ----------------------------------------------------------------------------------------

# Enough rows for four threads' parts (16,384 rows each at least, in whole chunks of 4,096), so that
# threads=2, 3 and 4 each really split the column, at seams that differ between them.
SPLIT_ROWS = 70_000


@functools.cache
def split_column():
    """SPLIT_ROWS ASCII values (short, so that hashlib's reference stays quick), a tenth null, and their
    SHA-256 digests as a pyarrow array to compare results with; made once (not a fixture, which hypothesis
    would print whole with a failing example)."""
    values = sample_values(random.Random(6), SPLIT_ROWS, False, null_share=0.1, max_len=24)
    values = [None if v is None else v.hex().encode() for v in values]
    return values, pa.array(expected('sha256', values), pa.binary(32))


def digests_of(column, **options):
    result = fastdigest.digest_array('sha256', column, **options)
    return pa.array(result) if hasattr(result, '__arrow_c_array__') else pa.chunked_array(result)


@pytest.mark.threads
@pytest.mark.parametrize('type_name', TYPES)
def test_threads_split_every_layout(type_name):
    # Sliced at an odd offset: each part's first row is an odd slot of the input's buffers and bitmap.
    values, want = split_column()
    arrow_type = TYPES[type_name]
    column = pa.array([v.decode() if v is not None and is_text(arrow_type) else v for v in values], arrow_type)
    column, want = column.slice(5, SPLIT_ROWS - 12), want.slice(5, SPLIT_ROWS - 12)
    for threads in (1, 2, 3, 4, None):
        assert digests_of(column, threads=threads).equals(want), threads
    hex_want = digests_of(column, hex=True, threads=1)
    assert hex_want.to_pylist() == [None if d is None else d.hex() for d in want.to_pylist()]
    assert digests_of(column, hex=True, threads=3).equals(hex_want)


@pytest.mark.threads
def test_threads_split_chunks_and_structs():
    values, want = split_column()
    chunked = pa.chunked_array([values[:40_000], values[40_000:]], pa.binary())
    assert digests_of(chunked, threads=4).equals(pa.chunked_array([want[:40_000], want[40_000:]]))
    # A one-column record batch: the struct's own nulls too, on every part.
    mask = pa.array([i % 9 == 0 for i in range(SPLIT_ROWS)])
    struct = pa.StructArray.from_arrays([pa.array(values, pa.binary())], names=['s'], mask=mask)
    struct_want = pa.array([None if i % 9 == 0 else d for i, d in enumerate(want.to_pylist())], pa.binary(32))
    for threads in (1, 3):
        assert digests_of(struct.slice(3), threads=threads).equals(struct_want.slice(3))


@pytest.mark.threads
@settings(max_examples=examples(25), deadline=None)
@given(start=st.integers(0, SPLIT_ROWS), length=st.integers(0, SPLIT_ROWS), threads=st.integers(1, 6))
def test_threads_any_slice(start, length, threads):
    values, want = split_column()
    column = pa.array(values, pa.large_binary()).slice(start, length)
    assert digests_of(column, threads=threads).equals(want.slice(start, length))


def test_threads_argument():
    array = pa.array([b'a', None])
    want = expected('md5', [b'a', None])
    for threads in (1, 4, None, 2**63, 10**100):  # beyond Py_ssize_t: as many as there may be parts
        assert pa.array(fastdigest.digest_array('md5', array, threads=threads)).to_pylist() == want

    class Count:
        def __index__(self):
            return 2

    assert pa.array(fastdigest.digest_array('md5', array, threads=Count())).to_pylist() == want
    for threads in (0, -1, -(10**100)):
        message = 'digest_array(): threads must be at least 1 or None, not %d' % threads
        with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
            fastdigest.digest_array('md5', array, threads=threads)
    for threads, type_name in [(True, 'bool'), (2.0, 'float'), ('2', 'str'), ([2], 'list')]:
        message = 'digest_array(): threads must be an int or None, not %s' % type_name
        with pytest.raises(TypeError, match='^%s$' % re.escape(message)):
            fastdigest.digest_array('md5', array, threads=threads)


# ---- errors -----------------------------------------------------------------------------------------


def test_unions_and_unknown_formats_raise_type_error_naming_the_format():
    union = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(['a', 'b'])])
    with pytest.raises(TypeError, match=re.escape("cannot hash Arrow format '+us:0,1' (a sparse union)")):
        fastdigest.digest_array('sha256', union)
    with pytest.raises(TypeError, match="cannot hash Arrow format 'x'"):
        fastdigest.digest_array('sha256', RawColumn('x', 0, []))


def test_dictionary_hashes_as_decoded_and_wide_tables_as_rows():
    decoded = pa.array(['a', None, 'bc', 'a'])
    assert pa.array(fastdigest.digest_array('sha256', decoded.dictionary_encode())).equals(
        pa.array(fastdigest.digest_array('sha256', decoded))
    )
    table = pa.table({'a': ['x'], 'b': ['y']})
    assert pa.chunked_array(fastdigest.digest_array('md5', table)).to_pylist() == [
        hashlib.md5(b'\x01' + (1).to_bytes(8, 'little') + b'x' + b'\x01' + (1).to_bytes(8, 'little') + b'y').digest()
    ]


def test_bad_arguments():
    with pytest.raises(ValueError) as raised:
        fastdigest.digest_array('sha3_256', pa.array([b'a']))
    assert str(raised.value) == unsupported('sha3_256')
    with pytest.raises(TypeError, match='str or a fastdigest constructor'):
        fastdigest.digest_array(hashlib.sha256, pa.array([b'a']))
    with pytest.raises(TypeError, match='Arrow PyCapsule interface'):
        fastdigest.digest_array('sha256', [b'a', b'b'])
    with pytest.raises(TypeError, match='unexpected keyword'):
        fastdigest.digest_array('sha256', pa.array([b'a']), hexadecimal=True)
    with pytest.raises(TypeError):
        fastdigest.digest_array('sha256')
    with pytest.raises(TypeError):
        fastdigest.digest_array('sha256', pa.array([b'a']), True)


class Exporter:
    """Hands out given capsules through the PyCapsule interface."""

    def __init__(self, array=None, stream=None):
        if array is not None:
            self.__arrow_c_array__ = lambda requested_schema=None: array()
        if stream is not None:
            self.__arrow_c_stream__ = lambda requested_schema=None: stream()


def test_consumed_capsules_raise_value_error():
    pair = pa.array([b'a']).__arrow_c_array__()
    assert pa.array(fastdigest.digest_array('md5', Exporter(array=lambda: pair))).to_pylist() == expected('md5', [b'a'])
    with pytest.raises(ValueError, match='already consumed'):
        fastdigest.digest_array('md5', Exporter(array=lambda: pair))
    stream = pa.chunked_array([[b'a']]).__arrow_c_stream__()
    fastdigest.digest_array('md5', Exporter(stream=lambda: stream))
    with pytest.raises(ValueError, match='already consumed'):
        fastdigest.digest_array('md5', Exporter(stream=lambda: stream))


def test_malformed_exports():
    schema, array = pa.array([b'a']).__arrow_c_array__()
    with pytest.raises(ValueError, match="named 'arrow_array'"):
        fastdigest.digest_array('md5', Exporter(array=lambda: (schema, schema)))
    with pytest.raises(TypeError, match='tuple of two capsules'):
        fastdigest.digest_array('md5', Exporter(array=lambda: schema))
    with pytest.raises(TypeError, match='PyCapsule'):
        fastdigest.digest_array('md5', Exporter(array=lambda: (schema, 'not a capsule')))
    with pytest.raises(ZeroDivisionError):
        fastdigest.digest_array('md5', Exporter(array=lambda: 1 / 0))
    # None of the failed calls consumed the capsules.
    assert pa.array(fastdigest.digest_array('md5', Exporter(array=lambda: (schema, array)))).to_pylist() == [
        hashlib.md5(b'a').digest()
    ]


def test_stream_errors_are_raised():
    def batches():
        yield pa.record_batch({'s': ['a']})
        raise ValueError('the producer broke')

    reader = pa.RecordBatchReader.from_batches(pa.schema({'s': pa.string()}), batches())
    with pytest.raises((ValueError, OSError), match='the producer broke'):
        fastdigest.digest_array('sha256', reader)


# Raw C Data Interface structs, malformed in ways a producer may get wrong, built with ctypes (arrow_raw).


@pytest.fixture(autouse=False)
def little_endian():
    import sys

    if sys.byteorder != 'little':
        pytest.skip('the raw structs here are written little-endian')


def test_raw_struct_valid(little_endian):
    RELEASED.clear()
    raw = RawColumn('z', 3, [None, int32s(0, 1, 1, 4), b'abcd'])
    assert pa.array(fastdigest.digest_array('md5', raw)).to_pylist() == expected('md5', [b'a', b'', b'bcd'])
    assert sorted(RELEASED) == ['array', 'schema']  # both moved out and released after hashing
    sliced = RawColumn('U', 2, [None, int64s(0, 1, 1, 4), b'abcd'], offset=1)
    assert pa.array(fastdigest.digest_array('md5', sliced)).to_pylist() == expected('md5', [b'', b'bcd'])
    views = RawColumn('vz', 2, [None, view(3, b'abc') + view(20, b'x' * 20, 0, 5), b'.' * 5 + b'x' * 20, int64s(25)])
    assert pa.array(fastdigest.digest_array('md5', views)).to_pylist() == expected('md5', [b'abc', b'x' * 20])
    all_empty_no_data = RawColumn('u', 2, [None, int32s(3, 3, 3), None])
    assert pa.array(fastdigest.digest_array('md5', all_empty_no_data)).to_pylist() == expected('md5', [b'', b''])


@pytest.mark.parametrize(
    'fmt, length, buffers, offset, message',
    [
        ('z', 2, [None, int32s(0, 3, 1), b'abc'], 0, 'row 1 ends at 1, before its start 3'),
        ('z', 2, [None, int32s(-1, 3, 1), b'abc'], 0, 'offset of row 0 is negative'),
        ('z', 1, [None, int32s(0, 3), None], 0, 'data buffer is null under 3 bytes'),
        ('z', 1, [None, None, b'abc'], 0, 'offsets buffer is null under 1 rows'),
        ('z', 1, [None, int32s(0, 3)], 0, 'has 3 buffers, not 2'),
        ('z', -1, [None, int32s(0), b''], 0, 'length is negative'),
        ('z', 1, [None, int32s(0, 1), b'a'], -1, 'offset is negative'),
        ('z', 2**62, [None, int32s(0, 1), b'a'], 2**62, 'out of range'),
        ('vz', 1, [None, view(20, b'x' * 20, 1, 0), b'x' * 20, int64s(20)], 0, 'data buffer 1 of 1'),
        ('vz', 1, [None, view(20, b'x' * 20, 0, 1), b'x' * 20, int64s(20)], 0, 'outside data buffer 0'),
        ('vz', 1, [None, view(20, b'x' * 20, 0, -5), b'x' * 20, int64s(20)], 0, 'outside data buffer 0'),
        ('vz', 1, [None, int32s(-3) + bytes(12), int64s()], 0, 'negative view length'),
        ('vz', 1, [None, view(1, b'a'), b'x', int64s(-1)], 0, 'negative size'),
        ('vz', 1, [None, view(13, b'x' * 13), None, int64s(13)], 0, 'data buffer 0 of 13 bytes is null'),
        ('vz', 1, [None, view(1, b'a')], 0, 'at least 3 buffers'),
    ],
)
def test_raw_struct_inconsistent_raises_value_error(little_endian, fmt, length, buffers, offset, message):
    RELEASED.clear()
    raw = RawColumn(fmt, length, buffers, offset=offset)
    with pytest.raises(ValueError, match=message):
        fastdigest.digest_array('sha256', raw)
    assert sorted(RELEASED) == ['array', 'schema']


def test_raw_struct_null_view_is_not_read(little_endian):
    # A null row's view may hold anything: it is never read.
    raw = RawColumn('vz', 2, [bytes([0b10]), int32s(99, 7, 7, 7) + view(1, b'a'), int64s()], null_count=1)
    assert pa.array(fastdigest.digest_array('sha1', raw)).to_pylist() == [None, hashlib.sha1(b'a').digest()]
