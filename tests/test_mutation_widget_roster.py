"""Direct tests of tracker.ui.widgets.roster (the roster pane and the detail panel),
worked from its docstring and docs/decisions/0021-roster-rows.md: a row reads
`▶ Name  state  hp ████░ 36/43  cond→40 …`, items added whole in order of importance
(name, state, the resource that puts the combatant down, with its bar while the
conditions still fit beside it, the conditions, the other resources) while they fit,
`+N` for those left out, never a figure cut; bars and figures coloured by how full they
are (above a half, above a quarter, at or under a quarter); a viewer sees enemies'
resources as the table's setting says (a label, or nothing); glance mode gives every
combatant one row, or two when any combatant's items do not fit in one (the down
resource with its bar, the conditions, the resources that lost something, then the
rest). The detail panel shows everything about the selected combatant, wrapped between
items.

Every style of the roster is given its own colour here, so a cell's class is read back
from its colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tracker.engine import Event
from tracker.play.live import Changed, Live
from tracker.ui.widgets.roster import NAME, DetailView, RosterView, bar, figure, level, primary, visible_combatants, _num
from tests.test_ui_app import make_file
from tests.ui import PaneApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
COLOURS = {
    "#ffffff": "base",
    "#a00001": "name",
    "#a00002": "down",
    "#a00003": "acting",
    "#a00004": "airborne",
    "#a00005": "surprised",
    "#a00006": "idle",
    "#a00008": "high",
    "#a00009": "mid",
    "#a0000a": "low",
    "#a0000b": "dim",
    "#a0000c": "condition",
}
DETAIL = {"#b00001": "high", "#b00002": "mid", "#b00003": "low", "#b00004": "label"}


class Panes(PaneApp):
    """The pane alone, each of its styles in a colour of its own."""

    CSS = """
    RosterView { background: #000000; color: #ffffff; scrollbar-size: 0 0; }
    RosterView > .roster--selected { text-style: underline; }
    RosterView > .roster--name { color: #a00001; }
    RosterView > .roster--down { color: #a00002; }
    RosterView > .roster--acting { color: #a00003; }
    RosterView > .roster--airborne { color: #a00004; }
    RosterView > .roster--surprised { color: #a00005; }
    RosterView > .roster--idle { color: #a00006; }
    RosterView > .roster--high { color: #a00008; }
    RosterView > .roster--mid { color: #a00009; }
    RosterView > .roster--low { color: #a0000a; }
    RosterView > .roster--dim { color: #a0000b; }
    RosterView > .roster--condition { color: #a0000c; }
    DetailView { padding: 0; }
    DetailView > .detail--high { color: #b00001; }
    DetailView > .detail--mid { color: #b00002; }
    DetailView > .detail--low { color: #b00003; }
    DetailView > .detail--label { color: #b00004; }
    """

    def __init__(self, pane: Any, width: int, height: int) -> None:
        super().__init__(pane, width, height)
        self.clicked: list[int] = []

    def on_roster_view_clicked(self, message: RosterView.Clicked) -> None:
        self.clicked.append(message.index)


def kind(style: Style | None) -> str:
    """The class a run was drawn in, by its colour, `u` when underlined (selected)."""
    assert style is not None and style.color is not None and style.color.triplet is not None
    return COLOURS[style.color.triplet.hex] + ("u" if style.underline else "")


def chars(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)


def runs(strip: Strip) -> list[tuple[str, str]]:
    """The line as (text, kind) runs, neighbours of one kind joined."""
    out: list[tuple[str, str]] = []
    for segment in strip:
        if not segment.text:
            continue
        k = kind(segment.style)
        if out and out[-1][1] == k:
            out[-1] = (out[-1][0] + segment.text, k)
        else:
            out.append((segment.text, k))
    return out


# Ann 36/43 (high), with a condition and a whole second resource; Bo acting, a resource
# lost (dex 2/4, a half: mid); Cy down (0/8: low); Dee 4/10 (mid).
FIGHT = [
    "add Ann hp=43 ep=74 side=PC",
    "add Bo hp=10 str=3 dex=4",
    "add Cy hp=8",
    "add Dee hp=10",
    "damage Ann 7",
    "condition Ann prone 40",
    "set Bo dex 2",
    "declare Bo attack pt=3",
    "damage Cy 8",
    "damage Dee 6",
]


def _live(folder: Path, lines: list[str], setting: str = "") -> Live:
    folder.mkdir(parents=True, exist_ok=True)
    if setting:
        lines = [*lines, f"setting viewer_resources {setting}"]
    return Live.open(make_file(folder, "freeform", lines))


async def _roster(live: Live, width: int, height: int, check: Any, glance: bool = False) -> Panes:
    pane = RosterView(live)
    if glance:
        pane.glance = True
    app = Panes(pane, width, height)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pane.size.width == width and pane.scrollable_content_region.width == width, "the roster laid out", WAIT)
        pane.reload()
        await check(pilot, pane, app)
    return app


# First, the rows drawn from the test's own code: every pane mounts with no combatant
# (nothing but the empty roster's hint for the screen to draw), and its fight is played
# into it afterwards, so the first lines drawn with combatants are drawn here, by the
# pane's `reload` and by `render_line` called from the test. A row or glance line that
# raises fails this test at once; the same raised inside the screen's own drawing of a
# mounted fight would stop the app with its full traceback of the module's locals.


class Several(Panes):
    """Several panes in one bare app, one above the other, each at its own size."""

    def __init__(self, panes: list[tuple[Any, int, int]]) -> None:
        first, width, height = panes[0]
        super().__init__(first, width, height)
        self.others = panes[1:]
        for pane, width, height in self.others:
            pane.styles.width, pane.styles.height = width, height

    def compose(self) -> Any:
        yield self.pane
        for pane, _, _ in self.others:
            yield pane


async def test_rows_drawn_first_from_the_tests_own_code(tmp_path: Path) -> None:
    bar_beside = ["add Ann hp=10 ep=5", "damage Ann 6", "condition Ann prone 9", "condition Ann dazed 7"]
    many = ["add Ann hp=10 a=1 b=2 c=3 d=4 e=5 f=6", "damage Ann 1"]
    cases = [  # (folder, the fight's lines, setting, a viewer, width, height)
        ("plain", FIGHT, "", False, 40, 8),
        ("narrow", FIGHT, "", False, 25, 4),
        ("wide", FIGHT, "", False, 60, 4),
        ("label", [*FIGHT, "add Eve hp=5 hidden=true"], "label", True, 40, 4),
        ("beside", bar_beside, "", False, 42, 2),
        ("many", many, "", False, 30, 2),
    ]
    lives = {folder: _live(tmp_path / folder, [], setting) for folder, _, setting, *_ in cases}
    panes = {folder: RosterView(lives[folder]) for folder in lives}
    app = Several([(panes[folder], width, height) for folder, *_, width, height in cases])
    async with app.run_test(size=(80, 24)) as pilot:
        for folder, *_, width, height in cases:
            pane = panes[folder]
            await wait_for(pilot, lambda: pane.scrollable_content_region.size == (width, height), f"the {folder} roster laid out", WAIT)
            assert pane.combatants == [] and chars(pane.render_line(0)).startswith("no combatants yet")
        for folder, lines, _, viewer, *_ in cases:
            for line in lines:
                lives[folder].session.execute(line)
            lives[folder].viewer = viewer
        lives["many"].encounter.combatants["Ann"].resources["mood"] = "calm"

        def drawn(folder: str, rows: int) -> list[str]:
            return [chars(panes[folder].render_line(y)) for y in range(rows)]

        plain = panes["plain"]
        plain.reload()
        assert drawn("plain", 5) == [
            "▶ Ann idle hp ████░ 36/43 prone→40 +1   ",
            "  Bo  acting hp █████ 10/10 str 3/3 +1  ",
            "  Cy  down hp ░░░░░ 0/8                 ",
            "  Dee idle hp ██░░░ 4/10                ",
            " " * 40,
        ]
        plain.set_glance(True)
        assert plain.virtual_size.height == 8
        assert drawn("plain", 8) == [
            "▶ Ann idle hp ████░ 36/43 prone→40".ljust(40),
            "      ep 74/74".ljust(40),
            "  Bo  acting hp █████ 10/10 dex 2/4".ljust(40),
            "      str 3/3".ljust(40),
            "  Cy  down hp ░░░░░ 0/8".ljust(40),
            " " * 40,
            "  Dee idle hp ██░░░ 4/10".ljust(40),
            " " * 40,
        ]
        panes["narrow"].reload()
        assert drawn("narrow", 4) == ["▶ Ann idle hp 36/43 +2   ", "  Bo  acting hp 10/10 +2 ", "  Cy  down hp ░░░░░ 0/8  ", "  Dee idle hp ██░░░ 4/10 "]
        panes["wide"].set_glance(True)  # every combatant's items fit one row
        assert panes["wide"].virtual_size.height == 4
        assert drawn("wide", 2) == ["▶ Ann idle hp ████░ 36/43 prone→40 ep 74/74".ljust(60), "  Bo  acting hp █████ 10/10 dex 2/4 str 3/3".ljust(60)]
        panes["label"].reload()
        assert drawn("label", 4) == [
            "▶ Ann idle hp ████░ 36/43 prone→40 +1   ",
            "  Bo  acting Healthy".ljust(40),
            "  Cy  down Down".ljust(40),
            "  Dee idle Bloodied".ljust(40),
        ]
        panes["beside"].reload()
        assert drawn("beside", 1) == ["▶ Ann idle hp 4/10 prone→9 dazed→7 ep 5/5".ljust(42)]
        panes["many"].set_glance(True)
        assert drawn("many", 2) == ["▶ Ann idle hp ████░ 9/10 a 1/1".ljust(30), "      b 2/2 c 3/3 d 4/4 +3".ljust(30)]


async def test_rows_that_fill_the_width_or_hold_odd_resources_drawn_from_the_tests_own_code(tmp_path: Path) -> None:
    # Ann's and Bo's full rows are 43 cells: 2 + the name column (3) + 38 of items.
    odd = ["add Ann hp=10", "set Ann luck 3", "add Bo hp=5 ep=5", "add Zed hp=1"]
    cases = [("exact", FIGHT, 43, 4), ("glance", FIGHT, 43, 4), ("odd", odd, 40, 3), ("oddglance", odd, 40, 6)]
    lives = {folder: _live(tmp_path / folder, []) for folder, *_ in cases}
    panes = {folder: RosterView(lives[folder]) for folder in lives}
    app = Several([(panes[folder], width, height) for folder, _, width, height in cases])
    async with app.run_test(size=(80, 24)) as pilot:
        for folder, _, width, height in cases:
            pane = panes[folder]
            await wait_for(pilot, lambda: pane.scrollable_content_region.size == (width, height), f"the {folder} roster laid out", WAIT)
        for folder, lines, *_ in cases:
            for line in lines:
                lives[folder].session.execute(line)
        for folder in ("odd", "oddglance"):
            # Not numbers (the engine makes none such, a hand-edited save might): a
            # figure as it is, never a bar, never left out.
            bo, zed = lives[folder].encounter.combatants["Bo"], lives[folder].encounter.combatants["Zed"]
            bo.maxima["ep"] = "full"
            zed.resources = {"mood": "calm"}
            zed.maxima = {}

        def drawn(folder: str, rows: int) -> list[str]:
            return [chars(panes[folder].render_line(y)) for y in range(rows)]

        panes["exact"].reload()
        assert drawn("exact", 2) == ["▶ Ann idle hp ████░ 36/43 prone→40 ep 74/74", "  Bo  acting hp █████ 10/10 str 3/3 dex 2/4"]
        panes["glance"].set_glance(True)  # every row fits one line, to the last cell
        assert panes["glance"].virtual_size.height == 4
        assert drawn("glance", 2) == ["▶ Ann idle hp ████░ 36/43 prone→40 ep 74/74", "  Bo  acting hp █████ 10/10 dex 2/4 str 3/3"]
        # A resource set without a maximum is as full as it is: luck 3/3.
        panes["odd"].reload()
        assert drawn("odd", 3) == ["▶ Ann idle hp █████ 10/10 luck 3/3".ljust(40), "  Bo  idle hp █████ 5/5 ep 5".ljust(40), "  Zed idle mood calm".ljust(40)]
        assert runs(panes["odd"].render_line(0))[-2] == (" luck 3/3", "highu")
        panes["oddglance"].set_glance(True)
        assert panes["oddglance"].virtual_size.height == 3
        assert drawn("oddglance", 3) == ["▶ Ann idle hp █████ 10/10 luck 3/3".ljust(40), "  Bo  idle hp █████ 5/5 ep 5".ljust(40), "  Zed idle mood calm".ljust(40)]


async def test_the_detail_drawn_first_from_the_tests_own_code(tmp_path: Path) -> None:
    fight = _live(tmp_path / "fight", [*FIGHT, "condition Bo dazed 12", "hide Dee"])
    airborne = _live(tmp_path / "air", ["add Ann hp=5 side=PC", "set Ann luck 3", "add Bo hp=5", "surprise Bo 6"])
    airborne.encounter.combatants["Ann"].airborne_until = 4
    airborne.encounter.combatants["Ann"].surprised_until = 9
    label = _live(tmp_path / "label", FIGHT, "label")
    hidden = _live(tmp_path / "hidden", FIGHT, "hidden")
    label.viewer = hidden.viewer = True
    # A panel 20 wide: hp and mana (two figures) and a, b and cc (three) each fill a
    # line to its last cell with the gaps between them; power and xp (21) do not.
    cat = _live(tmp_path / "cat", ["add Cat hp=10 mana=10 a=1 b=1 cc=1 power=10 xp=10"])
    panes = [
        (DetailView(fight, id="detail"), 40, 4), (DetailView(fight), 24, 5), (DetailView(airborne), 40, 3), (DetailView(label), 40, 3),
        (DetailView(hidden), 60, 3), (DetailView(cat), 20, 5),
    ]
    app = Several(panes)
    async with app.run_test(size=(80, 24)) as pilot:
        for pane, width, _ in panes:
            await wait_for(pilot, lambda: pane.content_region.width == width, "the panel laid out", WAIT)
        first, narrow, air, labelled, withheld, packed = (pane for pane, *_ in panes)
        assert app.query_one("#detail") is first
        assert first.content == ""  # nothing until a combatant is shown
        for pane, name, text in [
            (first, "Ann", "Ann (PC)  idle\nhp 36/43  ep 74/74  prone until 40"),
            (first, "Cy", "Cy  down\nhp 0/8"),
            (first, "Dee", "Dee  idle  hidden from viewers\nhp 4/10"),
            (narrow, "Bo", "Bo  acting\nhp 10/10  str 3/3\ndex 2/4  dazed until 12\nattack 0→3"),
            (air, "Ann", "Ann (PC)  airborne until 4\nhp 5/5  luck 3/3"),
            (air, "Bo", "Bo  surprised until 6\nhp 5/5"),
            (labelled, "Dee", "Dee  idle\nBloodied"),
            (withheld, "Bo", "Bo  acting\nresources hidden from viewers  attack 0→3"),
            (packed, "Cat", "Cat  idle\nhp 10/10  mana 10/10\na 1/1  b 1/1  cc 1/1\npower 10/10\nxp 10/10"),
        ]:
            pane.show(pane.live.encounter.combatants[name])
            assert _text(pane).plain == text
            if "luck" in text:
                assert _styles(_text(pane), "luck 3/3") == "high"
        withheld.show(None)
        assert _text(withheld).plain == "No combatants yet."
        first.show(None)
        assert _text(first).plain == "Add combatants: e (roster editor), or :add NAME key=value"


async def test_glance_measures_the_room_beside_the_scrollbar(tmp_path: Path) -> None:
    pane = RosterView(_live(tmp_path, FIGHT))
    pane.glance = True
    pane.styles.scrollbar_size_vertical = 1
    app = Panes(pane, 43, 2)
    async with app.run_test(size=(80, 24)) as pilot:
        # Two rows a combatant, more than the pane's two: the scrollbar takes a column,
        # and Ann's 43 cells no longer fit the 42 left.
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 42, "the scrollbar shown", WAIT)
        pane.reload()
        assert pane.virtual_size.height == 8
        assert [chars(pane.render_line(y)) for y in range(2)] == ["▶ Ann idle hp ████░ 36/43 prone→40".ljust(42), "      ep 74/74".ljust(42)]


async def test_glance_counts_its_rows_again_as_the_scrollbar_comes_and_goes(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann hp=43 ep=74", "damage Ann 7", "condition Ann prone 40"])
    pane = RosterView(live)
    pane.glance = True
    pane.styles.scrollbar_size_vertical = 1
    app = Panes(pane, 43, 3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 43, "the roster laid out", WAIT)
        pane.reload()
        assert pane.virtual_size.height == 1  # Ann's 43 cells fit the 43
        for line in ["add Bo hp=10", "add Cy hp=8", "add Dee hp=10"]:
            live.session.execute(line)
        pane.changed(Changed((), whole=True))
        # Four rows in three: the scrollbar takes a column, Ann's items no longer fit
        # one line of the 42 left, so every combatant has two.
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 42 and pane.virtual_size.height == 8, "two rows each", WAIT)
        assert [chars(pane.render_line(y)) for y in range(3)] == ["▶ Ann idle hp ████░ 36/43 prone→40".ljust(42), "      ep 74/74".ljust(42), "  Bo  idle hp █████ 10/10".ljust(42)]
        for name in ("Bo", "Cy", "Dee"):
            live.session.execute(f"remove {name}")
        pane.changed(Changed((), whole=True))
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 43 and pane.virtual_size.height == 1, "one row again", WAIT)
        assert chars(pane.render_line(0)) == "▶ Ann idle hp ████░ 36/43 prone→40 ep 74/74"


# The pure parts, from their docstrings.


def test_a_bar_is_the_filled_share_of_its_width_clamped() -> None:
    assert bar(36, 43) == "████░"  # 0.84 of 5: 4.19, 4 cells
    assert bar(4, 10) == "██░░░"
    assert bar(10, 10) == "█████"
    assert bar(0, 8) == "░░░░░"
    assert bar(15, 10) == "█████"  # over the maximum: full
    assert bar(-3, 10) == "░░░░░"  # under nothing: empty
    assert bar(3, 4, 8) == "██████░░"
    assert bar(1, 10, 10) == "█░░░░░░░░░"
    assert bar(5, 0) == "░░░░░"  # no maximum: empty, not a division by zero
    assert bar(5, -2, 3) == "░░░"
    assert bar(1e-9, 1e-9) == "█████"


def test_a_level_is_high_above_a_half_mid_above_a_quarter_low_at_a_quarter_or_under() -> None:
    assert level(6, 10) == "high"
    assert level(5, 10) == "mid"  # a half is not above a half
    assert level(3, 10) == "mid"
    assert level(2.5, 10) == "low"  # a quarter is not above a quarter
    assert level(0, 10) == "low"
    assert level(-4, 10) == "low"
    assert level(51, 100) == "high"
    assert level(26, 100) == "mid"
    assert level(0.5, 1) == "mid" and level(0.2, 1) == "low" and level(0.3, 0.5) == "high"  # maxima of one or under
    # No number, or no maximum to measure by: full.
    assert level("calm", 10) == "high"
    assert level(5, "x") == "high"
    assert level(5, 0) == "high"
    assert level(0, -1) == "high"
    assert level(None, None) == "high"


def test_a_figure_is_key_value_over_maximum_when_both_are_numbers() -> None:
    assert figure("hp", 36, 43) == "hp 36/43"
    assert figure("hp", 2.5, 10.0) == "hp 2.5/10"
    assert figure("mood", "calm", "calm") == "mood calm"
    assert figure("hp", 3, "x") == "hp 3"
    assert figure("hp", "x", 3) == "hp x"
    assert figure("a\x1bb", "c\x07", None) == "a␛b c␇"
    assert _num(7) == "7" and _num(7.0) == "7" and _num(0.25) == "0.25" and _num("x\x1b") == "x␛"


def test_the_primary_resource_is_the_first_down_key_present_else_the_first(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann ep=74 hp=43", "add Bo mood=1"])
    ann, bo = live.encounter.combatants["Ann"], live.encounter.combatants["Bo"]
    assert ann.down_keys == ("hp",)
    assert primary(ann) == "hp"  # the down key, though ep comes first
    ann.down_keys = ("stun", "ep", "hp")
    assert primary(ann) == "ep"  # the first present
    bo.down_keys = ("hp",)
    bo.resources = {"mood": 1, "str": 2}
    assert primary(bo) == "mood"  # no down key present: the first resource
    bo.resources = {}
    assert primary(bo) is None


def test_visible_combatants_leave_out_hidden_ones_for_a_viewer(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann hp=1", "add Eve hp=1 hidden=true", "add Bo hp=1"])
    assert [c.name for c in visible_combatants(live)] == ["Ann", "Eve", "Bo"]
    live.viewer = True
    assert [c.name for c in visible_combatants(live)] == ["Ann", "Bo"]


# The roster's rows.


async def test_each_row_adds_items_whole_in_order_and_counts_the_rest(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert [c.name for c in pane.combatants] == ["Ann", "Bo", "Cy", "Dee"]
        assert pane.current is not None and pane.current.name == "Ann"
        assert pane.virtual_size.height == 4
        rows = [chars(pane.render_line(y)) for y in range(6)]
        assert rows == [
            "▶ Ann idle hp ████░ 36/43 prone→40 +1   ",  # ep 74/74 would not fit: +1
            "  Bo  acting hp █████ 10/10 str 3/3 +1  ",  # dex 2/4 left out
            "  Cy  down hp ░░░░░ 0/8                 ",
            "  Dee idle hp ██░░░ 4/10                ",
            " " * 40,
            " " * 40,
        ]
        assert runs(pane.render_line(0)) == [
            ("▶ ", "baseu"), ("Ann", "nameu"), (" idle", "idleu"), (" hp ", "baseu"), ("████░", "highu"),
            (" 36/43", "baseu"), (" prone→40", "conditionu"), (" +1", "dimu"), ("   ", "baseu"),
        ]
        assert runs(pane.render_line(1)) == [
            ("  ", "base"), ("Bo ", "name"), (" acting", "acting"), (" hp ", "base"), ("█████", "high"),
            (" 10/10", "base"), (" str 3/3", "high"), (" +1", "dim"), ("  ", "base"),
        ]
        assert runs(pane.render_line(2))[2:5] == [(" down", "down"), (" hp ", "base"), ("░░░░░", "low")]
        assert runs(pane.render_line(3))[2:5] == [(" idle", "idle"), (" hp ", "base"), ("██░░░", "mid")]
        assert runs(pane.render_line(4)) == [(" " * 40, "base")]
        # Glance mode at once, from the test's own code (a broken glance fails here, fast).
        pane.set_glance(True)
        assert pane.virtual_size.height == 8
        assert [chars(pane.render_line(y)) for y in (0, 1)] == ["▶ Ann idle hp ████░ 36/43 prone→40".ljust(40), "      ep 74/74".ljust(40)]

    await _roster(_live(tmp_path, FIGHT), 40, 6, check)


async def test_a_wide_row_shows_everything_and_a_narrow_one_drops_the_bar_before_the_conditions(tmp_path: Path) -> None:
    async def wide(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert chars(pane.render_line(0)) == "▶ Ann idle hp ████░ 36/43 prone→40 ep 74/74".ljust(60)
        assert chars(pane.render_line(1)) == "  Bo  acting hp █████ 10/10 str 3/3 dex 2/4".ljust(60)
        assert runs(pane.render_line(1))[-2] == (" dex 2/4", "mid")

    await _roster(_live(tmp_path / "wide", FIGHT), 60, 4, wide)

    async def narrow(pilot: Any, pane: RosterView, app: Panes) -> None:
        # 20 cells past the name: the bar (15) and the condition (9) do not both fit,
        # so the figure alone, then the condition, then +N.
        assert chars(pane.render_line(0)) == "▶ Ann idle hp 36/43 +2   "
        assert runs(pane.render_line(0))[2:5] == [(" idle", "idleu"), (" hp 36/43", "highu"), (" +2", "dimu")]
        assert chars(pane.render_line(3)) == "  Dee idle hp ██░░░ 4/10 "  # no condition: the bar fits
        assert chars(pane.render_line(1)) == "  Bo  acting hp 10/10 +2 "

    await _roster(_live(tmp_path / "narrow", FIGHT), 25, 4, narrow)


async def test_the_bar_stays_when_every_condition_fits_beside_it(tmp_path: Path) -> None:
    lines = ["add Ann hp=10 ep=5", "damage Ann 6", "condition Ann prone 9", "condition Ann dazed 7"]

    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        # 37 cells past the name. With the bar (14) the second condition would give way
        # to `+2`; the figure alone (8) leaves room for both conditions and ep: all of it.
        assert chars(pane.render_line(0)) == "▶ Ann idle hp 4/10 prone→9 dazed→7 ep 5/5".ljust(42)
        pane.styles.width = 44
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 44, "wider", WAIT)
        # Two more cells: bar, both conditions and `+1` for ep fit.
        assert chars(pane.render_line(0)) == "▶ Ann idle hp ██░░░ 4/10 prone→9 dazed→7 +1".ljust(44)

    await _roster(_live(tmp_path, lines), 42, 2, check)


async def test_a_viewer_sees_enemies_as_a_label_or_not_at_all(tmp_path: Path) -> None:
    fight = [*FIGHT, "add Eve hp=5 hidden=true"]

    async def gm(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert [c.name for c in pane.combatants] == ["Ann", "Bo", "Cy", "Dee", "Eve"]
        assert chars(pane.render_line(4)) == "  Eve idle hidden hp █████ 5/5".ljust(40)
        assert runs(pane.render_line(4))[2:4] == [(" idle", "idle"), (" hidden", "dim")]

    await _roster(_live(tmp_path / "gm", fight, "label"), 40, 6, gm)

    async def labelled(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert [c.name for c in pane.combatants] == ["Ann", "Bo", "Cy", "Dee"]
        rows = [chars(pane.render_line(y)) for y in range(4)]
        assert rows == [
            "▶ Ann idle hp ████░ 36/43 prone→40 +1   ",  # a PC: exact
            "  Bo  acting Healthy".ljust(40),
            "  Cy  down Down".ljust(40),
            "  Dee idle Bloodied".ljust(40),
        ]
        assert runs(pane.render_line(1))[3] == (" Healthy", "high")
        assert runs(pane.render_line(2))[3] == (" Down", "low")
        assert runs(pane.render_line(3))[3] == (" Bloodied", "mid")

    live = _live(tmp_path / "label", fight, "label")
    live.viewer = True
    await _roster(live, 40, 6, labelled)

    async def hidden(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert [chars(pane.render_line(y)).rstrip() for y in range(4)] == [
            "▶ Ann idle hp ████░ 36/43 prone→40 +1",
            "  Bo  acting",
            "  Cy  down",
            "  Dee idle",
        ]

    live = _live(tmp_path / "hidden", fight, "hidden")
    live.viewer = True
    await _roster(live, 40, 6, hidden)


def test_a_new_roster_is_plain_until_glance_is_set(tmp_path: Path) -> None:
    assert RosterView(_live(tmp_path, [])).glance is False


async def test_an_empty_roster_says_how_to_add_one_and_a_viewer_that_there_is_none(tmp_path: Path) -> None:
    async def gm(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert pane.current is None and pane.virtual_size.height == 1
        assert runs(pane.render_line(0)) == [("no combatants yet (e: add)", "dim"), ("    ", "base")]
        assert runs(pane.render_line(1)) == [(" " * 30, "base")]
        pane.select(3)  # nothing to select
        assert pane.selected == 0 and pane.current is None

    await _roster(_live(tmp_path / "gm", []), 30, 3, gm)

    async def viewer(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert chars(pane.render_line(0)) == "no combatants yet".ljust(30)

    live = _live(tmp_path / "viewer", [])
    live.viewer = True
    await _roster(live, 30, 3, viewer)


async def test_the_name_column_is_as_wide_as_the_longest_name_up_to_its_cap(tmp_path: Path) -> None:
    lines = ['add "Bartholomew the Great" hp=5', "add Al hp=5", "add 山田 hp=5"]

    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert NAME == 14
        assert chars(pane.render_line(0)) == "▶ Bartholomew t… idle hp █████ 5/5".ljust(40)
        assert chars(pane.render_line(1)) == "  Al             idle hp █████ 5/5".ljust(40)
        assert chars(pane.render_line(2)).startswith("  山田           idle")  # 4 cells, 10 to pad

    await _roster(_live(tmp_path, lines), 40, 4, check)

    async def short(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert chars(pane.render_line(0)) == "▶ Al idle hp █████ 5/5".ljust(30)

    await _roster(_live(tmp_path / "short", ["add Al hp=5"]), 30, 2, short)


async def test_selection_moves_clamped_by_index_and_name_and_scrolls_into_view(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert pane.size.height == 2
        pane.select(1)
        assert pane.current is not None and pane.current.name == "Bo"
        assert chars(pane.render_line(1)).startswith("▶ Bo ") and chars(pane.render_line(0)).startswith("  Ann ")
        assert pane.scroll_y == 0
        pane.select(2)  # one below the view: scrolled by one, so it is the last row shown
        await wait_for(pilot, lambda: pane.scroll_y == 1, "scrolled down by one", WAIT)
        seen: list[float] = []
        pane.select(3)  # at once, not animated through the rows between
        await wait_for(pilot, lambda: seen.append(pane.scroll_y) is None and pane.scroll_y == 2, "scrolled down", WAIT)
        assert set(seen) <= {1, 2}, seen
        assert chars(pane.render_line(0)).startswith("  Cy ") and chars(pane.render_line(1)).startswith("▶ Dee ")
        pane.select(2)  # in view: no scroll
        assert pane.scroll_y == 2
        await pilot.click(RosterView, offset=(5, 0))  # the first row shown is Cy's
        await wait_for(pilot, lambda: app.clicked == [2], "a click on Cy", WAIT)
        pane.select(-4)  # clamped to the first, scrolled up to it
        await wait_for(pilot, lambda: pane.scroll_y == 0, "scrolled up", WAIT)
        assert pane.selected == 0
        pane.select(99)
        assert pane.selected == 3
        pane.select_name("Bo")
        assert pane.selected == 1
        pane.select_name("Nobody")
        assert pane.selected == 1
        await pilot.click(RosterView, offset=(5, 1))
        await wait_for(pilot, lambda: app.clicked == [2, 2], "a click on the second row shown", WAIT)

    await _roster(_live(tmp_path, FIGHT), 40, 2, check)


async def test_a_click_below_the_last_row_names_no_one(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        await pilot.click(RosterView, offset=(3, 1))
        await wait_for(pilot, lambda: app.clicked == [1], "a click on Bo", WAIT)
        await pilot.click(RosterView, offset=(3, 2))  # under the last: nothing
        await pilot.click(RosterView, offset=(3, 0))
        await wait_for(pilot, lambda: len(app.clicked) == 2, "a click on Ann", WAIT)
        assert app.clicked == [1, 0]

    await _roster(_live(tmp_path, ["add Ann hp=5", "add Bo hp=5"]), 30, 4, check)


async def test_a_reload_keeps_the_selected_combatant_by_name(tmp_path: Path) -> None:
    live = _live(tmp_path, FIGHT)

    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        pane.select(1)
        live.session.execute("remove Ann")
        pane.changed(Changed((Event("note", {}, seq=1),)))  # a note alone: the roster is as it was
        assert [c.name for c in pane.combatants] == ["Ann", "Bo", "Cy", "Dee"]
        pane.changed(Changed((), whole=True))
        assert [c.name for c in pane.combatants] == ["Bo", "Cy", "Dee"]
        assert pane.selected == 0 and pane.current is not None and pane.current.name == "Bo"
        assert pane.virtual_size.height == 3
        assert chars(pane.render_line(0)).startswith("▶ Bo ")
        pane.select(2)
        live.session.execute("remove Dee")  # the selected one gone: the last left
        pane.reload()
        assert pane.selected == 1 and pane.current is not None and pane.current.name == "Cy"

    await _roster(live, 40, 4, check)


async def test_glance_gives_every_combatant_two_rows_when_any_needs_them(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert pane.virtual_size.height == 8
        rows = [chars(pane.render_line(y)) for y in range(8)]
        assert rows == [
            "▶ Ann idle hp ████░ 36/43 prone→40".ljust(40),
            "      ep 74/74".ljust(40),
            "  Bo  acting hp █████ 10/10 dex 2/4".ljust(40),  # the lost resource first
            "      str 3/3".ljust(40),
            "  Cy  down hp ░░░░░ 0/8".ljust(40),
            " " * 40,
            "  Dee idle hp ██░░░ 4/10".ljust(40),
            " " * 40,
        ]
        assert runs(pane.render_line(0))[:7] == [
            ("▶ ", "baseu"), ("Ann", "nameu"), (" idle", "idleu"), (" hp ", "baseu"), ("████░", "highu"), (" 36/43", "baseu"), (" prone→40", "conditionu"),
        ]
        assert runs(pane.render_line(1)) == [("     ", "baseu"), (" ep 74/74", "highu"), (" " * 26, "baseu")]
        assert runs(pane.render_line(2))[-2] == (" dex 2/4", "mid")
        assert runs(pane.render_line(3))[:2] == [("     ", "base"), (" str 3/3", "high")]
        pane.select(1)
        assert pane.current is not None and pane.current.name == "Bo"
        assert chars(pane.render_line(2)).startswith("▶ Bo ")
        await pilot.click(RosterView, offset=(5, 5))  # Cy's second row
        await wait_for(pilot, lambda: app.clicked == [2], "a click on Cy's second row", WAIT)
        # Wider: every combatant's items fit one row.
        pane.styles.width = 60
        await wait_for(pilot, lambda: pane.virtual_size.height == 4, "one row each", WAIT)
        assert chars(pane.render_line(0)) == "  Ann idle hp ████░ 36/43 prone→40 ep 74/74".ljust(60)
        assert chars(pane.render_line(1)) == "▶ Bo  acting hp █████ 10/10 dex 2/4 str 3/3".ljust(60)
        pane.set_glance(False)
        assert pane.virtual_size.height == 4
        assert chars(pane.render_line(1)) == "▶ Bo  acting hp █████ 10/10 str 3/3 dex 2/4".ljust(60)
        pane.styles.width = 30
        await wait_for(pilot, lambda: pane.scrollable_content_region.width == 30, "narrower", WAIT)
        assert pane.virtual_size.height == 4  # a plain roster stays one row each
        pane.set_glance(True)
        assert pane.virtual_size.height == 8

    await _roster(_live(tmp_path, FIGHT), 40, 8, check, glance=True)


async def test_glance_scrolls_by_two_rows_a_combatant(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert pane.virtual_size.height == 8 and pane.size.height == 4
        pane.select(3)  # rows 6 and 7: scrolled to show them last
        await wait_for(pilot, lambda: pane.scroll_y == 4, "scrolled to Dee", WAIT)
        assert chars(pane.render_line(2)).startswith("▶ Dee ")
        pane.select(1)  # rows 2 and 3, above the view: scrolled to show them first
        await wait_for(pilot, lambda: pane.scroll_y == 2, "scrolled to Bo", WAIT)
        assert chars(pane.render_line(0)).startswith("▶ Bo ")

    await _roster(_live(tmp_path, FIGHT), 40, 4, check, glance=True)


async def test_glance_marks_the_rest_on_its_last_row_and_keeps_unnumbered_resources(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann hp=10 a=1 b=2 c=3 d=4 e=5 f=6", "damage Ann 1"])
    ann = live.encounter.combatants["Ann"]
    ann.resources["mood"] = "calm"

    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        # 25 cells past the name: idle 5, the bar (14: 9/10 of 5 is 4.5, rounded to even), then a 1/1 .. e 5/5 (6 each) and mood.
        assert [chars(pane.render_line(y)) for y in range(2)] == [
            "▶ Ann idle hp ████░ 9/10 a 1/1".ljust(30),
            "      b 2/2 c 3/3 d 4/4 +3".ljust(30),
        ]
        assert runs(pane.render_line(1))[-2] == (" +3", "dimu")
        pane.styles.width = 80
        await wait_for(pilot, lambda: pane.virtual_size.height == 1, "one row", WAIT)
        assert chars(pane.render_line(0)) == "▶ Ann idle hp ████░ 9/10 a 1/1 b 2/2 c 3/3 d 4/4 e 5/5 f 6/6 mood calm".ljust(80)

    await _roster(live, 30, 4, check, glance=True)


async def test_glance_shows_a_viewer_only_what_the_table_lets_them(tmp_path: Path) -> None:
    live = _live(tmp_path, FIGHT, "label")
    live.viewer = True

    async def check(pilot: Any, pane: RosterView, app: Panes) -> None:
        assert pane.virtual_size.height == 8
        assert [chars(pane.render_line(y)).rstrip() for y in (2, 4, 6)] == ["  Bo  acting Healthy", "  Cy  down Down", "  Dee idle Bloodied"]

    await _roster(live, 40, 8, check, glance=True)


# The detail panel.


async def _detail(live: Live, name: str | None, width: int, check: Any) -> None:
    pane = DetailView(live)
    app = Panes(pane, width, 10)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pane.content_region.width == width, "the panel laid out", WAIT)
        pane.show(live.encounter.combatants[name] if name else None)
        await wait_for(pilot, lambda: isinstance(pane.content, Text) and bool(pane.content.plain), "the panel drawn", WAIT)
        await check(pilot, pane)


def _text(pane: DetailView) -> Text:
    assert isinstance(pane.content, Text)
    return pane.content


def _styles(text: Text, part: str) -> str:
    """The detail class of `part` in `text`, by its colour (`bold`/`italic` as they are)."""
    start = text.plain.index(part)
    found = []
    for span in text.spans:
        if span.start <= start and start + len(part) <= span.end:
            style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
            if style.color is not None and style.color.triplet is not None:
                found.append(DETAIL[style.color.triplet.hex])
            found += [mark for mark, on in (("bold", style.bold), ("italic", style.italic)) if on]
    return " ".join(found)


async def test_the_detail_shows_everything_wrapped_between_items(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "condition Bo dazed 12", "hide Dee"])

    async def ann(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Ann (PC)  idle\nhp 36/43  ep 74/74  prone until 40"
        assert _styles(_text(pane), "Ann") == "bold"
        assert _styles(_text(pane), "hp 36/43") == "high"
        assert _styles(_text(pane), "prone") == "label"
        assert _text(pane).no_wrap is False
        # Narrower: a line breaks between items, never inside one.
        pane.styles.width = 22
        await wait_for(pilot, lambda: _text(pane).plain == "Ann (PC)  idle\nhp 36/43  ep 74/74\nprone until 40", "wrapped again", WAIT)

    await _detail(live, "Ann", 40, ann)

    async def bo(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Bo  acting\nhp 10/10  str 3/3\ndex 2/4  dazed until 12\nattack 0→3"
        assert _styles(_text(pane), "dex 2/4") == "mid"

    await _detail(live, "Bo", 24, bo)

    async def narrow(pilot: Any, pane: DetailView) -> None:
        # Never under 20 columns: the items are packed to 20.
        assert _text(pane).plain == "Bo  acting\nhp 10/10  str 3/3\ndex 2/4\ndazed until 12\nattack 0→3"

    await _detail(live, "Bo", 12, narrow)

    async def cy(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Cy  down\nhp 0/8"
        assert _styles(_text(pane), "hp 0/8") == "low"

    await _detail(live, "Cy", 40, cy)

    async def dee(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Dee  idle  hidden from viewers\nhp 4/10"

    await _detail(live, "Dee", 40, dee)


async def test_the_detail_says_until_when_airborne_or_surprised(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann hp=5 side=PC", "add Bo hp=5", "surprise Bo 6"])
    live.encounter.combatants["Ann"].airborne_until = 4
    live.encounter.combatants["Ann"].surprised_until = 9

    async def ann(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Ann (PC)  airborne until 4\nhp 5/5"

    await _detail(live, "Ann", 40, ann)

    async def bo(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Bo  surprised until 6\nhp 5/5"

    await _detail(live, "Bo", 40, bo)


async def test_the_detail_as_a_viewer_sees_it_and_with_no_one_selected(tmp_path: Path) -> None:
    live = _live(tmp_path / "label", FIGHT, "label")
    live.viewer = True

    async def dee(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Dee  idle\nBloodied"
        assert _styles(_text(pane), "Bloodied") == "bold"

    await _detail(live, "Dee", 40, dee)

    hidden = _live(tmp_path / "hidden", FIGHT, "hidden")
    hidden.viewer = True

    async def bo(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Bo  acting\nresources hidden from viewers  attack 0→3"
        assert _styles(_text(pane), "resources hidden") == "italic"

    await _detail(hidden, "Bo", 60, bo)

    async def nobody(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "No combatants yet."
        assert _text(pane).style == "italic"

    await _detail(hidden, None, 40, nobody)

    async def gm(pilot: Any, pane: DetailView) -> None:
        assert _text(pane).plain == "Add combatants: e (roster editor), or :add NAME key=value"
        pane.changed(Changed((Event("note", {}, seq=1),)), live.encounter.combatants["Bo"])  # a note: as it was
        assert _text(pane).plain.startswith("Add combatants")
        pane.changed(Changed((), whole=True), live.encounter.combatants["Bo"])
        assert _text(pane).plain.startswith("Bo  acting")

    await _detail(_live(tmp_path / "gm", FIGHT), None, 40, gm)
