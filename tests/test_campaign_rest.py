"""A rest between fights: Brand X's Healing Roll (seed 004), and amounts the GM states in
games whose rules give none.

Seed 004, "Healing Roll": "The Healing Roll is an automatic roll ... The roll is vs.
Constitution (Sphere Chart). The character's current Body DP is added to the Bonus
Pool." "Physical Healing Roll Q is automatically applied to healing DP, strength,
agility, constitution, and EP, in that order. The Healing Roll is made each hour (for
Bludgeoning DP, for abilities that heal per hour, and EP that heals per hour of sleep)."
"VP and EP (things that heal per round) ... Take the Healing Roll and add the Bonus Pool
(Sphere Chart, of course). Half this (round up) for the VP that is restored each round.
The same amount of EP (round down) are restored each round."

The numbers, worked from the Sphere chart (largest entry at most the number, read across
to the Result): Sphere(10) = 9, so Constitution 10 gives 9 and a Body DP of 10 in the
pool gives +9: the Healing Roll is 18. 2d10 at or under 18 fails only on 19 (9+10, 10+9)
and 20 (10+10): 97/100 (a 1 is rolled again and subtracted: never a total over 18).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_campaign import campaign, ended, play, refused, run


@pytest.fixture
def heroes(tmp_path: Path) -> Path:
    saves = tmp_path / "saves"
    saves.mkdir()
    run(saves, "campaign", "new", "heroes", "--ruleset", "brandx")
    run(saves, "campaign", "add", "heroes", "Seraph", "constitution=10", "strength=11", "agility=22", "vp=43", "dp=15", "ep=74")
    run(saves, "new", "bank", "--campaign", "heroes")
    return saves


def test_an_hour_of_rest_heals_vp_each_round_and_dp_by_the_healing_rolls_q(heroes: Path) -> None:
    play(heroes, "bank", "damage Seraph 26", "damage Seraph 5 resource=dp")
    ended(heroes, "bank")
    pc = campaign(heroes, "heroes").pc("Seraph")
    assert (pc.resources["vp"], pc.resources["dp"]) == (17, 10)
    out = run(heroes, "campaign", "rest", "heroes", "hours=1", "--faces", "5,4")
    # VP: (9 + 9) / 2 = 9 a round, 300 rounds of 12 s in an hour: back to 43.
    # The roll: 5 + 4 = 9 against 18, Q 9: DP 10 -> 15 takes 5, nothing else is lost.
    assert "Seraph: heal (period=hour), hour 1 (97.00%)" in out
    assert "Sphere(constitution 10) 9 + pool 10 (+9) = 18; rolled 5+4 = 9: Q 9: dp +5" in out
    pc = campaign(heroes, "heroes").pc("Seraph")
    assert (pc.resources["vp"], pc.resources["dp"], pc.resources["ep"]) == (43, 15, 74)
    roll = campaign(heroes, "heroes").rests[-1].args["rolls"][0]
    assert (roll["dice"], roll["chance"]) == ([5, 4], "97/100")


def test_a_missed_healing_roll_heals_no_dp_and_each_hour_rolls_again(heroes: Path) -> None:
    play(heroes, "bank", "damage Seraph 5 resource=dp")
    ended(heroes, "bank")
    # Hour 1: 10 + 10 = 20 over 18, missed by 2: nothing. Hour 2: 9 + 8 = 17, Q 1: DP +1.
    out = run(heroes, "campaign", "rest", "heroes", "hours=2", "--faces", "10,10,9,8")
    assert "missed by 2: no healing" in out and "Q 1: dp +1" in out
    assert campaign(heroes, "heroes").pc("Seraph").resources["dp"] == 11


def test_rolls_are_made_only_while_there_is_something_to_heal(heroes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ended(heroes, "bank")
    out = run(heroes, "campaign", "rest", "heroes", "hours=3")
    assert "heal (period=hour)" not in out and "Seraph: nothing to recover" in out
    said = refused(heroes, capsys, "campaign", "rest", "heroes", "hours=3", "--faces", "5,4")
    assert "--faces: 2 typed but the roll used 0; unused: 5, 4" in said
    assert len(campaign(heroes, "heroes").rests) == 1  # the refused rest left nothing


def test_dice_the_rest_needs_beyond_those_typed_are_named(heroes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(heroes, "bank", "damage Seraph 5 resource=dp")
    ended(heroes, "bank")
    said = refused(heroes, capsys, "campaign", "rest", "heroes", "hours=2", "--faces", "10,10")
    assert "--faces: the roll needs more dice than the 2 typed" in said
    assert campaign(heroes, "heroes").rests == []


def test_a_seeded_rest_rolls_the_same_dice_again(tmp_path: Path) -> None:
    outs = []
    for n in range(2):
        saves = tmp_path / f"s{n}"
        saves.mkdir()
        run(saves, "campaign", "new", "heroes", "--ruleset", "brandx")
        run(saves, "campaign", "add", "heroes", "Seraph", "constitution=10", "vp=43", "dp=15", "ep=74")
        run(saves, "new", "bank", "--campaign", "heroes")
        play(saves, "bank", "damage Seraph 6 resource=dp")
        ended(saves, "bank")
        outs.append(run(saves, "campaign", "rest", "heroes", "hours=4", "--seed", "11"))
    assert outs[0] == outs[1] and outs[0].count("hour ") >= 1


def test_the_rest_runs_conditions_down_where_a_segment_has_a_length(heroes: Path) -> None:
    play(heroes, "bank", "condition Seraph dazed 100")
    ended(heroes, "bank")
    assert campaign(heroes, "heroes").pc("Seraph").conditions == {"dazed": 100}
    run(heroes, "campaign", "rest", "heroes", "hours=0.25")  # 0.25 h = 3,750 segments of 0.24 s
    assert campaign(heroes, "heroes").pc("Seraph").conditions == {}


@pytest.mark.parametrize(("ruleset", "sheet", "hurt", "words", "after"), [
    ("d6", ("physique=3D", "body_points=20"), "damage Hero 7 resource=body_points", ("Hero.body_points=5",), {"body_points": 18}),
    ("ogs", ("hp=12",), "damage Hero 9", ("Hero.hp=4",), {"hp": 7}),
    ("ore", ("body=2",), "damage Hero 3 resource=torso", ("Hero.full=true",), None),
    ("usor", ("vitality=3",), "damage Hero 2 resource=stun", ("full=true",), None),
])
def test_games_without_a_rule_rest_by_the_gms_amounts(tmp_path: Path, ruleset: str, sheet: tuple[str, ...], hurt: str, words: tuple[str, ...], after: dict[str, int] | None) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    run(saves, "campaign", "new", "c", "--ruleset", ruleset)
    run(saves, "campaign", "add", "c", "Hero", *sheet)
    run(saves, "new", "f", "--campaign", "c")
    play(saves, "f", hurt)
    ended(saves, "f")
    hurt_state = dict(campaign(saves, "c").pc("Hero").resources)
    out = run(saves, "campaign", "rest", "c", "hours=8", *words)
    assert "(stated by the GM)" in out
    pc = campaign(saves, "c").pc("Hero")
    if after is None:
        assert pc.resources == pc.maxima and pc.resources != hurt_state  # everything back
    else:
        assert {k: pc.resources[k] for k in after} == after


def test_a_character_down_at_the_end_of_a_fight_heals_at_rest(heroes: Path) -> None:
    play(heroes, "bank", "damage Seraph 15 resource=dp")
    ended(heroes, "bank")
    assert campaign(heroes, "heroes").pc("Seraph").resources["dp"] == 0
    # Healing Roll: Sphere(10) 9, an empty pool (DP 0) adds nothing: 9; 2 + 3 = 5, Q 4: DP 0 -> 4.
    out = run(heroes, "campaign", "rest", "heroes", "hours=1", "--faces", "2,3")
    assert "Sphere(constitution 10) 9 = 9; rolled 2+3 = 5: Q 4: dp +4" in out
    assert campaign(heroes, "heroes").pc("Seraph").resources["dp"] == 4


def test_a_resource_the_fight_gave_that_the_sheet_lacks_goes_on_into_the_next_fight(heroes: Path) -> None:
    play(heroes, "bank", "set Seraph pushback 3")
    ended(heroes, "bank")
    pc = campaign(heroes, "heroes").pc("Seraph")
    assert (pc.resources.get("pushback"), pc.maxima.get("pushback")) == (3, 0)
    run(heroes, "campaign", "rest", "heroes", "hours=1")
    run(heroes, "new", "bank-2", "--campaign", "heroes")
    from tests.test_campaign import fight

    assert fight(heroes, "bank-2").combatant("Seraph").resources["pushback"] == 3
