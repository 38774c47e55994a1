"""A GM's house-rules tables are checked whole when a save is loaded (rulesets/tables.py).

tables.toml of every game: "A GM's house-rules file of the same shape overrides any
key". A file of another shape is refused when the save is opened, naming the save, the
house file, the table, the row and the field, so `tracker check` fails on it rather than
the fight failing (or crashing) at the table's first use. Each game's shipped save (in
`saves/`) is copied with `house_rules = "house.toml"` and a house file beside it.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import cli
from tracker.engine.errors import TrackerError
from tracker.persistence.checks import SaveError
from tracker.persistence.store import EncounterFile
from rulesets import registry

ROOT = Path(__file__).resolve().parent.parent
SAVES = {"brandx": "seraph-vs-sphinx.toml", "ogs": "ogs-guard.toml", "ore": "ore-knife-fight.toml",
         "usor": "usor-mountain-pass.toml", "d6": "d6-warehouse.toml"}
CHECKED = ("brandx", "ogs", "ore", "usor")  # D6 checks its own tables (rulesets/d6/tables.py)


def shipped(game: str) -> dict[str, Any]:
    with open(ROOT / "rulesets" / game / "tables.toml", "rb") as handle:
        return tomllib.load(handle)


def save_with(folder: Path, game: str, house: str) -> Path:
    """The game's shipped save in `folder`, naming `house.toml` (written with `house`)."""
    path = folder / SAVES[game]
    text = (ROOT / "saves" / SAVES[game]).read_text(encoding="utf-8")
    assert "\nruleset = " in text
    path.write_text(text.replace("\nruleset = ", '\nhouse_rules = "house.toml"\nruleset = ', 1), encoding="utf-8")
    (folder / "house.toml").write_text(house, encoding="utf-8")
    return path


def refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Loading `path` fails with a SaveError, `tracker check` exits 1 saying the same, and
    the save is left as it was. Returns the message."""
    before = path.read_bytes()
    with pytest.raises(SaveError) as error:
        EncounterFile(path).load()
    message = str(error.value)
    capsys.readouterr()
    code, out = cli("check", str(path))
    assert code == 1 and out == ""
    assert message in capsys.readouterr().err
    assert path.read_bytes() == before
    return message


TOP_LEVEL = [(game, key) for game in CHECKED for key in shipped(game)]


@pytest.mark.parametrize("game,key", TOP_LEVEL, ids=[f"{g}-{k}" for g, k in TOP_LEVEL])
def test_a_table_that_is_not_a_table_is_refused_when_the_save_is_loaded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, key: str) -> None:
    """`KEY = 3` in place of the rows of [KEY]: the save, the house file and the table
    are named, and what was given."""
    path = save_with(tmp_path, game, f"{key} = 3\n")
    message = refused(path, capsys)
    assert message.startswith(f"{path}: ruleset: house rules house.toml: "), message
    assert re.search(rf"\b{key}\b.*: expected .*got 3$", message), message


# One malformed row (or more) per table; the message names table, row and field, with
# the figures worked from the table's own comment or the rule it feeds.
BAD_ROWS = [
    # Brand X: chart rows >= 1 are numbers, rows <= 0 { fraction, negative }.
    ("brandx", '[square]\n5 = "lots"\n', r"tables: \[square\] row 5: expected a number, got 'lots'$"),
    ("brandx", "[sphere]\n-3 = { fraction = 2.0 }\n",
     r"tables: \[sphere\] row -3\.fraction: expected a number from 0 to 1, got 2\.0$"),
    ("brandx", "[sphere]\n-3 = { fraction = 0.3, negatve = -3 }\n",
     r"tables: \[sphere\] row -3\.negatve: expected only fraction and negative$"),
    # Doubles: "Doubles 2^(n-1)": row 9 is 2^8 = 256, so a row 10 of 2 falls below it.
    ("brandx", "[doubles]\n10 = 2\n",
     r"tables: \[doubles\] row 10: expected an entry of at least 256 \(row 9's; entries may not fall as the row rises\), got 2$"),
    ("brandx", "[result]\n0 = { fraction = 0.9, negative = 5 }\n",
     r"tables: \[result\] row 0\.negative: expected a number of at most 0, got 5$"),
    ("brandx", '[ep]\nfirst_paid_row = "five"\n', r"tables: \[ep\]\.first_paid_row: expected a whole number, got 'five'$"),
    # "row 4 costs 1 EP per 5 uses": one EP per 0 uses is no rule at all.
    ("brandx", "[ep_uses_per_point]\n4 = 0\n",
     r"tables: \[ep_uses_per_point\] row 4: expected a whole number of at least 1, got 0$"),
    ("brandx", "[ep_start]\ncombat = 5.5\n", r"tables: \[ep_start\]\.combat: expected a whole number, got 5\.5$"),
    ("brandx", "[ep_start]\nheal = 3\n", r"tables: \[ep_start\]\.heal: expected one of combat, hand_damage, .*, discernment \(no such row is read\)$"),
    # OGS: a die of fewer than 2 sides; a negative time; a difficulty that is text.
    ("ogs", "[dice]\nsteps = [4, 6, 8, 10, 1]\n",
     r"ogs tables \[dice\]\.steps\[4\]: expected a die size from 2 to 1,000, got 1$"),
    ("ogs", '[dice]\noverflow = "86"\n', r"ogs tables \[dice\]\.overflow: expected a list of die sizes such as \[4, 6, 8\], got '86'$"),
    ("ogs", "[dice]\noverflow_target = 2\n",
     r"ogs tables \[dice\]\.overflow_target: expected an index into overflow from 0 to 1, got 2$"),
    ("ogs", '[check]\ndefault_difficulty = "hard"\n',
     r"ogs tables \[check\]\.default_difficulty: expected a whole number of at least 0, got 'hard'$"),
    ("ogs", "[check]\nstage_sise = 3\n",
     r"ogs tables \[check\]\.stage_sise: expected one of first_stage, stage_size, default_difficulty \(no such row is read\)$"),
    ("ogs", "[time]\nattack = -5\n",
     r"ogs tables \[time\]\.attack: expected a whole number of segments from 1 to 1,000,000,000,000, got -5$"),
    # ORE: "Hit location by Height ... 10 head" and the sheet's 1 to 50 boxes.
    ("ore", "[dice]\nmax_rolled = 0\n", r"ore tables \[dice\]\.max_rolled: expected a whole number from 1 to 100, got 0$"),
    ("ore", '[dice]\npenalty_order = ["hard", "hard", "wiggle"]\n',
     r"ore tables \[dice\]\.penalty_order: expected hard, normal and wiggle in some order, got \['hard', 'hard', 'wiggle'\]$"),
    ("ore", '[hit_locations]\n7 = "tail"\n', r"ore tables \[hit_locations\]\.7: expected a location \(left_leg, .*\), got 'tail'$"),
    ("ore", '[hit_locations]\n7 = ""\n', r"ore tables \[hit_locations\]\.7: expected a location .*, got ''$"),
    ("ore", "[wound_boxes]\nhead = 0\n", r"ore tables \[wound_boxes\]\.head: expected a whole number from 1 to 50, got 0$"),
    ("ore", "[overflow]\nleft_leg = 3\n",
     r"ore tables \[overflow\]\.left_leg: expected a location \(.*\) \(or \"\" for nowhere\), got 3$"),
    ("ore", '[actions.punch]\nstat = "muscle"\n',
     r"ore tables \[actions\]\.punch\.stat: expected one of body, coordination, sense, brains, command, cool, got 'muscle'$"),
    ("ore", '[actions.strike]\nstat = "body"\ndamage = "width fire"\n', r"ore tables \[actions\]\.strike\.damage: expected damage such as"),
    ("ore", "[actions]\npunch = 4\n", r"ore tables \[actions\]\.punch: expected a row such as .*, got 4$"),
    # USOR: "the physical damage points (PDP) the location takes before it is destroyed".
    ("usor", "[locations]\nhead = { penalty = -10, points = 0 }\n",
     r"locations\.head\.points: expected a whole number from 1 to 1,000,000,000,000, got 0$"),
    ("usor", '[locations]\nhead = { penalty = "-10" }\n', r"locations\.head\.penalty: expected a whole number from -1,000 to 1,000, got '-10'$"),
    ("usor", "[damage]\nstrike_per_size = -1\n", r"damage\.strike_per_size: expected a whole number from 0 to 1,000, got -1$"),
    ("usor", '[damage]\nstun_knockout = "twenty"\n',
     r"damage\.stun_knockout: expected a whole number from 1 to 1,000,000,000,000, got 'twenty'$"),
    # "Every NOST from 2 needs a row, each larger than the one before": 2 = 7 over the
    # shipped 3 = 4 falls.
    ("usor", "[critical_strike]\n2 = 7\n", r"critical_strike\.3: a Critical Strike must add more with every NOST .*4 is not more than 7"),
    ("usor", "[actions]\nmove = { bat = -5, scaled = false }\n",
     r"actions\.move\.bat: expected a whole number of seconds from 1 to 1,000,000,000,000, got -5$"),
    ("usor", "[actions]\nfly = { bat = 5 }\n", r"actions\.fly: expected one of the actions strike, check, contest, move$"),
    ("usor", "[glossary_rows]\n11 = { dice = [6, 1] }\n", r"glossary_rows\.11\.dice: expected a list of die sizes .*, got \[6, 1\]$"),
    ("usor", '[event_chart]\n16 = { dice = [8, 12], sorce = "official" }\n',
     r"event_chart\.16\.sorce: expected one of dice, source, note \(no such field is read\)$"),
    ("usor", "[actions]\nmove = { bat = 5, scaled = false, sclaed = true }\n",
     r"actions\.move\.sclaed: expected one of bat, scaled \(no such field is read\)$"),
    ("usor", "[locations]\nhead = { penalty = -10, pionts = 5 }\n",
     r"locations\.head\.pionts: expected one of penalty, points \(no such field is read\)$"),
    ("ore", '[actions.punch]\nstat = "body"\nskil = "brawling"\n',
     r"ore tables \[actions\]\.punch\.skil: expected one of stat, skill, damage \(no such field is read\)$"),
    # More of each reader's checks: a row past the charts' 2000 rows; "a row at or below
    # `free_at_or_below` costs nothing" and row 5 is the first paid row, so free up to 5
    # leaves no row between; an overflow die not on the ladder; locations the sheet lacks.
    ("brandx", "[sphere]\n5000 = 1e9\n", r"tables: \[sphere\] row 5000: expected a row from -2000 to 2000$"),
    ("brandx", "[ep]\nfree_at_or_below = 5\n", r"tables: \[ep\]\.free_at_or_below: expected a row below first_paid_row \(5\), got 5$"),
    ("ogs", "[dice]\noverflow = [8, 7]\n", r"ogs tables \[dice\]\.overflow: expected sizes from steps \(4, 6, 8, 10, 12\), got \[8, 7\]$"),
    ("ogs", "[dice]\nsteps = [4, 8, 6]\n", r"ogs tables \[dice\]\.steps: expected increasing die sizes, got \[4, 8, 6\]$"),
    ("ore", "[wound_boxes]\ntail = 3\n", r"ore tables \[wound_boxes\]\.tail: expected a location \(left_leg, .*\), got 'tail'$"),
    ("ore", "[hit_locations]\n11 = \"head\"\n", r"ore tables \[hit_locations\]\.11: expected a height from 1 to 10 as the key$"),
    ("usor", "[locations]\ntail = { penalty = -2, points = 3 }\n",
     r"locations\.tail: expected a location \(chest, head, right_arm, left_arm, right_leg, left_leg\)$"),
    # A row key is its number in digits: "1_0" is not row 10 (Python's int() reads it so).
    ("brandx", '[sphere]\n"1_0" = 5\n', r"tables: \[sphere\] row '1_0': expected a whole row number$"),
    ("brandx", '[ep_uses_per_point]\n"2_0" = 4\n', r"tables: \[ep_uses_per_point\] row 2_0: expected a whole row number$"),
    ("usor", '[event_chart]\n"1_6" = { dice = [8, 12] }\n', r"event_chart\.1_6: expected a whole-number Event Rating as the key$"),
    # Any game: a table the adapter never reads (a misspelt [sphre]).
    ("brandx", "[sphre]\n18 = 134\n", r"\[sphre\]: expected one of the tables square, sphere, doubles, result, ep, .* \(no such table is read\)$"),
]


@pytest.mark.parametrize("game,house,expected", BAD_ROWS, ids=[f"{g}-{i}" for i, (g, _, _) in enumerate(BAD_ROWS)])
def test_a_malformed_house_row_is_refused_naming_table_row_and_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, house: str, expected: str) -> None:
    path = save_with(tmp_path, game, house)
    message = refused(path, capsys)
    prefix = f"{path}: ruleset: house rules house.toml: "
    assert message.startswith(prefix), message
    assert re.search(expected, message[len(prefix):]), message


def test_every_table_has_a_malformed_row_case() -> None:
    """The cases above cover each table of each game (a table added later needs one)."""
    covered = {(g, m.group(1)) for g, house, _ in BAD_ROWS for m in re.finditer(r"^\[([a-z_]+)", house, re.M)}
    covered |= {(g, house.split(" ")[0]) for g, house, _ in BAD_ROWS if not house.startswith("[")}
    assert {(g, k) for g, k in TOP_LEVEL} <= covered


def test_an_ore_location_table_must_place_every_height() -> None:
    """"Hit location by Height: 1 left leg; 2 right leg; 3-4 left arm; 5-6 right arm;
    7-9 torso; 10 head" (O9). A house file cannot take a shipped row away, so this
    guards the tables as a whole: with only heights 1 and 10 placed, height 2 has no
    location and the tables are refused when read, not at the first 2-high set."""
    from rulesets.ore.tables import OreTables

    tables = shipped("ore")
    assert OreTables.read(tables, tuple(tables["actions"])).hit_locations["10"] == "head"
    tables["hit_locations"] = {"1": "left_leg", "10": "head"}
    with pytest.raises(TrackerError, match=r"^ore tables \[hit_locations\]: no location for height 2$"):
        OreTables.read(tables, tuple(tables["actions"]))


def test_the_ogs_crash_at_first_use_is_now_a_named_refusal_at_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`dice = 3` in the OGS guard's house file once crashed `roll Michael 2d6` with an
    AttributeError; now `play` refuses the save by name before any line runs."""
    path = save_with(tmp_path, "ogs", "dice = 3\n")
    code, _ = cli("play", str(path), stdin="roll Michael 2d6\n")
    err = capsys.readouterr().err
    assert code == 1
    assert "house rules house.toml: ogs tables [dice]: expected a table of rows" in err and "internal error" not in err


