"""The slowest chance the named limits allow (rulesets/limits.py), cold: under 1 s.

Run: `python benchmarks/limits.py [--runs 5]`. Each case is the largest exact answer
the limits let through, computed with every cache cleared, as the command line's
`odds` and the declare form's chance line compute it (the form's path: a request built
by the session, then the adapter's `chance_of`). Each run measures every case once,
interleaved with the floor (summing 2d6 with icepool, cold), so a loaded machine slows
both alike; the median of the runs is printed in milliseconds and as a ratio to the
floor's median. Exit 1 if any case's median reaches 1 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import icepool

from rulesets.d6 import D6Ruleset
from rulesets.d6 import odds as d6_odds
from rulesets.limits import MAX_D6_DICE, MAX_D6_DIFFICULTY, MAX_OGS_DICE
from rulesets.ogs import OgsRuleset
from rulesets.ogs import odds as ogs_odds
from rulesets.ore import OreRuleset
from rulesets.ore import odds as ore_odds
from tests.helpers import session_for

LIMIT_S = 1.0


def clear() -> None:
    d6_odds.clear_caches()
    ogs_odds.clear()
    ore_odds.clear()


def floor() -> None:
    (icepool.Die([1, 2, 3, 4, 5, 6]) + icepool.Die([1, 2, 3, 4, 5, 6])).probability(">=", 7)


def _form(ruleset: object, adds: list[str], actor: str, template: str, targets: list[str], params: dict,
          **settings: object) -> Callable[[], object]:
    session = session_for(ruleset, *adds, **settings)
    return lambda: session.chance(actor, template, targets, params)


def cases() -> dict[str, Callable[[], object]]:
    d6, ogs, ore = D6Ruleset(), OgsRuleset(), OreRuleset()
    wild = {"wild_die": True}
    big = f"{MAX_D6_DICE}D"
    return {
        f"d6 odds {big} vs {MAX_D6_DIFFICULTY}, Wild Die": lambda: d6.chance(big, difficulty=MAX_D6_DIFFICULTY, options=wild),
        f"d6 odds {big} vs {big}, Wild Die": lambda: d6.chance(big, vs=big, options=wild),
        f"d6 odds {big} vs {big}": lambda: d6.chance(big, vs=big),
        f"d6 form check {big} vs {MAX_D6_DIFFICULTY}, Wild Die": _form(
            d6, [f"add A reflexes={big}"], "A", "check", [], {"difficulty": MAX_D6_DIFFICULTY}, wild_die=True),
        f"ogs odds {MAX_OGS_DICE}d12 vs 200": lambda: ogs.chance(f"{MAX_OGS_DICE}d12", difficulty=200),
        "ogs odds 6d12 vs 6d12": lambda: ogs.chance("6d12", vs="6d12"),
        "ogs odds 6d12 vs 6d12, reroll ones": lambda: ogs.chance("6d12", vs="6d12", options={"reroll_ones": True, "vs_reroll_ones": True}),
        "ogs form contest 6d12 vs 6d12": _form(
            ogs, ["add A stat=d12 skill=d12 enhancement=4d12", "add B stat=d12 skill=d12 enhancement=4d12"], "A", "contest", ["B"], {}),
        "ore odds 40d vs 40d (12 rolled)": lambda: ore.chance("40d", vs="40d"),
        "ore form contest 12d vs 12d": _form(
            ore, ["add A body=5d brawling=5d", "add B body=5d brawling=5d"], "A", "contest", ["B"], {"skill": "brawling", "bonus": 2}),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    table = cases()
    times: dict[str, list[float]] = {name: [] for name in table}
    floors: list[float] = []
    for _ in range(args.runs):
        for name, fn in table.items():
            clear()
            started = time.perf_counter()
            floor()
            floors.append(time.perf_counter() - started)
            clear()
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    base = statistics.median(floors)
    print(f"floor (2d6 with icepool, cold): {base * 1000:.3f} ms, median of {len(floors)}")
    worst = 0.0
    for name, values in times.items():
        median = statistics.median(values)
        worst = max(worst, median)
        print(f"{name:48s} {median * 1000:8.1f} ms  x{median / base:9.0f} the floor")
    print(f"slowest: {worst * 1000:.1f} ms (limit {LIMIT_S * 1000:.0f} ms)")
    return 0 if worst < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
