"""Promises the README makes about tracker/ that hand mutations of the code showed no
test held (each test here was seen to fail with its mutation applied): the luck verdict's
threshold, `|` in the Markdown export, a name and a glob reaching one combatant, the
10^12 number bound, completion in an existing user folder, the interrupted count, and
both refusals of `keep`."""

from __future__ import annotations

import argparse
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets import registry
from tests.helpers import advance, cli as run, declare, encounter, next_, session_for
from tracker.command import completion
from tracker.engine import Event, RuleRefusal
from tracker.engine.effects import Throwback
from tracker.reading.stats import fight_stats, luck_of


# ------------------------------------------------------------------ luck (README, "After the fight")
def test_about_as_expected_at_twenty_percent_or_more() -> None:
    """README: '"about as expected" at 20% or more'. One roll at 4/5 that missed: a
    count as far from the expected 4/5 (0 successes) has chance 1/5, exactly 20%."""
    at_twenty = luck_of([Fraction(4, 5)], [False])
    assert at_twenty.tail == Fraction(1, 5)
    assert at_twenty.verdict == "about as expected"


def test_under_twenty_percent_is_bad_luck() -> None:
    """One roll at 17/20 that missed: 3/20 = 15% for a count this far off, under 20%."""
    at_fifteen = luck_of([Fraction(17, 20)], [False])
    assert at_fifteen.tail == Fraction(3, 20)
    assert at_fifteen.verdict == "unluckier than expected"
    assert luck_of([Fraction(3, 20)], [True]).verdict == "luckier than expected"  # the other way


# ------------------------------------------------------------------ export (README, "Roster and history")
def _cells(row: str) -> list[str]:
    """A Markdown table row's cells: split on the bars not escaped with a backslash."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]]


def test_a_bar_in_a_name_stays_in_its_markdown_cell(saves: Path) -> None:
    """README: "Names and notes are escaped, so they always read literally": a `|` in a
    name would otherwise end the table cell and shift the columns."""
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    assert run("play", "fight", stdin='add "Left|Right" hp=10 side=bandits\n')[0] == 0
    code, md = run("export", "fight")
    assert code == 0
    lines = md.splitlines()
    rows = [(i, line) for i, line in enumerate(lines) if line.startswith("| Left")]
    assert len(rows) == 3  # the roster, the final state, the after-the-fight figures
    for i, row in rows:
        head = next(lines[j] for j in range(i, 0, -1) if lines[j].startswith("|---"))
        assert len(_cells(row)) == head.count("---"), row  # no column made by the name
        assert _cells(row)[0] == "Left\\|Right"
    assert _cells(rows[0][1]) == ["Left\\|Right", "bandits", "-"]


# ------------------------------------------------------------------ several targets (README, "Commands")
def test_a_name_and_a_glob_reaching_one_combatant_hurt_it_once() -> None:
    """`damage "Goblin 1,Goblin*" 5`: Goblin 1 is named and globbed; each combatant is
    hurt once (session docstring: "each once")."""
    session = session_for(registry.get("freeform"), 'add "Goblin 1" hp=10', 'add "Goblin 2" hp=10', "add Orc hp=10")
    outcome = session.execute('damage "Goblin 1,Goblin*" 5')
    hp = {c.name: c.resources["hp"] for c in session.encounter.combatants.values()}
    assert hp == {"Goblin 1": 5, "Goblin 2": 5, "Orc": 10}
    assert outcome.lines == ["Goblin 1 takes 5 hp (hp 10 -> 5)", "Goblin 2 takes 5 hp (hp 10 -> 5)"]
    session.execute('damage "goblin*,GOBLIN 2" 1')  # the glob first, the name again in other case
    assert [c.resources["hp"] for c in session.encounter.combatants.values()] == [4, 4, 10]


# ------------------------------------------------------------------ numbers (README: "at most 10^12")
def test_numbers_are_at_most_ten_to_the_twelve() -> None:
    session = session_for(registry.get("freeform"), "add Orc hp=10")
    session.execute(f"damage Orc {10**12}")  # the bound itself is a number
    assert session.encounter.combatants["Orc"].resources["hp"] == 10 - 10**12
    for too_big in (10**12 + 1, 10**13):
        with pytest.raises(Exception, match="at most 1,000,000,000,000"):
            session.execute(f"damage Orc {too_big}")
    assert session.encounter.combatants["Orc"].resources["hp"] == 10 - 10**12  # unchanged


# ------------------------------------------------------------------ completion (docs/decisions/0030)
def test_completion_offers_an_existing_user_folders_saves_not_the_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    no_option = argparse.Namespace(saves=None)
    # before the first command: the examples that command will copy there
    assert "seraph-vs-sphinx" in completion.encounter_names("", no_option)
    assert "city-nights" not in completion.encounter_names("city-nights.", no_option)  # a campaign is no encounter
    user = tmp_path / "data" / "segment-tracker" / "saves"
    user.mkdir(parents=True)
    (user / "my-fight.toml").write_text("", encoding="utf-8")
    (user / "my-other.toml").write_text("", encoding="utf-8")
    assert completion.encounter_names("", no_option) == ["my-fight", "my-other"]
    assert completion.encounter_names("my-o", no_option) == ["my-other"]


# ------------------------------------------------------------------ the interrupted count (README, "After the fight")
def test_stats_count_an_action_interrupted_by_a_throwback() -> None:
    """README: actions "... aborted or interrupted": B's kick is thrown back at segment 10."""
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 1.0, 1.0, 1),), targets=("B",))
    declare(enc, "B", "kick", 20)
    next_(enc)
    figures = {t.name: t for t in fight_stats(enc).combatants}
    assert (figures["B"].interrupted, figures["B"].aborted, figures["B"].declared) == (1, 0, 1)
    assert (figures["A"].interrupted, figures["A"].aborted) == (0, 0)


# ------------------------------------------------------------------ keep (README's keys: `k`)
def _kick_interrupted_at_ten() -> object:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 1.0, 1.0, 1),), targets=("B",))
    declare(enc, "B", "kick", 20)  # would complete on segment 20
    assert next_(enc) == 10
    return enc


def test_keep_is_refused_once_the_action_would_have_completed() -> None:
    enc = _kick_interrupted_at_ten()
    advance(enc, 20)
    before = len(enc.events)
    with pytest.raises(RuleRefusal, match="B's kick would have completed on 20") as refused:
        enc.apply(Event("keep", {"target": "B"}))
    assert refused.value.rule == "throwback"
    assert len(enc.events) == before  # nothing recorded


def test_keep_on_the_segment_before_completion_is_allowed() -> None:
    enc = _kick_interrupted_at_ten()
    advance(enc, 19)
    enc.apply(Event("keep", {"target": "B"}))
    assert enc.combatants["B"].active is not None and enc.combatants["B"].active.template == "kick"


def test_keep_is_refused_when_another_active_action_has_started() -> None:
    enc = _kick_interrupted_at_ten()
    advance(enc, 12)  # landed
    declare(enc, "B", "jab", 30)
    with pytest.raises(RuleRefusal, match="B has started jab since") as refused:
        enc.apply(Event("keep", {"target": "B"}))
    assert refused.value.rule == "one active action at a time"
    assert enc.combatants["B"].active.template == "jab"
