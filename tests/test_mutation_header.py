"""Direct tests of tracker.persistence.header: a save's header (the schema, the name, the
ruleset and its house rules, the settings, the roster, the players' dice key, the
campaign) written and read, every key checked, naming the file, table and key (the module
docstring; docs/decisions/0007-save-format.md, 0044-save-limits.md; docs/guide/saves.md,
"House rules"; docs/guide/threat-model.md: links, FIFOs, huge files). Headers are
written by hand as TOML and parsed with tomllib, as a save is."""

from __future__ import annotations

import copy
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import CombatantSetup, Encounter, Setup
from tracker.persistence import header
from tracker.persistence.checks import SaveError, shown
from tracker.persistence.header import (
    HEADER,
    MAX_HOUSE_RULES_BYTES,
    header_document,
    house_rules_tables,
    read_header,
)
from rulesets import registry

KEY = "0123456789abcdef" * 2  # 32 hex digits
SRC = "fight.toml"


def _doc(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def _plain(extra: str = "", roster: str = "") -> dict[str, Any]:
    return _doc(f'schema_version = 2\nname = "Bridge"\nruleset = "freeform"\n{extra}\n[settings]\n{roster}')


def _refused(doc: dict[str, Any], base: Path | None = None, source: str = SRC) -> str:
    before = copy.deepcopy(doc)
    with pytest.raises(SaveError) as refused:
        read_header(doc, source, base)
    assert doc == before  # nothing read is changed
    return str(refused.value)


# ------------------------------------------------------------------ writing
def _encounter(**over: Any) -> Encounter:
    setup = Setup("Bridge", "freeform", registry.get("freeform").time, ("hp",), {}, [CombatantSetup("Ann", {}, {"hp": 7}, "party", True, 3)])
    for key, value in over.items():
        setattr(setup, key, value)
    return Encounter(setup)


def test_the_header_holds_schema_name_ruleset_settings_and_roster_in_that_order() -> None:
    doc = header_document(_encounter())
    assert list(doc) == ["schema_version", "name", "ruleset", "settings", "roster"]
    assert doc["schema_version"] == 2 and doc["name"] == "Bridge" and doc["ruleset"] == "freeform"
    assert doc["settings"] == {}
    assert doc["roster"] == [{"name": "Ann", "side": "party", "hidden": True, "surprised_until": 3, "stats": {}, "resources": {"hp": 7}}]


def test_house_rules_dice_key_and_campaign_are_written_only_when_there_are_some() -> None:
    enc = _encounter(dice_key=KEY, campaign="west.campaign.toml", settings={"a": 1})
    doc = header_document(enc, "house.toml")
    assert list(doc) == ["schema_version", "name", "ruleset", "house_rules", "dice_key", "campaign", "settings", "roster"]
    assert (doc["house_rules"], doc["dice_key"], doc["campaign"]) == ("house.toml", KEY, "west.campaign.toml")
    assert doc["settings"] == {"a": 1}
    doc["settings"]["a"] = 2
    assert enc.setup.settings == {"a": 1}  # the document holds a copy


def test_a_header_written_reads_back_as_the_same_setup(tmp_path: Path) -> None:
    import tomli_w

    (tmp_path / "house.toml").write_text("")
    enc = _encounter(dice_key=KEY, campaign="west.campaign.toml")
    text = HEADER + tomli_w.dumps(header_document(enc, "house.toml"))
    opening = read_header(_doc(text), SRC, tmp_path)
    assert opening.setup == enc.setup
    assert (opening.revision, opening.house_rules, opening.version) == (0, "house.toml", 2)


# ------------------------------------------------------------------ reading
def test_a_plain_header_opens_with_the_games_time_and_going_down_rule() -> None:
    opening = read_header(_plain(roster='[[roster]]\nname = "Ann"\n[roster.resources]\nhp = 5\n'), SRC, None)
    freeform = registry.get("freeform")
    assert opening.setup == Setup("Bridge", "freeform", freeform.time, freeform.down_when, {}, [CombatantSetup("Ann", {}, {"hp": 5}, "", False, 0)], "", "")
    assert opening.ruleset.name == freeform.name and opening.revision == 0 and opening.house_rules == "" and opening.version == 2


def test_the_settings_are_the_games_checked_with_defaults_filled_in() -> None:
    doc = _doc('schema_version = 2\nname = "B"\nruleset = "brandx"\n[settings]\nnegative_movement = true\n')
    settings = read_header(doc, SRC, None).setup.settings
    assert settings["negative_movement"] is True and settings["throwback"] is True
    message = _refused(_doc('schema_version = 2\nname = "B"\nruleset = "brandx"\n[settings]\nthrowback = 3\n'))
    assert message.startswith(f"{SRC}: settings") and "throwback" in message and "3" in message


def test_a_header_without_settings_or_roster_has_none() -> None:
    opening = read_header(_doc('schema_version = 2\nname = "B"\nruleset = "freeform"\n'), SRC, None)
    assert opening.setup.settings == {} and opening.setup.roster == []


def test_a_roster_entry_keeps_side_hidden_and_surprise_and_the_game_checks_its_sheet() -> None:
    roster = (
        '[[roster]]\nname = "Ann"\nside = "party"\nhidden = true\nsurprised_until = 4\n[roster.resources]\nhp = 9\n'
        '[[roster]]\nname = "Orc"\n[roster.stats]\nskill = \"d8\"\n[roster.resources]\nhp = 3\n'
    )
    doc = _doc(f'schema_version = 2\nname = "B"\nruleset = "ogs"\n[settings]\n{roster}')
    ann, orc = read_header(doc, SRC, None).setup.roster
    assert (ann.name, ann.side, ann.hidden, ann.surprised_until, ann.resources) == ("Ann", "party", True, 4, {"hp": 9})
    assert (orc.name, orc.side, orc.hidden, orc.surprised_until) == ("Orc", "", False, 0)
    assert orc.stats["skill"] == "d8" and orc.resources == {"hp": 3}


def test_a_first_format_header_takes_its_revision() -> None:
    opening = read_header(_doc('schema_version = 1\nrevision = 12\nname = "B"\nruleset = "freeform"\n'), SRC, None)
    assert (opening.version, opening.revision) == (1, 12)
    assert read_header(_doc('schema_version = 1\nrevision = 0\nname = "B"\nruleset = "freeform"\n'), SRC, None).revision == 0
    # schema 2 has no revision in its header: its marks give it
    assert read_header(_doc('schema_version = 2\nrevision = 12\nname = "B"\nruleset = "freeform"\n'), SRC, None).revision == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "B"\nruleset = "freeform"', "fight.toml: missing key 'schema_version' (an integer)"),
        ('schema_version = "2"\nname = "B"\nruleset = "freeform"', "fight.toml: schema_version: expected an integer, got '2'"),
        ('schema_version = 3\nname = "B"\nruleset = "freeform"', "fight.toml: schema_version: expected 1 or 2, got 3 (a newer tracker wrote this file?)"),
        ('schema_version = 0\nname = "B"\nruleset = "freeform"', "fight.toml: schema_version: expected 1 or 2, got 0 (a newer tracker wrote this file?)"),
        ('schema_version = 1\nname = "B"\nruleset = "freeform"', "fight.toml: missing key 'revision' (an integer)"),
        ('schema_version = 1\nrevision = -1\nname = "B"\nruleset = "freeform"', "fight.toml: revision: expected an integer of at least 0, got -1"),
        ('schema_version = 1\nrevision = 1.5\nname = "B"\nruleset = "freeform"', "fight.toml: revision: expected an integer, got 1.5"),
        ('schema_version = 2\nruleset = "freeform"', "fight.toml: missing key 'name' (text)"),
        ('schema_version = 2\nname = 4\nruleset = "freeform"', "fight.toml: name: expected text, got 4"),
        ('schema_version = 2\nname = "B"', "fight.toml: missing key 'ruleset' (text)"),
        ('schema_version = 2\nname = "B"\nruleset = 1', "fight.toml: ruleset: expected text, got 1"),
        ('schema_version = 2\nname = "B"\nruleset = "freeform"\nhouse_rules = 1', "fight.toml: house_rules: expected text, got 1"),
        ('schema_version = 2\nname = "B"\nruleset = "freeform"\nsettings = 1', "fight.toml: settings: expected a table, got 1"),
        ('schema_version = 2\nname = "B"\nruleset = "freeform"\nroster = 1', "fight.toml: roster: expected an array of tables [[roster]], got 1"),
        ('schema_version = 2\nname = "B"\nruleset = "freeform"\nroster = [1]', "fight.toml: roster: expected an array of tables [[roster]], got [1]"),
    ],
)
def test_each_bad_key_of_the_header_is_refused_naming_file_key_and_what_was_expected(text: str, message: str) -> None:
    assert _refused(_doc(text)) == message


