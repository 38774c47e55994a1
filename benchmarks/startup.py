"""Cold start, as ratios against floors measured in the same run (python benchmarks/startup.py [--runs N]).

1. `tracker roll brandx 15 --seed 1` against `python -c "import icepool"` (the dice
   library every roll needs): a fresh interpreter each, from spawn to exit. Budget 1.6x.
2. The app's first full screen through a pseudo-terminal (80x24, TERM=xterm-256color),
   from spawn until the footer has been written (its "^p palette", drawn with the rest), against a bare Textual app with
   a Header, a DataTable and a Footer measured the same way. Two screens: the encounter
   screen (`tracker open saves/seraph-vs-sphinx.toml`) and the start screen (`tracker`
   over the shipped saves). Budget 1.2x (issue 32; benchmarks/ui_screens.py measures the
   same against issue 22's 1.4x; benchmarks/viewer_screen.py a viewer's at `tracker serve`).
3. Answering a TAB: `tracker show <TAB>` as the shell asks it (argcomplete: the
   encounter names of the saves folder) against `python -c "import argcomplete"` (the
   completion library alone). Budget 2.5x: the answer runs the CLI's parser and reads
   the folder, where the floor only starts.

Runs are interleaved (floor, tracker, floor, tracker, ...) so a busy machine slows both
alike; each figure is the median of N runs (default 9), and each ratio is given twice:
of the two medians, and as the median of the N paired ratios (each run of ours over the
floor's run just before it), which the verdict reads: a machine whose speed drifts
between runs moves a pair together. Two clocks: wall time (what a
person waits) and the process's CPU time (user + system, from wait4 or, at the moment
the footer shows, /proc/PID/task/*/schedstat in nanoseconds: benchmarks/clocks.py), which a machine shared with other work disturbs far
less; the verdict uses CPU time when the load average is above the CPU count. The config file and the user
data folder are pointed at an empty temporary folder, so no user's settings change the
figures. Times use time.monotonic.

Measured as a user runs it: with the bytecode cache. pip writes it when it installs a
package (textual, icepool), and Python writes it on the first run of a clone; a machine
that sets PYTHONDONTWRITEBYTECODE would otherwise compile every tracker module from
source on every start (about 40 modules) while the floors load cached bytecode. So the
children run without that variable, and the tracker's packages are compiled once before
measuring (into the git-ignored __pycache__ folders). The same goes for the dataclass
methods the tracker keeps compiled (tracker.compiled): a process that ends normally
keeps them, which the measured ones (stopped at the first screen) never do, so one
process importing the app's modules keeps them before measuring, as a person's first
`tracker` does.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import describe, process_cpu_s  # noqa: E402

BARE = """
from textual.app import App
from textual.widgets import DataTable, Footer, Header
class Bare(App):
    BINDINGS = [("q", "quit", "Quit")]
    def compose(self):
        yield Header()
        yield DataTable()
        yield Footer()
    def on_mount(self):
        t = self.query_one(DataTable)
        t.add_columns("name", "ruleset", "segment")
        t.add_row("a", "b", "c")
