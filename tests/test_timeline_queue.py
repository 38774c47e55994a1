"""The timeline kept as buckets of segments (tracker/engine/timeline.py) is the queue its
docstring describes: checked against a plain list of every entry queued, read the way
the module docstring reads it (things on one segment by kind, then in the order
queued; an entry no longer due is skipped when it comes up), over random sequences of
queuing, actions stopping (an action stopped is never due again: whatever makes
something due again queues it again), looking for the next happening and taking it,
copying and rewriting."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.engine.effects import Resolution
from tracker.engine.model import ABORTED, Action, Combatant
from tracker.engine.timeline import COMPLETION, SCHEDULED, Timeline

NOBODY: dict[str, Combatant] = {}


def _completing_on(segment: int, number: int) -> Action:
    return Action(number, "Ann", f"swing {number}", "active", 1, segment - 1, segment, (), Resolution(1))


class Reference:
    """Every entry ever queued, in a list; nothing is dropped but what was taken."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, int, int, Any]] = []
        self.tick = 0

    def push(self, segment: int, kind: int, payload: Any) -> None:
        self.tick += 1
        self.entries.append((segment, kind, self.tick, payload))

    def due(self, combatants: dict[str, Combatant]) -> list[tuple[int, int, int, Any]]:
        return sorted(e for e in self.entries if Timeline.valid(e, combatants))

    def first(self, combatants: dict[str, Combatant]) -> int | None:
        due = self.due(combatants)
        return due[0][0] if due else None

    def take(self, segment: int, combatants: dict[str, Combatant]) -> list[list[Any]]:
        taken: list[list[Any]] = [[] for _ in range(7)]
        for entry in self.due(combatants):
            if entry[0] == segment:
                taken[entry[1]].append(entry[3])
        self.entries = [e for e in self.entries if e[0] != segment]
        return taken


step = st.one_of(
    st.tuples(st.just("push"), st.integers(0, 12), st.sampled_from((COMPLETION, SCHEDULED))),
    st.tuples(st.just("stop"), st.integers(0, 59)),
    st.tuples(st.just("next")),
    st.tuples(st.just("copy")),
    st.tuples(st.just("rename")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(step, max_size=60))
def test_the_buckets_answer_as_a_list_of_every_entry_would(steps: list[tuple[Any, ...]]) -> None:
    combatants = NOBODY
    timeline, reference = Timeline(), Reference()
    actions: list[Action] = []
    for number, (op, *args) in enumerate(steps):
        if op == "push":
            segment, kind = args
            payload: Any = f"bell {number}"
            if kind == COMPLETION:
                payload = _completing_on(segment, number)
                actions.append(payload)
            timeline.push(segment, kind, payload)
            reference.push(segment, kind, payload)
        elif op == "stop":
            if actions:
                actions[args[0] % len(actions)].status = ABORTED
        elif op == "next":
            # As the engine moves time: the next happening, then what falls due on it.
            found = timeline.first(combatants)
            assert found == reference.first(combatants)
            assert timeline.head_segment() == found
            if found is not None:
                assert timeline.take(found, combatants) == reference.take(found, combatants)
                assert timeline.take(found, combatants) == [[] for _ in range(7)]  # taken once
        elif op == "copy":
            twin = timeline.copy()
            assert twin == timeline and len(twin) == len(timeline)
            twin.push(99, SCHEDULED, "only in the copy")
            assert twin != timeline
        else:  # a rename that changes nothing keeps the queue as it was
            before = timeline.entries
            timeline.rewritten(lambda entry: entry)
            assert timeline.entries == before
        assert sorted(timeline.due(combatants)) == reference.due(combatants)
        # What is held: every entry still due, plus stale ones not yet come up; counted.
        held = [entry for bucket in timeline.buckets.values() for entry in bucket]
        assert len(timeline) == len(held) and timeline.entries == sorted(held)
        assert sorted(timeline.segments) == sorted(timeline.buckets) and all(timeline.buckets.values())
        assert timeline.tick == reference.tick
