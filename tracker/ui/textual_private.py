"""Every use of Textual's private internals, in one place (Textual is pinned <8.3).

Nothing else in the tracker names a private Textual attribute: what could be done with
public API was (a form field's value no longer relays out the screen through a
subclass's own `virtual_size` reactive, tracker.ui.screens.form; key names in the
config come from Unicode names and Textual's public KEY_NAME_REPLACEMENTS,
tracker.persistence.config). What is left has no public way, and each use below names what it relies
on and the upstream issue that would make it unnecessary.

tests/test_textual_private.py checks each one against the installed Textual: that the
private name still exists with the signature assumed here, and that the behaviour relied
on still holds. On a Textual release that changes one of them, that test fails first
and says which; raise the pin only once it passes.

1. `EscapeParser` (subclasses `textual._xterm_parser.XTermParser`, overrides
   `_sequence_to_key_events(sequence, alt)`), installed by replacing the module
   attribute `XTermParser` in the drivers (`install_key_readers`): ESC then `?`, `:` or
   Enter comes out as alt+question_mark (not the bare key with the Esc lost), so
   tracker.ui.guard.split_escape can give back Esc then the key.
   Upstream: Textualize/textual#6663 "Alt modifier dropped on named keys (Alt+Enter
   arrives as plain `enter`)".
2. `lenient_decoder`, installed by replacing the drivers' module attribute
   `getincrementaldecoder`: a byte that is not UTF-8 is U+FFFD, not the end of the
   input thread. Upstream: Textualize/textual#6456 "UnicodeDecodeError in input thread
   crashes application when invalid UTF-8 bytes are received" (PR #6498).
3. `guard_messages` wraps a message pump's `_dispatch_message(message)` (the app's and
   every screen's) and the app's `_handle_exception(error)`, reading `_exit_renderables`:
   an exception in a handler becomes a message instead of ending the app.
   Upstream: Textualize/textual#2818 "Hook to exception handling / App hangs when
   _handle_exception is overriden" (closed without a public hook).
4. `queued(pump)` reads `MessagePump._message_queue.qsize()`: the key hold hands a key on
   only when nothing is waiting to be handled (tracker.ui.guard.busy).
   Upstream: to file, "A public way to ask whether a MessagePump has messages waiting".
5. `MergedNotifications`, the app's base class, overrides the Notify handler
   `App._on_notify(event)`, reads `App._notifications` and calls
   `App._unnotify(notification, refresh=False)`: a notification the same as one still
   shown (a held key repeating a refusal) replaces it, with a fresh timeout, instead of
   stacking over the log. `notifications_shown` gives those on screen, read-only.
   Upstream: to file, "App.notify: an option to replace an identical notification still
   shown instead of stacking it" and "App: a public read-only list of the notifications
   shown".
6. `driver_of(app)` reads `App._driver`: tracker serve's viewer host tells the driver of
   one of its apps that the server set a new size on its terminal (HostedDriver.resized).
   Upstream: to file, "App: a public read-only `driver` property for the running driver".
7. tracker serve's `HostedDriver` ends its app quietly when its terminal's input fails
   with OSError (the server closed the pty master) by overriding the Linux driver's
   public `run_input_thread`: that relies on the input thread's target being the
   private `LinuxDriver._run_input_thread`, which runs `run_input_thread` and reports
   (app.panic) whatever it raises. (Overriding `_run_input_thread` itself, as before,
   ran the input loop a second time after an error other than OSError.) Related
   upstream: Textualize/textual#6690 "Fix input thread busy-looping at 100% CPU when
   stdin reaches EOF" (what a driver does when its input ends); to file, "LinuxDriver:
   a hook for the end of input instead of a crash report".
8. `DriverOnTerminal` (tracker serve's `HostedDriver` builds on it) runs Textual's Linux
   driver on a terminal of its own (one pty per viewer's app in one process), through
   names the driver keeps private: it writes to `_file` (set in `LinuxDriver.__init__`),
   reads sizes through `_get_terminal_size()`, the app's event loop is `_loop` (set in
   `Driver.__init__`), `_in_band_window_resize` says the terminal reports its own
   sizes, and `_app` is the app driven. Upstream: to file, "Driver: public hooks for
   the output file and the terminal size (a driver on a terminal other than stdout)".
9. `whole_frame(app)` (tracker serve's shared views: a newcomer gets the screen whole)
   renders the top screen's private `_compositor` with `render_update(full=True,
   screen_stack=app._background_screens)` and puts back the compositor's
   `_dirty_regions`, which that call clears, so the other members' next update is
   still sent. Upstream: to file, "App: render the whole screen for another terminal".
10. `install_direct_writer()` (tracker serve's one writer per viewers' process) replaces
   the module attribute `textual.drivers.linux_driver.WriterThread`, which
   `LinuxDriver.start_application_mode` instantiates, so a file marked
   `writes_without_blocking` is written on the caller's thread instead of a thread per
   app. Upstream: to file, "LinuxDriver: a hook for the writer of the output file".
11. `counting(app)` (tests and benchmarks only: what one change costs on screen) wraps
   `App._display`, `textual._styles_cache.StylesCache.render_line`,
   `textual._compositor.Compositor.reflow` / `reflow_visible` and reads the update
   classes `LayoutUpdate` and `ChopsUpdate`. Upstream: to file, "A public hook or stats
   for frames drawn and lines rendered".
12. `drawing_pending(screen)` (tests only: wait until what was typed is on screen,
   without forcing it there) reads the screen's `_layout_required`,
   `_repaint_required`, `_recompose_required` and `_dirty_widgets`, which its update
   timer clears as it draws. (Pilot's own pause forces the update instead, which would
   hide a screen that never draws by itself.) Upstream: to file, "Screen: a public way
   to ask whether an update is pending".
13. `screen_lines(app)` and `screen_cells(app)` (tests only: the screen as drawn,
   composited, as text or cell by cell with each cell's style) render the top
   screen's private `_compositor` with `render_strips()`. Upstream: to file, "App: the
   screen's text as drawn".
14. `late_one_shot_timers()` (tests only: a loaded host) replaces `Timer._run` so that
   a one-shot timer (`set_timer` makes it with `_repeat` 0) ends without firing, as
   Textual's does when its only tick counts as late. Upstream: none needed (a test
   double for a timing Textual does not promise).
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import importlib
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.notifications import Notification, Notify

ALT = "alt+"

# The drivers whose module names the parser class and the decoder factory (Textual 8.2).
DRIVERS = ("textual.drivers.linux_driver", "textual.drivers.linux_inline_driver", "textual.drivers.web_driver")


# 1 ---------------------------------------------------------------- the key parser
class EscapeParser(XTermParser):
    """Textual's parser, but ESC then any key is alt+KEY (not the bare key, Esc lost)."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        for key in super()._sequence_to_key_events(sequence, alt):
            if alt and not key.key.startswith(ALT) and key.key != "escape":
                key = events.Key(ALT + key.key, key.character)
            yield key


