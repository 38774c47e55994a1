"""Direct tests of tracker.play.session: one encounter, its ruleset, a dice source and the
command language (module docstring; docs/guide/verbs.md, docs/guide/players.md,
docs/decisions/0002-session-commands.md, 0043-session-checks-at-the-door.md,
0049-player-app-dice-stand.md). Every change goes through `submit`: the role is checked
before any dice are rolled, the change is built against the freshest state under the
store's lock, a player's change is signed with its role, undo and redo say in words what
they take back, and a refusal leaves the fight as it was. The fights are freeform (no
dice: outcomes stated) and OGS (a check is d6 + d6 + d4 against 8 with the default
sheet: rulesets/ogs), so every figure below is worked from the rules' text."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from rulesets.base import ActionRequest
from rulesets.dice import RandomDice
from tests.campaign_ui import make_campaign, make_fight
from tests.helpers import session_for
from tracker.engine import CommandError, Encounter, Event, Resolution, RuleRefusal, TrackerError, bounds
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile
from tracker.play.session import COMMANDS, Declared, Outcome, Session
from tracker.play import verbs
from tracker.reading.roles import Role

FREEFORM = registry.get("freeform")
OGS = registry.get("ogs")


class Counted:
    """A dice source that says how many dice were asked of it (always the highest face)."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def roll(self, sides: int) -> int:
        self.asked.append(sides)
        return sides


def gm(*lines: str, ruleset: Any = FREEFORM, user: str = "alice") -> Session:
    session = session_for(ruleset, *lines)
    session.user = user
    return session


def seat(of: Session, role: Role, user: str = "bob", dice: Any = None) -> Session:
    """Another seat at the same fight (the same encounter held in memory)."""
    return Session(of.encounter, of.ruleset, dice if dice is not None else RandomDice(7), user=user, role=role)


def ann_and_bob() -> Session:
    """alice's GM seat over a freeform fight of Ann and Bob, 10 hp each."""
    return gm("add Ann hp=10", "add Bob hp=10")


def ogs_check_chance() -> Fraction:
    """d6 + d6 + d4 reaching 8 (OGS's check with the default sheet: stat d6, skill d6,
    enhancement d4, difficulty 8)."""
    hits = sum(1 for a, b, c in itertools.product(range(1, 7), range(1, 7), range(1, 5)) if a + b + c >= 8)
    return Fraction(hits, 6 * 6 * 4)


# ------------------------------------------------------------------ the session itself
def test_a_new_session_is_the_gms_rolls_its_own_dice_and_signs_with_its_user() -> None:
    enc = gm().encounter
    session = Session(enc, FREEFORM)
    assert session.role.is_gm
    assert isinstance(session.dice, RandomDice)
    assert session.store is None and session.sheet_library is None and session.user == ""
    assert session.by == ""
    named = Session(enc, FREEFORM, user="alice")
    assert named.by == "alice"
    dice = Counted()
    assert Session(enc, FREEFORM, dice).dice is dice
    player = Session(enc, FREEFORM, user="bob", role=Role.player(["Ann"]))
    assert player.by == "player:bob" and player.role.is_player
    assert Session(enc, FREEFORM, user="carol", role=Role.viewer()).role.is_viewer


def test_the_role_is_set_by_whoever_opens_the_seat() -> None:
    session = ann_and_bob()
    session.role = Role.player(["Ann"])
    assert session.role.is_player and session.by == "player:alice"
    with pytest.raises(RuleRefusal):
        session.execute("damage Bob 1")
    session.role = Role.gm()
    assert session.execute("damage Bob 1").event is not None


def test_the_command_table_is_the_verbs_table() -> None:
    assert COMMANDS is verbs.VERBS


def test_outcome_and_declared_hold_what_they_are_given() -> None:
    event = Event("note", {"text": "x"})
    assert Outcome(event, ["x"]).lines == ["x"] and Outcome(None, []).event is None
    assert Declared(event, (1, 2)).faces == (1, 2)
    with pytest.raises(AttributeError):
        Outcome(event, []).event = None  # type: ignore[misc]


def test_lookup_finds_a_combatant_as_the_seat_may_know_it() -> None:
    session = gm("add Ann hp=10", "add Spy hp=3 hidden=true")
    assert session.lookup("ann").name == "Ann"
    assert session.lookup("Spy").name == "Spy"
    player = seat(session, Role.player(["Ann"]))
    assert player.lookup("Ann").name == "Ann"
    with pytest.raises(TrackerError, match="no combatant named 'Spy'"):
        player.lookup("Spy")


# ------------------------------------------------------------------ execute
def test_a_line_is_read_and_its_method_called() -> None:
    session = ann_and_bob()
    outcome = session.execute("damage Bob 3")
    assert outcome.event is not None and outcome.event.kind == "damage"
    assert outcome.event.args == {"target": "Bob", "amount": 3, "resource": "hp"}
    assert session.encounter.combatant("Bob").resources["hp"] == 7
    assert outcome.lines == [e.text for e in session.encounter.log if e.seq == outcome.event.seq]
    assert outcome.lines and "Bob" in outcome.lines[0] and "3" in outcome.lines[0]


def test_a_tab_is_a_space_but_other_control_characters_are_refused() -> None:
    session = ann_and_bob()
    assert session.execute("note\tby the river").event == Event("note", {"text": "by the river"}, session.encounter.events[-1].seq, "alice")
    count = len(session.encounter.events)
    for line in ("note a\x1b[2Jb", "note a\x07", "damage Bob\x00 3", "note a\rb"):
        with pytest.raises(TrackerError, match="^command: control characters"):
            session.execute(line)
    assert len(session.encounter.events) == count


# ------------------------------------------------------------------ submit
def test_a_change_is_applied_and_its_log_lines_returned() -> None:
    session = ann_and_bob()
    before = len(session.encounter.log)
    outcome = session.submit(lambda enc: Event("note", {"text": "the bridge creaks"}), kind="note")
    assert outcome.event is session.encounter.events[-1]
    assert outcome.event.by == "alice"
    assert outcome.lines == ["the bridge creaks"]
    assert [e.text for e in session.encounter.log[before:]] == ["the bridge creaks"]


def test_the_gm_keeps_a_signature_the_builder_gave_a_player_never_does() -> None:
    session = ann_and_bob()
    kept = session.submit(lambda enc: Event("note", {"text": "a"}, by="gm:carol"), kind="note")
    assert kept.event is not None and kept.event.by == "gm:carol"
    plain = session.submit(lambda enc: Event("note", {"text": "b"}), kind="note")
    assert plain.event is not None and plain.event.by == "alice"
    player = seat(session, Role.player(["Ann"]))
    forged = player.submit(
        lambda enc: Event("declare", {"actor": "Ann", "template": "attack", "mode": "active", "targets": ["Bob"], "companions": [],
                                      "maintainable": False, "resolution": Resolution(pt=10)}, by="gm:alice"),
        kind="declare", actor="Ann",
    )
    assert forged.event is not None and forged.event.by == "player:bob"
    assert session.encounter.events[-1].by == "player:bob"


def test_a_role_that_may_not_make_the_change_hears_it_before_any_dice() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    dice = Counted()
    player = seat(session, Role.player(["Ann"]), dice=dice)
    count = len(session.encounter.events)
    with pytest.raises(RuleRefusal, match="not your combatant"):
        player.execute("declare Bob check")
    with pytest.raises(RuleRefusal):
        player.submit(lambda enc: pytest.fail("built"), kind="advance")
    assert dice.asked == [] and len(session.encounter.events) == count
    viewer = seat(session, Role.viewer())
    with pytest.raises(RuleRefusal):
        viewer.submit(lambda enc: Event("note", {"text": "x"}), kind="note")
    assert len(session.encounter.events) == count
    # the built event is checked too, whatever kind was said early
    with pytest.raises(RuleRefusal):
        player.submit(lambda enc: Event("damage", {"target": "Bob", "amount": 1}), kind="declare", actor="Ann")
    assert len(session.encounter.events) == count


def test_a_refusal_while_building_names_a_hidden_combatant_to_a_player_as_nobody() -> None:
    session = gm("add Ann hp=10", "add Spy hp=3 hidden=true")
    player = seat(session, Role.player(["Ann"]))
    with pytest.raises(TrackerError) as hidden:
        player.execute("declare Ann attack target=Spy")
    with pytest.raises(TrackerError) as nobody:
        player.execute("declare Ann attack target=Ghost")
    assert str(hidden.value) == str(nobody.value).replace("Ghost", "Spy")
    assert "Spy" not in str(hidden.value).split("(")[-1]
    with pytest.raises(TrackerError) as gms:
        session.execute("damage Ghost 1")
    assert "no combatant named 'Ghost'" in str(gms.value) and "Spy" in str(gms.value)


