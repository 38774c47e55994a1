"""Damage, heals and conditions on several combatants at once (`damage Goblin* 5`,
`damage "Goblin 1,Goblin 2" 5`): each through its ruleset's damage rule, one change."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import Session
from tracker.reading.wording import describe
from tests.helpers import session_for


def res(s: Session, name: str) -> dict:
    return dict(s.encounter.combatant(name).resources)


# (ruleset, sheets for Goblin 1 / Goblin 2 / Ann, line, expected resources after)
CASES = [
    # Brand X: VP first, what VP cannot take goes through to DP. Goblin 1 has 2 VP:
    # 5 damage leaves VP 0 and 3 goes through, DP 15 -> 12; Goblin 2 VP 30 -> 25.
    ("brandx", ("vp=2", "", ""), "damage Goblin* 5", {"Goblin 1": {"vp": 0, "dp": 12}, "Goblin 2": {"vp": 25, "dp": 15}, "Ann": {"vp": 30, "dp": 15}}),
    # D6: wound levels first (down_when wounds): 4 -> 3 each.
    ("d6", ("", "", ""), "damage Goblin* 1", {"Goblin 1": {"wounds": 3}, "Goblin 2": {"wounds": 3}, "Ann": {"wounds": 4}}),
    # OGS: hp 20 -> 14, and 12 -> 6 for the one with hp=12.
    ("ogs", ("", "hp=12", ""), '"Goblin 1,Goblin 2" 6', {"Goblin 1": {"hp": 14}, "Goblin 2": {"hp": 6}, "Ann": {"hp": 20}}),
    # ORE: the named location, torso 10 -> 8 on each.
    ("ore", ("", "", ""), "damage Goblin* 2 resource=torso", {"Goblin 1": {"torso": 8, "head": 4}, "Goblin 2": {"torso": 8, "head": 4}, "Ann": {"torso": 10}}),
    # USOR: Stun first, 20 -> 13.
    ("usor", ("", "", ""), "damage goblin* 7", {"Goblin 1": {"stun": 13}, "Goblin 2": {"stun": 13}, "Ann": {"stun": 20}}),
    # Freeform: hp 10 -> 6, hp 9 -> 5.
    ("freeform", ("hp=10", "hp=9", "hp=10"), "damage Goblin* 4", {"Goblin 1": {"hp": 6}, "Goblin 2": {"hp": 5}, "Ann": {"hp": 10}}),
]


@pytest.mark.parametrize("rid, sheets, line, expected", CASES, ids=[c[0] for c in CASES])
def test_each_through_its_rulesets_damage_rule(rid: str, sheets: tuple[str, str, str], line: str, expected: dict) -> None:
    s = session_for(registry.get(rid), *(f"add {n} {sheet}" for n, sheet in zip(('"Goblin 1"', '"Goblin 2"', "Ann"), sheets)))
    if not line.startswith("damage"):
        line = "damage " + line
    before = len(s.encounter.events)
    s.execute(line)
    assert len(s.encounter.events) == before + 1  # one change
    for name, want in expected.items():
        got = res(s, name)
        assert {k: got[k] for k in want} == want, name


def test_one_undo_takes_back_all_and_says_so() -> None:
    s = session_for(registry.get("freeform"), 'add "Goblin 1" hp=10', 'add "Goblin 2" hp=10', 'add "Goblin 3" hp=10')
    out = s.execute('damage "Goblin 1,Goblin 3" 4')
    assert out.lines == ["Goblin 1 takes 4 hp (hp 10 -> 6)", "Goblin 3 takes 4 hp (hp 10 -> 6)"]
    assert describe(out.event, by=False) == "Goblin 1, Goblin 3 takes 4 hp"
    assert [res(s, f"Goblin {i}")["hp"] for i in (1, 2, 3)] == [6, 10, 6]
    undone = s.execute("undo")
    assert [res(s, f"Goblin {i}")["hp"] for i in (1, 2, 3)] == [10, 10, 10]
    assert "Goblin 1, Goblin 3" in undone.lines[0]
    s.execute("redo")
    assert [res(s, f"Goblin {i}")["hp"] for i in (1, 2, 3)] == [6, 10, 6]


def test_heal_and_condition_on_several() -> None:
    s = session_for(registry.get("freeform"), 'add "Goblin 1" hp=10', 'add "Goblin 2" hp=10', "add Ann hp=10", "damage Goblin* 5")
    s.execute("heal Goblin* 2")
    assert [res(s, n)["hp"] for n in ("Goblin 1", "Goblin 2", "Ann")] == [7, 7, 10]
    s.execute("condition Goblin*,Ann stunned 3")
    assert {n: dict(c.conditions) for n, c in s.encounter.combatants.items()} == {"Goblin 1": {"stunned": 3}, "Goblin 2": {"stunned": 3}, "Ann": {"stunned": 3}}
    s.execute("undo")
    assert all(not c.conditions for c in s.encounter.combatants.values())


def test_one_refused_none_applied_and_named() -> None:
    s = session_for(registry.get("freeform"), 'add "Goblin 1" hp=10', 'add "Goblin 2" hp=10', "damage \"Goblin 1\" 5")
    events, log = len(s.encounter.events), len(s.encounter.log)
    with pytest.raises(TrackerError, match=r"heal Goblin 2 3: hp is 10 of 10"):
        s.execute("heal Goblin* 3")
    assert [res(s, n)["hp"] for n in ("Goblin 1", "Goblin 2")] == [5, 10]
    assert (len(s.encounter.events), len(s.encounter.log)) == (events, log)
    with pytest.raises(TrackerError, match=r"no combatant named 'Nobody'"):
        s.execute('damage "Goblin 1,Nobody" 2')
    with pytest.raises(TrackerError, match=r"'Orc\*' matches no combatant"):
        s.execute("damage Orc* 2")
    assert res(s, "Goblin 1")["hp"] == 5 and len(s.encounter.events) == events


def test_a_glob_never_matches_or_reveals_a_hidden_combatant_to_a_player() -> None:
    gm = session_for(registry.get("freeform"), 'add "Goblin 1" hp=10', 'add "Goblin 2" hp=10 hidden=true', "add Ann hp=10")
    assert [c.name for c in gm.chosen("Goblin*")] == ["Goblin 1", "Goblin 2"]
    player = Session(gm.encounter, gm.ruleset, RandomDice(1), role=Role.player(["Ann"]))
    assert [c.name for c in player.chosen("Goblin*")] == ["Goblin 1"]
    assert [c.name for c in player.chosen("*")] == ["Goblin 1", "Ann"]
    for names in ("Goblin 2", "Goblin 1,Goblin 2"):
        with pytest.raises(TrackerError) as refused:
            player.chosen(names)
        assert "Goblin 2" not in str(refused.value).split("(combatants:")[1]
    with pytest.raises(TrackerError) as refused:
        player.chosen("Goblin 2*")
    assert "Goblin 2" not in str(refused.value).split("(combatants:")[1]


def test_several_at_once_survives_the_file(tmp_path: Path) -> None:
    store = EncounterFile.create(tmp_path / "fight.toml", "fight", "brandx")[0]
    s = Session(store.load().encounter, registry.get("brandx"), RandomDice(1), store)
    s.execute('add "Goblin 1" vp=2')
    s.execute('add "Goblin 2"')
    s.execute("damage Goblin* 5")
    s.execute("condition Goblin* prone 2")
    again = EncounterFile(store.path).load().encounter
    assert {n: (dict(c.resources), dict(c.conditions)) for n, c in again.combatants.items()} == {
        n: (dict(c.resources), dict(c.conditions)) for n, c in s.encounter.combatants.items()
    }
    assert again.combatant("Goblin 1").resources["dp"] == 12 and again.combatant("Goblin 2").resources["vp"] == 25


@pytest.mark.ui
async def test_the_damage_form_takes_a_glob(saves: Path) -> None:
    from tests.test_ui_app import SIZE, encounter_screen, make_file, on_disk, type_into
    from tests.ui import press, settle, wait_for
    from tracker.ui.app import TrackerApp

    path = make_file(saves, "brandx", ['add "Goblin 1" vp=2', 'add "Goblin 2"', "add Ann"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "d")
        await type_into(pilot, "#f-amount", "5")
        await type_into(pilot, "#f-who", "goblin*")
        await press(pilot, "ctrl+s")
        live = encounter_screen(app).live
        await wait_for(pilot, lambda: live.encounter.combatant("Goblin 2").resources["vp"] == 25, "both goblins hurt")
        # Goblin 1: VP 2 -> 0 and 3 through to DP 15 -> 12; Goblin 2 VP 30 -> 25; Ann untouched.
        assert [dict(live.encounter.combatant(n).resources) for n in ("Goblin 1", "Goblin 2", "Ann")][:2] == [
            {"vp": 0, "dp": 12, "ep": 30}, {"vp": 25, "dp": 15, "ep": 30},
        ]
        assert live.encounter.combatant("Ann").resources["vp"] == 30
        assert not app.errors
    assert on_disk(path).combatant("Goblin 1").resources["dp"] == 12


def test_the_command_line_completes_each_name_of_a_list() -> None:
    import asyncio

    from tracker.ui.screens.form import ListSuggester

    names = ["Goblin 1", "Goblin 2", "Ann"]
    line = ListSuggester(["damage ", "damage 'Goblin 1' "], listed=names)
    assert asyncio.run(line.get_suggestion("damage 'Gob")) == "damage 'Goblin 1' "
    assert asyncio.run(line.get_suggestion('damage "Goblin 1,an')) == 'damage "Goblin 1,Ann'
    assert asyncio.run(line.get_suggestion('damage "Goblin 1,Goblin 2" 5')) is None
    who = ListSuggester(names, multiple=True)
    assert asyncio.run(who.get_suggestion("Goblin 1,G")) == "Goblin 1,Goblin 1"


def test_a_name_nobody_bears_is_answered_with_the_names_like_it_not_forty() -> None:
    """In a 40-combatant fight a typo is answered with the names that look like it and how
    many more there are, not a screenful; a small fight still lists everyone."""
    s = session_for(registry.get("freeform"), 'add "🐉Wyrm"', "add Zoë", "add Goblin x38")
    with pytest.raises(TrackerError) as refused:
        s.execute("damage 🐉Wy 1")
    assert str(refused.value) == "no combatant named '🐉Wy' (combatants: 🐉Wyrm, Zoë, Goblin 1, Goblin 2, Goblin 3, Goblin 4, Goblin 5, Goblin 6 and 32 more)"
    with pytest.raises(TrackerError) as refused:
        s.execute("damage goblin 1")  # its likes come first
    assert "(combatants: Goblin 1, Goblin 2," in str(refused.value) and "Goblin 8 and 32 more)" in str(refused.value)
    small = session_for(registry.get("freeform"), "add Ann", "add Bo")
    with pytest.raises(TrackerError, match=r"^no combatant named 'Cy' \(combatants: Ann, Bo\)$"):
        small.execute("damage Cy 1")


def test_a_player_in_a_big_fight_is_given_the_names_they_know_eight_at_most() -> None:
    """The same refusal for a player: the engine's list (which knows the hidden Wraith)
    is replaced by the names the player may know, capped the same way."""
    s = session_for(registry.get("freeform"), "add Ann", "add Wraith hidden=true", "add Goblin x38")
    s.role = Role.player(["Ann"])
    with pytest.raises(TrackerError) as refused:
        s.execute("declare Ann attack target=Wr")
    text = str(refused.value)
    assert "Wraith" not in text
    assert text.endswith("(combatants: Ann, Goblin 1, Goblin 2, Goblin 3, Goblin 4, Goblin 5, Goblin 6, Goblin 7 and 31 more)"), text


@pytest.mark.ui
async def test_a_change_to_several_is_told_a_line_each(saves: Path) -> None:
    """Seen by hand (USOR): `:damage Ogre* 3` told both in one line joined by a visible
    line-end mark ("... (stun 20 -> 17)␊Ogre 2 takes ..."): the log entry holds one line
    per combatant, and each is a line of its own in the notice."""
    from tests.test_ui_app import SIZE, make_file
    from tests.ui import burst, settle, wait_for
    from tracker.ui.app import TrackerApp

    path = make_file(saves, "brandx", ['add "Goblin 1"', 'add "Goblin 2"'])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, ":damage Goblin* 1\r")
        told = lambda: [n.message for n in app.notifications_shown if "Goblin 2 takes 1" in n.message]  # noqa: E731
        await wait_for(pilot, lambda: bool(told()), "the change told")
        lines = told()[0].split("\n")
        assert [line.split(" takes")[0] for line in lines] == ["Goblin 1", "Goblin 2"], lines
        assert not any("\u240a" in line for line in lines)


def test_an_empty_action_is_refused_like_an_empty_name() -> None:
    """Seen in a side-by-side run of the command language: `declare Ann ''` in freeform
    started an action with no name ("Ann initiates active , PT 10")."""
    from rulesets import registry

    s = session_for(registry.available()["freeform"](), "add Ann")
    for line in ("declare Ann ''", 'declare Ann "  "'):
        with pytest.raises(TrackerError, match="^declare: the action is empty$"):
            s.execute(line)
    assert not s.encounter.actions
    assert s.execute("declare Ann dodge").lines == ["Ann initiates active dodge, PT 10, completes on segment 10"]
