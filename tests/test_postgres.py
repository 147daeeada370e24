"""surrogate_key against PostgreSQL executing the SQL that dbt compiles for it, row by row.

dbt-postgres overrides none of the macros dbt_utils.generate_surrogate_key calls (hash, concat, type_string), so
dbt compiles the default forms, with dbt's string type TEXT:

    md5(cast(coalesce(cast(a as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(...) as TEXT))

The test starts a PostgreSQL server of its own (Debian's postgresql package: initdb into a scratch folder, a Unix
socket only, run as the postgres user when the tests run as root, which PostgreSQL requires), loads each table
with COPY through psql, and compares every row's key with surrogate_key's over the same Arrow table. PostgreSQL
has no unsigned integers: those columns are loaded as the next wider signed type, or numeric(20,0) for uint64,
whose text is the same digits. The server runs with its defaults (DateStyle ISO, MDY: dates as YYYY-MM-DD).
"""

import datetime
import decimal
import glob
import os
import random
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

import fastdigest

pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')

# Heavy tier: a database server of its own, and apt-get where PostgreSQL is missing.
pytestmark = pytest.mark.heavy

REPO = Path(__file__).resolve().parent.parent
TOKEN = '_dbt_utils_surrogate_key_null_'
EXACT = decimal.Context(prec=100)


def postgres_bin():
    """The folder of initdb and pg_ctl (Debian keeps them out of PATH), installing PostgreSQL with apt-get as
    root when it is missing; None where neither works."""

    def find():
        found = sorted(glob.glob('/usr/lib/postgresql/*/bin/initdb'), key=lambda p: int(p.split('/')[4]))
        if found:
            return os.path.dirname(found[-1])
        initdb = shutil.which('initdb')
        return os.path.dirname(initdb) if initdb else None

    folder = find()
    if folder is None and os.geteuid() == 0 and shutil.which('apt-get'):
        subprocess.run(['bash', '-c', 'source tests/apt.sh && apt_install postgresql'], cwd=REPO, check=True)
        folder = find()
    return folder


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bin_dir, root):
        self.bin_dir, self.root = bin_dir, root
        self.data, self.socket_dir, self.port = root / 'data', root, free_port()
        # PostgreSQL refuses to run as root: then as the postgres user its package creates.
        self.as_user = ['runuser', '-u', 'postgres', '--'] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(root, 'postgres')

    def run(self, program, *args, **kwargs):
        return subprocess.run(
            [*self.as_user, os.path.join(self.bin_dir, program), *args],
            check=True,
            capture_output=True,
            text=True,
            **kwargs,
        )

    def start(self):
        self.run('initdb', '-D', str(self.data), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C')
        options = "-k %s -p %d -c listen_addresses=''" % (self.socket_dir, self.port)
        self.run('pg_ctl', '-D', str(self.data), '-o', options, '-l', str(self.root / 'log'), '-w', 'start')

    def stop(self):
        self.run('pg_ctl', '-D', str(self.data), '-m', 'fast', '-w', 'stop')

    def psql(self, sql):
        """The rows psql prints for sql (unaligned, tuples only), each a list of fields."""
        psql = os.path.join(self.bin_dir, 'psql') if os.path.exists(os.path.join(self.bin_dir, 'psql')) else 'psql'
        result = subprocess.run(
            [
                psql,
                '-h',
                str(self.socket_dir),
                '-p',
                str(self.port),
                '-U',
                'postgres',
                '-X',
                '-q',
                '-A',
                '-t',
                '-F',
                '\x1f',
                '-v',
                'ON_ERROR_STOP=1',
            ],
            input=sql,
            check=True,
            capture_output=True,
            text=True,
            encoding='utf-8',
        )
        return [line.split('\x1f') for line in result.stdout.splitlines()]


@pytest.fixture(scope='module')
def postgres():
    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.skip(
            'PostgreSQL is not installed (Debian: apt-get install postgresql) and cannot be installed here '
            '(not root, or no apt-get)'
        )
    # Directly under the temporary folder: pytest's own (/tmp/pytest-of-root) is closed to the postgres user.
    root = Path(tempfile.mkdtemp(prefix='fastdigest-postgres-'))
    server = Server(bin_dir, root)
    try:
        server.start()
        yield server
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def postgres_type(arrow_type):
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type):
        return 'TEXT'
    if pa.types.is_boolean(arrow_type):
        return 'boolean'
    if pa.types.is_date(arrow_type):
        return 'date'
    if pa.types.is_decimal(arrow_type):
        return 'numeric(%d,%d)' % (arrow_type.precision, arrow_type.scale)
    return {
        pa.int8(): 'int2',
        pa.int16(): 'int2',
        pa.int32(): 'int4',
        pa.int64(): 'int8',
        pa.uint8(): 'int2',
        pa.uint16(): 'int4',
        pa.uint32(): 'int8',
        pa.uint64(): 'numeric(20,0)',
    }[arrow_type]


def csv_field(value):
    """A value as COPY's CSV takes it: NULL unquoted and empty, anything else quoted."""
    if value is None:
        return ''
    if isinstance(value, bool):
        text = 'true' if value else 'false'
    elif isinstance(value, decimal.Decimal):
        text = format(value, 'f')
    elif isinstance(value, datetime.date):
        text = value.isoformat()
    else:
        text = str(value)
    return '"%s"' % text.replace('"', '""')