def test_the_store_is_asked_for_the_freshest_fight_and_holds_what_it_installs() -> None:
    session = ann_and_bob()
    fresher = ann_and_bob().encounter
    fresher.apply(Event("add", {"name": "Cid", "resources": {"hp": 4}}))
    seen: list[Encounter] = []

    class Store:
        @contextmanager
        def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> Iterator[Encounter]:
            seen.append(encounter)
            install(fresher)
            yield fresher

    held = session.encounter
    session.store = Store()
    outcome = session.execute("damage Cid 1")
    assert seen == [held]
    assert session.encounter is fresher and fresher.combatant("Cid").resources["hp"] == 3
    assert outcome.event is fresher.events[-1] and "Cid" not in held.combatants


def test_a_change_through_the_file_is_saved_and_folds_in_anothers(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    EncounterFile.create(path, "Ford", "freeform")
    first = _open(path)
    first.execute("add Ann hp=10")
    second = _open(path)
    first.execute("add Bob hp=6")
    second.execute("damage Bob 2")  # second never saw Bob added: the store folds it in
    again = EncounterFile(path).load().encounter
    assert again.combatant("Bob").resources["hp"] == 4
    assert [e.kind for e in again.events][-3:] == ["add", "add", "damage"]
    assert again.events[-1].by == "tester"


def _open(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store, "tester")


# ------------------------------------------------------------------ undo and redo
def test_undo_and_redo_say_what_they_take_back_in_words() -> None:
    session = ann_and_bob()
    session.execute("note the bridge creaks")
    undone = session.execute("undo")
    assert undone.event is not None and undone.event.kind == "undo" and undone.event.args == {"target": 3}
    assert undone.lines == ["undo: note: the bridge creaks at segment 0"]
    assert session.encounter.log[-1].text != "the bridge creaks" or not session.encounter.effective_events()[-1].kind == "note"
    redone = session.execute("redo")
    assert redone.event is not None and redone.event.args == {"target": 3}
    assert redone.lines == ["redo: note: the bridge creaks at segment 0"]
    assert session.encounter.effective_events()[-1].kind == "note"


def test_undo_names_who_made_a_change_unless_it_was_this_session() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    player.execute("declare Ann attack target=Bob")
    line = session.execute("undo").lines
    assert len(line) == 1 and line[0].startswith("undo: Ann declares attack against Bob") and line[0].endswith(" (player bob)")
    assert session.execute("redo").lines[0].endswith(" (player bob)")
    session.execute("note mine")
    assert not session.execute("undo").lines[0].endswith(")")


def test_nothing_to_undo_or_redo_is_refused_by_name() -> None:
    session = gm()
    with pytest.raises(RuleRefusal) as undo:
        session.execute("undo")
    assert str(undo.value) == "nothing to undo (rule: undo)"
    with pytest.raises(RuleRefusal) as redo:
        session.execute("redo")
    assert str(redo.value) == "nothing to redo (rule: redo)"


def test_undo_and_redo_take_back_the_latest_change_and_put_it_back() -> None:
    session = ann_and_bob()
    session.execute("damage Bob 4")
    session.execute("damage Bob 1")
    session.undo()
    assert session.encounter.combatant("Bob").resources["hp"] == 6
    session.undo()
    assert session.encounter.combatant("Bob").resources["hp"] == 10
    session.redo()
    assert session.encounter.combatant("Bob").resources["hp"] == 6
    session.redo()
    assert session.encounter.combatant("Bob").resources["hp"] == 5


# ------------------------------------------------------------------ a campaign's fight
@pytest.fixture
def ford(tmp_path: Path) -> Path:
    road = make_campaign(tmp_path, "freeform", "The Road", {"Ann": {"hp": "10"}})
    return make_fight(road, "ford", "The Ford", ["add Goblin hp=4", "damage Ann 3"])


class Flushed:
    """A store like the app's: it holds changes until `flush`, and may be asked to refresh."""

    def __init__(self, path: Path, refresh: bool = True) -> None:
        self.file = EncounterFile(path)
        self.path = path
        self.flushed = 0
        if refresh:
            self.refresh = self.file.refresh

    def flush(self) -> None:
        self.flushed += 1

    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> Any:
        return self.file.transaction(encounter, install)


def _in_file(path: Path, store: Any = None, role: Role | None = None) -> Session:
    store = store if store is not None else EncounterFile(path)
    loaded = EncounterFile(path).load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store, "alice", role)


def test_ending_a_campaign_fight_shows_what_goes_back_and_closes_it(ford: Path) -> None:
    store = Flushed(ford)
    session = _in_file(ford, store)
    preview = session.end_preview("won")
    assert store.flushed == 1
    assert preview.outcome == "won" and preview.campaign_name == "The Road"
    assert EncounterFile(ford).load().encounter.events[-1].kind == "damage"  # a preview changes nothing
    outcome = session.end_fight("won", preview)
    assert store.flushed == 2
    assert outcome.event is not None and outcome.event.kind == "end" and outcome.event.by == "alice"
    assert outcome.event.args["campaign"] == "The Road"
    assert outcome.lines[-1] == "ended: the party of The Road goes on as shown"
    assert outcome.lines[:-1] == preview.text().splitlines()
    assert any("Ann: hp 10 -> 7 of 10" in line for line in outcome.lines)
    assert session.encounter.events[-1] is outcome.event  # the session holds the ended fight
    again = EncounterFile(ford).load().encounter
    assert again.events[-1].kind == "end"
    # an ended fight: its end is the campaign's to take back, never the fight's undo
    with pytest.raises(RuleRefusal) as undo:
        session.execute("undo")
    assert str(undo.value) == (
        "undo: this fight's end belongs to its campaign The Road: `tracker campaign undo` takes it back "
        "(while nothing later in the campaign depends on it) (rule: campaign)"
    )
    with pytest.raises(RuleRefusal, match="this fight has ended"):
        session.execute("note too late")


def test_an_end_without_a_refreshing_store_still_ends_the_file(ford: Path) -> None:
    session = _in_file(ford, Flushed(ford, refresh=False))
    held = session.encounter
    outcome = session.end_fight("")
    assert session.encounter is held
    assert outcome.event is held.events[-1] and outcome.event.kind == "damage"
    assert EncounterFile(ford).load().encounter.events[-1].kind == "end"


def test_a_redo_of_a_campaigns_end_is_refused_as_the_campaigns(ford: Path) -> None:
    session = _in_file(ford)
    session.end_fight("fled")
    enc = session.encounter
    # as if the end had been taken back by the campaign: redo would put it back
    enc.apply(Event("undo", {"target": enc.events[-1].seq}))
    with pytest.raises(RuleRefusal) as redo:
        session.redo()
    assert str(redo.value).startswith("redo: this fight's end belongs to its campaign The Road: `tracker campaign redo` takes it back")


def test_only_the_gm_ends_a_fight_and_only_one_kept_in_a_file(ford: Path) -> None:
    player = _in_file(ford, role=Role.player(["Ann"]))
    for call in (lambda: player.end_preview(), lambda: player.end_fight()):
        with pytest.raises(RuleRefusal) as refused:
            call()
        assert "end" in str(refused.value)
    memory = ann_and_bob()
    with pytest.raises(RuleRefusal) as preview:
        memory.end_preview()
    assert str(preview.value) == "end: this fight is not kept in a file (rule: campaign)"
    with pytest.raises(RuleRefusal) as ending:
        memory.end_fight("won")
    assert str(ending.value) == "end: this fight is not kept in a file (rule: campaign)"
    with pytest.raises(TrackerError, match="^end: outcome: control characters"):
        _in_file(ford).end_fight("w\x1bon")
    assert EncounterFile(ford).load().encounter.events[-1].kind == "damage"


# ------------------------------------------------------------------ roster
def test_add_puts_in_one_combatant_or_numbered_copies_as_one_change() -> None:
    session = gm()
    one = session.add("Ann", {"hp": "8"}, side="party", hidden=True, surprised_until=5)
    assert one.event is not None and one.event.kind == "add"
    ann = session.encounter.combatant("Ann")
    assert (ann.resources["hp"], ann.side, ann.hidden, ann.surprised_until) == (8, "party", True, 5)
    many = session.add("Goblin", {"hp": "3"}, copies=3)
    assert sorted(session.encounter.combatants) == ["Ann", "Goblin 1", "Goblin 2", "Goblin 3"]
    assert many.event is session.encounter.events[-1]
    session.undo()
    assert sorted(session.encounter.combatants) == ["Ann"]


def test_rename_side_reorder_and_remove_change_the_roster() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10", "add Cid hp=10")
    assert session.rename("Bob", "Bobby").event == Event("rename", {"target": "Bob", "name": "Bobby"}, 4, "alice")
    assert session.set_side("bobby", "foes").event == Event("side", {"target": "Bobby", "side": "foes"}, 5, "alice")
    assert session.encounter.combatant("Bobby").side == "foes"
    assert session.reorder("Cid", 1).event == Event("reorder", {"target": "Cid", "position": 1}, 6, "alice")
    assert list(session.encounter.combatants)[0] == "Cid"
    removed = session.remove("ann")
    assert removed.event == Event("remove", {"name": "Ann"}, 7, "alice")
    assert "Ann" not in session.encounter.combatants
    with pytest.raises(TrackerError, match="no combatant named 'Zed'"):
        session.remove("Zed")