def test_the_start_screen_lists_the_save_with_the_message(tmp_path: Path) -> None:
    """The start screen's row for such a save says why it cannot be loaded (the same
    message as `tracker check`), rather than the list failing."""
    from tracker.ui.screens.start import listing_of

    path = save_with(tmp_path, "ore", "[wound_boxes]\nhead = 0\n")
    row = listing_of(path)
    assert row.error == (f"{path}: ruleset: house rules house.toml: ore tables [wound_boxes].head: "
                         "expected a whole number from 1 to 50, got 0") and not row.refused


def test_a_good_house_row_still_overrides_the_shipped_one(tmp_path: Path) -> None:
    """One row per game, read back through the loaded save's ruleset.
    Brand X "[sphere] 18 = 134" (the formula's figure over the printed 133): 133 reads
    row 17. OGS overflow [10, 8]: a d12 +1 becomes d10 + d8 (the seed's [d8 + d6] shape).
    ORE head 6 boxes; USOR 25 stun points."""
    from rulesets.ogs.notation import increase_die

    cases = {"brandx": "[sphere]\n18 = 134\n", "ogs": "[dice]\noverflow = [10, 8]\n",
             "ore": "[wound_boxes]\nhead = 6\n", "usor": "[damage]\nstun_knockout = 25\n"}
    loaded = {}
    for game, house in cases.items():
        folder = tmp_path / game
        folder.mkdir()
        loaded[game] = EncounterFile(save_with(folder, game, house)).load().ruleset
    brandx = loaded["brandx"].charts  # type: ignore[attr-defined]
    assert brandx.value("sphere", 18) == 134 and brandx.sphere(133) == 17 and brandx.value("sphere", 17) == 100
    assert increase_die(12, 1, loaded["ogs"].steps) == [10, 8]  # type: ignore[attr-defined]
    _, ore = loaded["ore"].build_sheet({}, "add A")
    assert ore["head"] == 6 and ore["head_k"] == 6 and ore["torso"] == 10
    _, usor = loaded["usor"].build_sheet({}, "add X")
    assert usor["stun"] == 25 and usor["head"] == 4


