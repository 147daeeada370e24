"""digest_array on Dask: a Parquet dataset's string column hashed inside map_partitions, on a real
dask.distributed LocalCluster of two worker processes; every row checked against hashlib.

This is the Dask recipe of docs/columns.md, run as written: each partition's column goes to digest_array through
the Arrow PyCapsule interface (a pandas Series exports it; pa.array() makes one from any pandas), and the
digests come back as an Arrow-backed pandas column without a Python object per row.
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
from distributed import Client, LocalCluster  # noqa: E402

import fastdigest  # noqa: E402

if os.environ.get('FASTDIGEST_BACKEND') == 'portable':
    pytest.skip('the portable-backend pass of the suite: dask runs the same digest_array as the default pass, '
                'whose kernels tests/test_arrow.py checks under both backends', allow_module_level=True)  # fmt: skip
if 'libasan' in os.environ.get('LD_PRELOAD', ''):
    pytest.skip('worker processes under the preloaded sanitizer runtime are out of scope here (the '
                'sanitizer job runs tests/test_arrow.py for the same code)', allow_module_level=True)  # fmt: skip


def add_sha256(part):
    """The recipe of docs/columns.md: the digests of part['email'] as a new column, hex strings."""
    digests = fastdigest.digest_array('sha256', pa.array(part['email']), hex=True, threads=1)
    column = pd.arrays.ArrowExtensionArray(pa.chunked_array(digests))  # no copy
    return part.assign(email_sha256=pd.Series(column, index=part.index))


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


@pytest.fixture(scope='module')
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, Client(cluster) as client:
        yield client


def test_map_partitions_on_worker_processes(client, tmp_path):
    emails = write_dataset(tmp_path)
    frame = dd.read_parquet(str(tmp_path))
    meta = frame._meta.assign(email_sha256=pd.Series(pd.arrays.ArrowExtensionArray(pa.array([], pa.string()))))
    hashed = frame.map_partitions(add_sha256, meta=meta)
    result = hashed.compute()

    # The work ran in both worker processes, not in this one.
    workers = client.run(os.getpid)
    assert len(set(workers.values())) == 2 and os.getpid() not in workers.values()
    assert frame.npartitions >= 2

    result = result.sort_values('id')
    assert list(result['id']) == list(range(len(emails)))
    got = [None if pd.isna(v) else v for v in result['email_sha256']]
    want = [None if e is None else hashlib.sha256(e.encode()).hexdigest() for e in emails]
    assert got == want
