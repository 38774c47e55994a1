"""Each use of Textual's private internals (tracker/ui/textual_private.py) still applies
to the installed Textual: the private name and signature are there as assumed, and the
behaviour relied on still holds. A Textual release that changes one fails its test here;
one that fixes the upstream issue fails it too (the premise is checked), so the
workaround can go. Also: what now uses public API instead keeps doing what it did."""

from __future__ import annotations

import asyncio
import codecs
import importlib
import inspect
import io
from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Input

from tests.ui import wait_for
from tracker.ui.settings import character_key
from tracker.ui import textual_private as private
from tracker.ui.screens.form import FieldInput


def params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def parsed(data: str, parser_class: type[XTermParser] = XTermParser) -> list[events.Key]:
    parser = parser_class()
    keys = [e for e in parser.feed(data) if isinstance(e, events.Key)]
    keys += [e for e in parser.feed("") if isinstance(e, events.Key)]  # end of input
    return keys


def driver_sources() -> dict[str, str]:
    found = {}
    for name in private.DRIVERS:
        try:
            found[name] = inspect.getsource(importlib.import_module(name))
        except ImportError:  # a platform without it
            continue
    assert "textual.drivers.linux_driver" in found
    return found


# 1 ---------------------------------------------------------------- the key parser
def test_the_parser_override_still_applies() -> None:
    # The name and signature overridden, and how the drivers get the class: by the name
    # their module imported (so replacing that module attribute reaches them).
    assert params(XTermParser._sequence_to_key_events) == ["self", "sequence", "alt"]
    for name, source in driver_sources().items():
        assert "from textual._xterm_parser import XTermParser" in source, name
        assert "XTermParser(" in source, name
    # The premise (Textualize/textual#6663): ESC then a named key loses the Esc (then a
    # letter it does not: alt+a).
    assert [k.key for k in parsed("\x1ba")] == ["alt+a"]
    assert [k.key for k in parsed("\x1b?")] == ["question_mark"]
    assert [k.key for k in parsed("\x1b\r")] == ["enter"]
    # What the override makes of it, and the drivers use it once installed.
    assert [k.key for k in parsed("\x1b?", private.EscapeParser)] == ["alt+question_mark"]
    assert [k.key for k in parsed("\x1b\r", private.EscapeParser)] == ["alt+enter"]
    assert [k.key for k in parsed("\x1b", private.EscapeParser)] == ["escape"]
    private.install_key_readers()
    assert importlib.import_module("textual.drivers.linux_driver").XTermParser is private.EscapeParser


# 2 ---------------------------------------------------------------- the decoder
def test_the_decoder_replacement_still_applies() -> None:
    # The drivers still make a strict decoder through the name their module imported
    # (Textualize/textual#6456); once they pass errors= themselves this fails.
    for name, source in driver_sources().items():
        assert "from codecs import getincrementaldecoder" in source, name
        assert 'getincrementaldecoder("utf-8")()' in source, name
    with pytest.raises(UnicodeDecodeError):
        codecs.getincrementaldecoder("utf-8")().decode(b"a\xffb")
    assert private.lenient_decoder("utf-8")().decode(b"a\xffb") == "a\ufffdb"
    private.install_key_readers()
    assert importlib.import_module("textual.drivers.linux_driver").getincrementaldecoder is private.lenient_decoder


# 3 ---------------------------------------------------------------- handler errors
class Boom(Message):
    """A message whose handler fails."""


class Fine(Message):
    """A message whose handler counts it."""


