"""Direct tests of tracker.play.policy: what a seat's role may do and know (module
docstring; docs/guide/players.md "A player's seat", "What a player or viewer sees",
"Dice: what a player decides alone"; the table of kinds' guards, tracker.engine.kinds).
The SSH and Pilot tests reach it through a session; these call it as `Session` does."""

from __future__ import annotations

import pytest

from tests.helpers import encounter
from tracker.engine import CommandError, Encounter, Event, Resolution, RuleRefusal, TrackerError
from tracker.play.policy import Policy
from tracker.reading.roles import Role

ANN = "player:ann"
BO = "player:bo"


def _fight() -> Encounter:
    """Ann and Bo (the players'), Goblin 1, Goblin 2 and Orc in the open, Spy hidden."""
    enc = encounter("Ann", "Bo", "Goblin 1", "Goblin 2", "Orc")
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    return enc


def _player(enc: Encounter, *names: str) -> Policy:
    role, missing = Role.of(enc, list(names))
    assert role is not None and not missing
    return Policy(role)


def _gm() -> Policy:
    return Policy(Role.gm())


def _viewer() -> Policy:
    return Policy(Role.viewer())


def _refused(exc: pytest.ExceptionInfo[BaseException]) -> str:
    return str(exc.value)


# ------------------------------------------------------------------ the role as the fight stands
def test_a_players_combatant_renamed_is_still_theirs_in_the_same_fight() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    assert ann.role_in(enc).combatants == ("Ann",)
    enc.apply(Event("rename", {"target": "Ann", "name": "Anna"}))  # one more event, no more combatants
    assert ann.role_in(enc).combatants == ("Anna",)
    assert ann.role_in(enc).owns("Anna") and not ann.role_in(enc).owns("Ann")
    enc.apply(Event("remove", {"name": "Anna"}))
    assert ann.role_in(enc).combatants == ()


def test_the_role_is_worked_out_again_for_another_fight_of_the_same_size() -> None:
    one, two = _fight(), _fight()
    one.apply(Event("rename", {"target": "Bo", "name": "Bob"}))
    two.apply(Event("rename", {"target": "Ann", "name": "Anna"}))  # as many events and combatants
    ann = _player(_fight(), "Ann")
    assert ann.role_in(one).combatants == ("Ann",)
    assert ann.role_in(two).combatants == ("Anna",)
    assert ann.role_in(one).combatants == ("Ann",)
    assert ann.stated.combatants == ("Ann",)  # as the seat was opened


# ------------------------------------------------------------------ knowing
def test_the_gm_finds_a_hidden_combatant_a_player_is_told_it_is_nobody() -> None:
    enc = _fight()
    assert _gm().lookup("spy", enc).name == "Spy"
    ann = _player(enc, "Ann")
    with pytest.raises(TrackerError) as hidden:
        ann.lookup("Spy", enc)
    with pytest.raises(TrackerError) as nobody:
        ann.lookup("Zed", enc)
    # a hidden name typed by a player is answered exactly as a name nobody has
    assert _refused(hidden) == "no combatant named 'Spy' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"
    assert _refused(nobody) == "no combatant named 'Zed' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' \(combatants: Ann, Bo, Goblin 1, Goblin 2, Orc\)$"):
        _viewer().lookup("Spy", enc)
    assert ann.lookup("orc", enc).name == "Orc"


def test_a_player_knows_their_own_hidden_combatant() -> None:
    enc = _fight()
    spy = _player(enc, "Spy")
    assert spy.lookup("Spy", enc).name == "Spy"
    assert [c.name for c in spy.chosen("S*", enc)] == ["Spy"]


def test_names_a_list_and_globs_each_once_in_roster_order() -> None:
    enc = _fight()
    gm = _gm()
    assert [c.name for c in gm.chosen("Orc", enc)] == ["Orc"]
    assert [c.name for c in gm.chosen(" Orc , ann ", enc)] == ["Orc", "Ann"]
    assert [c.name for c in gm.chosen("goblin*", enc)] == ["Goblin 1", "Goblin 2"]
    assert [c.name for c in gm.chosen("GOBLIN ?", enc)] == ["Goblin 1", "Goblin 2"]
    assert [c.name for c in gm.chosen("Goblin [2]", enc)] == ["Goblin 2"]
    assert [c.name for c in gm.chosen("Goblin 2,Goblin*", enc)] == ["Goblin 2", "Goblin 1"]
    assert [c.name for c in gm.chosen("Goblin*,Goblin 1,Orc", enc)] == ["Goblin 1", "Goblin 2", "Orc"]
    assert [c.name for c in gm.chosen("*", enc)] == ["Ann", "Bo", "Goblin 1", "Goblin 2", "Orc", "Spy"]