Bare().run()
"""

FIRST_SCREEN = 1.2  # the app's first screen against the bare app's (issue 32, item 7)

_ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="80", LINES="24", PYTHONPATH=str(ROOT))
    env.update(XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"), TRACKER_SAVES=str(ROOT / "saves"))
    env.pop("TRACKER_CONFIG", None)
    env.pop("TEXTUAL", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


Sample = tuple[float, float]  # (wall seconds, CPU seconds)


def process_time(argv: list[str], env: dict[str, str]) -> Sample:
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _cpu_of(pid: int) -> float:
    # /proc/PID/stat alone counts in 10 ms ticks: too coarse for a first screen.
    return process_cpu_s(pid)


def pty_time(argv: list[str], marker: bytes, env: dict[str, str], timeout: float = 60.0, stop: int = signal.SIGKILL) -> Sample:
    """Spawn on an 80x24 pty; seconds until `marker` shows in the text written (escapes
    removed); then the process group is sent `stop` (benchmarks/instructions.py: SIGTERM,
    on which callgrind writes its counts) and waited for."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    raw = b""
    try:
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise RuntimeError(f"{argv}: {marker!r} not seen in {timeout}s; last output {_ANSI.sub(b'', raw)[-300:]!r}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise RuntimeError(f"{argv}: ended before {marker!r}; output {_ANSI.sub(b'', raw)[-300:]!r}")
            raw += chunk
            if marker in _ANSI.sub(b"", raw):
                return time.monotonic() - start, _cpu_of(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, stop)
        except ProcessLookupError:
            pass
        proc.wait()
        os.close(master)


def interleaved(runs: int, floor: Callable[[], Sample], ours: Callable[[], Sample]) -> tuple[Sample, Sample, Sample]:
    """The floor's median, ours, and the median of the paired ratios (each of our runs
    over the floor's run just before it: a moment when the machine is slow slows both),
    each as (wall, CPU)."""
    floors: list[Sample] = []
    mine: list[Sample] = []
    floor(), ours()  # warm the file cache and .pyc files once, unmeasured
    for _ in range(runs):
        floors.append(floor())
        mine.append(ours())

    def median(samples: list[Sample]) -> Sample:
        return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)

    paired = [(m[0] / f[0], m[1] / f[1]) for f, m in zip(floors, mine)]
    return median(floors), median(mine), median(paired)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    rows: list[tuple[str, Sample, Sample, Sample, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp))
        subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "tracker"), str(ROOT / "rulesets")], env=env, check=True)
        subprocess.run([PY, "-c", "import tracker.command.cli, tracker.ui.app, tracker.ui.screens.start, rulesets.brandx"], env=env, cwd=ROOT, check=True)
        tracker = [PY, "-m", "tracker"]
        floor_s, ours_s, paired = interleaved(args.runs, lambda: process_time([PY, "-c", "import icepool"], env), lambda: process_time([*tracker, "roll", "brandx", "15", "--seed", "1"], env))
        rows.append(("tracker roll brandx 15  vs  python -c 'import icepool'", floor_s, ours_s, paired, 1.6))
        bare = lambda: pty_time([PY, "-c", BARE], b"^p palette", env)  # noqa: E731
        floor_s, ours_s, paired = interleaved(args.runs, bare, lambda: pty_time([*tracker, "open", "saves/seraph-vs-sphinx.toml"], b"^p palette", env))
        rows.append(("tracker open FILE (encounter screen)  vs  bare app", floor_s, ours_s, paired, FIRST_SCREEN))
        floor_s, ours_s, paired = interleaved(args.runs, bare, lambda: pty_time(tracker, b"^p palette", env))
        rows.append(("tracker (start screen)  vs  bare app", floor_s, ours_s, paired, FIRST_SCREEN))
        tab = dict(env, _ARGCOMPLETE="1", COMP_LINE="tracker show ", COMP_POINT="13", _ARGCOMPLETE_STDOUT_FILENAME=os.devnull)
        floor_s, ours_s, paired = interleaved(args.runs, lambda: process_time([PY, "-c", "import argcomplete"], env), lambda: process_time(tracker, tab))
        rows.append(("tracker show <TAB> (completion)  vs  python -c 'import argcomplete'", floor_s, ours_s, paired, 2.5))
    width = max(len(r[0]) for r in rows)
    loaded = os.getloadavg()[0] > (os.cpu_count() or 1)
    print(f"{'what':{width}}  {'wall: floor':>11} {'ours':>6} {'ratio':>6} {'paired':>6}  {'cpu: floor':>10} {'ours':>6} {'ratio':>6} {'paired':>6}  budget")
    failed = False
    for name, (floor_wall, floor_cpu), (ours_wall, ours_cpu), (paired_wall, paired_cpu), budget in rows:
        wall, cpu = ours_wall / floor_wall, ours_cpu / floor_cpu
        ratio = paired_cpu if loaded else paired_wall
        failed |= ratio > budget
        print(f"{name:{width}}  {floor_wall * 1000:9.0f}ms {ours_wall * 1000:4.0f}ms {wall:5.2f}x {paired_wall:5.2f}x  "
              f"{floor_cpu * 1000:8.0f}ms {ours_cpu * 1000:4.0f}ms {cpu:5.2f}x {paired_cpu:5.2f}x  {budget}x {'ok' if ratio <= budget else 'OVER'}")
    clock = "CPU time (the machine is loaded)" if loaded else "wall time"
    print(f"medians of {args.runs} interleaved runs (ratio: of the medians; paired: the median of each run's ratio to the floor's run"
          f" just before it); {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}; verdict on the paired {clock}")
    print(describe())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
