"""Direct tests of tracker.serve.campaign: the campaign a table serves (`tracker serve
--campaign NAME`), read again when its file changes, watched by inotify on Linux and else
by its size and time (the module docstring, decision 0050). A campaign file is appended
to, a `# revision N` line after each change, so the file cut after a revision line is
the campaign as it stood then: City Nights (saves/) at revision 2 has its two characters
and no fight, at 4 the docks fought and ended, at 6 the rooftop too, at 8 the museum
under way."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import shutil
import threading
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.serve import campaign
from tracker.serve.campaign import _IN_Q_OVERFLOW, _EVENT, FileWatch, ServedCampaign, _events, _inotify, _stamp, campaign_label
from tests.serve_log import said
from tests.helpers import until

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time


def _stamps_taken(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each look the poller takes at the file (its first is what later looks compare with)."""
    taken: list[Path] = []

    def stamp(path: Path) -> tuple[int, ...]:
        taken.append(path)
        return _stamp(path)

    monkeypatch.setattr(campaign, "_stamp", stamp)
    return taken

SAVES = Path(__file__).resolve().parent.parent / "saves"
CITY = SAVES / "city-nights.campaign.toml"
DOCKS, ROOF, MUSEUM = "city-nights-1-docks.toml", "city-nights-2-roof.toml", "city-nights-3-museum.toml"


def at_revision(revision: int) -> bytes:
    """City Nights' file as it stood at `revision`: up to that revision's line."""
    text = CITY.read_text(encoding="utf-8")
    mark = f"# revision {revision}\n"
    return text[: text.index(mark) + len(mark)].encode("utf-8")


def write(path: Path, revision: int) -> None:
    path.write_bytes(at_revision(revision))


@pytest.fixture
def city(tmp_path: Path) -> Path:
    path = tmp_path / "city-nights.campaign.toml"
    shutil.copy(CITY, path)
    return path


def test_a_campaign_is_called_by_its_file_name_without_the_suffix() -> None:
    assert campaign_label("road.campaign.toml") == "road"
    assert campaign_label("city-nights.campaign.toml") == "city-nights"
    assert campaign_label("road") == "road"
    assert campaign_label("a.campaign.toml.campaign.toml") == "a.campaign.toml"


def test_the_served_campaign_puts_the_table_on_its_current_fight(city: Path) -> None:
    served = ServedCampaign.open(city)
    assert served.path == city and served.name == "City Nights" and served.revision == 8
    assert served.table == MUSEUM  # under way
    write(city, 6)
    served = ServedCampaign.open(city)
    assert served.table == ROOF and served.revision == 6  # none under way: the latest
    write(city, 2)
    served = ServedCampaign.open(city)
    assert served.table == "" and served.revision == 2  # no fight yet


def test_a_campaign_that_cannot_be_read_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(TrackerError, match="gone.campaign.toml"):
        ServedCampaign.open(tmp_path / "gone.campaign.toml")


def test_reading_again_tells_whether_the_campaign_changed(city: Path) -> None:
    write(city, 4)
    served = ServedCampaign.open(city)
    before = served.campaign
    assert served.read() is False and served.campaign is before  # the same file
    write(city, 6)
    assert served.read() is True
    assert served.revision == 6 and [f.file for f in served.campaign.fights] == [DOCKS, ROOF]
    assert served.read() is False and served.revision == 6


def test_a_new_revision_is_read_again_even_with_as_many_events(city: Path) -> None:
    """Written again elsewhere (another server's copy, restored from a backup): the same
    four events, the file at another revision."""
    write(city, 4)
    served = ServedCampaign.open(city)
    city.write_bytes(at_revision(4).replace(b"# revision 4\n", b"# revision 9\n"))
    assert served.read() is True and served.revision == 9


def test_a_campaign_file_that_no_longer_loads_keeps_the_last_good_state(city: Path, caplog: pytest.LogCaptureFixture) -> None:
    served = ServedCampaign.open(city)
    before = served.campaign
    city.write_text("kind = 'campaign'\nthis is not toml [[[\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tracker.serve"):
        assert served.read() is False
    assert served.campaign is before and served.revision == 8
    said = [r.getMessage() for r in caplog.records if r.name == "tracker.serve"]
    assert len(said) == 1 and said[0].startswith(f"the campaign {city} cannot be read; the table stays as it is: {city}")
    city.unlink()
    assert served.read() is False and served.campaign is before


def test_the_table_moves_when_a_fight_starts_or_its_start_is_taken_back(city: Path) -> None:
    write(city, 4)
    served = ServedCampaign.open(city)
    assert served.table == DOCKS and served.moved_on() is None
    write(city, 5)  # a rest: no new fight
    assert served.read() and served.moved_on() is None
    write(city, 6)
    assert served.read() and served.moved_on() == ROOF and served.table == ROOF
    assert served.moved_on() is None  # told once
    write(city, 8)
    assert served.read() and served.moved_on() == MUSEUM
    write(city, 2)  # every fight's start taken back
    assert served.read() and served.moved_on() == "" and served.table == ""
    assert served.moved_on() is None


