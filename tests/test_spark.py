"""digest_array and surrogate_key on Spark, in a local PySpark session (local[2]), every row checked against
Spark's own SQL: sha2(col, 256) for digest_array, the SQL dbt compiles for Spark for surrogate_key.

The Spark recipes of docs/columns.md, docs/rows.md and docs/surrogate-keys.md (the blocks titled "Run by
tests/test_spark.py") run here as written, on the files tests/docs_blocks.py writes, and their functions
then hash the larger frames below: Spark hands each partition to the Python worker as Arrow record
batches, digest_array hashes the batch's column in place (or digest_rows or surrogate_key its rows), and
the digests go back to Spark as an Arrow column (hex utf8, or binary cast from fixed_size_binary), never a
Python object per row. digest_rows' rows
are checked against hashlib of the bytes docs/encoding.md gives them. PySpark needs Java 17 or later
(`java` on PATH or JAVA_HOME).

dbt-spark overrides dbt's concat (concat(a, b, ...)) and its string type is `string`; dbt's hash is the
default md5(cast(... as string)), so dbt_utils.generate_surrogate_key compiles to

    md5(cast(concat(coalesce(cast(a as string), '_dbt_utils_surrogate_key_null_'), '-', ...) as string))
"""

import hashlib
import os
import shutil
import struct
import sys

import pytest

pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel for this Python')
pytest.importorskip('pyspark', reason='pyspark (test extra) is not installed or has no wheel for this Python')

if not (shutil.which('java') or os.environ.get('JAVA_HOME')):
    pytest.skip('PySpark needs Java 17+ (no java on PATH and no JAVA_HOME)', allow_module_level=True)
if os.environ.get('FASTDIGEST_BACKEND') == 'portable':
    pytest.skip('the portable-backend pass of the suite: Spark runs the same digest_array as the default pass, '
                'whose kernels tests/test_arrow.py checks under both backends', allow_module_level=True)  # fmt: skip
if 'libasan' in os.environ.get('LD_PRELOAD', ''):
    pytest.skip('a JVM under the preloaded sanitizer runtime is out of scope here (the sanitizer job runs '
                'tests/test_arrow.py for the same code)', allow_module_level=True)  # fmt: skip

import pyarrow as pa  # noqa: E402
from pyspark import cloudpickle  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.types import StringType, StructField, StructType  # noqa: E402

import fastdigest  # noqa: E402
from docs_blocks import EMAILS, run_by, run_python, write_fixtures  # noqa: E402

ROWS = 20_000

# Spark's Python workers cannot import this test module: its functions travel by value, as a script's do
# (and the recipes', whose module, a namespace of their own, is importable nowhere).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

RECIPES = {block.page: block for block in run_by('test_spark.py')}


def md5_binary_batches(batches):
    # Spark's BinaryType is Arrow binary: the fixed_size_binary digests are cast (offsets added, the digest
    # bytes shared).
    for batch in batches:
        digests = pa.array(fastdigest.digest_array('md5', batch.column('email'))).cast(pa.binary())
        yield batch.append_column('email_md5', digests)


def dbt_spark_key(columns, separator='-', null='_dbt_utils_surrogate_key_null_'):
    """What dbt compiles generate_surrogate_key(columns) to on Spark."""
    fields = ["coalesce(cast(%s as string), '%s')" % (c, null) for c in columns]
    return 'md5(cast(concat(%s) as string))' % (", '%s', " % separator).join(fields)


# PySpark warns that it does not fully support pandas 3; mapInArrow does not use pandas.
# Heavy tier: a JVM and a Spark session.
pytestmark = [
    pytest.mark.heavy,
    pytest.mark.filterwarnings('ignore:PySpark does not yet fully support pandas:FutureWarning'),
]


@pytest.fixture(scope='module')
def recipe_folder(tmp_path_factory):
    """A folder of the files the recipes read (users/, orders/)."""
    folder = tmp_path_factory.mktemp('recipes')
    write_fixtures(folder)
    return folder


@pytest.fixture(scope='module')
def spark(recipe_folder):
    os.environ.setdefault('PYSPARK_PYTHON', sys.executable)
    os.environ.setdefault('PYSPARK_DRIVER_PYTHON', sys.executable)
    # Spark resolves a relative path against the working directory of its JVM, which is this process's when
    # the session starts: the recipes' 'users/' and 'orders/' are then those of recipe_folder.
    previous = os.getcwd()
    os.chdir(recipe_folder)
    try:
        session = (
            SparkSession.builder.master('local[2]')
            .appName('fastdigest-test')
            .config('spark.ui.enabled', 'false')
            .config('spark.sql.shuffle.partitions', '2')
            .config('spark.sql.execution.arrow.maxRecordsPerBatch', '3000')
            .getOrCreate()
        )
    finally:
        os.chdir(previous)
    yield session
    session.stop()


@pytest.fixture(scope='module')
def recipes(spark):
    """The documentation's Spark recipes, each run as written (its SparkSession.builder.getOrCreate() is the
    session above): {page: the names it defined}."""
    assert set(RECIPES) == {'docs/columns.md', 'docs/rows.md', 'docs/surrogate-keys.md'}
    namespaces = {}
    for page, block in RECIPES.items():
        namespaces[page] = {'__name__': '__docs_example__'}
        run_python(block, namespaces[page])
    return namespaces


