"""The campaign in the app (80x24): the start screen's grouping, the campaign screen's
next fight and its characters joining, changing, leaving; what a viewer is offered.

Every file the app wrote is loaded again from disk and checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Label

from tracker.play import fights
from tracker.persistence.campaign import DIED
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.ui.app import TrackerApp
from tracker.ui.screens.campaign import CampaignScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.roster import RosterScreen
from tracker.ui.screens.start import CAMPAIGN, FIGHT, HEADING, StartScreen
from tracker.ui.widgets.clock import ClockBar

from tests.campaign_ui import BY, highlight, load, make_campaign, make_fight, open_campaign, ready, rows, screen
from tests.test_start_list import drawn
from tests.test_ui_app import SIZE, make_file, notes, type_into
from tests.ui import press, wait_for

pytestmark = pytest.mark.ui

SERAPH = {"vp": "43", "dp": "15", "ep": "74", "agility": "22"}


async def test_the_start_screen_lists_each_campaign_with_its_fights_then_the_fights_of_their_own(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 5 resource=vp"])
    fights.end(ford, BY, "won")
    bridge = make_fight(road, "bridge", "The Bridge", [])
    fights.end(bridge, BY)
    with bridge.open("a") as f:  # its file changed after its campaign ended it (a hand edit)
        f.write("\n# a stray comment\n# revision 99\n")
    cave = make_fight(road, "cave", "The Cave", [])
    fights.end(cave, BY)
    cave.unlink()  # missing
    tower = make_fight(road, "tower", "The Tower", ["damage Seraph 1 resource=vp"])  # under way
    make_file(saves, "freeform", ["add Goblin"], name="tavern-brawl")
    (saves / "broken.campaign.toml").write_text("kind = 'campaign'\nschema_version = 7\n", encoding="utf-8")
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and bool(app.screen.listings), "the list")
        start = app.screen
        assert isinstance(start, StartScreen)
        listed = [(item.kind, item.path.name, item.name.strip(), item.segment) for item in start.listings]
        assert listed == [
            (CAMPAIGN, "broken.campaign.toml", "broken.campaign.toml", "campaign"),
            (CAMPAIGN, "road.campaign.toml", "The Long Road", "campaign, party of 1"),
            (FIGHT, "ford.toml", "1. The Ford", "ended"),
            (FIGHT, "bridge.toml", "2. The Bridge", "changed since it ended"),
            (FIGHT, "cave.toml", "3. The Cave", "missing"),
            (FIGHT, "tower.toml", "4. The Tower", "under way · 0 · round 1"),
            (HEADING, "saves", "fights of their own", ""),
            (FIGHT, "tavern-brawl.toml", "tavern-brawl", "0 · round 1"),
        ]
        assert "schema_version: expected 1" in start.listings[0].error
        table = start.query_one(DataTable)
        shown = drawn(table)
        assert "The Long Road" in shown and "  1. The Ford" in shown and "fights of their own" in shown
        await press(pilot, "enter")  # the broken campaign: its error, nothing opened
        assert isinstance(app.screen, StartScreen)
        assert any("schema_version: expected 1" in n for n in notes(app))
        assert "cannot load" in str(start.query_one("#start-error", Label).render())
        table.move_cursor(row=4)  # the missing fight: said so, nothing opened
        await press(pilot, "enter")
        assert isinstance(app.screen, StartScreen)
        assert any("cave.toml: no such file" in n for n in notes(app))
        table.move_cursor(row=5)  # the fight under way opens, naming its campaign
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the fight")
        clock = app.screen.query_one(ClockBar)
        await wait_for(pilot, lambda: "campaign: The Long Road" in str(clock.render()), "the campaign's title in the clock bar")
        assert app.screen.live.path == tower  # type: ignore[attr-defined]


async def test_next_fight_from_the_campaign_screen_then_its_foes_then_the_fight(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        s = await open_campaign(pilot, app, road)
        assert "Seraph: vp 43/43, dp 15/15, ep 74/74" in rows(s)
        await press(pilot, "n")
        assert isinstance(app.screen, FormScreen)
        await type_into(pilot, "#f-name", "Ambush [at] the ford")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor for the foes")
        await press(pilot, "a")
        await type_into(pilot, "#f-name", "Goblin")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "back in the roster")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the fight")
        clock = app.screen.query_one(ClockBar)
        await wait_for(pilot, lambda: "campaign: The Long Road" in str(clock.render()), "the campaign named")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        assert any("1. Ambush [at] the ford (ambush-at-the-ford.toml): under way" in r for r in rows(screen(app)))
        await press(pilot, "n")  # a second one while the first is under way: refused in the form
        await press(pilot, "enter")
        assert isinstance(app.screen, FormScreen)
        assert "still under way" in str(app.screen.query_one("#form-error", Label).render())
        await press(pilot, "escape")
    camp = load(road)
    fight = camp.open_fight()
    assert fight is not None and fight.name == "Ambush [at] the ford" and fight.pcs == ("pc1",)
    enc = EncounterFile(saves / fight.file).load().encounter
    assert enc.setup.campaign == "road.campaign.toml"
    assert {n: c.pc for n, c in enc.combatants.items()} == {"Seraph": "pc1", "Goblin": ""}
    assert enc.combatants["Seraph"].stats["agility"] == 22


async def test_a_character_joins_changes_and_dies_from_the_campaign_screen(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await open_campaign(pilot, app, road)
        await press(pilot, "a")
        await type_into(pilot, "#f-name", "Kestrel {x} [b]x[/b] 鷹")
        for key, value in (("vp", "30"), ("dp", "12"), ("ep", "50"), ("agility", "18")):
            await type_into(pilot, f"#f-sheet_{key}", value)
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        assert "Kestrel {x} [b]x[/b] 鷹: vp 30/30, dp 12/12, ep 50/50" in rows(screen(app))
        await press(pilot, "a")  # the same name again: refused in the form, nothing lost
        await type_into(pilot, "#f-name", "kestrel {X} [B]X[/B] 鷹")
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, FormScreen)
        assert "already a character named" in str(app.screen.query_one("#form-error", Label).render())
        await press(pilot, "escape")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        highlight(screen(app), "pc:pc2")
        await press(pilot, "e")
        assert isinstance(app.screen, FormScreen)
        fields = {f.label: f.name for f in app.screen.fields}
        await type_into(pilot, f"#f-{fields['vp']}", "21")
        await type_into(pilot, f"#f-{fields['ep max']}", "55")
        await type_into(pilot, "#f-conditions", "stunned=30 [x]=5")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        assert "Kestrel {x} [b]x[/b] 鷹: vp 21/30, dp 12/12, ep 50/55, stunned (30 segments left), [x] (5 segments left)" in rows(screen(app))
        highlight(screen(app), "pc:pc2")
        await press(pilot, "enter")  # enter on a character: the same change form
        assert isinstance(app.screen, FormScreen) and app.screen.title_text.startswith("Change Kestrel")
        await type_into(pilot, "#f-conditions", "stunned=30")  # [x] ends
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        highlight(screen(app), "pc:pc1")
        await press(pilot, "x")
        assert isinstance(app.screen, FormScreen)
        app.screen.query_one("#f-how").focus()
        await press(pilot, "d")  # the list jumps to "dies"
        await type_into(pilot, "#f-note", "fell at the ford")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
        assert "  gone: Seraph (died: fell at the ford)" in rows(screen(app))
        await press(pilot, "u")  # the death taken back
        await wait_for(pilot, lambda: ready(app) and any(r.startswith("Seraph: vp 43/43") for r in rows(screen(app))), "Seraph back in the party")
    camp = load(road)
    seraph, kestrel = camp.pcs["pc1"], camp.pcs["pc2"]
    assert seraph.status == "active"
    assert kestrel.name == "Kestrel {x} [b]x[/b] 鷹"
    assert kestrel.resources == {"vp": 21, "dp": 12, "ep": 50} and kestrel.maxima == {"vp": 30, "dp": 12, "ep": 55}
    assert kestrel.stats["agility"] == 18 and kestrel.stats["strength"] == 10  # a change leaves the rest of the sheet
    assert kestrel.conditions == {"stunned": 30}
    assert [e.kind for e in camp.events][-1] == "undo"
    died = [e for e in camp.events if e.kind == "leave"]
    assert died[0].args == {"pc": "pc1", "reason": DIED, "note": "fell at the ford", "at": died[0].args["at"]}


@pytest.mark.parametrize("seat", ["viewer", "player"])
async def test_a_viewer_or_a_player_is_offered_no_key_that_changes_the_campaign(saves: Path, seat: str) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    before = road.read_bytes()
    app = TrackerApp(saves, viewer=True) if seat == "viewer" else TrackerApp(saves, role=Role.player(["Seraph"]))
    async with app.run_test(size=SIZE) as pilot:
        s = await open_campaign(pilot, app, road)
        offered = {b.binding.id for b in s.active_bindings.values() if b.binding.id and s.check_action("cmd", (b.binding.id,))}
        assert offered == {"open", "stats", "reload", "help", "close", "quit"}
        from tracker.ui.commands import CommandTable

        palette = {c.name for c in CommandTable(s).commands()}  # what ctrl+p lists
        assert palette == offered
        for key in ("n", "a", "l", "e", "x", "z", "u", "r"):
            await press(pilot, key)
            assert isinstance(app.screen, CampaignScreen), key
        await press(pilot, "t")
        await wait_for(pilot, lambda: "as viewers see it" in str(app.screen.query_one(Label).render()), "the viewers' statistics")
    assert road.read_bytes() == before


async def test_tracker_open_on_a_campaign_file_shows_its_screen_over_the_saves_list(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.helpers import cli

    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH})
    app = TrackerApp(saves, campaign=road)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignScreen), "the campaign screen")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the saves folder's list")
    broken = saves / "bad.campaign.toml"
    broken.write_text(road.read_text().replace('kind = "campaign"', 'kind = "x"'))
    assert cli("--saves", str(saves), "open", str(broken))[0] == 1
    assert f'{broken}: kind: expected "campaign"' in capsys.readouterr().err
