"""Direct tests of tracker.ui.screens.campaign, worked from its docstring,
docs/decisions/0051-campaign-in-the-app.md and docs/guide/campaigns.md ("Campaigns in the
app"): one list (the party with their figures, those gone, the fights with their
state); Enter opens the highlighted fight, or on a character the change form; `n` the
next fight (its name, then the roster editor), `a` / `l` a character joins, `e` change,
`x` leave or die, `z` rest, `t` statistics, `u` / `r` undo and redo, `g` read again,
`?`, Esc, `q`; a viewer or a player is offered only what changes nothing. Every read and
write is on a thread; the screen reads the campaign again after each change and when
it shows again.

The screen is shown alone in a bare app (tests/ui.py's `ScreenApp`) that records what
it asks of the tracker's app (a fight opened, a quit asked); every campaign file written
is loaded again."""

from __future__ import annotations

import contextlib

from pathlib import Path
from collections.abc import AsyncIterator
from typing import Any

import pytest
import tracker.ui
from rich.text import Text
from textual.geometry import Region
from textual.widgets import Input, Label, OptionList, Static

from rulesets import registry
from tracker.engine import TrackerError
from tracker.persistence.campaign import Campaign, Fight
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.library import Library, Sheet
from tracker.play import fights, party
from tracker.play.live import Live
from tracker.reading import campaign as reading
from tracker.reading.roles import Role
from tracker.ui.commands import CAMPAIGN
from tracker.ui.screens.campaign import CampaignScreen, CampaignStatsScreen, Shown, fight_line, read, state_line
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen
from tests.campaign_ui import BY, load, make_campaign, make_fight
from tests.ui import ScreenApp, wait_for

SERAPH = {"vp": "43", "dp": "15", "ep": "74"}
WAIT = 10.0  # a broken screen fails fast


# ------------------------------------------------------------------ the pure parts
def _fight(**kw: Any) -> Fight:
    return Fight(**({"file": "ford.toml", "name": "The [b]Ford[/b]", "started": 3, "at": "", "pcs": ("pc1",)} | kw))


def test_a_fight_line_says_how_it_ended_or_that_it_is_under_way() -> None:
    assert fight_line(1, _fight(), reading.OPEN) == "1. The [b]Ford[/b] (ford.toml): under way"
    ended = _fight(ended=7, outcome="won", segment=42)
    assert fight_line(2, ended, reading.ENDED) == "2. The [b]Ford[/b] (ford.toml): won, 42 segments"
    assert fight_line(3, ended, reading.MISSING) == "3. The [b]Ford[/b] (ford.toml): won, 42 segments [missing]"
    assert fight_line(4, ended, reading.CHANGED) == "4. The [b]Ford[/b] (ford.toml): won, 42 segments [changed since it ended]"
    assert fight_line(5, _fight(), reading.UNREADABLE) == "5. The [b]Ford[/b] (ford.toml): under way [unreadable]"


def test_the_state_line_names_the_fight_under_way_and_what_u_takes_back(saves: Path) -> None:
    assert state_line(Campaign("Empty", "brandx")) == "no fight under way (n: the next)"
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    camp = load(road)
    assert state_line(camp) == f"no fight under way (n: the next) · u takes back: {camp.describe(camp.events[-1])}"
    make_fight(road, "ford", "The Ford", [])
    camp = load(road)
    assert state_line(camp) == f"under way: The Ford · u takes back: {camp.describe(camp.events[-1])}"


