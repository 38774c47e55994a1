"""Which dice an action needs next, and what they meant: the declare form's dry run.

The adapter's resolve is pure, so the form resolves again and again with the faces
typed (or rolled) so far through a `PromptingFaces` source. When the faces run out the
adapter stops with `DiceNeeded`, naming the group it wants next ("Seraph's Combat Roll:
2d10", "reroll of a 1: 1d10", "Wild Die explosion: 1d6", "damage: 3d6"); conditional
groups appear only when the rule calls for them, because only then does the adapter
ask. When the resolve finishes, the `Resolution` is what the action will commit with
those same faces. Nothing here changes the encounter: the change itself is made later
by `Session.declare` / `Session.maintain` with the faces gathered here.

No Textual here: the declare flow (`tracker.play.declaring`), tests and the benchmark share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rulesets.base import MARGIN_NAME, SHOWN_DETAILS, ActionRequest
from rulesets.dice import DiceGroup, DiceNeeded, DiceSource, PromptingFaces, Recorder, check_all_used, check_faces, for_actor
from tracker.engine import Resolution, TrackerError
from tracker.play import requests
from tracker.play.requests import MAINTAIN, Attempt
from tracker.play.session import Session

@dataclass
class Step:
    """One dry run: either the next group of dice wanted, or the finished resolution."""

    groups: list[tuple[DiceGroup, list[int]]]
    need: DiceNeeded | None = None
    resolution: Resolution | None = None
    request: ActionRequest | None = None

    @property
    def done(self) -> bool:
        return self.resolution is not None


def dry_run(session: Session, attempt: Attempt, faces: Sequence[int]) -> Step:
    """Resolve with `faces`; raises TrackerError for a refusal (unknown name, a rule).
    The request is the one the commit builds (tracker.play.requests)."""
    request = requests.build(session.policy, session.ruleset, session.encounter, attempt).request
    typed = PromptingFaces(faces)
    recorder = Recorder(typed)
    dice = for_actor(recorder, request.actor.name)
    try:
        if attempt.kind == MAINTAIN:
            resolution = session.ruleset.maintain(request, dice)
        else:
            resolution = session.ruleset.resolve(request, dice)
    except DiceNeeded as need:
        return Step(recorder.groups, need=need, request=request)
    check_all_used(typed)
    return Step(recorder.groups, resolution=resolution, request=request)


def maintain_takes_dice(session: Session, actor: str) -> bool:
    """Whether maintaining `actor`'s action needs the form: it rolls dice, or the game
    has the GM state each link's outcome (`Ruleset.maintain_asks`, freeform's damage).

    A refusal is False: the caller maintains at once and shows the refusal as before."""
    try:
        need = dry_run(session, Attempt(MAINTAIN, actor), ()).need
    except TrackerError:
        return False
    return need is not None or session.ruleset.maintain_asks


def remaining(need: DiceNeeded) -> tuple[int, ...]:
    """The sides of the dice of the wanted group not typed yet."""
    return need.group.sides[len(need.have) :]


def accept(need: DiceNeeded, typed: Sequence[int]) -> list[int]:
    """Check faces typed for the wanted group (same words as the CLI); returns them."""
    check_faces(need.group, [*need.have, *typed], first=need.index + 1)
    return list(typed)


def roll(need: DiceNeeded, dice: DiceSource) -> list[int]:
    """Roll the rest of the wanted group."""
    return [dice.roll(s) for s in remaining(need)]


def prompt(need: DiceNeeded) -> str:
    """'Seraph's Combat Roll: 2d10', and what is still missing when part is typed."""
    text = need.group.text()
    if need.have:
        rest = DiceGroup("", remaining(need)).dice_text()
        text += f" (have {', '.join(map(str, need.have))}; {rest} to go)"
    return text


def example(need: DiceNeeded, shown: int = 3) -> str:
    """Faces that fit the dice still asked for, as the faces field's example: "7,3" for
    2d10, "3,1" for 2d4, "8,4" for 2d12; "…" after `shown` dice. Every face is one the
    die has (a d4's at most 4), high and low by turns, so it reads as a roll."""
    sides = remaining(need)
    faces = [max(1, min(s, round(s * (0.7 if i % 2 == 0 else 0.3)))) for i, s in enumerate(sides[:shown])]
    return ",".join(map(str, faces)) + (",…" if len(sides) > shown else "")


def group_lines(groups: Sequence[tuple[DiceGroup, list[int]]]) -> list[str]:
    """'Seraph's Combat Roll: 2d10 -> 7, 3' for every group rolled so far (complete ones)."""
    return [f"{g.text()} -> {', '.join(map(str, faces))}" for g, faces in groups if len(faces) == len(g.sides)]


def _figure(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return " ".join(_figure(v) for v in value)
    return str(value)


def _sets(value: Any) -> str:
    """ORE's sets as the game writes them, width x height: [[2, 5], [3, 1]] -> "2x5, 3x1"."""
    if isinstance(value, (list, tuple)) and all(isinstance(s, (list, tuple)) and len(s) == 2 for s in value):
        return ", ".join(f"{_figure(width)}x{_figure(height)}" for width, height in value)
    return _figure(value)


def result_figures(resolution: Resolution) -> list[str]:
    """'success: yes', 'margin: 3', 'total: 14', 'q: 3' ... from the resolution."""
    bits = []
    if resolution.success is not None:
        bits.append(f"success: {'yes' if resolution.success else 'no'}")
    if resolution.margin is not None:
        # The margin in the game's own terms, under the game's own name when it gives
        # one (OGS: critical stages, not the points over the difficulty).
        name = resolution.details.get(MARGIN_NAME)
        bits.append(f"{name if isinstance(name, str) and name else 'margin'}: {_figure(resolution.margin)}")
    for key in SHOWN_DETAILS:  # the contract's keys (rulesets.base)
        value = resolution.details.get(key)
        if value is not None and not isinstance(value, dict) and value not in ("", [], ()):
            bits.append(f"{key}: {_sets(value) if key == 'sets' else _figure(value)}")
    bits.append(f"PT {resolution.pt}")
    return bits