def postgres_keys(server, table, columns, separator='-', null=TOKEN):
    """PostgreSQL's keys of every row of table: dbt's SQL over the table loaded with COPY."""
    names = table.column_names
    ddl = ', '.join('c%d %s' % (k, postgres_type(table.schema.field(n).type)) for k, n in enumerate(names))
    rows = table.to_pylist()
    data = ''.join('%d,%s\n' % (i, ','.join(csv_field(row[n]) for n in names)) for i, row in enumerate(rows))
    literal = lambda text: "'%s'" % text.replace("'", "''")  # noqa: E731
    fields = ['coalesce(cast(c%d as TEXT), %s)' % (names.index(c), literal(null)) for c in columns]
    key = 'md5(cast(%s as TEXT))' % (' || %s || ' % literal(separator)).join(fields)
    sql = (
        'DROP TABLE IF EXISTS t; CREATE TABLE t (row_number int, %s);\n'
        'COPY t FROM STDIN WITH (FORMAT csv);\n%s\\.\n'
        'SELECT %s FROM t ORDER BY row_number;\n'
    ) % (ddl, data, key)
    return [row[0] for row in server.psql(sql)]


def keys(table, columns, **options):
    return pa.chunked_array(fastdigest.surrogate_key(table, columns, **options)).to_pylist()


def scaled(unscaled, scale):
    return decimal.Decimal(unscaled).scaleb(-scale, context=EXACT)


def test_every_type(postgres):
    rng = random.Random(11)
    n = 400

    def maybe(value):
        return None if rng.random() < 0.15 else value

    def integers(low, high):
        edges = [low, high, 0, 1, low + 1, high - 1]
        return [maybe(edges[i] if i < len(edges) else rng.randrange(low, high + 1)) for i in range(n)]

    pieces = ['-', '', TOKEN, 'é', '€', '\U0001f600', "'", '"', ',', '\n', 'a', '0', ' ', '\\']
    days = [datetime.date(1, 1, 1), datetime.date(9999, 12, 31)] + [
        datetime.date(1, 1, 1) + datetime.timedelta(days=rng.randrange(3_652_059)) for _ in range(n - 2)
    ]
    table = pa.table(
        {
            's': pa.array([maybe(''.join(rng.choice(pieces) for _ in range(rng.randrange(6)))) for _ in range(n)]),
            'i8': pa.array(integers(-(2**7), 2**7 - 1), pa.int8()),
            'i16': pa.array(integers(-(2**15), 2**15 - 1), pa.int16()),
            'i32': pa.array(integers(-(2**31), 2**31 - 1), pa.int32()),
            'i64': pa.array(integers(-(2**63), 2**63 - 1), pa.int64()),
            'u8': pa.array(integers(0, 2**8 - 1), pa.uint8()),
            'u16': pa.array(integers(0, 2**16 - 1), pa.uint16()),
            'u32': pa.array(integers(0, 2**32 - 1), pa.uint32()),
            'u64': pa.array(integers(0, 2**64 - 1), pa.uint64()),
            'b': pa.array([maybe(rng.random() < 0.5) for _ in range(n)]),
            'd': pa.array([maybe(d) for d in days]),
            'd64': pa.array([maybe(d) for d in days[::-1]], pa.date64()),
            'm': pa.array(
                [maybe(scaled(rng.randrange(-(10**10) + 1, 10**10), 2)) for _ in range(n)], pa.decimal128(10, 2)
            ),
            'm0': pa.array(
                [maybe(scaled(rng.randrange(-(10**38) + 1, 10**38), 0)) for _ in range(n)], pa.decimal128(38, 0)
            ),
            'm37': pa.array(
                [maybe(scaled(rng.randrange(-(10**38) + 1, 10**38), 37)) for _ in range(n)], pa.decimal128(38, 37)
            ),
            'm76': pa.array(
                [maybe(scaled(rng.randrange(-(10**76) + 1, 10**76), 20)) for _ in range(n)], pa.decimal256(76, 20)
            ),
        }
    )
    if hasattr(pa, 'decimal32'):  # pyarrow 18+
        decimals = [maybe(scaled(rng.randrange(-(10**9) + 1, 10**9), 3)) for _ in range(n)]
        table = table.append_column('m9', pa.array(decimals, pa.decimal32(9, 3)))
    columns = table.column_names
    assert keys(table, columns) == postgres_keys(postgres, table, columns)
    for column in columns:
        assert keys(table, [column]) == postgres_keys(postgres, table, [column]), column
    assert keys(table, ['s', 'b'], separator='|', null='') == postgres_keys(postgres, table, ['s', 'b'], '|', '')


def test_booleans_are_true_and_false(postgres):
    # PostgreSQL prints a boolean as t or f, but casts it to text as true or false: dbt casts.
    assert postgres.psql('SELECT true, cast(true as TEXT), cast(false as TEXT);') == [['t', 'true', 'false']]
    table = pa.table({'b': [True, False, None]})
    assert keys(table, ['b']) == postgres_keys(postgres, table, ['b'])
