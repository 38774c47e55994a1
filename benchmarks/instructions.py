"""Instructions counted, not time: the startup and engine ratios a busy machine cannot move
(python benchmarks/instructions.py [--actions N] [--only first-screen|engine]).

Timing ratios on a shared two-core machine move by a tenth or more between runs of the
same code (benchmarks/startup.py, benchmarks/engine.py). Valgrind's callgrind counts the
instructions a process executes, which depends on the code and not on the machine's
other work; the figures here are that count, as ratios against the same floors:

1. The first full screen through an 80x24 pseudo-terminal (as benchmarks/startup.py):
   the bare Textual app with a Header, a DataTable and a Footer, then `tracker open
   saves/seraph-vs-sphinx.toml` and `tracker` (the start screen), each from spawn until
   the footer's "^p palette" has been written. The count runs until the process is
   stopped, a little after that frame (longer on a busy machine): runs of the same code
   differ by up to 1.5% with the hash seed fixed, so a figure is the median of `--runs`
   (default 3).
2. Declaring and completing an action on the engine's fight of 1,000 combatants (as
   benchmarks/engine.py (a), `--actions` of them, default 20,000), against a heapq push
   and pop on a heap of 1,000: each the count of a run minus the count of the same run
   that builds everything and skips the loop, per action.

Instructions are not time: the engine's objects are spread over memory where the
floor's heap stays in the cache, so the engine's ratio in time is about twice its ratio
in instructions. What the count settles is whether a change did less work.

Needs `valgrind` on the PATH (about 3 minutes a screen, 1 for the engine); without it,
says so and stops.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
sys.path.insert(0, str(ROOT))

from benchmarks.startup import BARE, _env, pty_time  # noqa: E402

_TOTAL = re.compile(r"^(?:summary|totals): (\d+)", re.M)
MARKER = b"^p palette"
FRAME_WATCH = '''
import os, sys


class _FrameWatch:
    """Textual's terminal stream: before the first write holding the footer's palette
    key, a call callgrind dumps its count at (benchmarks/instructions.py)."""

    def __init__(self, stream):
        self._stream = stream
        self._seen = False

    def write(self, text):
        if not self._seen and "palette" in text:
            self._seen = True
            os.getppid()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


sys.__stderr__ = _FrameWatch(sys.__stderr__)
'''


def counted(argv: list[str], env: dict[str, str], until: bytes | None = None, timeout: float = 600) -> int:
    """Instructions `argv` executes under callgrind: to its end, or (with `until`) through
    a pseudo-terminal until the frame holding `until` is written (FRAME_WATCH)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        if until is None:
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]
            subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=timeout)
            return _total(out, argv)
        (Path(tmp) / "sitecustomize.py").write_text(FRAME_WATCH)
        watched = dict(env, PYTHONPATH=os.pathsep.join([tmp, env.get("PYTHONPATH", "")]))
        command = ["valgrind", "--tool=callgrind", "--dump-before=os_getppid", f"--callgrind-out-file={out}", *argv]
        pty_time(command, until, watched, timeout, stop=signal.SIGTERM)  # stopped: callgrind writes the rest
        dumps = sorted(Path(tmp).glob("callgrind.out.*"))
        if not dumps:
            raise RuntimeError(f"{argv}: the frame's write was not seen (no count dumped before it)")
        return sum(_total(dump, argv) for dump in dumps)


def _total(out: Path, argv: list[str]) -> int:
    found = _TOTAL.search(out.read_text(errors="replace"))
    if found is None:
        raise RuntimeError(f"{argv}: callgrind wrote no total")
    return int(found.group(1))


ENGINE = r"""
import gc, random, sys, heapq
sys.path.insert(0, sys.argv[1])
from benchmarks.engine import COMBATANTS, fight, new_encounter
which, n, loop = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
if which == "engine":
    rng = random.Random(2)
    pts = [rng.randint(1, 20) for _ in range(n)]
    names = [f"c{i}" for i in range(COMBATANTS)]
    enc = new_encounter(COMBATANTS)
    gc.collect()
    if loop:
        fight(enc, pts, names)  # benchmarks/engine.py (a)'s
else:
    rng = random.Random(1)
    base = [(rng.randint(1, 10**6), i, None) for i in range(COMBATANTS)]
    items = [(rng.randint(1, 10**6), COMBATANTS + i, None) for i in range(n)]
    queue = list(base)
    heapq.heapify(queue)
    gc.collect()
    if loop:
        for item in items:
            heapq.heappush(queue, item)
            heapq.heappop(queue)
"""


def per_item(which: str, n: int, env: dict[str, str]) -> float:
    """Instructions per action (or per push+pop) of the loop alone."""
    run = [PY, "-c", ENGINE, str(ROOT), which, str(n)]
    return (counted([*run, "1"], env) - counted([*run, "0"], env)) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--only", choices=("first-screen", "engine"))
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing counted")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(_env(Path(tmp)), PYTHONHASHSEED="0")
        # Bytecode and the kept dataclass methods first (as benchmarks/startup.py): a run
        # that compiles them would count work the next run does not repeat.
        subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "tracker"), str(ROOT / "rulesets"), str(ROOT / "benchmarks")], env=env, check=True)
        subprocess.run([PY, "-c", "import tracker.command.cli, tracker.ui.app, tracker.ui.screens.start, rulesets.brandx, benchmarks.engine"], env=env, cwd=ROOT, check=True)
        if args.only != "engine":
            screens = {"bare app (Header, DataTable, Footer)": [PY, "-c", BARE],
                       "tracker open saves/seraph-vs-sphinx.toml": [PY, "-m", "tracker", "open", "saves/seraph-vs-sphinx.toml"],
                       "tracker (start screen)": [PY, "-m", "tracker"]}
            counts = {name: [counted(argv, env, MARKER) for _ in range(args.runs)] for name, argv in screens.items()}
            floor = statistics.median(next(iter(counts.values())))
            print("| first screen | instructions (median; runs) | against the bare app |")
            print("|---|---:|---:|")
            for name, seen in counts.items():
                runs = ", ".join(f"{c / 1e6:,.0f}" for c in seen)
                print(f"| {name} | {statistics.median(seen) / 1e6:,.0f} M ({runs}) | {statistics.median(seen) / floor:.2f}x |")
        if args.only != "first-screen":
            engine, floor_n = per_item("engine", args.actions, env), per_item("floor", args.actions, env)
            print(f"\n(a) declare + complete, {args.actions:,} actions, 1,000 combatants: {engine:,.0f} instructions an action;"
                  f" heapq push+pop on a heap of 1,000: {floor_n:,.0f}; ratio {engine / floor_n:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