def test_an_unknown_game_is_refused_as_the_saves_ruleset() -> None:
    message = _refused(_doc('schema_version = 2\nname = "B"\nruleset = "chess"'))
    assert message.startswith("fight.toml: ruleset: unknown ruleset 'chess' (known: ") and "freeform" in message


@pytest.mark.parametrize(
    ("roster", "message"),
    [
        ('[[roster]]\nside = "x"', "fight.toml: roster[0]: missing key 'name' (text)"),
        ('[[roster]]\nname = 1', "fight.toml: roster[0].name: expected text, got 1"),
        ('[[roster]]\nname = "A"\nstats = 1', "fight.toml: roster[0].stats: expected a table, got 1"),
        ('[[roster]]\nname = "A"\nresources = [1]', "fight.toml: roster[0].resources: expected a table, got [1]"),
        ('[[roster]]\nname = "A"\nside = 1', "fight.toml: roster[0].side: expected text, got 1"),
        ('[[roster]]\nname = "A"\nhidden = "yes"', "fight.toml: roster[0].hidden: expected true or false, got 'yes'"),
        ('[[roster]]\nname = "A"\nsurprised_until = true', "fight.toml: roster[0].surprised_until: expected an integer, got True"),
        (
            '[[roster]]\nname = "A"\nhp = 3',
            "fight.toml: roster[0]: unexpected key 'hp' (expected name, side, hidden, surprised_until, stats, resources)",
        ),
        (
            '[[roster]]\nname = "A"\n[[roster]]\nname = "B"\nresources = { hp = 9223372036854775807 }\n[[roster]]\nname = "C"\nstats = { a = { b = 1e999 } }',
            "fight.toml: roster[2].stats.a.b: inf cannot be saved (integers must fit 64 bits, numbers must be finite)",
        ),
    ],
)
def test_each_bad_key_of_a_roster_entry_is_named_by_its_place(roster: str, message: str) -> None:
    assert _refused(_plain(roster=roster)) == message


