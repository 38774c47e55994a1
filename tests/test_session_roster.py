"""The command language under hostile input, roster work mid-fight, readable undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.engine import TrackerError
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import Session
from tracker.reading.viewing import sight
from tracker.reading.wording import history
from tests.helpers import cli as run
from tests.helpers import session_for


def freeform(*lines: str) -> Session:
    return session_for(registry.get("freeform"), *lines)


def snapshot(s: Session) -> tuple:
    enc = s.encounter
    return (
        [(c.name, c.side, dict(c.stats), dict(c.resources), c.hidden) for c in enc.combatants.values()],
        [e.text for e in enc.log],
        len(enc.events),
        enc.now,
    )


@pytest.mark.parametrize(
    "line",
    [
        "add E\x1b]52;c;UFdORUQ=\x1b\\X hp=3",
        "add Bob side=\x1b[2J",
        "add Bob hp=3 weapon=\x1b[6n",
        "note hello \x1b[6n",
        "schedule 9 wake \x07up",
        "rename Ann A\x1bnn",
        "condition Ann st\x1bunned 3",
        "declare Ann strike note=\x1b[31m",
    ],
)
def test_control_characters_are_refused_at_the_door(line: str) -> None:
    s = freeform("add Ann hp=10")
    before = snapshot(s)
    with pytest.raises(TrackerError, match="control characters are not allowed"):
        s.execute(line)
    assert snapshot(s) == before


def test_the_api_refuses_control_characters_too() -> None:
    s = freeform("add Ann hp=10")
    with pytest.raises(TrackerError, match="control characters"):
        s.add("Og\x1bre", {})
    with pytest.raises(TrackerError, match="control characters"):
        s.note("\x9b6n")
    with pytest.raises(TrackerError, match="control characters"):
        s.set_side("Ann", "\u202eevil")


@pytest.mark.parametrize(
    "line, message",
    [
        ("set Kestrel hp abc", "a number"),
        ("set Kestrel hp nan", "finite"),
        ("set Kestrel hp 1e20", "at most"),
        ("damage Kestrel 1e20", "at most"),
        ("damage Kestrel nan", "finite"),
        ("damage Kestrel inf", "finite"),
        ("heal Kestrel -inf", "finite"),
        ("step 99999999999999999999", "at most"),
        ("step 1000000000000", "would pass"),
        ("schedule 99999999999999999999 x", "at most"),
        ("add kestrel hp=3", "unique ignoring case"),
        ("add Bob hp=1e30", "at most"),
        ("add Bob x0 hp=3", "copies"),
        ("add Bob x101 hp=3", "copies"),
    ],
)
def test_refused_commands_change_nothing(line: str, message: str) -> None:
    s = freeform("add Kestrel hp=10", "add Ann hp=5", "step 3")
    before = snapshot(s)
    with pytest.raises(TrackerError, match=message):
        s.execute(line)
    assert snapshot(s) == before


def test_set_checks_values_against_the_sheet_types() -> None:
    s = session_for(registry.get("brandx"), "add Kestrel")
    c = s.encounter.combatant("Kestrel")
    stat = next(f for f in s.ruleset.stat_fields() if f.kind == "int")
    resource = next(iter(c.resources))
    before = snapshot(s)
    with pytest.raises(TrackerError):
        s.execute(f"set Kestrel {stat.name} abc")
    with pytest.raises(TrackerError):
        s.execute(f"set Kestrel {resource} abc")
    with pytest.raises(TrackerError):
        s.execute("set Kestrel no_such_key 3")
    assert snapshot(s) == before
    s.execute(f"set Kestrel {resource} 7")
    assert c.resources[resource] == 7


def test_a_stat_left_blank_at_creation_is_set_as_a_stat_in_every_game() -> None:
    """A stat the sheet offers but the combatant was made without is set as a stat, never
    taken for a resource: Brand X's `combat_roll` override (blank by default) then
    replaces the derived Combat Roll, Sphere(2 x agility 10) = row 11 (the Sphere
    entries run 1-8, 10, 14, 18, 24: 20 is past 18), by 15; a freeform sheet's text
    (`mood`) is a stat as `add` makes it. Undo takes each back; the save reads them back
    as stats."""
    s = session_for(registry.get("brandx"), "add A learning=0 ep=100", "add B vp=40")
    s.execute("declare A punch target=B throwback=false faces=2,2")
    assert s.encounter.actions[-1].resolution.details["base"] == 11
    s.undo()
    s.execute("set A combat_roll 15")
    a = s.encounter.combatant("A")
    assert a.stats["combat_roll"] == 15 and "combat_roll" not in a.resources
    s.execute("declare A punch target=B throwback=false faces=2,2")
    assert s.encounter.actions[-1].resolution.details["base"] == 15
    s.undo()
    s.undo()
    assert "combat_roll" not in s.encounter.combatant("A").stats

    # A save written before the event said so holds such a set as a resource; the next
    # set of that stat puts it back among the stats.
    from tracker.engine.model import Event

    s.encounter.apply(Event("set", {"target": "A", "key": "combat_roll", "value": 20}))
    assert s.encounter.combatant("A").resources["combat_roll"] == 20
    s.execute("set A combat_roll 15")
    a = s.encounter.combatant("A")
    assert a.stats["combat_roll"] == 15 and "combat_roll" not in a.resources

    f = freeform("add Ann hp=5")
    f.execute("set Ann mood angry")
    f.execute("set Ann speed 3")
    ann = f.encounter.combatant("Ann")
    assert ann.stats == {"mood": "angry"} and ann.resources == {"hp": 5, "speed": 3}


def test_set_of_a_blank_stat_is_read_back_from_the_save(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker play` writes the set to the file, and the file read again holds the D6
    weapon as a stat (`set NAME KEY VALUE` from the command line, as on the `:` line)."""
    assert run("new", "party", "--ruleset", "d6")[0] == 0
    code, out = run("play", "party", stdin="add Hero\nset Hero weapon 4d\n")
    assert code == 0, out
    assert "Hero: weapon set to 4D" in out
    hero = EncounterFile(saves / "party.toml").load().encounter.combatant("Hero")
    assert hero.stats["weapon"] == "4D" and "weapon" not in hero.resources
    code, _ = run("play", "party", stdin="set Hero weapon abc\n")
    assert code == 1 and "set Hero weapon: expected a damage code such as 4D or +1D, got 'abc'" in capsys.readouterr().err