def test_a_house_rules_path_given_directly_is_checked_and_named(tmp_path: Path) -> None:
    """`registry.get` with a house-rules file reads and checks it whole, naming the file."""
    house = tmp_path / "house.toml"
    house.write_text("[time]\nmove = 0\n", encoding="utf-8")
    with pytest.raises(TrackerError, match=rf"^house rules {re.escape(str(house))}: ogs tables \[time\]\.move: expected a whole number of segments"):
        registry.get("ogs", house)
    house.write_text("[time]\nmove = 3\n", encoding="utf-8")
    assert registry.get("ogs", house).catalogue()["move"].pt == 3


# -- any house file: loaded, or refused by name ----------------------------------------
_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.integers(min_value=-3, max_value=40),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=6), st.dates(),
)
_FIELDS = ("dice", "source", "note", "fraction", "negative", "bat", "scaled", "penalty", "points", "stat", "skill",
           "damage", "steps", "overflow", "overflow_target", "number", "name", "min", "rank", "over")


def _values(game: str) -> st.SearchStrategy[Any]:
    lists = st.lists(_SCALARS, max_size=4)
    rows = st.dictionaries(st.one_of(st.sampled_from(_FIELDS), st.text(min_size=1, max_size=4)), st.one_of(_SCALARS, lists), max_size=3)
    return st.one_of(_SCALARS, lists, rows)


