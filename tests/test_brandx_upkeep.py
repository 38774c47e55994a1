"""Brand X: ending a per-round cost (an upkeep) the way the rules imply.

Seed: "Power Example: Sun-Ruler has a PR of 12 in Fire Coat. [...] On segment 1 he
starts firing up to increase his Skin Temper. That's a passive action, so it only has a
Performance Time of 10. [...] He uses 8 PR for that (increasing Skin Temper by 4 rows),
using 1 EP per round." The seed ends movement's cost when the character "stops moving"
and says nothing of how a power or a held breath ends: the character lets go
(`power label=NAME stop=true`, `hold-breath stop=true`; rulesets/brandx/actions.py,
Stopping). Payment segments are every 50 (docs/contributing/design.md#rules-decisions).

EP by hand for Fire Coat: 12 PR, 8 to the effect, 4 to EP: row 9 - 4 = 5, 1 EP as it
starts and 1 EP a round (EP row r >= 5 costs r - 4).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulesets.brandx import BrandXRuleset
from tracker.engine import TrackerError
from tracker.play.session import Session
from tests.helpers import cli, session_for

COAT = 'declare Sun-Ruler power mode=passive pr=12 pr_effect=8 label="fire coat"'
DROP = 'declare Sun-Ruler power label="fire coat" stop=true'


def sun_ruler() -> Session:
    """Fire Coat up on segment 1: 40 EP less 1 as it starts."""
    s = session_for(BrandXRuleset(), "add Sun-Ruler agility=12 learning=10 ep=40 vp=30", "add Seraph agility=22 vp=43")
    s.execute("step 1")
    s.execute(COAT)
    return s


def ep(s: Session, name: str = "Sun-Ruler") -> float:
    return s.encounter.combatant(name).resources["ep"]


def texts(s: Session) -> list[str]:
    return [e.text for e in s.encounter.log]


def test_fire_coat_dropped_on_segment_60_is_not_charged_on_segment_100() -> None:
    """By hand, kept up: 39 after segment 1, 38 after payment segment 50, 37 after 100.
    Dropped on segment 60: 38 after 50, still 38 after 100 and 150 (the drop itself
    costs nothing). The log says what stopped and from which segment."""
    kept = sun_ruler()
    assert ep(kept) == 39
    kept.execute("step 99")
    assert kept.encounter.now == 100 and ep(kept) == 37

    s = sun_ruler()
    s.execute("step 59")
    assert s.encounter.now == 60 and ep(s) == 38
    s.execute(DROP)
    drop = s.encounter.actions[-1]
    assert (drop.template, drop.mode, drop.pt) == ("power", "passive", 1)
    assert drop.resolution.dice == () and ep(s) == 38
    assert s.encounter.combatant("Sun-Ruler").upkeep == {}
    assert drop.resolution.summary == (
        "Sun-Ruler drops fire coat: no more 1 EP a round from segment 60 (payment segment 100 charges nothing for it)")
    assert "Sun-Ruler no longer pays for fire coat" in texts(s)
    s.execute("step 90")
    assert s.encounter.now == 150 and ep(s) == 38
    assert not any(t.startswith("payment segment 100:") for t in texts(s))


def test_undo_takes_the_drop_back_and_the_charge_with_it() -> None:
    """Undone on segment 60, Fire Coat costs 1 EP on segment 100 again: 38 -> 37."""
    s = sun_ruler()
    s.execute("step 59")
    s.execute(DROP)
    s.undo()
    assert s.encounter.combatant("Sun-Ruler").upkeep == {"fire coat": ("ep", 1)}
    s.execute("step 40")
    assert ep(s) == 37 and "payment segment 100: Sun-Ruler pays 1 ep for fire coat" in texts(s)


def test_dropping_a_power_is_passive_so_it_may_be_done_during_a_blast() -> None:
    """Seed: "A character can use a power for as many passive actions as desired (as well
    as one active action)." A blast begun on segment 55 (PT 20: 75) is in progress when
    the coat is dropped on 60; letting go is passive, so it is allowed and, as every
    passive initiation, pushes the blast back one segment (docs/contributing/design.md#initiation-rules, rule 3): 76. EP by
    hand: 38 after segment 50, the blast's row 9 costs 5: 33, and nothing on 100."""
    s = sun_ruler()
    s.execute("step 54")
    s.execute("declare Sun-Ruler blast target=Seraph pr=12 damage=10 faces=8,9,10,10")
    blast = s.encounter.actions[-1]
    assert blast.completes == 75 and ep(s) == 33
    s.execute("step 5")
    s.execute(DROP)
    assert s.encounter.actions[-1].mode == "passive" and blast.completes == 76
    s.execute("step 40")
    assert s.encounter.now == 100 and ep(s) == 33


def test_stopping_what_is_not_paid_for_is_refused_and_changes_nothing() -> None:
    s = sun_ruler()
    s.execute("step 9")
    before = len(s.encounter.events)
    with pytest.raises(TrackerError, match=r"^stop=true: Sun-Ruler pays nothing a round for ice \(it pays a round for fire coat\)$"):
        s.execute("declare Sun-Ruler power label=ice stop=true")
    with pytest.raises(TrackerError, match=r"^stop=true: Sun-Ruler pays nothing a round for holding breath \(it pays"):
        s.execute("declare Sun-Ruler hold-breath stop=true")
    assert len(s.encounter.events) == before and s.encounter.combatant("Sun-Ruler").upkeep == {"fire coat": ("ep", 1)}
    assert ep(s) == 39


def test_a_use_with_upkeep_false_says_the_earlier_charge_still_runs() -> None:
    """Seed: "Each action uses EP separately." A second use of Fire Coat on segment 20
    with upkeep=false pays its own 1 EP (39 -> 38) and no charge a round; the first
    use's 1 EP a round runs on (37 after segment 50), and the summary says how to end it."""
    s = sun_ruler()
    s.execute("step 19")
    s.execute(COAT + " upkeep=false")
    assert ep(s) == 38
    assert "the earlier fire coat still costs 1 EP a round (to end it: power label='fire coat' stop=true)" in (
        s.encounter.actions[-1].resolution.summary)
    s.execute("step 30")
    assert ep(s) == 37


# ---------------------------------------------------------------- holding breath
DIVER = "add Diver constitution=4 strength=0 dp=6 ep=40"
# Seed: "This is vs. Constitution plus half Strength, with a bonus equal to current Body
# DP." 4 + 0 = 4, DP 6 as a pool is Sphere row 6: 10. Faces 5+6 = 11: Q -1. Seed: "At Q of
# -1, the EP cost is 6 per round (Row 10)." and "For every 5 points of EP lost in one
# round, 1 point of DP (bludgeoning) is lost, to the head": 1 DP a round.
HOLD = "declare Diver hold-breath faces=5,6"


def test_holding_breath_stopped_on_segment_60_costs_nothing_on_segment_100() -> None:
    """By hand, held on: segment 50 charges the first round, 6 EP and 1 DP (40 -> 34, 6
    -> 5); segment 100 charges the second, held 1 round by its last segment: the
    penalty Sphere(1) = 1 makes Q -2, row 11, 7 EP and still 1 DP (34 -> 27, 5 -> 4).
    Stopped on segment 60: 34 and 5 after segment 50, the same after 100."""
    held = session_for(BrandXRuleset(), DIVER, HOLD)
    assert held.encounter.actions[-1].resolution.margin == -1
    held.execute("step 100")
    assert (ep(held, "Diver"), held.encounter.combatant("Diver").resources["dp"]) == (27, 4)

    s = session_for(BrandXRuleset(), DIVER, HOLD, "step 60", "declare Diver hold-breath stop=true")
    stop = s.encounter.actions[-1]
    assert stop.mode == "passive" and stop.pt == 1 and stop.resolution.dice == ()
    assert stop.resolution.summary == (
        "Diver stops holding breath: no more 6 EP and 1 DP a round from segment 60 (payment segment 100 charges nothing for it)")
    assert s.encounter.combatant("Diver").upkeep == {}
    s.execute("step 40")
    assert (ep(s, "Diver"), s.encounter.combatant("Diver").resources["dp"]) == (34, 5)
    with pytest.raises(TrackerError, match="again=true: Diver has no Hold Breath attempt to continue"):
        s.execute("declare Diver hold-breath again=true")


def test_a_new_attempt_with_no_head_cost_ends_the_earlier_one() -> None:
    """The attempt above costs 1 DP a round to the head; a new attempt on segment 60 (DP
    5 now: pool +5, 9; faces 2+3 = 5, Q 4, row 5) costs 1 EP a round and no DP. By hand:
    EP 34 and DP 5 after segment 50; on 100 only the EP: 33, DP still 5."""
    s = session_for(BrandXRuleset(), DIVER, HOLD, "step 60", "declare Diver hold-breath faces=2,3")
    assert s.encounter.actions[-1].resolution.details["ep_per_round"] == 1
    assert s.encounter.combatant("Diver").upkeep == {"holding breath": ("ep", 1)}
    s.execute("step 40")
    assert (ep(s, "Diver"), s.encounter.combatant("Diver").resources["dp"]) == (33, 5)


def test_a_move_stop_says_what_stopped_and_from_which_segment() -> None:
    """Seed: "This extra EP cost will last until the player makes a successful move roll
    or stops moving." Move Roll 20, faces 2+2: Q 16, all to speed; row 9: 5 EP now and 5
    a round (50 -> 45). On segment 6, stopping: pool -16 (Sphere -10), 10; faces 5+5:
    Q 0, row 9: the roll's 5 EP (40), and nothing on segment 50."""
    s = session_for(BrandXRuleset(), "add Runner agility=10 strength=10 ep=50")
    s.execute("declare Runner move roll=20 faces=2,2 q_speed=16")
    assert ep(s, "Runner") == 45
    s.execute("next")
    s.execute("declare Runner move roll=20 stop=true faces=5,5")
    assert "stops: movement stops costing 5 EP a round from segment 6" in s.encounter.actions[-1].resolution.summary
    s.execute("step 44")
    assert s.encounter.now == 50 and ep(s, "Runner") == 40


# ---------------------------------------------------------------- the ways in
def test_the_declare_form_drops_a_power() -> None:
    """The form offers stop beside the power's label; no roll, so the chance line says so
    (not a refusal, though a blast is in progress: letting go is passive), and the
    commit ends the charge."""
    from rulesets.fields import MAIN
    from tracker.play.declaring import DeclareFlow
    from tracker.play.form import Shown
    from tracker.reading.roles import Role

    s = sun_ruler()
    s.execute("step 54")
    s.execute("declare Sun-Ruler blast target=Seraph pr=12 damage=10 faces=8,9,10,10")
    s.execute("step 5")
    flow = DeclareFlow(s, Role.gm(), None)
    flow.set("d", "actor", "Sun-Ruler")
    flow.set("d", "template", "power")
    assert flow.template is not None and "stop" in [f.name for f in flow.template.params if f.stage == MAIN]
    flow.set("p", "label", "fire coat")
    flow.set("p", "stop", "true")
    assert flow.chance_now() == "chance of success: no roll"
    steps = []
    for _ in range(5):  # a stop rolls nothing: choose, result, commit in a few steps
        steps.append(flow.go())
        if steps[-1] == Shown.COMMITTED:
            break
    assert steps[-1] == Shown.COMMITTED, steps
    assert s.encounter.combatant("Sun-Ruler").upkeep == {}
    assert s.encounter.actions[-1].mode == "passive"


def test_tracker_play_drops_a_power(saves: Path) -> None:
    script = ("add Sun-Ruler agility=12 learning=10 ep=40\nstep 1\n" + COAT + "\nstep 59\n" + DROP + "\nstep 40\n")
    assert cli("new", "sun", "--ruleset", "brandx")[0] == 0
    code, out = cli("play", "sun", stdin=script)
    assert code == 0, out
    assert "Sun-Ruler drops fire coat: no more 1 EP a round from segment 60" in out
    data = json.loads(cli("show", "sun", "--json")[1])
    assert data["combatants"][0]["resources"]["ep"] == 38


@pytest.mark.ui
async def test_the_command_line_drops_a_power(saves: Path) -> None:
    """The app's `:` line takes the same words; the charge ends in the file too."""
    from tracker.persistence.store import EncounterFile
    from tracker.ui.app import TrackerApp
    from tests.ui import press, settle, type_text, wait_for

    path = saves / "sun.toml"
    store, loaded = EncounterFile.create(path, "sun", "brandx")
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in ("add Sun-Ruler agility=12 learning=10 ep=40", "step 1", COAT, "step 59"):
        session.execute(line)
    app = TrackerApp(saves, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        await type_text(pilot, DROP)
        await press(pilot, "enter")
        await wait_for(pilot, lambda: EncounterFile(path).load().encounter.combatant("Sun-Ruler").upkeep == {},
                       "the drop written to the file")
    assert "Sun-Ruler no longer pays for fire coat" in [e.text for e in EncounterFile(path).load().encounter.log]


# Seed: "This is vs. Constitution plus half Strength, with a bonus equal to current Body
# DP." 6 + 2/2 = 7, DP 20 as a pool is Sphere row 11 (the largest entry <= 20 is 18):
# 18. Faces 7+7 = 14: Q 4, row 9 - 4 = 5: 1 EP a round, no DP.
SWIMMER = "add Swimmer constitution=6 strength=2 dp=20 ep=100"
DIVE = "declare Swimmer hold-breath faces=7,7"


def test_the_cost_of_holding_breath_builds_as_the_rounds_pass() -> None:
    """Seed: "There is a penalty to the Quality equal to the elapsed time, in rounds, on
    the Sphere Chart. The Quality reduces EP cost. The roll is only made once for any
    specific attempt, and the elapsed time penalty builds as time passes, thus
    increasing the EP cost." And "For every 5 points of EP lost in one round, 1 point of
    DP (bludgeoning) is lost, to the head."

    Held 12 rounds from segment 0 with no new declaration, by hand: the payment on
    segment 50 x k charges round k, at the penalty of the k - 1 rounds held by its last
    segment. Sphere of 0-8 rounds is 0-8, of 9 still 8, of 10 and 11 is 9. So Q 4 less
    0, 1, ..., 8, 8, 9, 9 is rows 5, 6, ..., 13, 13, 14, 14: EP 1, 2, 3, 4, 5, 6, 7, 8,
    9, 9, 10, 10 = 74 (100 -> 26), and 1 DP a round from 5 EP, 2 from 10: 0 x 4 + 1 x 6
    + 2 x 2 = 10 DP (20 -> 10). Round by round or in one step, the same."""
    s = session_for(BrandXRuleset(), SWIMMER, DIVE)
    res = s.encounter.actions[-1].resolution
    assert (res.details["roll"], res.margin, res.details["ep_per_round"]) == (18, 4, 1)
    s.execute("step 600")
    swimmer = s.encounter.combatant("Swimmer")
    assert (swimmer.resources["ep"], swimmer.resources["dp"]) == (26, 10)
    assert swimmer.upkeep == {"holding breath": ("ep", 10), "holding breath: head": ("dp", 2)}
    lines = texts(s)
    assert "payment segment 100: Swimmer pays 2 ep for holding breath" in lines
    assert "payment segment 600: Swimmer pays 10 ep for holding breath" in lines
    assert "Swimmer's holding breath now costs 2 ep a round (3 ep a round from segment 150)" in lines

    by_round = session_for(BrandXRuleset(), SWIMMER, DIVE)
    paid = []
    for _ in range(12):
        before = ep(by_round, "Swimmer")
        by_round.execute("step 50")
        paid.append(before - ep(by_round, "Swimmer"))
    assert paid == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 10]
    assert by_round.encounter.combatant("Swimmer").resources == swimmer.resources


def test_a_rising_cost_survives_save_rename_and_undo(saves: Path) -> None:
    """The rises are kept with the declaration in the file: read again, renamed half way,
    the swimmer pays as above (74 EP over 12 rounds). Undoing the declaration takes the
    whole cost away: 12 rounds then cost nothing. A stop on segment 120 ends it: 1 + 2
    = 3 EP paid (97), nothing after."""
    from tracker.persistence.store import EncounterFile

    path = saves / "dive.toml"
    store, loaded = EncounterFile.create(path, "dive", "brandx")
    s = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in (SWIMMER, DIVE, "step 300", "rename Swimmer Diver"):
        s.execute(line)
    again = EncounterFile(path).load()
    reread = Session(again.encounter, again.ruleset)
    reread.execute("step 300")
    assert reread.encounter.combatant("Diver").resources["ep"] == 26

    s = session_for(BrandXRuleset(), SWIMMER, DIVE)
    s.undo()
    s.execute("step 600")
    assert ep(s, "Swimmer") == 100 and s.encounter.combatant("Swimmer").upkeep == {}

    s = session_for(BrandXRuleset(), SWIMMER, DIVE, "step 120", "declare Swimmer hold-breath stop=true")
    s.execute("step 480")
    assert ep(s, "Swimmer") == 97 and s.encounter.combatant("Swimmer").upkeep == {}


def test_a_held_breath_not_charged_yet_may_still_be_let_go() -> None:
    """Q 23 (14 + 12/2 = 20, DP 10 as a pool is Sphere row 9: 29; dice 3+3 = 6) is row
    9 - 23 = -14: nothing a round for now, rising once the penalty has eaten 9 Q and more
    (the breath is free while Q less Sphere(rounds) is 9 or more). Breathing again ends
    it like a paid one: nothing is left to rise."""
    s = session_for(BrandXRuleset(), "add Calm constitution=14 strength=12 ep=100 dp=10",
                    "declare Calm hold-breath faces=3,3")
    calm = s.encounter.combatant("Calm")
    assert s.encounter.actions[-1].resolution.details["ep_per_round"] == 0
    assert calm.upkeep == {} and set(calm.rising) == {"holding breath", "holding breath: head"}
    s.execute("step 10")
    s.execute("declare Calm hold-breath stop=true")
    assert s.encounter.actions[-1].resolution.summary.startswith(
        "Calm stops holding breath: no more EP (nothing yet, rising with time) and DP (nothing yet, rising with time) a round")
    calm = s.encounter.combatant("Calm")
    assert calm.rising == {} and calm.upkeep == {}
    s.execute("step 100000")
    assert calm.resources["ep"] == 100
