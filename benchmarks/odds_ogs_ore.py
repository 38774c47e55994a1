"""Exact-odds timings for the OGS and ORE adapters' largest pools.

Run: `python benchmarks/odds_ogs_ore.py`. Each case is timed cold (caches cleared)
and warm (cached). Times are printed in milliseconds and as ratios against a floor
measured in the same run (summing a 2d6 with icepool, a fixed small unit of work),
so runs on different machines can be compared; wall time (perf_counter) with CPU time
beside it (the finest CPU clock, benchmarks/clocks.py). The target: cold under 50 ms.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import icepool  # noqa: E402

from benchmarks.clocks import Stopwatch, describe  # noqa: E402
from rulesets.ogs import OgsRuleset  # noqa: E402
from rulesets.ogs import odds as ogs_odds  # noqa: E402
from rulesets.ore import OreRuleset  # noqa: E402
from rulesets.ore import odds as ore_odds  # noqa: E402

LIMIT_MS = 50.0


def floor_ms(repeat: int = 20) -> float:
    best = float("inf")
    for _ in range(repeat):
        with Stopwatch() as watch:
            die = icepool.d6 + icepool.d6
            die.probability(7)
        best = min(best, watch.wall)
    return best * 1000


def timed(fn) -> tuple[float, float, object]:
    """(wall ms, CPU ms, value) of one call."""
    with Stopwatch() as watch:
        value = fn()
    return watch.wall * 1000, watch.cpu * 1000, value


def main() -> int:
    ogs, ore = OgsRuleset(), OreRuleset()
    big = "d12+d12+[d8+d6]+2"
    cases = [
        ("ogs success d12+d12+[d8+d6]+2 vs 20", ogs_odds.clear, lambda: ogs.chance(big, difficulty=20)),
        ("ogs opposed d12+d12+[d8+d6]+2 vs itself", ogs_odds.clear, lambda: ogs.chance(big, vs=big)),
        ("ogs opposed d12+d12+[d8+d6]+2 vs 3d6+1", ogs_odds.clear, lambda: ogs.chance(big, vs="3d6+1")),
        ("ore success 10d+2hd+1wd difficulty 9", ore_odds.clear, lambda: ore.chance("10d+2hd+1wd", difficulty=9)),
        ("ore success 10d+1wd difficulty 9", ore_odds.clear, lambda: ore.chance("10d+1wd", difficulty=9)),
        ("ore success 10d difficulty 7", ore_odds.clear, lambda: ore.chance("10d", difficulty=7)),
        ("ore contest 10d+2hd+1wd vs 10d", ore_odds.clear, lambda: ore.chance("10d+2hd+1wd", vs="10d")),
    ]
    unit = floor_ms()
    print(describe())
    print(f"floor (icepool 2d6): {unit:.3f} ms")
    failed = 0
    for name, clear, fn in cases:
        clear()
        cold, cold_cpu, value = timed(fn)
        warm, warm_cpu, _ = timed(fn)
        ok = cold < LIMIT_MS
        failed += not ok
        print(f"{name:44} p={float(value):.6f}  cold {cold:7.2f} ms = {cold / unit:8.1f} x floor"
              f"  warm {warm:6.3f} ms = {warm / unit:6.2f} x floor  (CPU cold {cold_cpu:.2f} ms, warm {warm_cpu:.3f} ms)  {'ok' if ok else 'OVER 50 ms'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
