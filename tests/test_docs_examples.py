"""The examples of the README, CONTRIBUTING.md and the documentation (docs/**/*.md) run, so they cannot rot.

Every ```python block runs, in the order of its page, with the page's blocks sharing one namespace, in a
scratch folder that holds the files the examples name (hello.txt, world.txt, notes/, users.parquet, users/,
orders/: tests/docs_blocks.py writes them). A block that is not meant to run says so where a reader sees it,
in its title: ```python title="Not run: REASON"; it must still compile. A block that needs what the quick
tier does without (a Spark session, worker processes) names the heavy test that runs it as written,
```python title="Run by tests/test_spark.py: REASON", and is left to that test. In ```console blocks every
`$ COMMAND` line is run by bash in the same folder, with `fastdigest` meaning this interpreter's `python -m
fastdigest`, and its standard output must be the lines below it; only fastdigest, printf, echo and cat may
be called there. ```sh blocks (installs, the test commands) are shown, not run.

The reference (docs/reference/index.md) is rendered from the stubs' docstrings: every public name of
fastdigest must be in it, and have a docstring in the stub.
"""

import ast
import os
import re
import subprocess
import sys

import pytest

from docs_blocks import DOCUMENTS, NOT_RUN, ROOT, RUN_BY, fenced_blocks, run_python, write_fixtures

if not (ROOT / 'docs' / 'reference' / 'index.md').exists():
    pytest.skip('the documentation is not beside these tests (a copy of tests/ run against an installed '
                'package): the run in the checkout checks it', allow_module_level=True)  # fmt: skip

CONSOLE_PROGRAMS = {'fastdigest', 'printf', 'echo', 'cat'}

# dask's Parquet reader calls pandas 3.1's deprecated inplace= (dask's code, not the examples').
pytestmark = pytest.mark.filterwarnings('ignore:The inplace keyword in DataFrame')


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
            if block.language == 'python' and not block.runs:
                assert NOT_RUN.search(block.info) or RUN_BY.search(block.info), (
                    '%s: a block that is not run here says why, or which test runs it' % block.where
                )
            if block.run_by is not None:
                test = ROOT / 'tests' / block.run_by
                assert test.exists(), '%s: the test that runs it, %s, does not exist' % (block.where, block.run_by)
                assert 'run_by(%r)' % block.run_by in test.read_text(), '%s: %s does not run it' % (
                    block.where,
                    block.run_by,
                )


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
    # A block another test runs is left to it (it still has to compile).
    elsewhere = '```python title="Run by tests/test_spark.py: needs Spark"\nraise SystemExit(1)\n```\n'
    assert run_document(page, tmp_path, elsewhere + fixed) == 1
    with pytest.raises(SyntaxError):
        run_document(page, tmp_path, elsewhere.replace('raise', 'raise raise'))


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