# ------------------------------------------------------------------ library
def test_the_library_keeps_sheets_for_the_gm(tmp_path: Path) -> None:
    session = gm("add Ann hp=12")
    session.sheet_library = Library.in_folder(tmp_path, "freeform")
    assert session.sheet_library is not None
    name = session.sheet_library.path.name
    assert session.library() is session.sheet_library
    assert session.library_sheets().lines == [f"{name}: no sheets yet (library save NAME)"]
    saved = session.save_sheet("Ann")
    assert saved == Outcome(None, [f"Ann: sheet saved in {name}"])
    assert session.save_sheet("Ann", "Brute").lines == [f"Brute: sheet saved in {name}"]
    assert session.library_sheets().lines == [f"{name}: Ann, Brute"]
    added = session.add_from_library("Brute")
    assert added.event is not None and session.encounter.combatant("Brute").resources["hp"] == 12
    session.add_from_library("Ann", "Ann Two", side="foes", hidden=True)
    two = session.encounter.combatant("Ann Two")
    assert (two.side, two.hidden, two.resources["hp"]) == ("foes", True, 12)
    session.add_from_library("Brute", copies=2)
    assert {"Brute 1", "Brute 2"} <= set(session.encounter.combatants) or "Brute 2" in session.encounter.combatants
    assert session.delete_sheet("Ann") == Outcome(None, [f"Ann: sheet deleted from {name}"])
    assert session.library_sheets().lines == [f"{name}: Brute"]


def test_a_library_sheet_keeps_its_side_unless_one_is_given(tmp_path: Path) -> None:
    session = gm("add Orc hp=9 side=foes")
    session.sheet_library = Library.in_folder(tmp_path, "freeform")
    session.save_sheet("Orc", "Brute")
    session.add_from_library("Brute", "Orc Two")
    assert session.encounter.combatant("Orc Two").side == "foes"
    session.add_from_library("Brute", "Orc Three", side="")
    assert session.encounter.combatant("Orc Three").side == ""
    assert session.encounter.combatant("Orc Three").hidden is False


def test_the_library_is_the_gms_and_needs_a_saves_folder(tmp_path: Path) -> None:
    session = gm("add Ann")
    with pytest.raises(CommandError) as none:
        session.library()
    assert str(none.value) == "library: this encounter has no saves folder (it is not saved in a file)"
    player = seat(session, Role.player(["Ann"]))
    player.sheet_library = Library.in_folder(tmp_path, "freeform")
    for call in (player.library, player.library_sheets, lambda: player.save_sheet("Ann"), lambda: player.delete_sheet("Ann")):
        with pytest.raises(RuleRefusal) as refused:
            call()
        assert str(refused.value) == ("library: a player declares, maintains and aborts actions for their own combatants (Ann) "
                                      "and takes back their own last declaration; everything else is the GM's (rule: player)")
    assert not player.sheet_library.path.exists()


# ------------------------------------------------------------------ sheets
def test_damage_and_heal_one_or_several_as_one_change() -> None:
    session = gm('add "Goblin 1" hp=5', 'add "Goblin 2" hp=5', "add Ann hp=10")
    out = session.damage("Goblin*", 2)
    assert out.event is not None and out.event.kind == "damage"
    assert [session.encounter.combatant(n).resources["hp"] for n in ("Goblin 1", "Goblin 2", "Ann")] == [3, 3, 10]
    assert len(out.lines) == 2
    healed = session.heal("Goblin 1", 1)
    assert healed.event is not None and healed.event.args["amount"] == -1
    assert session.encounter.combatant("Goblin 1").resources["hp"] == 4
    session.undo()
    session.undo()
    assert session.encounter.combatant("Goblin 2").resources["hp"] == 5
    session.damage("Ann", 2, "hp")
    assert session.encounter.combatant("Ann").resources["hp"] == 8
    assert session.default_resource("Ann") == "hp"
    assert [c.name for c in session.chosen("goblin*")] == ["Goblin 1", "Goblin 2"]


def test_heal_passes_the_resource_on() -> None:
    session = gm("add Ann hp=10 ep=4")
    session.damage("Ann", 3, "ep")
    out = session.heal("Ann", 2, "ep")
    assert out.event is not None and out.event.args["resource"] == "ep"
    assert session.encounter.combatant("Ann").resources["ep"] == 3
    assert session.encounter.combatant("Ann").resources["hp"] == 10


def test_set_is_checked_against_the_sheet() -> None:
    session = gm("add Ann hp=10")
    out = session.set_value("Ann", "hp", "4")
    assert out.event == Event("set", {"target": "Ann", "key": "hp", "value": 4}, 2, "alice")
    with pytest.raises(TrackerError):
        session.set_value("Ann", "hp", "abc")
    assert session.encounter.combatant("Ann").resources["hp"] == 4


def test_a_condition_on_one_or_several_combatants() -> None:
    session = ann_and_bob()
    one = session.condition("Ann", "prone", 3)
    assert one.event is not None and one.event.args == {"target": "Ann", "name": "prone", "duration": 3}
    both = session.condition("Ann,Bob", "dazed", 5)
    assert both.event is not None and both.event.args == {"target": "Ann", "name": "dazed", "duration": 5, "also": ["Bob"]}
    assert "dazed" in session.encounter.combatant("Bob").conditions
    assert len(both.lines) == 2
    with pytest.raises(TrackerError, match="^condition: control characters"):
        session.condition("Ann", "pro\x1bne", 3)
    count = len(session.encounter.events)
    with pytest.raises(TrackerError):
        session.condition("Ann,Ghost", "prone", 3)
    assert len(session.encounter.events) == count


def test_surprise_hide_unhide_keep_reroll_and_setting_name_their_combatant() -> None:
    session = ann_and_bob()
    assert session.surprise("bob", 30).event == Event("surprise", {"target": "Bob", "until": 30}, 3, "alice")
    assert session.encounter.combatant("Bob").surprised_until == 30
    assert session.hide("bob").event == Event("hide", {"target": "Bob", "hidden": True}, 4, "alice")
    assert session.encounter.combatant("Bob").hidden is True
    assert session.unhide("bob").event == Event("hide", {"target": "Bob", "hidden": False}, 5, "alice")
    assert session.encounter.combatant("Bob").hidden is False
    assert session.hide("ann", False).event == Event("hide", {"target": "Ann", "hidden": False}, 6, "alice")
    with pytest.raises(RuleRefusal) as keep:
        session.keep("ann")
    assert str(keep.value) == "Ann has no interrupted action to keep (rule: throwback)"
    assert session.reroll("ann").event == Event("reroll", {"target": "Ann"}, 7, "alice")
    out = session.setting("player_declarations", "approval")
    assert out.event == Event("setting", {"key": "player_declarations", "value": "approval"}, 8, "alice")
    with pytest.raises(TrackerError) as bad:
        session.setting("player_declarations", "sometimes")
    assert str(bad.value) == "setting.player_declarations: expected one of at_once, approval, got 'sometimes'"
    for call in (lambda: session.surprise("Zed", 3), lambda: session.hide("Zed"), lambda: session.keep("Zed"), lambda: session.reroll("Zed")):
        with pytest.raises(TrackerError, match="no combatant named 'Zed'"):
            call()


def test_schedule_and_note_are_said_in_the_log() -> None:
    session = gm()
    out = session.schedule(40, "the flood")
    assert out.event == Event("schedule", {"at": 40, "text": "the flood"}, 1, "alice")
    assert session.encounter.next_happening() == 40
    assert session.note("hello").event == Event("note", {"text": "hello"}, 2, "alice")
    with pytest.raises(CommandError) as empty:
        session.note("")
    assert str(empty.value) == "usage: note TEXT"
    with pytest.raises(TrackerError, match="^note: control characters"):
        session.note("a\x1bb")
    with pytest.raises(TrackerError, match="^schedule: text: control characters"):
        session.schedule(4, "a\x1bb")
    assert len(session.encounter.events) == 2


# ------------------------------------------------------------------ time
def test_next_moves_to_the_next_happening_and_step_by_segments() -> None:
    session = ann_and_bob()
    with pytest.raises(RuleRefusal) as nothing:
        session.next()
    assert str(nothing.value) == "nothing is scheduled: declare an action, or step (rule: next)"
    session.schedule(7, "a bell")
    assert session.next().event == Event("advance", {"to": 7}, 4, "alice")
    assert session.encounter.now == 7
    assert session.step().event == Event("advance", {"to": 8}, 5, "alice")
    assert session.step(3).event == Event("advance", {"to": 11}, 6, "alice")
    for bad in (0, -2):
        with pytest.raises(CommandError) as refused:
            session.step(bad)
        assert str(refused.value) == f"step: expected at least 1 segment, got {bad}"
    assert session.encounter.now == 11