# 2 ---------------------------------------------------------------- the decoder
def lenient_decoder(encoding: str) -> "Callable[[], codecs.IncrementalDecoder]":
    """An incremental decoder that reads bytes not valid in `encoding` as U+FFFD.

    Textual's drivers decode what the terminal sends as strict UTF-8: one byte that is
    not (a Latin-1 terminal, a client sending garbage over SSH) raised in the input
    thread and ended the app."""
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


def install_key_readers() -> None:
    """Make Textual's drivers read keys with `EscapeParser`, and bytes that are not UTF-8
    as U+FFFD (`lenient_decoder`); idempotent. The terminal's driver is loaded here (a
    terminal app uses it); the web and inline drivers only if loaded already: the web
    driver is imported by the App's constructor when the environment names it (`tracker
    web`), before this runs, and the tracker never runs inline. (Loading both on every
    start cost start-up time.)"""
    for name in DRIVERS:
        if name != DRIVERS[0] and name not in sys.modules:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:  # a platform without it
            continue
        if getattr(module, "XTermParser", None) is XTermParser:
            module.XTermParser = EscapeParser  # type: ignore[attr-defined]
        if getattr(module, "getincrementaldecoder", None) is codecs.getincrementaldecoder:
            module.getincrementaldecoder = lenient_decoder  # type: ignore[attr-defined]