def test_only_a_fight_of_this_campaign_may_be_the_table(city: Path) -> None:
    served = ServedCampaign.open(city)
    here = city.name
    assert served.refusal(Path("/saves") / ROOF, here) == ""
    assert served.refusal(Path("/saves") / MUSEUM, here) == ""
    assert served.refusal(Path("/saves/skirmish.toml"), "") == "skirmish.toml is a fight of its own, not of the campaign City Nights"
    assert served.refusal(Path("/saves") / DOCKS, "road.campaign.toml") == f"{DOCKS} is a fight of the campaign road, not of City Nights"
    assert served.refusal(Path("/saves/other.toml"), here) == (
        f"other.toml is not among the fights of the campaign City Nights (its fights: {DOCKS}, {ROOF}, {MUSEUM})"
    )
    write(city, 2)
    served = ServedCampaign.open(city)
    assert served.refusal(Path("/saves") / DOCKS, here) == f"{DOCKS} is not among the fights of the campaign City Nights (its fights: none yet)"


# ----------------------------------------------------------------- inotify's events


def event(mask: int, name: bytes, padded: int = 16, wd: int = 1) -> bytes:
    body = name + b"\0" * (padded - len(name)) if name or padded else b""
    return _EVENT.pack(wd, mask, 0, len(body)) + body


def events_of(data: bytes) -> list[tuple[int, bytes]]:
    """`_events(data)` on a thread: a reading that never ended fails the test, not holds it."""
    found: list[list[tuple[int, bytes]]] = []
    reader = threading.Thread(target=lambda: found.append(_events(data)), daemon=True)
    reader.start()
    reader.join(SOON)
    ended = not reader.is_alive()
    assert ended  # (checked alone: a reading that never ended has a list too long to show)
    return found[0]


def test_inotify_events_are_read_one_after_another() -> None:
    data = event(0x2, b"road.campaign.toml", 32) + event(0x100, b"", 0) + event(_IN_Q_OVERFLOW, b"", 0, wd=-1) + event(0x8, b"x", 16)
    assert events_of(data) == [(0x2, b"road.campaign.toml"), (0x100, b""), (_IN_Q_OVERFLOW, b""), (0x8, b"x")]
    assert events_of(b"") == []
    assert events_of(data[: _EVENT.size - 1]) == []  # less than a header: nothing
    one = event(0x2, b"a", 16)
    assert events_of(one + b"\0" * (_EVENT.size - 1)) == [(0x2, b"a")]
    assert events_of(one + one) == [(0x2, b"a"), (0x2, b"a")]


def test_event_names_are_read_whole_and_the_reading_ends(tmp_path: Path) -> None:
    """A name ending in X keeps it (only the NUL padding goes); the events of a long read
    are each read once."""
    assert events_of(event(0x2, b"fileX", 16) + event(0x2, b"X", 8)) == [(0x2, b"fileX"), (0x2, b"X")]
    data = b"".join(event(0x2, b"f%d" % n, 16) for n in range(100))
    assert events_of(data) == [(0x2, b"f%d" % n) for n in range(100)]


class _NoInotify:
    """A C library as `_inotify` uses it, whose inotify cannot be had."""

    def __init__(self, init: int = -1, watch: int = -1) -> None:
        self.init, self.watch = init, watch

    def inotify_init1(self, flags: int) -> int:
        return self.init

    def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
        return self.watch


def test_without_inotify_there_is_no_descriptor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*args: object, **kwargs: object) -> object:
        raise OSError("no C library")

    monkeypatch.setattr(campaign.ctypes, "CDLL", missing)
    assert _inotify(tmp_path) == -1  # no C library
    monkeypatch.setattr(campaign.ctypes, "CDLL", lambda *a, **k: object())
    assert _inotify(tmp_path) == -1  # no inotify in it
    monkeypatch.setattr(campaign.ctypes, "CDLL", lambda *a, **k: _NoInotify())
    assert _inotify(tmp_path) == -1  # too many instances (EMFILE)


def test_a_files_stamp_is_its_time_size_and_inode(tmp_path: Path) -> None:
    path = tmp_path / "f"
    assert _stamp(path) == ()
    path.write_bytes(b"abc")
    st = os.stat(path)
    assert _stamp(path) == (st.st_mtime_ns, 3, st.st_ino)


def test_inotify_watches_a_folder_that_exists(tmp_path: Path) -> None:
    assert _inotify(tmp_path / "missing") == -1
    fd = _inotify(tmp_path)
    try:
        assert fd >= 0
        assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        (tmp_path / "a").write_bytes(b"x")
        names = [name for _mask, name in _events(os.read(fd, 65536))]
        assert b"a" in names
    finally:
        os.close(fd)


