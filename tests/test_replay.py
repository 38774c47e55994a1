"""Replay: the fight as it stood at the end of any segment (tracker/engine/replay.py).

The property: for random fights in every game (declarations of the game's own actions,
time moved on by `next` and by long `step`s across payment segments, undo and redo,
renames, hiding and showing, damage, conditions, scheduled events), the replayed state at
every segment, visited in order, backwards and at random, equals the state a fresh
encounter reaches by applying the effective events up to that segment and then moving
the clock on to it; at the last segment it equals the live state. Then the decisions of
docs/decisions/0054-replay.md, case by case.
"""

from __future__ import annotations

from tests.helpers import shipped_fights

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.engine import Encounter, Event, TrackerError
from tracker.engine.replay import Fold, Replay, fold_at
from tests.helpers import session_for
from tests.helpers import encounter as engine_fight
from tests.test_engine_checkpoints import _step, state
from tests.test_rules_order import STRATEGIES

GAMES = sorted(STRATEGIES)
assert GAMES == ["brandx", "d6", "freeform", "ogs", "ore", "usor"]


def reference(live: Encounter, segment: int) -> Encounter:
    """What a fresh encounter reaches at the end of `segment`, worked out without the
    replay's marks: a fold driving the effective events whose clock is at most `segment`
    (each under its own seq, as the fight numbers them) from the setup, then `advance` to
    it as the event that moved past it."""
    applied = live.effective_indexes()
    now, count = 0, 0
    for index in applied:
        event = live.events[index]
        if event.kind == "advance" and event.args["to"] > segment:
            break
        now = event.args["to"] if event.kind == "advance" else now
        count += 1
    fresh = Fold(live.setup, live.now)
    fresh.events = live.events
    for index in applied[:count]:
        fresh.drive(index)
    assert fresh.now == now
    if fresh.now < segment:
        fresh.advance_to(segment, live.events[applied[count]])
    return fresh


def public_reference(live: Encounter, segment: int) -> Encounter:
    """The same through the public face only: a new encounter applying copies of the
    events, then an `advance` event (for a fight with no undo or redo, its seqs are the
    fight's own)."""
    fresh = Encounter(live.setup)
    for event in live.events:
        if event.kind == "advance" and event.args["to"] > segment:
            break
        fresh.apply(Event(event.kind, copy.deepcopy(event.args), by=event.by))
    if fresh.now < segment:
        fresh.apply(Event("advance", {"to": segment}))
    return fresh


def comparable(enc: Encounter, with_seq: bool = True) -> dict[str, Any]:
    found = state(enc)
    if not with_seq:  # a partial advance's lines are signed by the fight's own advance
        found["log"] = [(e.segment, e.kind, e.text, e.about, e.secret, e.while_hidden, e.private) for e in enc.log]
    return found


# ------------------------------------------------------------------ random fights
GENERIC = st.one_of(
    st.tuples(st.just("declare"), st.integers(0, 40)),
    st.tuples(st.just("declare"), st.integers(0, 40)),
    st.tuples(st.just("declare"), st.integers(0, 40)),
    st.tuples(st.just("next")),
    st.tuples(st.just("next")),
    st.tuples(st.just("step"), st.sampled_from([1, 3, 7, 30, 120, 260])),
    st.tuples(st.just("undo")),
    st.tuples(st.just("undo_redo")),
    st.tuples(st.just("rename"), st.integers(0, 20)),
    st.tuples(st.just("hide"), st.integers(0, 20), st.booleans()),
    st.tuples(st.just("damage"), st.integers(0, 20), st.integers(-2, 5)),
    st.tuples(st.just("condition"), st.integers(0, 20), st.integers(1, 40)),
    st.tuples(st.just("schedule"), st.integers(1, 60)),
    st.tuples(st.just("note")),
    st.tuples(st.just("land_maintain"), st.integers(0, 20)),
    st.tuples(st.just("abort"), st.integers(0, 20)),
    st.tuples(st.just("keep"), st.integers(0, 20)),
    st.tuples(st.just("propose"), st.integers(0, 40)),
    st.tuples(st.just("answer"), st.booleans()),
)

# Per-round costs, so long steps cross payment segments (charged one by one, and in
# bulk); a maintainable attack where the plan has none.
EXTRA = {
    "brandx": [("move", {}), ("hold-breath", {}), ("power", {"pr": "8", "pr_effect": "2", "label": "glow"}), ("move", {"stop": "true"})],
    "freeform": [("attack", {"damage": "1", "maintainable": "true", "pt": "4"})],
}


