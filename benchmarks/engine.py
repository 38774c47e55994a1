"""Engine speed, as ratios against floors measured in the same run.

(a) declaring and completing 100,000 actions among 1,000 combatants, per action,
    against a bare heapq push and pop per item on a heap of the engine's own size (the
    largest queue the engine held during the same run; target: 50x or less); five
    rounds, each the engine's run and then the floor's (best of 3) right after it
    (interleaved), median of the five paired ratios, in wall-clock and in CPU time;
(b) `next` across a gap of 1,000,000 empty segments against a gap of 1 (target: under 2x);
(c) loading a 1,000-combatant, 20,000-event encounter, parse and replay together,
    against `tomllib.loads` of the same file, the two interleaved, median of 7 paired
    ratios (target: 0.6x or less; the save is read with the compiled reader rtoml and
    replayed with the collector paused); (c') the same with the full garbage collection
    right after the load counted in, since pausing the collector puts some work off.

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
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
        start, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls) / n, min(cpus) / n


QUEUE_SIZE = [0]


def declare_and_complete() -> tuple[float, float]:
    """Seconds per action of one run, wall-clock and CPU."""
    rng = random.Random(2)
    pts = [rng.randint(1, 20) for _ in range(ACTIONS)]
    names = [f"c{i}" for i in range(COMBATANTS)]

    def run() -> None:
        enc = new_encounter(COMBATANTS)
        declared = 0
        idle = list(names)
        while declared < ACTIONS:
            for name in idle:
                if declared == ACTIONS:
                    break
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "resolution": Resolution(pts[declared])}))
                declared += 1
            to = enc.next_happening()
            assert to is not None
            enc.apply(Event("advance", {"to": to}))
            idle = [c.name for c in enc.combatants.values() if c.active is None]
            QUEUE_SIZE[0] = max(QUEUE_SIZE[0], len(enc._queue))
        while (to := enc.next_happening()) is not None:
            enc.apply(Event("advance", {"to": to}))
        assert sum(1 for a in enc.actions if a.status == "completed") == ACTIONS

    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return (time.perf_counter() - start) / ACTIONS, (time.process_time() - cpu) / ACTIONS


def engine_versus_heap(rounds: int = 5) -> dict[str, list[float]]:
    """(a): each round the engine's run, then the floor on a heap of the size its queue
    reached, back to back, so a busy moment slows both."""
    out: dict[str, list[float]] = {"engine": [], "floor": [], "engine_cpu": [], "floor_cpu": []}
    for _ in range(rounds):
        wall, cpu = declare_and_complete()
        floor, floor_cpu = heapq_floor(ACTIONS, QUEUE_SIZE[0])
        out["engine"].append(wall)
        out["engine_cpu"].append(cpu)
        out["floor"].append(floor)
        out["floor_cpu"].append(floor_cpu)
    return out


def next_across(gap: int) -> float:
    """Seconds per `next` when the next happening is `gap` empty segments away."""
    samples = []
    for _ in range(5):
        enc = new_encounter(10)
        enc.apply(Event("schedule", {"at": gap, "text": "far off"}))
        start = time.perf_counter()
        for _ in range(200):
            to = enc.next_happening()
            assert to == enc.now + gap
            enc.apply(Event("advance", {"to": to}))
            enc.apply(Event("schedule", {"at": enc.now + gap, "text": "far off"}))
        samples.append(time.perf_counter() - start)
    return min(samples) / 200


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
    """(c): each run times `tomllib.loads` and then the load, back to back (interleaved),
    so a busy moment slows both. The load pauses the garbage collector (codec) and
    re-enables it; the collection it put off is paid later, so it is timed too: a full
    collection right after the load (an upper bound on what was deferred)."""
    text = path.read_text()
    out: dict[str, list[float]] = {"parse": [], "load": [], "collect": [], "parse_cpu": [], "load_cpu": []}
    for _ in range(runs):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        tomllib.loads(text)
        out["parse"].append(time.perf_counter() - start)
        out["parse_cpu"].append(time.process_time() - cpu)
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        loaded = EncounterFile(path).load()
        out["load"].append(time.perf_counter() - start)
        out["load_cpu"].append(time.process_time() - cpu)
        gc.collect()
        out["collect"].append(time.perf_counter() - start)
        assert len(loaded.encounter.events) >= 20_000 and len(loaded.encounter.combatants) == COMBATANTS
        del loaded
    return out


def main() -> None:
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    engine = engine_versus_heap()
    eng = {k: statistics.median(v) for k, v in engine.items()}
    paired = [e / f for e, f in zip(engine["engine"], engine["floor"])]
    paired_cpu = [e / f for e, f in zip(engine["engine_cpu"], engine["floor_cpu"])]
    near = next_across(1)
    far = next_across(1_000_000)
    with tempfile.TemporaryDirectory() as folder:
        path = big_file(Path(folder))
        size = path.stat().st_size / 1e6
        runs = load_versus_parse(path)
    ratios = [load / p for load, p in zip(runs["load"], runs["parse"])]
    with_gc = [c / p for c, p in zip(runs["collect"], runs["parse"])]
    cpu = [load / p for load, p in zip(runs["load_cpu"], runs["parse_cpu"])]
    med = {k: statistics.median(v) for k, v in runs.items()}
    print()
    print("| | measured | floor (same run) | ratio | target |")
    print("|---|---:|---:|---:|---:|")
    floor = f"heapq push+pop on a heap of {QUEUE_SIZE[0]:,} (the engine's largest queue): {eng['floor'] * 1e6:.3f} us"
    print(f"| (a) declare + complete, 100,000 actions, 1,000 combatants | {eng['engine'] * 1e6:.2f} us/action | {floor} | {statistics.median(paired):.1f}x (range {min(paired):.1f}-{max(paired):.1f}) | <= 50x |")
    print(f"| (a) the same, in CPU time | {eng['engine_cpu'] * 1e6:.2f} us/action | {eng['floor_cpu'] * 1e6:.3f} us | {statistics.median(paired_cpu):.1f}x (range {min(paired_cpu):.1f}-{max(paired_cpu):.1f}) | <= 50x |")
    print(f"| (b) `next` across 1,000,000 empty segments | {far * 1e6:.2f} us | across 1: {near * 1e6:.2f} us | {far / near:.2f}x | < 2x |")
    ratio = f"{statistics.median(ratios):.2f}x (range {min(ratios):.2f}-{max(ratios):.2f})"
    print(f"| (c) load 1,000 combatants, 20,000 events ({size:.1f} MB), parse + replay | {med['load']:.3f} s | `tomllib.loads` of the file: {med['parse']:.3f} s | {ratio} | <= 0.6x |")
    print(f"| (c') the same load and the collection it put off | {med['collect']:.3f} s | the same | {statistics.median(with_gc):.2f}x (range {min(with_gc):.2f}-{max(with_gc):.2f}) | <= 0.6x |")
    print(f"| (c) the same, in CPU time (less disturbed by other work on the machine) | {med['load_cpu']:.3f} s | {med['parse_cpu']:.3f} s | {statistics.median(cpu):.2f}x (range {min(cpu):.2f}-{max(cpu):.2f}) | <= 0.6x |")
    print(f"\n(a) median of {len(paired)} paired ratios, each floor (best of 3) timed right after its own engine run.")
    print(f"(c) median of {len(ratios)} paired ratios, each load timed right after its own parse.")


if __name__ == "__main__":
    main()
