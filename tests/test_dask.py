"""digest_array on Dask: a Parquet dataset's string column hashed inside map_partitions, on a real
dask.distributed cluster of worker processes; every row checked against hashlib.

This is the Dask recipe of docs/columns.md, run as written: its block that connects a client (titled "Run by
tests/test_dask.py") and then the block that maps the partitions, on the files tests/docs_blocks.py writes.
Each partition's column goes to digest_array through the Arrow PyCapsule interface (pa.array() makes one from
any pandas), and the digests come back as an Arrow-backed pandas column without a Python object per row. The
recipe's function then hashes a larger dataset on the same cluster.
"""

import hashlib
import os

import pytest

# Heavy tier: a dask.distributed cluster of worker processes.
pytestmark = pytest.mark.heavy

for module in ('pyarrow', 'pandas', 'dask', 'distributed'):
    pytest.importorskip(
        module, reason='%s (test extra) is not installed or has no wheel for this Python' % module
    )  # fmt: skip

import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from docs_blocks import EMAILS, fenced_blocks, run_by, run_python, write_fixtures  # noqa: E402

if os.environ.get('FASTDIGEST_BACKEND') == 'portable':
    pytest.skip('the portable-backend pass of the suite: dask runs the same digest_array as the default pass, '
                'whose kernels tests/test_arrow.py checks under both backends', allow_module_level=True)  # fmt: skip
if 'libasan' in os.environ.get('LD_PRELOAD', ''):
    pytest.skip('worker processes under the preloaded sanitizer runtime are out of scope here (the '
                'sanitizer job runs tests/test_arrow.py for the same code)', allow_module_level=True)  # fmt: skip


def write_dataset(directory, files=4, rows_per_file=5000):
    """Parquet files with several row groups each; some rows null, some empty, some long."""
    emails = []
    for f in range(files):
        values = []
        for i in range(rows_per_file):
            n = f * rows_per_file + i
            values.append(None if n % 11 == 0 else '' if n % 97 == 0 else 'user%d@example.com' % n + 'x' * (n % 300))
        pq.write_table(pa.table({'id': range(f * rows_per_file, (f + 1) * rows_per_file), 'email': values}),
                       directory / ('part-%d.parquet' % f), row_group_size=1500)  # fmt: skip
        emails += values
    return emails


def recipe_blocks():
    """The block of docs/columns.md that connects a client, and the one after it that maps the partitions."""
    [connect] = run_by('test_dask.py')
    following = [block for block in fenced_blocks(connect.path) if block.line > connect.line]
    return connect, next(block for block in following if block.language == 'python')


@pytest.fixture(scope='module')
def recipe(tmp_path_factory):
    """The recipe, run as written in a folder of the files it reads: the names it defined (client,
    add_sha256, ...). The client it connected is shut down, with its cluster, after the module's tests."""
    folder = tmp_path_factory.mktemp('recipe')
    write_fixtures(folder)
    namespace = {'__name__': '__docs_example__'}
    previous = os.getcwd()
    os.chdir(folder)
    try:
        for block in recipe_blocks():
            run_python(block, namespace)
    finally:
        os.chdir(previous)
    namespace['folder'] = folder
    yield namespace
    if 'client' in namespace:
        namespace['client'].shutdown()


def test_the_recipe_as_written(recipe):
    client = recipe['client']
    # The work ran in worker processes, not in this one.
    workers = client.run(os.getpid)
    assert workers and os.getpid() not in workers.values()
    result = pd.read_parquet(recipe['folder'] / 'users_hashed').sort_values('id')
    assert list(result['id']) == list(range(len(EMAILS)))
    got = [None if pd.isna(v) else v for v in result['email_sha256']]
    assert got == [None if e is None else hashlib.sha256(e.encode()).hexdigest() for e in EMAILS]


def test_map_partitions_on_worker_processes(recipe, tmp_path):
    emails = write_dataset(tmp_path)
    frame = dd.read_parquet(str(tmp_path))
    meta = frame._meta.assign(email_sha256=pd.Series(pd.arrays.ArrowExtensionArray(pa.array([], pa.string()))))
    result = frame.map_partitions(recipe['add_sha256'], meta=meta).compute()
    assert frame.npartitions >= 2

    result = result.sort_values('id')
    assert list(result['id']) == list(range(len(emails)))
    got = [None if pd.isna(v) else v for v in result['email_sha256']]
    want = [None if e is None else hashlib.sha256(e.encode()).hexdigest() for e in emails]
    assert got == want