def test_a_sheet_the_game_refuses_is_named_by_the_roster_entry() -> None:
    roster = '[[roster]]\nname = "A"\n[[roster]]\nname = "B"\n[roster.resources]\nmana = 3\n'
    message = _refused(_doc(f'schema_version = 2\nname = "B"\nruleset = "ogs"\n{roster}'))
    assert message.startswith("fight.toml: roster[1].resources.mana: ") and "hp" in message


@pytest.mark.parametrize("key", ["", "ab" * 16, "0" * 128, "f" * 33])
def test_a_dice_key_is_32_to_128_hex_digits_or_nothing(key: str) -> None:
    assert read_header(_plain(f'dice_key = "{key}"'), SRC, None).setup.dice_key == key


@pytest.mark.parametrize("key", ['"' + "a" * 31 + '"', '"' + "a" * 129 + '"', '"' + "A" * 32 + '"', '"' + "g" * 32 + '"', "5"])
def test_another_dice_key_is_refused(key: str) -> None:
    value = tomllib.loads("v = " + key)["v"]
    assert _refused(_plain(f"dice_key = {key}")) == f"fight.toml: dice_key: expected a key of 32 to 128 hex digits, got {shown(value)}"


@pytest.mark.parametrize("name", ["", "west.campaign.toml", "a b.campaign.toml"])
def test_a_campaign_is_a_campaign_file_in_the_same_folder_or_nothing(name: str) -> None:
    assert read_header(_plain(f'campaign = "{name}"'), SRC, None).setup.campaign == name