# 3 ---------------------------------------------------------------- handler errors
def guard_messages(pump: Any, report: Callable[[BaseException], None]) -> Any:
    """Make an exception in `pump`'s message handlers a call of `report` instead of the
    end of the app; for the app itself, also the exceptions Textual hands to its last
    resort once running. Per instance (each screen as it is pushed), idempotent;
    returns `pump`."""
    if getattr(pump, "_tracker_guarded", False) or not hasattr(pump, "_dispatch_message"):
        return pump
    dispatch: Callable[[Any], Awaitable[Any]] = pump._dispatch_message

    async def guarded(message: Any) -> Any:
        try:
            return await dispatch(message)
        except Exception as error:  # CancelledError, KeyboardInterrupt, SystemExit go on
            report(error)
            return None

    pump._dispatch_message = guarded
    pump._tracker_guarded = True
    last_resort = getattr(pump, "_handle_exception", None)
    if last_resort is not None and hasattr(pump, "_exit_renderables"):  # the app

        def handle(error: Exception) -> None:
            # Textual's last resort ends the app; once running, a bug is a message instead.
            if pump.is_running and pump._exit_renderables == [] and not isinstance(error, (KeyboardInterrupt, SystemExit)):
                report(error)
                return
            last_resort(error)

        pump._handle_exception = handle
    return pump


# 4 ---------------------------------------------------------------- queued messages
def queued(pump: Any) -> int:
    """Messages waiting in `pump`'s queue (one being handled is out of it)."""
    return int(pump._message_queue.qsize())


# 5 ---------------------------------------------------------------- notifications
ReturnType = TypeVar("ReturnType")


class MergedNotifications(App[ReturnType]):
    """An App whose notifications are one of each (see the module docstring, 5)."""

    def _on_notify(self, event: Notify) -> None:
        new = event.notification
        for shown in list(self._notifications):
            if (shown.message, shown.title, shown.severity) == (new.message, new.title, new.severity):
                self._unnotify(shown, refresh=False)
        super()._on_notify(event)

    @property
    def notifications_shown(self) -> tuple[Notification, ...]:
        """The notifications on screen now, oldest first (Textual keeps them privately)."""
        return tuple(self._notifications)


# 6 ---------------------------------------------------------------- the app's driver
def driver_of(app: App[Any]) -> Any:
    """The driver running `app` (None before it runs)."""
    return app._driver

# 8 ------------------------------------------------------ a driver on another terminal
if sys.platform != "win32":  # the Linux driver needs termios; tracker serve is POSIX only
    from textual.drivers.linux_driver import LinuxDriver

    class DriverOnTerminal(LinuxDriver):
        """Textual's Linux driver on a terminal other than the process's own: the private
        names it needs, under public ones a subclass uses."""

        def write_to(self, file: Any) -> None:
            """Where the driver's writer sends the screen (LinuxDriver `_file`)."""
            self._file = file

        @property
        def output(self) -> Any:
            return self._file

        def terminal_size(self) -> tuple[int, int]:
            """(columns, rows) of the terminal; a subclass reads its own terminal."""
            return LinuxDriver._get_terminal_size(self)

        def _get_terminal_size(self) -> tuple[int, int]:
            return self.terminal_size()

        def keep_loop(self) -> None:
            """Remember the running loop as the app's (Driver `_loop`)."""
            self._loop = asyncio.get_running_loop()

        @property
        def event_loop(self) -> asyncio.AbstractEventLoop | None:
            return self._loop

        @property
        def sizes_in_band(self) -> bool:
            """Whether the terminal reports its sizes itself (no resize to post)."""
            return bool(self._in_band_window_resize)

        @property
        def driven_app(self) -> App[Any]:
            return self._app