def test_read_gives_the_campaign_its_game_and_each_fights_state(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    ford = make_fight(road, "ford", "The Ford", [])
    fights.end(ford, BY)
    make_fight(road, "hill", "The Hill", [])
    shown = read(road)
    assert isinstance(shown, Shown)
    assert shown.campaign.name == "The Long Road" and [f.file for f in shown.campaign.fights] == ["ford.toml", "hill.toml"]
    assert shown.ruleset.name == "Brand X"
    assert shown.statuses == [reading.ENDED, reading.OPEN]
    ford.unlink()
    assert read(road).statuses == [reading.MISSING, reading.OPEN]
    assert Shown(shown.campaign, shown.ruleset).statuses == []
    (saves / "house.toml").write_text("", encoding="utf-8")  # house rules, read beside the campaign
    CampaignFile.create(saves / "inn.campaign.toml", "The Inn", "freeform", "house.toml")
    assert read(saves / "inn.campaign.toml").ruleset.name == registry.get("freeform").name
    (saves / "house.toml").write_text("x = [\n", encoding="utf-8")
    with pytest.raises(TrackerError) as refused:
        read(saves / "inn.campaign.toml")
    assert "house.toml" in str(refused.value)


# ------------------------------------------------------------------ the screen
pilots = pytest.mark.ui
pytestmark = pilots


class _App(ScreenApp):
    """The bare app, with what the campaign screen reads of the tracker's app and a
    record of what it asks of it."""

    def __init__(self, screen: Any, viewer: bool = False, role: Role | None = None, user: str = "ann") -> None:
        super().__init__(screen)
        self.viewer, self.role, self.user = viewer, role, user
        self.said: list[tuple[str, str]] = []
        self.opened: list[tuple[Path, bool, Any]] = []
        self.quits = 0

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None, markup: bool = True) -> None:  # type: ignore[override]
        self.said.append((str(message), str(severity)))

    def open_encounter(self, path: Path, roster: bool = False, live: Any = None) -> None:
        self.opened.append((path, roster, live))

    def quit_asking(self) -> None:
        self.quits += 1

    def close_lives(self) -> None:
        for _, _, live in self.opened:
            if isinstance(live, Live):
                live.close()


def _road(saves: Path) -> Path:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH, "Kestrel": {"vp": "30"}, "Wren": {"vp": "20"}})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 12 resource=vp", "condition Kestrel stunned 40"])
    fights.end(ford, BY, "won")
    CampaignFile(road).change(lambda camp: [_leave(camp)], BY)
    make_fight(road, "hill", "The Hill", [])
    return road


def _leave(camp: Campaign) -> Any:
    from tracker.engine import Event

    return Event("leave", {"pc": "pc3", "reason": "died", "note": "fell [at] the ford"})


def _rows(s: CampaignScreen) -> list[tuple[str, bool]]:
    options = s.query_one(OptionList)
    return [(str(options.get_option_at_index(i).prompt), not options.get_option_at_index(i).disabled) for i in range(options.option_count)]


def _label(s: Any, selector: str) -> str:
    return str(s.query_one(selector, Label).render())


def _ready(s: CampaignScreen) -> bool:
    return s.is_mounted and s.shown is not None and not s.working and s.app.screen is s


async def _open(pilot: Any, s: CampaignScreen) -> None:
    await wait_for(pilot, lambda: _ready(s), "the campaign read", WAIT)


@contextlib.asynccontextmanager
async def _opened(path: Path, user: str = "ann") -> AsyncIterator[tuple[CampaignScreen, _App, Any]]:
    """The campaign screen of `path` on a bare app at 80x24 as `user`, the campaign read:
    (screen, app, pilot)."""
    s = CampaignScreen(path)
    app = _App(s, user=user)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        yield s, app, pilot


def _highlight(s: CampaignScreen, ident: str) -> None:
    s.query_one(OptionList).highlighted = s.ids.index(ident)


def _current(s: CampaignScreen) -> str:
    index = s.query_one(OptionList).highlighted
    return s.ids[index] if index is not None else ""


async def test_one_list_the_party_those_gone_and_the_fights(saves: Path) -> None:
    road = _road(saves)
    async with _opened(road) as (s, app, pilot):
        assert _label(s, "#campaign-title") == "Campaign · The Long Road (brandx)"
        camp = load(road)
        assert _label(s, "#campaign-state") == state_line(camp) == f"under way: The Hill · u takes back: {camp.describe(camp.events[-1])}"
        assert _rows(s) == [
            ("The party", False),
            ("Seraph: vp 31/43, dp 15/15, ep 74/74", True),
            ("Kestrel: vp 30/30, dp 15/15, ep 30/30, stunned (40 segments left)", True),
            ("  gone: Wren (died: fell [at] the ford)", False),
            ("Fights", False),
            ("1. The Ford (ford.toml): won, 0 segments", True),
            ("2. The Hill (hill.toml): under way", True),
        ]
        assert s.ids == ["", "pc:pc1", "pc:pc2", "", "", "fight:0", "fight:1"]
        prompts = [s.query_one(OptionList).get_option_at_index(i).prompt for i in range(7)]
        assert all(isinstance(p, Text) for p in prompts)
        assert [p.style for p in prompts if isinstance(p, Text)] == ["bold", "", "", "dim", "bold", "", ""]
        assert _current(s) == "pc:pc1"  # the first row that can be chosen
        assert s.focused is s.query_one(OptionList)
        assert s.campaign is s.shown.campaign and s.ruleset is s.shown.ruleset  # type: ignore[union-attr]


