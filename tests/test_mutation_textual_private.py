"""Direct tests of tracker.ui.textual_private's own logic, worked from its docstring (the
uses of Textual's internals themselves are checked against the installed Textual by
tests/test_textual_private.py): ESC then a key is alt+KEY with the key's character kept,
a key alone and Esc itself stay as they are (1); the key readers are installed in the
terminal's driver always, in the web and inline drivers only when loaded already,
idempotently, past a driver that is missing (1, 2); the message guard wraps a pump
once, and the app's last resort reports a bug while the app runs and hands on the rest
(3)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from tracker.ui import textual_private as private
from tracker.ui.textual_private import EscapeParser, guard_messages, install_key_readers
from tests.ui import wait_for


def _keys(data: str) -> list[tuple[str, str | None]]:
    parser = EscapeParser()
    keys = [e for e in parser.feed(data) if isinstance(e, events.Key)]
    keys += [e for e in parser.feed("") if isinstance(e, events.Key)]  # end of input
    return [(key.key, key.character) for key in keys]


# 1 ---------------------------------------------------------------- the key parser
def test_escape_then_a_key_is_alt_and_the_key_keeps_its_character() -> None:
    assert _keys("\x1ba") == [("alt+a", "a")]
    assert _keys("\x1b?") == [("alt+question_mark", "?")]
    assert _keys("\x1b\r") == [("alt+enter", "\r")]
    assert _keys("\x1bA") == [("alt+shift+a", "A")]  # Textual's own alt key, untouched


def test_a_key_alone_and_escape_itself_stay_as_they_are() -> None:
    assert _keys("a") == [("a", "a")]
    assert _keys("?") == [("question_mark", "?")]
    assert _keys("\x1b[A") == [("up", None)]  # an arrow's sequence is not ESC then keys
    assert _keys("\x1b") == [("escape", "\x1b")]
    assert _keys("\x1b\x1b") == [("escape", "\x1b"), ("escape", "\x1b")]
    assert [(k.key, k.character) for k in EscapeParser()._sequence_to_key_events("a")] == [("a", "a")]  # alt is off unless said


# 1, 2 ------------------------------------------------------------ installing the readers
@pytest.fixture
def drivers(monkeypatch: pytest.MonkeyPatch) -> dict[str, types.ModuleType]:
    """Stand-ins for the three drivers' modules, as Textual's import them: each names
    Textual's parser class and the codecs' decoder factory. Imported by name through
    `importlib.import_module` as the real ones are; `sys.modules` says which are loaded."""
    import codecs

    from textual._xterm_parser import XTermParser

    made: dict[str, types.ModuleType] = {}
    for name in private.DRIVERS:
        module = types.ModuleType(name)
        module.XTermParser = XTermParser  # type: ignore[attr-defined]
        module.getincrementaldecoder = codecs.getincrementaldecoder  # type: ignore[attr-defined]
        made[name] = module
        # Recorded first, so the stand-ins the tests put in `sys.modules` go again
        # afterwards, and a driver not loaded before stays not loaded.
        monkeypatch.setitem(sys.modules, name, module)
        monkeypatch.delitem(sys.modules, name)
    imported: list[str] = []

    def import_module(name: str) -> types.ModuleType:
        imported.append(name)
        if name not in made:
            raise ImportError(name)
        sys.modules[name] = made[name]
        return made[name]

    monkeypatch.setattr(private.importlib, "import_module", import_module)
    made["imported"] = imported  # type: ignore[assignment]
    return made


def _installed(module: types.ModuleType) -> bool:
    return module.XTermParser is EscapeParser and module.getincrementaldecoder is private.lenient_decoder  # type: ignore[attr-defined]


def test_the_terminals_driver_is_loaded_and_given_the_readers_the_others_only_when_loaded(drivers: dict[str, Any]) -> None:
    linux, inline, web = (drivers[name] for name in private.DRIVERS)
    install_key_readers()
    assert drivers["imported"] == ["textual.drivers.linux_driver"]  # the web and inline drivers not loaded for it
    assert _installed(linux) and not _installed(inline) and not _installed(web)
    sys.modules["textual.drivers.web_driver"] = web  # `tracker web`: loaded before the app starts
    install_key_readers()
    assert _installed(web) and not _installed(inline)
    assert "textual.drivers.linux_inline_driver" not in sys.modules
    install_key_readers()  # again: nothing changes
    assert _installed(linux) and _installed(web)


def test_a_driver_missing_on_this_platform_does_not_stop_the_others(drivers: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    del drivers["textual.drivers.linux_driver"]  # its import fails
    for name in private.DRIVERS[1:]:
        sys.modules[name] = drivers[name]
    install_key_readers()
    assert _installed(drivers["textual.drivers.linux_inline_driver"]) and _installed(drivers["textual.drivers.web_driver"])


def test_a_driver_that_names_neither_is_left_alone(drivers: dict[str, Any]) -> None:
    bare = types.ModuleType("textual.drivers.linux_driver")
    drivers["textual.drivers.linux_driver"] = bare
    install_key_readers()  # no XTermParser, no getincrementaldecoder: nothing to replace
    assert not hasattr(bare, "XTermParser") and not hasattr(bare, "getincrementaldecoder")


# 3 ---------------------------------------------------------------- the message guard
class _Pump:
    """A message pump as the guard wraps it: its dispatch fails with the message it is
    given; an app also has a last resort (recording what reaches it) and exit renderables."""

    def __init__(self, app: bool = True) -> None:
        self.last: list[BaseException] = []
        self.is_running = True
        if app:
            self._exit_renderables: list[Any] = []
            self._handle_exception = self.last.append

    async def _dispatch_message(self, message: Any) -> Any:
        if isinstance(message, BaseException):
            raise message
        return message


async def test_a_handlers_error_is_reported_and_its_message_handled_as_none() -> None:
    pump, reported = _Pump(), []
    assert guard_messages(pump, reported.append) is pump
    assert await pump._dispatch_message("fine") == "fine"
    error = ValueError("bug")
    assert await pump._dispatch_message(error) is None
    assert reported == [error]
    with pytest.raises(KeyboardInterrupt):  # not an Exception: it goes on
        await pump._dispatch_message(KeyboardInterrupt())


async def test_a_pump_is_guarded_once_whoever_asks_again() -> None:
    pump, first, second = _Pump(), [], []
    guard_messages(pump, first.append)
    guard_messages(pump, second.append)
    await pump._dispatch_message(ValueError("a"))
    pump._handle_exception(ValueError("b"))
    assert [str(e) for e in first] == ["a", "b"] and second == []
    assert pump.last == []


def test_a_pump_with_no_dispatch_is_returned_as_it_is() -> None:
    thing = types.SimpleNamespace()
    assert guard_messages(thing, print) is thing
    assert vars(thing) == {}


def test_the_apps_last_resort_reports_a_bug_while_it_runs_and_hands_on_the_rest() -> None:
    pump, reported = _Pump(), []
    guard_messages(pump, reported.append)
    bug = RuntimeError("bug")
    pump._handle_exception(bug)
    assert reported == [bug] and pump.last == []  # running, nothing on its way out: a message
    for end in (KeyboardInterrupt(), SystemExit(1)):
        pump._handle_exception(end)  # type: ignore[arg-type]
    pump._exit_renderables.append("a traceback on its way out")
    pump._handle_exception(bug)
    pump._exit_renderables.clear()
    pump.is_running = False
    late = RuntimeError("before it runs")
    pump._handle_exception(late)
    assert reported == [bug]
    assert [type(e) for e in pump.last] == [KeyboardInterrupt, SystemExit, RuntimeError, RuntimeError]
    assert pump.last[-1] is late and pump.last[-2] is bug


def test_a_screen_has_no_last_resort_to_wrap() -> None:
    screen, reported = _Pump(app=False), []
    guard_messages(screen, reported.append)
    assert not hasattr(screen, "_handle_exception")


# 9, 13 ----------------------------------------------------------- the screen as drawn
class _Under(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Text("the sphinx stirs", style="bold"), id="words")


class _Over(ModalScreen[None]):
    DEFAULT_CSS = "_Over { align: center bottom; } _Over > Static { width: 10; height: 1; }"

    def compose(self) -> ComposeResult:
        yield Static("a dialog")


@pytest.mark.ui
async def test_a_whole_frame_draws_the_screens_under_a_dialog_too() -> None:
    app = _Under()
    async with app.run_test(size=(40, 5)) as pilot:
        await wait_for(pilot, lambda: "stirs" in (private.whole_frame(app) or ""), "the first frame")
        await app.push_screen(_Over())
        await wait_for(pilot, lambda: "a dialog" in (private.whole_frame(app) or ""), "the dialog in a whole frame")
        frame = private.whole_frame(app)
        assert frame is not None and "the sphinx stirs" in frame  # the fight under the dialog, as the GM sees it


@pytest.mark.ui
async def test_each_cell_as_drawn_carries_its_style() -> None:
    app = _Under()
    async with app.run_test(size=(20, 3)) as pilot:
        await wait_for(pilot, lambda: not private.drawing_pending(app.screen) and private.screen_lines(app)[0].startswith("the"), "drawn")
        cells = private.screen_cells(app)
        assert [char for char, _ in cells[0][:3]] == ["t", "h", "e"]
        assert "bold" in cells[0][0][1] and "bold" not in cells[0][19][1]  # the text's, not the blank's


# 10 --------------------------------------------------------------- the writer
def test_the_direct_writer_is_installed_in_place_of_textuals_thread_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from textual.drivers import linux_driver
    from textual.drivers._writer_thread import WriterThread

    monkeypatch.setattr(linux_driver, "WriterThread", WriterThread)  # as Textual ships it
    private.install_direct_writer()
    installed = linux_driver.WriterThread
    assert installed is not WriterThread
    private.install_direct_writer()  # again: the one installed stays
    assert linux_driver.WriterThread is installed

    class Direct(io.StringIO):
        writes_without_blocking = True

        def fileno(self) -> int:
            return 7

    direct = linux_driver.WriterThread(direct_file := Direct())
    assert isinstance(direct, private.DirectWriter) and direct.isatty() and direct.fileno() == 7
    direct.write("a frame")
    assert direct_file.getvalue() == "a frame"
    assert isinstance(linux_driver.WriterThread(io.StringIO()), WriterThread)  # a file that may block
    monkeypatch.setattr(private.sys, "platform", "win32")
    monkeypatch.setattr(linux_driver, "WriterThread", WriterThread)
    private.install_direct_writer()  # no Linux driver there: nothing replaced
    assert linux_driver.WriterThread is WriterThread