def play(game: str, plan: Any, moves: list[tuple[Any, ...]], seed: int) -> Encounter:
    """Run the moves on a session of `game` (and, for proposals, on a session of a player
    of the first combatant); refused ones change nothing (the rules say why)."""
    from rulesets.dice import RandomDice
    from tracker.reading.roles import Role
    from tracker.play.session import Session

    ruleset, _ = STRATEGIES[game]
    adds, declares, settings_ = plan
    s = session_for(ruleset(), *adds, seed=seed, **settings_)
    if seed % 2:
        s.setting("player_declarations", "approval")
    actors = list(dict.fromkeys(d[0] for d in declares))
    declares = list(declares) + [(a, t, (), p, 0) for a in actors for t, p in EXTRA.get(game, [])]
    role, _ = Role.of(s.encounter, actors[:1])
    assert role is not None
    player = Session(s.encounter, s.ruleset, RandomDice(seed + 1), None, "pat", role)
    renamed = 0

    def declare(session: Any, index: int) -> None:
        actor, template, targets, params, _seed = declares[index % len(declares)]
        current = s.encounter.bearer(actor)
        if current is not None:
            aims = [c.name for c in (s.encounter.bearer(t) for t in targets) if c is not None]
            params = {k: str(v) for k, v in params.items()}
            pt = int(params.pop("pt")) if "pt" in params else None
            session.declare(current.name, template, aims, params=params, pt=pt)

    for move in moves:
        names = list(s.encounter.combatants)
        if not names:
            break
        pick = names[move[1] % len(names)] if len(move) > 1 and isinstance(move[1], int) else names[0]
        kind = move[0]
        try:
            if kind == "declare":
                declare(s, move[1])
            elif kind == "propose":
                declare(player, move[1])
            elif kind == "answer":
                pending = s.encounter.pending()
                if pending:
                    s.approve(pending[0].seq) if move[1] else s.refuse(pending[0].seq, "not now")
            elif kind == "next":
                s.next() if s.encounter.next_happening() is not None else s.step()
            elif kind == "step":
                s.step(move[1])
            elif kind == "undo":
                s.undo()
            elif kind == "undo_redo":
                s.undo()
                s.redo()
            elif kind == "rename":
                renamed += 1
                s.rename(pick, f"R{renamed}")
            elif kind == "hide":
                s.hide(pick, move[2])
            elif kind == "damage":
                s.damage(pick, move[2])
            elif kind == "condition":
                s.condition(pick, "dazed", move[2])
            elif kind == "schedule":
                s.schedule(s.encounter.now + move[1], "the bridge falls")
            elif kind == "note":
                s.note("a note")
            elif kind == "land_maintain":
                s.next() if s.encounter.next_happening() is not None else s.step()
                for c in list(s.encounter.combatants.values()):
                    if c.chain_from is not None and c.chain_from.ended == s.encounter.now:
                        s.maintain(c.name)
            elif kind == "abort":
                s.abort(pick)
            elif kind == "keep":
                s.keep(pick)
        except TrackerError:
            continue  # refused by a rule: nothing changed, the fight goes on
    return s.encounter


