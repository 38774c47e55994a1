"""Text at the door of the command language: every yes/no option of every command takes
only its words, and names (combatants, library sheets, actions a GM types, encounter
titles) refuse the characters that would hide, reorder or stack text; a refusal leaves
memory and file as they were."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulesets import registry
from rulesets.dice import RandomDice
from rulesets.fields import Field, FieldError
from tracker.engine import TrackerError
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import COMMANDS, Session
from tests.helpers import cli as run
from tests.helpers import session_for

WORDS = "expected true or false (or yes or no)"
BRANDX_PAIR = ("add A combat_roll=15 learning=0 ep=100 hand_damage=5", "add B vp=40 side=foes")
# One character of each refused kind, for the name routes.
HOSTILE = {
    "bidi": "\u202e",
    "mark": "\u200f",
    "zero-width": "\u200b",
    "joiner": "\u200d",
    "byte order mark": "\ufeff",
    "tag": "\U000e0041",
    "separator": "\u2028",
    "format": "\u00ad",
    "stacked marks": "e" + "\u0301" * 200,
}


def snapshot(s: Session) -> tuple:
    enc = s.encounter
    return ([(c.name, c.side, dict(c.stats), dict(c.resources), c.hidden) for c in enc.combatants.values()], [e.text for e in enc.log], len(enc.events), enc.now)


def freeform(*lines: str) -> Session:
    return session_for(registry.get("freeform"), *lines)


# ----------------------------------------------------------------- yes/no options

# Every yes/no option a command takes: the command table's own (`hidden=`, `secret=`) and
# the rulesets' true/false modifiers (`maintainable=`, `throwback=`) through each verb that
# takes modifiers (declare, maintain, approve).
YES_NO_ROUTES = [
    ("freeform", (), "add Ann hidden={}", "hidden"),
    ("freeform", ("add Ann",), "declare Ann scheme pt=3 secret={}", "secret"),
    ("freeform", ("add Ann",), "declare Ann blast pt=3 maintainable={}", "declare blast.maintainable"),
    ("freeform", ("add A", "add B", "declare A blast target=B pt=2 maintainable=true", "next"), "maintain A maintainable={}", "maintain blast.maintainable"),
    ("brandx", BRANDX_PAIR, "declare A punch target=B throwback={} faces=2,2", "declare punch.throwback"),
]


@pytest.mark.parametrize("word", ["ture", "yes-please", "1", "on", "y", ""])
@pytest.mark.parametrize(("ruleset", "setup", "line", "option"), YES_NO_ROUTES, ids=[r[3] for r in YES_NO_ROUTES])
def test_yes_no_options_refuse_any_other_word(ruleset: str, setup: tuple[str, ...], line: str, option: str, word: str) -> None:
    s = session_for(registry.get(ruleset), *setup)
    before = snapshot(s)
    with pytest.raises(FieldError) as refused:
        s.execute(line.format(word))
    assert str(refused.value) == f"{option}: {WORDS}, got {word!r}"
    assert snapshot(s) == before


@pytest.mark.parametrize(("word", "answer"), [("true", True), ("TRUE", True), ("yes", True), ("false", False), ("no", False)])
def test_yes_no_options_take_their_words(word: str, answer: bool) -> None:
    s = freeform(f"add Ann hidden={word}", "add Bo")
    assert s.encounter.combatant("Ann").hidden is answer
    s.execute(f"declare Bo scheme pt=3 secret={word}")
    assert bool(s.encounter.actions[-1].secret) is answer


def test_the_command_tables_yes_no_options_are_all_tested() -> None:
    """A new `key=true` option in the command table needs a route above."""
    documented = {m for c in COMMANDS for m in re.findall(r"(\w+)=true", c.usage + " " + c.help)}
    tested = {r[3] for r in YES_NO_ROUTES}
    assert documented and documented <= tested


def test_every_rulesets_true_false_field_refuses_other_words() -> None:
    """Settings (`new --set`), sheet keys and action modifiers of every installed game."""
    fields: list[tuple[str, Field]] = []
    for rid in registry.available():
        ruleset = registry.get(rid)
        fields += [(rid, f) for f in (*ruleset.settings, *ruleset.sheet) if f.kind == "bool"]
        fields += [(rid, p) for t in ruleset.catalogue().values() for p in t.params if p.kind == "bool"]
    assert len(fields) > 20
    for rid, f in fields:
        assert f.coerce("Yes", "x") is True and f.coerce("false", "x") is False
        with pytest.raises(FieldError, match=re.escape(f"{rid}.{f.name}: {WORDS}, got 'ture'")):
            f.coerce("ture", f"{rid}.{f.name}")


def test_library_add_hidden_refuses_other_words(tmp_path: Path) -> None:
    s = freeform("add Ogre hp=30")
    s.sheet_library = Library.in_folder(tmp_path, "freeform")
    s.execute("library save Ogre")
    before = snapshot(s)
    with pytest.raises(FieldError, match=re.escape(f"hidden: {WORDS}, got 'yes-please'")):
        s.execute("library add Ogre Grunt hidden=yes-please")
    assert snapshot(s) == before
    s.execute("library add Ogre Lurker hidden=yes")
    assert s.encounter.combatant("Lurker").hidden


def test_approve_refuses_other_words_for_an_edited_modifier() -> None:
    gm = session_for(registry.get("brandx"), *BRANDX_PAIR)
    gm.execute("setting player_declarations approval")
    player = Session(gm.encounter, gm.ruleset, RandomDice(1), None, "bob", Role.player(["A"]))
    seq = player.execute("declare A punch target=B faces=2,2,10,10").event.seq  # type: ignore[union-attr]
    before = snapshot(gm)
    with pytest.raises(FieldError, match=re.escape(f"declare punch.throwback: {WORDS}, got 'ture'")):
        gm.execute(f"approve {seq} throwback=ture")
    assert snapshot(gm) == before and gm.encounter.pending()


def test_new_set_refuses_other_words_for_a_setting(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "fight", "--ruleset", "brandx", "--set", "throwback=ture")[0] == 1
    assert f"throwback: {WORDS}, got 'ture'" in capsys.readouterr().err
    assert not (saves / "fight.toml").exists()
    assert run("new", "fight", "--ruleset", "brandx", "--set", "throwback=no")[0] == 0


# ----------------------------------------------------------------- names


@pytest.mark.parametrize("kind", HOSTILE)
def test_names_are_refused_at_every_door(kind: str, tmp_path: Path) -> None:
    bad = f"Ann{HOSTILE[kind]}X"
    s = freeform("add Ann hp=3", "add Bo hp=3")
    s.sheet_library = Library.in_folder(tmp_path, "freeform")
    s.execute("library save Ann")
    before = snapshot(s)
    for line, what in [
        (f'add "{bad}" hp=3', "add: name"),
        (f'add "{bad}" x3 hp=3', "add: name"),
        (f'rename Ann "{bad}"', "rename: new name"),
        (f'library add Ann "{bad}"', "add: name"),
        (f'declare Bo "{bad}" pt=3', "declare: action"),
        (f'library save Ann as="{bad}"', "library: sheet name"),
    ]:
        with pytest.raises(TrackerError) as refused:
            s.execute(line)
        assert str(refused.value).startswith((f"{what}: ", "command: ")), line  # a line with a separator is refused whole
        assert snapshot(s) == before
    for call, what in [
        (lambda: s.add(bad, {}), "add: name"),
        (lambda: s.add(bad, {}, copies=3), "add: name"),
        (lambda: s.rename("Ann", bad), "rename: new name"),
        (lambda: s.add_from_library("Ann", bad), "add: name"),
        (lambda: s.declare("Bo", bad, pt=3), "declare: action"),
        (lambda: s.save_sheet("Ann", bad), "library: sheet name"),
    ]:
        with pytest.raises(TrackerError) as refused:
            call()
        assert str(refused.value).startswith(f"{what}: ")
        assert snapshot(s) == before
    assert s.execute("library").lines == ["library-freeform.toml: Ann"]


def test_a_name_is_at_most_40_cells_with_its_copy_number() -> None:
    s = freeform()
    s.execute(f"add {'x' * 40}")
    with pytest.raises(TrackerError, match="a name fits in 40 terminal cells, this one takes 41"):
        s.execute(f"add {'y' * 41}")
    with pytest.raises(TrackerError, match="this one takes 42"):
        s.execute(f"add {'鬼' * 21}")
    with pytest.raises(TrackerError, match="this one takes 41"):
        s.execute(f"add {'z' * 38} x10")  # "zz...z 10" would not fit
    s.execute(f"add {'z' * 38} x9")
    assert len(s.encounter.combatants) == 10


@pytest.mark.parametrize("name", ["Nguyễn Văn", "鬼武者", "عنترة", "กิ่ง", "Ann ❤️"])
def test_names_of_every_script_are_welcome(name: str) -> None:
    s = freeform(f'add "{name}" hp=3', f'rename "{name}" "{name} 2"')
    assert list(s.encounter.combatants) == [f"{name} 2"]


def test_notes_keep_joiners_and_right_to_left_marks_but_not_separators() -> None:
    s = freeform("note 👨\u200d👩\u200d👧 family \u200fשלום")
    assert "👨\u200d👩\u200d👧 family \u200fשלום" in s.encounter.log[-1].text
    before = snapshot(s)
    with pytest.raises(TrackerError, match=r"^command: .*line or paragraph separator, at character 9"):
        s.execute("note one\u2028two")
    with pytest.raises(TrackerError, match=r"^note: .*line or paragraph separator, at character 4"):
        s.note("one\u2029two")
    assert snapshot(s) == before


def test_the_encounter_title_follows_the_name_rules(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "fight", "--ruleset", "freeform", "--name", "Dusk\u202egnikoob")[0] == 1
    assert "--name: control characters are not allowed (found <U+202E>, a bidi mark" in capsys.readouterr().err
    assert run("new", "fi\u200bght", "--ruleset", "freeform")[0] == 1
    assert "the title from the file name" in capsys.readouterr().err
    assert run("new", "fight", "--ruleset", "freeform", "--name", "t" * 81)[0] == 1
    assert "a name fits in 80 terminal cells" in capsys.readouterr().err
    assert sorted(p.name for p in saves.iterdir()) == []
    assert run("new", "fight", "--ruleset", "freeform", "--name", "Dusk at the Docks")[0] == 0


def test_a_stored_name_with_refused_characters_still_loads_and_can_be_renamed(tmp_path: Path) -> None:
    """An old or hand-edited save is read, not refused: the GM can fix the name."""
    store, _ = EncounterFile.create(tmp_path / "fight.toml", "fight", "freeform")
    s = Session(store.load().encounter, registry.get("freeform"), RandomDice(1), store)
    s.execute("add Ann hp=3")
    text = store.path.read_text(encoding="utf-8").replace('"Ann"', '"Ann\\u200bX"')
    store.path.write_text(text, encoding="utf-8")
    loaded = EncounterFile(store.path).load()
    assert list(loaded.encounter.combatants) == ["Ann\u200bX"]
    again = Session(loaded.encounter, loaded.ruleset, RandomDice(1), EncounterFile(store.path))
    again.execute('rename "Ann\u200bX" Ann')
    assert list(EncounterFile(store.path).load().encounter.combatants) == ["Ann"]
