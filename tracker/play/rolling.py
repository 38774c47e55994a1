"""A declaration's dice, rolled and resolved for the change that records it.

The faces typed (checked: every one used), the app's (for a player, the draw that stands:
tracker.play.player_dice), or, for an edited approval, the player's faces in the order they
were rolled and fresh ones after. Who decided the faces is kept beside the resolution
("typed", "app" or "typed+app"): the proposal, the log and the approval screen show it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rulesets.base import ActionRequest, Ruleset
from rulesets.dice import DiceSource, Recorder, TypedFaces, check_all_used, for_actor, parse_faces
from tracker.play import player_dice
from tracker.engine import CommandError, Encounter, Resolution, draws
from tracker.engine.model import Combatant


class ReplayedFaces:
    """A player's faces, in the order they were rolled, then fresh dice (an edited
    approval). `mark`: who decided the player's faces, as their proposal says."""

    def __init__(self, faces: Sequence[int], then: DiceSource, seq: int, mark: str = "app") -> None:
        self.faces, self.then, self.seq, self.used, self.mark = list(faces), then, seq, 0, mark

    def marked(self, rolled: int) -> str:
        """Who decided `rolled` faces: the player's as their proposal says, any beyond them
        the approving session's dice."""
        if rolled <= self.used or self.mark == "app":
            return self.mark
        return "typed+app"

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            return self.then.roll(sides)
        face = self.faces[self.used]
        self.used += 1
        if not 1 <= face <= sides:
            raise CommandError(
                f"approve {self.seq}: the edited action rolls a d{sides} as die {self.used}, where the player "
                f"rolled {face}; give the dice with faces="
            )
        return face


@dataclass(frozen=True)
class Rolled:
    """What the dice made of a request: the resolution, the chance the form showed,
    who decided the faces, a player's draw, and every face in the order rolled."""

    resolution: Resolution
    chance: str | None
    mark: str
    draw: int | None
    faces: tuple[int, ...]


@dataclass(frozen=True)
class Hands:
    """Whose dice these are: the session's source, and whether a player rolls them."""

    dice: DiceSource
    player: bool


def roll(
    ruleset: Ruleset,
    request: ActionRequest,
    hands: Hands,
    faces: str | Sequence[int] | None,
    *,
    maintain: bool = False,
    replayed: ReplayedFaces | None = None,
    app_rolled: Sequence[bool] | None = None,
    chance: Callable[[ActionRequest], str | None] = lambda request: None,
) -> Rolled:
    """Resolve `request` with `faces` typed (none: the app's dice; `replayed`: an edited
    approval's), refusing typed faces the roll did not use. `app_rolled`: which of the
    typed faces the declare form's app rolled (unsaid: all typed)."""
    enc, c = request.encounter, request.actor
    assert enc is not None
    typed: TypedFaces | None = None
    if replayed is not None:
        source: DiceSource = replayed
    elif faces is None or faces == "":
        source = player_dice.stream(enc.setup, c, draws.next_draw(c)) if hands.player else hands.dice
    else:
        typed = TypedFaces(parse_faces(faces) if isinstance(faces, str) else faces)
        source = typed
    recorder = Recorder(source)
    shown = chance(request)
    resolve = ruleset.maintain if maintain else ruleset.resolve
    resolution = resolve(request, for_actor(recorder, c.name))
    check_all_used(typed)
    if replayed is not None:
        mark, draw = replayed.marked(len(recorder.faces)), None
    else:
        mark, draw = _mark(enc, c, recorder, typed, hands.player, app_rolled)
    return Rolled(resolution, shown, mark, draw, tuple(recorder.faces))


def _mark(
    enc: Encounter, c: Combatant, recorder: Recorder, typed: TypedFaces | None, player: bool, marked: Sequence[bool] | None
) -> tuple[str, int | None]:
    """Who decided the faces and, for a player's app dice, the draw they came from."""
    if typed is None:  # the session rolled them all
        return "app", (draws.next_draw(c) if player else None)
    faces = list(typed.faces)
    if not marked or len(marked) != len(faces):  # not said for these faces: typed
        return "typed", None
    app = [bool(m) for m in marked]
    if player:
        app = player_dice.served(enc.setup, c, faces, recorder.sides, app)
    mark = "app" if all(app) else "typed" if not any(app) else "typed+app"
    return mark, (draws.next_draw(c) if player and any(app) else None)
