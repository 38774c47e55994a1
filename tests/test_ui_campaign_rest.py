"""A rest from the campaign screen (80x24): Brand X's Healing Roll with typed dice, each
roll asked for in turn with its exact chance; and amounts the GM states in a game
without a rule (OGS). The campaign file is loaded again and checked.

Seed 004, "Healing Roll": "The roll is vs. Constitution (Sphere Chart). The character's
current Body DP is added to the Bonus Pool." "Physical Healing Roll Q is automatically
applied to healing DP, strength, agility, constitution, and EP, in that order. The
Healing Roll is made each hour (for Bludgeoning DP ...)". The Action Roll (docs/contributing/design.md#rules-decisions):
two d10, each 1 rolled once more and subtracted; success at or under the target, Q =
target - total.

Seraph: constitution 10, DP 15, down to 7 after the fight. The Sphere chart's entries
are 1-8 for rows 1-8, 10 for row 9 (tables.toml, from the seed's chart): Sphere(10) = 9,
Sphere(7) = 7, Sphere(9) = 8.
- hour 1: target 9 + 7 = 16; typed 9, 5 = 14: Q 2, DP 7 -> 9;
- hour 2: target 9 + Sphere(9) 8 = 17; typed 1, 6, the 1 rolled again: 4, subtracted:
  1 + 6 - 4 = 3, Q 14: DP 9 -> 15 (6 of it; nothing else to heal);
- then nothing is below the sheet: no more rolls.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import Input

from tracker.play import fights
from tracker.ui.app import TrackerApp
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.rest import RestDiceScreen, RestedScreen

from tests.campaign_ui import BY, load, make_campaign, make_fight, open_campaign, ready, rows, screen
from tests.test_ui_app import SIZE, type_into
from tests.ui import press, type_text, wait_for

pytestmark = pytest.mark.ui


def at_most(target: int) -> Fraction:
    """The Action Roll's chance of a total at or under `target`, counted die by die."""
    chance = Fraction(0)
    for a in range(1, 11):
        for b in range(1, 11):
            again_a = range(1, 11) if a == 1 else [0]
            again_b = range(1, 11) if b == 1 else [0]
            for r1 in again_a:
                for r2 in again_b:
                    if a + b - r1 - r2 <= target:
                        chance += Fraction(1, 100 * len(again_a) * len(again_b))
    return chance


def dice(app: TrackerApp) -> RestDiceScreen:
    assert isinstance(app.screen, RestDiceScreen), app.screen
    return app.screen


def chance_line(chance: Fraction) -> str:
    return f"chance of success: {float(chance):.2%} ({chance.numerator}/{chance.denominator})"


async def test_a_brand_x_rest_asks_each_healing_roll_in_turn_with_its_exact_chance(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp"])
    fights.end(ford, BY)
    assert load(road).pcs["pc1"].resources["dp"] == 7
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await open_campaign(pilot, app, road)
        await press(pilot, "z")
        assert isinstance(app.screen, FormScreen)
        await type_into(pilot, "#f-hours", "2")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the first roll asked for")
        first = dice(app)
        assert first.need.label == "Seraph: heal (period=hour), hour 1"  # type: ignore[attr-defined]
        assert first.need.group.text() == "Seraph's Healing Roll: 2d10"
        assert first.chance_shown == chance_line(at_most(16))
        await type_text(pilot, "9,5\r")
        await wait_for(pilot, lambda: "hour 2" in str(getattr(dice(app).need, "label", "")), "the second hour's roll")
        assert dice(app).chance_shown == chance_line(at_most(17))
        await type_text(pilot, "1,6\r")  # a 1: its reroll is asked for next
        await wait_for(pilot, lambda: "reroll" in dice(app).need.group.label, "the reroll of the 1")
        assert dice(app).need.group.text() == "Seraph's Healing Roll: reroll of a 1 (subtracted): 1d10"
        await type_text(pilot, "11\r")  # no d10 shows 11: refused, asked again
        assert "reroll" in dice(app).need.group.label and dice(app).query_one("#rest-error").display
        await type_text(pilot, "\x154\r")  # the refused faces cleared (ctrl+u), then the right one
        await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen), "the rest's result")
        said = "\n".join(app.screen.lines)  # type: ignore[attr-defined]
        assert "Seraph: heal (period=hour), hour 1" in said and "Q 2: dp +2" in said
        assert "Q 14: dp +6" in said
        assert "Seraph: dp 7 -> 15" in said
        await press(pilot, "enter")
        await wait_for(pilot, lambda: ready(app) and any(r.startswith("Seraph: vp 43/43, dp 15/15") for r in rows(screen(app))), "the party rested")
    camp = load(road)
    assert camp.pcs["pc1"].resources == {"vp": 43, "dp": 15, "ep": 74}
    rest = camp.rests[-1]
    assert rest.args["hours"] == 2
    assert [r["dice"] for r in rest.args["rolls"]] == [[9, 5], [1, 6, 4]]
    assert [Fraction(r["chance"]) for r in rest.args["rolls"]] == [at_most(16), at_most(17)]