# 9 ---------------------------------------------------------------- a whole frame
def whole_frame(app: App[Any]) -> str | None:
    """The app's screen as it stands, whole, as terminal output (with the cursor placed),
    leaving the next update to the app's own terminal unchanged; None while it has no
    screen to draw."""
    from rich.control import Control

    try:
        screen = app.screen
        compositor = screen._compositor
        if not app.is_running or not screen.is_mounted or compositor.size != app.size:
            return None
        pending = set(compositor._dirty_regions)
        update = compositor.render_update(full=True, screen_stack=app._background_screens)
        compositor._dirty_regions.update(pending)
        if update is None or not hasattr(update, "render_segments"):
            return None
        text: str = update.render_segments(app.console)
        cursor = screen.outer_size.clamp_offset(app.cursor_position)
        return text + Control.move_to(*cursor).segment.text
    except Exception:  # noqa: BLE001 - no screen yet, or one going: nothing to send
        return None


# 10 --------------------------------------------------------------- the writer
class DirectWriter:
    """What the driver writes through, for a file that never blocks: written at once on
    the caller's thread (the file hands it to its own writer)."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def start(self) -> None:
        """No thread to start."""

    def write(self, text: str) -> None:
        self._file.write(text)

    def flush(self) -> None:
        """Nothing is buffered here."""

    def stop(self) -> None:
        """No thread to stop."""

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return int(self._file.fileno())


def install_direct_writer() -> None:
    """Make the Linux driver write a file marked `writes_without_blocking` directly
    (`DirectWriter`), any other through Textual's writer thread; idempotent."""
    if sys.platform == "win32":
        return
    from textual.drivers import linux_driver
    from textual.drivers._writer_thread import WriterThread

    if getattr(linux_driver, "WriterThread", None) is not WriterThread:
        return  # installed already

    def writer_for(file: Any) -> Any:
        if getattr(file, "writes_without_blocking", False):
            return DirectWriter(file)
        return WriterThread(file)

    linux_driver.WriterThread = writer_for  # type: ignore[misc,assignment]


# 11 --------------------------------------------------------------- counting frames
@dataclass
class FrameCount:
    """What an app drew while `counting` it: what one change costs on screen."""

    frames: int = 0  # updates the compositor sent to the terminal
    whole: int = 0  # of those, whole-screen updates (a LayoutUpdate: every row written)
    lines: int = 0  # widget lines rendered (the rest came from Textual's line cache)
    layouts: int = 0  # full layouts of the screen (Compositor.reflow)
    scrolls: int = 0  # reflows of the visible widgets only (a container scrolled)
    rows: int = 0  # screen rows the updates wrote
    bytes: int = 0  # characters of terminal output the updates make
    by_widget: dict[str, int] = field(default_factory=dict)  # lines rendered per widget id or class
    on_frame: Callable[[], None] | None = None  # called after each frame (a benchmark's wake-up)
    ended_ns: list[tuple[int, int]] = field(default_factory=list)  # (perf_counter_ns, thread_time_ns) at each frame's end


