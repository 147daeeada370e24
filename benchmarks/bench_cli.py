#!/usr/bin/env python3
"""Benchmark the fastdigest command against coreutils' md5sum, sha1sum, sha256sum, sha512sum.

Usage:
    python benchmarks/bench_cli.py                     # 256 MiB files, 5 rounds (about 2 minutes)
    python benchmarks/bench_cli.py --quick             # 32 MiB, 3 rounds: a smoke run
    python benchmarks/bench_cli.py --size-mib 512 --rounds 9 --algorithms sha256,md5
    python benchmarks/bench_cli.py --python /tmp/venv/bin/python   # the command of that venv
    python benchmarks/bench_cli.py --startup [--runs 200] [--max-ratio 1.5]
                                                       # start-up CPU on one small file

--startup measures what a short command costs: the CPU time (user + system, from
resource.getrusage of the finished child) of `python -I -m fastdigest FILE` and of the
installed command (the script pip writes beside the interpreter) on one small file,
against the bare interpreter (`python -I -c pass`) and `sha256sum FILE`, over --runs
interleaved rounds (the order reversed every other round), as medians and medians of
per-round ratios. CPU time, not wall time: a process that waits for a core on a busy
machine is not charged for the wait (caches and frequency still are: prefer an idle
machine). --max-ratio R exits with status 1 when
`python -I -m fastdigest FILE` or the installed command costs more than R times the bare
interpreter: the check that keeps start-up from creeping up (CI runs it on a wheel).

What runs: the `fastdigest` command of an interpreter (--python, default: the one running
this script). That is its console script, the file pip writes beside the interpreter (what
a user runs), when there is one and it works; otherwise `PYTHON -m fastdigest` (--command
forces either). The command line, the fastdigest package it imports and whether that
package's fastdigest.cli is this checkout's are printed first. Run from the repository
root, `-m` finds this checkout's package through the current directory; the console
script never does.

To measure what users get, install the checkout (not editable) into a clean venv:

    python -m venv /tmp/clivenv && /tmp/clivenv/bin/pip install .
    python benchmarks/bench_cli.py --python /tmp/clivenv/bin/python

Method:

* Two files of --size-mib random bytes are written once and read once before timing, so
  every run reads from the page cache: the numbers are hashing plus reading from memory,
  not the disk.
* Each sample is the wall-clock time of one whole command (process start to exit), as a
  user sees it: for fastdigest that includes starting Python. Its fixed cost is measured
  on its own (the command on an empty file), and beside it the interpreter's own start,
  with and without site-packages (`python -S`): .pth files there (an editable install's
  import finder, hooks of the environment) run at every start of every Python program,
  and the script says when they weigh.
* Cases, for each algorithm: one file; two files named on one command line (coreutils
  hashes them one after the other, fastdigest in two threads); and, as the best coreutils
  can do on two cores, two coreutils processes started at once.
* Rounds are interleaved: in each round every command runs once, in an order that is
  reversed on every other round, so drift of this shared machine falls on all of them.
  Ratios are the median over rounds of the per-round ratio coreutils / fastdigest
  (above 1: fastdigest is faster); times are medians over rounds.
* Before timing, each fastdigest output is compared with coreutils' output for the same
  files: a benchmark of a wrong digest would be worthless.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import resource
except ImportError:  # Windows: no getrusage
    resource = None

TOOLS = {'sha256': 'sha256sum', 'sha1': 'sha1sum', 'md5': 'md5sum', 'sha512': 'sha512sum'}
MIB = 1 << 20
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Printed by the interpreter under test: where its fastdigest comes from and its kernels.
# The console script's sys.path starts with its own directory, not the current one: the
# probe drops '' to find the package the same way.
PROBE = """
import sys
if {drop_current_directory}:
    del sys.path[0]
