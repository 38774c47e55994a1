"""The slowest chance the named limits allow (rulesets/limits.py), cold: under 1 s.

Run: `python benchmarks/limits.py [--runs 5]`. Each case is the largest exact answer
the limits let through, computed with every cache cleared, as the command line's
`odds` and the declare form's chance line compute it (the form's path: a request built
by the session, then the adapter's `chance_of`). Cold means cold: the odds modules'
caches are cleared before every sample, and each form sample asks a session made for
it (a session remembers its latest chances, so asking one session again is a look-up).
Each run measures every case once, interleaved with the floor (summing 2d6 with
icepool, cold), so a loaded machine slows both alike; the median of the runs is printed
in milliseconds, wall and CPU, and as a ratio to the floor's median; beside it the same
case asked again at once (warm), which a cold figure must stand well above. Exit 1 if
any case's median reaches 1 s (CPU time when the load average is above the core count,
else wall time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
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
from benchmarks.clocks import Stopwatch, describe

LIMIT_S = 1.0


def clear() -> None:
    d6_odds.clear_caches()
    ogs_odds.clear()
    ore_odds.clear()


def floor() -> None:
    (icepool.Die([1, 2, 3, 4, 5, 6]) + icepool.Die([1, 2, 3, 4, 5, 6])).probability(">=", 7)


def _form(ruleset: object, adds: list[str], actor: str, template: str, targets: list[str], params: dict,
          **settings: object) -> Callable[[], Callable[[], object]]:
    """A form case: each sample gets a session of its own (made before the clock starts),
    so its chance is computed, never remembered."""
    def prepare() -> Callable[[], object]:
        session = session_for(ruleset, *adds, **settings)
        return lambda: session.chance(actor, template, targets, params)
    return prepare


def _odds(fn: Callable[[], object]) -> Callable[[], Callable[[], object]]:
    return lambda: fn


def cases() -> dict[str, Callable[[], Callable[[], object]]]:
    """Each case's `prepare`: made before a sample's clock starts, it gives what is timed."""
    d6, ogs, ore = D6Ruleset(), OgsRuleset(), OreRuleset()
    wild = {"wild_die": True}
    big = f"{MAX_D6_DICE}D"
    return {
        f"d6 odds {big} vs {MAX_D6_DIFFICULTY}, Wild Die": _odds(lambda: d6.chance(big, difficulty=MAX_D6_DIFFICULTY, options=wild)),
        f"d6 odds {big} vs {big}, Wild Die": _odds(lambda: d6.chance(big, vs=big, options=wild)),
        f"d6 odds {big} vs {big}": _odds(lambda: d6.chance(big, vs=big)),
        f"d6 form check {big} vs {MAX_D6_DIFFICULTY}, Wild Die": _form(
            d6, [f"add A reflexes={big}"], "A", "check", [], {"difficulty": MAX_D6_DIFFICULTY}, wild_die=True),
        f"ogs odds {MAX_OGS_DICE}d12 vs 200": _odds(lambda: ogs.chance(f"{MAX_OGS_DICE}d12", difficulty=200)),
        "ogs odds 6d12 vs 6d12": _odds(lambda: ogs.chance("6d12", vs="6d12")),
        "ogs odds 6d12 vs 6d12, reroll ones": _odds(lambda: ogs.chance("6d12", vs="6d12", options={"reroll_ones": True, "vs_reroll_ones": True})),
        "ogs form contest 6d12 vs 6d12": _form(
            ogs, ["add A stat=d12 skill=d12 enhancement=4d12", "add B stat=d12 skill=d12 enhancement=4d12"], "A", "contest", ["B"], {}),
        "ore odds 40d vs 40d (12 rolled)": _odds(lambda: ore.chance("40d", vs="40d")),
        "ore form contest 12d vs 12d": _form(
            ore, ["add A body=5d brawling=5d", "add B body=5d brawling=5d"], "A", "contest", ["B"], {"skill": "brawling", "bonus": 2}),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(describe())
    table = cases()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in table}
    warm: dict[str, list[float]] = {name: [] for name in table}
    floors: list[tuple[float, float]] = []
    for _ in range(args.runs):
        for name, prepare in table.items():
            clear()
            with Stopwatch() as watch:
                floor()
            floors.append((watch.wall, watch.cpu))
            fn = prepare()
            clear()
            with Stopwatch() as watch:
                fn()
            times[name].append((watch.wall, watch.cpu))
            with Stopwatch() as again:
                fn()
            warm[name].append(again.wall)
    base = statistics.median(w for w, _ in floors)
    base_cpu = statistics.median(c for _, c in floors)
    print(f"floor (2d6 with icepool, cold): {base * 1000:.3f} ms wall, {base_cpu * 1000:.3f} ms CPU, median of {len(floors)}")
    print(f"{'case (cold)':48s} {'wall':>9s} {'CPU':>9s} {'x floor':>9s} {'asked again':>12s}")
    worst = worst_cpu = 0.0
    for name, values in times.items():
        median = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        worst, worst_cpu = max(worst, median), max(worst_cpu, cpu)
        print(f"{name:48s} {median * 1000:6.1f} ms {cpu * 1000:6.1f} ms {median / base:9.0f} {statistics.median(warm[name]) * 1000:9.3f} ms")
    # A machine shared with more runnable work than it has cores stretches wall time by
    # what others do: the verdict is then on CPU time.
    loaded = os.getloadavg()[0] > (os.cpu_count() or 1)
    verdict = worst_cpu if loaded else worst
    print(f"slowest: {worst * 1000:.1f} ms wall, {worst_cpu * 1000:.1f} ms CPU (limit {LIMIT_S * 1000:.0f} ms; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: verdict on {'CPU' if loaded else 'wall'} time)")
    return 0 if verdict < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
