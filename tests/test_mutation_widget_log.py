"""Direct tests of tracker.ui.widgets.log (the combat log), worked from its docstring and
docs/decisions/0013-combat-log.md: every line of the log as the reader may see it, each
under its segment (`[137] `, six cells) and word-wrapped to the pane, its lines after
the first indented; styled by kind. It loads only the newest entries, a few screens'
worth (and some entries), keeps a bounded tail while following the newest line, loads
older ones a chunk at a time when the reader scrolls back near the oldest loaded row
(the view staying on the line it showed), follows the end unless scrolled back;
`only` keeps one combatant's entries (following a rename), `search` those holding a
text in any case; at a shared table each change's first line names who made it
(moving time is not signed; an approved proposal names the player and the GM); a
viewer sees neither a hidden combatant's lines nor a secret roll.

Every style of the log is given its own colour here, so a row's kind is read back from
its colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

from rulesets.freeform import FreeformRuleset
from tracker.engine import Encounter, Event, LogEntry, Resolution, Setup
from tracker.persistence import codec
from tracker.persistence.store import EncounterFile
from tracker.play.live import Changed, Live
from tracker.reading.roles import Role
from tracker.ui.widgets.log import PREFIX, Authors, CombatLog, entry_text
from tests.test_ui_app import make_file
from tracker.ui.textual_private import drawing_pending, screen_cells
from tests.ui import PaneApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
COLOURS = {
    "#ffffff": "base",
    "#b00001": "segment",
    "#b00002": "declare",
    "#b00003": "damage",
    "#b00004": "down",
    "#b00005": "complete",
    "#b00006": "note",
}


class Logs(PaneApp):
    """The log alone, each of its styles in a colour of its own, laid out as the
    tracker's stylesheet lays it out (its scrollbar's column kept, no sideways scroll)."""

    CSS = """
    CombatLog { background: #000000; color: #ffffff; scrollbar-gutter: stable; overflow-x: hidden; }
    CombatLog > .log--segment { color: #b00001; }
    CombatLog > .log--declare { color: #b00002; }
    CombatLog > .log--damage { color: #b00003; }
    CombatLog > .log--down { color: #b00004; text-style: bold; }
    CombatLog > .log--complete { color: #b00005; }
    CombatLog > .log--note { color: #b00006; text-style: italic; }
    """


def kind(style: Style | None) -> str:
    assert style is not None and style.color is not None and style.color.triplet is not None
    assert style.bgcolor is not None and style.bgcolor.triplet is not None and style.bgcolor.triplet.hex == "#000000"
    return COLOURS[style.color.triplet.hex]


def chars(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)


def looks(strip: Strip) -> list[str]:
    """The kind of each segment of a row with text, blanks joined to the one before."""
    return [kind(segment.style) for segment in strip if segment.text.strip()]


def screen(log: CombatLog) -> list[str]:
    return [chars(log.render_line(y)).rstrip() for y in range(log.size.height)]


class Counted(CombatLog):
    """The log, keeping the redraws asked of it: None for the whole pane, else the regions."""

    def __init__(self, live: Live) -> None:
        super().__init__(live)
        self.redraws: list[Any] = []

    def refresh(self, *regions: Any, **kwargs: Any) -> Any:
        self.redraws.append(regions or None)
        return super().refresh(*regions, **kwargs)


async def _run(live: Live, width: int, height: int, check: Any) -> None:
    log = Counted(live)
    app = Logs(log, width, height)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: log.size.height == height and log.rows > 0, "the log laid out", WAIT)
        await check(pilot, log)


FIGHT = [
    "add Ann hp=10", "add Bo hp=10",
    "declare Ann jab target=Bo pt=1",
    "next",
    "damage Bo 12",
    "note a long note that goes on and on past the width of the pane for sure",
    "step 2",
    "condition Ann prone 2",
]


async def test_each_line_under_its_segment_wrapped_and_styled_by_kind(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", FIGHT))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert log.scrollable_content_region.width == 38  # a column for the scrollbar, always
        # 32 cells for the words (38 less the six of the segment), then indented by two.
        assert screen(log) == [
            "[0]   Ann joins the fight",
            "[0]   Bo joins the fight",
            "[0]   Ann initiates active jab at Bo,",
            "        PT 1, completes on segment 1",
            "[1]   Ann's jab completes",
            "[1]   Bo takes 12 hp (hp 10 -> -2)",
            "[1]   Bo is down",
            "[1]   a long note that goes on and on",
            "        past the width of the pane for",
            "        sure",
            "[3]   Ann is prone until segment 5",
            "",
        ]
        assert log.rows == 11 and [e.kind for e in log.loaded] == ["add", "add", "declare", "complete", "damage", "down", "note", "condition"]
        kinds = [looks(log.render_line(y)) for y in range(12)]
        assert kinds == [
            ["segment", "base"], ["segment", "base"], ["segment", "declare"], ["declare"], ["segment", "complete"],
            ["segment", "damage"], ["segment", "down"], ["segment", "note"], ["note"], ["note"], ["segment", "base"], [],
        ]
        row = log.render_line(3)
        assert [segment.text for segment in row][0] == " " * PREFIX and kind(next(iter(row)).style) == "segment"
        assert sum(len(segment.text) for segment in row) == 38
        blank = log.render_line(11)
        assert chars(blank) == " " * 38 and {kind(segment.style) for segment in blank} == {"base"}
        assert log.render_line(2).cell_length == 38
        # A short line is padded to the pane's width in the pane's own style.
        padding = list(log.render_line(1))[-1]
        assert padding.text.strip() == "" and kind(padding.style) == "base"
        # The lines as read, before wrapping.
        assert log.loaded_lines()[2] == "Ann initiates active jab at Bo, PT 1, completes on segment 1"
        # And as the screen shows them, drawn together.
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", WAIT)
        shown = ["".join(char for char, _ in row[:38]).rstrip() for row in screen_cells(pilot.app)[:12]]
        assert shown == screen(log)

    await _run(live, 40, 12, check)


async def test_a_narrow_pane_wraps_at_ten_cells_at_least(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", ["add Ann", "note one two three four five six"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        width = log.scrollable_content_region.width
        assert width - PREFIX < 10
        # Ten cells for the words, whatever is left of them on screen.
        full = ["[0]   Ann joins", "        the", "        fight", "[0]   one two", "        three", "        four", "        five six"]
        assert screen(log)[:7] == [row[:width].rstrip() for row in full]
        assert log.rows == 7

    await _run(live, 14, 8, check)


async def test_a_segment_number_past_four_digits_shifts_nothing_but_its_own_row(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", ["add Ann", "step 123456", "note late"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert screen(log)[:2] == ["[0]   Ann joins the fight", "[123456]late"]

    await _run(live, 40, 4, check)


def _long(folder: Path, notes: int, *, every: int = 0, by: tuple[str, ...] = (), word: str = "line") -> Path:
    """A freeform fight of `notes` one-row notes `line N`; every `every`th also one about
    the hidden Ghost and one about Sphinx; signed in turn by `by`."""
    enc = Encounter(Setup("long", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    for name in ("Seraph", "Sphinx", "Ghost"):
        enc.apply(Event("add", {"name": name, "resources": {"hp": 10}}))
    enc.apply(Event("hide", {"target": "Ghost", "hidden": True}))
    for i in range(notes):
        enc.apply(Event("note", {"text": f"{word} {i}"}, by=by[i % len(by)] if by else ""))
        if every and i % every == 0:
            enc.apply(Event("note", {"text": f"Ghost lurks {i}", "about": ["Ghost"]}))
            enc.apply(Event("note", {"text": f"Sphinx mark {i}", "about": ["Sphinx"]}))
    path = folder / "long.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    return path


def _notes(log: CombatLog) -> list[int]:
    return [int(row.split("line ")[1]) for row in screen(log) if "line " in row]


def _append(live: Live, log: CombatLog, texts: list[str]) -> None:
    start = len(live.encounter.events)
    for text in texts:
        live.encounter.apply(Event("note", {"text": text}))
    log.changed(Changed(tuple(live.encounter.events[start:])))


async def test_a_long_log_loads_a_chunk_of_the_newest_and_follows_the_end(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 1000))

    async def check(pilot: Any, log: CombatLog) -> None:
        log_length = len(live.encounter.log)
        assert log_length == 1004  # three joined, one hidden, the notes
        # A few screens of rows at least, and a hundred entries: one chunk of 200.
        assert len(log.loaded) == 200 and log.first_loaded == log_length - 200 and log.older
        assert log.loaded[0].text == "line 800" and log.rows == 200
        assert _notes(log) == list(range(994, 1000)) and log.follow
        assert log.scroll_y == 194 == log.max_scroll_y
        wrapped = log.wrapped
        assert 200 <= wrapped <= 400  # the loaded entries, wrapped once (twice if the width came late)
        # New lines: appended and followed; only they are wrapped.
        _append(live, log, ["line 1000", "line 1001"])
        assert log.wrapped == wrapped + 2
        assert _notes(log) == list(range(996, 1002)) and log.scroll_y == 196
        assert len(log.loaded) == 202 and log.first_loaded == log_length - 200
        # Up to the tail and a chunk (500) all are kept; past it the oldest are dropped
        # back to the tail (300).
        _append(live, log, [f"line {i}" for i in range(1002, 1300)])
        assert len(log.loaded) == 500 and log.loaded[0].text == "line 800"
        _append(live, log, ["line 1300"])
        assert len(log.loaded) == 300 and log.loaded[0].text == "line 1001" and log.loaded[-1].text == "line 1300"
        assert log.first_loaded == log_length + 1 and log.rows == 300
        await wait_for(pilot, lambda: _notes(log) == list(range(1295, 1301)), "the newest lines", WAIT)

    await _run(live, 40, 6, check)


async def test_scrolling_back_loads_older_lines_and_keeps_the_view_and_the_end_follows_again(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 1000))

    async def check(pilot: Any, log: CombatLog) -> None:
        log.scroll_lines(-100)
        assert not log.follow and log.scroll_y == 94 and _notes(log) == list(range(894, 900))
        assert len(log.loaded) == 200  # 94 rows above: nothing to load yet
        log.scroll_lines(-90)
        # Heading for row 4, less than a screen from the top: 200 older loaded first.
        assert len(log.loaded) == 400 and log.first_loaded == 604 and log.loaded[0].text == "line 600"
        assert log.scroll_y == 204 and _notes(log) == list(range(804, 810))
        # Entries arriving below the view do not move it.
        _append(live, log, ["line 1000"])
        assert log.scroll_y == 204 and _notes(log) == list(range(804, 810)) and not log.follow
        # Down to the end: following again.
        log.scroll_lines(1000)
        assert log.follow and _notes(log) == list(range(995, 1001))
        _append(live, log, ["line 1001"])
        assert _notes(log) == list(range(996, 1002))
        # Up by the wheel: stops following; back to the end: follows.
        log.scroll_to(y=log.scroll_y - 3, animate=False, immediate=True)
        assert not log.follow
        log.scroll_to(y=log.max_scroll_y, animate=False, immediate=True)
        assert log.follow
        # Up to the very top by the scrollbar: older loaded, the view on the line it showed.
        log.scroll_to(y=0, animate=False, immediate=True)
        await wait_for(pilot, lambda: log.first_loaded == 404, "older lines loaded", WAIT)
        assert _notes(log)[0] == 600 and not log.follow

    await _run(live, 40, 6, check)


async def test_the_top_of_the_log_loads_nothing_more(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 30))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert not log.older and log.first_loaded == 0 and len(log.loaded) == 34
        log.scroll_lines(-1000)
        assert log.scroll_y == 0 and len(log.loaded) == 34 and screen(log)[0].endswith("Seraph joins the fight")
        assert not log.follow

    await _run(live, 40, 6, check)


async def test_only_and_search_narrow_the_log_and_start_from_the_newest_match(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 500, every=10))

    async def check(pilot: Any, log: CombatLog) -> None:
        log.scroll_lines(-20)
        log.set_filter("Sphinx", "")
        assert log.follow and [e.text for e in log.loaded][-2:] == ["Sphinx mark 480", "Sphinx mark 490"]
        assert all("Sphinx" in e.about for e in log.loaded)
        assert [e.text for e in log.loaded][:2] == ["Sphinx joins the fight", "Sphinx mark 0"]
        assert not log.older
        assert screen(log)[-1].endswith("Sphinx mark 490")
        log.set_filter(None, "MARK 49")
        assert [e.text for e in log.loaded] == ["Sphinx mark 490"]
        log.set_filter("Seraph", "mark")  # both at once: narrower
        assert log.loaded == ()
        assert screen(log) == [""] * 6 and log.rows == 0
        log.set_filter(None, "")
        assert log.loaded[-1].text == "line 499"
        # A rename carries the filter with the combatant.
        log.set_filter("Sphinx", "")
        live.encounter.apply(Event("rename", {"target": "Sphinx", "name": "Sphynx"}))
        log.changed(Changed((live.encounter.events[-1],)))
        assert log.only == "Sphynx"
        live.encounter.apply(Event("rename", {"target": "Seraph", "name": "Sera"}))
        log.changed(Changed((live.encounter.events[-1],)))
        assert log.only == "Sphynx"
        live.encounter.apply(Event("rename", {"target": "Sphynx", "name": "Sphinx"}))
        log.changed(Changed((live.encounter.events[-1],), whole=True))  # the file read again
        assert log.only == "Sphynx"

    await _run(live, 40, 6, check)


async def test_a_rename_with_no_filter_sets_none(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", ["add Ann", "rename Ann Anna"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        log.changed(Changed((live.encounter.events[-1],)))
        assert log.only is None

    await _run(live, 40, 4, check)


async def test_a_viewer_sees_no_line_of_the_hidden(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 300, every=10))
    live.seat(Role.viewer())

    async def check(pilot: Any, log: CombatLog) -> None:
        assert not any("Ghost" in e.text for e in log.loaded)
        assert any("Sphinx mark" in e.text for e in log.loaded)
        log.scroll_lines(-10_000)
        log.scroll_lines(-10_000)
        assert not log.older and not any("Ghost" in line for line in log.loaded_lines())
        # Shown: the lines written while hidden stay unseen, new ones show.
        live.encounter.apply(Event("hide", {"target": "Ghost", "hidden": False}))
        live.encounter.apply(Event("note", {"text": "Ghost shows", "about": ["Ghost"]}))
        log.changed(Changed(tuple(live.encounter.events[-2:])))
        assert log.loaded[-1].text == "Ghost shows" and not any("Ghost lurks" in e.text for e in log.loaded)

    await _run(live, 40, 6, check)


async def test_the_gm_sees_every_line(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 30, every=10))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert sum("Ghost lurks" in e.text for e in log.loaded) == 3

    await _run(live, 40, 6, check)


def _signed_file(folder: Path) -> Path:
    enc = Encounter(Setup("signed", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    enc.apply(Event("add", {"name": "Ann", "resources": {"hp": 10}}, by="gm:alice"))
    enc.apply(Event("add", {"name": "Bo", "resources": {"hp": 10}}, by="gm:alice"))
    enc.apply(Event("note", {"text": "by carol"}, by="carol"))
    enc.apply(Event("damage", {"target": "Bo", "amount": 12, "resource": "hp"}, by="gm:alice"))  # two lines: signed once
    enc.apply(Event("schedule", {"at": 2, "text": "the bell rings"}, by="gm:alice"))
    enc.apply(Event("advance", {"to": 2}, by="gm:alice"))  # `next`: moving time
    enc.apply(Event("note", {"text": "unsigned"}))
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}, by="gm:alice"))
    path = folder / "signed.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    return path


def _proposals(enc: Encounter) -> None:
    """A player's declaration approved by the GM, one nobody signed approved, and a
    player's approved by an unsigned GM."""
    enc.apply(Event("add", {"name": "Cy", "resources": {"hp": 10}}, by="gm:alice"))
    enc.apply(Event("add", {"name": "Di", "resources": {"hp": 10}}, by="gm:alice"))
    for actor, by, gm in (("Ann", "player:bob", "gm:alice"), ("Cy", "", "gm:alice"), ("Di", "player:dan", "")):
        enc.apply(Event("propose", {"action": "declare", "actor": actor, "template": "hit", "mode": "passive", "resolution": Resolution(2)}, by=by))
        enc.apply(Event("approve", {"target": enc.events[-1].seq}, by=gm))


async def test_at_a_shared_table_each_changes_first_line_names_who_made_it(tmp_path: Path) -> None:
    live = Live.open(_signed_file(tmp_path))
    _proposals(live.encounter)

    async def check(pilot: Any, log: CombatLog) -> None:
        lines = log.loaded_lines()
        assert lines[:5] == [
            "Ann joins the fight · GM alice",
            "Bo joins the fight · GM alice",
            "by carol · GM carol",
            "Bo takes 12 hp (hp 10 -> -2) · GM alice",
            "Bo is down",
        ]
        assert "unsigned" in lines and "unsigned · GM" not in " ".join(lines)
        # Moving time is the GM's alone: what it brings about is not signed.
        assert lines[5:7] == ["scheduled for segment 2: the bell rings · GM alice", "the bell rings"]
        approved = [line for line in lines if "approved" in line]
        assert approved and approved[0].endswith(" · player bob, approved by GM alice"), lines
        # A proposal nobody signed: the GM's name alone; the GM unsigned: "GM".
        assert len(approved) == 2 and approved[1].endswith(" · player dan, approved by GM"), approved
        assert not any(line.endswith("· ") for line in lines)
        # The search reads the signature.
        log.set_filter(None, "player bob")
        assert log.loaded_lines() == ["proposal 11: Ann, hit (waiting for the GM) · player bob", approved[0]]
        log.set_filter(None, "GM CAROL")
        assert log.loaded_lines() == ["by carol · GM carol"]
        # Each change signed once, wherever its lines come from.
        log.set_filter(None, "")
        assert log._text(log.loaded[3]) == "Bo takes 12 hp (hp 10 -> -2) · GM alice"
        assert log._text(log.loaded[4]) == "Bo is down"
        # A line not loaded is looked up in the whole log; one from nowhere is not signed.
        log.set_filter(None, "GM CAROL")
        assert log._text(live.encounter.log[0]) == "Ann joins the fight · GM alice"
        assert log._text(live.encounter.log[4]) == "Bo is down"
        stray = LogEntry(0, "note", "from nowhere", seq=3)
        assert log._text(stray) == "from nowhere"

    await _run(live, 60, 20, check)


async def test_a_file_with_one_author_is_not_signed(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 5, by=("gm:alice",)))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert log.loaded_lines()[-2:] == ["line 3", "line 4"]
        # A second author arrives: from then on every change is signed.
        live.encounter.apply(Event("note", {"text": "hi"}, by="player:bob"))
        log.changed(Changed((live.encounter.events[-1],)))
        assert log.loaded_lines()[-2:] == ["line 4 · GM alice", "hi · player bob"]

    await _run(live, 60, 10, check)


def test_authors_are_read_once_per_event() -> None:
    assert Authors([Event("note", {}, 1, "bob"), Event("note", {}, 2, "alice")]).update() is True  # from the first
    events = [Event("note", {}, 1, "alice"), Event("note", {}, 2, ""), Event("note", {}, 3, "alice")]
    authors = Authors(events)
    assert authors.read == 0 and authors.names == set()
    assert authors.update() is False and authors.read == 3 and authors.names == {"alice"}
    events.append(Event("note", {}, 4, "bob"))
    assert authors.update() is True and authors.read == 4 and authors.names == {"alice", "bob"}
    events.append(Event("note", {}, 5, "carol"))
    assert authors.update() is True and authors.read == 5
    assert Authors([]).update() is False


async def test_two_logs_on_one_fight_share_who_signed_it(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 5, by=("gm:alice", "carol")))
    live.cache["log.authors"] = "not authors"

    async def check(pilot: Any, log: CombatLog) -> None:
        authors = live.cache["log.authors"]
        assert isinstance(authors, Authors) and authors.events is live.encounter.events and authors.read == len(live.encounter.events)
        log.reload()
        assert live.cache["log.authors"] is authors

    await _run(live, 40, 6, check)


def test_a_line_from_the_file_is_shown_as_text() -> None:
    enc = Encounter(Setup("t", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    entry = LogEntry(0, "note", "bell\x1b[31m rings")
    assert entry_text(entry, enc, Role.gm()) == "bell\ufffd[31m rings" or "\x1b" not in entry_text(entry, enc, Role.gm())


def test_a_log_not_yet_shown_holds_nothing() -> None:
    log = CombatLog(Live.__new__(Live), id="log")
    assert log.id == "log" and log.live is not None
    assert log.loaded == () and log.loaded_lines() == [] and log.rows == 0
    assert not log.older and log.first_loaded == 0 and log.wrapped == 0
    assert log.follow and log.only is None and log.search == ""


def _many_lines_a_change(folder: Path) -> Path:
    """Changes of several lines each, signed by two people, the hidden Ghost in some."""
    enc = Encounter(Setup("many", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    enc.apply(Event("add", {"name": "Ann", "names": ["Ann", "Bo"], "resources": {"hp": 10}}, by="gm:alice"))
    enc.apply(Event("add", {"name": "Ghost", "hidden": True, "resources": {"hp": 10}}, by="gm:alice"))
    enc.apply(Event("note", {"text": "hello"}, by="carol"))
    for first, by in (("Ghost", "gm:alice"), ("Ann", "carol")):
        also = [{"target": name, "resource": "hp"} for name in ("Ghost", "Ann", "Bo") if name != first]
        enc.apply(Event("damage", {"target": first, "amount": 3, "resource": "hp", "also": also}, by=by))
    path = folder / "many.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    return path


@pytest.mark.parametrize("viewer", [False, True], ids=["gm", "viewer"])
async def test_a_change_of_several_lines_is_signed_on_the_first_the_reader_sees(tmp_path: Path, viewer: bool) -> None:
    live = Live.open(_many_lines_a_change(tmp_path), viewer=viewer)

    async def check(pilot: Any, log: CombatLog) -> None:
        gm = [
            "Ann joins the fight · GM alice",
            "Bo joins the fight",  # the same change: the line before it names who
            "Ghost joins the fight · GM alice",
            "hello · GM carol",
            "Ghost takes 3 hp (hp 10 -> 7) · GM alice",
            "Ann takes 3 hp (hp 10 -> 7)",
            "Bo takes 3 hp (hp 10 -> 7)",
            "Ann takes 3 hp (hp 7 -> 4) · GM carol",
            "Ghost takes 3 hp (hp 7 -> 4)",
            "Bo takes 3 hp (hp 7 -> 4)",
        ]
        if not viewer:
            assert log.loaded_lines() == gm
            return
        # The viewer does not see Ghost's lines: the first line of a change it sees names who.
        assert log.loaded_lines() == [
            "Ann joins the fight · GM alice",
            "Bo joins the fight",
            "hello · GM carol",
            "Ann takes 3 hp (hp 10 -> 7) · GM alice",
            "Bo takes 3 hp (hp 10 -> 7)",
            "Ann takes 3 hp (hp 7 -> 4) · GM carol",
            "Bo takes 3 hp (hp 7 -> 4)",
        ]

    await _run(live, 60, 12, check)


async def test_a_filter_shows_its_newest_match_even_when_read_back(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 500))

    async def check(pilot: Any, log: CombatLog) -> None:
        log.scroll_lines(-150)
        assert not log.follow
        log.set_filter(None, "line 4")  # 111 matches: more rows than the view scrolled back
        assert log.follow and _notes(log) == list(range(494, 500))

    await _run(live, 40, 6, check)


async def test_nothing_new_reads_wraps_and_draws_nothing(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 300))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert isinstance(log, Counted)
        await pilot.pause()
        wrapped, redraws = log.wrapped, len(log.redraws)
        log.reload()
        log.changed(Changed(()))
        assert log.wrapped == wrapped and len(log.redraws) == redraws
        # The GM's view of a hidden combatant shown again: one new line, nothing read again.
        live.encounter.apply(Event("hide", {"target": "Ghost", "hidden": False}))
        log.changed(Changed((live.encounter.events[-1],)))
        assert log.wrapped == wrapped + 1
        # Read back, an entry arriving below redraws only its rows (none on screen).
        log.scroll_lines(-50)
        before = len(log.redraws)
        _append(live, log, ["late"])
        assert all(regions is not None for regions in log.redraws[before:])

    await _run(live, 40, 6, check)


async def test_a_viewer_reads_every_line_again_when_the_gm_withholds_figures(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", ["add Ann hp=10", "add Orc hp=10 side=enemy", "damage Orc 3"]), viewer=True)

    async def check(pilot: Any, log: CombatLog) -> None:
        assert screen(log)[2] == "[0]   Orc takes 3 hp (hp 10 -> 7)"
        live.encounter.apply(Event("setting", {"key": "viewer_resources", "value": "hidden"}))
        log.changed(Changed((live.encounter.events[-1],)))
        assert screen(log)[2:4] == ["[0]   Orc: figures withheld from viewers", "[0]   setting: viewer_resources is now hidden"]

    await _run(live, 60, 6, check)


async def test_a_file_read_again_is_read_from_its_start_with_its_authors(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 5))
    (tmp_path / "b").mkdir()
    other = _long(tmp_path / "b", 8, by=("gm:alice", "carol"))
    (tmp_path / "c").mkdir()
    third = _long(tmp_path / "c", 10, by=("carol", "gm:alice"), word="note")

    async def check(pilot: Any, log: CombatLog) -> None:
        assert log.loaded_lines()[-1] == "line 4"
        live.session.encounter = EncounterFile(other).load().encounter  # the file read again, longer
        log.changed(Changed((), whole=True))
        assert log.loaded_lines()[-8:] == [f"line {i} · GM {'carol' if i % 2 else 'alice'}" for i in range(8)]
        assert len(log.loaded) == 12
        # Read again with the same authors, longer again: read from its start all the same.
        live.session.encounter = EncounterFile(third).load().encounter
        log.changed(Changed((), whole=True))
        assert log.loaded_lines()[-10:] == [f"note {i} · GM {'alice' if i % 2 else 'carol'}" for i in range(10)]
        assert len(log.loaded) == 14

    await _run(live, 40, 6, check)


def _plain(folder: Path, texts: list[str]) -> Path:
    """A freeform fight holding only these notes."""
    enc = Encounter(Setup("plain", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    for text in texts:
        enc.apply(Event("note", {"text": text}))
    path = folder / "plain.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    return path


def _tall(i: int) -> str:
    """A note of seven rows at 32 cells: its number, then six words of 30 cells."""
    return f"n{i} " + " ".join(["x" * 30] * 6)


class OneByOne(Counted):
    """Loads one entry at a time, two screens of rows."""

    CHUNK = 1
    SCREENS = 2


@pytest.mark.parametrize("height", [6, 1])
async def test_a_few_screens_of_rows_are_loaded_and_no_more(tmp_path: Path, height: int) -> None:
    live = Live.open(_plain(tmp_path, [f"line {i}" for i in range(30)]))
    log = OneByOne(live)
    app = Logs(log, 40, height)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: log.size.height == height and log.rows > 0, "the log laid out", WAIT)
        # Two screens of one-row lines: 12 rows in a pane of six, 2 in a pane of one.
        assert len(log.loaded) == 2 * height and log.first_loaded == 30 - 2 * height
        assert log.loaded[-1].text == "line 29"


def _read_again(live: Live, log: CombatLog, path: Path) -> None:
    """The file read again once the pane has its size: the log loads from the newest
    entries for that size (while the pane is laid out, its size on the way changes what
    a first reading loads)."""
    live.session.encounter = EncounterFile(path).load().encounter
    log.changed(Changed((), whole=True))


class Kept(Counted):
    """A tail of two, chunks of four, one screen of rows kept."""

    TAIL = 2
    CHUNK = 4
    SCREENS = 1


async def test_the_dropped_tail_keeps_a_screen_of_rows_and_redraws_the_pane(tmp_path: Path) -> None:
    path = _plain(tmp_path, [f"line {i}" for i in range(30)])
    live = Live.open(path)
    log = Kept(live)
    app = Logs(log, 40, 6)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: log.size.height == 6 and log.rows > 0, "the log laid out", WAIT)
        _read_again(live, log, path)
        # Chunks of four until a screen of rows (6) is there: eight entries.
        assert len(log.loaded) == 8 and log.first_loaded == 22
        wrapped = log.wrapped
        # Past the tail and a chunk (6): the oldest dropped, a screen of rows stays; only
        # the new line is read.
        _append(live, log, ["line 30"])
        assert [e.text for e in log.loaded] == [f"line {i}" for i in range(25, 31)]
        assert log.wrapped == wrapped + 1 and log.first_loaded == 25
        await pilot.pause()
        # One more: one dropped; the view stays at the top, every row on it moved: the
        # whole pane redrawn.
        before = len(log.redraws)
        _append(live, log, ["line 31"])
        assert [e.text for e in log.loaded] == [f"line {i}" for i in range(26, 32)] and log.scroll_y == 0
        assert None in log.redraws[before:]
        await pilot.pause()
        # Six at once: the six before dropped, the pane redrawn whole.
        before = len(log.redraws)
        _append(live, log, [f"line {i}" for i in range(32, 38)])
        assert [e.text for e in log.loaded] == [f"line {i}" for i in range(32, 38)] and log.scroll_y == 0
        assert None in log.redraws[before:] and log.wrapped == wrapped + 8
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", WAIT)
        shown = ["".join(char for char, _ in row[:38]).rstrip() for row in screen_cells(pilot.app)[:6]]
        assert shown == [f"[0]   line {i}" for i in range(32, 38)]


class TallKept(Counted):
    """A tail of one, chunks of four, one screen of rows kept."""

    TAIL = 1
    CHUNK = 4
    SCREENS = 1


async def test_the_dropped_tail_keeps_some_entries_however_tall(tmp_path: Path) -> None:
    path = _plain(tmp_path, [_tall(i) for i in range(10)])
    live = Live.open(path)
    log = TallKept(live)
    app = Logs(log, 40, 6)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: log.size.height == 6 and log.rows > 0, "the log laid out", WAIT)
        _read_again(live, log, path)
        assert log.rows == 28 and [e.text.split()[0] for e in log.loaded] == ["n6", "n7", "n8", "n9"]
        wrapped = log.wrapped
        _append(live, log, [_tall(i) for i in (10, 11, 12)])
        # Seven entries, past the tail and a chunk (5): dropped down to half a chunk (2),
        # though one entry alone covers a screen.
        assert [e.text.split()[0] for e in log.loaded] == ["n11", "n12"] and log.first_loaded == 11
        assert log.wrapped == wrapped + 3 and log.rows == 14


class Roomy(Counted):
    """A tail of one, chunks of two, ten screens of rows kept."""

    TAIL = 1
    CHUNK = 2
    SCREENS = 10


async def test_a_line_below_redraws_only_its_rows(tmp_path: Path) -> None:
    path = _plain(tmp_path, ["line 0", "line 1", "line 2"])
    live = Live.open(path)
    log = Roomy(live)
    app = Logs(log, 40, 6)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: log.size.height == 6 and log.rows == 3, "the log laid out", WAIT)
        _read_again(live, log, path)
        await pilot.pause()
        before = len(log.redraws)
        _append(live, log, ["line 3", "line 4"])
        # Past the tail and a chunk, but all of it within the screens kept: nothing dropped,
        # and only the two new rows are drawn.
        assert len(log.loaded) == 5 and log.scroll_y == 0
        assert log.redraws[before:] == [(Region(0, 3, 40, 2),)]
        # And the screen shows them there, below the three before.
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", WAIT)
        shown = ["".join(char for char, _ in row[:38]).rstrip() for row in screen_cells(pilot.app)[:6]]
        assert shown == [f"[0]   line {i}" for i in range(5)] + [""]


async def test_a_filter_matching_nothing_clears_the_pane(tmp_path: Path) -> None:
    live = Live.open(_plain(tmp_path, ["line 0", "line 1", "line 2"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert isinstance(log, Counted)
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", WAIT)
        log.set_filter(None, "nothing like it")
        assert log.rows == 0 and log.virtual_size.height == 0
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", WAIT)
        shown = ["".join(char for char, _ in row[:38]).rstrip() for row in screen_cells(pilot.app)[:6]]
        assert shown == [""] * 6
        # A match arrives: one row, the first.
        _append(live, log, ["nothing like it at all"])
        assert log.rows == 1 and log.virtual_size.height == 1 and screen(log)[:2] == ["[0]   nothing like it at all", ""]

    await _run(live, 40, 6, check)


async def test_a_log_growing_past_the_pane_is_at_its_end_at_once(tmp_path: Path) -> None:
    live = Live.open(_plain(tmp_path, ["line 0", "line 1", "line 2", "line 3"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        await pilot.pause()
        _append(live, log, ["line 4", "line 5", "line 6", "line 7"])
        assert log.scroll_y == 2 and _notes(log) == list(range(2, 8))
        await pilot.pause()
        _append(live, log, ["line 8"])
        assert log.scroll_y == 3 and _notes(log) == list(range(3, 9))

    await _run(live, 40, 6, check)


async def test_scrolling_back_a_screen_loads_nothing_and_moves_the_scrollbar(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 1000))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert isinstance(log, Counted)
        before = len(log.redraws)
        log.scroll_lines(-188)
        # At row 6, a screen from the top: nothing older loaded yet.
        assert log.scroll_y == 6 and len(log.loaded) == 200 and _notes(log) == list(range(806, 812))
        assert log.vertical_scrollbar.position == 6
        assert (log.size.region,) in log.redraws[before:]
        log.scroll_lines(-1)
        assert len(log.loaded) == 400 and log.virtual_size.height == log.rows == 400
        assert log.scroll_y == 205 and log.vertical_scrollbar.position == 205

    await _run(live, 40, 6, check)


async def test_the_reader_scrolls_a_log_as_it_grows_past_the_pane(tmp_path: Path) -> None:
    live = Live.open(_plain(tmp_path, ["line 0", "line 1", "line 2", "line 3"]))

    async def check(pilot: Any, log: CombatLog) -> None:
        await pilot.pause()
        # A key read before the layout has shown the scrollbar the new lines call for.
        _append(live, log, ["line 4", "line 5", "line 6", "line 7"])
        log.scroll_lines(-1)
        assert log.scroll_y == 1 and _notes(log) == list(range(1, 7)) and not log.follow
        _append(live, log, ["line 8"])
        assert log.scroll_y == 1 and _notes(log) == list(range(1, 7))

    await _run(live, 40, 6, check)


async def test_a_pane_of_one_row_loads_older_lines_only_at_its_top_row(tmp_path: Path) -> None:
    live = Live.open(_long(tmp_path, 1000))

    async def check(pilot: Any, log: CombatLog) -> None:
        assert len(log.loaded) == 200 and log.scroll_y == 199
        log.scroll_lines(-198)
        # Row 1: a screen (one row) from the top: nothing older loaded yet.
        assert log.scroll_y == 1 and len(log.loaded) == 200 and _notes(log) == [801]
        log.scroll_lines(-1)
        assert len(log.loaded) == 400 and log.scroll_y == 200 and _notes(log) == [800]

    await _run(live, 40, 1, check)