def test_the_recipes_as_written(recipes):
    """The DataFrames the recipes end with, every row against Spark's SQL or the encoding."""
    nulls = sum(email is None for email in EMAILS)
    hashed = recipes['docs/columns.md']['hashed']
    assert count_disagreements(hashed, 'email_sha256', F.sha2('email', 256)) == (len(EMAILS), 0, nulls)
    keyed = recipes['docs/surrogate-keys.md']['keyed']
    want = F.expr(dbt_spark_key(['customer_id', 'order_date', 'amount']))
    assert count_disagreements(keyed, 'order_key', want) == (len(EMAILS), 0, 0)
    check_row_digests(recipes['docs/rows.md']['hashed'].collect(), len(EMAILS))


@pytest.fixture(scope='module')
def emails(spark):
    # Nulls, empty strings, long strings and non-ASCII, in 4 partitions of several Arrow batches each.
    return spark.range(0, ROWS, numPartitions=4).select(
        'id',
        F.expr(
            "CASE WHEN id % 13 = 0 THEN NULL WHEN id % 101 = 0 THEN '' "
            "ELSE concat('user', id, '@example.com', repeat('é', CAST(id % 90 AS INT))) END"
        ).alias('email'),
    )


def count_disagreements(frame, ours, theirs):
    """(rows, rows where ours and Spark's differ, null digests), in one Spark job. Null-safe: a null
    email's digest is null on both sides."""
    row = frame.agg(
        F.count(F.lit(1)),
        F.sum(F.when(F.col(ours).eqNullSafe(theirs), 0).otherwise(1)),
        F.sum(F.when(F.col(ours).isNull(), 1).otherwise(0)),
    ).first()
    return tuple(row)


def test_map_in_arrow_against_spark_sha2(emails, recipes):
    schema = StructType(emails.schema.fields + [StructField('email_sha256', StringType())])
    hashed = emails.mapInArrow(recipes['docs/columns.md']['sha256_batches'], schema)
    assert count_disagreements(hashed, 'email_sha256', F.sha2('email', 256)) == (ROWS, 0, len(range(0, ROWS, 13)))


def test_map_in_arrow_binary_digests(emails):
    hashed = emails.mapInArrow(md5_binary_batches, 'id long, email string, email_md5 binary')
    assert count_disagreements(hashed, 'email_md5', F.unhex(F.md5('email'))) == (ROWS, 0, len(range(0, ROWS, 13)))


@pytest.fixture(scope='module')
def orders(spark):
    # Every type surrogate_key takes that Spark has (no unsigned integers), with nulls, over 4 partitions.
    return spark.range(0, ROWS, numPartitions=4).select(
        'id',
        F.expr("CASE WHEN id % 11 = 0 THEN NULL WHEN id % 17 = 0 THEN '' ELSE concat('c-', id, 'é') END").alias(
            'customer_id'
        ),
        F.expr(
            'CASE WHEN id % 7 = 0 THEN NULL ELSE date_add(DATE "0001-01-01", CAST(id * 181 % 3652059 AS INT)) END'
        ).alias('order_date'),
        F.expr('CASE WHEN id % 5 = 0 THEN NULL ELSE CAST((id - 10000) * 7 / 100.0 AS DECIMAL(12, 2)) END').alias(
            'amount'
        ),
        F.expr('CAST(id % 256 - 128 AS TINYINT)').alias('tiny'),
        F.expr('CASE WHEN id % 3 = 0 THEN NULL ELSE id % 2 = 0 END').alias('paid'),
        F.expr('CAST(id * 9973 - 9223372036854775807 AS BIGINT)').alias('big'),
    )


def test_surrogate_key_map_in_arrow_against_dbt_sql(orders, recipes):
    hashed = orders.mapInArrow(
        recipes['docs/surrogate-keys.md']['add_order_key'],
        StructType(orders.schema.fields + [StructField('order_key', StringType())]),
    )
    want = F.expr(dbt_spark_key(['customer_id', 'order_date', 'amount']))
    assert count_disagreements(hashed, 'order_key', want) == (ROWS, 0, 0)


def test_surrogate_key_every_column_against_dbt_sql(spark, orders):
    # On the driver, over the rows Spark hands to Arrow: each column alone, and all of them.
    ordered = orders.orderBy('id')
    table = ordered.toArrow() if hasattr(ordered, 'toArrow') else pa.Table.from_batches(ordered._collect_as_arrow())
    columns = ['customer_id', 'order_date', 'amount', 'tiny', 'paid', 'big']
    for chosen in [[c] for c in columns] + [columns]:
        want = [row[0] for row in orders.orderBy('id').select(F.expr(dbt_spark_key(chosen))).collect()]
        assert pa.chunked_array(fastdigest.surrogate_key(table, chosen)).to_pylist() == want, chosen


def check_row_digests(rows, count):
    """Each row's row_sha256 against hashlib of the bytes docs/encoding.md gives (id, email)."""
    assert len(rows) == count
    for row in rows:
        # docs/encoding.md: an int64 field is 01 and its eight bytes, a string 01, its length and its UTF-8,
        # a null 00.
        message = b'\x01' + struct.pack('<q', row.id)
        if row.email is None:
            message += b'\x00'
        else:
            text = row.email.encode()
            message += b'\x01' + struct.pack('<Q', len(text)) + text
        assert row.row_sha256 == hashlib.sha256(message).hexdigest()


def test_map_in_arrow_rows_against_the_encoding(emails, recipes):
    schema = StructType(emails.schema.fields + [StructField('row_sha256', StringType())])
    check_row_digests(emails.mapInArrow(recipes['docs/rows.md']['row_hash_batches'], schema).collect(), ROWS)
