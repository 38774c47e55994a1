"""Screens and keys against bare Textual apps, as ratios measured in one run
(python benchmarks/ui_screens.py [--quick] [--no-busy] [--rounds N]
[--only screens,pty,echo] [--screens WORD,...]).

1. Each dialog and screen of the app opens in at most 2x the same screen built in a bare
   Textual app. Ours: a D6 fight of 6 combatants (`tracker open`, as the GM), a key is
   posted and the time taken is until the first frame that shows the new screen (a
   wrapper on `App._display`, which every frame passes through). The floor: at that
   first frame the screen's widget tree is copied (tracker.ui widgets become the Textual
   widget they are built on, under the same class name, with the same ids, classes,
   inline styles, text, values and options; a line-API pane becomes a Static of the lines
   it drew), and so is the screen under it; a bare App with the same stylesheet shows
   the copy of the screen under, and a key pushes the copy of the new one, timed the
   same way. No app logic runs in the floor: no guard, no key hold, no session, no
   validation, no workers. Each key is posted once the app would hand it on at once (a
   person's pause after the last dialog; see `_taking_keys`). The screens (tracker/ui/screens): every dialog of the
   encounter screen (declare, damage, condition, schedule, surprise, note, roll, viewers,
   the `:` line, log search, help), its screens (approvals, history, stats, the roster
   editor), the roster editor's (add, edit, rename, side, from and to the library,
   remove, help) and the start screen's (new encounter, duplicate, delete, help). Rounds
   alternate the two apps (ours, bare, ours, ...): each round opens every screen once
   in each; round 0 is a warm-up (first imports) and not counted. Medians of N rounds,
   of wall time and of this process's CPU time (the app's threads included); the
   verdict uses CPU time when the load average is above the CPU count (as
   benchmarks/startup.py): other programs on a shared machine disturb it far less.
2. The first screen through an 80x24 pty (TERM=xterm-256color): from spawn until the
   footer's "^p palette" is written, `tracker open FILE` and `tracker` (start screen),
   against a bare app with a Header, a DataTable and a Footer (benchmarks/startup.py's
   `pty_time` and floor). Interleaved, median of N. Budget 1.4x. Wall time, or CPU time
   when the load average is above the CPU count (as benchmarks/startup.py).
3. A key's echo in the declare form: both apps run side by side in their own 80x24 pty,
   ours with the declare form open on the D6 fight, the targets field focused; a bare
   app with one focused Input. Letters are typed into each in turn (one key, wait for
   the echo, the other app's key, ...), and the time is from the key written to the pty
   until the text typed so far is on the screen. Two busy processes (`python -c "while
   1: pass"`) run beside them, started and stopped here (`--no-busy` leaves them out).
   Median of every key. Budget 2x.

Exit 0 when every figure is within budget. The config and data folders are pointed at an
empty temporary folder, so a user's settings change nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.clocks import cpu as cpu_s, describe, process_cpu_s  # noqa: E402

from startup import BARE as BARE_PTY  # noqa: E402
from startup import _ANSI, _env, interleaved, pty_time  # noqa: E402

from rulesets.dice import RandomDice  # noqa: E402
from tracker.persistence.library import Library  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402
from tracker.play.session import Session  # noqa: E402

SCREEN_BUDGET = 2.0
PTY_BUDGET = 1.4
ECHO_BUDGET = 2.0
FIGHT = "duel"


# ---------------------------------------------------------------- the fight
def build_fight(saves: Path) -> Path:
    """A D6 fight of 6 combatants, one of them saved in the library (for `l`)."""
    path = saves / f"{FIGHT}.toml"
    store, loaded = EncounterFile.create(path, FIGHT, "d6")
    s = Session(loaded.encounter, loaded.ruleset, RandomDice(7), None, "bench", library=Library.in_folder(saves, "d6"))
    for i in range(6):
        s.add(f"C{i:03d}", {"marksmanship": "4D+1", "dodge": "3D+2"}, side="PC" if i < 3 else "foe")
    s.save_sheet("C000")
    store.revision = 1
    store._write(s.encounter)
    return path


# ---------------------------------------------------------------- copying a screen
@dataclass
class Node:
    """One widget of a screen as drawn: what a bare app needs to build the same one."""

    base: type  # the Textual class it is built on
    name: str  # its own class name (type selectors in the stylesheet match it)
    css: str  # its DEFAULT_CSS
    ident: str | None
    classes: str
    inline: Any  # a copy of its inline styles (display, width, height set in code)
    content: Any = None  # Static/Label: what it shows; Input: value; OptionList: options
    placeholder: str = ""
    highlighted: int | None = None
    children: list[Node] = field(default_factory=list)


def _textual_base(cls: type) -> type:
    for klass in cls.__mro__:
        if klass.__module__.startswith("textual."):
            return klass
    raise TypeError(cls)


def copy_tree(widget: Any) -> Node:
    from rich.text import Text
    from textual.scroll_view import ScrollView
    from textual.widgets import Footer, Input, OptionList, Static

    cls = type(widget)
    base = _textual_base(cls)
    node = Node(base, cls.__name__, getattr(cls, "DEFAULT_CSS", ""), widget.id, " ".join(sorted(widget.classes)), widget._inline_styles.copy())
    if isinstance(widget, Footer):
        node.base = Footer
        return node
    if isinstance(widget, Input):
        node.base, node.content, node.placeholder = Input, widget.value, widget.placeholder
        return node
    if isinstance(widget, OptionList):
        node.base = OptionList
        node.content = [(o.prompt, o.id, o.disabled) for o in widget.options]
        node.highlighted = widget.highlighted
        return node
    if isinstance(widget, Static):
        node.content = widget.content
        return node
    if isinstance(widget, ScrollView) or (base.__name__ == "Widget" and not widget.children):
        # A line-API pane (roster, timeline, log): a Static of the lines it drew.
        lines = [widget.render_line(y) for y in range(widget.size.height)]
        text = Text("\n").join(Text.assemble(*((s.text, s.style) for s in strip if not s.control)) for strip in lines)
        node.base, node.content = Static, text
        return node
    node.children = [copy_tree(child) for child in widget.children if type(child).__name__ not in ("ToastRack", "Tooltip")]
    return node


_CLASSES: dict[tuple[type, str, str], type] = {}


def _class(base: type, name: str, css: str) -> type:
    if base.__name__ == name:
        return base
    key = (base, name, css)
    if key not in _CLASSES:
        _CLASSES[key] = type(name, (base,), {"DEFAULT_CSS": css, "__module__": __name__})
    return _CLASSES[key]


def build_tree(node: Node) -> Any:
    from textual.widgets import Footer, Input, OptionList, Static
    from textual.widgets.option_list import Option

    cls = _class(node.base, node.name, node.css)
    kw = {"id": node.ident, "classes": node.classes}
    if node.base is Footer:
        widget = cls(**kw)
    elif node.base is Input:
        widget = cls(node.content, placeholder=node.placeholder, **kw)
        widget.cursor_blink = False
    elif node.base is OptionList:
        widget = cls(*[Option(prompt, id=ident, disabled=disabled) for prompt, ident, disabled in node.content], **kw)
        if node.highlighted is not None:
            widget.highlighted = node.highlighted
    elif issubclass(node.base, Static):
        widget = cls(node.content, **kw)
    else:
        widget = cls(*[build_tree(child) for child in node.children], **kw)
    widget._inline_styles.merge(node.inline)
    return widget


def screen_class(screen: Any) -> tuple[type, list[Node], str, Any]:
    """A bare screen class like `screen`'s (same name, base and CSS), and its copied widgets."""
    from textual.screen import ModalScreen, Screen

    base = ModalScreen if isinstance(screen, ModalScreen) else Screen
    children = [copy_tree(child) for child in screen.children if type(child).__name__ not in ("ToastRack", "Tooltip")]
    cls = type(type(screen).__name__, (base,), {"DEFAULT_CSS": getattr(type(screen), "DEFAULT_CSS", ""), "__module__": __name__})
    return cls, children, " ".join(sorted(screen.classes)), screen._inline_styles.copy()


