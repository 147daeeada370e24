"""MkDocs hook: the API reference is read from the type stubs alone.

fastdigest/__init__.py re-exports names from the compiled extension, which griffe (mkdocstrings' reader)
cannot read without importing it, and merging the stubs into that module fails. So the build reads a
stubs-only copy of the package: fastdigest/*.pyi copied into build/docs-stubs/fastdigest/, the folder
mkdocs.yml gives mkdocstrings as its search path. The reference thus needs no compiled extension and
documents exactly what the stubs (checked against the runtime by tests/test_typing.py) say.

The copy is made when MkDocs loads this hook, before any plugin starts: mkdocstrings drops a search path
that does not exist when its handler starts.
"""

import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUBS = ROOT / 'build' / 'docs-stubs' / 'fastdigest'


def copy_stubs():
    if STUBS.exists():
        shutil.rmtree(STUBS)
    STUBS.mkdir(parents=True)
    for stub in sorted((ROOT / 'fastdigest').glob('*.pyi')):
        shutil.copyfile(stub, STUBS / stub.name)


copy_stubs()


def on_pre_build(config):
    # `mkdocs serve` rebuilds after an edit of a stub too (mkdocs.yml watches fastdigest/).
    copy_stubs()
