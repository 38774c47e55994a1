"""Direct tests of tracker.engine.core: the state a fold starts from and the operations
every part of the engine shares (looking combatants up ignoring case, the first bearer
of a name, log lines and their author, per-round costs and their rises, early blows,
ending an action). Expected values are worked from the module and method docstrings,
tracker.engine.effects.Upkeep's (`rises`: from each payment segment on the amount is the
pair's; with rises an amount of 0 is a cost not charged yet) and tracker.engine.table's
(a key left unchosen is absent)."""

from __future__ import annotations

from tracker.engine import COMPLETED, Encounter, Event, Resolution, Setup, TimeMapping
from tracker.engine.core import resolution_of
from tracker.engine.effects import Blow, Damage, Note, register_judge
from tracker.engine.model import LogEntry
from tests.helpers import advance, encounter as make
from tests.test_mutation_advancing import _declare, _paying, _texts, _upkeep
from tests.test_mutation_roster import refused_unchanged as _refused


def test_a_fresh_fold_holds_nothing_but_the_tables_chosen_settings() -> None:
    time = TimeMapping(10, "test")
    enc = Encounter(Setup("t", "freeform", time, ("hp",), {"viewer_resources": "label", "wild_die": True}))
    assert (enc.now, enc.combatants, enc.actions, list(enc.log), enc.scheduled, enc.upkeep_count, enc.ended) == (0, {}, [], [], {}, 0, "")
    assert enc.table == {"viewer_resources": "label"}
    assert enc.next_happening() is None and not list(enc.proposals.items())
    assert Encounter(Setup("t", "freeform", time)).table == {}


def test_a_combatant_is_found_by_its_name_ignoring_case() -> None:
    # "XXXX", a GM's placeholder name: a name nobody carries is refused, never taken for
    # whichever combatant happens to carry some stand-in name.
    enc = make("Ann", "XXXX")
    assert enc.combatant("Ann").name == "Ann"
    assert enc.combatant("aNN") is enc.combatants["Ann"]
    assert enc.combatant("xxxx") is enc.combatants["XXXX"]
    for name in ("Bo", "", "An"):
        _refused(enc, Event("damage", {"target": name, "amount": 1, "resource": "hp"}),
                 f"no combatant named {name!r} (combatants: Ann, XXXX)")


def test_a_name_has_its_first_bearer_whatever_it_is_called_now() -> None:
    enc = make("Ann", "Bo")
    ann = enc.combatants["Ann"]
    assert enc.bearer("ANN") is ann and enc.bearer("Bo") is enc.combatants["Bo"]
    enc.apply(Event("rename", {"target": "Ann", "name": "Bea"}))
    assert enc.bearer("ann") is ann and ann.name == "Bea"
    assert enc.bearer("bea") is ann  # Ann was the first to carry Bea too
    enc.apply(Event("add", {"name": "Ann"}))
    assert enc.bearer("Ann") is ann  # a newcomer given the name is not its bearer
    assert enc.bearer("Cy") is None
    enc.apply(Event("remove", {"name": "Bo"}))
    assert enc.bearer("Bo") is None


def test_the_actions_in_progress_are_each_combatants_in_order() -> None:
    enc = make("Ann", "Bo")
    assert enc.in_progress() == []
    enc.apply(_declare("Bo", "hit", 3))
    enc.apply(_declare("Ann", "look", 2, mode="passive"))
    advance(enc, 1)
    enc.apply(_declare("Ann", "hit", 4))
    assert [(a.actor, a.template) for a in enc.in_progress()] == [("Ann", "look"), ("Ann", "hit"), ("Bo", "hit")]


def test_a_line_about_a_hidden_combatant_is_written_while_hidden() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("hide", {"target": "Bo"}))
    enc.apply(Event("note", {"text": "a", "about": ["Ann"]}))
    enc.apply(Event("note", {"text": "b", "about": ["Ann", "Bo"]}))
    enc.apply(Event("note", {"text": "c", "about": ["Zed", "Ann"]}))
    enc.apply(Event("note", {"text": "d", "about": ["Bo", "Ann"]}))
    assert [(e.text, e.while_hidden, e.seq) for e in list(enc.log)[-4:]] == [("a", False, 4), ("b", True, 5), ("c", False, 6), ("d", True, 7)]