async def test_a_campaign_with_nobody_and_no_fight_says_which_key_adds_them(saves: Path) -> None:
    road = make_campaign(saves, "ogs", "Under [the] Hill", {})
    CampaignFile(road).change(lambda camp: [party.join(camp, saves, "Ayla", {})], BY)
    CampaignFile(road).change(lambda camp: [_gone(camp)], BY)
    async with _opened(road) as (s, app, pilot):
        assert _label(s, "#campaign-title") == "Campaign · Under [the] Hill (ogs)"
        assert _rows(s) == [
            ("The party", False),
            ("nobody yet (a: a character joins)", False),
            ("  gone: Ayla (left)", False),
            ("Fights", False),
            ("none yet (n: the next fight)", False),
        ]
        prompts = [s.query_one(OptionList).get_option_at_index(i).prompt for i in range(5)]
        assert [p.style for p in prompts if isinstance(p, Text)] == ["bold", "italic", "dim", "bold", "italic"]
        assert s.query_one(OptionList).highlighted is None and s.ids == [""] * 5
        await pilot.press("e")  # nothing to change: said why
        await wait_for(pilot, lambda: bool(app.said), "why not", WAIT)
        assert app.said == [("highlight a character of the party first (up/down)", "error")]
        await pilot.press("enter")  # nothing highlighted: nothing opened
        assert app.screen is s and not app.opened


def _gone(camp: Campaign) -> Any:
    from tracker.engine import Event

    return Event("leave", {"pc": "pc1", "reason": "left"})


async def test_a_campaign_that_does_not_load_says_why_and_refuses_its_keys(saves: Path) -> None:
    road = saves / "broken.campaign.toml"
    road.write_text("kind = 'campaign'\nschema_version = 7\n", encoding="utf-8")
    s = CampaignScreen(road)
    app = _App(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _label(s, "#campaign-state").startswith("cannot load: "), "the error", WAIT)
        assert "schema_version" in _label(s, "#campaign-state")
        assert _label(s, "#campaign-title") == "Campaign · broken.campaign.toml"
        assert s.shown is None and s.campaign is None and s.ids == [] and s.query_one(OptionList).option_count == 0
        for key in ("n", "a", "z", "t"):
            await pilot.press(key)
        await wait_for(pilot, lambda: len(app.said) == 4, "each refused", WAIT)
        assert app.said == [("broken.campaign.toml: the campaign is not read (yet): g reads it again", "error")] * 4
        assert app.screen is s
        make_campaign(saves, "brandx", "Mended", {"Seraph": SERAPH}, file="mended")
        (saves / "mended.campaign.toml").replace(road)
        await pilot.press("g")  # read again
        await wait_for(pilot, lambda: _ready(s) and _current(s) == "pc:pc1", "the campaign read", WAIT)
        assert _label(s, "#campaign-title") == "Campaign · Mended (brandx)"
        road.write_text("broken again", encoding="utf-8")
        await pilot.press("g")
        await wait_for(pilot, lambda: s.shown is None, "read again, broken", WAIT)
        assert s.ids == [] and s.query_one(OptionList).option_count == 0


async def test_n_starts_the_next_fight_and_opens_it_with_the_roster(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    async with _opened(road, user="ann") as (s, app, pilot):
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the next fight's form", WAIT)
        assert app.screen.title_text == "Next fight of The Long Road"  # type: ignore[attr-defined]
        await pilot.press("escape")  # changed their mind: nothing started
        await wait_for(pilot, lambda: _ready(s), "back", WAIT)
        assert load(road).fights == [] and not app.opened
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the next fight's form", WAIT)
        field = app.screen.query_one("#f-name", Input)
        field.value = "Ambush [at] the Ford"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.opened), "the fight opened", WAIT)
        try:
            ((target, roster, live),) = app.opened
            assert target == saves / "ambush-at-the-ford.toml" and roster is True
            assert isinstance(live, Live) and live.path == target and not live.viewer
            assert live.encounter.setup.campaign == "road.campaign.toml"
            assert live.role == Role.gm() and live.session.user == "ann"
        finally:
            app.close_lives()
    fight = load(road).open_fight()
    assert fight is not None and fight.name == "Ambush [at] the Ford"
    assert load(road).events[-1].by == "ann"