def test_add_copies_numbers_them_and_one_undo_takes_them_back() -> None:
    s = freeform("add Goblin x2 hp=4 side=foe")
    assert list(s.encounter.combatants) == ["Goblin 1", "Goblin 2"]
    s.execute("add Goblin x3 hp=4")
    assert list(s.encounter.combatants)[2:] == ["Goblin 3", "Goblin 4", "Goblin 5"]
    assert s.encounter.combatant("goblin 2").side == "foe"
    outcome = s.execute("undo")
    assert outcome.lines == ["undo: Goblin 3, Goblin 4, Goblin 5 join the fight at segment 0"]
    assert list(s.encounter.combatants) == ["Goblin 1", "Goblin 2"]


def test_rename_carries_actions_conditions_and_targets() -> None:
    s = freeform("add Ann hp=10", "add Bob hp=10", "declare Ann strike target=Bob pt=5 damage=3", "condition Bob stunned 8", "hide Bob")
    s.execute("rename Bob Robert")
    enc = s.encounter
    assert list(enc.combatants) == ["Ann", "Robert"]
    assert enc.actions[0].targets == ("Robert",)
    s.execute("step 5")
    assert enc.combatant("Robert").resources["hp"] == 7  # the blow still lands
    s.execute("step 3")
    assert "stunned" not in enc.combatant("Robert").conditions
    # Lines about Bob while hidden stay hidden from viewers after the rename.
    viewer = sight(enc, Role.viewer())
    assert not any(viewer.entry(e) for e in enc.log if "Robert" in e.about)
    with pytest.raises(TrackerError, match="unique ignoring case"):
        s.execute("rename Ann robert")
    s.execute("rename Ann ANN")  # only the case changes: allowed