def bare_screen(spec: tuple[type, list[Node], str, Any]) -> Any:
    cls, children, classes, inline = spec

    class Copy(cls):  # type: ignore[misc, valid-type]
        def compose(self) -> Any:
            yield from (build_tree(child) for child in children)

    Copy.__name__ = cls.__name__
    screen = Copy(classes=classes)
    screen._inline_styles.merge(inline)
    return screen


# ---------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class Scenario:
    name: str
    context: str  # "encounter" (tracker open FILE) or "start" (the saves folder)
    setup: tuple[str, ...]  # keys pressed first (unmeasured): e opens the roster editor
    key: str


SCENARIOS = (
    Scenario("declare (a)", "encounter", (), "a"),
    Scenario("damage (d)", "encounter", (), "d"),
    Scenario("condition (c)", "encounter", (), "c"),
    Scenario("schedule (s)", "encounter", (), "s"),
    Scenario("surprise (S)", "encounter", (), "S"),
    Scenario("note (N)", "encounter", (), "N"),
    Scenario("roll (R)", "encounter", (), "R"),
    Scenario("viewers (v)", "encounter", (), "v"),
    Scenario("command line (:)", "encounter", (), "colon"),
    Scenario("log search (/)", "encounter", (), "slash"),
    Scenario("help (?)", "encounter", (), "question_mark"),
    Scenario("approvals (p)", "encounter", (), "p"),
    Scenario("history (H)", "encounter", (), "H"),
    Scenario("stats (t)", "encounter", (), "t"),
    Scenario("roster editor (e)", "encounter", (), "e"),
    Scenario("roster: add (a)", "encounter", ("e",), "a"),
    Scenario("roster: edit (e)", "encounter", ("e",), "e"),
    Scenario("roster: rename (r)", "encounter", ("e",), "r"),
    Scenario("roster: side (s)", "encounter", ("e",), "s"),
    Scenario("roster: from library (l)", "encounter", ("e",), "l"),
    Scenario("roster: to library (w)", "encounter", ("e",), "w"),
    Scenario("roster: remove (x)", "encounter", ("e",), "x"),
    Scenario("roster: help (?)", "encounter", ("e",), "question_mark"),
    Scenario("start: new encounter (n)", "start", (), "n"),
    Scenario("start: duplicate (c)", "start", (), "c"),
    Scenario("start: delete (D)", "start", (), "D"),
    Scenario("start: help (?)", "start", (), "question_mark"),
)

