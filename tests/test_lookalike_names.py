"""Names that only look like another, or like nothing (tracker.engine.text: `skeleton`,
`lookalike`, `refuse_blank`; docs/decisions/0052-look-alike-names.md).

A Cyrillic "Sеraph" beside "Seraph", a fullwidth "Ｓeraph", or a name that draws as blank
(U+3164 HANGUL FILLER, U+115F, U+2800 BRAILLE PATTERN BLANK, U+034F COMBINING GRAPHEME
JOINER) was accepted. Each is refused at every door a name comes in by (add, copies,
rename, the library both ways), naming what it looks like and the characters that make
the difference; memory and file stay as they were. Sides get the same checks; two names
typed in ASCII are told apart as typed.
"""

from __future__ import annotations

import tomllib
import unicodedata
from pathlib import Path

import pytest

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.engine import TrackerError
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.engine.text import BLANK, check_name, lookalike, skeleton
from tests.helpers import cli as run
from tests.helpers import session_for

CYRILLIC_SERAPH = "S\u0435raph"  # CYRILLIC SMALL LETTER IE
FULLWIDTH_SERAPH = "\uff33eraph"  # FULLWIDTH LATIN CAPITAL LETTER S
BLANKS = {"\u3164": "HANGUL FILLER", "\u115f": "HANGUL CHOSEONG FILLER", "\u2800": "BRAILLE PATTERN BLANK", "\u034f": "COMBINING GRAPHEME JOINER"}
TABLE = Path(__file__).resolve().parent.parent / "tracker" / "engine" / "confusables.toml"


def snapshot(s: Session) -> tuple:
    enc = s.encounter
    return ([(c.name, c.side) for c in enc.combatants.values()], [e.text for e in enc.log], len(enc.events))


def saved(tmp_path: Path, *lines: str) -> Session:
    store, _ = EncounterFile.create(tmp_path / "fight.toml", "fight", "freeform")
    s = Session(store.load().encounter, registry.get("freeform"), RandomDice(1), store)
    s.sheet_library = Library.in_folder(tmp_path, "freeform")
    for line in lines:
        s.execute(line)
    return s


# ----------------------------------------------------------------- the skeleton


@pytest.mark.parametrize(
    ("name", "other", "differs"),
    [
        (CYRILLIC_SERAPH, "Seraph", "<U+0435> CYRILLIC SMALL LETTER IE"),
        ("Seraph", CYRILLIC_SERAPH, "<U+0435> CYRILLIC SMALL LETTER IE"),  # either way round
        (FULLWIDTH_SERAPH, "Seraph", "<U+FF33> FULLWIDTH LATIN CAPITAL LETTER S"),
        ("\u0412\u041e\u0412", "bob", "<U+0412> CYRILLIC CAPITAL LETTER VE, <U+041E> CYRILLIC CAPITAL LETTER O"),  # ВОВ, ignoring case
        ("\u0399van", "Ivan", "<U+0399> GREEK CAPITAL LETTER IOTA"),
        ("\u0456van", "IVAN", "<U+0456> CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I"),
        ("Jose\u0301", "Jos\u00e9", "<U+0301> COMBINING ACUTE ACCENT, <U+00E9> LATIN SMALL LETTER E WITH ACUTE"),  # one name, two spellings
        ("O\u2019Neil", "O'Neil", "<U+2019> RIGHT SINGLE QUOTATION MARK"),
    ],
)
def test_a_name_that_reads_as_another_is_a_lookalike(name: str, other: str, differs: str) -> None:
    assert skeleton(name) == skeleton(other) or skeleton(name.upper()) == skeleton(other.upper())
    assert lookalike(name, other) == differs


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("Seraph", "seraph"),  # the same name ignoring case: the duplicate check's business
        ("Guard 1", "Guard l"),  # ASCII is told apart as typed (TR39 maps 1 and l alike)
        ("Arnie", "Amie"),  # and rn from m
        ("G\u00f8blin 1", "G\u00f8blin l"),  # a difference in ASCII, in a name that is not all ASCII
        ("S\u00e9raph", "Seraph"),  # an accent is a letter of its own
        ("\u0421\u0435\u0440\u0433\u0435\u0439", "Seraph"),  # Сергей
        ("\u9b3c\u6b66\u8005", "\u9b3c\u6b66"),
        ("Ann \u2764\ufe0f", "Ann"),
    ],
)
def test_names_that_read_differently_are_not_lookalikes(name: str, other: str) -> None:
    assert lookalike(name, other) is None


