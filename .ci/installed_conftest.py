# Copied as conftest.py beside a copy of tests/ by .ci/pythons.sh and .ci/arm64.sh: the suite there
# must test the installed wheel, never a fastdigest/ folder that happens to be importable.
import os
import sys

import fastdigest

installed = os.path.realpath(fastdigest.__file__)
if not installed.startswith(os.path.realpath(sys.prefix) + os.sep):
    raise SystemExit(f'fastdigest was imported from {installed}, not from the venv {sys.prefix}')


def pytest_report_header(config):
    return f'fastdigest under test: {installed}'
