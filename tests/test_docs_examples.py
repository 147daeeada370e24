"""The examples of the README, CONTRIBUTING.md and the documentation (docs/**/*.md) run, so they cannot rot.

Every ```python block runs, in the order of its page, with the page's blocks sharing one namespace, in a
scratch folder that holds the files the examples name (hello.txt, world.txt, notes/, users.parquet, users/). A
block that is not meant to run says so where a reader sees it, in its title: ```python title="Not run:
REASON"; it must still compile. In ```console blocks every `$ COMMAND` line is run by bash in the same
folder, with `fastdigest` meaning this interpreter's `python -m fastdigest`, and its standard output must
be the lines below it; only fastdigest, printf, echo and cat may be called there. ```sh blocks (installs,
the test commands) are shown, not run.

The reference (docs/reference/index.md) is rendered from the stubs' docstrings: every public name of
fastdigest must be in it, and have a docstring in the stub.
"""

import ast
import os
import re
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if not (ROOT / 'docs' / 'reference' / 'index.md').exists():
    pytest.skip('the documentation is not beside these tests (a copy of tests/ run against an installed '
                'package): the run in the checkout checks it', allow_module_level=True)  # fmt: skip
DOCUMENTS = [ROOT / 'README.md', ROOT / 'CONTRIBUTING.md', *sorted((ROOT / 'docs').rglob('*.md'))]

FENCE = re.compile(r'^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^`]*)$')
NOT_RUN = re.compile(r'title="Not run: [^"]+"')
# The examples' optional libraries (test extras): a page that needs one that is missing is skipped, saying
# which; any other failure fails.
OPTIONAL_MODULES = {'dask', 'distributed', 'duckdb', 'numpy', 'pandas', 'polars', 'pyarrow', 'pyspark'}
CONSOLE_PROGRAMS = {'fastdigest', 'printf', 'echo', 'cat'}

# dask's Parquet reader calls pandas 3.1's deprecated inplace= (dask's code, not the examples').
pytestmark = pytest.mark.filterwarnings('ignore:The inplace keyword in DataFrame')


class Block:
    def __init__(self, path, line, language, info, text):
        self.path, self.line, self.language, self.info, self.text = path, line, language, info, text

    @property
    def where(self):
        return '%s:%d' % (self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path, self.line)

    @property
    def runs(self):
        return self.language == 'console' or (self.language == 'python' and not NOT_RUN.search(self.info))


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


def write_fixtures(folder):
    """The files the examples read."""
    (folder / 'hello.txt').write_bytes(b'hello\n')
    (folder / 'world.txt').write_bytes(b'world\n')
    (folder / 'notes' / '2026').mkdir(parents=True)
    (folder / 'notes' / 'todo.txt').write_bytes(b'buy milk\n')
    (folder / 'notes' / '2026' / 'plan.txt').write_bytes(b'hash everything\n')
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return  # the examples that read them skip, naming pyarrow
    emails = ['user%d@example.com' % n if n % 7 else None for n in range(100)]
    pq.write_table(pa.table({'email': emails}), folder / 'users.parquet')
    (folder / 'users').mkdir()
    for part in range(2):
        pq.write_table(
            pa.table({'email': emails[part * 50 : (part + 1) * 50]}), folder / 'users' / ('part-%d.parquet' % part)
        )


def run_python(block, namespace):
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


def console_commands(block):
    """[(command, expected standard output)] of a console block."""
    commands = []
    for line in block.text.splitlines():
        if line.startswith('$ '):
            commands.append([line[2:], []])
        else:
            assert commands, '%s: output before the first $ command' % block.where
            commands[-1][1].append(line)
    return [(command, ''.join(out + '\n' for out in output)) for command, output in commands]