@st.composite
def house_files(draw: st.DrawFn, game: str) -> dict[str, Any]:
    tables = shipped(game)
    house: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(sorted(tables)), min_size=1, max_size=3, unique=True)):
        if draw(st.booleans()) and isinstance(tables[key], dict):
            rows = sorted(tables[key])
            house[key] = draw(st.dictionaries(st.one_of(st.sampled_from(rows), st.text(min_size=1, max_size=3)),
                                              _values(game), min_size=1, max_size=3))
        else:
            house[key] = draw(_values(game))
    return house


@pytest.mark.parametrize("game", sorted(SAVES))
def test_any_house_file_loads_or_is_refused_by_name(tmp_path_factory: pytest.TempPathFactory, game: str) -> None:
    """Random TOML values over the shipped table keys, through the save's load path:
    the save loads (and its tables are then readable), or a TrackerError names the
    house file; never another exception."""
    folder = tmp_path_factory.mktemp(game)
    path = save_with(folder, game, "")
    shutil.copy(path, folder / "save.toml")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(house=house_files(game))
    def check(house: dict[str, Any]) -> None:
        (folder / "house.toml").write_text(tomli_w.dumps(house), encoding="utf-8")
        try:
            loaded = EncounterFile(folder / "save.toml").load()
        except SaveError as exc:
            assert ": ruleset: house rules house.toml: " in str(exc), exc
            return
        loaded.ruleset.catalogue()

    check()


