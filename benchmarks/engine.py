"""Engine speed, as ratios against floors measured in the same run.

(a) declaring and completing 100,000 actions among 1,000 combatants, per action,
    against a bare heapq push and pop per item on a heap of the engine's own size (the
    largest queue the engine held during the same run; target: 20x or less); nine
    rounds, each the engine's run and then the floor's (best of 3) right after it
    (interleaved), median of the nine paired ratios (single rounds swing from 14x to
    30x on a shared two-core machine: five left the median moving by a fifth), in
    wall-clock and in CPU time. The collector runs as in the app (it walks the engine's
    state: tracker.engine.settling);
    (a') the same with the collector off, for what the collector costs;
(b) `next` across a gap of 1,000,000 empty segments against a gap of 1 (target: under 2x);
(c) loading a 1,000-combatant, 20,000-event encounter, parse and replay together,
    against `tomllib.loads` of the same file (target: 0.6x or less) and against the
    compiled reader the loader itself uses, `rtoml.loads` (the load's own floor: what
    parsing alone costs it), the three interleaved, median of 7 paired ratios; (c') the
    same with a full garbage collection right after the load counted in (the load
    pauses the collector; a long fight is then settled, tracker.engine.settling).

Wall time is time.perf_counter, CPU time the finest CPU clock there is (benchmarks/clocks.py
names it and its measured step).

Run: python benchmarks/engine.py
"""

from __future__ import annotations

import gc
import heapq
import os
import random
import statistics
import sys
import tempfile
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rtoml  # noqa: E402

from benchmarks.clocks import Stopwatch, describe  # noqa: E402
from tracker.engine import Encounter, Event, Resolution, Setup  # noqa: E402
from tracker.persistence import codec  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402
from rulesets.freeform import FreeformRuleset  # noqa: E402

ACTIONS = 100_000
COMBATANTS = 1_000


