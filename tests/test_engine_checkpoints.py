"""Undo through checkpoints gives exactly the state a fold from scratch gives.

A checkpoint keeps the state as values and puts the fields of the actions still in
progress back on restore (tracker/engine/checkpoints.py, `snapshot`). These tests walk
random fights with checkpoints taken as often as the policy allows, undoing and redoing
at random, and after every step compare the whole state (every combatant field, every
action field, the queue, proposals, settings, the log) with a fresh fold of the
effective events.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution
from tracker.engine import checkpoints
from tracker.engine.effects import Condition, Damage, Throwback
from tracker.engine.errors import TrackerError
from tracker.engine.model import Action, Combatant
from tracker.engine.replay import fold_at
from tests.helpers import encounter as make


def _ref(value: Any) -> Any:
    return ("action", value.id) if isinstance(value, Action) else value


def state(enc: Encounter) -> dict[str, Any]:
    """Everything an encounter's future depends on, as comparable values."""
    combatants = []
    for c in enc.combatants.values():
        row = {}
        for name in Combatant.__dataclass_fields__:
            value = getattr(c, name)
            row[name] = [_ref(v) for v in value] if isinstance(value, list) else {k: _ref(v) for k, v in value.items()} if isinstance(value, dict) else _ref(value)
        combatants.append(row)
    actions = [{name: getattr(a, name) for name in Action.__dataclass_fields__} for a in enc.actions]
    return {
        "now": enc.now,
        "combatants": combatants,
        "actions": actions,
        "queue": sorted((s, k, str(_ref(p) if not isinstance(p, tuple) else tuple(_ref(x) for x in p))) for s, k, _, p in enc.timeline.due(enc.combatants)),
        "next": enc.next_happening(),
        "upcoming": enc.upcoming(50),
        "proposals": {seq: (p.status, p.reason, p.action, p.actor, p.segment) for seq, p in enc.proposals.items()},
        "table": dict(enc.table),
        "scheduled": {k: list(v) for k, v in enc.scheduled.items()},
        "log": list(enc.log),
        "upkeep": enc.upkeep_count,
    }


def fold(enc: Encounter) -> Encounter:
    """The effective events of `enc` folded from the setup, each under its own seq (a
    proposal is named by the seq of its event, and an approval names it): a replay's
    fold at the fight's last segment, which drives each effective event once."""
    return fold_at(enc, enc.now)


def _step(enc: Encounter, rng: random.Random, step: int) -> None:
    names = sorted(enc.combatants)
    roll = rng.random()
    try:
        if roll < 0.2 and enc.can_undo():
            enc.apply(Event("undo", {}))
        elif roll < 0.28 and enc.can_redo():
            enc.apply(Event("redo", {}))
        elif roll < 0.5:
            actor, target = rng.sample(names, 2)
            effects = rng.choice([
                (Damage(target, rng.randint(1, 6), "hp"),),
                (Throwback(target, 2.0, 1.0, rng.randint(1, 3)),),
                (Condition(target, "dazed", rng.randint(1, 3)),),
                (),
            ])
            kind = "propose" if enc.table.get("player_declarations") == "approval" and rng.random() < 0.5 else "declare"
            args = {"actor": actor, "template": rng.choice(["hit", "kick"]), "mode": rng.choice(["active", "active", "passive"]),
                    "targets": [target], "maintainable": rng.random() < 0.3, "resolution": Resolution(rng.randint(1, 4), effects=effects)}
            if kind == "propose":
                args["action"] = "declare"
            enc.apply(Event(kind, args))
        elif roll < 0.56 and enc.pending():
            p = rng.choice(enc.pending())
            if rng.random() < 0.6:
                enc.apply(Event("approve", {"target": p.seq}))
            else:
                enc.apply(Event("refuse", {"target": p.seq, "reason": "no"}))
        elif roll < 0.58:
            value = rng.choice(["approval", "at_once"])
            enc.apply(Event("setting", {"key": "player_declarations", "value": value}))
        elif roll < 0.62:
            actor = rng.choice(names)
            enc.apply(Event("maintain", {"actor": actor, "resolution": Resolution(rng.randint(1, 3))}))
        elif roll < 0.65:
            enc.apply(Event("keep", {"target": rng.choice(names)}))
        elif roll < 0.68:
            enc.apply(Event("abort", {"actor": rng.choice(names)}))
        elif roll < 0.71:
            enc.apply(Event("damage", {"target": rng.choice(names), "amount": rng.randint(1, 8), "resource": "hp"}))
        elif roll < 0.73:
            enc.apply(Event("schedule", {"at": enc.now + rng.randint(1, 5), "text": f"bell {step}"}))
        elif roll < 0.75:
            enc.apply(Event("hide", {"target": rng.choice(names), "hidden": rng.random() < 0.5}))
        elif roll < 0.77 and len(names) > 3:
            enc.apply(Event("remove", {"name": rng.choice(names)}))
        elif roll < 0.79:
            enc.apply(Event("add", {"name": f"N{step}", "resources": {"hp": 30}}))
        elif roll < 0.8:
            old = rng.choice(names)
            enc.apply(Event("rename", {"target": old, "name": f"R{step}"}))
        elif roll < 0.9:
            to = enc.next_happening()
            enc.apply(Event("advance", {"to": to if to is not None else enc.now + 1}))
        else:
            enc.apply(Event("advance", {"to": enc.now + rng.randint(1, 3)}))
    except TrackerError:
        pass  # refused by a rule: nothing changed


