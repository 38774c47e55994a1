"""Direct tests of tracker.ui.guard, worked from its docstrings and
docs/decisions/0005-key-hold.md, 0004-escape-then-key.md: an exception in a handler is a
notification, never the end of the app (a refusal in its own words, a bug as "internal
error: ..." kept in `app.errors`); alt+KEY that nothing binds is Esc then KEY; keys that
arrive while the top screen is not ready wait, in order, and each goes out once the
screen has been calm on two checks in a row, or after `MAX_HOLD` seconds whatever the
screen does; a burst longer than `MAX_HELD` keys is refused whole, once, until it pauses
for `BURST_GAP` seconds; a paste is never refused.

The key hold is driven here by hand: its clock (`monotonic`) and the loop's timer
(`call_later`) are stand-ins the tests move, and its app is a stand-in whose screen is
ready or not as the test says. The screen-reading functions (`screen_mounted`,
`settled_focus`, `busy`, `_ready`) are also run against a real screen in a bare app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Static

from tracker.engine import TrackerError
from tracker.ui import guard
from tracker.ui.guard import KeyHold, busy, error_line, protect, report, screen_mounted, settled_focus, split_escape
from tests.ui import ScreenApp, wait_for


# ------------------------------------------------------------------ error_line, report
def test_a_refusal_is_its_own_words_and_a_bug_says_the_app_goes_on() -> None:
    assert error_line(TrackerError("no such combatant: Bo")) == "no such combatant: Bo"
    assert error_line(ValueError("bad")) == "internal error: ValueError: bad (the app goes on; the last saved change is on disk)"
    assert error_line(KeyError()) == "internal error: KeyError: KeyError (the app goes on; the last saved change is on disk)"


class _Notified:
    """An app as `report` and the key hold use it: its notifications and bugs kept."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.later: list[Callable[[], Any]] = []

    def notify(self, message: str, **options: Any) -> None:
        self.notes.append((message, options))

    def call_next(self, callback: Callable[[], Any]) -> None:
        self.later.append(callback)


def test_a_bug_is_kept_and_shown_a_refusal_only_shown() -> None:
    app = _Notified()
    bug = RuntimeError("oops")
    report(app, bug)  # type: ignore[arg-type]
    report(app, TrackerError("not now"))  # type: ignore[arg-type]
    assert app.errors == [bug]
    assert app.notes == [
        ("internal error: RuntimeError: oops (the app goes on; the last saved change is on disk)", {"severity": "error", "timeout": 8, "markup": False}),
        ("not now", {"severity": "error", "timeout": 8, "markup": False}),
    ]


def test_a_report_to_a_closing_app_or_one_that_keeps_no_bugs_is_quiet() -> None:
    class Closing(_Notified):
        def notify(self, message: str, **options: Any) -> None:
            raise RuntimeError("no screen")

    closing = Closing()
    report(closing, ValueError("late"))  # type: ignore[arg-type]
    assert [type(e) for e in closing.errors] == [ValueError]

    class NoList(_Notified):
        errors = ()  # type: ignore[assignment]

    plain = NoList()
    plain.errors = ()  # type: ignore[assignment]
    report(plain, ValueError("x"))  # type: ignore[arg-type]
    assert plain.errors == () and len(plain.notes) == 1

    class Bare:  # an app with no `errors` at all (not the tracker's)
        def __init__(self) -> None:
            self.notes: list[str] = []

        def notify(self, message: str, **options: Any) -> None:
            self.notes.append(message)

    bare = Bare()
    report(bare, ValueError("y"))  # type: ignore[arg-type]
    assert bare.notes == ["internal error: ValueError: y (the app goes on; the last saved change is on disk)"]


# ------------------------------------------------------------------ protect
class _Boom(Message):
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error