def check_every_segment(live: Encounter, rng: random.Random, every: int) -> None:
    replay = Replay(live, every=every)
    assert comparable(replay.at(live.now)) == comparable(live)  # the last segment is now
    segments = list(range(live.now + 1))
    expected = {s: comparable(reference(live, s)) for s in segments}
    order = segments + segments[::-1] + rng.sample(segments, len(segments)) + [rng.randint(0, live.now) for _ in range(10)]
    for segment in order:
        assert comparable(replay.at(segment)) == expected[segment], f"segment {segment}"
    assert comparable(replay.at(live.now)) == comparable(live)
    if not any(e.kind in ("undo", "redo") for e in live.events):
        for segment in segments[:: max(1, len(segments) // 12)]:
            assert comparable(public_reference(live, segment), False) == comparable(replay.at(segment), False)


@pytest.mark.parametrize("game", GAMES)
def test_replay_at_every_segment_is_the_fight_folded_up_to_it(game: str) -> None:
    _, plan_strategy = STRATEGIES[game]

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(plan_strategy, st.lists(GENERIC, min_size=5, max_size=50), st.integers(0, 10**6), st.sampled_from([1, 3, 64]))
    def check(plan: Any, moves: list[tuple[Any, ...]], seed: int, every: int) -> None:
        live = play(game, plan, moves, seed)
        check_every_segment(live, random.Random(seed), every)

    check()


def _costly_step(enc: Encounter, rng: random.Random, step: int) -> None:
    """`_step` of the checkpoint tests (throwback and keep, maintained attacks, proposals
    and their lapse, removals, renames, hiding), plus per-round costs, some rising with
    time, and long moves of the clock across payment segments (charged in bulk)."""
    from tracker.engine import Resolution
    from tracker.engine.effects import Upkeep

    roll = rng.random()
    names = sorted(enc.combatants)
    try:
        if roll < 0.12 and names:
            who = rng.choice(names)
            later = enc.now + rng.randint(5, 150)
            rises = ((later - later % 10 + 10, rng.randint(1, 3)),) if rng.random() < 0.5 else ()
            upkeep = Upkeep(who, rng.choice(["move", "glow"]), "ep", rng.choice([0, 1, 2]), rises=rises)
            enc.apply(Event("declare", {"actor": who, "template": "move", "mode": "passive", "resolution": Resolution(rng.randint(1, 4), effects=(upkeep,))}))
        elif roll < 0.2:
            enc.apply(Event("advance", {"to": enc.now + rng.choice([25, 60, 200])}))
        else:
            _step(enc, rng, step)
    except TrackerError:
        return  # refused by a rule: nothing changed


@pytest.mark.parametrize("seed", range(6))
def test_replay_of_engine_walks_with_costs_throwback_and_proposals(seed: int) -> None:
    rng = random.Random(seed)
    live = engine_fight("Ann", "Bo", "Cy", "Di", hp=60, payment_every=10)
    for step in range(140):
        _costly_step(live, rng, step)
    assert any("payment segments" in e.text for e in live.log) or seed  # bulk payments happen (seed 0 at least)
    check_every_segment(live, rng, rng.choice([1, 2, 5]))


def test_replay_of_throwback_kept_maintained_chains_approvals_and_lapses() -> None:
    """The engine's less common paths, each at least once: a blow that throws Bo back and
    interrupts his kick, which the GM keeps; Ann maintaining her attack twice; a proposal
    approved, one refused, one that lapses inside a jump of time; a rename while actions
    aimed at the renamed one are in progress; a removal."""
    from tracker.engine import Resolution
    from tracker.engine.effects import Damage, Throwback
    from tests.helpers import advance, declare

    live = engine_fight("Ann", "Bo", "Cy", hp=60, payment_every=10)
    declare(live, "Bo", "kick", 9, targets=("Cy",), effects=(Damage("Cy", 3, "hp"),))
    declare(live, "Ann", "hit", 3, targets=("Bo",), maintainable=True, effects=(Throwback("Bo", 2.0, 1.0, 2), Damage("Bo", 2, "hp")))
    advance(live, 3)
    assert live.combatants["Bo"].interrupted is not None
    live.apply(Event("keep", {"target": "Bo"}))
    live.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(2, effects=(Damage("Bo", 1, "hp"),))}))
    advance(live, 5)
    live.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(2, effects=(Damage("Bo", 1, "hp"),))}))
    live.apply(Event("rename", {"target": "Bo", "name": "Bolverk"}))
    live.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    for actor in ("Cy", "Cy", "Cy"):
        live.apply(Event("propose", {"action": "declare", "actor": actor, "template": "hit", "mode": "passive", "targets": ["Ann"], "resolution": Resolution(4)}))
    first, second, third = [p.seq for p in live.pending()]
    live.apply(Event("approve", {"target": first}))
    live.apply(Event("refuse", {"target": second, "reason": "no"}))
    advance(live, 30)  # the third lapses; Ann's and Bolverk's actions land inside the jump
    assert live.proposals[third].status == "lapsed"
    live.apply(Event("remove", {"name": "Cy"}))
    advance(live, 33)
    for every in (1, 2, 64):
        check_every_segment(live, random.Random(every), every)
    replay = Replay(live)
    assert replay.at(4).proposals == {} and replay.at(12).proposals[third].status == "lapsed"
    # The keep was made on 3: at the end of 3 the kick is in progress again.
    at3 = replay.at(3)
    assert at3.combatants["Bo"].interrupted is None and [a.template for a in at3.combatants["Bo"].in_progress] == ["kick"]
    assert any("keeps Bo's kick" in e.text for e in at3.log) and at3.combatants["Bo"].airborne(3)