def test_a_glob_never_matches_nor_reveals_a_hidden_combatant_to_a_player() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    assert [c.name for c in ann.chosen("*", enc)] == ["Ann", "Bo", "Goblin 1", "Goblin 2", "Orc"]
    with pytest.raises(CommandError) as none:
        ann.chosen("S*", enc)
    assert _refused(none) == "'S*' matches no combatant (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' "):
        ann.chosen("Orc,Spy", enc)


def test_an_empty_name_and_a_glob_matching_no_one_are_refused() -> None:
    enc = _fight()
    with pytest.raises(CommandError) as empty:
        _gm().chosen("Orc,,Ann", enc)
    assert _refused(empty) == "'Orc,,Ann': an empty name in the list (names are separated by commas)"
    with pytest.raises(CommandError) as nobody:
        _gm().chosen("Troll*", enc)
    assert _refused(nobody) == "'Troll*' matches no combatant (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc, Spy)"
    with pytest.raises(CommandError) as yet:
        _gm().chosen("*", encounter())
    assert _refused(yet) == "'*' matches no combatant (combatants: none yet)"
    # only *, ? and [ make a glob: an unknown plain name is answered as one
    for name in ("Xena", "Troll"):
        with pytest.raises(TrackerError, match=rf"^no combatant named '{name}' \(combatants: Ann, Bo, Goblin 1, Goblin 2, Orc, Spy\)$"):
            _gm().chosen(f"Orc,{name}", enc)


def test_a_refusal_naming_the_combatants_lists_only_those_a_player_sees() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    engine = TrackerError("no combatant named 'X' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc, Spy)")
    shown = ann.as_seen(engine, enc)
    assert str(shown) == "no combatant named 'X' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"
    assert type(shown) is TrackerError
    assert _gm().as_seen(engine, enc) is engine
    assert str(_viewer().as_seen(engine, enc)) == str(shown)
    plain = TrackerError("time cannot move back")
    assert ann.as_seen(plain, enc) is plain
    rule = RuleRefusal("player", "x (combatants: Spy)")  # a rule's refusal is worded by the rule
    assert ann.as_seen(rule, enc) is rule
    # the last "(combatants: " is the list: a name may hold the words
    odd = TrackerError("no combatant named 'a (combatants: b' (combatants: Spy, Orc)")
    assert str(ann.as_seen(odd, enc)) == "no combatant named 'a (combatants: b' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"


# ------------------------------------------------------------------ before the dice
def test_before_dice_the_gm_may_do_anything_a_viewer_nothing() -> None:
    enc = _fight()
    _gm().before_dice(enc, "damage", "Spy")
    _gm().before_dice(enc, "declare", "Spy")
    with pytest.raises(RuleRefusal) as viewer:
        _viewer().before_dice(enc, "declare", "Ann")
    assert _refused(viewer) == "declare: a viewer's session is read-only; changes are made by the GM (rule: viewer)"
    with pytest.raises(RuleRefusal) as unnamed:
        _viewer().before_dice(enc, "")
    assert _refused(unnamed) == "change: a viewer's session is read-only; changes are made by the GM (rule: viewer)"


