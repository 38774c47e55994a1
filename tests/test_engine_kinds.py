"""One table of event kinds (tracker.engine.kinds): the engine, the codec, the words, the
roles and the role guard all read it, and nothing applies or accepts a kind it lacks."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import pytest

from rulesets.freeform import FreeformRuleset
from rulesets.dice import RandomDice
from tracker.engine import Encounter, Event, Resolution, TrackerError
from tracker.engine import kinds
from tracker.engine.kinds import KINDS
from tracker.persistence.checks import SaveError
from tracker.persistence.event_tables import EVENT_ARGS, read_event_checked
from tracker.engine.kinds import PLAYER_KINDS
from tracker.reading.roles import Role
from tracker.play.session import Session
from tracker.reading.wording import describe
from tests.helpers import encounter

ENGINE = Path(__file__).resolve().parent.parent / "tracker" / "engine"


def _handler_methods() -> set[str]:
    """The methods of `Encounter` shaped like an event's handler: (self, args) -> None."""
    found = set()
    for name, member in inspect.getmembers(Encounter, inspect.isfunction):
        if isinstance(inspect.getattr_static(Encounter, name), staticmethod):
            continue
        params = list(inspect.signature(member).parameters)
        if params == ["self", "args"]:
            found.add(name)
    return found


def test_every_kind_the_engine_applies_is_in_the_table_and_the_reverse() -> None:
    for kind in KINDS:  # each kind is applied, or refused by its own rules: never unknown
        try:
            encounter("Ann").apply(Event(kind, {}))
        except TrackerError as refused:
            assert "unknown event kind" not in str(refused), kind
    # Every handler-shaped method is named by a row: a new handler without a row fails here.
    assert _handler_methods() == {row.apply for row in KINDS.values() if row.apply}
    assert [name for name, row in KINDS.items() if not row.apply] == [kinds.UNDO, kinds.REDO]


def test_a_kind_missing_from_the_table_is_refused_by_engine_and_codec() -> None:
    enc = encounter("Ann")
    with pytest.raises(TrackerError, match="unknown event kind 'shout'"):
        enc.apply(Event("shout", {"text": "hey"}))
    assert len(enc.events) == 1 and len(enc.log) == 1  # the add only: nothing changed
    raw = {"seq": 1, "kind": "shout", "text": "hey"}
    with pytest.raises(SaveError, match="kind: expected an event kind"):
        read_event_checked(FreeformRuleset(), raw, 0, "f.toml: events[0]")


def test_the_codec_checks_the_arguments_the_table_names() -> None:
    assert EVENT_ARGS.keys() == KINDS.keys()
    for name, row in KINDS.items():
        assert EVENT_ARGS[name] is row.args
    # A key the row does not list is refused by name, with the row's keys.
    raw = {"seq": 1, "kind": "keep", "target": "Ann", "why": "because"}
    with pytest.raises(SaveError, match="unexpected key 'why' \\(a keep event has target\\)"):
        read_event_checked(FreeformRuleset(), raw, 0, "f.toml: events[0]")


def test_player_kinds_are_the_tables_player_column() -> None:
    assert PLAYER_KINDS == ("declare", "maintain", "abort", "propose", "withdraw")
    assert PLAYER_KINDS == tuple(name for name, row in KINDS.items() if row.player)
    assert kinds.PROPOSABLE == ("declare", "maintain", "abort")
    assert kinds.REWRITES_HISTORY == {"rename"}
    assert all(row.guard in kinds.GUARDS for row in KINDS.values())


