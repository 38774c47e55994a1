"""Save cost, undo cost and key-to-frame with the save, as ratios measured in one run.

1. One change (`note x` through a Session on an EncounterFile: lock, fold in others'
   changes, apply, encode, append, fsync, unlock) on fights of 100, 1,000, 10,000 and
   50,000 events. The sizes are measured round-robin (interleaved), median of N; each
   against its floor, measured in the same round: appending the same number of bytes to
   a plain file in the same folder and fsyncing it. Growth is fitted as a line (cost per
   1,000 events already in the log) and as a power law (exponent). Budget: the change at
   50,000 events costs 1.5x or less the change at 100.
2. Undo (and the redo that puts it back) at 100 and at 20,000 events on a 20-combatant
   fight, interleaved, median of N. Budget: 2x.
3. Key to frame with the save, in the app (Pilot, headless, 80x24): `.` (step one
   segment: a change, appended and fsynced by the writer thread) and then a second key
   at once, on a 100-event and a 20,000-event fight; each against `down` (a key that
   changes nothing) measured in the same run. Reported: key to the frame showing the
   change, second key handled, and key to the change being on disk.

Wall time is perf_counter; CPU time (this process, all its threads: the finest CPU clock,
benchmarks/clocks.py) is printed beside it.

Run: python benchmarks/save.py [--quick]
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import Stopwatch, cpu, describe  # noqa: E402
from tracker.engine import Encounter, Event, Resolution, Setup  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402
from tracker.play.session import Session  # noqa: E402
from rulesets import registry  # noqa: E402
from rulesets.dice import RandomDice  # noqa: E402

SIZES = (100, 1_000, 10_000, 50_000)


def fight(events: int, combatants: int = 20, seed: int = 5) -> Encounter:
    """A freeform fight of exactly `events` events: attacks, time moving on, notes."""
    ruleset = registry.get("freeform")
    enc = Encounter(Setup("bench", "freeform", ruleset.time, ruleset.down_when, {}, []))
    rng = random.Random(seed)
    names = [f"C{i:02d}" for i in range(combatants)]
    for name in names:
        if len(enc.events) < events:
            enc.apply(Event("add", {"name": name, "resources": {"hp": 10**9}}))
    while len(enc.events) < events:
        roll = rng.random()
        if roll < 0.5:
            name = rng.choice(names)
            if enc.combatants[name].active is None:
                target = rng.choice(names)
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "targets": [target], "resolution": Resolution(rng.randint(1, 12), True, 3, (rng.randint(1, 10),), "1d10", ())}))
                continue
        if roll < 0.8:
            to = enc.next_happening()
            enc.apply(Event("advance", {"to": to if to is not None else enc.now + 1}))
        else:
            enc.apply(Event("note", {"text": f"note {len(enc.events)}"}))
    return enc


def write(path: Path, enc: Encounter) -> None:
    store = EncounterFile(path)
    store.revision = len(enc.events)
    store.rewrite(enc)


def open_session(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store, "bench")


def floor_append(path: Path, size: int) -> float:
    data = b"x" * size
    start = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - start


def save_table(folder: Path, rounds: int) -> bool:
    sessions = {}
    for n in SIZES:
        path = folder / f"save{n}.toml"
        write(path, fight(n))
        sessions[n] = (path, open_session(path))
    cost: dict[int, list[float]] = {n: [] for n in SIZES}
    cost_cpu: dict[int, list[float]] = {n: [] for n in SIZES}
    floor: dict[int, list[float]] = {n: [] for n in SIZES}
    for _ in range(rounds):
        for n in SIZES:  # interleaved: every size once per round
            path, session = sessions[n]
            before = path.stat().st_size
            with Stopwatch() as watch:
                session.note("x")
            cost[n].append(watch.wall)
            cost_cpu[n].append(watch.cpu)
            floor[n].append(floor_append(folder / "floor.bin", path.stat().st_size - before))
    print("\n1. one change (`note x`): lock, catch up, apply, encode, append, fsync")
    print(f"| events | change (median of {rounds}) | its CPU | floor: append+fsync same bytes | ratio to floor | vs 100 events |")
    print("|---:|---:|---:|---:|---:|---:|")
    med = {n: statistics.median(cost[n]) for n in SIZES}
    for n in SIZES:
        f = statistics.median(floor[n])
        print(f"| {n:,} | {med[n] * 1000:.2f} ms | {statistics.median(cost_cpu[n]) * 1000:.2f} ms | {f * 1000:.2f} ms | {med[n] / f:.2f}x | {med[n] / med[SIZES[0]]:.2f}x |")
    xs, ys = list(SIZES), [med[n] for n in SIZES]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mlx, mly = statistics.fmean(lx), statistics.fmean(ly)
    exponent = sum((a - mlx) * (b - mly) for a, b in zip(lx, ly)) / sum((a - mlx) ** 2 for a in lx)
    print(f"fitted growth: {slope * 1e6 * 1000:+.3f} us per 1,000 events already in the log (line); cost ~ events^{exponent:.3f} (power law)")
    ratio = med[SIZES[-1]] / med[SIZES[0]]
    print(f"50,000 vs 100 events: {ratio:.2f}x (budget 1.5x)")
    return ratio <= 1.5


def undo_table(rounds: int) -> bool:
    small, big = fight(100), fight(20_000)
    times: dict[str, list[float]] = {"100": [], "20,000": []}
    cpus: dict[str, list[float]] = {"100": [], "20,000": []}
    for _ in range(rounds):
        for label, enc in (("100", small), ("20,000", big)):
            with Stopwatch() as watch:
                enc.apply(Event("undo", {}))
                enc.apply(Event("redo", {}))
            times[label].append(watch.wall)
            cpus[label].append(watch.cpu)
    a, b = statistics.median(times["100"]), statistics.median(times["20,000"])
    ca, cb = statistics.median(cpus["100"]), statistics.median(cpus["20,000"])
    print("\n2. undo + redo (engine), 20 combatants")
    print(f"| events | undo+redo (median of {rounds}) | its CPU |")
    print("|---:|---:|---:|")
    print(f"| 100 | {a * 1000:.3f} ms | {ca * 1000:.3f} ms |")
    print(f"| 20,000 | {b * 1000:.3f} ms | {cb * 1000:.3f} ms |")
    print(f"20,000 vs 100 events: {b / a:.2f}x (budget 2x); in CPU time {cb / ca:.2f}x")
    return b / a <= 2


async def keys(saves: Path, path: Path, presses: int) -> dict[str, list[float]]:
    from tracker.ui.app import TrackerApp

    app = TrackerApp(saves, path, user="bench")
    out: dict[str, list[float]] = {"change": [], "second": [], "disk": [], "floor": [], "floor_cpu": [], "change_cpu": []}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        live = app.screen.live  # type: ignore[attr-defined]
        for _ in range(presses):
            # Floor: a key that changes nothing, to its frame.
            start, used = time.perf_counter(), cpu()
            await pilot.press("down")
            await pilot.pause()
            out["floor"].append(time.perf_counter() - start)
            out["floor_cpu"].append(cpu() - used)
            now = live.encounter.now
            start, used = time.perf_counter(), cpu()
            await pilot.press("full_stop")
            await pilot.pause()
            assert live.encounter.now == now + 1
            out["change"].append(time.perf_counter() - start)
            out["change_cpu"].append(cpu() - used)
            # The second key at once: handled while the first change may still be writing.
            start = time.perf_counter()
            await pilot.press("full_stop")
            await pilot.pause()
            assert live.encounter.now == now + 2
            out["second"].append(time.perf_counter() - start)
            while live.store.pending:
                await asyncio.sleep(0.0005)
            out["disk"].append(time.perf_counter() - start)
        await pilot.press("q")
    return out


def key_table(folder: Path, presses: int) -> bool:
    saves = folder / "ui"
    saves.mkdir()
    rows = {}
    for n in (100, 20_000):
        path = saves / f"ui{n}.toml"
        write(path, fight(n))
        rows[n] = asyncio.run(keys(saves, path, presses))
        # The app's saves were appended; the file loads whole with every change.
        loaded = EncounterFile(path).load()
        assert len(loaded.encounter.events) == n + 2 * presses, "a change was lost"
    print("\n3. key to frame in the app, the save included (Pilot, 80x24)")
    print("| events | `down` (floor) | its CPU | `.` change to frame | its CPU | second key at once | second key to on disk | change / floor |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    ok = True
    for n, r in rows.items():
        f, c, s, d, fc, cc = (statistics.median(r[k]) for k in ("floor", "change", "second", "disk", "floor_cpu", "change_cpu"))
        print(f"| {n:,} | {f * 1000:.1f} ms | {fc * 1000:.1f} ms | {c * 1000:.1f} ms | {cc * 1000:.1f} ms | {s * 1000:.1f} ms | {d * 1000:.1f} ms | {c / f:.2f}x |")
    a = statistics.median(rows[100]["change"]) / statistics.median(rows[100]["floor"])
    b = statistics.median(rows[20_000]["change"]) / statistics.median(rows[20_000]["floor"])
    print(f"change/floor at 20,000 vs at 100 events: {b / a:.2f}x (the key does not wait on the disk or the log's length)")
    return ok and b / a <= 2


def main() -> int:
    quick = "--quick" in sys.argv
    rounds, presses = (5, 5) if quick else (9, 11)
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ok = save_table(folder, rounds)
        ok = undo_table(rounds * 3) and ok
        ok = key_table(folder, presses) and ok
    print("\nwithin budget" if ok else "\nOVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