def test_the_table_is_unicodes_confusables_with_printable_ascii_prototypes() -> None:
    """Each row: one character, as a name holds it after NFKC and NFD, and what it reads
    as, in printable ASCII (a sample of UTS #39's confusables.txt, checked by hand)."""
    rows = tomllib.loads(TABLE.read_text(encoding="utf-8"))["prototypes"]
    for source, prototype in rows.items():
        assert len(source) == 1 and unicodedata.normalize("NFD", unicodedata.normalize("NFKC", source)) == source, hex(ord(source))
        assert prototype and all(" " <= c <= "~" for c in prototype) and prototype != source
    assert 600 < len(rows) < 800
    assert rows["\u0435"] == "e" and rows["\u0430"] == "a" and rows["\u043e"] == "o" and rows["\u0441"] == "c"  # Cyrillic е а о с
    assert rows["\u0412"] == "B" and rows["\u041d"] == "H" and rows["\u0391"] == "A" and rows["\u03bf"] == "o"  # В Н Α ο
    assert rows["1"] == "l" and rows["I"] == "l" and rows["0"] == "O" and rows["m"] == "rn"
    assert "\uff33" not in rows  # fullwidth: NFKC reads it first


# ----------------------------------------------------------------- blank names


@pytest.mark.parametrize("char", sorted(BLANKS), ids=lambda c: f"U+{ord(c):04X}")
def test_a_character_that_draws_as_blank_is_refused_in_a_name_naming_it(char: str) -> None:
    assert char in BLANK
    for name in (char, char * 3, f"Se{char}raph", f"{char} "):
        with pytest.raises(TrackerError, match=rf"^add: name: characters that draw as blank are not allowed \(found <U\+{ord(char):04X}>, {BLANKS[char]}, at character \d\)"):
            check_name(name, "add: name")


def test_a_name_of_spaces_alone_is_refused() -> None:
    for name in ("\u3000", " \u00a0 ", "\u2003"):
        with pytest.raises(TrackerError, match="a name cannot be blank"):
            check_name(name, "add: name")


# ----------------------------------------------------------------- at every door


