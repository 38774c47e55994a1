"""A player's app dice stand (decision 0049).

When the app rolls for a player, the faces come from a stream fixed by the save's own
key (`Setup.dice_key`), the combatant's identity and the draw: the first draw not in
force on that combatant (tracker.engine.draws). Closing the form, Esc, reopening it,
reconnecting, another seat of the same key, `takeback` or a lapsed or refused proposal
all leave that draw free, so the next declaration is served the same faces again. The
draw moves on only when a declaration using it stands (or waits for the GM), or when the
GM sets it aside with `reroll NAME`. The GM's own app dice are the session's source,
rolled afresh each time, as before.

A file made before the key was kept derives one from its header (predictable to anyone
who reads the file, who could read the log and type faces anyway); `tracker new` gives
every new file a random key. The key is never shown (not in `show`, exports or the log).
"""

from __future__ import annotations

from collections.abc import Sequence

from rulesets.dice import KeyedDice
from tracker.engine import draws
from tracker.engine.model import Combatant, Setup


def key_of(setup: Setup) -> bytes:
    """The save's key for its players' app dice."""
    if setup.dice_key:
        return bytes.fromhex(setup.dice_key)
    import hashlib  # here: a save from before keys were kept (opening a fight never needs it)

    return hashlib.sha256(f"segment-tracker app dice\0{setup.name}\0{setup.ruleset}".encode("utf-8")).digest()


def stream(setup: Setup, c: Combatant, draw: int) -> KeyedDice:
    """The faces of `c`'s draw `draw`, die by die from the first."""
    name, seq = c.identity
    return KeyedDice(key_of(setup), f"{name}\0{seq}\0{draw}")


def serve(setup: Setup, c: Combatant, sides: Sequence[int], start: int = 0) -> list[int]:
    """The app's faces for `sides`, from die `start` of `c`'s next draw."""
    dice = stream(setup, c, draws.next_draw(c))
    return [dice.face(start + i, s) for i, s in enumerate(sides)]


def served(setup: Setup, c: Combatant, faces: Sequence[int], sides: Sequence[int], marked: Sequence[bool]) -> list[bool]:
    """Which of `faces` the app served from `c`'s next draw: those marked as the app's,
    when they are that draw's faces in order. Otherwise (a face the app never rolled, or
    a draw another seat of the same player used meanwhile) none was: all count as typed."""
    dice = stream(setup, c, draws.next_draw(c))
    app = [bool(m) for m in marked]
    picked = [(face, die) for face, die, m in zip(faces, sides, app) if m]
    if all(dice.face(i, die) == face for i, (face, die) in enumerate(picked)):
        return app
    return [False] * len(app)