_CHAR = {"colon": ":", "slash": "/", "question_mark": "?"}


def key_event(key: str) -> Any:
    from textual import events

    return events.Key(key, _CHAR.get(key, key if len(key) == 1 else None))


Sample = tuple[float, float]  # (wall seconds, CPU seconds of this process)


async def _first_frame(app: Any, key: str, on_frame: Callable[[Any], None] | None = None) -> Sample:
    """Post `key`; seconds until the first frame that shows a screen other than the one before."""
    before = app.screen
    original = app._display
    marks: dict[str, float] = {}

    def display(screen: Any, update: Any) -> None:
        original(screen, update)
        if "frame" not in marks and screen is not before and screen is app.screen:
            marks["frame"] = time.monotonic()
            marks["cpu"] = cpu_s()
            if on_frame is not None:
                on_frame(screen)

    app._display = display
    try:
        marks["c0"] = cpu_s()
        marks["t0"] = time.monotonic()
        app.post_message(key_event(key))
        deadline = time.monotonic() + 20
        while "frame" not in marks:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no new screen after {key!r} (on {type(app.screen).__name__})")
            await asyncio.sleep(0.001)
    finally:
        app._display = original
    return marks["frame"] - marks["t0"], marks["cpu"] - marks["c0"]


async def _settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.pause()
    await asyncio.sleep(0.05)
    await pilot.pause()


async def _taking_keys(app: Any) -> None:
    """Until the app would hand a key on at once, as it does for a person who pauses
    after closing the last dialog. A key that arrives with the Esc that closed it (one
    read over SSH) waits until the screen under is set up, up to `SETTLE` (0.1 s) when no
    field has the focus (tracker/ui/guard.py): the price of a burst landing where slow
    typing would, not of opening a screen."""
    while not app.key_hold._ready():
        await asyncio.sleep(0.01)