def test_step_stops_at_the_last_segment() -> None:
    session = gm()
    last = bounds.MAX_SEGMENT
    session.step(last - 1)
    assert session.step(1).event is not None and session.encounter.now == last
    with pytest.raises(CommandError) as past:
        session.step(1)
    assert str(past.value) == f"step: the fight would pass segment {last:,}"


# ------------------------------------------------------------------ table rolls
def test_a_table_roll_in_the_games_notation_or_plain_dice() -> None:
    session = gm(ruleset=OGS)
    session.dice = Counted()
    ogs = session.roll(" 3d6 ")
    assert ogs.event is not None and ogs.event.kind == "roll"
    assert ogs.event.args["spec"] == "3d6" and ogs.event.args["dice"] == [6, 6, 6]
    assert ogs.event.args["text"].startswith("3d6: ") and ogs.event.args["text"].endswith("18")
    assert "secret" not in ogs.event.args
    plain = gm()
    plain.dice = Counted()
    out = plain.roll("2d10+2")
    assert out.event is not None and out.event.args["dice"] == [10, 10] and out.event.args["spec"] == "2d10+2"
    assert out.event.args["text"].startswith("2d10+2") and "22" in out.event.args["text"]
    assert out.event.args["text"].count("2d10+2") == 1
    secret = plain.roll("1d6", secret=True)
    assert secret.event is not None and secret.event.args["secret"] is True


def test_a_roll_that_is_no_dice_is_refused_naming_both_readings() -> None:
    session = gm(ruleset=OGS)
    with pytest.raises(CommandError) as bad:
        session.roll("zz")
    text = str(bad.value)
    assert text.startswith("roll: ") and text.endswith("; or plain dice such as 2d10 or 3d6+2") and "zz" in text
    for empty in ("", "   "):
        with pytest.raises(CommandError) as usage:
            session.roll(empty)
        assert str(usage.value) == "usage: roll DICE [secret=true] (the game's notation, or dice such as 2d10)"
    with pytest.raises(TrackerError, match="^roll: control characters"):
        session.roll("2d6\x1b")
    with pytest.raises(CommandError):
        gm().roll("101d6")  # plain dice: at most 100 of at most 1000 sides
    with pytest.raises(CommandError):
        gm().roll("1d1001")
    assert gm().roll("100d1000").event is not None
    assert session.encounter.events == []


def test_only_the_gm_rolls_in_secret() -> None:
    session = ann_and_bob()
    dice = Counted()
    player = seat(session, Role.player(["Ann"]), dice=dice)
    with pytest.raises(RuleRefusal):
        player.roll("1d6", secret=True)
    assert dice.asked == []
    open_roll = player.roll("1d6")
    assert open_roll.event is not None and open_roll.event.by == "player:bob" and dice.asked == [6]