class Bare(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.fine = 0

    def on_boom(self, message: Boom) -> None:
        raise RuntimeError("a bug in a handler")

    def on_fine(self, message: Fine) -> None:
        self.fine += 1


def test_the_dispatch_and_last_resort_are_still_where_the_guard_wraps_them() -> None:
    assert inspect.iscoroutinefunction(MessagePump._dispatch_message)
    assert params(MessagePump._dispatch_message) == ["self", "message"]
    assert params(App._handle_exception) == ["self", "error"]
    assert Bare()._exit_renderables == []
    # The message loop calls it through the instance (so a per-instance wrapper is used).
    assert "await self._dispatch_message(message)" in inspect.getsource(MessagePump._process_messages_loop)


@pytest.mark.ui
async def test_a_guarded_app_reports_a_handler_error_and_goes_on() -> None:
    app = Bare()
    errors: list[BaseException] = []
    private.guard_messages(app, errors.append)
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(Boom())
        await wait_for(pilot, lambda: bool(errors), "the handler's error reported")
        app.post_message(Fine())
        await wait_for(pilot, lambda: app.fine == 1, "the next message handled")
        assert app.is_running
    assert [str(e) for e in errors] == ["a bug in a handler"]


# 4 ---------------------------------------------------------------- queued messages
@pytest.mark.ui
async def test_the_message_queue_still_counts_what_waits() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: private.queued(app) == 0, "the app idle")
        assert isinstance(app._message_queue.qsize(), int)
        app.post_message(Fine())
        app.post_message(Fine())
        assert private.queued(app) == 2  # posted, not yet handled (nothing awaited since)
        await wait_for(pilot, lambda: app.fine == 2 and private.queued(app) == 0, "both handled")


# 5 ---------------------------------------------------------------- notifications
class Notifying(private.MergedNotifications[None]):
    """A bare app on the base class the tracker's app uses."""


@pytest.mark.ui
async def test_identical_notifications_still_merge() -> None:
    from textual.notifications import Notification

    assert params(App._on_notify) == ["self", "event"]
    assert params(App._unnotify) == ["self", "notification", "refresh"]
    app = Notifying()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for _ in range(3):
            app.notify("refused: nothing to maintain", severity="warning")
        app.notify("something else")
        await wait_for(pilot, lambda: len(list(app._notifications)) == 2, "one of each notification")
        assert all(isinstance(n, Notification) for n in app._notifications)
        assert sorted(n.message for n in app._notifications) == ["refused: nothing to maintain", "something else"]
        assert [n.message for n in app.notifications_shown] == ["refused: nothing to maintain", "something else"]
        app.notify("a third")
        await wait_for(pilot, lambda: len(app.notifications_shown) == 3, "the third shown")
        assert app.notifications_shown[-1].message == "a third"


# 6 ---------------------------------------------------------------- the app's driver
@pytest.mark.ui
async def test_the_apps_driver_is_still_where_the_viewer_host_finds_it() -> None:
    """tracker serve's viewer host finds an app's driver to tell it of a new size; the
    driver posts the Resize to its app."""
    from textual.driver import Driver
    from textual.drivers.headless_driver import HeadlessDriver

    app = Bare()
    assert private.driver_of(app) is None  # not running yet
    async with app.run_test(size=(80, 24)):
        driver = private.driver_of(app)
        assert isinstance(driver, HeadlessDriver) and isinstance(driver, Driver)
        assert driver._app is app


# 7 ---------------------------------------------------------------- the input thread
class Reported:
    """An app as a driver's input thread reports to (`call_later(app.panic, ...)`)."""

    def __init__(self) -> None:
        self.later: list[Any] = []

    def call_later(self, callback: Any, *args: Any) -> None:
        self.later.append(callback)

    def panic(self, *renderables: Any) -> None:
        """Never called here: only scheduled."""