async def ours_round(saves: Path, file: Path, scenarios: list[Scenario], specs: dict[str, tuple[Any, Any]]) -> dict[str, Sample]:
    """Open each scenario's screen once in the app; copy it (and the screen under) when not yet copied."""
    from tracker.ui.app import TrackerApp

    times: dict[str, Sample] = {}
    for context in ("encounter", "start"):
        todo = [s for s in scenarios if s.context == context]
        if not todo:
            continue
        app = TrackerApp(saves, file if context == "encounter" else None, user="bench")
        async with app.run_test(size=(80, 24)) as pilot:
            await _settle(pilot)
            base_depth = len(app.screen_stack)
            for scenario in todo:
                for key in scenario.setup:
                    await pilot.press(key)
                    await _settle(pilot)
                await _taking_keys(app)
                under = app.screen
                copied: list[Any] = []
                times[scenario.name] = await _first_frame(app, scenario.key, None if scenario.name in specs else copied.append)
                if copied:
                    specs[scenario.name] = (screen_class(under), screen_class(copied[0]))
                await _settle(pilot)
                while len(app.screen_stack) > base_depth:
                    app.pop_screen()
                    await _settle(pilot)
    return times


async def bare_round(scenarios: list[Scenario], specs: dict[str, tuple[Any, Any]]) -> dict[str, Sample]:
    from textual import events
    from textual.app import App

    class Bare(App[None]):
        CSS_PATH = str(ROOT / "tracker" / "ui" / "tracker.tcss")

        def __init__(self) -> None:
            super().__init__()
            self.animation_level = "none"
            self.armed: tuple[str, Any] | None = None

        def on_key(self, event: events.Key) -> None:
            if self.armed is not None and event.key == self.armed[0]:
                self.push_screen(bare_screen(self.armed[1]))
                self.armed = None

    times: dict[str, Sample] = {}
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        for scenario in scenarios:
            under, top = specs[scenario.name]
            app.push_screen(bare_screen(under))
            await _settle(pilot)
            app.armed = (scenario.key, top)
            times[scenario.name] = await _first_frame(app, scenario.key)
            await _settle(pilot)
            while len(app.screen_stack) > 1:
                app.pop_screen()
            await _settle(pilot)
    return times


def screens(saves: Path, file: Path, rounds: int, scenarios: list[Scenario]) -> list[tuple[str, Sample, Sample]]:
    specs: dict[str, tuple[Any, Any]] = {}
    asyncio.run(ours_round(saves, file, scenarios, specs))  # warm-up: imports, and the copies
    asyncio.run(bare_round(scenarios, specs))
    ours: dict[str, list[Sample]] = {s.name: [] for s in scenarios}
    bare: dict[str, list[Sample]] = {s.name: [] for s in scenarios}
    for r in range(rounds):
        for name, t in asyncio.run(ours_round(saves, file, scenarios, specs)).items():
            ours[name].append(t)
        for name, t in asyncio.run(bare_round(scenarios, specs)).items():
            bare[name].append(t)
        print(f"  round {r + 1}/{rounds}", flush=True)
    return [(s.name, _median(bare[s.name]), _median(ours[s.name])) for s in scenarios]


def _median(samples: list[Sample]) -> Sample:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


# ---------------------------------------------------------------- a key's echo
BARE_INPUT = """
from textual.app import App
from textual.widgets import Input
class Bare(App):
    def compose(self):
        yield Input(id="field", placeholder="BARE READY")
    def on_mount(self):
        self.animation_level = "none"
        field = self.query_one(Input)
        field.cursor_blink = False
        field.focus()
Bare().run()
"""