def new_encounter(combatants: int) -> Encounter:
    enc = Encounter(Setup("bench", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    for i in range(combatants):
        enc.apply(Event("add", {"name": f"c{i}", "resources": {"hp": 10**9}}))
    return enc


def heapq_floor(n: int, size: int) -> tuple[float, float]:
    """Seconds per push+pop on a heap kept at `size` items (the engine's queue size),
    wall-clock and CPU, each the best of 3 runs."""
    rng = random.Random(1)
    base = [(rng.randint(1, 10**6), i, None) for i in range(size)]
    items = [(rng.randint(1, 10**6), size + i, None) for i in range(n)]

    def run() -> None:
        queue = list(base)
        heapq.heapify(queue)
        for item in items:
            heapq.heappush(queue, item)
            heapq.heappop(queue)

    walls, cpus = [], []
    for _ in range(3):
        gc.collect()
        with Stopwatch() as watch:
            run()
        walls.append(watch.wall)
        cpus.append(watch.cpu)
    return min(walls) / n, min(cpus) / n


QUEUE_SIZE = [0]


def fight(enc: Encounter, pts: list[int], names: list[str]) -> None:
    """(a)'s fight: every idle combatant declares a strike (PT from `pts`, in turn) until
    all of `pts` are declared, then the clock runs until the last completes; each
    `advance` goes to the next happening.

    The driver keeps its own calendar of when each strike it declared completes, so it
    finds who is idle after an advance (those whose strike completed, in roster order)
    without reading the engine's state: what is timed is the engine's work. It had
    scanned the whole roster after every advance, 30 combatants an action, some 5% of
    the figure; the events are the same either way (tests/test_benchmarks.py)."""
    declared, n = 0, len(pts)
    idle = list(range(len(names)))  # roster indexes, in roster order
    finishing: dict[int, list[int]] = {}  # segment -> who completes on it
    while declared < n:
        now = enc.now
        for i in idle:
            if declared == n:
                break
            pt = pts[declared]
            enc.apply(Event("declare", {"actor": names[i], "template": "strike", "mode": "active", "resolution": Resolution(pt)}))
            finishing.setdefault(now + pt, []).append(i)
            declared += 1
        to = enc.next_happening()
        assert to is not None
        enc.apply(Event("advance", {"to": to}))
        idle = sorted(finishing.pop(to))
        QUEUE_SIZE[0] = max(QUEUE_SIZE[0], len(enc.timeline))
    while (to := enc.next_happening()) is not None:
        enc.apply(Event("advance", {"to": to}))


def declare_and_complete(collector: bool = True) -> tuple[float, float]:
    """Seconds per action of one run, wall-clock and CPU (the roster's adds before the
    clock starts: they are not actions)."""
    rng = random.Random(2)
    pts = [rng.randint(1, 20) for _ in range(ACTIONS)]
    names = [f"c{i}" for i in range(COMBATANTS)]
    enc = new_encounter(COMBATANTS)
    gc.collect()
    if not collector:
        gc.disable()
    try:
        with Stopwatch() as watch:
            fight(enc, pts, names)
    finally:
        gc.enable()
    assert sum(1 for a in enc.actions if a.status == "completed") == ACTIONS
    return watch.wall / ACTIONS, watch.cpu / ACTIONS


def engine_versus_heap(rounds: int = 9, collector: bool = True) -> dict[str, list[float]]:
    """(a): each round the engine's run, then the floor on a heap of the size its queue
    reached, back to back, so a busy moment slows both."""
    out: dict[str, list[float]] = {"engine": [], "floor": [], "engine_cpu": [], "floor_cpu": []}
    for _ in range(rounds):
        wall, cpu = declare_and_complete(collector)
        floor, floor_cpu = heapq_floor(ACTIONS, QUEUE_SIZE[0])
        out["engine"].append(wall)
        out["engine_cpu"].append(cpu)
        out["floor"].append(floor)
        out["floor_cpu"].append(floor_cpu)
    return out


def next_across(gap: int) -> tuple[float, float]:
    """Seconds per `next` when the next happening is `gap` empty segments away, wall and
    CPU (each the best of 5)."""
    walls, cpus = [], []
    for _ in range(5):
        enc = new_encounter(10)
        enc.apply(Event("schedule", {"at": gap, "text": "far off"}))
        with Stopwatch() as watch:
            for _ in range(200):
                to = enc.next_happening()
                assert to == enc.now + gap
                enc.apply(Event("advance", {"to": to}))
                enc.apply(Event("schedule", {"at": enc.now + gap, "text": "far off"}))
        walls.append(watch.wall)
        cpus.append(watch.cpu)
    return min(walls) / 200, min(cpus) / 200


def big_file(folder: Path) -> Path:
    rng = random.Random(3)
    enc = new_encounter(COMBATANTS)
    names = [f"c{i}" for i in range(COMBATANTS)]
    while len(enc.events) < 20_000:
        for name in rng.sample(names, 50):
            c = enc.combatants[name]
            if c.active is None:
                target = rng.choice(names)
                rolled = Resolution(rng.randint(1, 20), True, rng.randint(0, 9), (rng.randint(1, 10), rng.randint(1, 10)), "2d10 vs 15", ())
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "targets": [target], "resolution": rolled}))
        to = enc.next_happening()
        if to is not None:
            enc.apply(Event("advance", {"to": to}))
    path = folder / "big.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))  # a whole save in the current format
    return path


def load_versus_parse(path: Path, runs: int = 7) -> dict[str, list[float]]:
    """(c): each run times `tomllib.loads`, `rtoml.loads` and then the load, back to back
    (interleaved), so a busy moment slows all three. The load pauses the garbage
    collector (codec) and re-enables it; what it put off is paid later, so a full
    collection right after the load is timed too (an upper bound on what was deferred)."""
    text = path.read_text()
    out: dict[str, list[float]] = {k: [] for k in ("parse", "rtoml", "load", "collect", "parse_cpu", "rtoml_cpu", "load_cpu", "collect_cpu")}
    for _ in range(runs):
        for name, reader in (("parse", tomllib.loads), ("rtoml", rtoml.loads)):
            gc.collect()
            with Stopwatch() as watch:
                reader(text)
            out[name].append(watch.wall)
            out[name + "_cpu"].append(watch.cpu)
        gc.collect()
        with Stopwatch() as watch:
            loaded = EncounterFile(path).load()
        with Stopwatch() as after:
            gc.collect()
        out["load"].append(watch.wall)
        out["load_cpu"].append(watch.cpu)
        out["collect"].append(watch.wall + after.wall)
        out["collect_cpu"].append(watch.cpu + after.cpu)
        assert len(loaded.encounter.events) >= 20_000 and len(loaded.encounter.combatants) == COMBATANTS
        del loaded
    return out


