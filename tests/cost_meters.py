"""CPU-time clocks and a byte count for tests that bound how much work our own code does.

Wall time on a shared 2-core CI machine stretches with whatever else runs (another xdist
worker, another engineer's tests): a check that takes 20 ms of CPU can take a second of wall
time there. The CPU time the work itself used does not stretch, and a runaway check (an
exponential regex, an unbounded schema walk) burns it just the same, so these bounds still
fail when the guard is broken. Where what matters is how much is read, the bytes read count
it. Tests whose feature IS a wall-clock limit keep wall time.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_timed(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> tuple[T, float]:
    """`work`'s result and the CPU seconds this process used meanwhile (every thread's)."""
    started = time.process_time()
    result = work(*args, **kwargs)
    return result, time.process_time() - started


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process `pid` has used so far, from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        raw = stat.read()
    # The name in parentheses may hold spaces; the fields after its closing one are fixed:
    # utime and stime are fields 14 and 15 of the line, the 12th and 13th after the name.
    fields = raw[raw.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def children_cpu_seconds() -> float:
    """CPU seconds used by this process's finished, waited-for children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def children_cpu_timed(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> tuple[T, float]:
    """`work`'s result and the CPU seconds of the children it started and waited for."""
    started = children_cpu_seconds()
    result = work(*args, **kwargs)
    return result, children_cpu_seconds() - started


def bytes_read() -> int:
    """Bytes this process has read through read(2) and the like so far (/proc/self/io rchar;
    page-cache hits included, so a file read twice counts twice)."""
    with open("/proc/self/io", "rb") as io:
        for line in io:
            if line.startswith(b"rchar:"):
                return int(line.split()[1])
    raise RuntimeError("/proc/self/io has no rchar line")