# One event of every kind and the words undo, redo and the history have always used.
WORDS: dict[str, list[tuple[dict[str, Any], str]]] = {
    "add": [({"name": "Ann"}, "Ann joins the fight"), ({"name": "G 1", "names": ["G 1", "G 2"]}, "G 1, G 2 join the fight")],
    "remove": [({"name": "Ann"}, "Ann leaves the fight")],
    "declare": [({"actor": "Ann", "template": "punch", "targets": ["Bo", "Cy"]}, "Ann declares punch against Bo, Cy"),
                ({"actor": "Ann", "template": "dodge"}, "Ann declares dodge")],
    "maintain": [({"actor": "Ann"}, "Ann maintains the attack")],
    "abort": [({"actor": "Ann", "template": "punch"}, "Ann aborts punch"), ({"actor": "Ann"}, "Ann aborts an action")],
    "damage": [({"target": "Ann", "amount": 5, "resource": "hp"}, "Ann takes 5 hp"),
               ({"target": "Ann", "amount": -2.5, "resource": "hp", "also": [{"target": "Bo", "resource": "hp"}]}, "Ann, Bo heals 2.5 hp")],
    "set": [({"target": "Ann", "key": "hp", "value": 7.0}, "Ann: hp set to 7")],
    "advance": [({"to": 12}, "time moves on to segment 12")],
    "condition": [({"target": "Ann", "name": "dazed", "duration": 3}, "Ann is dazed for 3 segments"),
                  ({"target": "Ann", "name": "dazed", "duration": 3, "also": ["Bo"]}, "Ann, Bo are dazed for 3 segments")],
    "schedule": [({"at": 40, "text": "the bridge falls"}, "scheduled for segment 40: the bridge falls")],
    "surprise": [({"target": "Ann", "until": 9}, "Ann is surprised until segment 9")],
    "hide": [({"target": "Ann"}, "Ann is hidden from viewers"), ({"target": "Ann", "hidden": False}, "Ann is shown to viewers")],
    "keep": [({"target": "Ann"}, "the GM keeps Ann's interrupted action")],
    "reroll": [({"target": "Ann"}, "the GM lets Ann's player roll the app's dice again")],
    "end": [({"campaign": "The Long Road"}, "the fight ends (campaign The Long Road)")],
    "note": [({"text": "rain"}, "note: rain")],
    "roll": [({"text": "2d10: 3 4 = 7"}, "roll 2d10: 3 4 = 7"), ({"text": "1d6: 2", "secret": True}, "roll 1d6: 2 (secret)")],
    "rename": [({"target": "Ann", "name": "Anna"}, "Ann is renamed Anna")],
    "side": [({"target": "Ann", "side": "red"}, "Ann joins side red"), ({"target": "Ann", "side": ""}, "Ann leaves its side")],
    "reorder": [({"target": "Ann", "position": 2}, "Ann moves to place 2 in the roster")],
    "undo": [({"target": 4}, "undo of change 4")],
    "redo": [({"target": 4}, "redo of change 4")],
    "propose": [({"action": "declare", "actor": "Ann", "template": "punch"}, "proposal: Ann declares punch"),
                ({"action": "abort", "actor": "Ann"}, "proposal: Ann aborts an action")],
    "approve": [({"target": 3}, "the GM approves proposal 3"), ({"target": 3, "actor": "Ann"}, "the GM approves proposal 3 (edited)")],
    "refuse": [({"target": 3, "reason": "too far"}, "the GM refuses proposal 3: too far"), ({"target": 3}, "the GM refuses proposal 3")],
    "withdraw": [({"target": 3}, "proposal 3 is taken back")],
    "setting": [({"key": "player_declarations", "value": "approval"}, "setting: player_declarations is now approval")],
}


def test_every_kind_is_described_in_the_words_it_always_had() -> None:
    assert WORDS.keys() == KINDS.keys()
    for kind, cases in WORDS.items():
        for args, words in cases:
            assert describe(Event(kind, args)) == words, kind
    assert describe(Event("note", {"text": "x"}, by="player:bob")) == "note: x (player bob)"
    assert describe(Event("shout", {})) == "shout"  # a kind no row names says its name


SERAPH = Role.player(["Ann"])


def _player() -> Session:
    enc = encounter("Ann", "Bo")
    return Session(enc, FreeformRuleset(), RandomDice(1), user="bob", role=SERAPH)


@pytest.mark.parametrize("kind", [name for name, row in KINDS.items() if row.guard == kinds.GM_ONLY])
def test_the_guard_refuses_a_player_every_kind_the_table_keeps_for_the_gm(kind: str) -> None:
    s = _player()
    with pytest.raises(TrackerError, match="everything else is the GM's"):
        s.policy.guard(s.encounter, Event(kind, {"target": "Ann", "name": "Ann", "actor": "Ann"}), s.by)