# ------------------------------------------------------------ the shared readers
def test_the_shared_number_readers_refuse_what_a_chart_cannot_hold() -> None:
    """A chart entry is a finite number in its row's range: TOML's nan and inf, true,
    and text are refused by name, as is a whole number past what a save can hold; the
    bounds themselves are allowed (a fraction row from 0 to 1)."""
    from rulesets.tables import number, whole

    where = "tables: [sphere] row 0.fraction"
    assert number(0, where, 0, 1) == 0 and number(1, where, 0, 1) == 1 and number(0.5, where, 0, 1) == 0.5
    for bad in (True, "0.5", float("nan"), float("inf"), -0.1, 1.5):
        with pytest.raises(TrackerError, match=rf"^{re.escape(where)}: expected a number from 0 to 1, got "):
            number(bad, where, 0, 1)
    with pytest.raises(TrackerError, match=r"^x: expected a number, got nan$"):
        number(float("nan"), "x")
    assert whole(5, "x", 5, 5) == 5
    for bad_whole in (2**64, True, 5.0, "5"):
        with pytest.raises(TrackerError, match=r"^x: expected a whole number, got "):
            whole(bad_whole, "x")


def test_a_house_file_that_is_a_pipe_too_big_or_not_toml_is_refused_by_name(tmp_path: Path) -> None:
    """A house-rules file named directly (`registry.get(game, path)`) is read as a save's
    is: a named pipe is refused without waiting for a writer (the open does not block),
    a file of MAX_TABLES_BYTES is read and one byte more refused, and text that is not
    UTF-8 or not TOML is named. Each refusal names the file."""
    import os
    import threading

    from rulesets.tables import MAX_TABLES_BYTES

    pipe = tmp_path / "house.fifo"
    os.mkfifo(pipe)
    outcome: list[str] = []

    def read_pipe() -> None:
        try:
            registry.get("brandx", pipe)
        except TrackerError as exc:
            outcome.append(str(exc))

    reader = threading.Thread(target=read_pipe, daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # the open waits for a writer: let it go, then fail
        with open(pipe, "wb"):
            pass
        reader.join(5)
        raise AssertionError("reading a named pipe as house rules waited for a writer")
    assert outcome == [f"{pipe}: expected a regular file (not a device, folder or pipe)"]

    house = tmp_path / "house.toml"
    body = b"[sphere]\n18 = 134\n"
    house.write_bytes(body + b"#" * (MAX_TABLES_BYTES - len(body) - 1) + b"\n")
    assert registry.get("brandx", house).tables["sphere"]["18"] == 134
    house.write_bytes(body + b"#" * (MAX_TABLES_BYTES - len(body)) + b"\n")
    with pytest.raises(TrackerError, match=rf"^{re.escape(str(house))}: over 1024 KB; a tables file that big is refused$"):
        registry.get("brandx", house)
    house.write_bytes(b"[sphere]\n18 = 134 \xff\n")
    with pytest.raises(TrackerError, match=rf"^{re.escape(str(house))}: not UTF-8 text \(byte 18\)$"):
        registry.get("brandx", house)
    house.write_bytes(b"[sphere\n")
    with pytest.raises(TrackerError, match=rf"^{re.escape(str(house))}: not valid TOML: "):
        registry.get("brandx", house)
    with pytest.raises(TrackerError, match=rf"^{re.escape(str(tmp_path / 'absent.toml'))}: file not found$"):
        registry.get("brandx", tmp_path / "absent.toml")


def test_the_glossary_rows_take_their_place_with_rating_and_note_and_an_empty_table_changes_nothing() -> None:
    """USOR's `[glossary_rows]` (the glossary's row 11 = 1d6+1d8, "not in the Event Rolls
    text") put in place of the derived row: the row keeps its rating and its note and is
    marked a glossary row; an empty house table adds no row and is no error."""
    from rulesets.usor import UsorRuleset
    from rulesets.usor.chart import ChartRow

    ruleset = UsorRuleset()
    ruleset.check_tables()
    row = ruleset.glossary_chart.rows[11]
    assert row == ChartRow(11, (6, 8), "glossary", "glossary: rating 11 rolls 1d6+1d8")
    assert ruleset.chart.rows[11].source == "derived"
    assert ruleset.chart.with_rows({}, "glossary", "glossary_rows").rows == ruleset.chart.rows
