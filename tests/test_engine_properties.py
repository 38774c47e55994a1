"""Timeline invariants, checked by hypothesis over random sequences of commands."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.reading import report
from tracker.engine import (
    ACTIVE,
    Condition,
    Damage,
    Encounter,
    Event,
    Resolution,
    Setup,
    Throwback,
    TrackerError,
    Upkeep,
)
from tracker.engine.replay import Fold
from tracker.persistence import codec
from rulesets.freeform import FreeformRuleset

NAMES = ("Ann", "Bo", "Cy")


def fresh() -> Encounter:
    enc = Encounter(Setup("prop", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    for name in NAMES:
        enc.apply(Event("add", {"name": name, "resources": {"hp": 30, "ep": 20}}))
    return enc


effects = st.lists(
    st.one_of(
        st.builds(lambda t, n, lead: Damage(t, n, "hp", lead=lead), st.sampled_from(NAMES), st.integers(-3, 12), st.integers(0, 2)),
        st.builds(lambda t, a: Throwback(t, 1.5, 1.5, a), st.sampled_from(NAMES), st.integers(0, 4)),
        st.builds(lambda t, d: Condition(t, "dazed", d), st.sampled_from(NAMES), st.integers(1, 9)),
        st.builds(lambda t, n: Upkeep(t, "move", "ep", n), st.sampled_from(NAMES), st.integers(0, 2)),
    ),
    max_size=2,
).map(tuple)

commands = st.one_of(
    st.tuples(
        st.just("declare"),
        st.sampled_from(NAMES),
        st.sampled_from(("active", "passive")),
        st.integers(1, 20),
        effects,
        st.booleans(),
    ),
    st.tuples(st.just("maintain"), st.sampled_from(NAMES), st.integers(1, 6)),
    st.tuples(st.just("step"), st.integers(1, 12)),
    st.tuples(st.just("next")),
    st.tuples(st.just("abort"), st.sampled_from(NAMES)),
    st.tuples(st.just("keep"), st.sampled_from(NAMES)),
    st.tuples(st.just("undo")),
    st.tuples(st.just("redo")),
    st.tuples(st.just("note"), st.text(min_size=1, max_size=12)),
)


def to_event(enc: Encounter, cmd: tuple[Any, ...]) -> Event | None:
    kind = cmd[0]
    if kind == "declare":
        _, actor, mode, pt, fx, maintainable = cmd
        return Event("declare", {"actor": actor, "template": f"{mode} thing", "mode": mode, "targets": [], "maintainable": maintainable, "resolution": Resolution(pt=pt, effects=fx)})
    if kind == "maintain":
        return Event("maintain", {"actor": cmd[1], "resolution": Resolution(pt=cmd[2])})
    if kind == "step":
        return Event("advance", {"to": enc.now + cmd[1]})
    if kind == "next":
        to = enc.next_happening()
        return None if to is None else Event("advance", {"to": to})
    if kind == "abort":
        return Event("abort", {"actor": cmd[1]})
    if kind == "keep":
        return Event("keep", {"target": cmd[1]})
    if kind in ("undo", "redo"):
        return Event(kind, {})
    return Event("note", {"text": cmd[1]})


def run(cmds: list[tuple[Any, ...]], check: Any = None) -> Encounter:
    enc = fresh()
    for cmd in cmds:
        event = to_event(enc, cmd)
        if event is None:
            continue
        before = snapshot(enc) if check else None
        try:
            enc.apply(event)
        except TrackerError:
            if check:
                assert snapshot(enc) == before, "a refused command changed the state"
            continue
        if check:
            check(enc, before)
    return enc


def snapshot(enc: Encounter) -> dict[str, Any]:
    data = report.to_json(enc)
    data.pop("can_undo")
    data.pop("can_redo")
    return data


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(commands, max_size=40))
def test_clock_never_goes_back(cmds: list[tuple[Any, ...]]) -> None:
    def check(enc: Encounter, before: dict[str, Any]) -> None:
        assert enc.now >= before["segment"] or enc.events[-1].kind in ("undo",)

    run(cmds, check)


@SETTINGS
@given(st.lists(commands, max_size=40))
def test_clock_is_monotonic_along_the_effective_history(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    replay = Fold(enc.setup, enc.now)  # the effective events driven one by one, each under its own seq
    replay.events = enc.events
    last = 0
    for index in enc.effective_indexes():
        replay.drive(index)
        assert replay.now >= last
        last = replay.now


def _intervals(enc: Encounter) -> dict[str, list[tuple[int, int]]]:
    spans: dict[str, list[tuple[int, int]]] = {}
    for action in enc.actions:
        if action.mode != ACTIVE:
            continue
        end = action.completes if action.ended is None else action.ended
        spans.setdefault(action.actor, []).append((action.start, end))
    return spans


@SETTINGS
@given(st.lists(commands, max_size=50))
def test_no_two_active_actions_of_one_combatant_overlap(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    for actor, spans in _intervals(enc).items():
        spans.sort()
        for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
            assert e1 <= s2, f"{actor}: [{s1},{e1}) overlaps [{s2},{e2})"


@SETTINGS
@given(st.lists(commands, max_size=50))
def test_one_initiation_per_combatant_per_segment(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    seen = [(a.actor, a.start) for a in enc.actions]
    assert len(seen) == len(set(seen))


@SETTINGS
@given(st.lists(commands, min_size=1, max_size=40))
def test_undo_then_redo_gives_the_same_state(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    if not enc.can_undo():
        return
    before = snapshot(enc)
    enc.apply(Event("undo", {}))
    enc.apply(Event("redo", {}))
    assert snapshot(enc) == before


@SETTINGS
@given(st.lists(commands, max_size=40))
def test_save_then_load_gives_the_same_state(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    # The codec rebuilds the setup from the registered adapter, so compare like with like.
    text = codec.dumps(enc, revision=3)
    loaded = codec.loads(text, "prop.toml")
    assert loaded.revision == 3
    assert snapshot(loaded.encounter) == snapshot(enc)
    assert codec.dumps(loaded.encounter, revision=3) == text


@SETTINGS
@given(st.lists(commands, max_size=50))
def test_accepted_commands_replay_to_the_same_state(cmds: list[tuple[Any, ...]]) -> None:
    enc = run(cmds)
    replay = Encounter(enc.setup, [Event(e.kind, dict(e.args), e.seq, e.by) for e in enc.events])
    assert snapshot(replay) == snapshot(enc)