OURS_DECLARE = """
import sys
from pathlib import Path
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen

class Timed(TrackerApp):
    def on_ready(self):
        self.set_timer(0.05, self.open_form)

    def open_form(self):
        if not isinstance(self.screen, EncounterScreen):
            self.set_timer(0.05, self.open_form)
            return
        self.screen.do_declare()
        self.set_timer(0.05, self.focus_targets)

    def focus_targets(self):
        field = self.screen.query("#d-targets")
        if not field:
            self.set_timer(0.05, self.focus_targets)
            return
        field.first().focus()
        self.notify("FORM READY", timeout=1)

Timed(Path({saves!r}), Path({file!r}), user="bench").run()
"""


class PtyApp:
    """A child on an 80x24 pty, its output read as text with the escapes removed."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.text = b""
        self.rest = b""

    def read_until(self, needle: bytes, since: int, timeout: float) -> float:
        """Read until `needle` is in the text from offset `since`; the time it arrived."""
        give_up = time.monotonic() + timeout
        while True:
            if needle in self.text[since:]:
                return time.monotonic()
            left = give_up - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"{needle!r} not seen; last output {self.text[-300:]!r}")
            self._read(left)

    def drain(self, quiet: float, timeout: float = 10.0) -> None:
        """Read until nothing has come for `quiet` seconds."""
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up and self._read(quiet):
            continue  # each read keeps what came; a quiet spell (or the timeout) ends it

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            raise RuntimeError(f"the app ended; output {self.text[-300:]!r}")
        # A chunk may end inside an escape: the tail from its last ESC waits for the next.
        data = self.rest + chunk
        cut = data.rfind(b"\x1b")
        cut = cut if cut >= 0 and len(data) - cut < 64 else len(data)
        self.text += _ANSI.sub(b"", data[:cut])
        self.rest = data[cut:]
        return True

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):  # it may have ended already
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)


ECHO_CPU: dict[str, float] = {}  # CPU seconds per key of each app over the last `echoes` (its pauses included)


def echoes(saves: Path, file: Path, env: dict[str, str], words: int, busy: bool) -> tuple[list[float], list[float]]:
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(2 if busy else 0)]
    bare = PtyApp([sys.executable, "-c", BARE_INPUT], env)
    ours = PtyApp([sys.executable, "-c", OURS_DECLARE.format(saves=str(saves), file=str(file))], env)
    bare_t: list[float] = []
    ours_t: list[float] = []
    try:
        bare.read_until(b"BARE READY", 0, 60)
        ours.read_until(b"FORM READY", 0, 60)
        bare.drain(0.5)
        ours.drain(0.5)
        letters = "zqxjvkwy"
        used = {"bare": process_cpu_s(bare.proc.pid), "ours": process_cpu_s(ours.proc.pid)}
        for w in range(words):
            word = letters[w % 3 :] + letters[: w % 3]
            for n in range(1, 7):
                for app, times in ((bare, bare_t), (ours, ours_t)) if (w + n) % 2 else ((ours, ours_t), (bare, bare_t)):
                    since = len(app.text)
                    start = time.monotonic()
                    app.send(word[n - 1].encode())
                    times.append(app.read_until(word[:n].encode(), since, 30) - start)
                    app.drain(0.05, 2)
            for app in (bare, ours):
                app.send(b"\x15")  # ctrl+u: the field empty again
                app.drain(0.3)
        for name, app in (("bare", bare), ("ours", ours)):
            ECHO_CPU[name] = (process_cpu_s(app.proc.pid) - used[name]) / (words * 7)  # 6 letters and ctrl+u a word
    finally:
        bare.close()
        ours.close()
        for hog in hogs:
            hog.kill()
            hog.wait()
    return bare_t, ours_t


# ---------------------------------------------------------------- main
def ratio_table(what: str, rows: list[tuple[str, tuple[float, float], tuple[float, float]]], budget: float, medians: str) -> bool:
    """Print (wall, CPU) seconds of the bare app and ours per row, as a table with each
    ratio; whether every row is within `budget`, judged on CPU time when the machine is
    loaded (more runnable processes than cores), else on wall time."""
    loaded = os.getloadavg()[0] > (os.cpu_count() or 1)
    ok = True
    print(f"| {what} | wall: bare (ms) | ours | ratio | CPU: bare (ms) | ours | ratio | budget {budget}x |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, (bw, bc), (ow, oc) in rows:
        ratio = oc / bc if loaded else ow / bw
        ok &= ratio <= budget
        print(f"| {name} | {bw * 1000:.0f} | {ow * 1000:.0f} | {ow / bw:.2f} | {bc * 1000:.0f} | {oc * 1000:.0f} | {oc / bc:.2f} | {'OVER' if ratio > budget else 'ok'} |")
    print(f"({medians}; verdict on {'CPU time: the machine is loaded' if loaded else 'wall time'})")
    print()
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and keys")
    parser.add_argument("--rounds", type=int, help="rounds of the screens (default 7; --quick 3)")
    parser.add_argument("--no-busy", action="store_true", help="no busy processes beside the echo measurement")
    parser.add_argument("--only", default="screens,pty,echo", help="which parts: screens, pty, echo (comma-separated)")
    parser.add_argument("--screens", default="", help="only the screens whose name holds one of these words (comma-separated)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 7)
    parts = {p.strip() for p in args.only.split(",")}
    wanted = [w.strip() for w in args.screens.split(",") if w.strip()]
    scenarios = [s for s in SCENARIOS if not wanted or any(w in s.name for w in wanted)]
    ok = True
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = _env(home)
        os.environ.update(XDG_CONFIG_HOME=env["XDG_CONFIG_HOME"], XDG_DATA_HOME=env["XDG_DATA_HOME"])
        os.environ.pop("TRACKER_CONFIG", None)
        saves = home / "saves"
        saves.mkdir()
        file = build_fight(saves)
        env["TRACKER_SAVES"] = str(saves)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "tracker"), str(ROOT / "rulesets")], env=env, check=True)
        load = os.getloadavg()[0]
        if "screens" in parts:
            print(f"screens: {rounds} rounds, each screen once per round in each app ...", flush=True)
            rows = screens(saves, file, rounds, scenarios)
            print()
            ok &= ratio_table("screen", rows, SCREEN_BUDGET, f"medians of {rounds} rounds")
        if "pty" in parts:
            runs = rounds + 2
            bare = lambda: pty_time([sys.executable, "-c", BARE_PTY], b"^p palette", env)  # noqa: E731
            tracker = [sys.executable, "-m", "tracker"]
            rows_pty = []
            floor_s, ours_s = interleaved(runs, bare, lambda: pty_time([*tracker, "open", str(file)], b"^p palette", env))
            rows_pty.append(("tracker open FILE (encounter screen)", floor_s, ours_s))
            floor_s, ours_s = interleaved(runs, bare, lambda: pty_time(tracker, b"^p palette", env))
            rows_pty.append(("tracker (start screen)", floor_s, ours_s))
            ok &= ratio_table("first screen through an 80x24 pty, vs bare Header+DataTable+Footer", rows_pty, PTY_BUDGET, f"medians of {runs} interleaved runs")
        if "echo" in parts:
            words = 2 if args.quick else 4
            b_t, o_t = echoes(saves, file, env, words, not args.no_busy)
            b, o = statistics.median(b_t), statistics.median(o_t)
            ok &= o / b <= ECHO_BUDGET
            beside = "no busy processes" if args.no_busy else "two busy processes beside"
            print(f"| key echo, {beside} | bare Input (ms) | declare form (ms) | ratio | budget {ECHO_BUDGET}x |")
            print("|---|---:|---:|---:|---|")
            print(f"| median of {len(o_t)} keys each (p90) | {b * 1000:.0f} ({_p90(b_t) * 1000:.0f}) | {o * 1000:.0f} ({_p90(o_t) * 1000:.0f}) | {o / b:.2f} | {'OVER' if o / b > ECHO_BUDGET else 'ok'} |")
            if ECHO_CPU:
                print(f"| CPU per key, each app's own (pauses between keys included) | {ECHO_CPU['bare'] * 1000:.1f} | {ECHO_CPU['ours'] * 1000:.1f} | {ECHO_CPU['ours'] / ECHO_CPU['bare']:.2f} | |")
            print()
    print(f"{os.cpu_count()} cpus, load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


if __name__ == "__main__":
    raise SystemExit(main())