@pytest.mark.parametrize("seed", range(4))
def test_undo_from_checkpoints_matches_a_fold_from_scratch(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 2)
    rng = random.Random(seed)
    enc = make("Ann", "Bo", "Cy", "Di", hp=40)
    taken = 0
    for step in range(260):
        _step(enc, rng, step)
        taken = max(taken, len(enc.checkpoints))
        assert state(enc) == state(fold(enc)), (seed, step, enc.events[-1].kind)
    assert taken >= 2  # the walk did restore from checkpoints, not only from the setup


def test_undoing_an_approval_right_after_a_checkpoint_reopens_the_proposal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proposal's status changes in place when the GM approves it: a checkpoint taken
    while it was pending must keep it pending."""
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 1)
    monkeypatch.setattr(checkpoints.Checkpoints, "interval", lambda self, state: 1)
    enc = make("Ann", "Bo")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("propose", {"action": "declare", "actor": "Ann", "template": "hit", "mode": "active", "resolution": Resolution(2)}))
    seq = enc.events[-1].seq
    enc.apply(Event("approve", {"target": seq}))
    assert enc.proposals[seq].status == "approved"
    enc.apply(Event("undo", {}))
    assert enc.proposals[seq].status == "pending"
    assert enc.combatants["Ann"].active is None
    enc.apply(Event("redo", {}))
    assert enc.proposals[seq].status == "approved" and enc.combatants["Ann"].active is not None


def test_a_checkpoint_shares_no_container_with_the_live_state() -> None:
    """Every combatant field that holds a container is copied by a checkpoint (a new
    field holding a dict or list must be added to `_FLAT`)."""
    enc = make("Ann")
    c = enc.combatants["Ann"]
    for name in Combatant.__dataclass_fields__:
        if isinstance(getattr(c, name), (dict, list, set)):
            assert name in checkpoints._FLAT, name


def test_the_checkpoint_record_names_every_piece_of_the_fold() -> None:
    """Every attribute of an encounter is either a field of `Checkpoint` (its name without
    a leading underscore) or one of the few that are its history and machinery, not its
    fold: so no piece of state can be left out of an undo by omission."""
    enc = make("Ann")
    record = {f.name for f in dataclasses.fields(checkpoints.Checkpoint)} - {"live", "live_values"}
    held = {name.lstrip("_") for name in vars(enc)}
    assert held - record == {"setup", "time", "events", "handlers", "checkpoints", "applied", "redo"}
    assert record <= held