@pytest.mark.parametrize("path", shipped_fights(), ids=lambda p: p.stem)
def test_replay_of_every_shipped_save(path: Path) -> None:
    from tracker.persistence.store import EncounterFile

    live = EncounterFile(path).load().encounter
    check_every_segment(live, random.Random(0), 1)


# ------------------------------------------------------------------ the decisions, case by case
def _fight() -> Any:
    """Ann (PT 8 sword, 4 damage) and Bo (PT 3 dodge) in freeform; Bo hidden until 12."""
    from rulesets.freeform import FreeformRuleset

    return session_for(
        FreeformRuleset(), "add Ann hp=20", "add Bo hp=15 side=foes hidden=true", "step 2",
        "declare Ann sword target=Bo pt=8 damage=4", "condition Ann dazed 5", "step 10", "unhide Bo",
        "note the throwback landed first", "declare Bo dodge mode=passive pt=30", "step 28",
    )


def test_a_segment_inside_a_jump_of_time_is_the_state_before_it_moved_on_to_that_segment() -> None:
    """`step 10` moved from 2 to 12; Ann's sword (2 + PT 8) lands on 10, her daze (2 + 5)
    ends on 7. At 5 the blow has not landed and she is dazed; at 7 the daze is gone; at 10
    Bo has taken 4; at 11 nothing more: the state at 11 is the state at 10 with the clock
    at 11. None of it holds anything done on 12 (the unhide, the note)."""
    live = _fight().encounter
    replay = Replay(live)
    at5 = replay.at(5)
    assert at5.now == 5 and at5.combatant("Bo").resources["hp"] == 15 and at5.combatant("Ann").conditions == {"dazed": 7}
    assert at5.actions[0].status == "in progress" and at5.actions[0].completes == 10
    at7 = replay.at(7)
    assert at7.combatant("Ann").conditions == {}
    at10 = replay.at(10)
    assert at10.combatant("Bo").resources["hp"] == 11 and at10.actions[0].status == "completed"
    at11 = replay.at(11)
    assert at11.now == 11 and at11.combatant("Bo").hidden and at11.combatant("Bo").resources["hp"] == 11
    assert not any("throwback landed" in e.text for e in at11.log)
    at12 = replay.at(12)
    assert not at12.combatant("Bo").hidden and any("throwback landed" in e.text for e in at12.log)
    # The lines the partial move wrote are signed by the `advance` that wrote them.
    step = next(e for e in live.events if e.kind == "advance" and e.args["to"] == 12)
    assert {e.seq for e in replay.at(11).log if e.segment > 2} == {step.seq}


def test_everything_done_on_a_segment_is_in_it_and_the_advance_past_it_is_not() -> None:
    """Segment 12: the unhide, the note and Bo's dodge (declared on 12) are there; Ann's
    line about the dodge completing on 15 is not."""
    live = _fight().encounter
    at12 = Replay(live).at(12)
    assert [a.template for a in at12.actions] == ["sword", "dodge"] and at12.actions[1].start == 12
    at0 = Replay(live).at(0)
    assert [c.name for c in at0.combatants.values()] == ["Ann", "Bo"] and at0.actions == []


def test_out_of_range_segments_are_refused_naming_the_range() -> None:
    live = _fight().encounter
    for segment in (-1, live.now + 1, 10**9):
        with pytest.raises(TrackerError, match=f"segments run from 0 to {live.now}"):
            Replay(live).at(segment)
        with pytest.raises(TrackerError, match=f"segments run from 0 to {live.now}"):
            fold_at(live, segment)


def test_undone_changes_are_not_replayed() -> None:
    """A blow declared and undone never happened: not at its segment, not after."""
    from rulesets.freeform import FreeformRuleset

    s = session_for(FreeformRuleset(), "add Ann hp=20", "add Bo hp=15", "declare Ann sword target=Bo pt=4 damage=9",
                    "undo", "declare Ann punch target=Bo pt=2 damage=1", "step 6")
    replay = Replay(s.encounter)
    assert [a.template for a in replay.at(0).actions] == ["punch"]
    assert replay.at(6).combatant("Bo").resources["hp"] == 14