import fastdigest
print(fastdigest.__file__)
print(getattr(fastdigest, "implementation", "?"))
"""

# The interpreter's start-up costs more than this with site-packages than without: say so.
SITE_COST_WORTH_A_NOTE = 0.005


def cpu_description() -> str:
    model = platform.processor() or 'unknown CPU'
    flags = set()
    try:
        with open('/proc/cpuinfo', encoding='ascii', errors='replace') as f:
            for line in f:
                if line.startswith('model name') and model in ('unknown CPU', 'x86_64', ''):
                    model = line.split(':', 1)[1].strip()
                elif line.startswith('flags'):
                    flags = set(line.split(':', 1)[1].split())
                    break
    except OSError:
        pass
    shown = [flag for flag in ('sha_ni', 'avx2', 'avx512f', 'avx512vl', 'bmi2') if flag in flags]
    return f'{model}, {os.cpu_count()} logical CPUs, {" ".join(shown) or "no SHA/AVX flags listed"}'


def write_file(path: str, size: int) -> None:
    with open(path, 'wb') as f:
        remaining = size
        while remaining:
            chunk = os.urandom(min(remaining, 16 * MIB))
            f.write(chunk)
            remaining -= len(chunk)


def warm(path: str) -> None:
    with open(path, 'rb') as f:
        while f.read(16 * MIB):
            pass


def run(*commands, env=None) -> float:
    """Wall-clock seconds of one command, or of several started together."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, env=env) for c in commands]
    for process in processes:
        if process.wait() != 0:
            raise SystemExit(f'command failed: {process.args}')
    return time.perf_counter() - start


def console_script_beside(python: str) -> str | None:
    """The fastdigest console script pip installs next to *python*, if there is one."""
    directory = os.path.dirname(os.path.abspath(python))
    for name in ('fastdigest', 'fastdigest.exe'):
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def choose_command(python: str, wanted: str, empty: str, env: dict) -> tuple[list[str], str]:
    """(the fastdigest command line, why it was chosen)."""
    module_command = [python, '-m', 'fastdigest']
    if wanted == 'module':
        return module_command, 'as asked (--command module)'
    script = console_script_beside(python)
    if script is None:
        if wanted == 'script':
            raise SystemExit(f'no fastdigest console script beside {python}')
        return module_command, 'no console script beside the interpreter'
    trial = subprocess.run([script, empty], capture_output=True, env=env)
    if trial.returncode == 0:
        # What it imports, as installed: an install older than the checkout keeps its own
        # (pip's entry-point wrapper, before setup.py installed a plain script on POSIX).
        with open(script, encoding='utf-8', errors='replace') as f:
            entry = next((line.strip() for line in f if line.startswith('from ')), 'no import found')
        return [script], f'the console script beside the interpreter, as users run it: {entry}'
    failure = (trial.stderr.decode(errors='replace').strip().splitlines() or ['?'])[-1]
    if wanted == 'script':
        raise SystemExit(f'the console script {script} fails: {failure}')
    return module_command, f'the console script beside the interpreter fails here ({failure})'


def probe(python: str, console_script: bool, env: dict) -> tuple[str, str]:
    """(the fastdigest/__init__.py the command imports, its kernel table)."""
    code = PROBE.format(drop_current_directory=console_script)
    completed = subprocess.run([python, '-c', code], capture_output=True, text=True, env=env)
    if completed.returncode != 0:
        return '? (' + (completed.stderr.strip().splitlines() or ['?'])[-1] + ')', '?'
    location, kernels = completed.stdout.splitlines()[:2]
    return location, kernels


def cli_sources(package_directory: str) -> dict[str, bytes]:
    """The command's source files in a fastdigest package directory, by name: the modules
    of its cli/ package (or the single cli.py of older versions)."""
    sources = {}
    for name in ('cli.py', 'cli'):
        path = os.path.join(package_directory, name)
        if os.path.isfile(path):
            with open(path, 'rb') as f:
                sources[name] = f.read()
        elif os.path.isdir(path):
            for module in sorted(os.listdir(path)):
                if module.endswith('.py'):
                    with open(os.path.join(path, module), 'rb') as f:
                        sources[f'{name}/{module}'] = f.read()
    return sources