def test_before_dice_a_player_declares_only_for_their_own() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    ann.before_dice(enc, "declare", "ann")
    ann.before_dice(enc, "maintain", "Ann")
    ann.before_dice(enc, "", "")
    ann.before_dice(enc, "roll")
    with pytest.raises(RuleRefusal) as gm_only:
        ann.before_dice(enc, "damage", "Ann")
    assert _refused(gm_only) == (
        "damage: a player declares, maintains and aborts actions for their own combatants (Ann) "
        "and takes back their own last declaration; everything else is the GM's (rule: player)")
    with pytest.raises(RuleRefusal) as other:
        ann.before_dice(enc, "declare", "Orc")
    assert _refused(other) == "declare Orc: not your combatant; a player declares only for their own (Ann) (rule: player)"
    with pytest.raises(RuleRefusal, match=r"^abort Bo: not your combatant"):
        ann.before_dice(enc, "abort", "Bo")
    with pytest.raises(RuleRefusal) as theirs:
        _player(enc, "Ann", "Bo").before_dice(enc, "declare", "Orc")
    assert _refused(theirs) == "declare Orc: not your combatant; a player declares only for their own (Ann, Bo) (rule: player)"
    # a kind that is not a declaration, about a hidden combatant: its name is not confirmed
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' \(combatants: Ann, Bo, Goblin 1, Goblin 2, Orc\)$"):
        ann.before_dice(enc, "roll", "Spy")
    ann.before_dice(enc, "roll", "Orc")


def test_before_dice_a_player_owning_a_combatant_that_left_is_told_it_is_gone() -> None:
    enc = _fight()
    ann = Policy(Role.player(["Ann", "Ghost"]))  # held by name; Ghost is in no fight
    with pytest.raises(TrackerError, match=r"^no combatant named 'Ghost' "):
        ann.before_dice(enc, "declare", "Ghost")


# ------------------------------------------------------------------ the guard every change passes
def _declaration(actor: str, *targets: str, secret: bool = False) -> Event:
    args = {"actor": actor, "template": "hit", "mode": "active", "targets": list(targets), "resolution": Resolution(2)}
    if secret:
        args["secret"] = True
    return Event("declare", args)


def test_the_guard_lets_the_gm_make_any_change_and_a_viewer_none() -> None:
    enc = _fight()
    _gm().guard(enc, Event("damage", {"target": "Spy", "amount": 1, "resource": "hp"}), "alice")
    _gm().guard(enc, _declaration("Spy", secret=True), "alice")
    for event in (_declaration("Ann"), Event("roll", {"spec": "d6", "dice": [3], "text": "d6"})):
        with pytest.raises(RuleRefusal) as viewer:
            _viewer().guard(enc, event, "viewer")
        assert _refused(viewer) == f"{event.kind}: a viewer's session is read-only; changes are made by the GM (rule: viewer)"


def test_the_guard_lets_a_player_declare_in_the_open_for_their_own_only() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    ann.guard(enc, _declaration("Ann", "Orc"), ANN)
    ann.guard(enc, _declaration("ANN"), ANN)
    ann.guard(enc, Event("abort", {"actor": "Ann"}), ANN)
    with pytest.raises(RuleRefusal) as other:
        ann.guard(enc, _declaration("Bo", "Orc"), ANN)
    assert _refused(other) == "declare Bo: not your combatant; a player declares only for their own (Ann) (rule: player)"
    with pytest.raises(RuleRefusal, match=r"^maintain Orc: not your combatant"):
        ann.guard(enc, Event("maintain", {"actor": "Orc"}), ANN)
    with pytest.raises(RuleRefusal, match=r"^declare : not your combatant"):
        ann.guard(enc, Event("declare", {"template": "hit"}), ANN)
    # a proposal is refused as what it proposes
    with pytest.raises(RuleRefusal, match=r"^abort Bo: not your combatant"):
        ann.guard(enc, Event("propose", {"action": "abort", "actor": "Bo"}), ANN)
    with pytest.raises(RuleRefusal) as secret:
        ann.guard(enc, _declaration("Ann", secret=True), ANN)
    assert _refused(secret) == "secret rolls are the GM's: a player's roll is seen by the table (rule: player)"
    with pytest.raises(RuleRefusal, match="^secret rolls are the GM's"):
        ann.guard(enc, Event("propose", {"action": "declare", "actor": "Ann", "template": "hit", "secret": True}), ANN)


def test_the_guard_answers_a_hidden_target_as_a_name_nobody_has() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    with pytest.raises(TrackerError) as hidden:
        ann.guard(enc, _declaration("Ann", "Orc", "Spy"), ANN)
    assert _refused(hidden) == "no combatant named 'Spy' (combatants: Ann, Bo, Goblin 1, Goblin 2, Orc)"
    # before whose the actor is: a hidden target is not confirmed even to one declaring for another
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' "):
        ann.guard(enc, _declaration("Bo", "Spy"), ANN)
    _player(enc, "Spy").guard(enc, _declaration("Spy", "Spy"), "player:eve")


