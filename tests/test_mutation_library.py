"""Direct tests of tracker.persistence.library: one `library-<ruleset>.toml` of sheets per
ruleset in the saves folder, every entry checked when it is used (naming the file, the
entry and the key), saved and deleted under the lock, and a new encounter from another's
roster (the module docstring; docs/decisions/0026-sheet-library.md; docs/guide/verbs.md
"Roster and history")."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from rulesets.freeform import FreeformRuleset
from tracker.engine import CombatantSetup, Encounter, Event, Setup, TrackerError
from tracker.persistence import library as library_module
from tracker.persistence.library import MAX_BYTES, Library, Sheet, library_path, new_from_roster, roster_of, sheet_of
from tracker.persistence.store import EncounterFile


def lib(folder: Path, text: str, ruleset: str = "freeform") -> Library:
    path = library_path(folder, ruleset)
    path.write_text(text)
    return Library(path)


def refused(action: object) -> str:
    with pytest.raises(TrackerError) as error:
        action()  # type: ignore[operator]
    return str(error.value)


# ------------------------------------------------------------------ where
@pytest.mark.parametrize(
    ("ruleset", "name"),
    [("brandx", "library-brandx.toml"), ("My Game!", "library-my-game.toml"), ("d6_v2", "library-d6_v2.toml"),
     ("--x--", "library-x.toml"), ("!!!", "library-rules.toml"), ("ÉPÉE", "library-p-e.toml")],
)
def test_a_rulesets_library_is_named_by_its_id_made_safe(tmp_path: Path, ruleset: str, name: str) -> None:
    assert library_path(tmp_path, ruleset) == tmp_path / name
    assert Library.in_folder(tmp_path, ruleset).path == tmp_path / name


# ------------------------------------------------------------------ sheets
def test_a_sheet_holds_what_add_needs() -> None:
    sheet = Sheet("Goblin", "foe", {"speed": 3}, {"hp": 7})
    assert sheet.values() == {"speed": 3, "hp": 7}
    assert sheet.to_dict() == {"side": "foe", "stats": {"speed": 3}, "resources": {"hp": 7}}
    assert list(sheet.to_dict()) == ["side", "stats", "resources"]
    assert Sheet("Wolf").to_dict() == {"stats": {}, "resources": {}}
    data = sheet.to_dict()
    data["stats"]["speed"] = 9
    assert sheet.stats == {"speed": 3}  # a copy


def test_a_missing_library_has_no_sheets(tmp_path: Path) -> None:
    assert Library.in_folder(tmp_path, "freeform").names() == []
    message = refused(lambda: Library.in_folder(tmp_path, "freeform").get("Goblin"))
    assert message == f"{tmp_path / 'library-freeform.toml'}: no sheet named 'Goblin' (sheets: none yet: `library save NAME`)"


def test_names_are_listed_case_folded(tmp_path: Path) -> None:
    library = lib(tmp_path, "[sheets.wolf]\n[sheets.Goblin]\n[sheets.bat]\n")
    assert library.names() == ["bat", "Goblin", "wolf"]


def test_a_sheet_is_found_by_its_name_in_any_case(tmp_path: Path) -> None:
    library = lib(tmp_path, '[sheets.Goblin]\nside = "foe"\nstats = { speed = 3 }\nresources = { hp = 7 }\n[sheets.goblin]\n')
    assert library.get("Goblin") == Sheet("Goblin", "foe", {"speed": 3}, {"hp": 7})
    assert library.get("goblin") == Sheet("goblin")  # the exact name first
    assert library.get("GOBLIN").name in ("Goblin", "goblin")
    only = lib(tmp_path, '[sheets.Ogre]\nresources = { hp = 30 }\n')
    assert only.get("ogre") == Sheet("Ogre", "", {}, {"hp": 30})  # named as the library spells it
    assert refused(lambda: only.get("Troll")) == f"{only.path}: no sheet named 'Troll' (sheets: Ogre)"


def test_the_known_sheets_are_listed_when_one_is_not_found(tmp_path: Path) -> None:
    library = lib(tmp_path, "[sheets.wolf]\n[sheets.Bat]\n")
    assert refused(lambda: library.get("Troll")) == f"{library.path}: no sheet named 'Troll' (sheets: Bat, wolf)"


# ------------------------------------------------------------------ every entry checked when used
def test_a_bad_entry_is_refused_by_file_entry_and_key_and_the_others_still_work(tmp_path: Path) -> None:
    library = lib(tmp_path, '[sheets]\nBad = 3\n[sheets.Side]\nside = 4\n[sheets.Stats]\nstats = 1\n'
                            '[sheets.Res]\nresources = []\n[sheets.Key]\ncolour = "red"\n[sheets.Good]\nresources = { hp = 5 }\n')
    where = f"{library.path}: sheets"
    assert refused(lambda: library.get("Bad")) == f"{where}.Bad: expected a table"
    assert refused(lambda: library.get("Side")) == f"{where}.Side.side: expected text, got 4"
    assert refused(lambda: library.get("Stats")) == f"{where}.Stats: stats and resources must be tables"
    assert refused(lambda: library.get("Res")) == f"{where}.Res: stats and resources must be tables"
    assert refused(lambda: library.get("Key")) == f"{where}.Key: unexpected key 'colour' (expected side, stats, resources)"
    assert library.get("Good") == Sheet("Good", "", {}, {"hp": 5})


def test_controls_and_numbers_out_of_bounds_in_an_entry_are_refused_by_key(tmp_path: Path) -> None:
    library = lib(tmp_path, '[sheets."Bell\\u0007"]\n[sheets.Side]\nside = "a\\u001bb"\n[sheets.Key.stats]\n"k\\u0007" = 1\n'
                            '[sheets.Text.stats]\nnote = "x\\u0007"\n[sheets.Big.resources]\nhp = 1e300\n'
                            '[sheets.Fine]\nstats = { note = "calm", brave = true }\nresources = { hp = 2.5 }\n')
    where = f"{library.path}: sheets"
    assert refused(lambda: library.get("Bell\x07")).startswith(f"{where}.Bell\x07: name: control characters")
    assert refused(lambda: library.get("Side")).startswith(f"{where}.Side.side")
    assert refused(lambda: library.get("Key")).startswith(f"{where}.Key: key")
    assert refused(lambda: library.get("Text")).startswith(f"{where}.Text.note")
    assert refused(lambda: library.get("Big")).startswith(f"{where}.Big.hp")
    assert library.get("Fine") == Sheet("Fine", "", {"note": "calm", "brave": True}, {"hp": 2.5})


def test_a_library_that_does_not_read_is_refused_by_name(tmp_path: Path) -> None:
    library = lib(tmp_path, "[sheets\n")
    assert refused(library.names).startswith(f"{library.path}: not valid TOML: ")
    deep = lib(tmp_path, "x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert refused(deep.names).startswith(f"{deep.path}: not valid TOML: ")
    sheets = lib(tmp_path, 'sheets = "Goblin"\n')
    assert refused(sheets.names) == f"{sheets.path}: sheets: expected a table of sheets"
    library.path.write_bytes(b"[sheets.\xff]\n")
    assert refused(library.names).startswith(f"{library.path}: cannot be read: 'utf-8' codec can't decode")
    assert lib(tmp_path, "other = 1\n").names() == []


def test_a_library_linked_out_a_fifo_or_too_big_is_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    outside = tmp_path / "outside.toml"
    outside.write_text("[sheets.Goblin]\n")
    path = library_path(folder, "freeform")
    path.symlink_to(outside)
    assert refused(Library(path).names).startswith(f"{path}: is a symbolic link leading outside {folder}")
    path.unlink()
    os.mkfifo(path)
    assert refused(Library(path).names) == f"{path}: expected a regular library, found a FIFO; it is not opened"
    path.unlink()
    path.write_text("#" * MAX_BYTES)
    assert Library(path).names() == []
    path.write_text("#" * (MAX_BYTES + 1))
    assert refused(Library(path).names).startswith(f"{path}: 4,194,305 bytes (4 MB); librarys over")
    assert MAX_BYTES == 4 * 1024 * 1024
    folder.joinpath("dir").mkdir()
    assert refused(Library(folder / "dir").names).startswith(f"{folder / 'dir'}: ")


# ------------------------------------------------------------------ saving and deleting
def test_a_sheet_saved_replaces_one_of_the_same_name_in_any_case_and_keeps_the_order(tmp_path: Path) -> None:
    library = Library.in_folder(tmp_path / "new" / "saves", "freeform")
    library.put(Sheet("wolf", "", {}, {"hp": 5}))
    library.put(Sheet("Goblin", "foe", {"speed": 3}, {"hp": 7}))
    library.put(Sheet("bat"))
    assert library.names() == ["bat", "Goblin", "wolf"]
    assert list(tomllib.loads(library.path.read_text())["sheets"]) == ["bat", "Goblin", "wolf"]
    library.put(Sheet("GOBLIN", "", {}, {"hp": 9}))
    assert library.names() == ["bat", "GOBLIN", "wolf"]
    assert library.get("goblin") == Sheet("GOBLIN", "", {}, {"hp": 9})
    assert tomllib.loads(library.path.read_text())["sheets"]["wolf"] == {"stats": {}, "resources": {"hp": 5}}


def test_a_sheets_name_is_checked_and_may_not_look_like_another(tmp_path: Path) -> None:
    library = Library.in_folder(tmp_path, "freeform")
    library.put(Sheet("Seraph"))
    assert refused(lambda: library.put(Sheet("S\u0435raph"))).startswith("library: sheet name")
    assert "a sheet in library-freeform.toml" in refused(lambda: library.put(Sheet("S\u0435raph")))
    assert refused(lambda: library.put(Sheet("A\x07"))).startswith("library: sheet name")
    assert refused(lambda: library.put(Sheet(""))) == "library: a sheet needs a name"
    assert library.names() == ["Seraph"]


def test_a_sheet_is_deleted_in_any_case(tmp_path: Path) -> None:
    library = Library.in_folder(tmp_path, "freeform")
    assert refused(lambda: library.delete("Goblin")) == f"{library.path}: no sheet named 'Goblin'"
    assert not library.path.exists() and not Path(f"{library.path}.lock").exists()
    library.put(Sheet("Goblin"))
    library.put(Sheet("Wolf"))
    assert refused(lambda: library.delete("Troll")) == f"{library.path}: no sheet named 'Troll'"
    library.delete("goblin")
    assert library.names() == ["Wolf"]
    library.path.write_text('[sheets.Ogre]\n[sheets.ogre]\n[sheets.Wolf]\n')
    library.delete("OGRE")  # every spelling of it
    assert library.names() == ["Wolf"]


def test_a_library_that_cannot_be_written_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = Library.in_folder(tmp_path, "freeform")

    def full(*args: object, **kwargs: object) -> bool:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(library_module.folder, "replace", full)
    assert refused(lambda: library.put(Sheet("Goblin"))) == f"{library.path}: cannot be written: No space left on device"

    def bare(*args: object, **kwargs: object) -> bool:
        raise OSError("disk on fire")

    monkeypatch.setattr(library_module.folder, "replace", bare)
    assert refused(lambda: library.put(Sheet("Goblin"))) == f"{library.path}: cannot be written: disk on fire"


# ------------------------------------------------------------------ from a fight
def _fight() -> Encounter:
    setup = Setup("Bridge", "freeform", FreeformRuleset.time, FreeformRuleset.down_when, {"viewer_resources": "label"},
                  [CombatantSetup("Ann", {"speed": 3}, {"hp": 20}, "party")])
    enc = Encounter(setup)
    enc.apply(Event("add", {"name": "Lurker", "resources": {"hp": 9}, "side": "foe", "hidden": True, "stats": {"str": 2}}))
    enc.apply(Event("add", {"name": "Gone", "resources": {"hp": 1}}))
    enc.apply(Event("damage", {"target": "Ann", "amount": 5, "resource": "hp"}))
    enc.apply(Event("remove", {"name": "Gone"}))
    return enc


def test_a_combatants_sheet_has_its_starting_resources(tmp_path: Path) -> None:
    enc = _fight()
    assert enc.combatants["Ann"].resources["hp"] == 15
    assert sheet_of(enc, "Ann") == Sheet("Ann", "party", {"speed": 3}, {"hp": 20})
    assert sheet_of(enc, "ann", "Hero") == Sheet("Hero", "party", {"speed": 3}, {"hp": 20})
    assert sheet_of(enc, "Lurker", "") == Sheet("Lurker", "foe", {"str": 2}, {"hp": 9})


def test_a_fresh_roster_is_everyone_present_now_at_full_resources(tmp_path: Path) -> None:
    roster = roster_of(_fight())
    assert roster == [CombatantSetup("Ann", {"speed": 3}, {"hp": 20}, "party", False),
                      CombatantSetup("Lurker", {"str": 2}, {"hp": 9}, "foe", True)]


def test_a_new_encounter_takes_the_roster_and_not_the_log(tmp_path: Path) -> None:
    source = tmp_path / "bridge.toml"
    enc = _fight()
    from tracker.persistence import codec

    source.write_text(codec.dumps(enc, len(enc.events)))
    made = new_from_roster(source, tmp_path / "next.toml", "The Next Scene")
    assert made == tmp_path / "next.toml"
    loaded = EncounterFile(made).load()
    assert loaded.encounter.setup.name == "The Next Scene"
    assert loaded.encounter.setup.settings == {"viewer_resources": "label"} and loaded.encounter.setup.ruleset == "freeform"
    assert [(c.name, c.resources, c.side, c.hidden) for c in loaded.encounter.combatants.values()] == [
        ("Ann", {"hp": 20}, "party", False), ("Lurker", {"hp": 9}, "foe", True)]
    assert loaded.encounter.events == []
    assert refused(lambda: new_from_roster(source, tmp_path / "bad.toml", "Bad\x07")).startswith("name")
    assert not (tmp_path / "bad.toml").exists()


def test_a_new_encounter_elsewhere_needs_the_same_house_rules_there(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (here / "house.toml").write_text("")
    enc = _fight()
    from tracker.persistence import codec

    source = here / "bridge.toml"
    source.write_text(codec.dumps(enc, len(enc.events), "house.toml"))
    message = refused(lambda: new_from_roster(source, there / "next.toml", "Next"))
    assert message == (f"{there / 'next.toml'}: bridge.toml plays by the house rules house.toml, which is not in {there}: "
                       f"copy {here / 'house.toml'} there first, or create the encounter in {here}")
    (there / "house.toml").write_text("x = 1\n")
    different = refused(lambda: new_from_roster(source, there / "next.toml", "Next"))
    assert "which is different in" in different
    (there / "house.toml").write_text("")
    assert new_from_roster(source, there / "next.toml", "Next") == there / "next.toml"
    assert EncounterFile(there / "next.toml").load().house_rules == "house.toml"
    assert new_from_roster(source, here / "same.toml", "Same") == here / "same.toml"  # beside it: the same file


# ------------------------------------------------------------------ added for survivors
def test_the_known_sheets_are_listed_case_folded_when_one_is_not_found(tmp_path: Path) -> None:
    library = lib(tmp_path, "[sheets.apple]\n[sheets.Bat]\n")
    assert refused(lambda: library.get("Troll")) == f"{library.path}: no sheet named 'Troll' (sheets: apple, Bat)"


def test_a_fifo_at_the_librarys_name_is_never_written_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = Library.in_folder(tmp_path, "freeform")
    os.mkfifo(library.path)
    monkeypatch.setattr(Library, "_read", lambda self: {})  # past the read, to the write
    assert refused(lambda: library.put(Sheet("Goblin"))) == (
        f"{library.path}: expected a regular library, found something else (a FIFO, device or folder); it is not replaced"
    )


def test_a_new_encounter_without_house_rules_may_go_to_another_folder(tmp_path: Path) -> None:
    from tracker.persistence import codec

    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    source = tmp_path / "here" / "bridge.toml"
    enc = _fight()
    source.write_text(codec.dumps(enc, len(enc.events)))
    made = new_from_roster(source, tmp_path / "there" / "next.toml", "Next")
    assert [c.name for c in EncounterFile(made).load().encounter.combatants.values()] == ["Ann", "Lurker"]
