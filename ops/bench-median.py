#!/usr/bin/env python3
"""Runs tally-bench N times (5 by default) and prints, per row, each run's figures and their median.

A target is met when the median of five default runs meets it (docs/performance.md): one lucky
run is not a figure. Arguments after `--` go to tally-bench as they are.

    ops/bench-median.py                       # .build/release/tally-bench, 5 runs
    ops/bench-median.py --runs 3 -- --no-writes --seconds 2
    ops/bench-median.py --bench .build/debug/tally-bench -- --durability process
    ops/bench-median.py --from run-*.txt      # the medians of tables printed before
"""
import argparse
import re
import statistics
import subprocess
import sys

COLUMNS = ["req/s", "p50 µs", "p99 µs", "CPU µs/req"]
RATIOS = {
    "vs relay %": r"(\d+) % of the relay",
    "vs relay CPU %": r"(\d+) % by CPU per request",
    "× relay sync": r"([\d.]+) × the relay's",
    "× ping": r"([\d.]+) × ping",
    "vs bare loop %": r"(\d+) % of the bare loop",
}


def parse(output):
    """{row name: {column: value}} from tally-bench's table; a share of the relay as 'vs relay %'."""
    rows, names, section = {}, [], ""
    lines = output.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("path")) + 2
    except StopIteration:
        return rows, names
    for line in lines[start:]:
        if line.startswith("-- "):
            section = line[3:].strip()
            continue
        if line.startswith("resident memory"):
            break
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 7:
            continue
        name = f"{cells[0]} [{cells[1]}]" if cells[1] else cells[0]
        if section:
            name = f"{section}: {name}"
        figures = {}
        for column, cell in zip(COLUMNS, cells[2:6]):
            try:
                figures[column] = float(cell.replace(",", ""))
            except ValueError:
                pass
        # The ratios issue 34's targets are judged by, as the table's last column says them.
        for column, pattern in RATIOS.items():
            found = re.search(pattern, line)
            if found:
                figures[column] = float(found.group(1))
        if figures:
            rows[name] = figures
            names.append(name)
    return rows, names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="how many runs (default 5)")
    parser.add_argument("--bench", default=".build/release/tally-bench", help="the tally-bench binary")
    parser.add_argument("--from", dest="saved", nargs="+", metavar="FILE", help="read these saved tally-bench outputs instead of running it")
    parser.add_argument("bench_args", nargs="*", help="arguments for tally-bench, after --")
    options = parser.parse_args()
    runs, order = [], []
    outputs = [open(path, encoding="utf-8").read() for path in options.saved] if options.saved else None
    for run in range(1, (len(outputs) if outputs else options.runs) + 1):
        if outputs:
            output = outputs[run - 1]
        else:
            print(f"== run {run} of {options.runs}", file=sys.stderr, flush=True)
            done = subprocess.run([options.bench] + options.bench_args, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"tally-bench failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
            print(done.stdout, file=sys.stderr)
            output = done.stdout
        rows, names = parse(output)
        runs.append(rows)
        order += [name for name in names if name not in order]
    for name in order:
        print(name)
        for column in COLUMNS + list(RATIOS):
            values = [run[name][column] for run in runs if name in run and column in run[name]]
            if not values:
                continue
            form = "{:,.2f}" if column.startswith("×") else "{:,.0f}"
            each = " / ".join(form.format(value) for value in values)
            print(f"  {column:<14} {each}   median {form.format(statistics.median(values))}")


if __name__ == "__main__":
    main()