@pytest.mark.parametrize("name", ["west.toml", "sub/west.campaign.toml", "sub\\\\west.campaign.toml", ".west.campaign.toml", "west.campaign.toml.bak"])
def test_another_campaign_is_refused(name: str) -> None:
    value = tomllib.loads(f'v = "{name}"')["v"]
    assert _refused(_plain(f'campaign = "{name}"')) == (
        f"fight.toml: campaign: expected the name of a campaign file in the same folder (NAME.campaign.toml), got {value!r}"
    )
    assert _refused(_plain("campaign = 3")).endswith("(NAME.campaign.toml), got 3")


# ------------------------------------------------------------------ house rules
OGS = 'schema_version = 2\nname = "B"\nruleset = "ogs"\nhouse_rules = "{}"\n'


def test_house_rules_beside_the_save_replace_the_games_rows(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("[dice]\nsteps = [4, 6, 8, 10, 12, 20]\n")
    opening = read_header(_doc(OGS.format("house.toml")), SRC, tmp_path)
    assert opening.house_rules == "house.toml"
    assert opening.ruleset.tables["dice"]["steps"] == [4, 6, 8, 10, 12, 20]
    assert registry.get("ogs").tables["dice"]["steps"] == [4, 6, 8, 10, 12]


def test_house_rules_in_a_folder_below_the_save_are_read(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "h.toml").write_text("[dice]\nsteps = [4, 6, 8]\n")
    assert house_rules_tables("rules/h.toml", tmp_path, SRC) == {"dice": {"steps": [4, 6, 8]}}


def test_house_rules_with_no_folder_given_are_read_where_we_stand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "h.toml").write_text("[dice]\nsteps = [6, 8]\n")
    monkeypatch.chdir(tmp_path)
    assert house_rules_tables("h.toml", None, SRC) == {"dice": {"steps": [6, 8]}}
    assert read_header(_doc(OGS.format("h.toml")), SRC, None).ruleset.tables["dice"]["steps"] == [6, 8]
    with pytest.raises(SaveError) as refused:
        house_rules_tables("gone.toml", None, SRC)
    assert str(refused.value) == "fight.toml: house_rules: gone.toml: file not found"


def test_a_bad_house_table_refuses_the_save_naming_the_house_file(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("[dice]\nsteps = [4, 1]\n")
    message = _refused(_doc(OGS.format("house.toml")), tmp_path)
    assert message.startswith("fight.toml: ruleset: house rules house.toml: ogs tables [dice].steps[1]: ")
    assert message.endswith("got 1")


def test_a_game_that_refuses_its_own_tables_is_named_without_house_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    from rulesets.freeform import FreeformRuleset
    from tracker.engine import TrackerError

    def broken(self: Any) -> None:
        raise TrackerError("freeform tables [x]: broken")

    monkeypatch.setattr(FreeformRuleset, "check_tables", broken)
    assert _refused(_plain()) == "fight.toml: ruleset: freeform tables [x]: broken"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("/etc/passwd", "a path relative to the save's folder"),
        ("sub\\\\h.toml", "a path relative to the save's folder"),
        ("C:h.toml", "a path relative to the save's folder"),
        ("C:", "a path relative to the save's folder"),
        ("../h.toml", "a file inside the save's folder (no '..')"),
        ("sub/../../h.toml", "a file inside the save's folder (no '..')"),
        ("h\\u0000.toml", "a file name"),
        ("h\\u001b[31m.toml", "a file name"),
        ("h\\u202e.toml", "a file name"),
    ],
)
def test_a_house_rules_name_outside_the_folder_is_refused_before_anything_is_opened(tmp_path: Path, name: str, expected: str) -> None:
    value = tomllib.loads(f'v = "{name}"')["v"]
    message = _refused(_doc(OGS.format(name)), tmp_path)
    assert message.startswith(f"fight.toml: house_rules: expected {expected}, got ")
    assert "\x00" not in message and "\x1b" not in message and "\u202e" not in message
    assert message.endswith(repr(value).replace("\x1b", "\\x1b").replace("\u202e", "\\u202e")) or value in ("h\x00.toml",)


