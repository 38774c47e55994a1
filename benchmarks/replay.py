"""Replay speed and memory, as ratios against floors measured in the same run.

The fight: 20,000 events of freeform (benchmarks/ui.py's `build`: 100 combatants
attacking in rounds, time moved on by `next`, then notes), about 1,400 segments and
57,000 log lines; and a Brand X fight of 20,000 events (`brandx_fight`: 12 fighters
punching, moving and holding their breath, so per-round costs are charged on payment
segments). In the app, headless, at 80x24 (Pilot); times from the call to the first
frame drawn after it (a wrapper on `App._display`, which every frame passes through),
wall (perf_counter) and CPU (the finest CPU clock, benchmarks/clocks.py) over the same interval. Rounds alternate the
figure and its floor (interleaved); medians of every sample.

1. Jump: the replay moves to a segment (the same random sequence every round, from
   wherever the last jump left it) and every pane draws it. Floor: drawing the encounter
   screen once at the fight's end (every widget of the screen refreshed, to its frame).
   Budget: 3x, CPU and wall.
2. Step: `→` in the replay (one segment on, from a random segment). Floor: one live
   change, `.` on the encounter screen (the step applied, the panes drawn; its save goes
   out on the writer thread after the frame). Budget: 1.5x, CPU and wall.
3. Memory: the process's resident memory with the fight open live, then with the replay
   open after every jump and step above (garbage collected, free memory given back to
   the system first, both times). Budget: 1.2x.

Run: python benchmarks/replay.py [--quick]
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import cpu as cpu_s, describe  # noqa: E402
sys.path.insert(0, str(ROOT / "benchmarks"))

from ui import build  # noqa: E402

from tracker.persistence.store import EncounterFile  # noqa: E402
from tracker.serve.preload import release_free_memory  # noqa: E402
from tracker.play.session import Session  # noqa: E402
from rulesets.dice import RandomDice  # noqa: E402


def brandx_fight(path: Path, events: int) -> None:
    """A Brand X fight of `events` events: twelve fighters in two sides punching, moving
    (EP each round) and holding their breath (a cost rising with time), `next` between."""
    store, loaded = EncounterFile.create(path, path.stem, "brandx")
    s = Session(loaded.encounter, loaded.ruleset, RandomDice(11), None, "bench")
    enc = s.encounter
    names = [f"F{i:02d}" for i in range(12)]
    for i, name in enumerate(names):
        s.execute(f"add {name} agility=20 strength=14 constitution=14 mass=80 height=1.8 learning=10 vp=100000 dp=100000 ep=100000" + (" side=foes" if i % 2 else ""))
    rng = random.Random(5)
    while len(enc.events) < events:
        name = rng.choice(names)
        roll = rng.random()
        try:
            if roll < 0.45:
                s.declare(name, "punch", [names[(names.index(name) + 1) % len(names)]])
            elif roll < 0.5:
                s.declare(name, "move")
            elif roll < 0.52:
                s.declare(name, "hold-breath")
            else:
                s.next() if enc.next_happening() is not None else s.step()
        except Exception:  # noqa: BLE001 - a rule refused it: another one
            continue
    store.revision = 1
    store._write(enc)


def rss() -> int:
    """Resident memory of this process, in bytes, after collecting and trimming."""
    gc.collect()
    release_free_memory()
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Frames:
    """Time from a call to the first frame drawn after it (wall and CPU)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.waiting = False
        self.drawn = False
        original = app._display

        def display(screen: Any, update: Any) -> None:
            original(screen, update)
            if self.waiting:
                self.drawn = True

        app._display = display

    async def time(self, act: Callable[[], Any], shown: Callable[[], bool] = lambda: True) -> tuple[float, float]:
        """From `act()` to the first frame drawn once `shown()` holds (what it did is on screen)."""
        await self.idle()
        self.waiting = False
        wall, cpu = time.perf_counter(), cpu_s()
        act()
        while not shown():
            await asyncio.sleep(0)
        self.drawn, self.waiting = False, True
        while not self.drawn:
            await asyncio.sleep(0)
        wall, cpu = time.perf_counter() - wall, cpu_s() - cpu
        self.waiting = False
        return wall, cpu

    async def idle(self) -> None:
        """Nothing left from the last measurement: no frame or write pending."""
        from tests.ui import quiet

        while not quiet(self.app):
            await asyncio.sleep(0.002)


def refresh_everything(screen: Any) -> None:
    """The floor of a jump: every widget of the screen drawn again."""
    for widget in screen.walk_children():
        widget.refresh()
    screen.refresh()