def ratio_cell(num: list[float], den: list[float]) -> str:
    ratios = [n / d for n, d in zip(num, den)]
    return f"{statistics.median(ratios):.2f}x (range {min(ratios):.2f}-{max(ratios):.2f})"


def main() -> None:
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    print(describe())
    engine = engine_versus_heap()
    eng = {k: statistics.median(v) for k, v in engine.items()}
    off = engine_versus_heap(collector=False)
    eng_off = {k: statistics.median(v) for k, v in off.items()}
    near = next_across(1)
    far = next_across(1_000_000)
    with tempfile.TemporaryDirectory() as folder:
        path = big_file(Path(folder))
        size = path.stat().st_size / 1e6
        runs = load_versus_parse(path)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print()
    print("| | measured | floor (same run) | ratio | target |")
    print("|---|---:|---:|---:|---:|")
    floor = f"heapq push+pop on a heap of {QUEUE_SIZE[0]:,} (the engine's largest queue): {eng['floor'] * 1e6:.3f} us"
    print(f"| (a) declare + complete, 100,000 actions, 1,000 combatants | {eng['engine'] * 1e6:.2f} us/action | {floor} | {ratio_cell(engine['engine'], engine['floor'])} | <= 20x |")
    print(f"| (a) the same, in CPU time | {eng['engine_cpu'] * 1e6:.2f} us/action | {eng['floor_cpu'] * 1e6:.3f} us | {ratio_cell(engine['engine_cpu'], engine['floor_cpu'])} | <= 20x |")
    print(f"| (a') the same with the collector off, wall | {eng_off['engine'] * 1e6:.2f} us/action | {eng_off['floor'] * 1e6:.3f} us | {ratio_cell(off['engine'], off['floor'])} | |")
    print(f"| (a') the same with the collector off, CPU | {eng_off['engine_cpu'] * 1e6:.2f} us/action | {eng_off['floor_cpu'] * 1e6:.3f} us | {ratio_cell(off['engine_cpu'], off['floor_cpu'])} | |")
    print(f"| (b) `next` across 1,000,000 empty segments | {far[0] * 1e6:.2f} us | across 1: {near[0] * 1e6:.2f} us | {far[0] / near[0]:.2f}x | < 2x |")
    print(f"| (b) the same, in CPU time | {far[1] * 1e6:.2f} us | {near[1] * 1e6:.2f} us | {far[1] / near[1]:.2f}x | < 2x |")
    what = f"load 1,000 combatants, 20,000 events ({size:.1f} MB), parse + replay"
    print(f"| (c) {what}, against tomllib | {med['load']:.3f} s | `tomllib.loads` of the file: {med['parse']:.3f} s | {ratio_cell(runs['load'], runs['parse'])} | <= 0.6x |")
    print(f"| (c) the same, in CPU time | {med['load_cpu']:.3f} s | {med['parse_cpu']:.3f} s | {ratio_cell(runs['load_cpu'], runs['parse_cpu'])} | <= 0.6x |")
    print(f"| (c) the same load, against the reader it uses | {med['load']:.3f} s | `rtoml.loads` of the file: {med['rtoml']:.3f} s | {ratio_cell(runs['load'], runs['rtoml'])} | |")
    print(f"| (c) the same, in CPU time | {med['load_cpu']:.3f} s | {med['rtoml_cpu']:.3f} s | {ratio_cell(runs['load_cpu'], runs['rtoml_cpu'])} | |")
    print(f"| (c') the load and the collection it put off, against tomllib | {med['collect']:.3f} s | {med['parse']:.3f} s | {ratio_cell(runs['collect'], runs['parse'])} | <= 0.6x |")
    print(f"| (c') the same, in CPU time | {med['collect_cpu']:.3f} s | {med['parse_cpu']:.3f} s | {ratio_cell(runs['collect_cpu'], runs['parse_cpu'])} | <= 0.6x |")
    print(f"| (c') the same, against rtoml | {med['collect']:.3f} s | {med['rtoml']:.3f} s | {ratio_cell(runs['collect'], runs['rtoml'])} | |")
    print(f"\n(a) median of {len(engine['engine'])} paired ratios, each floor (best of 3) timed right after its own engine run.")
    print(f"(c) median of {len(runs['load'])} paired ratios, each load timed right after its own two parses.")


if __name__ == "__main__":
    main()