def test_the_input_thread_runs_the_public_loop_and_a_hosted_terminal_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Linux driver's input thread is `_run_input_thread`, which runs the public
    `run_input_thread` once and reports what it raises; tracker serve's HostedDriver
    overrides the public one so that the pty's end (OSError) ends its app quietly, and
    anything else is still reported, the loop not run again."""
    from textual.drivers.linux_driver import LinuxDriver

    from tracker.serve.viewer_output import HostedDriver

    assert "target=self._run_input_thread" in inspect.getsource(LinuxDriver.start_application_mode)
    assert params(LinuxDriver._run_input_thread) == ["self"]
    runs: list[str] = []
    failure: list[BaseException] = []

    def loop(self: Any) -> None:
        runs.append(type(self).__name__)
        raise failure[0]

    monkeypatch.setattr(LinuxDriver, "run_input_thread", loop)
    for error, ended, reported in ((OSError(5, "Input/output error"), 1, 0), (RuntimeError("a bug in the input loop"), 0, 1)):
        runs.clear()
        failure[:] = [error]
        app = Reported()
        driver = HostedDriver.__new__(HostedDriver)
        driver._app = app  # type: ignore[assignment]
        gone: list[bool] = []
        monkeypatch.setattr(driver, "terminal_gone", lambda: gone.append(True))
        driver._run_input_thread()  # the thread's target: returns, never raises
        assert runs == ["HostedDriver"], error  # the loop ran once
        assert len(gone) == ended and app.later == [app.panic] * reported, error


# Public now ---------------------------------------------------------------------------
class OneField(App[None]):
    CSS = "Input { width: 14; }"

    def compose(self) -> ComposeResult:
        yield FieldInput(id="field")

    def on_mount(self) -> None:
        self.query_one(Input).focus()


@pytest.mark.ui
async def test_typing_in_a_field_lays_out_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """FieldInput's own `virtual_size` reactive (no layout) replaced its copy of
    Input._watch_value: Textual's Input still sets the virtual size on every key, and
    a key still lays out nothing."""
    assert isinstance(Widget.__dict__["virtual_size"], Reactive)
    assert "self.virtual_size = " in inspect.getsource(Input._watch_value)
    layouts: list[bool] = []
    original = FieldInput.refresh

    def refresh(self: Any, *args: Any, **kwargs: Any) -> Any:
        layouts.append(bool(kwargs.get("layout")))
        return original(self, *args, **kwargs)

    app = OneField()
    async with app.run_test(size=(80, 24)) as pilot:
        field = app.query_one(FieldInput)
        await wait_for(pilot, lambda: app.focused is field, "the field focused")
        monkeypatch.setattr(FieldInput, "refresh", refresh)
        await pilot.press(*"Goblin Archer 1")
        await wait_for(pilot, lambda: field.value == "Goblin Archer 1", "the text typed")
        assert field.virtual_size.width == field.content_width  # still set, key by key
    assert layouts and not any(layouts)


def test_key_names_in_the_config_are_the_parsers() -> None:
    """tracker.persistence.config names a printable key as Textual's parser does (`?` is
    question_mark), from Unicode names and Textual's public KEY_NAME_REPLACEMENTS."""
    for code in range(33, 127):
        char = chr(code)
        assert [k.key for k in parsed(char)] == [character_key(char)], repr(char)
    for char in "éß€£§":
        assert [k.key for k in parsed(char)] == [character_key(char)], repr(char)


def test_the_tests_keys_are_the_parsers() -> None:
    """tests/ui.py posts, for each printable character, the event Textual's parser
    makes of it (name and character), from tracker.persistence.config's public key names."""
    from tests.ui import key_event

    for code in range(32, 127):
        char = chr(code)
        assert [(k.key, k.character) for k in parsed(char)] == [(key_event(char).key, key_event(char).character)], repr(char)
        name = character_key(char)
        assert (key_event(name).key, key_event(name).character) == (name, char), name
    assert (key_event("ctrl+s").key, key_event("ctrl+s").character) == ("ctrl+s", None)


# 8 ---------------------------------------------------------- a driver on another terminal
async def test_a_driver_on_its_own_terminal_still_finds_the_drivers_private_names() -> None:
    """tracker serve runs each viewer's app on a pty of its own through the Linux driver's
    private names: `_file` (where the writer thread writes, set in `__init__`),
    `_get_terminal_size()` (read when the app starts), `_loop` and `_app` (Driver's),
    `_in_band_window_resize`. DriverOnTerminal names them once; its public names must
    reach them."""
    from textual.driver import Driver
    from textual.drivers.linux_driver import LinuxDriver

    init = inspect.getsource(LinuxDriver.__init__)
    assert "self._file = " in init and "self._in_band_window_resize = False" in init
    start = inspect.getsource(LinuxDriver.start_application_mode)
    assert "self._get_terminal_size()" in start and "WriterThread(self._file)" in start
    assert params(LinuxDriver._get_terminal_size) == ["self"]
    base = inspect.getsource(Driver.__init__)
    assert "self._app = app" in base and "self._loop = asyncio.get_running_loop()" in base

    class OnItsOwn(private.DriverOnTerminal):
        def terminal_size(self) -> tuple[int, int]:
            return 100, 30

    app = Bare()
    driver = OnItsOwn(app)
    screen = io.StringIO()
    driver.write_to(screen)
    assert driver.output is screen and driver._file is screen
    assert driver._get_terminal_size() == (100, 30)  # what the driver reads at start
    assert driver.driven_app is app and driver.event_loop is asyncio.get_running_loop()
    assert driver.sizes_in_band is False
    driver._in_band_window_resize = True
    assert driver.sizes_in_band is True