def test_anyone_at_the_table_rolls_in_the_open_only_the_gm_in_secret() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    ann.guard(enc, Event("roll", {"spec": "d6", "dice": [3], "text": "d6"}), ANN)
    ann.guard(enc, Event("roll", {"spec": "d6", "dice": [3], "text": "d6", "secret": False}), ANN)
    with pytest.raises(RuleRefusal) as secret:
        ann.guard(enc, Event("roll", {"spec": "d6", "dice": [3], "text": "d6", "secret": True}), ANN)
    assert _refused(secret) == "secret rolls are the GM's: a player's roll is seen by the table (rule: player)"
    _gm().check_secret(enc, True)
    ann.check_secret(enc, False)
    with pytest.raises(RuleRefusal, match="^secret rolls are the GM's"):
        ann.check_secret(enc, True)
    with pytest.raises(RuleRefusal, match="^secret rolls are the GM's"):
        _viewer().check_secret(enc, True)


@pytest.mark.parametrize(("kind", "what"), [
    ("damage", "damage"), ("advance", "moving time (next, step)"), ("setting", "setting"), ("hide", "hide"),
    ("approve", "approving a proposal"), ("note", "note"), ("rename", "rename")])
def test_the_guard_refuses_a_player_everything_the_gm_alone_makes(kind: str, what: str) -> None:
    """The refusal names what was refused as the table of kinds words it (tracker.engine.kinds)."""
    enc = _fight()
    with pytest.raises(RuleRefusal) as refused:
        _player(enc, "Ann").guard(enc, Event(kind, {"target": "Ann"}), ANN)
    assert _refused(refused) == what + (
        ": a player declares, maintains and aborts actions for their own combatants (Ann) "
        "and takes back their own last declaration; everything else is the GM's (rule: player)")


def _proposed(enc: Encounter, actor: str, by: str) -> int:
    event = enc.apply(Event("propose", {"action": "declare", "actor": actor, "template": "hit", "mode": "active",
                                        "resolution": Resolution(2)}, by=by))
    return event.seq


def test_a_player_withdraws_only_a_proposal_they_made_for_their_own() -> None:
    enc = _fight()
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    mine = _proposed(enc, "Ann", ANN)
    bos = _proposed(enc, "Bo", BO)
    sat_in = _proposed(enc, "Ann", "player:carol")  # Ann's, made from another seat
    ann = _player(enc, "Ann")
    ann.guard(enc, Event("withdraw", {"target": mine}), ANN)
    with pytest.raises(RuleRefusal) as other:
        ann.guard(enc, Event("withdraw", {"target": bos}), ANN)
    assert _refused(other) == f"takeback: proposal {bos} is not yours (rule: player)"
    with pytest.raises(RuleRefusal, match=rf"^takeback: proposal {sat_in} is not yours"):
        ann.guard(enc, Event("withdraw", {"target": sat_in}), ANN)
    # a player holding Ann and Bo still takes back only what their seat proposed
    both = _player(enc, "Ann", "Bo")
    both.guard(enc, Event("withdraw", {"target": bos}), BO)
    with pytest.raises(RuleRefusal, match=rf"^takeback: proposal {mine} is not yours"):
        both.guard(enc, Event("withdraw", {"target": mine}), BO)


def test_a_player_takes_back_only_their_own_last_declaration() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    undo = Event("undo", {"target": 0})
    redo = Event("redo", {"target": 0})
    ann.guard(enc, redo, ANN)  # nothing to bring back: the engine says so
    gm_change = enc.apply(Event("damage", {"target": "Orc", "amount": 1, "resource": "hp"}, by="alice"))
    with pytest.raises(RuleRefusal) as gms:
        ann.guard(enc, undo, ANN)
    assert _refused(gms) == (
        "undo: a player takes back only their own last declaration, before anything else happens; "
        f"the latest change is the GM's (change {gm_change.seq}) (rule: player)")
    mine = enc.apply(Event("declare", _declaration("Ann").args, by=ANN))
    ann.guard(enc, undo, ANN)
    with pytest.raises(RuleRefusal, match=rf"the latest change is another player's \(change {mine.seq}\)"):
        ann.guard(enc, undo, "player:carol")  # Ann's declaration, from another seat
    bos = enc.apply(Event("declare", _declaration("Bo").args, by=BO))
    with pytest.raises(RuleRefusal, match=rf"^undo: .*the latest change is another player's \(change {bos.seq}\)"):
        ann.guard(enc, undo, ANN)
    # a GM's change signed by an account named like a tag is still the GM's
    tagged = enc.apply(Event("damage", {"target": "Orc", "amount": 1, "resource": "hp"}, by="gm:player:x"))
    with pytest.raises(RuleRefusal, match=rf"the latest change is the GM's \(change {tagged.seq}\)"):
        ann.guard(enc, undo, ANN)


