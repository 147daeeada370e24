"""`python -m fastdigest`: the command-line tool (see fastdigest.cli)."""

import gc

# What the interpreter, runpy and the fastdigest package made lives until the
# command ends: frozen, the collector no longer walks it each time the imports
# and the run below trigger a collection, which is a few percent of a short
# command's CPU. Only this module, which runs as the program and nowhere else,
# may freeze the whole process; cycles made from here on are still collected.
gc.freeze()

from fastdigest.cli import console_script  # noqa: E402  (after the freeze, on purpose)

if __name__ == '__main__':
    console_script()
