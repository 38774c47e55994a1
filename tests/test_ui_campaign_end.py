"""Ending a campaign's fight from the app (80x24), and taking its end back.

E (or `:end`) shows what goes back (each character before and after); Esc changes
nothing; y ends it: the campaign file, loaded again, has the fight ended and the party
as the fight left it. An ended fight refuses changes with the engine's message; u
reopens it while its end is the campaign's latest change, and says why not otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tracker.play import fights
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import Event
from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.end import EndScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.widgets.clock import ClockBar

from tests.campaign_ui import BY, load, make_campaign, make_fight
from tests.test_ui_app import SIZE, make_file, notes
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui

PARTY = {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}, "Kestrel": {"vp": "30", "dp": "12", "ep": "60"}}


def end_screen(app: TrackerApp) -> EndScreen:
    assert isinstance(app.screen, EndScreen), app.screen
    return app.screen


async def test_the_end_is_shown_esc_changes_nothing_and_y_ends_the_fight(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    ford = make_fight(road, "ford", "The Ford", ["add Goblin vp=20", "damage Seraph 12 resource=vp", "damage Seraph 4 resource=dp", "condition Kestrel stunned 50"])
    before = (road.read_bytes(), ford.read_bytes())
    app = TrackerApp(saves, ford)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        live = app.screen.live  # type: ignore[attr-defined]
        await press(pilot, "E")
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen) and end_screen(app).preview is not None, "the end's preview")
        text = end_screen(app).shown_text
        assert text.splitlines() == [
            "End The Ford (ford.toml) at segment 0: 2 of 2 of the party standing, 1 of 1 others",
            "The party's state goes back to the campaign The Long Road:",
            "  Seraph: vp 43 -> 31 of 43 (-12); dp 15 -> 11 of 15 (-4)",
            "  Kestrel: stunned (50 segments left)",
        ]
        assert "Seraph: vp 43 -> 31" in str(app.screen.query_one("#end-body", Static).render())
        await press(pilot, "escape")
        assert isinstance(app.screen, EncounterScreen)
        assert (road.read_bytes(), ford.read_bytes()) == before  # Esc: nothing changed
        await press(pilot, "d")  # still open: a change is taken
        await type_text(pilot, "1")
        await press(pilot, "ctrl+s")
        assert live.encounter.combatants["Seraph"].resources["vp"] == 30
        await press(pilot, "colon")
        await type_text(pilot, "end outcome=routed\r")  # the `:` line's end asks too
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen) and end_screen(app).preview is not None, "the end's preview")
        assert "End The Ford (ford.toml) at segment 0: routed" in end_screen(app).shown_text
        assert "Seraph: vp 43 -> 30 of 43 (-13)" in end_screen(app).shown_text
        await press(pilot, "y")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen) and bool(live.encounter.ended), "the fight ended")
        clock = app.screen.query_one(ClockBar)
        await wait_for(pilot, lambda: "ended" in str(clock.render()), "the clock bar says it ended")
        await press(pilot, "n")  # refused with the engine's message; nothing written
        assert any("this fight has ended (campaign The Long Road)" in n for n in notes(app))
        await press(pilot, "E")  # ended: nothing to end
        assert isinstance(app.screen, EncounterScreen)
        assert any("already ended" in n for n in notes(app))
    camp = load(road)
    fight = camp.fight("ford.toml")
    assert not fight.open and fight.outcome == "routed"
    seraph, kestrel = camp.pcs["pc1"], camp.pcs["pc2"]
    assert seraph.resources == {"vp": 30, "dp": 11, "ep": 74}
    assert kestrel.conditions == {"stunned": 50}
    enc = EncounterFile(ford).load().encounter
    assert enc.ended == "The Long Road" and enc.now == 0


async def test_u_reopens_an_ended_fight_while_its_end_is_the_campaigns_latest_change(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 12 resource=vp"])
    fights.end(ford, BY, "won")
    CampaignFile(road).change(lambda camp: [Event("note", {"text": "the road goes on"})], BY)
    app = TrackerApp(saves, ford)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        live = app.screen.live  # type: ignore[attr-defined]
        assert live.encounter.ended
        await press(pilot, "u")  # the note came after: said why not, nothing changed
        await wait_for(pilot, lambda: any("latest change" in n for n in notes(app)), "why not")
        assert any("note: the road goes on" in n and "undo that first on the campaign screen" in n for n in notes(app))
        assert not load(road).fight("ford.toml").open
        fights.walk(road, "undo", BY)  # the note taken back (the campaign's own undo)
        await press(pilot, "u")
        await wait_for(pilot, lambda: not live.encounter.ended, "the fight reopened")
        assert any("undo: the fight ford.toml ends" in n for n in notes(app))
        assert load(road).fight("ford.toml").open
        assert load(road).pcs["pc1"].resources["vp"] == 43  # the party as before the end
        await press(pilot, "r")  # its end brought back: through the campaign too
        await wait_for(pilot, lambda: bool(live.encounter.ended), "ended again by redo")
        assert not load(road).fight("ford.toml").open and load(road).pcs["pc1"].resources["vp"] == 31
        await press(pilot, "colon")
        await type_text(pilot, "undo\r")  # the `:` line's undo is the campaign's too
        await wait_for(pilot, lambda: not live.encounter.ended, "reopened again")
        assert load(road).fight("ford.toml").open
        await press(pilot, "d")  # open again: changes are taken
        await type_text(pilot, "2")
        await press(pilot, "ctrl+s")
        assert live.encounter.combatants["Seraph"].resources["vp"] == 29
        await press(pilot, "colon")
        await type_text(pilot, "end\r")
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen) and app.screen.preview is not None, "the end's preview")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: bool(live.encounter.ended), "ended again")
    assert load(road).pcs["pc1"].resources["vp"] == 29
    assert EncounterFile(ford).load().encounter.ended == "The Long Road"


async def test_a_fight_of_its_own_has_nothing_to_end(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Goblin"], name="brawl")
    before = path.read_bytes()
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "E")
        assert isinstance(app.screen, EncounterScreen)
        assert any("a fight of its own, not of a campaign" in n for n in notes(app))
        await press(pilot, "colon")
        await type_text(pilot, "end\r")
        assert isinstance(app.screen, FormScreen)  # refused in the `:` form, as any line
        assert "a fight of its own" in str(app.screen.query_one("#form-error").render())
        await press(pilot, "escape")
    assert path.read_bytes() == before