class _Raising(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("a screen whose handler fails")

    def on__boom(self, message: _Boom) -> None:
        raise message.error


class _Guarded(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []
        self.shown: list[str] = []
        protect(self)

    def notify(self, message: str, **options: Any) -> None:  # type: ignore[override]
        self.shown.append(message)

    def on__boom(self, message: _Boom) -> None:
        raise message.error


@pytest.mark.ui
async def test_an_exception_in_a_handler_of_the_app_or_a_screen_is_a_message_and_the_app_goes_on() -> None:
    app = _Guarded()
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(_Boom(ValueError("in the app")))
        await wait_for(pilot, lambda: len(app.shown) == 1, "the app's bug shown")
        screen = _Raising()
        assert protect(screen) is screen
        await app.push_screen(screen)
        screen.post_message(_Boom(TrackerError("refused on the screen")))
        screen.post_message(_Boom(KeyError("k")))
        await wait_for(pilot, lambda: len(app.shown) == 3, "the screen's two shown")
        assert app.shown == [
            "internal error: ValueError: in the app (the app goes on; the last saved change is on disk)",
            "refused on the screen",
            "internal error: KeyError: 'k' (the app goes on; the last saved change is on disk)",
        ]
        assert [type(e) for e in app.errors] == [ValueError, KeyError]
        assert app.is_running and app.screen is screen


# ------------------------------------------------------------------ split_escape
def test_alt_and_a_key_nothing_binds_is_escape_then_the_key() -> None:
    unbound: Callable[[str], bool] = lambda key: False  # noqa: E731
    split = split_escape(events.Key("alt+a", "a"), unbound)
    assert split is not None and [(k.key, k.character) for k in split] == [("escape", "\x1b"), ("a", "a")]
    shifted = split_escape(events.Key("alt+shift+a", "A"), unbound)
    assert shifted is not None and [(k.key, k.character) for k in shifted] == [("escape", "\x1b"), ("A", "A")]
    # shift with no capital typed (a function key, no character, two characters): as it is
    for key, char, rest in (("alt+shift+tab", None, "shift+tab"), ("alt+shift+a", "a", "shift+a"), ("alt+shift+a", "AB", "shift+a")):
        split = split_escape(events.Key(key, char), unbound)
        assert split is not None and split[1].key == rest and split[1].character == char
    asked: list[str] = []
    assert split_escape(events.Key("alt+a", "a"), lambda key: asked.append(key) or True) is None  # a real alt binding
    assert asked == ["alt+a"]
    assert split_escape(events.Key(guard.ALT, None), unbound) is None  # "alt+" and nothing
    assert split_escape(events.Key("a", "a"), unbound) is None
    assert split_escape(events.Key("shift+alt+a", "A"), unbound) is None


# ------------------------------------------------------------------ the key hold, by hand
class _Clock:
    def __init__(self) -> None:
        self.now = 0.0  # (sums of tenths from 0 are exact enough for `<` against 0.3)

    def __call__(self) -> float:
        return self.now


class _Timer:
    """The running loop's `call_later`, recorded; `fire` runs what is due."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, Callable[[], None]]] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> None:
        self.calls.append((delay, callback))


class _Queue:
    def __init__(self) -> None:
        self.size = 0

    def qsize(self) -> int:
        return self.size


class _Node:
    """A screen or a focused widget as the hold reads it."""

    def __init__(self, mounted: bool = True) -> None:
        self.is_mounted = mounted
        self._message_queue = _Queue()
        self.focused: Any = None
        self.children: list[_Node] = []
        self.working = False

    def walk_children(self, *kind: Any) -> list[_Node]:
        return list(self.children)


class _Field:
    """A focused input field (not a scroll container)."""


class _HoldApp(_Notified):
    def __init__(self) -> None:
        super().__init__()
        self._message_queue = _Queue()
        self.screen: Any = _Node()
        self.screen.focused = _Field()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    clock = _Clock()
    monkeypatch.setattr(guard, "monotonic", clock)
    return clock


@pytest.fixture
def timer(monkeypatch: pytest.MonkeyPatch) -> _Timer:
    timer = _Timer()
    monkeypatch.setattr(guard.asyncio, "get_running_loop", lambda: timer)
    return timer


def _key(name: str) -> events.Key:
    return events.Key(name, name if len(name) == 1 else None)


def _hold() -> tuple[_HoldApp, KeyHold, list[str]]:
    app = _HoldApp()
    sent: list[str] = []

    async def forward(event: events.Key | events.Paste) -> None:
        sent.append(getattr(event, "key", None) or f"paste:{event.text}")  # type: ignore[union-attr]

    return app, KeyHold(app, forward), sent  # type: ignore[arg-type]


def test_a_key_for_a_ready_screen_goes_straight_on(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    assert hold.keys == [] and not hold.holding and hold.refused == 0 and not hold.refusing
    assert hold.trace.maxlen == 40
    assert hold.wants(_key("a")) is False
    assert hold.keys == [] and timer.calls == []


def test_keys_for_a_screen_not_ready_wait_in_order_and_a_check_is_due(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    clock.now = 100.0
    assert hold.wants(_key("a")) is True
    assert hold.since == 100.0 and hold.holding
    assert [delay for delay, _ in timer.calls] == [guard.CHECK_EVERY] == [0.005]
    clock.now += 1
    app.screen.is_mounted = True  # ready now, but keys are held: the next waits behind them
    assert hold.wants(_key("b")) is True
    paste = events.Paste("text")
    assert hold.wants(paste) is True
    assert [getattr(k, "key", "paste") for k in hold.keys] == ["a", "b", "paste"]
    assert len(timer.calls) == 1 and hold.since == 100.0  # one check is enough while it is soon
    clock.now = 100.0 + guard.MAX_HOLD  # held MAX_HOLD seconds: still soon enough
    hold.wants(_key("c"))
    assert len(timer.calls) == 1
    clock.now += 0.5  # held longer than MAX_HOLD: another check, never stranded
    hold.wants(_key("d"))
    assert len(timer.calls) == 2


def test_the_check_asks_the_app_to_release_on_its_own_loop(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    hold.wants(_key("a"))
    (_, due), = timer.calls
    due()
    assert app.later == [hold.release]

    class Gone(_HoldApp):
        def call_next(self, callback: Callable[[], Any]) -> None:
            raise RuntimeError("closed")

    gone = Gone()
    KeyHold(gone, hold.forward)._due()  # type: ignore[arg-type]  # nothing left to hand keys to: quiet


def test_with_no_loop_running_nothing_is_scheduled(clock: _Clock) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    assert hold.wants(_key("a")) is True  # held, and no error though no loop runs
    hold.hold([_key("b")])
    assert [k.key for k in hold.keys] == ["a", "b"]  # type: ignore[union-attr]


async def _release(hold: KeyHold, times: int) -> None:
    for _ in range(times):
        await hold.release()


async def test_each_held_key_goes_once_the_screen_is_calm_on_two_checks(clock: _Clock, timer: _Timer) -> None:
    app, hold, sent = _hold()
    app.screen.is_mounted = False
    for name in "abc":
        hold.wants(_key(name))
    await _release(hold, 3)
    assert sent == [] and len(hold.keys) == 3  # not ready: kept
    app.screen.is_mounted = True
    await hold.release()  # calm once
    assert sent == []
    await hold.release()  # calm twice: one key out; the check right after it is the next's first
    assert sent == ["a"]
    await hold.release()
    assert sent == ["a", "b"]
    app.screen.is_mounted = False
    await hold.release()  # not calm: counting starts again
    app.screen.is_mounted = True
    await hold.release()
    assert sent == ["a", "b"]
    await hold.release()
    assert sent == ["a", "b", "c"] and not hold.holding
    assert list(hold.trace) == [("a", "_Node", "_Field"), ("b", "_Node", "_Field"), ("c", "_Node", "_Field")]


async def test_after_max_hold_seconds_the_keys_go_whatever_the_screen(clock: _Clock, timer: _Timer) -> None:
    app, hold, sent = _hold()
    app.screen.is_mounted = False
    hold.wants(_key("a"))
    hold.wants(events.Paste("pasted"))
    clock.now += guard.MAX_HOLD - 0.01
    await hold.release()
    assert sent == []
    clock.now += 0.01  # MAX_HOLD seconds since it was held (3 s, docs/decisions/0005)
    await hold.release()
    assert sent == ["a"]  # the next counts its own MAX_HOLD from now
    await hold.release()
    assert sent == ["a"]
    clock.now += guard.MAX_HOLD
    await hold.release()
    assert sent == ["a", "paste:pasted"]
    assert list(hold.trace) == [("a", "_Node", "_Field"), ("paste", "_Node", "_Field")]


async def test_a_key_whose_effect_fails_is_reported_and_the_next_still_goes(clock: _Clock, timer: _Timer) -> None:
    app = _HoldApp()
    sent: list[str] = []

    async def forward(event: Any) -> None:
        sent.append(event.key)
        if event.key == "a":
            raise ValueError("broken handler")

    hold = KeyHold(app, forward)  # type: ignore[arg-type]
    hold.hold([_key("a"), _key("b")])
    await _release(hold, 4)
    assert sent == ["a", "b"]
    assert [type(e) for e in app.errors] == [ValueError]
    assert app.notes[0][0].startswith("internal error: ValueError: broken handler")


async def test_a_release_while_one_runs_does_nothing(clock: _Clock, timer: _Timer) -> None:
    app = _HoldApp()
    sent: list[str] = []
    hold: KeyHold

    async def forward(event: Any) -> None:
        sent.append(event.key)
        assert hold.holding  # handing keys on counts as holding
        await hold.release()  # the key's effect asks for a release: not a second loop

    hold = KeyHold(app, forward)  # type: ignore[arg-type]
    hold.hold([_key("a"), _key("b")])
    await _release(hold, 2)
    assert sent == ["a"] and [k.key for k in hold.keys] == ["b"]  # type: ignore[union-attr]
    assert not hold.holding or hold.keys


async def test_a_screen_that_cannot_be_named_is_traced_blank(clock: _Clock, timer: _Timer) -> None:
    app, hold, sent = _hold()

    class Between(_Notified):
        _message_queue = _Queue()

        @property
        def screen(self) -> Any:
            raise RuntimeError("no screen")

    between = Between()
    hold2 = KeyHold(between, hold.forward)  # type: ignore[arg-type]
    hold2.hold([_key("x")])
    await _release(hold2, 2)  # a screen that cannot be read counts as ready
    assert sent == ["x"] and list(hold2.trace) == [("x", "", "")]
    hold2.keys.append(events.Paste("p"))
    await _release(hold2, 2)
    assert sent == ["x", "paste:p"] and list(hold2.trace)[-1] == ("paste", "", "")


def test_hold_takes_keys_up_to_max_held_and_schedules_a_check_when_it_starts(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    hold.hold([_key("a")])
    assert hold.since == 0.0 and len(timer.calls) == 1
    clock.now += 5
    hold.hold([_key("b")])
    assert hold.since == 0.0 and len(timer.calls) == 1  # already waiting
    hold.hold([_key("k")] * guard.MAX_HELD)
    assert len(hold.keys) == guard.MAX_HELD == 512
    hold.hold([_key("z")])
    assert len(hold.keys) == 512 and hold.keys[-1].key == "k"  # type: ignore[union-attr]


def test_a_burst_longer_than_max_held_is_refused_whole_until_it_pauses(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    hold.wants(events.Paste("kept"))
    for _ in range(guard.MAX_HELD - 1):
        assert hold.wants(_key("k")) is True
    assert len(hold.keys) == 512 and app.notes == []
    assert hold.wants(_key("one too many")) is True
    assert [getattr(k, "text", None) for k in hold.keys] == ["kept"]  # the keys dropped, the paste kept
    assert hold.refused == 512  # the 511 held and the one that overflowed
    (message, options), = app.notes
    assert message == (
        "more than the 512 keys the app holds arrived in one burst: the keys of it still waiting were not used "
        "(none will turn up later). Paste with your terminal's own paste (bracketed), or in smaller pieces."
    )
    assert options == {"severity": "warning", "timeout": 8}
    clock.now += guard.BURST_GAP - 0.01
    assert hold.refusing and hold.wants(_key("more")) is True
    assert hold.refused == 513 and len(hold.keys) == 1
    clock.now += guard.BURST_GAP - 0.01  # the gap counts from the last key of the burst
    assert hold.wants(_key("more")) is True and hold.refused == 514
    assert hold.wants(events.Paste("a paste is never refused")) is True
    assert hold.refused == 0 and len(hold.keys) == 2
    clock.now += guard.BURST_GAP
    assert not hold.refusing


def test_pastes_are_held_past_max_held(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    for _ in range(guard.MAX_HELD):
        hold.wants(events.Paste("p"))
    assert hold.wants(events.Paste("one more")) is True
    assert len(hold.keys) == 513 and app.notes == []


def test_the_burst_refusal_ends_after_a_pause_of_burst_gap(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.is_mounted = False
    for _ in range(guard.MAX_HELD + 1):
        hold.wants(_key("k"))
    assert hold.refusing
    clock.now += guard.BURST_GAP  # 0.3 s of quiet: a new burst
    assert not hold.refusing and guard.BURST_GAP == 0.3
    assert hold.wants(_key("new")) is True and [k.key for k in hold.keys] == ["new"]  # type: ignore[union-attr]
    assert hold.refused == 0


# ------------------------------------------------------------------ _ready, by hand
def test_ready_needs_every_widget_mounted_and_nothing_queued(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    assert hold._ready()
    child = _Node(mounted=False)
    app.screen.children = [child]
    assert not hold._ready()
    child.is_mounted = True
    child._message_queue.size = 1  # a message waiting on a widget of the screen
    assert not hold._ready()
    child._message_queue.size = 0
    app.screen._message_queue.size = 2
    assert not hold._ready()
    app.screen._message_queue.size = 0
    app._message_queue.size = 1  # on the app itself
    assert not hold._ready()
    app._message_queue.size = 0
    app.screen.working = True  # its file work on a thread
    assert not hold._ready()
    app.screen.working = False
    assert hold._ready()


def test_with_no_field_focused_the_screen_is_ready_once_it_has_stayed_so_for_settle(clock: _Clock, timer: _Timer) -> None:
    app, hold, _ = _hold()
    app.screen.focused = None
    assert not hold._ready()
    clock.now += guard.SETTLE - 0.01
    assert not hold._ready()
    clock.now += 0.01
    assert hold._ready() and guard.SETTLE == 0.1
    app.screen.focused = VerticalScroll.__new__(VerticalScroll)  # a scroll container focused: a new state
    assert not hold._ready()
    clock.now += guard.SETTLE
    assert hold._ready()
    app.screen.focused = None
    assert not hold._ready()
    clock.now += guard.SETTLE
    assert hold._ready()
    other = _Node()
    other.focused = None
    app.screen = other  # another screen, nothing focused on either: it settles again
    assert not hold._ready()
    app.screen.focused = _Field()
    assert hold._ready()  # a field focused is ready at once


# ------------------------------------------------------------------ against a real screen
class _Ping(Message):
    """A message nobody handles."""


class _Form(Screen[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            yield Static("a form")
            yield Input(id="field")
            yield Button("OK", id="ok")


@pytest.mark.ui
async def test_a_real_screen_is_mounted_settled_and_busy_as_textual_has_it() -> None:
    form = _Form()
    app = ScreenApp(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form and screen_mounted(form), "the form mounted")
        body, field = form.query_one("#body", VerticalScroll), form.query_one("#field", Input)
        body.focus()
        await wait_for(pilot, lambda: form.focused is body, "the body focused")
        assert not settled_focus(form)  # a scroll container: Textual's first guess
        field.focus()
        await wait_for(pilot, lambda: form.focused is field, "the field focused")
        assert not settled_focus(form)  # a text field is a scroll view: it waits SETTLE too
        ok = form.query_one("#ok", Button)
        ok.focus()
        await wait_for(pilot, lambda: form.focused is ok, "the button focused")
        assert settled_focus(form)
        form.set_focus(None)
        await wait_for(pilot, lambda: form.focused is None, "nothing focused")
        assert not settled_focus(form)
        await wait_for(pilot, lambda: not busy(app), "nothing queued")
        form.working = True  # type: ignore[attr-defined]
        assert busy(app)
        form.working = False  # type: ignore[attr-defined]
        assert not busy(app)
        field.post_message(_Ping())  # a message waiting on a field of the screen
        assert busy(app)
        await wait_for(pilot, lambda: not busy(app), "the field's message handled")
        form.post_message(_Ping())  # on the screen
        assert busy(app)
        await wait_for(pilot, lambda: not busy(app), "the screen's message handled")
        app.post_message(_Ping())  # on the app
        assert busy(app)
        await wait_for(pilot, lambda: not busy(app), "the app's message handled")
    unmounted = _Form()
    assert not screen_mounted(unmounted)