def test_a_lines_author_is_who_made_its_change() -> None:
    enc = make()
    enc.apply(Event("note", {"text": "one"}, by="gm"))
    enc.apply(Event("note", {"text": "two"}))
    enc.apply(Event("note", {"text": "three"}, by="ann"))
    assert [(e.text, enc.author(e)) for e in enc.log] == [("one", "gm"), ("two", ""), ("three", "ann")]
    assert enc.author(LogEntry(0, "note", "the opening roster", seq=0)) == ""
    assert enc.author(LogEntry(0, "note", "x", seq=3)) == "ann"
    assert enc.author(LogEntry(0, "note", "x", seq=4)) == ""
    assert enc.author(LogEntry(0, "note", "x", seq=1)) == "gm"
    assert enc.author(LogEntry(0, "note", "x", seq=-1)) == ""


def test_a_plain_line_is_neither_secret_nor_private() -> None:
    enc = make("Ann")
    enc.apply(Event("note", {"text": "a", "about": ["Ann"]}))
    last = enc.log[-1]
    assert (last.segment, last.kind, last.text, last.about, last.seq, last.secret, last.while_hidden, last.private) == (
        0, "note", "a", ("Ann",), 2, False, False, False)


def test_the_opening_rosters_names_are_given_by_change_0() -> None:
    from tracker.engine.model import CombatantSetup
    enc = Encounter(Setup("t", "freeform", TimeMapping(10, "test"), ("hp",), roster=[CombatantSetup("Ann", resources={"hp": 5})]))
    assert enc.combatants["Ann"].called == (("Ann", 0),)
    assert enc.combatants["Ann"].identity == ("Ann", 0)


def test_a_blow_lands_on_the_first_segment_advanced_to() -> None:
    register_judge("test-mutation-core", lambda enc, action, blow: [Damage(blow.target, 3, "hp")])
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 1, targets=["Bo"], res={"effects": (Blow("Bo"),), "details": {"judge": "test-mutation-core"}}))
    advance(enc, 1)
    assert enc.combatants["Bo"].resources["hp"] == 17


# --- per-round costs ------------------------------------------------------------------


def test_a_cost_is_said_counted_and_ended() -> None:
    enc = _paying("Ann", "Bo", every=10)
    _upkeep(enc, "Ann", "flight", "ep", 2)
    assert enc.upkeep_count == 1 and enc.combatants["Ann"].upkeep == {"flight": ("ep", 2)}
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("upkeep", "Ann pays 2 ep a round for flight", ("Ann",))
    _upkeep(enc, "Ann", "flight", "ep", 3)  # the same cost again: still one
    assert enc.upkeep_count == 1 and _texts(enc)[-1] == "Ann pays 3 ep a round for flight"
    _upkeep(enc, "Bo", "glow", "hp", 0.5)
    assert enc.upkeep_count == 2 and _texts(enc)[-1] == "Bo pays 0.5 hp a round for glow"
    _upkeep(enc, "Bo", "ward", "ep", 1)
    assert enc.upkeep_count == 3
    _upkeep(enc, "Ann", "flight", "ep", 0)
    assert enc.upkeep_count == 2 and enc.combatants["Ann"].upkeep == {}
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("upkeep", "Ann no longer pays for flight", ("Ann",))
    before = len(enc.log)
    _upkeep(enc, "Ann", "flight", "ep", 0)  # nothing to end: nothing said
    assert enc.upkeep_count == 2 and [e.kind for e in list(enc.log)[before:]] == ["declare", "complete"]


def test_a_rising_cost_says_what_comes_next() -> None:
    enc = _paying("Ann", every=10)
    _upkeep(enc, "Ann", "breath", "ep", 0, rises=((10, 1), (20, 2)))
    assert enc.upkeep_count == 0 and enc.combatants["Ann"].upkeep == {}
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("upkeep", "Ann pays nothing for breath yet (1 ep a round from segment 10)", ("Ann",))
    assert enc.next_happening() == 10
    advance(enc, 10)
    assert "Ann's breath now costs 1 ep a round (2 ep a round from segment 20)" in _texts(enc)
    assert enc.upkeep_count == 1
    advance(enc, 20)
    assert "Ann's breath now costs 2 ep a round" in _texts(enc)


def test_a_rising_cost_applied_late_takes_the_rises_already_due() -> None:
    enc = _paying("Ann", every=10)
    advance(enc, 14)
    _upkeep(enc, "Ann", "breath", "ep", 1, rises=((10, 2), (15, 3), (30, 5)))
    assert enc.now == 15 and enc.combatants["Ann"].upkeep == {"breath": ("ep", 3)}
    assert _texts(enc)[-1] == "Ann pays 3 ep a round for breath (5 ep a round from segment 30)"
    assert enc.next_happening() == 20