@contextmanager
def counting(app: App[Any], render: bool = True) -> Iterator[FrameCount]:
    """Count the frames `app` draws and the lines they render until the block ends.

    Reads and wraps Textual's private drawing path: `App._display(screen, update)` (the
    one place every frame passes), `textual._styles_cache.StylesCache.render_line` (one
    call per widget line rendered, whatever the widget), `Compositor.reflow` and
    `Compositor.reflow_visible` (layouts), and the updates' classes `LayoutUpdate`
    (the whole screen) and `ChopsUpdate` (`spans`: the rows written). `render`: also
    turn each update into its terminal output as a real terminal's driver does (a
    headless test app skips that), so its cost and size count. For tests and
    benchmarks only. Upstream: to file, "A public hook or stats for frames drawn and
    lines rendered (for tests that bound the cost of an update)"."""
    from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate
    from textual._styles_cache import StylesCache

    count = FrameCount()
    display = app._display
    render_line = StylesCache.render_line
    reflow, reflow_visible = Compositor.reflow, Compositor.reflow_visible

    def counted_display(screen: Any, update: Any) -> None:
        display(screen, update)
        if update is None:
            return
        count.frames += 1
        if isinstance(update, LayoutUpdate):
            count.whole += 1
            count.rows += update.region.height
        elif isinstance(update, ChopsUpdate):
            count.rows += len({y for y, _, _ in update.spans})
        if render and isinstance(update, CompositorUpdate):
            count.bytes += len(update.render_segments(app.console))
        count.ended_ns.append((time.perf_counter_ns(), time.thread_time_ns()))
        if count.on_frame is not None:
            count.on_frame()

    def counted_line(self: Any, styles: Any, y: int, *args: Any, **kwargs: Any) -> Any:
        owner = getattr(args[5] if len(args) > 5 else None, "__self__", None)
        if owner is None or owner.ancestors_with_self[-1] is app:  # (several apps in one process)
            count.lines += 1
            name = (owner.id or type(owner).__name__) if owner is not None else "?"
            count.by_widget[name] = count.by_widget.get(name, 0) + 1
        return render_line(self, styles, y, *args, **kwargs)

    def counted_reflow(self: Any, *args: Any, **kwargs: Any) -> Any:
        count.layouts += 1
        return reflow(self, *args, **kwargs)

    def counted_reflow_visible(self: Any, *args: Any, **kwargs: Any) -> Any:
        count.scrolls += 1
        return reflow_visible(self, *args, **kwargs)

    app._display = counted_display  # type: ignore[method-assign, assignment]
    StylesCache.render_line = counted_line  # type: ignore[method-assign]
    Compositor.reflow = counted_reflow  # type: ignore[method-assign]
    Compositor.reflow_visible = counted_reflow_visible  # type: ignore[method-assign]
    try:
        yield count
    finally:
        del app._display  # the class's own again
        StylesCache.render_line = render_line  # type: ignore[method-assign]
        Compositor.reflow, Compositor.reflow_visible = reflow, reflow_visible  # type: ignore[method-assign]


# 12 --------------------------------------------------------------- a pending update
def drawing_pending(screen: Any) -> bool:
    """Whether `screen` has a layout, a repaint or a recompose still to do (its update
    timer does it soon)."""
    return bool(screen._layout_required or screen._repaint_required or screen._dirty_widgets or screen._recompose_required)


# 13 --------------------------------------------------------------- the screen's text
def screen_lines(app: App[Any]) -> list[str]:
    """The top screen's rows as the compositor draws them (widgets over widgets), as text."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def screen_cells(app: App[Any]) -> list[list[tuple[str, str]]]:
    """The top screen's rows as drawn, each cell as (character, its style written out)."""
    return [[(char, str(segment.style)) for segment in strip for char in segment.text] for strip in app.screen._compositor.render_strips()]


# 14 --------------------------------------------------------------- late timers
@contextmanager
def late_one_shot_timers() -> Iterator[None]:
    """While the block runs, every one-shot timer ends without firing (what Textual's
    does when the process is held up past its only tick); repeating timers run."""
    from textual.timer import Timer

    run = Timer._run

    async def skipped(timer: Timer) -> None:
        if timer._repeat == 0:
            return  # a one-shot timer whose only tick counted as late
        await run(timer)

    Timer._run = skipped  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        Timer._run = run  # type: ignore[method-assign]
