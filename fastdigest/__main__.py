"""`python -m fastdigest` and the installed `fastdigest` command (see fastdigest.cli)."""

from __future__ import annotations

import gc

# typing.TYPE_CHECKING without importing typing, as in fastdigest.cli.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def run() -> NoReturn:
    """The command, then the end of the process. Only the program's entry points call this:
    this module run as the program, and the command pip installs."""
    # What the interpreter and the fastdigest package made so far lives until the command
    # ends: frozen, the collector no longer walks it each time the imports and the run below
    # trigger a collection, which is a few percent of a short command's CPU. Only the
    # program may freeze its whole process; cycles made from here on are still collected.
    gc.freeze()
    from fastdigest.cli import console_script

    console_script()


if __name__ == '__main__':
    run()