async def test_esc_in_the_dice_records_nothing_and_enter_on_an_empty_line_rolls(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp"])
    fights.end(ford, BY)
    before = road.read_bytes()
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await open_campaign(pilot, app, road)
        await press(pilot, "z")
        await type_into(pilot, "#f-hours", "3")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the first roll asked for")
        await type_text(pilot, "9,9\r9,9\r")  # in one burst: 18 over 16, twice missed, DP still down
        await wait_for(pilot, lambda: "hour 3" in str(getattr(dice(app).need, "label", "")), "the third roll")
        assert dice(app).faces == [9, 9, 9, 9]
        await press(pilot, "ctrl+b")  # the last group taken back: hour 2 again
        assert "hour 2" in str(getattr(dice(app).need, "label", "")) and dice(app).faces == [9, 9]
        await press(pilot, "escape")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen, nothing recorded")
        assert road.read_bytes() == before
        await press(pilot, "z")
        await type_into(pilot, "#f-hours", "1")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the roll asked for")
        app.screen.query_one(Input).focus()
        for _ in range(4):  # empty: the app rolls it (and each 1's reroll, asked for next)
            await press(pilot, "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen) or not dice(app).working, "the roll taken")
            if isinstance(app.screen, RestedScreen):
                break
        assert isinstance(app.screen, RestedScreen)
    rest = load(road).rests[-1]
    assert rest.args["hours"] == 1 and len(rest.args["rolls"]) == 1
    faces = rest.args["rolls"][0]["dice"]
    # The two dice, then a reroll for each 1 among them, never chained (rulesets/brandx/rolls.py).
    assert len(faces) == 2 + faces[:2].count(1) and all(1 <= f <= 10 for f in faces)


async def test_a_rest_with_the_amounts_the_gm_states_in_a_game_without_a_rule(saves: Path) -> None:
    road = make_campaign(saves, "ogs", "Under the Hill", {"Ayla": {"hp": "20"}, "Brom the Bold": {"hp": "24"}, "Cato": {"hp": "18"}})
    cave = make_fight(road, "cave", "The Cave", ["damage Ayla 12", "damage 'Brom the Bold' 10", "damage Cato 5"])
    fights.end(cave, BY)
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await open_campaign(pilot, app, road)
        await press(pilot, "z")
        assert isinstance(app.screen, FormScreen)
        await type_into(pilot, "#f-hours", "8")
        await type_into(pilot, "#f-pc0", "hp=5")
        await type_into(pilot, "#f-pc1", "full")
        await type_into(pilot, "#f-pc2", "hp=99")  # up to the maximum
        await type_into(pilot, "#f-note", "a night at the inn")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen), "the rest's result (no dice in OGS)")
        said = "\n".join(app.screen.lines)  # type: ignore[attr-defined]
        assert "Under the Hill: the party rests 8 hours (stated by the GM)" in said
        assert "Ayla: hp 8 -> 13" in said and "Brom the Bold: hp 14 -> 24" in said and "Cato: hp 13 -> 18" in said
        await press(pilot, "escape")
        await wait_for(pilot, lambda: ready(app), "back on the campaign screen")
    camp = load(road)
    assert [pc.resources["hp"] for pc in camp.party()] == [13, 24, 18]
    assert camp.rests[-1].args["note"] == "a night at the inn"