def test_side_and_reorder() -> None:
    s = freeform("add Ann hp=10", "add Bob hp=10", "add Cy hp=10")
    s.execute("side Bob PC")
    assert s.encounter.combatant("Bob").side == "PC"
    s.execute('side Bob ""')
    assert s.encounter.combatant("Bob").side == ""
    s.execute("reorder Cy 1")
    assert list(s.encounter.combatants) == ["Cy", "Ann", "Bob"]
    with pytest.raises(TrackerError, match="position"):
        s.execute("reorder Cy 9")
    assert s.execute("undo").lines == ["undo: Cy moves to place 1 in the roster at segment 0"]
    assert list(s.encounter.combatants) == ["Ann", "Bob", "Cy"]


def test_undo_and_redo_say_what_they_take_back() -> None:
    s = freeform("add Seraph hp=10", "add Sphinx hp=10", "step 19", "declare Seraph punch target=Sphinx pt=3")
    assert s.execute("undo").lines == ["undo: Seraph declares punch against Sphinx at segment 19"]
    assert s.execute("redo").lines == ["redo: Seraph declares punch against Sphinx at segment 19"]
    assert s.execute("undo").lines[0].startswith("undo: Seraph declares")
    assert s.execute("undo").lines == ["undo: time moves on to segment 19"]
    with pytest.raises(TrackerError, match="rule: redo"):
        freeform().redo()


def test_history_lists_effective_changes_newest_first() -> None:
    s = freeform("add Ann hp=10", "damage Ann 3", "note hi", "undo")
    lines = history(s.encounter)
    assert [h.text for h in lines] == ["Ann takes 3 hp", "Ann joins the fight"]
    assert lines[0].segment == 0


def test_library_save_and_add_in_one_step(tmp_path: Path) -> None:
    store = EncounterFile.create(tmp_path / "fight.toml", "fight", "freeform")[0]
    s = Session(store.load().encounter, registry.get("freeform"), RandomDice(1), store, library=Library.in_folder(tmp_path, "freeform"))
    s.execute("add Ogre hp=30 club=big side=foe")
    s.execute("damage Ogre 10")
    s.execute("library save Ogre")
    path = tmp_path / "library-freeform.toml"
    data = tomllib.loads(path.read_text())
    assert data["sheets"]["Ogre"] == {"side": "foe", "stats": {"club": "big"}, "resources": {"hp": 30}}
    s.execute("library add ogre x2")
    assert s.encounter.combatant("Ogre 1").resources["hp"] == 30
    s.execute('library add Ogre "Big Bob" side=boss')
    assert s.encounter.combatant("Big Bob").side == "boss"
    assert "Ogre" in s.execute("library").lines[0]
    assert EncounterFile(store.path).load().encounter.combatants.keys() == s.encounter.combatants.keys()
    with pytest.raises(TrackerError, match="no sheet named"):
        s.execute("library add Troll")
    path.write_text('[sheets.Bad]\nresources = { hp = "\\u001b[2J" }\n')
    with pytest.raises(TrackerError, match="control characters"):
        s.execute("library add Bad")
    # The library file is not an encounter: not listed, not opened.
    from tracker.persistence import paths

    assert path not in paths.encounter_files(tmp_path)


def test_new_encounter_from_another_roster(saves: Path) -> None:
    assert run("new", "first", "--ruleset", "freeform")[0] == 0
    assert run("play", "first", stdin="add Ann hp=10 side=PC\nadd Bob hp=8\ndamage Ann 4\nremove Bob\nadd Cy hp=3\n")[0] == 0
    assert run("new", "second", "--from", "first")[0] == 0
    data = tomllib.loads((saves / "second.toml").read_text())
    assert data.get("events", []) == []
    code, out = run("show", "second", "--json")
    state = json.loads(out)
    assert [(c["name"], c["side"], c["resources"]["hp"]) for c in state["combatants"]] == [("Ann", "PC", 10), ("Cy", "", 3)]
    assert state["log"] == [] and state["segment"] == 0