def test_a_player_brings_back_only_their_own_undone_declaration() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    mine = enc.apply(Event("declare", _declaration("Ann").args, by=ANN))
    enc.apply(Event("undo", {"target": mine.seq}, by=ANN))
    ann.guard(enc, Event("redo", {"target": mine.seq}), ANN)
    with pytest.raises(RuleRefusal, match=rf"^redo: .*the latest change is another player's \(change {mine.seq}\)"):
        _player(enc, "Ann").guard(enc, Event("redo", {"target": mine.seq}), BO)
    # the undo target is not read for a redo: the latest applied change is the GM's
    enc2 = _fight()
    gm = enc2.apply(Event("damage", {"target": "Orc", "amount": 1, "resource": "hp"}, by="alice"))
    mine2 = enc2.apply(Event("declare", _declaration("Ann").args, by=ANN))
    enc2.apply(Event("undo", {"target": mine2.seq}, by=ANN))
    assert enc2.undo_target() is not None and enc2.undo_target().seq == gm.seq
    _player(enc2, "Ann").guard(enc2, Event("redo", {"target": mine2.seq}), ANN)
    with pytest.raises(RuleRefusal, match=rf"the latest change is the GM's \(change {gm.seq}\)"):
        _player(enc2, "Ann").guard(enc2, Event("undo", {"target": gm.seq}), ANN)


def test_a_players_change_that_is_not_a_declaration_is_not_theirs_to_take_back() -> None:
    enc = _fight()
    roll = enc.apply(Event("roll", {"spec": "d6", "dice": [3], "text": "d6"}, by=ANN))
    with pytest.raises(RuleRefusal, match=rf"the latest change is another player's \(change {roll.seq}\)"):
        _player(enc, "Ann").guard(enc, Event("undo", {"target": roll.seq}), ANN)


# ------------------------------------------------------------------ the damage cap and approvals
def test_a_players_damage_above_the_cap_is_refused_the_gms_never() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    ann.check_cap(enc, {"damage": 1000})  # no cap set
    enc.apply(Event("setting", {"key": "player_damage_cap", "value": 8}))
    ann.check_cap(enc, {"damage": 8})
    ann.check_cap(enc, {"damage": 7.5})
    ann.check_cap(enc, {})
    ann.check_cap(enc, {"damage": "9"})
    ann.check_cap(enc, {"damage": True})
    with pytest.raises(RuleRefusal) as over:
        ann.check_cap(enc, {"damage": 9})
    assert _refused(over) == "damage=9: the GM caps a player's damage at 8 (setting player_damage_cap) (rule: damage cap)"
    with pytest.raises(RuleRefusal, match=r"^damage=8\.5: the GM caps"):
        ann.check_cap(enc, {"damage": 8.5})
    _gm().check_cap(enc, {"damage": 1000})
    _viewer().check_cap(enc, {"damage": 1000})


def test_a_player_proposes_only_in_approval_mode_and_only_a_declaration() -> None:
    enc = _fight()
    ann = _player(enc, "Ann")
    assert not ann.proposes(enc, "declare")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    assert ann.proposes(enc, "declare") and ann.proposes(enc, "maintain") and ann.proposes(enc, "abort")
    assert not ann.proposes(enc, "undo") and not ann.proposes(enc, "roll") and not ann.proposes(enc, "withdraw")
    assert not _gm().proposes(enc, "declare")
    assert not _viewer().proposes(enc, "declare")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "at_once"}))
    assert not ann.proposes(enc, "declare")
