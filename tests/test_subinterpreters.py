"""fastdigest in subinterpreters with their own GIL (concurrent.interpreters, InterpreterPoolExecutor).

Each test runs tests/subinterpreter_program.py in a fresh process, so that the process's first import of
fastdigest happens where the test wants it: in the main interpreter, in several subinterpreters at once, in
an executor's workers. In each interpreter every public name of fastdigest and fastdigest.hmac is called and
checked against that interpreter's own hashlib and hmac (tests/subinterpreter_work.py), while the others do
the same; what the process shares (the kernel choice, the GIL threshold) must read the same everywhere.
"""

import functools
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import fastdigest

pytestmark = [
    pytest.mark.skipif(
        sys.version_info < (3, 14),
        reason='concurrent.interpreters and InterpreterPoolExecutor, the standard library API for interpreters '
        'with their own GIL, exist from Python 3.14 on (PEP 734); before, only the C API creates such interpreters',
    ),
    pytest.mark.threads,
]

TESTS = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(TESTS, 'subinterpreter_program.py')


@functools.cache
def run(mode, **environment):
    """The report of subinterpreter_program.py MODE, run in a new process (once: tests share it)."""
    # A subinterpreter's sys.path is the one the process started with, without the script's folder: the
    # folder of the fastdigest under test (a checkout's, or the installed one's) and this one, first.
    search_path = [os.path.dirname(os.path.dirname(os.path.abspath(fastdigest.__file__))), TESTS]
    full_environment = dict(os.environ, **environment)
    full_environment['PYTHONPATH'] = os.pathsep.join(search_path + [os.environ.get('PYTHONPATH', '')])
    for name in ('FASTDIGEST_BACKEND', 'FASTDIGEST_DISABLE', 'FASTDIGEST_GIL_MINSIZE'):
        if name not in environment:
            full_environment.pop(name, None)
    completed = subprocess.run(
        [sys.executable, PROGRAM, mode], env=full_environment, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, f'{mode}:\n{completed.stderr}'
    return json.loads(completed.stdout)


def summaries(report):
    """The main interpreter's summary and the subinterpreters', each a dict."""
    return json.loads(report['main']), [json.loads(text) for text in report['subinterpreters']]


@pytest.mark.parametrize('mode', ['main-first', 'subinterpreters-first', 'executor'])
def test_every_name_in_interpreters_hashing_at_once(mode):
    main, subinterpreters = summaries(run(mode))
    assert len(subinterpreters) >= 3
    for summary in subinterpreters:
        # One kernel choice, one threshold and the same names and errors in every interpreter of the process.
        assert summary == main
    assert 'digest_array' in main['checked'] and 'hmac.HMAC' in main['checked']
    assert not main['pyarrow_imported']
    # fastdigest needs no Arrow library: an object that is not an Arrow column is refused with a TypeError
    # that says so, in any interpreter.
    assert 'Arrow PyCapsule interface' in main['not_arrow'], main['not_arrow']


def test_later_imports_share_the_processs_threshold_and_kernels():
    report = run('main-first')
    main = json.loads(report['main_settings'])
    assert main['gil_minsize'] == 4321 and set(main['implementation'].values()) != {'portable'}
    # Not FASTDIGEST_GIL_MINSIZE=1 or FASTDIGEST_BACKEND=portable, set in the environment since the first
    # import: the set-up is made once, and an import in another interpreter does not undo it.
    assert [json.loads(text) for text in report['settings_seen']] == [main] * 3


def test_a_failed_first_import_fails_alike_everywhere_and_is_retried():
    report = run('retry', FASTDIGEST_BACKEND='fastest')
    message = "ImportError: FASTDIGEST_BACKEND must be 'portable', 'best' or unset, not 'fastest'"
    # Not remembered as done: each interpreter that imports runs the selection again, and gets the error.
    assert report['failed'] == [message] * 3
    # Once the environment is mended, the next import selects the kernels, whichever interpreter makes it.
    portable = {name: 'portable' for name in json.loads(report['mended'][0])}
    assert [json.loads(text) for text in report['mended']] == [portable] * 2


@pytest.mark.parametrize('library', ['pyarrow', 'polars'])
def test_arrow_libraries_in_subinterpreters(library):
    if importlib.util.find_spec(library) is None:
        pytest.skip(f'{library} is not installed (pip install fastdigest[test-arrow] brings it)')
    outcomes = [json.loads(text) for text in run('arrow-libraries')[library]]
    failures = [outcome for outcome in outcomes if 'failure' in outcome]
    if failures:
        # Theirs, not fastdigest's: the extension modules of pyarrow and polars (Cython, PyO3) refuse to load
        # where the GIL is the interpreter's own. fastdigest's Arrow functions themselves run there, fed by
        # ctypes producers (test_every_name_in_interpreters_hashing_at_once).
        pytest.skip(f'{library} does not work in a subinterpreter with its own GIL: {failures[0]}')
    assert outcomes == [outcomes[0]] * 3