def test_a_one_letter_house_rules_name_is_a_file_name(tmp_path: Path) -> None:
    (tmp_path / "h").write_text("[dice]\nsteps = [6, 8]\n")
    assert house_rules_tables("h", tmp_path, SRC) == {"dice": {"steps": [6, 8]}}
    (tmp_path / "ab:c").write_text("[dice]\nsteps = [6]\n")  # only a second ':' is a drive's
    assert house_rules_tables("ab:c", tmp_path, SRC) == {"dice": {"steps": [6]}}


def test_a_missing_house_rules_file_is_named_in_the_saves_folder(tmp_path: Path) -> None:
    assert _refused(_doc(OGS.format("gone.toml")), tmp_path) == f"fight.toml: house_rules: {tmp_path / 'gone.toml'}: file not found"


def test_a_house_rules_fifo_link_out_folder_or_huge_file_is_refused_unread(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.toml")
    outside = tmp_path.parent / f"{tmp_path.name}-secret.toml"
    outside.write_text("[dice]\nsteps = [4]\n")
    (tmp_path / "out.toml").symlink_to(outside)
    (tmp_path / "dir.toml").mkdir()
    (tmp_path / "big.toml").write_text("#" * (MAX_HOUSE_RULES_BYTES + 1))
    (tmp_path / "full.toml").write_text("#" * MAX_HOUSE_RULES_BYTES)
    pipe = _refused(_doc(OGS.format("pipe.toml")), tmp_path)
    assert pipe == f"fight.toml: house_rules: {tmp_path / 'pipe.toml'}: expected a regular house rules file, found a FIFO; it is not opened"
    out = _refused(_doc(OGS.format("out.toml")), tmp_path)
    assert out.startswith("fight.toml: house_rules: ") and "out.toml" in out and "symbolic link" in out
    folder = _refused(_doc(OGS.format("dir.toml")), tmp_path)
    assert folder == f"fight.toml: house_rules: {tmp_path / 'dir.toml'}: expected a regular house rules file, found a folder; it is not opened"
    big = _refused(_doc(OGS.format("big.toml")), tmp_path)
    assert big == (
        f"fight.toml: house_rules: {tmp_path / 'big.toml'}: 1,048,577 bytes (1 MB); house rules files over 1,048,576 bytes (1 MB)"
        " are refused before they are read"
    )
    assert house_rules_tables("full.toml", tmp_path, SRC) == {}  # exactly the limit is read
    outside.unlink()


def test_a_link_inside_the_folder_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("[dice]\nsteps = [4, 6]\n")
    (tmp_path / "h.toml").symlink_to("real.toml")
    assert house_rules_tables("h.toml", tmp_path, SRC) == {"dice": {"steps": [4, 6]}}


def test_a_house_rules_file_that_cannot_be_read_is_named_with_the_systems_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "h.toml").write_text("")

    def denied(*args: Any, **kwargs: Any) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(header.folder, "read_bytes", denied)
    assert _refused(_doc(OGS.format("h.toml")), tmp_path) == f"fight.toml: house_rules: {tmp_path / 'h.toml'}: cannot be read: Permission denied"


def test_house_rules_that_are_not_toml_are_named_with_the_place(tmp_path: Path) -> None:
    (tmp_path / "h.toml").write_text("[dice\n")
    message = _refused(_doc(OGS.format("h.toml")), tmp_path)
    assert message.startswith(f"fight.toml: house_rules: {tmp_path / 'h.toml'}: not valid TOML: ") and "line 1" in message