def test_a_renamed_combatant_has_its_old_name_before_the_rename() -> None:
    from rulesets.freeform import FreeformRuleset

    s = session_for(FreeformRuleset(), "add Ann hp=20", "add Bo hp=15", "declare Ann sword target=Bo pt=4 damage=2",
                    "step 5", "rename Bo Bolverk", "declare Ann sword target=Bolverk pt=4 damage=2", "step 5")
    replay = Replay(s.encounter, every=1)
    assert list(replay.at(10).combatants) == ["Ann", "Bolverk"]
    assert list(replay.at(4).combatants) == ["Ann", "Bo"]
    assert replay.at(4).actions[0].targets == ("Bo",)
    assert all("Bo" in e.about for e in replay.at(4).log if "Bo" in e.text)
    assert replay.at(10).actions[0].targets == ("Bolverk",)
    assert replay.at(4).actions[0].targets == ("Bo",)  # back again after the rename


def test_the_replay_never_changes_the_fight_it_was_made_from() -> None:
    live = _fight().encounter
    before = comparable(live)
    replay = Replay(live, every=1)
    for segment in [3, 40, 0, 11, 12, live.now, 7]:
        replay.at(segment)
    assert comparable(live) == before
    assert len(live.events) == len({id(e) for e in live.events}) and [e.seq for e in live.events] == list(range(1, len(live.events) + 1))


# ------------------------------------------------------------------ the flow (tracker.play.replaying)
def test_the_flow_moves_plays_and_refuses_without_a_screen() -> None:
    """The stops of the `_fight` for the GM: 0 (roster), 2 (the sword, the daze), 7 (the daze
    ends), 10 (the sword lands), 12 (Bo shown, the note, the dodge, which lands after the
    last), 40 (the last). Play goes stop to stop to the last, then stops; space at the last
    starts again from 0."""
    from tracker.play.replaying import SPEEDS, Replaying
    from tracker.reading.roles import Role

    flow = Replaying.of(_fight().encounter, Role.gm())
    assert flow.segment == flow.last == 40
    assert flow.stops == [0, 2, 7, 10, 12, 40]
    flow.first()
    assert flow.coming == 2 and flow.next_moment() and flow.segment == 2
    flow.step(-5)
    assert flow.segment == 0
    flow.go(11)
    assert flow.previous_moment() and flow.segment == 10 and flow.encounter.combatant("Bo").resources["hp"] == 11
    assert flow.toggle() and flow.playing
    visited = []
    while flow.tick():
        visited.append(flow.segment)
    assert visited == [12, 40] and not flow.playing and flow.segment == 40
    assert flow.toggle() and flow.segment == 0  # from the last: again from the first
    for _ in range(10):
        flow.faster()
    assert flow.speed == SPEEDS[-1] == 8
    for _ in range(10):
        flow.slower()
    assert flow.speed == SPEEDS[0]
    with pytest.raises(TrackerError, match="from 0 to 40, got 'x'"):
        flow.typed("x")
    with pytest.raises(TrackerError, match="segments run from 0 to 40"):
        flow.typed("41")
    flow.typed(" 7 ")
    assert flow.segment == 7 and flow.encounter.combatant("Ann").conditions == {}


def test_a_viewers_stops_never_tell_of_what_was_done_unseen() -> None:
    """Bo is hidden until 12: his sword wound on 10 is written while he was hidden, so 10
    is no stop for a viewer (nothing there they may read); 2 is (Ann's daze)."""
    from tracker.play.replaying import Replaying
    from tracker.reading.roles import Role

    live = _fight().encounter
    viewer = Replaying.of(live, Role.viewer())
    assert viewer.stops == [0, 2, 7, 12, 40]
    viewer.go(7)
    assert viewer.coming == 12
    player, _ = Role.of(live, ["Bo"])
    assert player is not None and Replaying.of(live, player).stops == [0, 2, 7, 10, 12, 40]


def test_a_players_role_in_the_replay_follows_their_combatant_by_identity() -> None:
    from rulesets.freeform import FreeformRuleset
    from tracker.play.replaying import Replaying
    from tracker.reading.roles import Role

    s = session_for(FreeformRuleset(), "add Ann hp=20", "step 3", "rename Ann Anneke", "add Ann hp=5", "step 2")
    role, _ = Role.of(s.encounter, ["Anneke"])
    assert role is not None
    flow = Replaying.of(s.encounter, role)
    flow.go(1)
    assert flow.role.combatants == ("Ann",)  # called Ann then: theirs
    flow.go(5)
    assert flow.role.combatants == ("Anneke",) and not flow.role.owns("Ann")  # the newcomer is not