def same_cli_as_checkout(package_init: str) -> str:
    try:
        theirs = cli_sources(os.path.dirname(package_init))
        ours = cli_sources(os.path.join(REPOSITORY, 'fastdigest'))
    except OSError:
        theirs = ours = {}
    if not theirs or not ours:
        return "cannot compare its fastdigest.cli with this checkout's"
    if theirs == ours:
        return "its fastdigest.cli is this checkout's"
    return "its fastdigest.cli DIFFERS from this checkout's (reinstall to measure the checkout)"


def site_packages_files(python: str, env: dict) -> list[str]:
    """The .pth files the interpreter runs at start-up."""
    code = (
        'import glob, os, site\n'
        'for d in site.getsitepackages() + [site.getusersitepackages()]:\n'
        "    for p in sorted(glob.glob(os.path.join(d, '*.pth'))): print(os.path.basename(p))\n"
    )
    completed = subprocess.run([python, '-c', code], capture_output=True, text=True, env=env)
    return completed.stdout.split() if completed.returncode == 0 else []


def child_cpu_seconds(command: list[str], stdout) -> float:
    """User + system CPU seconds of one run of *command* (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(command, stdout=stdout, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise SystemExit(f'command failed: {command}')
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_startup(args) -> int:
    """--startup: the CPU one short command costs (see the module's docstring)."""
    if resource is None:
        raise SystemExit('--startup needs resource.getrusage (not on Windows)')
    python = args.python
    runs = 20 if args.quick else args.runs
    env = dict(os.environ)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    with tempfile.TemporaryDirectory(dir=args.dir, prefix='bench_cli_startup_') as directory:
        small = os.path.join(directory, 'small.txt')
        with open(small, 'wb') as f:
            f.write(b'hello\n' * 100)
        module_command = [python, '-I', '-m', 'fastdigest', small]
        expected = subprocess.run(['sha256sum', small], capture_output=True, check=True).stdout
        commands = {
            'python -I -c pass': [python, '-I', '-c', 'pass'],
            'python -I -m fastdigest FILE': module_command,
            'sha256sum FILE': ['sha256sum', small],
        }
        script = console_script_beside(python)
        if script is not None:
            # As its shebang runs it, with the interpreter's isolation flag for the same sys.path.
            commands['fastdigest FILE (installed command)'] = [python, '-I', script, small]
        ours = [name for name in commands if 'fastdigest' in name]
        for name in ours:
            got = subprocess.run(commands[name], capture_output=True, env=env, check=False).stdout
            if got != expected:
                raise SystemExit(f'{name} disagrees with sha256sum: {got!r} != {expected!r}')
        interpreter_version = subprocess.run(
            [python, '-c', 'import platform, ssl; print(platform.python_version(), ssl.OPENSSL_VERSION)'],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        # -I leaves the current directory off sys.path, as the probe does when told to.
        location, kernels = probe(python, True, env)
        print(f'CPU: {cpu_description()}')
        print(f'Python {interpreter_version}; fastdigest from {location} ({same_cli_as_checkout(location)})')
        print(f'fastdigest kernels: {kernels}')
        print(f'{runs} interleaved rounds, CPU time (user + sys) of each child, medians; stdout to /dev/null\n')

        samples = {name: [] for name in commands}
        names = list(commands)
        with open(os.devnull, 'wb') as null:
            for name in names:  # one warm-up run each: bytecode caches, page cache
                child_cpu_seconds(commands[name], null)
            for index in range(runs):
                for name in names if index % 2 == 0 else reversed(names):
                    samples[name].append(child_cpu_seconds(commands[name], null))

    baseline = samples['python -I -c pass']
    ratios = {
        name: statistics.median(s / b for s, b in zip(values, baseline, strict=True))
        for name, values in samples.items()
    }
    print('| command | CPU (median) | / `python -I -c pass` |')
    print('|---|---|---|')
    for name in names:
        print(f'| `{name}` | {statistics.median(samples[name]) * 1000:.1f} ms | {ratios[name]:.2f}x |')
    if script is None:
        print('\n(no console script beside the interpreter: install the package to measure it)')
    if args.max_ratio is None:
        return 0
    status = 0
    print()
    for name in ours:
        verdict = 'within' if ratios[name] <= args.max_ratio else 'OVER'
        print(f'`{name}`: {ratios[name]:.2f}x the bare interpreter, {verdict} {args.max_ratio}x')
        if ratios[name] > args.max_ratio:
            status = 1
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--size-mib', type=int, default=256)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--algorithms', default=','.join(TOOLS))
    parser.add_argument('--quick', action='store_true', help='32 MiB files, 3 rounds')
    parser.add_argument('--dir', help='where to write the two test files (default: a temporary directory)')
    parser.add_argument(
        '--python',
        default=sys.executable,
        help="the interpreter whose fastdigest command runs, e.g. a venv's bin/python (default: this one)",
    )
    parser.add_argument(
        '--command',
        choices=('auto', 'script', 'module'),
        default='auto',
        help='script: the console script beside --python; module: PYTHON -m fastdigest; '
        'auto (default): the script if it works, else -m',
    )
    parser.add_argument('--startup', action='store_true', help='measure start-up CPU on one small file instead')
    parser.add_argument('--runs', type=int, default=200, help='--startup: interleaved rounds (default 200)')
    parser.add_argument(
        '--max-ratio',
        type=float,
        help='--startup: exit 1 when `python -I -m fastdigest FILE` or the installed command costs more CPU than '
        'this times `python -I -c pass`',
    )
    args = parser.parse_args()
    if args.startup:
        return run_startup(args)
    if args.quick:
        args.size_mib, args.rounds = 32, 3
    algorithms = [name.strip() for name in args.algorithms.split(',') if name.strip()]
    for name in algorithms:
        if name not in TOOLS:
            raise SystemExit(f'unknown algorithm {name!r}: choose from {", ".join(TOOLS)}')
        if shutil.which(TOOLS[name]) is None:
            raise SystemExit(f'coreutils {TOOLS[name]} is not installed')
    python = args.python
    if shutil.which(python) is None:
        raise SystemExit(f'no interpreter {python}')

    # The command as an installed user runs it: bytecode cached (as pip leaves it).
    env = dict(os.environ)
    env.pop('PYTHONDONTWRITEBYTECODE', None)

    with tempfile.TemporaryDirectory(dir=args.dir, prefix='bench_cli_') as directory:
        first, second, empty = (os.path.join(directory, name) for name in ('a.bin', 'b.bin', 'empty'))
        open(empty, 'wb').close()

        fastdigest_command, reason = choose_command(python, args.command, empty, env)
        is_script = fastdigest_command[0] != python
        location, kernels = probe(python, is_script, env)
        interpreter_version = subprocess.run(
            [python, '-c', 'import platform; print(platform.python_version())'], capture_output=True, text=True
        ).stdout.strip()

        print(f'CPU: {cpu_description()}')
        version = subprocess.run(['sha256sum', '--version'], capture_output=True, text=True).stdout.splitlines()
        print(f'coreutils: {version[0] if version else "?"}')
        print(f'command: {" ".join(fastdigest_command)}  ({reason}; working directory {os.getcwd()})')
        print(f'Python {interpreter_version}; fastdigest from {location} ({same_cli_as_checkout(location)})')
        print(f'fastdigest kernels: {kernels}')
        print(f'files: 2 x {args.size_mib} MiB (page cache), {args.rounds} interleaved rounds, wall-clock medians\n')

        for path in (first, second):
            write_file(path, args.size_mib * MIB)
            warm(path)

        # name -> (runner, bytes hashed)
        cases = {}
        for algorithm in algorithms:
            tool = [TOOLS[algorithm]]
            ours = fastdigest_command + ['-a', algorithm]
            for files in ([first], [first, second]):
                expected = subprocess.run(tool + files, capture_output=True, check=True).stdout
                got = subprocess.run(ours + files, capture_output=True, check=True, env=env).stdout
                if got != expected:
                    raise SystemExit(f'fastdigest -a {algorithm} disagrees with {tool[0]}:\n{got!r}\n{expected!r}')
            size = args.size_mib * MIB
            cases[(algorithm, '1 file', 'coreutils')] = (lambda t=tool: run(t + [first]), size)
            cases[(algorithm, '1 file', 'fastdigest')] = (lambda o=ours: run(o + [first], env=env), size)
            cases[(algorithm, '2 files', 'coreutils')] = (lambda t=tool: run(t + [first, second]), 2 * size)
            cases[(algorithm, '2 files', 'coreutils x2')] = (lambda t=tool: run(t + [first], t + [second]), 2 * size)
            cases[(algorithm, '2 files', 'fastdigest')] = (lambda o=ours: run(o + [first, second], env=env), 2 * size)
        # The start-up costs, timed in the same rounds.
        start_up = {
            'fastdigest': fastdigest_command + [empty],
            'python': [python, '-c', 'pass'],
            'python -S': [python, '-S', '-c', 'pass'],
            'coreutils': ['sha256sum', empty],
        }
        for name, command in start_up.items():
            cases[('-', 'empty file', name)] = (lambda c=command: run(c, env=env), 0)

        # The comparison runs above also wrote fastdigest's bytecode cache.
        samples = {key: [] for key in cases}
        keys = list(cases)
        for round_index in range(args.rounds):
            for key in keys if round_index % 2 == 0 else reversed(keys):
                samples[key].append(cases[key][0]())
            print(f'  round {round_index + 1}/{args.rounds} done', file=sys.stderr)

    def median(key):
        return statistics.median(samples[key])

    def ratio(baseline, candidate):
        return statistics.median(b / c for b, c in zip(samples[baseline], samples[candidate], strict=True))

    fixed_cost = median(('-', 'empty file', 'fastdigest'))
    with_site = median(('-', 'empty file', 'python'))
    without_site = median(('-', 'empty file', 'python -S'))
    print(
        f"fastdigest's fixed cost (the command on an empty file): {fixed_cost * 1000:.1f} ms. "
        f'The interpreter alone, start to exit: {with_site * 1000:.1f} ms (`python -c pass`), '
        f'{without_site * 1000:.1f} ms without site-packages (`python -S -c pass`). '
        f'coreutils on an empty file: {median(("-", "empty file", "coreutils")) * 1000:.1f} ms.'
    )
    if with_site - without_site > SITE_COST_WORTH_A_NOTE:
        pth = ', '.join(site_packages_files(python, env)) or 'none found'
        print(
            f"NOTE: this interpreter's site-packages adds {(with_site - without_site) * 1000:.0f} ms to every "
            f'start (its .pth files: {pth}); every run below pays it. A clean venv shows the command as '
            'users get it: see --python.'
        )
    print()
    print('| algorithm | case | coreutils | fastdigest | ratio |')
    print('|---|---|---|---|---|')
    for algorithm in algorithms:
        for case, baselines in (('1 file', ['coreutils']), ('2 files', ['coreutils', 'coreutils x2'])):
            ours = (algorithm, case, 'fastdigest')
            size = cases[ours][1]
            for baseline_name in baselines:
                baseline = (algorithm, case, baseline_name)
                label = TOOLS[algorithm] + (' (2 processes)' if baseline_name == 'coreutils x2' else '')
                print(
                    f'| {algorithm} | {case} vs {label} | '
                    f'{median(baseline):.3f} s ({size / median(baseline) / 1e6:.0f} MB/s) | '
                    f'{median(ours):.3f} s ({size / median(ours) / 1e6:.0f} MB/s) | '
                    f'{ratio(baseline, ours):.2f}x |'
                )
    return 0


if __name__ == '__main__':
    sys.exit(main())