def test_a_new_encounter_elsewhere_needs_the_same_house_rules_beside_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`new --from` copies the roster and the name of the house-rules file, which is read
    beside the save: in another folder without that file the new save would not load,
    and with another file of that name it would play by other rules. Both are refused
    before anything is written; beside the same rules, or in the same folder, it is made."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    house = '[time]\nattack = 5\n'
    (here / "house.toml").write_text(house)
    text = (Path(__file__).resolve().parent.parent / "saves" / "ogs-guard.toml").read_text()
    (here / "guard.toml").write_text(text.replace('\nruleset = ', '\nhouse_rules = "house.toml"\nruleset = ', 1))
    assert run("check", str(here / "guard.toml"))[0] == 0
    assert run("new", str(there / "rematch.toml"), "--from", str(here / "guard.toml"))[0] == 1
    assert f"which is not in {there}: copy {here / 'house.toml'} there first" in capsys.readouterr().err
    (there / "house.toml").write_text(house + "[check]\nfirst_stage = 3\n")
    assert run("new", str(there / "rematch.toml"), "--from", str(here / "guard.toml"))[0] == 1
    assert "which is different in" in capsys.readouterr().err
    assert not (there / "rematch.toml").exists()
    (there / "house.toml").write_text(house)
    assert run("new", str(there / "rematch.toml"), "--from", str(here / "guard.toml"))[0] == 0
    assert run("new", str(here / "again.toml"), "--from", str(here / "guard.toml"))[0] == 0
    assert run("check", str(there / "rematch.toml"))[0] == 0 and run("check", str(here / "again.toml"))[0] == 0


def test_an_encounter_opens_by_its_title(saves: Path) -> None:
    from tracker.persistence import paths

    EncounterFile.create(saves / "ruined-temple-bx.toml", "Ruined Temple BX", "brandx")
    assert paths.resolve("Ruined Temple BX", saves) == saves / "ruined-temple-bx.toml"
    code, out = run("check", "Ruined Temple BX")
    assert code == 0 and "ruined-temple-bx.toml: ok" in out


def test_show_never_prints_a_control_character(saves: Path) -> None:
    # A hand-edited file may hold them; the door refuses new ones.
    assert run("new", "f", "--ruleset", "freeform")[0] == 0
    assert run("play", "f", stdin="add Ann hp=10\nnote plain\n")[0] == 0
    path = saves / "f.toml"
    text = path.read_text().replace('name = "Ann"', 'name = "A\\u001b]52;c;UFdORUQ=\\u001b\\\\nn"').replace('"Ann', '"A\\u001b]52;c;UFdORUQ=\\u001b\\\\nn')
    text = text.replace('text = "plain"', 'text = "p\\u001b[6n\\u009b2J"')
    path.write_text(text)
    for extra in ((), ("--viewer",)):
        code, out = run("show", "f", *extra)
        assert code == 0, out
        assert "\x1b" not in out and "\x9b" not in out
        assert "␛" in out
        code, out = run("show", "f", "--json", *extra)
        assert code == 0 and "\x1b" not in out and "\x9b" not in out
        data = json.loads(out)  # still valid, names exact
        assert any("\x1b" in c["name"] for c in data["combatants"])


def test_an_internal_error_exits_non_zero(saves: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tracker.command.cli

    def broken(*args: object) -> int:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(tracker.command.cli, "_run", broken)
    code, _ = run("rulesets")
    assert code == 3
    assert "internal error: ZeroDivisionError: boom" in capsys.readouterr().err


@pytest.mark.parametrize("ruleset_id", sorted(registry.available()))
def test_a_sheet_saved_in_the_library_adds_back_the_same_in_every_ruleset(ruleset_id: str, tmp_path: Path) -> None:
    store = EncounterFile.create(tmp_path / "fight.toml", "fight", ruleset_id)[0]
    ruleset = registry.get(ruleset_id)
    s = Session(store.load().encounter, ruleset, RandomDice(1), store, library=Library.in_folder(tmp_path, ruleset_id))
    s.execute("add Kestrel side=PC")
    s.execute("library save Kestrel as=Hero")
    s.execute("library add Hero x2")
    first, copy = s.encounter.combatant("Kestrel"), s.encounter.combatant("Hero 2")
    assert (copy.stats, copy.resources, copy.side) == (first.stats, first.maxima, "PC")
    assert EncounterFile(store.path).load().encounter.combatant("Hero 1").stats == first.stats