@pytest.mark.parametrize("kind", [name for name, row in KINDS.items() if row.guard == kinds.OWN_ACTOR])
def test_the_guard_lets_a_player_act_only_for_their_own_combatant(kind: str) -> None:
    s = _player()
    args = {"actor": "Ann", "template": "punch", "action": "declare", "resolution": Resolution(3)}
    s.policy.guard(s.encounter, Event(kind, args), s.by)  # their own: passes
    with pytest.raises(TrackerError, match="Bo: not your combatant"):
        s.policy.guard(s.encounter, Event(kind, {**args, "actor": "Bo"}), s.by)
    with pytest.raises(TrackerError, match="secret rolls are the GM's"):
        s.policy.guard(s.encounter, Event(kind, {**args, "secret": True}), s.by)


def test_the_guard_reads_the_other_checks_from_the_table() -> None:
    s = _player()
    assert kinds.guard_of("roll") == kinds.NOT_SECRET
    s.policy.guard(s.encounter, Event("roll", {"text": "1d6: 4"}), s.by)
    with pytest.raises(TrackerError, match="secret rolls are the GM's"):
        s.policy.guard(s.encounter, Event("roll", {"text": "1d6: 4", "secret": True}), s.by)
    assert kinds.guard_of("undo") == kinds.OWN_LAST
    with pytest.raises(TrackerError, match="the latest change is the GM's"):
        s.policy.guard(s.encounter, Event("undo", {}), s.by)
    assert kinds.guard_of("withdraw") == kinds.OWN_PROPOSAL
    assert kinds.guard_of("no such kind") == kinds.GM_ONLY


# ------------------------------------------------------------------ the parts
# The objects an encounter holds, and the parts its rules are written in (each inheriting
# the parts it uses: tracker/engine/core.py).
OBJECTS = {"timeline", "proposals", "checkpoints", "log"}
PARTS = {"roster", "resolving", "actions", "changes", "proposing", "advancing"}


def _engine_imports(module: str) -> set[str]:
    tree = ast.parse((ENGINE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tracker.engine":
            found.update(a.name for a in node.names)  # from tracker.engine import bounds, table
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tracker.engine."):
            found.add(node.module.removeprefix("tracker.engine."))
    return found


def test_the_objects_know_no_rule_and_the_parts_no_encounter() -> None:
    assert all((ENGINE / f"{m}.py").exists() for m in OBJECTS | PARTS | {"core", "encounter"})
    for held in OBJECTS - {"checkpoints"}:  # a checkpoint reads the core's named state
        assert not _engine_imports(held) & (PARTS | {"core", "encounter"}), held
    assert not _engine_imports("checkpoints") & (PARTS | {"encounter"})
    assert not _engine_imports("core") & (PARTS | {"encounter"})
    for part in PARTS:
        assert "encounter" not in _engine_imports(part), part
        assert _engine_imports(part) & (PARTS | {"core"}), part  # built on the core or a part
    assert {"advancing", "changes", "roster", "checkpoints"} <= _engine_imports("encounter")
    assert not _engine_imports("kinds") & (PARTS | OBJECTS | {"core", "encounter"})


def test_no_part_declares_what_another_provides_for_the_type_checker() -> None:
    """Every call between parts is to a method the caller inherits: nothing is declared
    abstract, or only for the type checker, to stand for another part's method."""
    for module in PARTS | OBJECTS | {"core", "encounter"}:
        text = (ENGINE / f"{module}.py").read_text()
        assert "abstractmethod" not in text and "TYPE_CHECKING" not in text, module


def test_a_refusal_names_the_kind_in_the_tables_words() -> None:
    assert {name: row.refused_as for name, row in KINDS.items() if row.refused_as} == {
        "set": "set (a resource or stat)",
        "advance": "moving time (next, step)",
        "approve": "approving a proposal",
        "refuse": "refusing a proposal",
        "reroll": "a new roll of the app's dice (reroll)",
        "end": "ending a campaign's fight (tracker campaign end)",
    }
    assert str(SERAPH.refuse("advance")).startswith(
        "moving time (next, step): a player declares, maintains and aborts actions for their own combatants (Ann) "
        "and takes back their own last declaration; everything else is the GM's"
    )
    assert str(Role.viewer().refuse("approve")).startswith("approving a proposal: a viewer's session is read-only; changes are made by the GM")
    assert str(Role.viewer().refuse("library")).startswith("library: a viewer's session is read-only; changes are made by the GM")