async def measure(saves: Path, path: Path, rounds: int, per: int) -> dict[str, Any]:
    from tracker.ui.app import TrackerApp
    from tracker.ui.screens.encounter import EncounterScreen
    from tracker.ui.screens.replay import ReplayScreen, open_replay
    from tests.ui import press, settle, wait_for

    out: dict[str, Any] = {k: [] for k in ("jump", "jump_cpu", "draw", "draw_cpu", "step", "step_cpu", "change", "change_cpu")}
    app = TrackerApp(saves, path, user="bench")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        live_screen = app.screen
        assert isinstance(live_screen, EncounterScreen)
        live = live_screen.live
        out["rss_live"] = rss()
        frames = Frames(app)
        rng = random.Random(3)
        last = live.encounter.now
        jumps = [rng.randint(0, last) for _ in range(per)]
        starts = [rng.randint(0, max(0, last - 1)) for _ in range(per)]
        built = time.perf_counter()
        await open_replay(app, live)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        out["build"] = time.perf_counter() - built
        out["events"], out["segments"] = len(live.encounter.events), last
        for round_ in range(rounds):
            # 1. jumps; 2. steps; then their floors on the encounter screen at now.
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            for segment in jumps:
                wall, cpu = await frames.time(functools.partial(go, screen, segment))
                out["jump"].append(wall)
                out["jump_cpu"].append(cpu)
            # 2. steps: one segment on from random segments.
            for segment in starts:
                go(screen, segment)
                wall, cpu = await frames.time(screen.do_replay_forward)
                out["step"].append(wall)
                out["step_cpu"].append(cpu)
            if round_ == rounds - 1:
                out["rss_replay"] = rss()  # 3. memory: the replay open, after all those moves
            await press(pilot, "escape")
            await wait_for(pilot, lambda: app.screen is live_screen, "back to now")
            for _ in range(per):
                wall, cpu = await frames.time(lambda: refresh_everything(live_screen))
                out["draw"].append(wall)
                out["draw_cpu"].append(cpu)
            for _ in range(per):
                now = live.encounter.now
                wall, cpu = await frames.time(lambda: app.post_message(_key(".")), lambda n=now: live.encounter.now == n + 1)  # type: ignore[misc]
                out["change"].append(wall)
                out["change_cpu"].append(cpu)
            if round_ < rounds - 1:
                await open_replay(app, live)  # the fight changed (the steps): a new replay of it
                await settle(pilot)
        await press(pilot, "q")
    return out


def go(screen: Any, segment: int) -> None:
    """What a segment typed in does (tracker.ui.screens.replay), without its form."""
    screen._move(functools.partial(screen.flow.go, segment))


def _key(key: str) -> Any:
    from tests.ui import key_event

    return key_event(key)


def table(name: str, r: dict[str, Any]) -> bool:
    med = {k: statistics.median(v) for k, v in r.items() if isinstance(v, list) and v}
    rows = [
        ("jump to a segment", "draw the screen at the end", "jump", "draw", 3.0),
        ("step one segment (→)", "one live change (.)", "step", "change", 1.5),
    ]
    print(f"\n{name}: {r['events']:,} events, {r['segments']:,} segments; replay made in {r['build']:.2f} s (on a thread)")
    print(f"| figure (median of {len(r['jump'])}) | wall | CPU | floor | floor wall | floor CPU | ratio wall | ratio CPU | budget | slowest (wall) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    ok = True
    for label, floor, key, base, budget in rows:
        wall, cpu = med[key] / med[base], med[key + "_cpu"] / med[base + "_cpu"]
        ok = ok and wall <= budget and cpu <= budget
        print(f"| {label} | {med[key] * 1000:.1f} ms | {med[key + '_cpu'] * 1000:.1f} ms | {floor} | {med[base] * 1000:.1f} ms | {med[base + '_cpu'] * 1000:.1f} ms | {wall:.2f}x | {cpu:.2f}x | {budget}x | {max(r[key]) * 1000:.0f} ms |")
    memory = r["rss_replay"] / r["rss_live"]
    ok = ok and memory <= 1.2
    print(f"| memory (resident) | {r['rss_replay'] / 2**20:.0f} MB in the replay | | open live | {r['rss_live'] / 2**20:.0f} MB | | {memory:.2f}x | | 1.2x | |")
    return ok


def main() -> int:
    quick = "--quick" in sys.argv
    rounds, per = (3, 5) if quick else (5, 9)
    print(describe())
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        saves = Path(tmp) / "saves"
        saves.mkdir()
        fights = {"freeform, 100 combatants": saves / "freeform.toml", "Brand X, 12 fighters": saves / "brandx.toml"}
        started = time.perf_counter()
        build(fights["freeform, 100 combatants"], 100, 20_000)
        brandx_fight(fights["Brand X, 12 fighters"], 20_000)
        print(f"built the fights in {time.perf_counter() - started:.0f} s")
        for name, path in fights.items():
            result = asyncio.run(measure(saves, path, rounds, per))
            ok = table(name, result) and ok
    print("\nwithin budget" if ok else "\nOVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