async def test_x_or_e_on_a_fight_says_to_highlight_a_character(saves: Path) -> None:
    road = _road(saves)
    async with _opened(road) as (s, app, pilot):
        _highlight(s, "fight:0")
        for key in ("x", "e", "delete"):
            await pilot.press(key)
        await wait_for(pilot, lambda: len(app.said) == 3, "each refused", WAIT)
        assert app.said == [("highlight a character of the party first (up/down)", "error")] * 3
        assert app.screen is s


async def test_enter_opens_the_highlighted_fight(saves: Path) -> None:
    road = _road(saves)
    async with _opened(road, user="bo") as (s, app, pilot):
        _highlight(s, "fight:0")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.opened), "the fight opened", WAIT)
        _highlight(s, "fight:1")
        await pilot.press("o")
        await wait_for(pilot, lambda: len(app.opened) == 2, "the second opened", WAIT)
        try:
            (ford, roster, live), (hill, roster2, live2) = app.opened
            assert (ford, roster, hill, roster2) == (saves / "ford.toml", False, saves / "hill.toml", False)
            assert live.path == ford and live2.path == hill and live.session.user == "bo" and not live.viewer
        finally:
            app.close_lives()


@pytest.mark.parametrize("seat", ["viewer", "player"])
async def test_a_viewer_or_a_player_opens_fights_and_reads_but_changes_nothing(saves: Path, seat: str) -> None:
    road = _road(saves)
    before = road.read_bytes()
    s = CampaignScreen(road)
    role = Role.player(["Seraph"]) if seat == "player" else None
    app = _App(s, viewer=seat == "viewer", role=role)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        assert s.viewer
        assert s.role == (role if role is not None else Role.viewer())
        offered = {c.name for c in CAMPAIGN if s.check_action("cmd", (c.name,))}
        assert offered == {"open", "stats", "reload", "help", "close", "quit"}
        assert s.check_action("cmd", ()) is False
        assert s.check_action("other", ("add",)) is True
        for name in ("add", "next_fight", "undo"):
            s.action_cmd(name)  # the palette's pick, if it came
        assert app.said == [
            ("Add: refused, this is a read-only viewer", "warning"),
            ("Next fight: refused, this is a read-only viewer", "warning"),
            ("Undo: refused, this is a read-only viewer", "warning"),
        ]
        assert app.screen is s
        await pilot.press("enter")  # on a character: no change form for them
        assert app.screen is s
        _highlight(s, "fight:1")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.opened), "the fight opened", WAIT)
        try:
            (_, _, live), = app.opened
            assert live.viewer and live.role == (role if role is not None else Role.viewer())
        finally:
            app.close_lives()
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignStatsScreen), "the statistics", WAIT)
        assert app.screen.title_text == "Statistics · The Long Road (as viewers see it) (esc: back)"  # type: ignore[attr-defined]
        assert app.screen.shown_text == reading.stats_text(reading.stats(load(road), viewer=True))  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for(pilot, lambda: _ready(s), "back", WAIT)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        assert [c.name for c in app.screen.commands] == ["open", "stats", "reload", "help", "close", "quit"]  # type: ignore[attr-defined]
    assert road.read_bytes() == before


async def test_the_gm_is_offered_every_key(saves: Path) -> None:
    road = _road(saves)
    s = CampaignScreen(road)
    app = _App(s, role=Role.gm())
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        assert not s.viewer and s.role == Role.gm()
        assert all(s.check_action("cmd", (c.name,)) for c in CAMPAIGN)
        assert [b.binding.id for b in s.active_bindings.values() if b.binding.id][:3] == ["open", "next_fight", "add"]
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        assert app.screen.title_text == "Campaign"  # type: ignore[attr-defined]
        assert tuple(app.screen.commands) == CAMPAIGN  # type: ignore[attr-defined]


