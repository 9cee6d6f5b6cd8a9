#!/usr/bin/env python3
"""Where a Tally process's CPU went, from a `perf record -g` profile: the shares by layer that
docs/performance.md's profile tables give.

Each sample goes to the layer of its innermost frame: the kernel (by the system call it is in:
the log's sync, writes, waits and wake-ups, the rest), SQLite, libzmq; else the Swift module of
the nearest frame outward that belongs to one (`TallyStorage`, `GRDB`, `ZeroMQ`, ...: Swift's
own runtime and standard library are charged to the module that called them); else "runtime
and libc", where the call chain could not be followed (libraries built without frame pointers).

    perf record -e cpu-clock -F 999 -a -g -o perf.data -- sleep 12     # while tally-bench runs
    ops/perf-shares.py perf.data --threads                             # processes and threads
    ops/perf-shares.py perf.data --pid 4242                            # one process by layer
    ops/perf-shares.py perf.data --pid 4242 --tid 4250 --inclusive     # one thread, by function

Recording one process (`perf record -p`) slows it several times over: read shares from such a
run, never rates. `-a` (the whole machine) at 999 Hz disturbs the rows least.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

HEADER = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s*$")
FRAME = re.compile(r"^\s*[0-9a-f]+\s+(?P<sym>.*?)(?:\+0x[0-9a-f]+)?\s+\((?P<dso>.*)\)\s*$")
SWIFT_MODULE = re.compile(r"^\$s(\d+)([A-Za-z_][A-Za-z0-9_]*)")
SYSCALL = re.compile(r"(?:__x64_sys_|__do_sys_|__se_sys_|ksys_)(\w+)")

KERNEL_GROUPS = [
    ("kernel: the log's sync", ("fdatasync", "fsync", "sync_file_range")),
    ("kernel: file writes", ("pwrite64", "pwrite", "write", "writev")),
    ("kernel: waits and wake-ups", ("poll", "ppoll", "epoll_wait", "epoll_pwait", "futex", "nanosleep", "clock_nanosleep")),
    ("kernel: sockets and pipes", ("sendto", "recvfrom", "sendmsg", "recvmsg", "read", "readv")),
]


def samples(path):
    """Yields (comm, pid, tid, [(symbol, dso), ...] innermost first) from a perf.data file or
    from `perf script -F comm,pid,tid,ip,sym,dso` output saved before."""
    with open(path, "rb") as file:
        recorded = file.read(7) == b"PERFILE"
    if recorded:
        text = subprocess.run(
            ["perf", "script", "-i", path, "-F", "comm,pid,tid,ip,sym,dso"],
            capture_output=True, text=True, errors="replace", check=True).stdout.splitlines()
    else:
        with open(path, errors="replace") as file:
            text = file.read().splitlines()
    current = None
    for line in text + [""]:
        if not line.strip():
            if current:
                yield current
            current = None
        elif line[0] not in " \t":
            header = HEADER.match(line)
            current = (header["comm"], header["pid"], header["tid"], []) if header else None
        elif current is not None:
            frame = FRAME.match(line)
            if frame:
                current[3].append((frame["sym"], frame["dso"]))


def swift_module(symbol):
    """The module a mangled Swift symbol belongs to, or None (Swift's own `$ss` counts as none)."""
    match = SWIFT_MODULE.match(symbol)
    return match[2][: int(match[1])] if match else None


def is_kernel(dso):
    return "kernel" in dso or dso.startswith("[k")


def layer(frames):
    symbol, dso = frames[0]
    if is_kernel(dso):
        for symbol, dso in frames:
            if not is_kernel(dso):
                break
            call = SYSCALL.search(symbol)
            if call:
                for name, calls in KERNEL_GROUPS:
                    if call[1] in calls:
                        return name
                return "kernel: other system calls"
        return "kernel: no system call (interrupts, scheduling)"
    if "libsqlite3" in dso or symbol.startswith("sqlite3"):
        return "SQLite"
    if "libzmq" in dso:
        return "libzmq"
    for symbol, dso in frames:
        module = swift_module(symbol)
        if module:
            return module
        if symbol.startswith("sqlite3"):
            return "SQLite"
    return "runtime and libc (no Swift frame)"


def demangled(symbols):
    if not symbols or not shutil.which("swift"):
        return symbols
    result = subprocess.run(
        ["swift", "demangle", "--simplified", "--compact"], input="\n".join(symbols), capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return lines if len(lines) == len(symbols) else symbols


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", help="perf.data, or `perf script -F comm,pid,tid,ip,sym,dso` output")
    parser.add_argument("--pid", help="one process")
    parser.add_argument("--tid", help="one thread")
    parser.add_argument("--threads", action="store_true", help="list the processes and threads sampled, busiest first")
    parser.add_argument("--inclusive", action="store_true", help="Swift functions by the share of samples they are on the stack of")
    parser.add_argument("--top", type=int, default=40, help="rows of --threads and --inclusive (default 40)")
    options = parser.parse_args()

    chosen = [
        sample for sample in samples(options.profile)
        if (options.pid is None or sample[1] == options.pid) and (options.tid is None or sample[2] == options.tid)
    ]
    if not chosen:
        sys.exit("no samples for that process and thread")
    total = len(chosen)
    print(f"{total} samples")

    if options.threads:
        threads = collections.Counter((pid, tid, comm) for comm, pid, tid, _ in chosen)
        for (pid, tid, comm), count in threads.most_common(options.top):
            print(f"{100 * count / total:6.1f} %  pid {pid}  tid {tid}  {comm}")
        return

    if options.inclusive:
        on_stack = collections.Counter()
        for _, _, _, frames in chosen:
            on_stack.update({symbol for symbol, _ in frames if swift_module(symbol)})
        rows = on_stack.most_common(options.top)
        for (_, count), name in zip(rows, demangled([symbol for symbol, _ in rows])):
            print(f"{100 * count / total:6.1f} %  {name[:160]}")
        return

    layers = collections.Counter(layer(frames) for _, _, _, frames in chosen if frames)
    for name, count in layers.most_common():
        print(f"{100 * count / total:6.1f} %  {name}")


if __name__ == "__main__":
    main()
