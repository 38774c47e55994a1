"""Exact-odds speed for USOR and D6, as ratios against a floor measured in the same run.

Target (docs/contributing/design.md#rulesets and the adapters' brief): under 50 ms of compute for the largest
pools, cached after.
- USOR: rating 100 against rating 100, between characters (a draw is no win) and
  against an event (draws rolled again).
- D6: 8D+2 with the exploding Wild Die against difficulty 30, and 8D+2 against 8D+2
  opposed, with each Critical Failure rule (cancel / complication).

Each case is timed cold (the adapter's caches cleared) as the best of several runs,
then once more warm (a cache hit). The floor is a fixed pure-Python dice workload
(counting every face of 4d6, 1,296 outcomes) timed the same way, so the ratios say how
the odds compare with plain Python on whatever machine runs this. Wall time is
perf_counter; CPU time (the finest CPU clock, benchmarks/clocks.py) is printed beside it.

Run: python benchmarks/odds_usor_d6.py
"""

from __future__ import annotations

import gc
import sys
from collections import Counter
from collections.abc import Callable
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.clocks import Stopwatch, describe  # noqa: E402
from rulesets.d6 import D6Ruleset  # noqa: E402
from rulesets.d6 import odds as d6_odds  # noqa: E402
from rulesets.usor import UsorRuleset  # noqa: E402
from rulesets.usor import odds as usor_odds  # noqa: E402

BUDGET_MS = 50.0
RUNS = 7


def best_of(runs: int, fn: Callable[[], object], before: Callable[[], None] = lambda: None) -> float:
    return best_both(runs, fn, before)[0]


def best_both(runs: int, fn: Callable[[], object], before: Callable[[], None] = lambda: None) -> tuple[float, float]:
    """The best wall and the best CPU seconds of `runs` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        before()
        gc.collect()
        with Stopwatch() as watch:
            fn()
        walls.append(watch.wall)
        cpus.append(watch.cpu)
    return min(walls), min(cpus)


def floor_workload() -> Counter[int]:
    return Counter(sum(faces) for faces in product(range(1, 7), repeat=4))


def clear() -> None:
    usor_odds.clear_caches()
    d6_odds.clear_caches()


def main() -> int:
    usor, d6 = UsorRuleset(), D6Ruleset()
    usor.row(100)  # read the tables once: file reading is not odds
    _ = d6.data  # read the tables once too
    with Stopwatch() as watch:
        usor.chance("100", vs="100")
        d6.chance("8D+2", vs="8D+2")
    first, first_cpu = watch.wall, watch.cpu

    floor = best_of(RUNS, floor_workload)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("usor 100 vs 100 (characters)", lambda: usor.chance("100", vs="100")),
        ("usor 100 vs event 100", lambda: usor.chance("100", difficulty=100)),
        ("d6 8D+2 >= 30 (cancel)", lambda: d6.chance("8D+2", difficulty=30)),
        ("d6 8D+2 >= 30 (complication)", lambda: d6.chance("8D+2", difficulty=30, options={"critical_failure": "complication"})),
        ("d6 8D+2 vs 8D+2 (cancel)", lambda: d6.chance("8D+2", vs="8D+2")),
        ("d6 8D+2 vs 8D+2 (complication)", lambda: d6.chance("8D+2", vs="8D+2", options={"critical_failure": "complication"})),
    ]
    print(describe())
    print(f"floor: 4d6 enumerated in pure Python = {floor * 1e3:.3f} ms")
    print(f"first calls in this process (icepool warming up included): {first * 1e3:.1f} ms (CPU {first_cpu * 1e3:.1f} ms)\n")
    print(f"{'case':34} {'cold ms':>9} {'CPU ms':>9} {'x floor':>9} {'cached ms':>10} {'x floor':>9}  under {BUDGET_MS:g} ms")
    worst = 0.0
    for name, fn in cases:
        cold, cold_cpu = best_both(RUNS, fn, clear)
        fn()
        warm = best_of(RUNS, fn)
        worst = max(worst, cold)
        ok = "yes" if cold * 1e3 < BUDGET_MS else "NO"
        print(f"{name:34} {cold * 1e3:9.2f} {cold_cpu * 1e3:9.2f} {cold / floor:9.1f} {warm * 1e3:10.4f} {warm / floor:9.3f}  {ok}")
    print(f"\nslowest cold case: {worst * 1e3:.2f} ms ({worst / floor:.1f}x floor); budget {BUDGET_MS:g} ms")
    return 0 if worst * 1e3 < BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