# ------------------------------------------------------------------ chances
class Chancy:
    """OGS, with its chance counted (and replaced when told)."""

    def __init__(self, answer: Any = "real") -> None:
        self.asked = 0
        self.answer = answer

    def __getattr__(self, name: str) -> Any:
        return getattr(OGS, name)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        self.asked += 1
        if self.answer == "real":
            return OGS.chance_of(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_the_chance_is_the_games_and_asked_once_per_request() -> None:
    ruleset = Chancy()
    session = gm("add Ann", "add Bob", ruleset=OGS)
    session.ruleset = ruleset  # type: ignore[assignment]
    assert session.chance("Ann", "check") == ogs_check_chance()
    assert session.chance("Ann", "check") == ogs_check_chance()
    assert ruleset.asked == 1
    request, template = session.request("Ann", "check")
    assert template.name == "check" and request.actor.name == "Ann" and request.template is template
    assert session.chance_of(request) == ogs_check_chance() and ruleset.asked == 1
    # a different request is asked again: another actor, target, modifier, PT, or a later state
    session.chance("Bob", "check")
    assert ruleset.asked == 2
    session.chance("Ann", "attack", ["Bob"])
    session.chance("Ann", "attack", ["Ann"])
    assert ruleset.asked == 4
    session.chance("Ann", "check", params={"bonus": "1"})
    session.chance("Ann", "check", params={"bonus": "2"})
    assert ruleset.asked == 6
    session.chance_of(session.request("Ann", "check", pt=3)[0])
    assert ruleset.asked == 7
    session.chance_of(session.request("Ann", "check", pt=3)[0])
    assert ruleset.asked == 7
    session.execute("note later")
    session.chance("Ann", "check")
    assert ruleset.asked == 8


def test_the_chance_counts_the_requests_previous_link_and_the_fight() -> None:
    ruleset = Chancy(Fraction(1, 3))
    session = gm("add Ann", "add Bob", ruleset=OGS)
    session.ruleset = ruleset  # type: ignore[assignment]
    request, _ = session.request("Ann", "check")
    other = gm("add Ann", "add Bob", ruleset=OGS)
    elsewhere, _ = other.request("Ann", "check")
    assert session.chance_of(request) == Fraction(1, 3)
    assert session.chance_of(elsewhere) == Fraction(1, 3)
    assert ruleset.asked == 2
    import dataclasses
    later = dataclasses.replace(request, segment=request.segment + 1)
    session.chance_of(later)
    assert ruleset.asked == 3
    linked = dataclasses.replace(request, previous=object())  # type: ignore[arg-type]
    session.chance_of(linked)
    assert ruleset.asked == 4
    no_fight = dataclasses.replace(request, encounter=None)
    session.chance_of(no_fight)
    session.chance_of(no_fight)
    assert ruleset.asked == 5


def test_a_remembered_chance_of_none_is_not_asked_again() -> None:
    ruleset = Chancy(None)
    session = gm("add Ann", "add Bob", ruleset=OGS)
    session.ruleset = ruleset  # type: ignore[assignment]
    assert session.chance("Ann", "check") is None
    assert session.chance("Ann", "check") is None
    assert ruleset.asked == 1


def test_the_chances_remembered_are_the_latest_sixteen() -> None:
    ruleset = Chancy(Fraction(1, 2))
    session = gm("add Ann", "add Bob", ruleset=OGS)
    session.ruleset = ruleset  # type: ignore[assignment]
    for bonus in range(16):
        session.chance("Ann", "check", params={"bonus": str(bonus)})
    assert ruleset.asked == 16 and len(session._chances) == 16
    for bonus in range(16):
        session.chance("Ann", "check", params={"bonus": str(bonus)})
    assert ruleset.asked == 16  # all sixteen still known
    session.chance("Ann", "check", params={"bonus": "16"})
    assert ruleset.asked == 17 and len(session._chances) == 1
    session.chance("Ann", "check", params={"bonus": "0"})
    assert ruleset.asked == 18 and len(session._chances) == 2


def test_a_declaration_keeps_the_chance_the_form_showed_as_n_over_d() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    out = session.declare("Ann", "check", faces="2,2,1")
    assert out.event is not None
    chance = ogs_check_chance()
    assert out.event.args["chance"] == f"{chance.numerator}/{chance.denominator}"
    failing = gm("add Ann", "add Bob", ruleset=OGS)
    failing.ruleset = Chancy(ValueError("no chance here"))  # type: ignore[assignment]
    kept = failing.declare("Ann", "check", faces="2,2,1")
    assert kept.event is not None and kept.event.args["chance"] is None
    unknown = gm("add Ann", "add Bob", ruleset=OGS)
    unknown.ruleset = Chancy(None)  # type: ignore[assignment]
    none = unknown.declare("Ann", "check", faces="2,2,1")
    assert none.event is not None and none.event.args["chance"] is None
    odd = gm("add Ann", "add Bob", ruleset=OGS)
    odd.ruleset = Chancy(Fraction(2, 6))  # type: ignore[assignment]
    third = odd.declare("Ann", "check", faces="2,2,1")
    assert third.event is not None and third.event.args["chance"] == "1/3"


# ------------------------------------------------------------------ declaring
def test_a_declaration_records_its_actor_action_targets_and_outcome() -> None:
    session = ann_and_bob()
    out = session.declare("ann", "attack", ["bob"], params={"damage": "3"})
    assert out.event is not None and out.event.kind == "declare" and out.event.by == "alice"
    args = out.event.args
    assert (args["actor"], args["template"], args["mode"], args["targets"]) == ("Ann", "attack", "active", ["Bob"])
    assert args["companions"] == [] and args["maintainable"] is True and args["secret"] is None
    assert args["params"] == {"damage": "3"} and "pt" not in args
    assert args["resolution"].performance_time == 10 if hasattr(args["resolution"], "performance_time") else args["resolution"].pt == 10
    assert "draw" not in args
    assert len(out.lines) == 1 and out.lines[0].startswith("Ann initiates active attack at Bob, PT 10")
    session.next()
    assert session.encounter.combatant("Bob").resources["hp"] == 7


def test_a_declaration_takes_pt_targets_secret_and_says_if_it_may_be_maintained() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10", "add Cid hp=10")
    out = session.declare("Ann", "cast", ("Bob", "Cid"), pt=4, secret=True, params={"maintainable": "false"})
    assert out.event is not None
    args = out.event.args
    assert args["targets"] == ["Bob", "Cid"] and args["secret"] is True and args["pt"] == 4
    assert args["maintainable"] is False
    assert session.encounter.combatant("Ann").in_progress[0].completes == 4
    move = session.declare("Bob", "move")
    assert move.event is not None and move.event.args["maintainable"] is False and move.event.args["mode"] == "passive"
    typed = session.declare("Cid", "Jump  ")
    assert typed.event is not None and typed.event.args["template"].strip() == "Jump"


def test_an_empty_or_badly_named_action_is_refused_before_anything() -> None:
    session = ann_and_bob()
    for empty in ("", "  "):
        with pytest.raises(CommandError) as refused:
            session.declare("Ann", empty)
        assert str(refused.value) == "declare: the action is empty"
    with pytest.raises(TrackerError, match="^declare: action: "):
        session.declare("Ann", "ju\u200bmp")
    with pytest.raises(TrackerError, match="^declare: action: "):
        session.declare("Ann", "j" * 41)
    assert session.declare("Ann", "j" * 40).event is not None


def test_an_ogs_declaration_rolls_the_typed_faces_and_marks_them() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    session.dice = Counted()
    typed = session.declare("Ann", "check", faces=[2, 2, 1])
    assert typed.event is not None and typed.event.args["dice"] == "typed"
    assert typed.event.args["resolution"].dice == (2, 2, 1) and typed.event.args["resolution"].success is False
    rolled = session.declare("Bob", "check", faces=None)
    assert rolled.event is not None and rolled.event.args["resolution"].dice == (6, 6, 4)
    assert session.dice.asked == [6, 6, 4]
    assert rolled.event.args["dice"] == "app"


def test_the_form_says_which_faces_its_app_rolled() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    out = session.declare("Ann", "check", faces=[2, 2, 1], app_rolled=[True, True, True])
    assert out.event is not None and out.event.args["dice"] == "app"
    part = session.declare("Bob", "check", faces=[2, 2, 1], app_rolled=[True, False, False])
    assert part.event is not None and part.event.args["dice"] == "typed+app"


def test_the_apps_dice_stand_for_a_player_and_are_fresh_for_the_gm() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    dice = Counted()
    session.dice = dice
    assert session.app_roll([6, 8, 20]) == [6, 8, 20] and dice.asked == [6, 8, 20]
    player_dice = Counted()
    player = seat(session, Role.player(["Ann"]), dice=player_dice)
    first = player.app_roll([6, 6, 4], actor="Ann")
    assert player.app_roll([6, 6, 4], actor="Ann") == first  # it stands
    assert player_dice.asked == []  # a player's come from the save's stream, never the seat's source
    assert player.app_roll([6, 4], 1, actor="Ann") == first[1:]  # from die 1 on: the same draw
    assert all(1 <= face <= sides for face, sides in zip(first, (6, 6, 4)))
    # the draw moves on once a declaration using them stands
    out = player.declare("Ann", "check", faces=first, app_rolled=[True, True, True])
    assert out.event is not None and out.event.args["draw"] == 0 and out.event.args["dice"] == "app"
    assert out.event.by == "player:bob"
    after = [player.app_roll([6, 6, 4], actor="Ann") for _ in range(2)]
    assert after[0] == after[1]


def test_a_players_app_roll_refuses_a_combatant_not_seen() -> None:
    session = gm("add Ann", "add Spy hidden=true", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    with pytest.raises(TrackerError, match="no combatant named 'Spy'"):
        player.app_roll([6], actor="Spy")


# ------------------------------------------------------------------ maintain and abort
def test_a_completed_action_is_maintained_with_its_modifiers() -> None:
    session = ann_and_bob()
    session.declare("Ann", "attack", ["Bob"], params={"damage": "2"})
    session.next()
    link = session.maintain("Ann")
    assert link.event is not None and link.event.kind == "maintain" and link.event.by == "alice"
    args = link.event.args
    assert args["actor"] == "Ann" and args["params"] == {"damage": "2"} and "draw" not in args
    assert args["chance"] is None and args["dice"] == "app"
    assert set(args) == {"actor", "chance", "resolution", "dice", "params"}
    session.next()
    assert session.encounter.combatant("Bob").resources["hp"] == 6
    again = session.maintain("Ann", params={"damage": "1"}, pt=3)
    assert again.event is not None and again.event.args["params"] == {"damage": "1"} and again.event.args["pt"] == 3
    session.next()
    assert session.encounter.combatant("Bob").resources["hp"] == 5
    whole = session.maintain("Ann", params={"note": "a kick"}, kept=False)
    assert whole.event is not None and whole.event.args["params"] == {"note": "a kick"}


def test_maintain_keeps_the_links_modifiers_and_the_next_starts_from_them() -> None:
    session = ann_and_bob()
    session.declare("Ann", "attack", ["Bob"], params={"damage": "2"})
    session.next()
    session.maintain("Ann", params={"note": "hard"})
    assert session.encounter.events[-1].args["params"] == {"damage": "2", "note": "hard"}


def test_abort_takes_an_action_off_by_its_actor_and_its_name() -> None:
    session = ann_and_bob()
    session.declare("Ann", "attack", ["Bob"])
    session.step()
    session.declare("Ann", "move")
    out = session.abort("ann", "move")
    assert out.event == Event("abort", {"actor": "Ann", "template": "move"}, 6, "alice")
    assert [a.template for a in session.encounter.combatant("Ann").in_progress] == ["attack"]
    plain = session.abort("Ann")
    assert plain.event == Event("abort", {"actor": "Ann"}, 7, "alice")
    assert session.encounter.combatant("Ann").in_progress == [] or not session.encounter.combatant("Ann").in_progress
    with pytest.raises(RuleRefusal, match="not your combatant"):
        seat(session, Role.player(["Bob"])).abort("Ann")


# ------------------------------------------------------------------ players' proposals
def _waiting() -> tuple[Session, Session]:
    """alice's GM seat and bob's seat for Ann, under approval, with Ann's check waiting."""
    session = gm("add Ann", "add Bob", "setting player_declarations approval", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "check", faces=[2, 2, 1])
    return session, player


def test_under_approval_a_players_declaration_waits_as_a_proposal_with_its_faces() -> None:
    session, player = _waiting()
    event = session.encounter.events[-1]
    assert event.kind == "propose" and event.by == "player:bob"
    assert event.args["action"] == "declare" and event.args["actor"] == "Ann" and event.args["template"] == "check"
    assert event.args["faces"] == [2, 2, 1]
    assert session.encounter.combatant("Ann").in_progress == [] or not session.encounter.combatant("Ann").in_progress
    assert [p.seq for p in session.proposals()] == [event.seq]
    assert [p.seq for p in player.proposals()] == [event.seq]
    assert seat(session, Role.player(["Bob"]), user="dan").proposals() == []
    assert seat(session, Role.viewer()).proposals() == []
    # the GM's own declaration applies at once
    mine = session.declare("Bob", "check", faces=[1, 1, 1])
    assert mine.event is not None and mine.event.kind == "declare"


def test_a_proposal_without_dice_carries_no_faces() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10", "setting player_declarations approval")
    player = seat(session, Role.player(["Ann"]))
    out = player.declare("Ann", "attack", ["Bob"], params={"damage": "3"})
    assert out.event is not None and out.event.kind == "propose"
    assert "faces" not in out.event.args and out.event.args["action"] == "declare"
    assert out.event.args["params"] == {"damage": "3"}


def test_a_proposal_is_shown_with_its_roll_its_dice_and_who_asked() -> None:
    session, player = _waiting()
    seq = session.encounter.events[-1].seq
    line = session.proposal_line(session.proposals()[0])
    assert line.startswith(f"proposal {seq}: Ann, check: ")
    assert "= 5 vs 8" in line and "(dice typed by the player)" in line and line.endswith(" (player bob)")
    assert session.show_proposals().lines == [line]
    assert player.show_proposals() == Outcome(None, [line])
    with pytest.raises(RuleRefusal, match="proposals"):
        seat(session, Role.viewer()).show_proposals()
    assert seat(session, Role.player(["Bob"]), user="dan").show_proposals().lines == ["no proposals waiting (player_declarations is approval)"]
    assert gm().show_proposals().lines == ["no proposals waiting (player_declarations is at_once)"]


def test_a_proposal_line_without_a_roll_or_a_signature() -> None:
    session = ann_and_bob()
    session.declare("Ann", "attack", ["Bob"])
    session.declare("Bob", "attack", ["Ann"])
    enc = session.encounter
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("propose", {"action": "abort", "actor": "Ann"}))
    proposal = session.proposals()[0]
    assert session.proposal_line(proposal) == f"proposal {proposal.seq}: Ann, {proposal.what()}"
    enc.apply(Event("propose", {"action": "abort", "actor": "Bob"}, by="player:\x1bdan"))
    signed = session.proposal_line(session.proposals()[1])
    assert "\x1b" not in signed and signed.startswith(f"proposal {proposal.seq + 1}: Bob, ") and "dan)" in signed


def test_approving_as_it_is_applies_the_players_roll() -> None:
    session, _ = _waiting()
    seq = session.encounter.events[-1].seq
    out = session.approve(seq)
    assert out.event == Event("approve", {"target": seq}, seq + 1, "alice")
    ann = session.encounter.combatant("Ann")
    assert [a.template for a in ann.in_progress] == ["check"]
    assert ann.in_progress[0].resolution.dice == (2, 2, 1)
    with pytest.raises(RuleRefusal):
        session.approve(seq)  # no longer pending: the engine says why
    with pytest.raises(RuleRefusal):
        session.approve(seq, pt=3)


def test_an_edited_approval_resolves_again_with_the_players_dice() -> None:
    session, _ = _waiting()
    seq = session.encounter.events[-1].seq
    dice = Counted()
    session.dice = dice
    out = session.approve(seq, pt=3)
    assert out.event is not None and out.event.kind == "approve" and out.event.args["target"] == seq
    assert out.event.args["pt"] == 3 and out.event.args["actor"] == "Ann" and out.event.args["template"] == "check"
    assert out.event.args["resolution"].dice == (2, 2, 1) and dice.asked == []
    assert out.event.args["dice"] == "typed"  # the player typed them: the approval says so, not "app"
    assert session.encounter.combatant("Ann").in_progress[0].completes == 3
    assert any("with changes" in line for line in out.lines)


def test_an_edited_approval_of_a_proposal_that_never_said_who_rolled_is_the_apps() -> None:
    """A proposal saved before proposals kept who decided their faces (`dice` is optional
    in the save) is replayed as the app's dice, as it was then."""
    session, _ = _waiting()
    proposed = session.encounter.events[-1]
    unsaid = {key: value for key, value in proposed.args.items() if key != "dice"}
    fresh = gm("add Ann", "add Bob", "setting player_declarations approval", ruleset=OGS)
    fresh.encounter.apply(Event("propose", unsaid, by=proposed.by))
    out = fresh.approve(fresh.encounter.events[-1].seq, pt=3)
    assert out.event is not None and out.event.args["dice"] == "app"
    assert out.event.args["resolution"].dice == (2, 2, 1)


def test_an_edited_approval_takes_new_faces_or_modifiers() -> None:
    session, _ = _waiting()
    seq = session.encounter.events[-1].seq
    out = session.approve(seq, faces="6,6,4")
    assert out.event is not None and out.event.args["resolution"].dice == (6, 6, 4)
    assert out.event.args["resolution"].success is True
    session2, _ = _waiting()
    seq2 = session2.encounter.events[-1].seq
    bonus = session2.approve(seq2, params={"bonus": "3"})
    assert bonus.event is not None and bonus.event.args["params"] == {"bonus": "3"}
    assert bonus.event.args["resolution"].dice == (2, 2, 1)
    assert "8" in bonus.event.args["resolution"].summary  # 2 + 2 + 1 + 3 = 8 reaches 8
    assert bonus.event.args["resolution"].success is True
    session3, _ = _waiting()
    seq3 = session3.encounter.events[-1].seq
    listed = session3.approve(seq3, faces=[6, 6, 4])
    assert listed.event is not None and listed.event.args["resolution"].dice == (6, 6, 4)


def test_an_approval_may_make_a_declarations_roll_secret() -> None:
    session, _ = _waiting()
    seq = session.encounter.events[-1].seq
    out = session.approve(seq, secret=True)
    assert out.event is not None and out.event.args["secret"] is True
    assert out.event.args["resolution"].dice == (2, 2, 1)
    assert any("roll made secret" in line for line in out.lines)


def test_an_approval_retargets_a_players_attack() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10", "add Cid hp=10", "setting player_declarations approval")
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "attack", ["Bob"], params={"damage": "3"})
    seq = session.encounter.events[-1].seq
    out = session.approve(seq, targets=["Cid"])
    assert out.event is not None and out.event.args["targets"] == ["Cid"] and out.event.args["params"] == {"damage": "3"}
    session.next()
    assert (session.encounter.combatant("Bob").resources["hp"], session.encounter.combatant("Cid").resources["hp"]) == (10, 7)
    # the player stated the damage: unless the GM changed a modifier the outcome stays theirs
    assert "stated by the player" in out.event.args["resolution"].summary