async def test_an_app_without_a_seat_is_the_gms(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    s = CampaignScreen(road)
    app = ScreenApp(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        assert not s.viewer and s.role == Role.gm() and s.by == ""
        assert all(s.check_action("cmd", (c.name,)) for c in CAMPAIGN)


async def test_t_shows_the_campaigns_statistics_and_the_list_is_read_again_after(saves: Path) -> None:
    road = _road(saves)
    async with _opened(road) as (s, app, pilot):
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignStatsScreen), "the statistics", WAIT)
        stats = app.screen
        assert stats.title_text == "Statistics · The Long Road (esc: back)"  # type: ignore[attr-defined]
        text = reading.stats_text(reading.stats(load(road)))
        assert stats.shown_text == text  # type: ignore[attr-defined]
        assert str(stats.query_one("#stats-body", Static).render()).startswith(text.splitlines()[0])
        assert str(stats.query_one(".title", Label).render()) == "Statistics · The Long Road (esc: back)"
        assert stats.focused is stats.query_one("#stats-scroll")
        CampaignFile(road).change(lambda camp: [party.join(camp, saves, "Moss", {})], BY)  # another session meanwhile
        await pilot.press("escape")
        await wait_for(pilot, lambda: _ready(s) and any(r.startswith("Moss: ") for r, _ in _rows(s)), "read again on coming back", WAIT)
        assert _current(s) == "pc:pc1"


async def test_the_library_is_offered_when_it_holds_sheets(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    async with _opened(road) as (s, app, pilot):
        await pilot.press("l")
        await wait_for(pilot, lambda: bool(app.said), "said there is none", WAIT)
        assert app.said == [(f"the library of brandx sheets in {saves} holds none yet (w in a fight's roster editor saves one)", "warning")]
        assert app.screen is s
        Library.in_folder(saves, "brandx").put(Sheet("Guard", "watch", {"agility": 14}, {"vp": 25}))
        Library.in_folder(saves, "ogs").put(Sheet("Troll", "", {}, {"hp": 25}))  # another game's: not offered
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the library form", WAIT)
        assert app.screen.title_text == "A character joins The Long Road from the library"  # type: ignore[attr-defined]
        assert list(app.screen.fields[0].suggestions) == ["Guard"]  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: _ready(s) and len(app.said) == 2, "joined", WAIT)
        assert app.said[-1] == ("Guard joins the party", "information")
    assert load(road).pcs["pc2"].name == "Guard" and load(road).events[-1].by == "ann"


async def test_z_asks_for_the_rest_and_esc_changes_nothing(saves: Path) -> None:
    road = make_campaign(saves, "ogs", "Under the Hill", {"Ayla": {"hp": "20"}})
    cave = make_fight(road, "cave", "The Cave", ["damage Ayla 12"])
    fights.end(cave, BY)
    before = road.read_bytes()
    async with _opened(road, user="ann") as (s, app, pilot):
        await pilot.press("z")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the rest form", WAIT)
        assert app.screen.title_text == "The party of Under the Hill rests"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for(pilot, lambda: _ready(s), "back", WAIT)
        assert road.read_bytes() == before
        await pilot.press("z")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the rest form", WAIT)
        app.screen.query_one("#f-pc0", Input).value = "full"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not s and not isinstance(app.screen, FormScreen), "the rest's result", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: _ready(s) and ("Ayla: hp 20/20", True) in _rows(s), "rested, read again", WAIT)
    assert load(road).pcs["pc1"].resources["hp"] == 20 and load(road).events[-1].by == "ann"


async def test_esc_goes_back_and_q_asks_the_app_to_quit(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    async with _opened(road) as (s, app, pilot):
        await pilot.press("q")
        assert app.quits == 1 and not app.closed
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "back", WAIT)
        assert app.result is None


async def test_keys_wait_while_a_change_is_on_its_thread(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    async with _opened(road) as (s, app, pilot):
        s.working = True  # as while a change is on its thread
        s.action_cmd("next_fight")
        s.action_cmd("stats")
        assert app.screen is s and not app.said
        s.working = False
        s.action_cmd("stats")
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignStatsScreen) and app.screen.focused is not None, "the statistics", WAIT)


