"""The clocks every timing benchmark reads: wall time from `time.perf_counter`, and CPU time
from the finest CPU clock this system has, its step measured here rather than taken on
trust (on some systems `process_time`, `thread_time` and `getrusage` count in 10 ms ticks,
too coarse for a figure under a second; `/proc/PID/stat` always does).

- `Stopwatch`: wall and CPU seconds of this process over a stretch (`with Stopwatch() as
  t: ...; t.wall, t.cpu`).
- `process_cpu_s(pid)`: CPU seconds another process has used so far, in nanoseconds from
  `/proc/PID/task/*/schedstat` where the system keeps them (its live threads; where
  threads have ended, whose time `/proc/PID/stat` alone counts, in 10 ms ticks, the ticks).
- `tree_cpu_s(pid)`: the same for a process and its live descendants (a server and the
  apps it forked).
- `children_cpu_s()`: CPU seconds of the children this process has waited for (getrusage,
  in microseconds on Linux).
- `describe()`: one line naming the clocks and their measured steps, for a report.

Run: python benchmarks/clocks.py (prints `describe()`).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

TICK_NS = 10_000_000  # the coarse tick this module exists to avoid


def step_ns(read: Callable[[], int], samples: int = 20) -> int:
    """The smallest step seen between two differing readings of `read` (nanoseconds)."""
    steps = []
    for _ in range(samples):
        first = read()
        second = read()
        while second == first:
            second = read()
        steps.append(second - first)
    return min(steps)


def _candidates() -> list[tuple[str, Callable[[], int]]]:
    found: list[tuple[str, Callable[[], int]]] = []
    if hasattr(time, "clock_gettime_ns") and hasattr(time, "CLOCK_PROCESS_CPUTIME_ID"):
        found.append(("clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", lambda: time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)))
    found.append(("time.process_time_ns", time.process_time_ns))
    # The calling thread only: every benchmark here times work on its own thread.
    found.append(("time.thread_time_ns", time.thread_time_ns))
    return found


def _choose() -> tuple[str, Callable[[], int], int]:
    """The first CPU clock finer than a millisecond (process-wide ones first), else the finest."""
    measured = []
    for name, read in _candidates():
        try:
            step = step_ns(read)
        except OSError:
            continue
        if step < 1_000_000:
            return name, read, step
        measured.append((step, name, read))
    step, name, read = min(measured)
    return name, read, step


CPU_NAME, _cpu_ns, CPU_STEP_NS = _choose()
WALL_STEP_NS = step_ns(time.perf_counter_ns)
FINE = CPU_STEP_NS < 1_000_000  # fine enough for a figure under a second


def cpu() -> float:
    """CPU seconds of this process so far, by the finest clock (`CPU_NAME`)."""
    return _cpu_ns() / 1e9


def wall() -> float:
    return time.perf_counter()


class Stopwatch:
    """Wall and CPU seconds over a `with` block."""

    wall: float
    cpu: float

    def __enter__(self) -> Stopwatch:
        self._wall, self._cpu = time.perf_counter(), _cpu_ns()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.cpu = (_cpu_ns() - self._cpu) / 1e9
        self.wall = time.perf_counter() - self._wall


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call of `fn`."""
    with Stopwatch() as watch:
        fn()
    return watch.wall, watch.cpu


def process_cpu_s(pid: int) -> float:
    """CPU seconds process `pid` has used so far; nan if it has gone.

    In nanoseconds, summed over its live threads' `/proc/PID/task/*/schedstat`; where a
    thread has ended (its time is in `/proc/PID/stat` only, in 10 ms ticks, more than a
    tick above the live threads' sum) or the system keeps no schedstat, the ticks."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with open(task / "schedstat") as handle:
                total += int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return ticks
    fine = total / 1e9
    tick = 1 / os.sysconf("SC_CLK_TCK")
    return fine if total and ticks <= fine + 2 * tick else ticks


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of process `pid` and its live descendants (`process_cpu_s` each; a
    descendant that has ended is not counted)."""
    total, todo, seen = 0.0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        used = process_cpu_s(current)
        if used == used:  # not nan: still there
            total += used
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, ValueError):
            pass
    return total


def children_cpu_s() -> float:
    """User + system seconds of the waited-for children of this process."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def describe() -> str:
    coarse = "" if FINE else " (coarser than 1 ms: CPU figures under a second are not shown as exact)"
    return f"clocks: wall {time.get_clock_info('perf_counter').implementation} (step {WALL_STEP_NS} ns); CPU {CPU_NAME} (step {CPU_STEP_NS} ns){coarse}"


def cpu_text(seconds: float, scale: float = 1e3, unit: str = "ms", digits: int = 2) -> str:
    """A CPU figure, or how coarse the clock is where it cannot be told apart from a tick."""
    if not FINE and seconds < 1.0:
        return f"< {CPU_STEP_NS / 1e6:.0f} ms tick"
    return f"{seconds * scale:.{digits}f} {unit}"


if __name__ == "__main__":
    print(describe())
    print(f"this process: {cpu():.3f} s CPU; /proc stat of itself: {process_cpu_s(os.getpid()):.3f} s")