def test_an_approval_with_a_changed_modifier_is_the_gms_outcome() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10", "setting player_declarations approval")
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "attack", ["Bob"], params={"damage": "3"}, pt=4)
    seq = session.encounter.events[-1].seq
    out = session.approve(seq, params={"damage": "5"})
    assert out.event is not None and out.event.args["params"] == {"damage": "5"}
    assert out.event.args["pt"] == 4  # the player's PT kept
    assert "stated by the GM" in out.event.args["resolution"].summary
    session.next()
    assert session.encounter.combatant("Bob").resources["hp"] == 5


def test_an_abort_proposal_has_nothing_to_edit_and_only_a_declaration_is_made_secret() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10")
    session.declare("Ann", "attack", ["Bob"], params={"damage": "3"})
    session.next()
    session.setting("player_declarations", "approval")
    player = seat(session, Role.player(["Ann"]))
    player.abort("Ann") if session.encounter.combatant("Ann").in_progress else None
    maintained = player.maintain("Ann")
    assert maintained.event is not None and maintained.event.kind == "propose" and maintained.event.args["action"] == "maintain"
    seq = maintained.event.seq
    with pytest.raises(CommandError) as secret:
        session.approve(seq, secret=True)
    assert str(secret.value) == f"approve {seq}: secret: only a declaration's roll may be made secret, not a maintain's"
    edited = session.approve(seq, params={"damage": "1"})
    assert edited.event is not None and edited.event.args["params"] == {"damage": "1"} and edited.event.args["target"] == seq
    session.next()
    assert session.encounter.combatant("Bob").resources["hp"] == 6
    session.declare("Ann", "attack", ["Bob"])
    player.abort("Ann")
    abort = session.encounter.events[-1]
    assert abort.kind == "propose" and abort.args["action"] == "abort"
    with pytest.raises(CommandError) as nothing:
        session.approve(abort.seq, pt=2)
    assert str(nothing.value) == f"approve {abort.seq}: an abort has nothing to edit; approve it as it is"
    assert session.approve(abort.seq).event == Event("approve", {"target": abort.seq}, abort.seq + 1, "alice")


def test_a_maintain_proposal_is_approved_with_the_links_modifiers_in_full() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10")
    session.declare("Ann", "attack", ["Bob"], params={"damage": "3", "note": "jab"})
    session.next()
    session.setting("player_declarations", "approval")
    player = seat(session, Role.player(["Ann"]))
    proposal = player.maintain("Ann")
    assert proposal.event is not None
    out = session.approve(proposal.event.seq, pt=5)
    assert out.event is not None and out.event.args["params"] == {"damage": "3", "note": "jab"} and out.event.args["pt"] == 5


def test_refusing_a_proposal_gives_the_player_the_reason() -> None:
    session, player = _waiting()
    seq = session.encounter.events[-1].seq
    out = session.refuse(seq, "  not now  ")
    assert out.event == Event("refuse", {"target": seq, "reason": "not now"}, seq + 1, "alice")
    assert session.proposals() == []
    session2, _ = _waiting()
    seq2 = session2.encounter.events[-1].seq
    assert session2.refuse(seq2).event == Event("refuse", {"target": seq2, "reason": None}, seq2 + 1, "alice")
    session3, _ = _waiting()
    with pytest.raises(TrackerError, match="^refuse: reason: control characters"):
        session3.refuse(session3.encounter.events[-1].seq, "no\x1b")
    assert len(session3.proposals()) == 1


# ------------------------------------------------------------------ take back
def test_take_back_withdraws_a_waiting_proposal() -> None:
    session, player = _waiting()
    seq = session.encounter.events[-1].seq
    session.declare("Ann", "check", faces=[1, 1, 1])
    session.encounter.apply(Event("propose", {"action": "abort", "actor": "Ann"}, by="player:bob"))
    latest = session.encounter.events[-1].seq
    out = player.takeback()
    assert out.event == Event("withdraw", {"target": latest}, latest + 1, "player:bob")
    again = player.takeback()
    assert again.event is not None and again.event.args == {"target": seq}
    assert session.proposals() == []


