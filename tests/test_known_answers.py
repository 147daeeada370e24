"""The known-answer check at kernel selection: what a refused kernel does, seen from Python.

The check itself (hash/known_answers.c) and the fallback are tested in C (tests/c/test_select.c feeds
the selection kernels made wrong on purpose). Here the binding's part: one RuntimeWarning per refused
kernel naming it, its family and why (at import for a single-stream kernel, at the first batch for a
multi-buffer one); `implementation` and `batch_implementation` naming what runs instead; ImportError where
a family has no kernel left. A child process imports fastdigest with FASTDIGEST_TEST_FAIL_CHECK naming the
kernels whose check is to fail, as a wrong kernel's would.
"""

import hashlib
import json
import os
import subprocess
import sys

import pytest

import fastdigest

CHILD_CODE = r"""
import json, warnings
def recorded(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        action()
    return [[w.category.__name__, str(w.message)] for w in caught]
import_warnings = recorded(lambda: __import__('fastdigest'))
import fastdigest
md5_batch = lambda: fastdigest.digest_many('md5', [b'%d' % i * i for i in range(40)])
first_batch_warnings = recorded(md5_batch)
later_warnings = recorded(lambda: (md5_batch(), fastdigest.batch_implementation))
print(json.dumps({
    'import_warnings': import_warnings,
    'first_batch_warnings': first_batch_warnings,
    'later_warnings': later_warnings,
    'warnings': import_warnings + first_batch_warnings,
    'implementation': fastdigest.implementation,
    'batch_implementation': fastdigest.batch_implementation,
    'md5': fastdigest.md5(b'abc' * 100).hexdigest(),
    'md5_many': [d.hex() for d in md5_batch()],
}))
"""


# The children choose kernels as a default import does. FASTDIGEST_BACKEND=portable (a level of
# test_levels.py) forces the portable C and never tries md5's 'tuned', so it
# is left out; FASTDIGEST_DISABLE stays, and a level's hidden kernels are then not tried either.
CHILD_ENVIRONMENT = {
    name: value
    for name, value in os.environ.items()
    if name not in ('FASTDIGEST_BACKEND', 'FASTDIGEST_TEST_FAIL_CHECK')
}


def import_with_failing_checks(kernels, code=CHILD_CODE):
    """Runs code (by default: imports fastdigest, then hashes a batch) in a child whose checks of
    `kernels` (family:kernel, comma-separated; None for no variable) fail; returns the completed
    process."""
    environment = dict(CHILD_ENVIRONMENT)
    if kernels is not None:
        environment['FASTDIGEST_TEST_FAIL_CHECK'] = kernels
    return subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)


def child_report(kernels):
    child = import_with_failing_checks(kernels)
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout)


@pytest.fixture(scope='module')
def unrefused():
    """What a child chooses when no check fails: the kernels the refused ones are compared with."""
    report = child_report(None)
    assert report['warnings'] == []
    return report


def check_md5_still_right(report):
    assert report['md5'] == hashlib.md5(b'abc' * 100).hexdigest()
    assert report['md5_many'] == [hashlib.md5(b'%d' % i * i).hexdigest() for i in range(40)]


