"""The cost of `step N` with a Brand X move in progress does not grow with N.

Each figure is a ratio against a floor of the same kind measured in the same run,
interleaved, median of the 7 paired ratios, in wall time (perf_counter) and CPU time (the finest CPU
clock, benchmarks/clocks.py):

(a) `step 100,000,000` against `step 100` (both over many payment segments, the move's
    EP charged on each): target under 3x;
(b) loading the save written after (a) against loading the save written after
    `step 100` (same 3 events): target under 3x;
(c) log lines written by (a): one summary line (plus the move's own lines).

Run: python benchmarks/step.py
"""

from __future__ import annotations

import gc
import statistics
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.clocks import Stopwatch, describe  # noqa: E402
from rulesets.brandx import BrandXRuleset  # noqa: E402
from rulesets.dice import RandomDice  # noqa: E402
from tracker.engine import Encounter, Setup  # noqa: E402
from tracker.persistence import codec  # noqa: E402
from tracker.play.session import Session  # noqa: E402

RUNS = 7
BIG = 100_000_000
SMALL = 100


def mover() -> Session:
    ruleset = BrandXRuleset()
    setup = Setup("bench", ruleset.id, ruleset.time, ruleset.down_when, ruleset.validate_settings({}, "settings"), [])
    s = Session(Encounter(setup), ruleset, RandomDice(1))
    s.execute("add Seraph agility=22 strength=11 mass=80 height=1.791 vp=43 ep=1000000000")
    s.execute("declare Seraph move faces=9,9 roll=28")
    assert s.encounter.combatant("Seraph").upkeep, "the move should cost EP each round"
    return s


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall, CPU) seconds of one call."""
    gc.collect()
    with Stopwatch() as watch:
        fn()
    return watch.wall, watch.cpu


def main() -> None:
    step_small: list[tuple[float, float]] = []
    step_big: list[tuple[float, float]] = []
    load_small: list[tuple[float, float]] = []
    load_big: list[tuple[float, float]] = []
    lines_big = 0
    for _ in range(RUNS):
        for n, steps, loads in ((SMALL, step_small, load_small), (BIG, step_big, load_big)):
            s = mover()
            before = len(s.encounter.log)
            steps.append(timed(partial(s.execute, f"step {n}")))
            if n == BIG:
                lines_big = len(s.encounter.log) - before
            text = codec.dumps(s.encounter, 1)
            loads.append(timed(partial(codec.loads, text)))
    rows = [
        ("(a) step 100,000,000 vs step 100", step_big, step_small, 3.0),
        ("(b) load after (a) vs after step 100", load_big, load_small, 3.0),
    ]
    print(describe())
    print(f"{'figure':40} {'clock':>5} {'work (ms)':>10} {'floor (ms)':>11} {'ratio':>7} {'target':>7}")
    for name, work, floor, target in rows:
        for clock, i in (("wall", 0), ("CPU", 1)):
            ratio = statistics.median(w[i] / f[i] for w, f in zip(work, floor))
            print(f"{name:40} {clock:>5} {statistics.median(w[i] for w in work) * 1000:10.3f} {statistics.median(f[i] for f in floor) * 1000:11.3f} {ratio:7.2f} {'<' + format(target, 'g') + 'x':>7}")
    print(f"(c) log lines written by step 100,000,000: {lines_big}")


if __name__ == "__main__":
    main()
