"""One note on a viewer's screen against a bare Textual app's one line, side by side
(python benchmarks/note.py [--notes N] [--events N]).

What a watcher's app does when the GM adds a note: it folds the change in (the file's
new lines, read by its follower thread, become events; `TrackerApp._fold_news`), every
pane hears of it, and the screen is drawn. The floor is a bare Textual app of the same
size (80x24, headless) with a Header, a fixed-size tail pane (a line-API widget showing
the newest lines of a list, no scrollbar, no layout) and a Footer, handed one line the
same way (`call_soon_threadsafe` from another thread, as the follower does).

Both apps run at once in this process and the notes alternate between them (a note to
the viewer, a line to the bare app, ...), so a busy machine slows both alike. For each
change: CPU (`time.thread_time_ns` of the event loop's thread, which draws both apps)
and wall (`time.perf_counter_ns`) from the start of the fold-in to the end of the last
frame it caused, the frames sent, the widget lines rendered and the screen rows written
(tracker.ui.textual_private.counting; each frame is also turned into its terminal
output, as a real terminal's driver does and a headless app skips). Medians of N
changes (default 25, at least 5). Budget: 1.5x on CPU (issue 32 item 4).

The viewer's fight is the freeform one `benchmarks/ui.py` builds (combatants, actions,
notes; --events events), opened by `TrackerApp(..., viewer=True)`; the GM's notes come
from a second `Live` on the same file in this process, and the viewer's follower reads
them as it does under `tracker serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widget import Widget  # noqa: E402
from textual.widgets import Footer, Header  # noqa: E402

from tracker.ui.textual_private import FrameCount, counting  # noqa: E402

BUDGET = 1.5


class Tail(Widget):
    """The newest lines of a list, as many as fit: a fixed-size pane, repainted whole."""

    DEFAULT_CSS = "Tail { height: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines: deque[str] = deque(maxlen=200)

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        shown = list(self.lines)[-self.size.height :] if self.size.height else []
        from rich.segment import Segment

        text = shown[y] if y < len(shown) else ""
        return Strip([Segment(text)]).adjust_cell_length(self.size.width, self.rich_style)


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Tail()
        yield Footer()

    def on_mount(self) -> None:
        tail = self.query_one(Tail)
        for n in range(100):
            tail.lines.append(f"[{n}] filler line {n}")

    def add(self, line: str) -> None:
        self.query_one(Tail).add(line)


@dataclass
class Sample:
    cpu: int  # ns
    wall: int  # ns
    frames: int
    lines: int
    rows: int
    layouts: int
    fold: int  # ns of CPU in the fold-in itself (reading the change, telling the panes)


async def settle(app: App[Any], count: FrameCount, started: dict[str, int]) -> None:
    """Until the change has drawn and nothing is left to draw (no fixed sleep): woken by
    each frame, then a few idle checks in a row (polling would cost the loop CPU)."""
    drawn = asyncio.Event()
    count.on_frame = drawn.set
    try:
        while "wall" not in started or not count.ended_ns or count.ended_ns[-1][0] < started["wall"]:
            await asyncio.wait_for(drawn.wait(), 30)
            drawn.clear()
        quiet = 0
        while quiet < 3:  # nothing waiting to be drawn on three checks, 20 ms apart
            drawn.clear()
            try:
                await asyncio.wait_for(drawn.wait(), 0.02)
                quiet = 0
                continue
            except asyncio.TimeoutError:
                pass
            screen = app.screen
            pending = screen._layout_required or screen._repaint_required or screen._dirty_widgets or app._message_queue.qsize()
            quiet = 0 if pending else quiet + 1
    finally:
        count.on_frame = None


def measured(app: App[Any], count: FrameCount, started: dict[str, int], frames_before: int, lines_before: int, rows_before: int, layouts_before: int) -> Sample:
    end_wall, end_cpu = count.ended_ns[-1]
    return Sample(end_cpu - started["cpu"], end_wall - started["wall"], count.frames - frames_before, count.lines - lines_before, count.rows - rows_before, count.layouts - layouts_before, started.get("fold", 0))


async def run(notes: int, events: int, saves: Path, profile: Any = None) -> tuple[list[Sample], list[Sample], dict[str, int]]:
    from benchmarks.ui import build
    from tracker.ui.app import TrackerApp
    from tracker.play.live import Live
    from tracker.ui.screens.encounter import EncounterScreen
    from tracker.ui.widgets.log import CombatLog

    path = saves / "crowd.toml"
    build(path, 30, events)
    gm = Live.open(path)
    viewer = TrackerApp(saves, path, viewer=True, user="watcher")
    bare = Bare()
    ours_samples: list[Sample] = []
    bare_samples: list[Sample] = []
    by_widget: dict[str, int] = {}
    async with viewer.run_test(size=(80, 24)) as vpilot, bare.run_test(size=(80, 24)) as bpilot:
        deadline = time.monotonic() + 60
        while not isinstance(viewer.screen, EncounterScreen) or not viewer.screen.query(CombatLog):
            if time.monotonic() > deadline:
                raise RuntimeError("the viewer's encounter screen never showed")
            await asyncio.sleep(0.01)
        await vpilot.pause()
        await bpilot.pause()
        log = viewer.screen.query_one(CombatLog)
        fold = viewer._fold_news
        started: dict[str, int] = {}

        def timed_fold() -> None:
            started.setdefault("wall", time.perf_counter_ns())
            started.setdefault("cpu", time.thread_time_ns())
            if profile is not None:
                profile.enable()
            fold()
            started["fold"] = time.thread_time_ns() - started["cpu"]

        viewer._fold_news = timed_fold  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        with counting(viewer) as vcount, counting(bare) as bcount:
            for n in range(notes + 1):  # the first of each is a warm-up, not counted
                # The viewer: the GM writes a note; the viewer's follower reads it.
                started.clear()
                frames, lines, rows, layouts = vcount.frames, vcount.lines, vcount.rows, vcount.layouts
                widgets = dict(vcount.by_widget)
                gm.run(lambda s, n=n: s.note(f"note {n}: the sphinx circles the tower, watching the seraph"))
                gm.store.flush()
                await settle(viewer, vcount, started)
                if profile is not None:
                    profile.disable()
                if n:
                    ours_samples.append(measured(viewer, vcount, started, frames, lines, rows, layouts))
                    for name, k in vcount.by_widget.items():
                        by_widget[name] = by_widget.get(name, 0) + k - widgets.get(name, 0)
                shown = [log.render_line(y).text for y in range(log.size.height)]
                assert f"note {n}:" in "".join(shown), shown
                assert f"note {n}:" in "".join(log.render_line(y).text for y in range(log.size.height)), "the note is not on screen"
                # The bare app: one line from another thread.
                started.clear()
                frames, lines, rows, layouts = bcount.frames, bcount.lines, bcount.rows, bcount.layouts

                def add(n: int = n) -> None:
                    started["wall"], started["cpu"] = time.perf_counter_ns(), time.thread_time_ns()
                    bare.add(f"[{n}] note {n}: the sphinx circles the tower, watching the seraph")

                threading.Thread(target=lambda: loop.call_soon_threadsafe(add)).start()
                await settle(bare, bcount, started)
                if n:
                    bare_samples.append(measured(bare, bcount, started, frames, lines, rows, layouts))
    gm.close()
    return ours_samples, bare_samples, {k: round(v / max(1, len(ours_samples))) for k, v in sorted(by_widget.items(), key=lambda kv: -kv[1])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=25)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--profile", action="store_true", help="profile the viewer's side and print where its time goes")
    args = parser.parse_args()
    profile = None
    if args.profile:
        import cProfile

        profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        # No user's settings (a glance-mode roster hides the log) change the figures.
        os.environ.update(XDG_CONFIG_HOME=str(Path(tmp) / "config"), XDG_DATA_HOME=str(Path(tmp) / "data"))
        os.environ.pop("TRACKER_CONFIG", None)
        ours, bare, by_widget = asyncio.run(run(max(5, args.notes), args.events, Path(tmp), profile))

    def med(samples: list[Sample], what: str) -> float:
        return statistics.median(getattr(s, what) for s in samples)

    print(f"one note at 80x24, {args.events} events, medians of {len(ours)} interleaved changes; {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}")
    print(f"{'':22} {'cpu ms':>7} {'wall ms':>8} {'frames':>6} {'lines':>6} {'rows':>5} {'layouts':>7} {'of cpu: fold-in ms':>18}")
    for name, samples in (("viewer's app", ours), ("bare app, tail pane", bare)):
        print(f"{name:22} {med(samples, 'cpu') / 1e6:7.2f} {med(samples, 'wall') / 1e6:8.2f} {med(samples, 'frames'):6.0f} {med(samples, 'lines'):6.0f} {med(samples, 'rows'):5.0f} {med(samples, 'layouts'):7.0f} {med(samples, 'fold') / 1e6:18.2f}")
    cpu = med(ours, "cpu") / med(bare, "cpu")
    wall = med(ours, "wall") / med(bare, "wall")
    print(f"ratio: cpu {cpu:.2f}x, wall {wall:.2f}x; budget {BUDGET}x on cpu: {'ok' if cpu <= BUDGET else 'OVER'}")
    print("lines rendered per note, by widget: " + ", ".join(f"{k} {v}" for k, v in by_widget.items()))
    if profile is not None:
        import pstats

        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(r"tracker|rulesets", 25)
    return 0 if cpu <= BUDGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
