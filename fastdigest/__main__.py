"""`python -m fastdigest`: the command-line tool (see fastdigest.cli)."""

import sys

from fastdigest.cli import main

if __name__ == "__main__":
    sys.exit(main())
