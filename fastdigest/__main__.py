"""`python -m fastdigest`: the command-line tool (see fastdigest.cli)."""

from fastdigest.cli import console_script

if __name__ == '__main__':
    console_script()
