#!/usr/bin/env python3
"""Benchmark the fastdigest command against coreutils' md5sum, sha1sum, sha256sum, sha512sum.

Usage:
    python benchmarks/bench_cli.py                     # 256 MiB files, 5 rounds (about 2 minutes)
    python benchmarks/bench_cli.py --quick             # 32 MiB, 3 rounds: a smoke run
    python benchmarks/bench_cli.py --size-mib 512 --rounds 9 --algorithms sha256,md5

Method:

* Two files of --size-mib random bytes are written once and read once before timing, so
  every run reads from the page cache: the numbers are hashing plus reading from memory,
  not the disk.
* Each sample is the wall-clock time of one whole command (process start to exit), as a
  user sees it: for fastdigest that includes starting Python (its fixed cost is printed on
  its own: the command on an empty file).
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

TOOLS = {"sha256": "sha256sum", "sha1": "sha1sum", "md5": "md5sum", "sha512": "sha512sum"}
MIB = 1 << 20


def cpu_description() -> str:
    model = platform.processor() or "unknown CPU"
    flags = set()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("model name") and model in ("unknown CPU", "x86_64", ""):
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    shown = [flag for flag in ("sha_ni", "avx2", "avx512f", "avx512vl", "bmi2") if flag in flags]
    return f"{model}, {os.cpu_count()} logical CPUs, {' '.join(shown) or 'no SHA/AVX flags listed'}"


def write_file(path: str, size: int) -> None:
    with open(path, "wb") as f:
        remaining = size
        while remaining:
            chunk = os.urandom(min(remaining, 16 * MIB))
            f.write(chunk)
            remaining -= len(chunk)


def warm(path: str) -> None:
    with open(path, "rb") as f:
        while f.read(16 * MIB):
            pass


def run(*commands, env=None) -> float:
    """Wall-clock seconds of one command, or of several started together."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, env=env) for c in commands]
    for process in processes:
        if process.wait() != 0:
            raise SystemExit(f"command failed: {process.args}")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--algorithms", default=",".join(TOOLS))
    parser.add_argument("--quick", action="store_true", help="32 MiB files, 3 rounds")
    parser.add_argument("--dir", help="where to write the two test files (default: a temporary directory)")
    args = parser.parse_args()
    if args.quick:
        args.size_mib, args.rounds = 32, 3
    algorithms = [name.strip() for name in args.algorithms.split(",") if name.strip()]
    for name in algorithms:
        if name not in TOOLS:
            raise SystemExit(f"unknown algorithm {name!r}: choose from {', '.join(TOOLS)}")
        if shutil.which(TOOLS[name]) is None:
            raise SystemExit(f"coreutils {TOOLS[name]} is not installed")

    # The command as an installed user runs it: bytecode cached (as pip leaves it).
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    fastdigest_command = [sys.executable, "-m", "fastdigest"]

    import fastdigest

    print(f"CPU: {cpu_description()}")
    print(f"Python {platform.python_version()}; fastdigest kernels: {getattr(fastdigest, 'implementation', '?')}")
    version = subprocess.run(["sha256sum", "--version"], capture_output=True, text=True).stdout.splitlines()
    print(f"coreutils: {version[0] if version else '?'}")
    print(f"files: 2 x {args.size_mib} MiB (page cache), {args.rounds} interleaved rounds, wall-clock medians\n")

    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench_cli_") as directory:
        first, second, empty = (os.path.join(directory, name) for name in ("a.bin", "b.bin", "empty"))
        for path in (first, second):
            write_file(path, args.size_mib * MIB)
            warm(path)
        open(empty, "wb").close()

        # name -> (runner, bytes hashed)
        cases = {}
        for algorithm in algorithms:
            tool = [TOOLS[algorithm]]
            ours = fastdigest_command + ["-a", algorithm]
            for files in ([first], [first, second]):
                expected = subprocess.run(tool + files, capture_output=True, check=True).stdout
                got = subprocess.run(ours + files, capture_output=True, check=True, env=env).stdout
                if got != expected:
                    raise SystemExit(f"fastdigest -a {algorithm} disagrees with {tool[0]}:\n{got!r}\n{expected!r}")
            size = args.size_mib * MIB
            cases[(algorithm, "1 file", "coreutils")] = (lambda t=tool: run(t + [first]), size)
            cases[(algorithm, "1 file", "fastdigest")] = (lambda o=ours: run(o + [first], env=env), size)
            cases[(algorithm, "2 files", "coreutils")] = (lambda t=tool: run(t + [first, second]), 2 * size)
            cases[(algorithm, "2 files", "coreutils x2")] = (lambda t=tool: run(t + [first], t + [second]), 2 * size)
            cases[(algorithm, "2 files", "fastdigest")] = (lambda o=ours: run(o + [first, second], env=env), 2 * size)
        cases[("-", "empty file", "fastdigest")] = (lambda: run(fastdigest_command + [empty], env=env), 0)

        # The comparison runs above also wrote fastdigest's bytecode cache.
        samples = {key: [] for key in cases}
        keys = list(cases)
        for round_index in range(args.rounds):
            for key in keys if round_index % 2 == 0 else reversed(keys):
                samples[key].append(cases[key][0]())
            print(f"  round {round_index + 1}/{args.rounds} done", file=sys.stderr)

    def median(key):
        return statistics.median(samples[key])

    def ratio(baseline, candidate):
        return statistics.median(b / c for b, c in zip(samples[baseline], samples[candidate], strict=True))

    fixed_cost = median(("-", "empty file", "fastdigest"))
    print(f"fastdigest's fixed cost (Python start-up, empty file): {fixed_cost * 1000:.0f} ms\n")
    print("| algorithm | case | coreutils | fastdigest | ratio |")
    print("|---|---|---|---|---|")
    for algorithm in algorithms:
        for case, baselines in (("1 file", ["coreutils"]), ("2 files", ["coreutils", "coreutils x2"])):
            ours = (algorithm, case, "fastdigest")
            size = cases[ours][1]
            for baseline_name in baselines:
                baseline = (algorithm, case, baseline_name)
                label = TOOLS[algorithm] + (" (2 processes)" if baseline_name == "coreutils x2" else "")
                print(
                    f"| {algorithm} | {case} vs {label} | "
                    f"{median(baseline):.3f} s ({size / median(baseline) / 1e6:.0f} MB/s) | "
                    f"{median(ours):.3f} s ({size / median(ours) / 1e6:.0f} MB/s) | "
                    f"{ratio(baseline, ours):.2f}x |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
