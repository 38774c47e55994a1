"""Exact-odds timings. Brand X part: `tracker odds brandx TARGET [--pool N]`.

Run: `python benchmarks/odds.py`. The 2d10-with-reroll distribution is built once with
icepool (timed cold, with the cache cleared) and then every chance is a bisection of a
cumulative table (timed warm over a grid of targets and pools, worst case and mean).
Times are printed in milliseconds and as ratios against two floors measured in the same
run: a bare dict lookup and summing 2d10 with icepool; wall time (perf_counter) with CPU
time beside it (the finest CPU clock, benchmarks/clocks.py). The target: under 5 ms of
compute for any target and pool, cold included. Exit 1 if it is missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import icepool  # noqa: E402

from benchmarks.clocks import Stopwatch, describe  # noqa: E402
from rulesets.brandx import BrandXRuleset  # noqa: E402
from rulesets.brandx import rolls  # noqa: E402

LIMIT_MS = 5.0


def _best(fn, repeat: int = 50) -> float:
    return _best_both(fn, repeat)[0]


def _best_both(fn, repeat: int = 50) -> tuple[float, float]:
    """The best wall and the best CPU milliseconds of `repeat` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        with Stopwatch() as watch:
            fn()
        walls.append(watch.wall)
        cpus.append(watch.cpu)
    return min(walls) * 1000, min(cpus) * 1000


def _ms(fn) -> tuple[float, float]:
    with Stopwatch() as watch:
        fn()
    return watch.wall * 1000, watch.cpu * 1000


def floors() -> dict[str, float]:
    table = {n: n for n in range(100)}
    return {
        "dict lookup": _best(lambda: table[42], 1000),
        "icepool 2d10 sum": _best(lambda: (icepool.d10 + icepool.d10).probability(11), 20),
    }


def brandx() -> bool:
    rs = BrandXRuleset()
    rs.chance("15")  # load the tables (not part of the odds)
    rolls._distribution.cache_clear()
    cold, cold_cpu = _ms(lambda: rs.chance("15", options={"pool": 1}))
    times: list[float] = []
    cpus: list[float] = []
    for target in range(-40, 61, 5):
        for pool in (-10**6, -500, -18, -17, -1, 0, 1, 9, 42, 1000, 10**6):
            wall, cpu = _ms(lambda target=target, pool=pool: rs.chance(str(target), options={"pool": pool}))
            times.append(wall)
            cpus.append(cpu)
    worst, mean = max(times), sum(times) / len(times)
    base = floors()
    print(describe())
    print("Brand X odds (2d10 roll-under, subtracting reroll, Sphere-chart pools)")
    for name, ms in base.items():
        print(f"  floor  {name:18} {ms:9.4f} ms")
    print(f"  cold   first chance      {cold:9.4f} ms  = {cold / base['icepool 2d10 sum']:7.1f} x icepool floor  (CPU {cold_cpu:.4f} ms)")
    print(f"  warm   worst of {len(times):4}     {worst:9.4f} ms  = {worst / base['dict lookup']:7.0f} x dict floor, "
          f"{worst / base['icepool 2d10 sum']:.3f} x icepool floor")
    print(f"  warm   mean              {mean:9.4f} ms  (CPU: worst {max(cpus):.4f} ms, mean {sum(cpus) / len(cpus):.4f} ms)")
    ok = cold < LIMIT_MS and worst < LIMIT_MS
    print(f"  target < {LIMIT_MS} ms: {'met' if ok else 'MISSED'}")
    return ok


def main() -> int:
    return 0 if brandx() else 1


if __name__ == "__main__":
    raise SystemExit(main())
