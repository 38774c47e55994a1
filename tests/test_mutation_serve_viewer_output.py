"""Direct tests of tracker.serve.viewer_output: what a viewers' process writes to its
viewers' terminals (the module docstring, decisions 0055 and 0036). The host's one writer
never blocks: what a terminal cannot take yet waits in its own buffer, in order, drained
when it can; a terminal that takes nothing for `STALLED` seconds, or falls `BACKLOG`
bytes behind, is given up, once, and told so; a write from another thread is handed to
the loop. A shared view's frame goes to every member as the same bytes, and what the
driver writes as it starts is kept for those who join. The hosted driver reads its own
pty, never suspends, and ends its app when the pty goes. Real ptys (os.openpty), no
server."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import pty
import struct
import termios
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual import events
from textual.drivers.linux_driver import LinuxDriver

from tracker.serve import viewer_output
from tracker.serve.viewer_output import ENTER_ALT_SCREEN, FanOut, HostedDriver, HostWriter, Terminal, size_of
from tests.serve_log import said
from tests.helpers import until

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time


@pytest.fixture
def ptys() -> Iterator[list[tuple[int, int]]]:
    """Pseudo-terminals made by the test (master, slave), closed after it."""
    made: list[tuple[int, int]] = []
    yield made
    for master, slave in made:
        for fd in (master, slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def new_pty(ptys: list[tuple[int, int]]) -> tuple[int, int]:
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    ptys.append((master, slave))
    return master, slave


def read_all(master: int) -> bytes:
    got = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except (BlockingIOError, OSError):
            return bytes(got)
        if not chunk:
            return bytes(got)
        got += chunk


def raw(slave: int) -> None:
    """No translation on the way out: the bytes written are the bytes read."""
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)


async def gather(master: int, wanted: int) -> bytes:
    got = bytearray()

    def more() -> bool:
        got.extend(read_all(master))
        return len(got) >= wanted

    await until(more, f"{wanted} bytes", SOON)
    return bytes(got)


async def test_a_terminal_opens_its_own_non_blocking_description_of_the_pty(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    out = Terminal(writer, slave, lambda: None)
    try:
        assert out.fd not in (slave, master) and out.fileno() == out.fd
        assert not os.get_blocking(out.fd) and os.get_blocking(slave)  # the app's input thread reads the slave blocking
        assert os.ttyname(out.fd) == os.ttyname(slave)
        assert out.isatty() is True and out.writes_without_blocking is True
        assert (out.gone, bytes(out.pending), out.check, out.in_app_mode) == (False, b"", None, False)
        assert out.flush() is None
    finally:
        out.close()
    assert out.fd == -1 and out.gone


async def test_closing_a_terminal_with_output_waiting_stops_writing_it(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    loop = asyncio.get_running_loop()
    writer = HostWriter(loop)
    out = Terminal(writer, slave, lambda: None)
    while not out.pending:
        out.send(b"c" * 4096)
    fd = out.fd
    assert fd in loop._selector.get_map()  # type: ignore[attr-defined]
    check = out.check
    out.close()
    assert fd not in loop._selector.get_map() and out.fd == -1 and out.gone  # type: ignore[attr-defined]
    assert check is not None and check.cancelled() and out.check is None
    with pytest.raises(OSError):
        os.fstat(fd)
    out.close()  # twice: nothing more


async def test_closing_a_terminal_whose_descriptor_went_is_quiet(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    out = Terminal(HostWriter(asyncio.get_running_loop()), slave, lambda: None)
    os.close(out.fd)  # closed behind its back
    out.close()
    assert out.fd == -1 and out.gone


async def test_what_a_terminal_can_take_is_written_at_once(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    raw(slave)
    writer = HostWriter(asyncio.get_running_loop())
    out = Terminal(writer, slave, lambda: None)
    out.write("héllo ")
    out.send(b"world")
    out.send(b"")
    out.write(" a\ud800b")  # text that cannot be encoded: a replacement, not an error
    assert out.pending == b"" and out.check is None
    assert await gather(master, len("héllo world a?b".encode())) == "héllo world a?b".encode()
    out.close()


async def test_entering_the_alternate_screen_again_is_left_out(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    raw(slave)
    writer = HostWriter(asyncio.get_running_loop())
    out = Terminal(writer, slave, lambda: None)
    out.write(ENTER_ALT_SCREEN)  # the first app enters it
    out.in_app_mode = True
    out.write(ENTER_ALT_SCREEN)  # a new app on a screen already drawn: left out
    out.write(ENTER_ALT_SCREEN + "x")  # part of a longer write: kept
    assert await gather(master, 2 * len(ENTER_ALT_SCREEN) + 1) == (ENTER_ALT_SCREEN * 2 + "x").encode()
    out.close()


async def test_a_terminal_that_cannot_take_everything_gets_the_rest_in_order(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    raw(slave)
    loop = asyncio.get_running_loop()
    writer = HostWriter(loop)
    out = Terminal(writer, slave, lambda: None)
    sent = b"".join(bytes([65 + n % 26]) * 1000 for n in range(300))
    for n in range(300):
        out.send(sent[n * 1000 : (n + 1) * 1000])
    assert out.pending and out.check is not None and out.waiting_since > 0  # the pty is full: the rest waits
    check = out.check
    got = await gather(master, len(sent))
    assert got == sent
    assert out.pending == b"" and not out.gone
    await until(lambda: not loop._selector.get_map() or out.fd not in loop._selector.get_map(), "the writer removed", SOON)  # type: ignore[attr-defined]
    assert out.check is check  # one check at a time
    out.close()
    assert check.cancelled() and out.check is None


async def test_a_terminal_that_stops_reading_is_given_up_once(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(viewer_output, "STALLED", 0.2)
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    with caplog.at_level(logging.WARNING, logger="tracker.serve"):
        for _ in range(100):
            out.send(b"z" * 4096)
        assert out.pending and not out.gone
        await until(lambda: out.gone, "given up", SOON)
    assert gone == [1] and out.pending == b"" and out.check is None
    assert out.fd not in asyncio.get_running_loop()._selector.get_map()  # type: ignore[attr-defined]  # no longer written
    assert said(caplog) == ["a viewer's terminal took no output for 0.2s: its app ends"]
    writer.give_up(out)
    out.send(b"more")
    assert gone == [1] and out.pending == b""
    out.close()


async def test_a_terminal_found_full_keeps_all_that_is_sent(ptys: list[tuple[int, int]]) -> None:
    """Full before the writer's first write: nothing written, every byte waits, in order,
    and goes once the terminal takes output again. The terminal's output is suspended
    (as by a stop character), so it takes nothing however soon the kernel moves bytes on:
    filling its buffer instead races the kernel, which may free room before the send."""
    master, slave = new_pty(ptys)
    raw(slave)
    termios.tcflow(slave, termios.TCOOFF)
    writer = HostWriter(asyncio.get_running_loop())
    out = Terminal(writer, slave, lambda: None)
    out.send(b"abc")
    out.send(b"de")
    assert out.pending == b"abcde"
    assert read_all(master) == b""
    termios.tcflow(slave, termios.TCOON)
    assert await gather(master, 5) == b"abcde"
    await until(lambda: out.pending == b"", "drained", SOON)
    out.close()


async def test_a_terminal_that_took_some_then_stopped_is_given_up_stalled_seconds_after(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(viewer_output, "STALLED", 0.5)
    master, slave = new_pty(ptys)
    loop = asyncio.get_running_loop()
    writer = HostWriter(loop)
    gone: list[float] = []
    out = Terminal(writer, slave, lambda: gone.append(loop.time()))
    for _ in range(100):
        out.send(b"t" * 4096)
    read: bytearray = bytearray()
    await until(lambda: bool(read.extend(read_all(master)) or read), "some taken", SOON)  # the writer drains more
    taken = len(read)
    await until(lambda: len(out.pending) < 100 * 4096 - taken - 1, "drained some", SOON)
    last = out.waiting_since
    await until(lambda: bool(gone), "given up", SOON)
    assert gone[0] >= last + 0.5 - 0.01  # counted from the last output taken, not the first
    out.close()


async def test_a_terminal_that_keeps_taking_a_little_is_not_given_up(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(viewer_output, "STALLED", 1.0)  # a reader every 5 ms: far within it, even on a loaded host
    master, slave = new_pty(ptys)
    raw(slave)
    writer = HostWriter(asyncio.get_running_loop())
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    total = 100 * 4096
    for _ in range(100):
        out.send(b"w" * 4096)
    got = bytearray()
    loop = asyncio.get_running_loop()
    started = loop.time()
    while len(got) < total:  # a slow reader: a little at a time, past STALLED in all
        with contextlib.suppress(BlockingIOError):
            got += os.read(master, 2048)
        await asyncio.sleep(0.005)
        assert loop.time() - started < SOON
    assert len(got) == total and gone == [] and not out.gone
    out.close()


async def test_a_terminal_too_far_behind_is_given_up_at_once(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(viewer_output, "BACKLOG", 16 * 1024)
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    with caplog.at_level(logging.WARNING, logger="tracker.serve"):
        n = 0
        while not out.pending:  # fill the pty
            out.send(b"q" * 1024)
            n += 1
            assert n < 10_000
        kept = len(out.pending)
        while len(out.pending) + 1024 <= 16 * 1024:
            out.send(b"q" * 1024)
        assert not out.gone and gone == []  # at BACKLOG exactly: kept
        out.send(b"q" * (16 * 1024 - len(out.pending)))
        assert len(out.pending) == 16 * 1024 and not out.gone
        out.send(b"q")
    assert kept > 0 and out.gone and gone == [1] and out.pending == b""
    messages = said(caplog)
    assert messages == [f"a viewer's terminal fell {16 * 1024 + 1} bytes behind: it is given up"]
    out.close()


async def test_a_terminal_that_has_gone_away_is_given_up(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    fd = out.fd
    os.close(fd)
    out.send(b"x")  # EBADF: given up, not raised
    assert out.gone and gone == [1]
    out.fd = -1
    out.close()


async def test_a_terminal_that_fails_while_draining_is_given_up(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    loop = asyncio.get_running_loop()
    writer = HostWriter(loop)
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    while not out.pending:
        out.send(b"d" * 4096)
    writer._drain(out)  # still full: nothing taken, nothing lost
    assert out.pending and not out.gone
    loop.remove_writer(out.fd)
    real = out.fd
    out.fd = os.open("/dev/null", os.O_RDONLY)  # writing to it fails
    writer._drain(out)
    assert out.gone and gone == [1] and out.pending == b""
    os.close(out.fd)
    out.fd = real
    out.close()


async def test_the_stall_check_waits_out_the_time_since_the_last_output(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(viewer_output, "STALLED", 5.0)
    master, slave = new_pty(ptys)
    loop = asyncio.get_running_loop()
    writer = HostWriter(loop)
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    while not out.pending:
        out.send(b"s" * 4096)
    assert out.check is not None
    first = out.check
    out.waiting_since = loop.time() - 1.0  # output taken a second ago (time.monotonic is the loop's clock)
    writer._stalled(out)
    assert not out.gone and out.check is not None and out.check is not first
    left = out.check.when() - loop.time()
    assert 3.5 < left <= 4.0 + 0.1  # the four seconds still left, not another five
    out.waiting_since = loop.time() - 6.0
    writer._stalled(out)
    assert out.gone and gone == [1]
    out.close()


async def test_a_stall_check_for_a_terminal_gone_or_caught_up_does_nothing(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    gone: list[int] = []
    out = Terminal(writer, slave, lambda: gone.append(1))
    out.waiting_since = -1e9
    writer._stalled(out)  # nothing waiting
    assert not out.gone and out.check is None and gone == []
    out.pending += b"x"
    out.gone = True
    writer._stalled(out)
    assert out.check is None and gone == []
    out.close()


async def test_a_write_from_another_thread_is_handed_to_the_loop_in_order(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    raw(slave)
    writer = HostWriter(asyncio.get_running_loop())
    out = Terminal(writer, slave, lambda: None)

    def sender() -> None:
        for n in range(50):
            out.send(b"%03d" % n)

    thread = threading.Thread(target=sender)
    thread.start()
    thread.join()
    got = await gather(master, 150)
    assert got == b"".join(b"%03d" % n for n in range(50))
    out.close()


async def test_a_write_from_a_thread_after_the_loop_closed_is_dropped(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    loop = asyncio.new_event_loop()
    writer = HostWriter(loop)
    out = Terminal(writer, slave, lambda: None)
    loop.close()
    errors: list[BaseException] = []

    def sender() -> None:
        try:
            out.send(b"late")
        except BaseException as exc:  # noqa: B036 - what the thread would die of
            errors.append(exc)

    thread = threading.Thread(target=sender)
    thread.start()
    thread.join()
    assert errors == []
    os.close(out.fd)
    out.fd = -1


# ----------------------------------------------------------------- a shared view


async def test_a_shared_views_frame_goes_to_every_member_and_its_start_is_kept(ptys: list[tuple[int, int]]) -> None:
    writer = HostWriter(asyncio.get_running_loop())
    fan = FanOut(writer)
    assert fan.fileno() == -1 and fan.isatty() is True and fan.writes_without_blocking is True
    assert (fan.members, fan.starting, bytes(fan.preamble), fan.drawn) == ({}, False, b"", False)
    (m1, s1), (m2, s2) = new_pty(ptys), new_pty(ptys)
    raw(s1)
    raw(s2)
    one, two = Terminal(writer, s1, lambda: None), Terminal(writer, s2, lambda: None)
    fan.members = {1: one}
    fan.starting = True
    fan.write("\x1b[?1049h")
    fan.write("é")
    fan.starting = False
    assert fan.preamble == "\x1b[?1049hé".encode() and not fan.drawn
    fan.write("")
    assert not fan.drawn  # nothing drawn yet
    fan.members[2] = two
    fan.write("frame\ud800")
    assert fan.drawn and fan.preamble == "\x1b[?1049hé".encode()
    assert await gather(m1, len("\x1b[?1049héframe?".encode())) == "\x1b[?1049héframe?".encode()
    assert await gather(m2, 6) == b"frame?"
    assert fan.flush() is None and fan.close() is None
    assert not one.gone and not two.gone  # closed with the members, not with the view
    one.close()
    two.close()


# ----------------------------------------------------------------- the hosted driver


class Hosted:
    """What HostedDriver needs of its app: the pty, the output, and how it is ended."""

    def __init__(self, fd: int, output: Any, typed: bytes = b"") -> None:
        self.terminal_fd = fd
        self.terminal_output = output
        self.typed_first = typed
        self.posted: list[Any] = []
        self.exits: list[int] = []

    def post_message(self, message: Any) -> bool:
        self.posted.append(message)
        return True

    def exit(self, return_code: int = 0) -> None:
        self.exits.append(return_code)


def set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def test_the_hosted_driver_is_on_its_own_pty(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    output = object()
    driver = HostedDriver(Hosted(slave, output), size=(100, 30))  # type: ignore[arg-type]
    assert driver.fileno == slave and driver.input_tty is True and driver.output is output
    assert driver.can_suspend is False
    set_size(slave, 132, 43)
    assert driver.terminal_size() == (132, 43)


async def test_the_hosted_driver_is_made_as_asked(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    driver = HostedDriver(Hosted(slave, object()), debug=True, mouse=False, size=(100, 30))  # type: ignore[arg-type]
    assert (driver._debug, driver._mouse, driver._size) == (True, False, (100, 30))
    driver = HostedDriver(Hosted(slave, object()))  # type: ignore[arg-type]
    assert (driver._debug, driver._mouse, driver._size) == (False, True, None)


def test_a_terminals_size_is_80x24_when_it_cannot_say(ptys: list[tuple[int, int]], tmp_path: Any) -> None:
    master, slave = new_pty(ptys)
    set_size(slave, 0, 0)
    assert size_of(slave) == (80, 24)
    set_size(slave, 100, 0)
    assert size_of(slave) == (100, 24)
    set_size(slave, 0, 50)
    assert size_of(slave) == (80, 50)
    set_size(slave, 81, 25)
    assert size_of(slave) == (81, 25)
    set_size(slave, 40000, 33000)  # the kernel's sizes are unsigned
    assert size_of(slave) == (40000, 33000)
    with open(tmp_path / "f", "w") as not_a_terminal:
        assert size_of(not_a_terminal.fileno()) == (80, 24)


async def test_a_resize_set_on_the_master_is_posted_unless_the_terminal_says_it_itself(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    app = Hosted(slave, object())
    driver = HostedDriver(app)  # type: ignore[arg-type]
    set_size(slave, 120, 40)
    driver._in_band_window_resize = False
    driver.resized()
    assert len(app.posted) == 1
    resize = app.posted[0]
    assert isinstance(resize, events.Resize) and resize.size == (120, 40) and resize.virtual_size == (120, 40)
    driver._in_band_window_resize = True
    driver.resized()
    assert len(app.posted) == 1


async def test_a_terminal_gone_ends_the_app_from_any_thread(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    app = Hosted(slave, object())
    driver = HostedDriver(app)  # type: ignore[arg-type]
    thread = threading.Thread(target=driver.terminal_gone)
    thread.start()
    thread.join()
    await until(lambda: app.exits == [1], "the app ended with 1", SOON)
    driver._loop = None  # type: ignore[assignment]
    driver.terminal_gone()  # no loop: nothing to do
    closed = asyncio.new_event_loop()
    closed.close()
    driver._loop = closed
    driver.terminal_gone()
    await asyncio.sleep(0)
    assert app.exits == [1]


async def test_a_terminal_gone_while_the_loop_closes_is_quiet(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    app = Hosted(slave, object())
    driver = HostedDriver(app)  # type: ignore[arg-type]

    class Closing:
        def is_closed(self) -> bool:
            return False

        def call_soon_threadsafe(self, callback: Any) -> None:
            raise RuntimeError("Event loop is closed")

    driver._loop = Closing()  # type: ignore[assignment]
    driver.terminal_gone()
    assert app.exits == []


async def test_keys_typed_before_the_app_are_read_first_and_the_ptys_end_ends_it(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    order: list[Any] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: (order.append("terminal"), (_ for _ in ()).throw(OSError(5, "EIO"))))
    app = Hosted(slave, object(), typed=b"ab\x1b")
    driver = HostedDriver(app)  # type: ignore[arg-type]
    monkeypatch.setattr(driver, "process_message", lambda event: order.append(event.key))
    gone: list[int] = []
    monkeypatch.setattr(driver, "terminal_gone", lambda: gone.append(1))
    driver.run_input_thread()
    assert order == ["a", "b", "escape", "terminal"]  # a lone Esc is the Esc key, and before the terminal's
    assert gone == [1]


async def test_a_byte_typed_first_that_is_not_text_loses_itself_only(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    keys: list[str] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: None)
    driver = HostedDriver(Hosted(slave, object(), typed=b"a\xffb"))  # type: ignore[arg-type]
    monkeypatch.setattr(driver, "process_message", lambda event: keys.append(event.key))
    driver.run_input_thread()
    assert keys[0] == "a" and keys[-1] == "b"


async def test_nothing_typed_first_reads_the_terminal_only(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    order: list[Any] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: order.append("terminal"))
    driver = HostedDriver(Hosted(slave, object()))  # type: ignore[arg-type]
    monkeypatch.setattr(driver, "process_message", lambda event: order.append(event))
    gone: list[int] = []
    monkeypatch.setattr(driver, "terminal_gone", lambda: gone.append(1))
    driver.run_input_thread()
    assert order == ["terminal"] and gone == []  # returned without an error: not gone


async def test_an_app_that_kept_no_keys_reads_the_terminal_only(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    order: list[Any] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: order.append("terminal"))
    app = Hosted(slave, object())
    del app.typed_first  # an app made without it
    driver = HostedDriver(app)  # type: ignore[arg-type]
    monkeypatch.setattr(driver, "process_message", lambda event: order.append(event))
    driver.run_input_thread()
    assert order == ["terminal"]


async def test_typed_bytes_that_do_not_read_are_lost_not_raised(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    order: list[Any] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: order.append("terminal"))
    driver = HostedDriver(Hosted(slave, object(), typed=b"x\xff"))  # type: ignore[arg-type]

    def process(event: Any) -> None:
        raise ValueError("cannot")

    monkeypatch.setattr(driver, "process_message", process)
    driver.run_input_thread()
    assert order == ["terminal"]


async def test_application_mode_marks_a_shared_views_start_and_a_terminal_drawn(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    fan = FanOut(writer)
    seen: list[Any] = []

    def start(self: Any) -> None:
        seen.append((self.output.starting if isinstance(self.output, FanOut) else self.output.in_app_mode, self.event_loop))
        if seen[-1] and len(seen) == 2:
            raise RuntimeError("failed to start")

    monkeypatch.setattr(LinuxDriver, "start_application_mode", start)
    driver = HostedDriver(Hosted(slave, fan))  # type: ignore[arg-type]
    driver._loop = None  # type: ignore[assignment]
    driver.start_application_mode()
    loop = asyncio.get_running_loop()
    assert seen == [(True, loop)] and fan.starting is False  # the preamble's writes, then frames
    with pytest.raises(RuntimeError):
        driver.start_application_mode()
    assert fan.starting is False  # even when starting failed
    out = Terminal(writer, slave, lambda: None)
    driver = HostedDriver(Hosted(slave, out))  # type: ignore[arg-type]
    seen.clear()
    driver.start_application_mode()
    assert seen == [(False, loop)] and out.in_app_mode is True
    out.close()