def run_console(block, folder):
    commands = console_commands(block)
    script = ['fastdigest() { "$FASTDIGEST_PYTHON" -m fastdigest "$@"; }']
    for n, (command, _expected) in enumerate(commands):
        for segment in re.split(r'\|\||&&|[|;]', command):
            program = segment.split()[0] if segment.split() else ''
            assert program in CONSOLE_PROGRAMS, '%s: `%s` calls %r; console examples may call only %s' % (
                block.where,
                command,
                program,
                ', '.join(sorted(CONSOLE_PROGRAMS)),
            )
        script.append("printf '@@command %d@@'" % n)
        script.append(command)
    environment = dict(os.environ, FASTDIGEST_PYTHON=sys.executable)
    result = subprocess.run(['bash', '-c', '\n'.join(script)], cwd=folder, env=environment,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    outputs = re.split(r'@@command \d+@@', result.stdout)[1:]
    assert len(outputs) == len(commands), '%s: the commands did not all run:\n%s%s' % (
        block.where,
        result.stdout,
        result.stderr,
    )
    for (command, expected), output in zip(commands, outputs, strict=True):
        assert output == expected, '%s: `%s` printed\n%s\ninstead of\n%s\n(stderr: %s)' % (
            block.where,
            command,
            output,
            expected,
            result.stderr,
        )


def run_document(path, folder, text=None):
    namespace = {'__name__': '__docs_example__'}
    ran = 0
    for block in fenced_blocks(path, text):
        if block.language == 'python' and not block.runs:
            compile(block.text, block.where, 'exec')  # a block that is not run still parses
        elif block.runs and block.language == 'python':
            run_python(block, namespace)
            ran += 1
        elif block.runs:
            run_console(block, folder)
            ran += 1
    return ran


def documents_with_examples():
    return [path for path in DOCUMENTS if any(block.runs for block in fenced_blocks(path))]


@pytest.mark.parametrize('path', documents_with_examples(), ids=lambda path: str(path.relative_to(ROOT)))
def test_examples_run(path, tmp_path, monkeypatch):
    write_fixtures(tmp_path)
    monkeypatch.chdir(tmp_path)
    previous_minsize = __import__('fastdigest').get_gil_minsize()
    try:
        assert run_document(path, tmp_path) > 0
    finally:
        __import__('fastdigest').set_gil_minsize(previous_minsize)


def test_every_python_block_is_run_or_says_why():
    for path in DOCUMENTS:
        for block in fenced_blocks(path):
            if block.language == 'python' and 'title=' in block.info:
                assert block.runs or NOT_RUN.search(block.info), block.where
            if block.language == 'python' and not block.runs:
                assert NOT_RUN.search(block.info), '%s: a block that is not run says why' % block.where


BROKEN_PAGE = """# A page whose examples are wrong

```python
import fastdigest

assert fastdigest.sha256(b"abc").hexdigest() == "0" * 64
```
"""

BROKEN_CONSOLE = """```console
$ fastdigest hello.txt
0000000000000000000000000000000000000000000000000000000000000000  hello.txt
```
"""


def test_a_broken_example_fails(tmp_path, monkeypatch):
    """The runner itself: a wrong assertion in a Python example, or a wrong output in a console example,
    fails the test with the page and line, and a right one passes."""
    write_fixtures(tmp_path)
    monkeypatch.chdir(tmp_path)
    page = tmp_path / 'broken.md'
    with pytest.raises(AssertionError, match=r'broken\.md:3: the example failed'):
        run_document(page, tmp_path, BROKEN_PAGE)
    with pytest.raises(AssertionError, match=r'broken\.md:1: `fastdigest hello\.txt` printed'):
        run_document(page, tmp_path, BROKEN_CONSOLE)
    fixed = BROKEN_CONSOLE.replace('0' * 64, '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03')
    assert run_document(page, tmp_path, fixed) == 1


# --- the reference -------------------------------------------------------------------------------------

# hashlib's own objects, passed through (scrypt joins hashlib's __all__, and so fastdigest's, in 3.15).
HASHLIB_PASSED_THROUGH = {
    'blake2b',
    'blake2s',
    'sha3_224',
    'sha3_256',
    'sha3_384',
    'sha3_512',
    'shake_128',
    'shake_256',
    'scrypt',
}


def stub_docstrings(stub):
    """{top-level name: docstring} of a stub: functions (the first overload that has one), classes, and
    attributes with a string statement right after them, in the module body and in the branches of its
    `if sys.version_info ...` blocks (the reference renders the last branch: the newest Python's)."""

    def walk(statements):
        previous = None
        for node in statements:
            if isinstance(node, ast.If):
                walk(node.body)
                walk(node.orelse)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if documented.get(node.name) is None:
                    documented[node.name] = ast.get_docstring(node)
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(previous, ast.AnnAssign)
            ):
                documented[previous.target.id] = node.value.value
            previous = node

    documented = {}
    walk(ast.parse(stub.read_text(encoding='utf-8')).body)
    return documented


@pytest.mark.parametrize('module, page, stub', [
    ('fastdigest', 'docs/reference/index.md', 'fastdigest/__init__.pyi'),
    ('fastdigest.hmac', 'docs/reference/hmac.md', 'fastdigest/hmac.pyi'),
    ('fastdigest.aio', 'docs/reference/aio.md', 'fastdigest/aio.pyi'),
])  # fmt: skip
def test_reference_lists_every_public_name_with_a_docstring(module, page, stub):
    imported = __import__(module, fromlist=['__all__'])
    public = set(imported.__all__) - HASHLIB_PASSED_THROUGH - {'compare_digest'}
    if module == 'fastdigest':
        public |= {'__version__'}
    listed = set(re.findall(r'^::: %s\.(\w+)$' % re.escape(module), (ROOT / page).read_text(), re.MULTILINE))
    assert listed == public, 'missing from %s: %s; not public: %s' % (page, public - listed, listed - public)
    documented = stub_docstrings(ROOT / stub)
    undocumented = sorted(name for name in public if not documented.get(name))
    assert not undocumented, '%s has no docstring for %s' % (stub, undocumented)