def test_lookalikes_and_blank_names_are_refused_at_every_door(tmp_path: Path) -> None:
    s = saved(tmp_path, "add Seraph hp=5 side=party", "add Goblin hp=3 side=foes", "library save Goblin")
    before = snapshot(s)
    file_before = s.store.path.read_bytes()
    library_before = s.sheet_library.path.read_bytes()
    for line, start in [
        (f"add {CYRILLIC_SERAPH} hp=3", f"add: name: '{CYRILLIC_SERAPH}' looks like 'Seraph', a combatant in the fight"),
        (f"add {FULLWIDTH_SERAPH} hp=3", f"add: name: '{FULLWIDTH_SERAPH}' looks like 'Seraph', a combatant in the fight"),
        ("add G\u043eblin x3", "add: name: 'G\u043eblin' looks like 'Goblin'"),  # the copies' name
        (f"rename Goblin {CYRILLIC_SERAPH}", f"rename: new name: '{CYRILLIC_SERAPH}' looks like 'Seraph'"),
        (f"library add Goblin {CYRILLIC_SERAPH}", f"add: name: '{CYRILLIC_SERAPH}' looks like 'Seraph'"),
        ("library save Seraph as=G\u043eblin", "library: sheet name: 'G\u043eblin' looks like 'Goblin', a sheet in library-freeform.toml"),
        ("add Orc side=f\u043ees", "add: side: 'f\u043ees' looks like 'foes', a side in the fight"),
        ("side Goblin p\u0430rty", "side: 'p\u0430rty' looks like 'party', a side in the fight"),
        ("add Orc side=P\u0421s", "add: side: 'P\u0421s' looks like 'pcs', a word that marks the players' side"),
        ("add \u3164", "add: name: characters that draw as blank"),
        ("add \u2800\u2800 x2", "add: name: characters that draw as blank"),
        ("rename Goblin Gob\u034flin", "rename: new name: characters that draw as blank"),
        ("library save Goblin as=\u115f", "library: sheet name: characters that draw as blank"),
        ("add Orc side=\u3164", "add: side: characters that draw as blank"),
        ("side Goblin \u2800", "side: characters that draw as blank"),
    ]:
        with pytest.raises(TrackerError) as refused:
            s.execute(line)
        assert str(refused.value).startswith(start), (line, str(refused.value))
        assert snapshot(s) == before, line
    assert "(they differ by <U+0435> CYRILLIC SMALL LETTER IE); choose one that reads differently" in _refusal(s, f"add {CYRILLIC_SERAPH}")
    assert s.store.path.read_bytes() == file_before and s.sheet_library.path.read_bytes() == library_before
    # What reads differently is welcome, in any script, and the same name may be saved again.
    s.execute("add \u0421\u0435\u0440\u0433\u0435\u0439 hp=3 side=\u0432\u0440\u0430\u0433\u0438")  # Сергей, враги
    s.execute("add Goblin x2")  # Goblin 1, Goblin 2 beside Goblin
    s.execute("rename Seraph Sera")
    s.execute(f"add {CYRILLIC_SERAPH} hp=3")  # Seraph has left the name
    s.execute("library save Goblin")
    assert list(s.encounter.combatants) == ["Sera", "Goblin", "\u0421\u0435\u0440\u0433\u0435\u0439", "Goblin 1", "Goblin 2", CYRILLIC_SERAPH]
    assert list(EncounterFile(s.store.path).load().encounter.combatants) == list(s.encounter.combatants)


def _refusal(s: Session, line: str) -> str:
    try:
        s.execute(line)
    except TrackerError as exc:
        return str(exc)
    raise AssertionError(f"{line!r} was not refused")


def test_a_save_that_already_holds_lookalikes_still_opens(tmp_path: Path) -> None:
    """The check is at the door, not in the replay: an old or hand-edited file opens, and
    the GM can rename one of the two apart."""
    s = saved(tmp_path, "add Seraph hp=5", "add Sera hp=5")
    path = s.store.path
    path.write_text(path.read_text(encoding="utf-8").replace('"Sera"', f'"{CYRILLIC_SERAPH}"'), encoding="utf-8")
    loaded = EncounterFile(path).load()
    assert list(loaded.encounter.combatants) == ["Seraph", CYRILLIC_SERAPH]
    again = Session(loaded.encounter, loaded.ruleset, RandomDice(1), EncounterFile(path))
    again.execute(f"rename {CYRILLIC_SERAPH} Sera")
    assert list(EncounterFile(path).load().encounter.combatants) == ["Seraph", "Sera"]


def test_an_encounter_title_that_draws_as_blank_is_refused(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Titles follow the name rules (blank characters refused); they are not compared with
    other fights' titles: each is a file of its own, found by its file name."""
    assert run("new", "fight", "--ruleset", "freeform", "--name", "\u3164")[0] == 1
    assert "--name: characters that draw as blank are not allowed (found <U+3164>, HANGUL FILLER" in capsys.readouterr().err
    assert sorted(p.name for p in saves.iterdir()) == []
    assert run("new", "fight", "--ruleset", "freeform", "--name", "Dusk at the Docks")[0] == 0
    assert run("new", "other", "--ruleset", "freeform", "--name", "D\u0443sk at the Docks")[0] == 0


def test_players_sides_and_copies_keep_working_in_ascii() -> None:
    s = session_for(registry.get("freeform"), "add Ann side=PCs", "add Bo side=pcs", "add 'Guard 1'", "add 'Guard l'", "add Arnie", "add Amie")
    assert [c.side for c in s.encounter.combatants.values()][:2] == ["PCs", "pcs"]
    assert len(s.encounter.combatants) == 6