def test_a_cost_without_rises_ends_the_rises_of_the_one_it_replaces() -> None:
    enc = _paying("Ann", every=10)
    _upkeep(enc, "Ann", "breath", "ep", 1, rises=((10, 2),))
    assert _texts(enc)[-1] == "Ann pays 1 ep a round for breath (2 ep a round from segment 10)"
    _upkeep(enc, "Ann", "breath", "ep", 4)
    assert _texts(enc)[-1] == "Ann pays 4 ep a round for breath"
    assert enc.combatants["Ann"].rising == {}
    advance(enc, 10)
    assert enc.combatants["Ann"].upkeep == {"breath": ("ep", 4)}
    assert "Ann's breath now costs 2 ep a round" not in _texts(enc)
    # a rising cost not charged yet, ended: said to end
    _upkeep(enc, "Ann", "chill", "ep", 0, rises=((30, 1),))
    _upkeep(enc, "Ann", "chill", "ep", 0)
    assert (_texts(enc)[-1], enc.upkeep_count) == ("Ann no longer pays for chill", 1)


def test_a_rise_past_the_last_leaves_nothing_queued() -> None:
    enc = _paying("Ann", every=10)
    advance(enc, 24)
    _upkeep(enc, "Ann", "breath", "ep", 0, rises=((10, 1), (20, 2)))
    assert _texts(enc)[-1] == "Ann pays 2 ep a round for breath"
    assert enc.next_happening() == 30


# --- early blows and ending ---------------------------------------------------------


def test_an_early_blow_lands_lead_segments_before_the_completion() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "sweep", 5, targets=["Bo"], res={"effects": (
        Damage("Bo", 1, "hp", lead=2), Damage("Bo", 2, "hp", lead=0), Note("swept"), Damage("Bo", 4, "hp", lead=6))}))
    assert enc.next_happening() == 1  # a lead past the start lands one segment after it
    advance(enc, 1)
    assert enc.combatants["Bo"].resources["hp"] == 16
    assert enc.next_happening() == 3
    advance(enc, 3)
    assert enc.combatants["Bo"].resources["hp"] == 15
    advance(enc, 5)
    assert enc.combatants["Bo"].resources["hp"] == 13
    assert _texts(enc)[-3:] == ["Ann's sweep completes", "Bo takes 2 hp (hp 15 -> 13)", "swept"]


def test_an_initiation_effect_with_a_lead_is_not_an_early_blow() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "sweep", 5, targets=["Bo"], res={"effects": (Damage("Bo", 1, "hp", lead=2, timing="initiate"),)}))
    assert enc.next_happening() == 5


def test_an_ended_action_leaves_its_actor() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "look", 2, mode="passive"))
    advance(enc, 1)
    enc.apply(_declare("Ann", "hit", 3))
    advance(enc, 2)
    ann = enc.combatants["Ann"]
    look, hit = enc.actions
    assert (look.status, look.ended) == (COMPLETED, 2)
    assert ann.in_progress == [hit] and ann.active is hit
    advance(enc, 4)
    assert (hit.status, hit.ended, ann.in_progress, ann.active) == (COMPLETED, 4, [], None)


def test_a_resolution_is_taken_as_given_or_read_from_its_table() -> None:
    given = Resolution(pt=3, success=True)
    assert resolution_of(given) is given
    assert resolution_of({"pt": 4, "summary": "hit", "effects": [{"kind": "note", "text": "x"}]}) == Resolution(
        pt=4, summary="hit", effects=(Note("x"),))


def test_a_rise_from_nothing_to_nothing_says_nothing() -> None:
    enc = _paying("Ann", every=10)
    _upkeep(enc, "Ann", "breath", "ep", 0, rises=((10, 0),))
    advance(enc, 9)
    before = len(enc.log)
    advance(enc, 10)
    assert _texts(enc)[before:] == []
    assert enc.upkeep_count == 0


def test_a_lead_of_one_lands_one_segment_early() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "jab", 3, targets=["Bo"], res={"effects": (Damage("Bo", 1, "hp", lead=1),)}))
    assert enc.next_happening() == 2
    advance(enc, 2)
    assert enc.combatants["Bo"].resources["hp"] == 19


