"""The code blocks of the README, CONTRIBUTING.md and the documentation (docs/**/*.md), for the tests that run
them: tests/test_docs_examples.py runs every ```python and ```console block a reader can run as it stands;
a block that needs what the quick tier does without (a Spark session, a cluster of worker processes) says
which test runs it, in its title: ```python title="Run by tests/test_spark.py: REASON"; that test runs it
as written, with run_python(), in a folder of write_fixtures()' files.
"""

import re
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / 'README.md', ROOT / 'CONTRIBUTING.md', *sorted((ROOT / 'docs').rglob('*.md'))]

FENCE = re.compile(r'^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^`]*)$')
NOT_RUN = re.compile(r'title="Not run: [^"]+"')
RUN_BY = re.compile(r'title="Run by tests/(?P<test>test_\w+\.py): [^"]+"')
# The examples' optional libraries (test extras): a page that needs one that is missing is skipped, saying
# which; any other failure fails.
OPTIONAL_MODULES = {'dask', 'distributed', 'duckdb', 'numpy', 'pandas', 'polars', 'pyarrow', 'pyspark'}

# The email column of users.parquet and of users/ (whose ids are the positions), every seventh null.
EMAILS = ['user%d@example.com' % n if n % 7 else None for n in range(100)]


class Block:
    def __init__(self, path, line, language, info, text):
        self.path, self.line, self.language, self.info, self.text = path, line, language, info, text

    @property
    def where(self):
        return '%s:%d' % (self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path, self.line)

    @property
    def page(self):
        return str(self.path.relative_to(ROOT))

    @property
    def run_by(self):
        """The test file that runs this block instead of tests/test_docs_examples.py, or None."""
        found = RUN_BY.search(self.info) if self.language == 'python' else None
        return found['test'] if found else None

    @property
    def runs(self):
        """Whether tests/test_docs_examples.py runs it."""
        if self.language == 'console':
            return True
        return self.language == 'python' and not NOT_RUN.search(self.info) and self.run_by is None


def fenced_blocks(path, text=None):
    """The fenced code blocks of a Markdown file: language, info string, text (indentation removed) and the
    line of the opening fence (1-based)."""
    lines = (path.read_text(encoding='utf-8') if text is None else text).split('\n')
    blocks = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, info = opening['indent'], opening['fence'], opening['info'].strip()
        body = []
        j = i + 1
        while j < len(lines) and not re.fullmatch(r' *' + fence + r'`*\s*', lines[j]):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        assert j < len(lines), '%s:%d: a code block that is never closed' % (path, i + 1)
        language = info.split()[0] if info else ''
        blocks.append(Block(path, i + 1, language, info, '\n'.join(body) + '\n'))
        i = j + 1
    return blocks


def run_by(test_file):
    """The blocks whose title says that test_file (as 'test_spark.py') runs them, in the order of the pages."""
    return [block for path in DOCUMENTS for block in fenced_blocks(path) if block.run_by == test_file]


def write_fixtures(folder):
    """The files the examples read: hello.txt, world.txt, notes/ (todo.txt, 2026/plan.txt), and with pyarrow
    users.parquet (an email column), users/ (two Parquet files of id and email) and orders/ (customer_id,
    order_date, amount)."""
    (folder / 'hello.txt').write_bytes(b'hello\n')
    (folder / 'world.txt').write_bytes(b'world\n')
    (folder / 'notes' / '2026').mkdir(parents=True)
    (folder / 'notes' / 'todo.txt').write_bytes(b'buy milk\n')
    (folder / 'notes' / '2026' / 'plan.txt').write_bytes(b'hash everything\n')
    try:
        import datetime
        import decimal

        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return  # the examples that read them skip, naming pyarrow
    pq.write_table(pa.table({'email': EMAILS}), folder / 'users.parquet')
    for name in ('users', 'orders'):
        (folder / name).mkdir()
    for part in range(2):
        rows = range(part * 50, (part + 1) * 50)
        users = pa.table({'id': list(rows), 'email': EMAILS[rows.start : rows.stop]})
        pq.write_table(users, folder / 'users' / ('part-%d.parquet' % part))
        orders = pa.table({
            'customer_id': ['c-%d' % (n % 13) if n % 11 else None for n in rows],
            'order_date': [datetime.date(2024, 1, 1) + datetime.timedelta(days=n) if n % 5 else None for n in rows],
            'amount': pa.array([decimal.Decimal(n * 7 - 100).scaleb(-2) for n in rows], pa.decimal128(12, 2)),
        })  # fmt: skip
        pq.write_table(orders, folder / 'orders' / ('part-%d.parquet' % part))


def run_python(block, namespace):
    """Runs a ```python block in namespace; a failure names the page and line. A block that needs an optional
    library that is not installed skips the test, saying which."""
    # Leading newlines put each line at its own line number in the page, so a traceback names the page's line.
    code = compile('\n' * block.line + block.text, str(block.path), 'exec')
    try:
        exec(code, namespace)
    except ModuleNotFoundError as error:
        if (error.name or '').split('.')[0] in OPTIONAL_MODULES:
            pytest.skip('%s needs %s (a test extra), which is not installed here' % (block.where, error.name))
        raise AssertionError('%s: the example failed:\n%s' % (block.where, traceback.format_exc())) from None
    except Exception:
        raise AssertionError('%s: the example failed:\n%s' % (block.where, traceback.format_exc())) from None