async def test_g_reads_the_campaign_again_keeping_the_highlighted_row(saves: Path) -> None:
    road = _road(saves)
    async with _opened(road) as (s, app, pilot):
        _highlight(s, "fight:1")
        CampaignFile(road).change(lambda camp: [party.join(camp, saves, "Moss", {})], BY)
        await pilot.press("g")
        await wait_for(pilot, lambda: _ready(s) and len(s.ids) == 8, "read again", WAIT)
        assert _current(s) == "fight:1" and s.ids[3] == "pc:pc4"
        s.reload("pc:pc4")
        await wait_for(pilot, lambda: _ready(s) and _current(s) == "pc:pc4", "the row asked for", WAIT)
        s.reload("pc:nobody")  # gone: the first row that can be chosen
        await wait_for(pilot, lambda: _ready(s) and _current(s) == "pc:pc1", "the first row", WAIT)


async def test_until_the_campaign_is_read_the_screen_says_so_and_refuses_its_keys(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from tracker.ui.screens import campaign as module

    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    gate = threading.Event()
    reading_it = module.read

    def slow(path: Path) -> Shown:
        assert gate.wait(WAIT)
        return reading_it(path)

    monkeypatch.setattr(module, "read", slow)
    s = CampaignScreen(road)
    app = _App(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: s.is_mounted and s.working, "the campaign being read", WAIT)
        assert _label(s, "#campaign-title") == "Campaign · road.campaign.toml"
        assert _label(s, "#campaign-state") == "reading the campaign…"
        assert s.shown is None and s.campaign is None and s.query_one(OptionList).option_count == 0
        s.action_cmd("add")  # while it is read: let go (the key hold keeps typed keys for later)
        assert app.said == [] and app.screen is s
        s.working = False
        for name in ("add", "leave"):
            s.action_cmd(name)
        assert app.said == [("road.campaign.toml: the campaign is not read (yet): g reads it again", "error")] * 2
        gate.set()
        await wait_for(pilot, lambda: _ready(s), "the campaign read", WAIT)
        assert _label(s, "#campaign-title") == "Campaign · The Long Road (brandx)"


async def test_a_character_joins(saves: Path) -> None:
    road = make_campaign(saves, "ogs", "The Long Road", {"Seraph": {"hp": "24"}})
    s = CampaignScreen(road)
    app = _App(s, user="gm:ann")  # an account named like a tag stays the GM's
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the add form", WAIT)
        form = app.screen
        assert form.title_text == "A character joins The Long Road (OGS sheet)"  # type: ignore[attr-defined]
        form.query_one("#f-name", Input).value = "Kestrel [b]x[/b]"
        form.query_one("#f-sheet_hp", Input).value = "30"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: _ready(s) and "pc:pc2" in s.ids, "back, the campaign read again", WAIT)
        assert app.said == [("Kestrel [b]x[/b] joins the party", "information")]
        assert ("Kestrel [b]x[/b]: hp 30/30", True) in _rows(s)
        assert _current(s) == "pc:pc1"  # the highlighted row kept
    assert load(road).events[-1].by == "gm:gm:ann"


def _two(saves: Path) -> Path:
    return make_campaign(saves, "ogs", "The Long Road", {"Seraph": {"hp": "24"}, "Kestrel [b]x[/b]": {"hp": "30"}})


async def test_a_character_changes_and_nothing_is_said_when_nothing_changed(saves: Path) -> None:
    road = _two(saves)
    async with _opened(road, user="gm:ann") as (s, app, pilot):
        _highlight(s, "pc:pc2")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the change form", WAIT)
        assert app.screen.title_text == "Change Kestrel [b]x[/b]"  # type: ignore[attr-defined]
        await pilot.press("escape")  # changed their mind: nothing said
        await wait_for(pilot, lambda: _ready(s), "back", WAIT)
        assert app.said == []
        await pilot.press("enter")  # Enter on a character: the same change form
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the change form", WAIT)
        assert app.screen.title_text == "Change Kestrel [b]x[/b]"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")  # saved unchanged: nothing written, nothing said
        await wait_for(pilot, lambda: _ready(s), "back", WAIT)
        assert app.said == []
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the change form", WAIT)
        app.screen.query_one("#f-r0", Input).value = "21"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: _ready(s) and len(app.said) == 1, "back, changed", WAIT)
        assert app.said == [("Kestrel [b]x[/b] changed", "information")]
        assert _current(s) == "pc:pc2"
    assert load(road).pcs["pc2"].resources["hp"] == 21 and load(road).events[-1].by == "gm:gm:ann"