def test_take_back_undoes_a_declaration_applied_at_once_while_it_is_the_latest() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    declared = player.declare("Ann", "attack", ["Bob"])
    assert declared.event is not None
    out = player.takeback()
    assert out.event is not None and out.event.kind == "undo" and out.event.args == {"target": declared.event.seq}
    assert out.event.by == "player:bob"
    assert not session.encounter.combatant("Ann").in_progress


def test_take_back_after_the_fight_moved_on_says_whose_the_latest_change_is() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "attack", ["Bob"])
    session.note("the GM's secret plan")
    with pytest.raises(RuleRefusal) as moved:
        player.takeback()
    text = str(moved.value)
    assert text.startswith("Ann declares attack against Bob")
    assert f"the fight has changed since (latest: change {session.encounter.events[-1].seq}, GM alice's); ask the GM" in text
    assert "secret plan" not in text
    # a change nobody signed is the GM's
    unsigned = ann_and_bob()
    unsigned.user = ""
    bob = seat(unsigned, Role.player(["Ann"]))
    bob.declare("Ann", "attack", ["Bob"])
    unsigned.note("x")
    with pytest.raises(RuleRefusal, match=r"latest: change \d+, the GM's\); ask the GM"):
        bob.takeback()


def test_take_back_with_nothing_of_ones_own() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    with pytest.raises(RuleRefusal) as nothing:
        player.takeback()
    assert str(nothing.value) == "nothing of yours to take back (rule: take back)"
    other = seat(session, Role.player(["Bob"]), user="dan")
    other.declare("Bob", "attack", ["Ann"])
    with pytest.raises(RuleRefusal) as theirs:
        player.takeback()
    assert str(theirs.value) == "nothing of yours to take back (rule: take back)"
    # a change of one's own that no player may propose (a table roll) is not taken back
    player.roll("1d6")
    with pytest.raises(RuleRefusal, match="nothing of yours to take back"):
        player.takeback()


def test_take_back_of_an_undone_declaration_when_nothing_is_left_to_undo() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "attack", ["Bob"])
    session.undo()
    session.undo()
    session.undo()
    assert session.encounter.undo_target() is None
    with pytest.raises(RuleRefusal) as nothing:
        player.takeback()
    assert str(nothing.value) == "nothing of yours to take back (rule: take back)"


# ------------------------------------------------------------------ tests added for the first run's survivors
def test_the_library_is_handed_in_when_the_seat_opens(tmp_path: Path) -> None:
    session = gm("add Ann hp=12")
    library = Library.in_folder(tmp_path, "freeform")
    opened = Session(session.encounter, FREEFORM, user="alice", library=library)
    assert opened.sheet_library is library and opened.library() is library


def test_a_players_change_said_without_its_kind_is_judged_by_the_event_built() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    out = player.submit(lambda enc: Event("declare", {"actor": "Ann", "template": "jab", "mode": "active", "targets": [], "companions": [],
                                                      "maintainable": False, "resolution": Resolution(pt=3)}))
    assert out.event is not None and out.event.by == "player:bob" and out.event.kind == "declare"
    with pytest.raises(RuleRefusal):
        player.submit(lambda enc: Event("note", {"text": "x"}))


def test_a_player_naming_anothers_combatant_is_refused_before_the_action_is_read() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    for call, verb in ((lambda: player.declare("Bob", "nothing"), "declare"), (lambda: player.maintain("Bob"), "maintain")):
        with pytest.raises(RuleRefusal) as refused:
            call()
        assert str(refused.value) == f"{verb} Bob: not your combatant; a player declares only for their own (Ann) (rule: player)"


def test_an_ended_fight_says_there_is_nothing_to_redo(ford: Path) -> None:
    session = _in_file(ford)
    session.end_fight("won")
    with pytest.raises(RuleRefusal) as redo:
        session.execute("redo")
    assert str(redo.value) == "nothing to redo (rule: redo)"


VIEWER_CALLS: list[tuple[str, Callable[[Session], Any]]] = [
    ("add", lambda s: s.add("Cid", {})),
    ("rename", lambda s: s.rename("Ann", "Anna")),
    ("side", lambda s: s.set_side("Ann", "foes")),
    ("reorder", lambda s: s.reorder("Ann", 2)),
    ("remove", lambda s: s.remove("Ann")),
    ("declare", lambda s: s.declare("Ann", "attack", ["Bob"])),
    ("maintain", lambda s: s.maintain("Ann")),
    ("abort", lambda s: s.abort("Ann")),
    ("damage", lambda s: s.damage("Ann", 1)),
    ("damage", lambda s: s.heal("Ann", 1)),
    ("set", lambda s: s.set_value("Ann", "hp", "3")),
    ("condition", lambda s: s.condition("Ann", "prone", 2)),
    ("surprise", lambda s: s.surprise("Ann", 3)),
    ("hide", lambda s: s.hide("Ann")),
    ("hide", lambda s: s.unhide("Ann")),
    ("keep", lambda s: s.keep("Ann")),
    ("schedule", lambda s: s.schedule(3, "a bell")),
    ("note", lambda s: s.note("hello")),
    ("roll", lambda s: s.roll("2d6")),
    ("advance", lambda s: s.next()),
    ("advance", lambda s: s.step(2)),
    ("undo", lambda s: s.undo()),
    ("redo", lambda s: s.redo()),
    ("approve", lambda s: s.approve(1)),
    ("refuse", lambda s: s.refuse(1, "no")),
    ("withdraw", lambda s: s.takeback()),
    ("reroll", lambda s: s.reroll("Ann")),
    ("setting", lambda s: s.setting("player_declarations", "approval")),
]


@pytest.mark.parametrize(("kind", "call"), VIEWER_CALLS, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(VIEWER_CALLS)])
def test_a_viewer_is_refused_every_change_by_its_name_before_anything(kind: str, call: Callable[[Session], Any]) -> None:
    from tracker.engine.kinds import refused_as

    session = ann_and_bob()
    session.schedule(5, "a bell")
    count = len(session.encounter.events)
    viewer = seat(session, Role.viewer(), user="carol")
    with pytest.raises(RuleRefusal) as refused:
        call(viewer)
    assert str(refused.value) == f"{refused_as(kind)}: a viewer's session is read-only; changes are made by the GM (rule: viewer)"
    assert len(session.encounter.events) == count


def test_a_players_approval_or_abort_is_refused_before_the_fight_is_read() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    with pytest.raises(RuleRefusal) as approving:
        player.approve(99, pt=3)
    assert str(approving.value).startswith("approving a proposal: a player declares, maintains and aborts actions for their own combatants (Ann)")
    with pytest.raises(RuleRefusal) as ghost:
        player.abort("Ghost")
    assert str(ghost.value) == "abort Ghost: not your combatant; a player declares only for their own (Ann) (rule: player)"


def test_an_end_unstated_says_who_is_standing_and_a_changed_fight_is_looked_at_again(ford: Path) -> None:
    session = _in_file(ford)
    preview = session.end_preview()
    # docs/guide/campaigns.md: an outcome not stated is who is left standing
    assert preview.outcome == "1 of 1 of the party standing, 1 of 1 others"
    session.execute("damage Goblin 1")
    with pytest.raises(RuleRefusal) as changed:
        session.end_fight(expect=preview)
    assert str(changed.value) == "ford.toml changed since its end was shown: look again (tracker campaign end ford.toml) (rule: campaign)"
    assert EncounterFile(ford).load().encounter.events[-1].kind == "damage"
    ended = session.end_fight()
    assert ended.event is not None and ended.event.args["outcome"] == "1 of 1 of the party standing, 1 of 1 others"
    assert ended.lines[0] == "End The Ford (ford.toml) at segment 0: 1 of 1 of the party standing, 1 of 1 others"


def test_a_player_is_refused_the_end_in_the_words_for_it(ford: Path) -> None:
    player = _in_file(ford, role=Role.player(["Ann"]))
    words = ("ending a campaign's fight (tracker campaign end): a player declares, maintains and aborts actions for their own "
             "combatants (Ann) and takes back their own last declaration; everything else is the GM's (rule: player)")
    for call in (player.end_preview, player.end_fight):
        with pytest.raises(RuleRefusal) as refused:
            call()
        assert str(refused.value) == words


def test_take_back_after_the_gm_declared_last_is_refused_in_words() -> None:
    session = ann_and_bob()
    player = seat(session, Role.player(["Ann"]))
    player.declare("Ann", "attack", ["Bob"])
    session.declare("Bob", "attack", ["Ann"])
    with pytest.raises(RuleRefusal) as moved:
        player.takeback()
    assert str(moved.value) == "Ann declares attack against Bob: the fight has changed since (latest: change 4, GM alice's); ask the GM (rule: take back)"
    assert len(session.encounter.effective_events()) == 4