def test_an_aborted_or_interrupted_action_is_ended_now_and_leaves_its_actor() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "look", 5, mode="passive"))
    enc.apply(_declare("Bo", "hit", 4))
    advance(enc, 1)
    enc.apply(_declare("Ann", "hit", 4))
    advance(enc, 2)
    look, bo_hit, ann_hit = enc.actions
    enc.apply(Event("abort", {"actor": "Bo", "template": "hit"}))
    bo = enc.combatants["Bo"]
    assert (bo_hit.status, bo_hit.ended, bo.in_progress, bo.active) == ("aborted", 2, [], None)
    advance(enc, 3)
    enc.apply(Event("damage", {"target": "Ann", "amount": 20, "resource": "hp"}))
    ann = enc.combatants["Ann"]
    assert [(a.status, a.ended) for a in (look, ann_hit)] == [("interrupted", 3), ("interrupted", 3)]
    assert (ann.in_progress, ann.active) == ([], None)


def test_a_combatant_that_leaves_has_its_actions_aborted() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "look", 5, mode="passive"))
    advance(enc, 1)
    enc.apply(Event("remove", {"name": "Ann"}))
    assert (enc.actions[0].status, enc.actions[0].ended) == ("aborted", 1)


def test_a_checkpoint_taken_before_any_blow_was_judged_holds_the_fresh_state() -> None:
    from tracker.engine.checkpoints import CHECKPOINT_EVERY
    enc = make("Ann")
    for i in range(CHECKPOINT_EVERY):
        enc.apply(Event("note", {"text": f"line {i}"}))
    enc.apply(Event("undo", {}))
    assert [e.text for e in enc.log][-1] == f"line {CHECKPOINT_EVERY - 2}"


def test_the_same_blow_twice_in_a_resolution_lands_twice() -> None:
    enc = make("Ann", "Bo")
    blow = Damage("Bo", 2, "hp", lead=1)
    enc.apply(_declare("Ann", "sweep", 3, targets=["Bo"], res={"effects": (blow, blow)}))
    advance(enc, 2)
    assert enc.combatants["Bo"].resources["hp"] == 16


def test_a_pushed_back_early_blow_moves_beside_what_else_falls_on_its_new_segment() -> None:
    """The module docstring of `_push_early`: an entry still queued on the segment the
    effect now lands on is not queued twice; any other entry there is someone else's."""
    enc = make("Ann", "Bo")
    enc.apply(_declare("Bo", "hit", 4))  # Bo's completion falls on 4
    enc.apply(_declare("Ann", "sweep", 4, targets=["Bo"], companions=["duck"], res={"effects": (Damage("Bo", 2, "hp", lead=1),)}))
    enc.apply(_declare("Ann", "duck", 2, mode="passive"))
    assert enc.actions[1].completes == 5
    advance(enc, 3)
    assert enc.combatants["Bo"].resources["hp"] == 20
    advance(enc, 4)
    assert enc.combatants["Bo"].resources["hp"] == 18
    advance(enc, 5)
    assert enc.combatants["Bo"].resources["hp"] == 18


def test_a_push_back_moves_the_blows_it_reaches_after_one_left_in_place() -> None:
    enc = make("Ann", "Bo")
    stays, moves = Damage("Bo", 1, "hp", lead=5), Damage("Bo", 2, "hp", lead=1)
    enc.apply(_declare("Ann", "sweep", 3, targets=["Bo"], companions=["duck"], res={"effects": (stays, moves)}))
    enc.apply(_declare("Ann", "duck", 2, mode="passive"))
    advance(enc, 1)
    assert enc.combatants["Bo"].resources["hp"] == 19
    advance(enc, 3)
    assert enc.combatants["Bo"].resources["hp"] == 17


def test_a_pushed_back_early_blow_moves_to_a_segment_nothing_else_falls_on() -> None:
    enc = make("Ann", "Bo")
    enc.apply(_declare("Ann", "sweep", 4, targets=["Bo"], companions=["duck"], res={"effects": (Damage("Bo", 2, "hp", lead=2),)}))
    enc.apply(_declare("Ann", "duck", 2, mode="passive"))  # the sweep now completes on 5, its blow lands on 3
    advance(enc, 2)
    assert enc.combatants["Bo"].resources["hp"] == 20
    advance(enc, 3)
    assert enc.combatants["Bo"].resources["hp"] == 18
