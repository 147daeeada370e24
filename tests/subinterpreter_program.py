"""Run by tests/test_subinterpreters.py in a fresh process (Python 3.14+): python subinterpreter_program.py MODE.

The process's first import of fastdigest happens where MODE says, so that each order is tried from the
start; subinterpreter_work.check_everything then runs in several interpreters with GILs of their own at
once, each against its own hashlib and hmac. MODE is one of:
  main-first      the main interpreter imports fastdigest and checks it, then INTERPRETERS subinterpreters
                  (concurrent.interpreters, each called from a thread of its own) import and check it
                  together; then the main interpreter sets the GIL threshold and changes the
                  environment, and new subinterpreters import fastdigest and read the threshold and kernels
                  the main interpreter has (the process's, made once)
  subinterpreters-first  the subinterpreters import it together first, the main interpreter after them
  executor        an InterpreterPoolExecutor's workers import it first, the main interpreter after them
  retry           FASTDIGEST_BACKEND is wrong (the test sets it): the import fails in a subinterpreter, in
                  another one after it and in the main interpreter, each with the same ImportError; once
                  the environment is mended, the next import in a subinterpreter succeeds, with the portable
                  C, and so does the main interpreter's
  arrow-libraries  for pyarrow and polars, where installed: whether each works in subinterpreters, and
                  where it does, digest_array of a column it makes there, against hashlib
The subinterpreters find the modules through PYTHONPATH, which the test sets (a subinterpreter's sys.path
is made as the main interpreter's was at start-up, without the script's folder). The program prints one
JSON object: the summaries check_everything returned, by interpreter, and what MODE adds; any failure in an
interpreter raises here and ends the program with a traceback.
"""

import importlib.util
import json
import os
import sys
import threading
from concurrent import interpreters
from concurrent.futures import InterpreterPoolExecutor

import subinterpreter_work

MODE = sys.argv[1]
INTERPRETERS = 3


def in_subinterpreters(function, *args):
    """function(*args) in INTERPRETERS new interpreters at once, each called from a thread of its own (a call
    runs in the calling thread); returns the results in order, or raises the first failure."""
    results, failures = [None] * INTERPRETERS, []

    def run(index):
        interpreter = interpreters.create()
        try:
            results[index] = interpreter.call(function, *args, index)
        except BaseException as failure:  # noqa: BLE001 - re-raised below, in the main thread
            failures.append(failure)
        finally:
            interpreter.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(INTERPRETERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results


def in_new_interpreter(function):
    interpreter = interpreters.create()
    try:
        return interpreter.call(function)
    finally:
        interpreter.close()


report = {'mode': MODE}
if MODE == 'main-first':
    report['main'] = subinterpreter_work.check_everything(-1)
    report['subinterpreters'] = in_subinterpreters(subinterpreter_work.check_everything)
    import fastdigest

    # Set here, and then left alone by the imports of new interpreters, which find the process set up:
    # neither the environment they would have read nor the threshold they would have set takes effect.
    fastdigest.set_gil_minsize(4321)
    os.environ.update(FASTDIGEST_BACKEND='portable', FASTDIGEST_GIL_MINSIZE='1')
    report['main_settings'] = subinterpreter_work.process_settings()
    report['settings_seen'] = in_subinterpreters(subinterpreter_work.process_settings)
elif MODE == 'subinterpreters-first':
    report['subinterpreters'] = in_subinterpreters(subinterpreter_work.check_everything)
    assert 'fastdigest' not in sys.modules
    report['main'] = subinterpreter_work.check_everything(-1)
elif MODE == 'executor':
    with InterpreterPoolExecutor(max_workers=INTERPRETERS) as executor:
        report['subinterpreters'] = list(executor.map(subinterpreter_work.check_everything, range(2 * INTERPRETERS)))
    assert 'fastdigest' not in sys.modules
    report['main'] = subinterpreter_work.check_everything(-1)
elif MODE == 'retry':
    report['failed'] = [
        in_new_interpreter(subinterpreter_work.import_error),
        in_new_interpreter(subinterpreter_work.import_error),
        subinterpreter_work.import_error(),
    ]
    os.environ['FASTDIGEST_BACKEND'] = 'portable'
    report['mended'] = [in_new_interpreter(subinterpreter_work.import_error), subinterpreter_work.import_error()]
elif MODE == 'arrow-libraries':
    for library in ('pyarrow', 'polars'):
        if importlib.util.find_spec(library) is not None:
            report[library] = in_subinterpreters(subinterpreter_work.arrow_library_in_subinterpreter, library)
else:
    raise SystemExit(f'unknown mode {MODE!r}')
print(json.dumps(report))