# Brand X (seed 004's Sun-Ruler, as tests/test_maintain_link.py): a missed blast of 12 PR,
# then its links, each of which rolls the Target's Throwback Roll (two d10).
SUN_RULER = ("add Sun-Ruler agility=12 learning=10 ep=60", "add Target vp=100 dp=50",
             "declare Sun-Ruler blast target=Target pr=12 damage=5 faces=8,9,10,10", "next")


def test_a_link_rolls_the_typed_faces_or_the_sessions_dice_and_marks_whose() -> None:
    from rulesets.brandx import BrandXRuleset

    session = gm(*SUN_RULER, ruleset=BrandXRuleset())
    dice = Counted()
    session.dice = dice
    typed = session.maintain("Sun-Ruler", faces=[3, 4])
    assert typed.event is not None and typed.event.args["resolution"].dice == (3, 4) and typed.event.args["dice"] == "typed"
    assert dice.asked == []
    session.undo()
    app = session.maintain("Sun-Ruler", faces="3,4", app_rolled=[True, True])
    assert app.event is not None and app.event.args["dice"] == "app" and app.event.args["resolution"].dice == (3, 4)
    session.undo()
    rolled = session.maintain("Sun-Ruler")
    assert rolled.event is not None and rolled.event.args["resolution"].dice == (10, 10) and dice.asked == [10, 10]
    assert rolled.event.args["chance"] == "0/1"  # a link carries the missed roll: a certain miss


def test_an_edited_approval_of_a_link_replays_the_players_faces() -> None:
    from rulesets.brandx import BrandXRuleset

    session = gm(*SUN_RULER, "setting player_declarations approval", ruleset=BrandXRuleset())
    player = seat(session, Role.player(["Sun-Ruler"]))
    proposal = player.maintain("Sun-Ruler", faces=[3, 4])
    assert proposal.event is not None and proposal.event.kind == "propose" and proposal.event.args["faces"] == [3, 4]
    dice = Counted()
    session.dice = dice
    out = session.approve(proposal.event.seq, pt=6)
    assert out.event is not None and out.event.args["resolution"].dice == (3, 4) and out.event.args["pt"] == 6
    assert dice.asked == []
    assert session.encounter.combatant("Sun-Ruler").in_progress[0].completes == session.encounter.now + 6


def test_a_links_approval_keeps_the_players_statement_and_their_modifiers_in_full() -> None:
    session = gm("add Ann hp=10", "add Bob hp=10")
    session.declare("Ann", "attack", ["Bob"], params={"damage": "3"})
    session.next()
    session.setting("player_declarations", "approval")
    player = seat(session, Role.player(["Ann"]))
    # the maintain form: the link's modifiers in full (the declaration's damage not among them)
    proposal = player.maintain("Ann", params={"note": "a feint"}, kept=False)
    assert proposal.event is not None and proposal.event.args["params"] == {"note": "a feint"}
    out = session.approve(proposal.event.seq, pt=5)
    assert out.event is not None and out.event.args["params"] == {"note": "a feint"} and out.event.args["pt"] == 5
    assert "stated by the player" in out.event.args["resolution"].summary


def test_a_player_naming_nobody_hears_it_is_not_theirs() -> None:
    session = gm("add Ann", "add Bob", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    for call, verb in ((lambda: player.declare("Ghost", "check"), "declare"), (lambda: player.maintain("Ghost"), "maintain")):
        with pytest.raises(RuleRefusal) as refused:
            call()
        assert str(refused.value) == f"{verb} Ghost: not your combatant; a player declares only for their own (Ann) (rule: player)"


def test_a_proposal_that_is_the_fights_first_change_is_signed_and_taken_back() -> None:
    from tracker.engine import Setup
    from tracker.engine.model import CombatantSetup

    # a fight copied from another's roster (`tracker new --from`): its first change may be a player's
    roster = [CombatantSetup("Ann", resources={"hp": 10}), CombatantSetup("Bob", resources={"hp": 10})]
    setup = Setup("Ford", "freeform", FREEFORM.time, FREEFORM.down_when, {"player_declarations": "approval"}, roster)
    session = Session(Encounter(setup), FREEFORM, user="alice")
    player = seat(session, Role.player(["Ann"]))
    first = player.declare("Ann", "attack", ["Bob"], params={"damage": "2"})
    assert first.event is not None and first.event.seq == 1 and first.event.kind == "propose"
    assert session.proposal_line(session.proposals()[0]).endswith(" (player bob)")
    out = player.takeback()
    assert out.event == Event("withdraw", {"target": 1}, 2, "player:bob")


def test_a_plain_add_is_one_combatant_on_no_side_in_the_open_and_not_surprised() -> None:
    session = gm()
    out = session.add("Cid", {"hp": "4"})
    assert out.event is not None
    assert list(session.encounter.combatants) == ["Cid"]
    cid = session.encounter.combatant("Cid")
    assert (cid.side, cid.hidden, cid.surprised_until, cid.resources["hp"]) == ("", False, 0, 4)


def test_whether_a_declaration_may_be_maintained_is_the_games_under_the_tables_settings() -> None:
    from rulesets.brandx import BrandXRuleset

    # Brand X maintains a punch only where the house rule `maintain_hand_attacks` says so
    house = session_for(BrandXRuleset(), "add Ann agility=12 learning=10", "add Bob vp=100 dp=50", maintain_hand_attacks=True)
    out = house.declare("Ann", "punch", ["Bob"])
    assert out.event is not None and out.event.args["maintainable"] is True
    plain = session_for(BrandXRuleset(), "add Ann agility=12 learning=10", "add Bob vp=100 dp=50")
    out = plain.declare("Ann", "punch", ["Bob"])
    assert out.event is not None and out.event.args["maintainable"] is False


def test_a_players_link_on_the_apps_dice_records_its_draw() -> None:
    from rulesets.brandx import BrandXRuleset

    session = gm(*SUN_RULER, ruleset=BrandXRuleset())
    player = seat(session, Role.player(["Sun-Ruler"]))
    served = player.app_roll([10, 10], actor="Sun-Ruler")
    out = player.maintain("Sun-Ruler")
    assert out.event is not None and out.event.kind == "maintain" and out.event.by == "player:bob"
    assert out.event.args["draw"] == 0 and out.event.args["dice"] == "app"
    assert list(out.event.args["resolution"].dice) == served  # the faces that stood for the link


def test_the_fights_first_change_is_undone_and_redone_in_words() -> None:
    session = gm()
    session.note("the ford at dawn")
    assert session.undo().lines == ["undo: note: the ford at dawn at segment 0"]
    redone = session.redo()
    assert redone.event is not None and redone.event.args == {"target": 1}
    assert redone.lines == ["redo: note: the ford at dawn at segment 0"]


def test_an_edited_approval_rolls_the_dice_it_needs_beyond_the_players() -> None:
    session = gm("add Ann", "add Bob", "setting player_declarations approval", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    proposal = player.declare("Ann", "check", faces=[6, 6, 1])
    assert proposal.event is not None
    dice = Counted()
    session.dice = dice
    # rerolling ones on the enhancement die (rulesets/ogs): the player's 1 is rolled again, by this session
    out = session.approve(proposal.event.seq, params={"reroll_ones": "true"})
    assert out.event is not None and dice.asked == [4]
    assert out.event.args["resolution"].dice == (6, 6, 4)  # the 1 rolled again as a 4


def test_an_edited_approval_whose_dice_the_players_faces_do_not_fit_says_so() -> None:
    session = gm("add Ann", "add Bob", "setting player_declarations approval", ruleset=OGS)
    player = seat(session, Role.player(["Ann"]))
    # one Die Increase stage: the enhancement d4 is rolled as a d6, and the player rolls a 6 on it
    proposal = player.declare("Ann", "check", faces=[6, 6, 6], params={"increase": "1"})
    assert proposal.event is not None
    seq = proposal.event.seq
    with pytest.raises(CommandError) as misfit:
        session.approve(seq, params={"increase": "0"})
    assert str(misfit.value) == f"approve {seq}: the edited action rolls a d4 as die 3, where the player rolled 6; give the dice with faces="
    assert len(session.proposals()) == 1


def test_a_viewer_is_refused_the_proposals_in_the_words_for_it() -> None:
    session, _ = _waiting()
    with pytest.raises(RuleRefusal) as refused:
        seat(session, Role.viewer()).show_proposals()
    assert str(refused.value) == "proposals: a viewer's session is read-only; changes are made by the GM (rule: viewer)"


def test_the_gm_approves_a_link_with_faces_of_their_own() -> None:
    from rulesets.brandx import BrandXRuleset

    session = gm(*SUN_RULER, "setting player_declarations approval", ruleset=BrandXRuleset())
    proposal = seat(session, Role.player(["Sun-Ruler"])).maintain("Sun-Ruler", faces=[3, 4])
    assert proposal.event is not None
    out = session.approve(proposal.event.seq, faces="5,6")
    assert out.event is not None and out.event.args["resolution"].dice == (5, 6)