def test_no_kernel_of_this_cpu_is_refused():
    # Warnings as errors: a check that refused a right kernel would make this import fail.
    environment = {name: value for name, value in os.environ.items() if name != 'FASTDIGEST_TEST_FAIL_CHECK'}
    child = subprocess.run(
        [sys.executable, '-W', 'error', '-c', 'import fastdigest; print(fastdigest.implementation)'],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == str(fastdigest.implementation)


def test_a_refused_kernel_is_warned_of_and_replaced(unrefused):
    # MD5's first kernel, 'tuned', is plain C: every CPU and build has it.
    report = child_report('md5:tuned')
    assert report['warnings'] == [
        [
            'RuntimeWarning',
            "fastdigest: the md5 kernel 'tuned' failed its known-answer check and is not used: its md5 of "
            '"abc" (RFC 1321, A.5) is wrong; \'portable\' hashes md5 instead',
        ]
    ]
    assert report['implementation']['md5'] == 'portable'
    assert {name: kernel for name, kernel in report['implementation'].items() if name != 'md5'} == {
        name: kernel for name, kernel in unrefused['implementation'].items() if name != 'md5'
    }
    check_md5_still_right(report)


def unrefused_md5_multi(unrefused):
    md5_multi = unrefused['batch_implementation']['md5']
    if md5_multi == unrefused['implementation']['md5']:
        pytest.skip('this CPU (or the FASTDIGEST_DISABLE level) runs no multi-buffer MD5 kernel')
    return md5_multi


def test_a_refused_multi_buffer_kernel_is_warned_of_at_the_first_batch(unrefused):
    # The multi-buffer kernels are checked by the first batch, not by the import: the warning comes from
    # that call, once.
    md5_multi = unrefused_md5_multi(unrefused)
    report = child_report(f'md5:{md5_multi}')
    assert report['import_warnings'] == []
    [[category, message]] = report['first_batch_warnings']
    assert report['later_warnings'] == []
    assert category == 'RuntimeWarning'
    assert message.startswith(
        f"fastdigest: the md5 multi-buffer kernel '{md5_multi}' failed its known-answer check and is not used: "
        'its md5 of the 80-byte message (RFC 1321, A.5) in lane 0, two blocks in one call, is wrong; '
    )
    replacement = report['batch_implementation']['md5']
    assert replacement != md5_multi
    assert f"'{replacement}' hashes batches of md5 instead" in message
    check_md5_still_right(report)


def test_a_batch_checks_its_own_familys_kernel_only(unrefused):
    md5_multi = unrefused_md5_multi(unrefused)
    code = (
        'import warnings, fastdigest\n'
        'warnings.simplefilter("error")\n'
        "fastdigest.digest_many('sha256', [b'a'])\n"
        "print('sha256 batch hashed')\n"
        "fastdigest.digest_many('md5', [b'a'])\n"
    )
    child = import_with_failing_checks(f'md5:{md5_multi}', code)
    assert child.stdout == 'sha256 batch hashed\n'
    assert f"RuntimeWarning: fastdigest: the md5 multi-buffer kernel '{md5_multi}' failed" in child.stderr


# Each way into the multi-buffer kernels, as a program's first batch: it checks them and warns.
FIRST_BATCHES = {
    'digest_many': "fastdigest.digest_many('md5', [b'a'])",
    'batch_implementation': 'fastdigest.batch_implementation',
    'hmac.digest_many': "fastdigest.hmac.digest_many(b'k', [b'a'], 'md5')",
    'pbkdf2_hmac': "fastdigest.pbkdf2_hmac('md5', b'p', b's', 2, 64)",
    'digest_array': "fastdigest.digest_array('md5', pyarrow.array([b'a']))",
    'digest_rows': "fastdigest.digest_rows('md5', pyarrow.table({'a': [1]}))",
    'surrogate_key': "fastdigest.surrogate_key(pyarrow.table({'a': [1]}), ['a'])",
}


@pytest.mark.parametrize('call', FIRST_BATCHES.values(), ids=FIRST_BATCHES.keys())
def test_every_way_into_the_batches_checks_them_first(unrefused, call):
    md5_multi = unrefused_md5_multi(unrefused)
    if 'pyarrow' in call:
        pytest.importorskip('pyarrow', reason='the Arrow functions take pyarrow objects here')
    code = (
        'import warnings, fastdigest, fastdigest.hmac\n'
        'try:\n    import pyarrow\nexcept ImportError:\n    pass\n'
        'warnings.simplefilter("error")\n'
        f'{call}\n'
    )
    child = import_with_failing_checks(f'md5:{md5_multi}', code)
    assert child.returncode != 0
    assert f"RuntimeWarning: fastdigest: the md5 multi-buffer kernel '{md5_multi}' failed" in child.stderr


def test_one_warning_per_refused_kernel_in_the_order_tried(unrefused):
    report = child_report('sha256:portable, md5:tuned')
    kernels = [message.split("'")[1] for _, message in report['warnings']]
    # md5's kernels are tried before sha256's; sha256's portable C is refused only where it is tried.
    assert kernels[0] == 'tuned'
    assert len(kernels) == (2 if unrefused['implementation']['sha256'] == 'portable' else 1)


def test_a_family_with_no_kernel_left_does_not_load():
    child = import_with_failing_checks('md5:tuned,md5:portable')
    assert child.returncode != 0
    assert (
        "ImportError: fastdigest: the md5 kernel 'portable', the last of its family, failed its known-answer "
        'check: its md5 of "abc" (RFC 1321, A.5) is wrong; no kernel is left that hashes md5 right, so '
        'fastdigest does not load'
    ) in child.stderr


@pytest.mark.parametrize(
    ('value', 'reason'),
    [
        ('md5', "'md5' is not family:kernel with a family of md5, sha1, sha256, sha512"),
        ('sha3_256:portable', "'sha3_256:portable' is not family:kernel"),
        ('md5:sha512ni', "this build has no md5 kernel 'sha512ni'"),
    ],
)
def test_a_bad_list_is_an_import_error(value, reason):
    child = import_with_failing_checks(value)
    assert child.returncode != 0
    assert f'ImportError: FASTDIGEST_TEST_FAIL_CHECK: {reason}' in child.stderr