async def test_a_change_to_the_file_is_seen_by_inotify_and_nothing_else_is(tmp_path: Path) -> None:
    path = tmp_path / "road.campaign.toml"
    path.write_bytes(b"1")
    seen: list[int] = []
    watch = FileWatch(path, lambda: seen.append(1))
    assert watch.start() == "inotify"
    fd = watch._fd
    try:
        (tmp_path / "other.toml").write_bytes(b"x")
        (tmp_path / "road.campaign.toml.lock").write_bytes(b"x")
        await asyncio.sleep(0)  # let the loop read what inotify said
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert seen == []
        path.write_bytes(b"22")
        await until(lambda: bool(seen), "the change seen", SOON)
    finally:
        watch.stop()
    assert watch._fd == -1
    with pytest.raises(OSError):
        os.fstat(fd)  # closed
    assert fd not in asyncio.get_running_loop()._selector.get_map()  # type: ignore[attr-defined]  # and no longer read
    count = len(seen)
    path.write_bytes(b"333")
    for _ in range(20):
        await asyncio.sleep(0.01)
    assert len(seen) == count  # stopped: no more


async def test_an_inotify_overflow_counts_as_a_change(tmp_path: Path) -> None:
    path = tmp_path / "road.campaign.toml"
    seen: list[int] = []
    watch = FileWatch(path, lambda: seen.append(1))
    r, w = os.pipe()
    os.set_blocking(r, False)  # as inotify's is
    watch._fd = r
    try:
        os.write(w, event(0x2, b"other", 16))
        watch._readable()
        assert seen == []
        os.write(w, event(_IN_Q_OVERFLOW, b"", 0, wd=-1))
        watch._readable()
        assert seen == [1]
        watch._readable()  # nothing there after all: nothing happens
        assert seen == [1] and watch._fd == r and watch._poller is None
    finally:
        os.close(w)
    watch.stop()
    with pytest.raises(OSError):
        os.fstat(r)  # stop closed it


async def test_a_watch_that_breaks_falls_back_to_looking_at_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(campaign, "POLL", 0.02)
    looks = _stamps_taken(monkeypatch)
    path = tmp_path / "road.campaign.toml"
    path.write_bytes(b"1")
    seen: list[int] = []
    watch = FileWatch(path, lambda: seen.append(1))
    bad = os.open(tmp_path, os.O_RDONLY)  # reading a folder fails
    watch._fd = bad
    with caplog.at_level(logging.WARNING, logger="tracker.serve"):
        watch._readable()
    try:
        assert watch._fd == -1 and watch._poller is not None
        with pytest.raises(OSError):
            os.fstat(bad)
        assert said(caplog) == [f"{path}: cannot watch any more ([Errno 21] Is a directory); looking every 0.02s instead"]
        await until(lambda: bool(looks), "the poller's first look", SOON)
        path.write_bytes(b"22")
        await until(lambda: bool(seen), "the change seen by looking", SOON)
    finally:
        watch.stop()
    await asyncio.sleep(0)
    assert watch._poller.cancelled()


@pytest.mark.parametrize("how", ["platform", "no inotify"])
async def test_without_inotify_the_file_is_looked_at_every_poll(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    monkeypatch.setattr(campaign, "POLL", 0.02)
    if how == "platform":
        monkeypatch.setattr(campaign.sys, "platform", "darwin")
    else:
        monkeypatch.setattr(campaign, "_inotify", lambda folder: -1)
    looks = _stamps_taken(monkeypatch)
    path = tmp_path / "road.campaign.toml"
    path.write_bytes(b"1")
    seen: list[int] = []
    watch = FileWatch(path, lambda: seen.append(1))
    assert watch.start() == "polling"
    assert watch._fd == -1
    try:
        await until(lambda: len(looks) >= 3, "the poller's first looks", SOON)
        assert seen == []  # nothing changed: nothing said
        path.write_bytes(b"22")
        await until(lambda: len(seen) == 1, "the change seen", SOON)
        for _ in range(10):
            await asyncio.sleep(0.02)
        assert seen == [1]  # once per change
        path.unlink()
        await until(lambda: len(seen) == 2, "the removal seen", SOON)
    finally:
        watch.stop()
    await asyncio.sleep(0)
    assert watch._poller is not None and watch._poller.cancelled()


def test_a_watch_stopped_after_its_loop_or_its_descriptor_is_gone_stops_quietly(tmp_path: Path) -> None:
    watch = FileWatch(tmp_path / "road.campaign.toml", lambda: None)
    r, w = os.pipe()
    watch._fd = r
    watch.stop()  # no running loop (the server's loop has ended): nothing raised
    assert watch._fd == -1
    with pytest.raises(OSError):
        os.fstat(r)
    os.close(w)
    r, w = os.pipe()
    os.close(r)
    watch._fd = r  # closed already
    watch.stop()
    assert watch._fd == -1
    os.close(w)