async def test_a_character_dies_u_takes_it_back_and_r_brings_it_back(saves: Path) -> None:
    road = _two(saves)
    async with _opened(road, user="gm:ann") as (s, app, pilot):
        _highlight(s, "pc:pc2")
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the leave form", WAIT)
        assert app.screen.title_text == "Kestrel [b]x[/b] leaves the party, or dies"  # type: ignore[attr-defined]
        app.screen.query_one("#f-how").focus()
        await pilot.press("d")
        app.screen.query_one("#f-note", Input).value = "fell"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: _ready(s) and len(app.said) == 1, "back, gone", WAIT)
        assert app.said == [("Kestrel [b]x[/b] dies", "information")]
        assert ("  gone: Kestrel [b]x[/b] (died: fell)", False) in _rows(s)
        assert load(road).events[-1].by == "gm:gm:ann"  # signed by who made it
        await pilot.press("u")  # taken back
        await wait_for(pilot, lambda: len(app.said) == 2 and _ready(s) and "pc:pc2" in s.ids, "the death taken back", WAIT)
        message, severity = app.said[-1]
        assert message.startswith("undo: ") and "Kestrel" in message and severity == "information"
        assert load(road).pcs["pc2"].status == "active"
        assert load(road).events[-1].by == "gm:gm:ann"
        await pilot.press("r")  # and brought back
        await wait_for(pilot, lambda: len(app.said) == 3 and _ready(s) and any("gone: Kestrel" in r for r, _ in _rows(s)), "dead again", WAIT)
        assert app.said[-1][0].startswith("redo: ")
    assert load(road).pcs["pc2"].status == "died" and load(road).events[-1].by == "gm:gm:ann"


class _Styled(_App):
    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))  # the app's own stylesheet


async def test_the_title_and_the_state_line_are_styled_as_the_apps_and_a_long_name_is_cut(saves: Path) -> None:
    name = "The Road of the " + "Very " * 20 + "Long River"
    road = make_campaign(saves, "ogs", name, {"Ayla": {"hp": "20"}})
    s = CampaignScreen(road)
    app = _Styled(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, s)
        title, state = s.query_one("#campaign-title", Label), s.query_one("#campaign-state", Label)
        await wait_for(pilot, lambda: title.size.height == 1 and title.size.width > 0, "the title laid out", WAIT)
        (row,) = title.render_lines(Region(0, 0, title.size.width, 1))
        assert row.text.rstrip().endswith("…") and row.text.startswith("Campaign · The Road of the Very")
        assert title.rich_style.bold  # tracker.tcss's .title
        assert state.rich_style.color != s.query_one(OptionList).rich_style.color  # muted, as every hint
        assert not state.rich_style.bold
        # The list takes the rows the title, the state line and the key footer leave.
        assert s.query_one(OptionList).outer_size.height == 24 - 3


async def test_a_character_with_no_figures_says_so(saves: Path) -> None:
    road = make_campaign(saves, "freeform", "The Inn", {})
    from tracker.engine import Event

    # A join with an empty sheet (as a file written by another tool may hold): nothing to show.
    CampaignFile(road).change(lambda camp: [Event("join", {"pc": "pc1", "name": "Bo [x]", "stats": {}, "resources": {}})], BY)
    async with _opened(road) as (s, app, pilot):
        assert _rows(s)[1] == ("Bo [x]: no figures", True)


async def test_a_rest_with_a_healing_roll_asks_its_dice_and_is_recorded(saves: Path) -> None:
    """tests/test_ui_campaign_rest.py's hour 1: target 16, the faces 9 and 5 typed (14):
    Q 2, Seraph's DP 7 -> 9."""
    from tracker.ui.screens.rest import RestDiceScreen, RestedScreen

    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp"])
    fights.end(ford, BY)
    async with _opened(road, user="ann") as (s, app, pilot):
        await pilot.press("z")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the rest form", WAIT)
        app.screen.query_one("#f-hours", Input).value = "1"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the Healing Roll asked for", WAIT)
        faces = app.screen.query_one(Input)
        faces.focus()
        faces.value = "9,5"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen), "the rest's result", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: _ready(s) and _rows(s)[1][0].startswith("Seraph: vp 43/43, dp 9/15"), "rested, read again", WAIT)
    camp = load(road)
    assert [r["dice"] for r in camp.rests[-1].args["rolls"]] == [[9, 5]]
    assert camp.events[-1].by == "ann"