# 9 ---------------------------------------------------------------- a whole frame
async def test_a_whole_frame_is_the_screen_and_leaves_the_next_update_alone() -> None:
    """A newcomer to a shared view gets the screen whole (render_update(full=True) of the
    top screen's `_compositor`), and what the others are sent next (the compositor's
    `_dirty_regions`) is still sent: rendering whole for one terminal takes nothing away."""
    from textual._compositor import Compositor
    from textual.screen import Screen
    from textual.widgets import Static

    assert "full" in params(Compositor.render_update) and "screen_stack" in params(Compositor.render_update)
    assert "self._dirty_regions.clear()" in inspect.getsource(Compositor.render_full_update)  # why it is kept
    assert hasattr(App, "_background_screens") and "_compositor" in inspect.getsource(Screen.__init__)

    class Words(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("the sphinx stirs", id="words")

    app = Words()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        assert private.whole_frame(Bare()) is None  # an app not running has none
        from textual.geometry import Region

        app.query_one("#words", Static).update("the sphinx roars")
        await wait_for(pilot, lambda: "roars" in (private.whole_frame(app) or ""), "the change in a whole frame")
        pending = Region(0, 0, 16, 1)  # what the next update to the others must still draw
        app.screen._compositor._dirty_regions.add(pending)
        frame = private.whole_frame(app)
        assert frame is not None and "the sphinx roars" in frame
        assert frame.count("\x1b[") >= 5  # every line placed: the whole screen
        assert pending in app.screen._compositor._dirty_regions


# 10 --------------------------------------------------------------- the writer
def test_a_file_that_never_blocks_is_written_directly_and_any_other_by_the_writer_thread() -> None:
    """The viewer host's terminals are written by one writer on its event loop: the Linux
    driver makes its writer as `WriterThread(self._file)` (module attribute) in
    `start_application_mode`, then calls `write`, and `stop` in `close`."""
    from textual.drivers import linux_driver
    from textual.drivers._writer_thread import WriterThread

    assert "WriterThread(self._file)" in inspect.getsource(linux_driver.LinuxDriver.start_application_mode)
    assert "self._writer_thread.write(data)" in inspect.getsource(linux_driver.LinuxDriver.write)
    assert "self._writer_thread.stop()" in inspect.getsource(linux_driver.LinuxDriver.close)
    private.install_direct_writer()
    private.install_direct_writer()  # idempotent

    class Direct(io.StringIO):
        writes_without_blocking = True

    direct = Direct()
    writer = linux_driver.WriterThread(direct)
    writer.start()
    writer.write("a frame")
    writer.stop()
    assert direct.getvalue() == "a frame"  # written at once, on this thread
    plain = io.StringIO()
    threaded = linux_driver.WriterThread(plain)
    assert isinstance(threaded, WriterThread)
    threaded.start()
    threaded.write("through the thread")
    threaded.stop()
    assert plain.getvalue() == "through the thread"


async def test_counting_sees_each_frame_the_lines_it_rendered_and_the_layouts() -> None:
    """11. `counting` wraps App._display, StylesCache.render_line and Compositor.reflow /
    reflow_visible (their signatures as assumed), and reads LayoutUpdate / ChopsUpdate:
    a repaint of a widget is one frame of its lines, a layout is counted as one."""
    from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
    from textual._styles_cache import StylesCache
    from textual.strip import Strip

    assert params(App._display)[:3] == ["self", "screen", "renderable"]
    assert params(StylesCache.render_line)[:9] == ["self", "styles", "y", "size", "content_size", "padding", "base_background", "background", "render_content_line"]
    assert callable(Compositor.reflow) and callable(Compositor.reflow_visible)
    assert "self.spans = " in inspect.getsource(ChopsUpdate.__init__) and "self.region = " in inspect.getsource(LayoutUpdate.__init__)

    class Lines(Widget):
        DEFAULT_CSS = "Lines { height: 5; }"

        def render_line(self, y: int) -> Strip:
            return Strip.blank(self.size.width)

    app = App[None]()
    app.compose = lambda: iter([Lines(id="lines")])  # type: ignore[method-assign]
    async with app.run_test(size=(20, 10)) as pilot:
        await pilot.pause()
        lines = app.query_one(Lines)
        with private.counting(app) as drawn:
            lines.refresh()
            await wait_for(pilot, lambda: drawn.frames >= 1, "a frame")
        assert (drawn.frames, drawn.layouts, drawn.lines, drawn.rows) == (1, 0, 5, 5)
        assert drawn.by_widget == {"lines": 5} and drawn.bytes > 0
        with private.counting(app) as drawn:
            lines.refresh(layout=True)
            await wait_for(pilot, lambda: drawn.frames >= 1, "a frame")
        assert drawn.layouts == 1 and drawn.frames == 1
    assert "_display" not in vars(app)  # the app's own drawing again


# 12 --------------------------------------------------------------- a pending update
async def test_a_pending_update_is_still_seen_until_the_screen_draws_it() -> None:
    """12. `drawing_pending` reads the flags a Screen's update timer clears as it draws:
    set by a refresh, a layout or a recompose asked for, clear once it is on screen."""
    from textual.screen import Screen
    from textual.widgets import Label

    for name in ("_layout_required", "_repaint_required", "_recompose_required", "_dirty_widgets"):
        assert f"self.{name}" in inspect.getsource(Screen), name
    app = App[None]()
    app.compose = lambda: iter([Label("hello")])  # type: ignore[method-assign]
    async with app.run_test(size=(20, 10)) as pilot:
        await wait_for(pilot, lambda: not private.drawing_pending(app.screen), "the first frame drawn")
        screen = app.screen
        # (A widget's own refresh reaches the screen's `_dirty_widgets` on its next idle.)
        for refresh in (lambda: screen.refresh(repaint=True), lambda: screen.refresh(layout=True), lambda: screen.refresh(recompose=True)):
            refresh()
            assert private.drawing_pending(screen)
            await wait_for(pilot, lambda: not private.drawing_pending(screen), "the update drawn")


# 13 --------------------------------------------------------------- the screen's text
async def test_the_screens_text_is_every_row_as_drawn_over_each_other() -> None:
    """13. `screen_lines` renders the top screen's compositor: every row, at the
    terminal's width, a screen pushed over another drawn in its place (none before its
    first layout)."""
    from textual.screen import Screen
    from textual.widgets import Label

    class Over(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Label("over it")

    app = App[None]()
    app.compose = lambda: iter([Label("under")])  # type: ignore[method-assign]
    async with app.run_test(size=(20, 10)) as pilot:
        await wait_for(pilot, lambda: not private.drawing_pending(app.screen), "the first frame drawn")
        lines = private.screen_lines(app)
        assert len(lines) == 10 and all(len(line) == 20 for line in lines)
        assert lines[0].rstrip() == "under" and not "".join(lines[1:]).strip()
        app.push_screen(Over())
        await wait_for(pilot, lambda: private.screen_lines(app)[:1] == ["over it".ljust(20)], "the screen pushed drawn")


# 14 --------------------------------------------------------------- late timers
async def test_late_one_shot_timers_end_without_firing_and_intervals_still_run() -> None:
    """14. `late_one_shot_timers` replaces Timer._run: `set_timer` still makes a timer
    with `_repeat` 0, which then never calls back; `set_interval` ones still do; after
    the block, timers fire again."""
    from textual.timer import Timer

    assert params(Timer._run) == ["self"] and "repeat=0" in inspect.getsource(MessagePump.set_timer)
    app = App[None]()
    fired: list[str] = []
    async with app.run_test(size=(20, 10)) as pilot:
        with private.late_one_shot_timers():
            app.set_timer(0.01, lambda: fired.append("once"))
            ticking = app.set_interval(0.01, lambda: fired.append("tick"))
            await wait_for(pilot, lambda: fired.count("tick") >= 3, "three ticks")
            ticking.stop()
        assert "once" not in fired
        app.set_timer(0.01, lambda: fired.append("after"))
        await wait_for(pilot, lambda: "after" in fired, "a one-shot timer after the block")
