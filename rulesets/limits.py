"""Input the command-line checks refuse rather than take silently, and the named
limits that keep an exact answer within a second.

- `--faces ""` is refused (it used to roll random dice without saying so); leave the
  option out to roll. `--vs-faces` without `--vs` is refused.
- Faces typed but not used by the roll are refused, naming them.
- Pools with no dice, a term of zero dice ("0d"), and negative difficulties are refused
  by each adapter where its game has no such thing.
- Size limits (`MAX_*`) are named in the refusal; below them every exact answer is
  computed in well under a second.
"""

from __future__ import annotations

from tracker.engine.errors import TrackerError
from rulesets.dice import DiceSource, TypedFaces

# D6: at most this many dice in a code, and a difficulty at most this high (the
# exploding Wild Die makes any difficulty possible, so the exact chance of a huge one is
# a fraction thousands of digits long).
MAX_D6_DICE = 40
MAX_D6_DIFFICULTY = 400
# OGS: dice on one side of a check (each up to d12+); opposed odds enumerate both sides.
MAX_OGS_DICE = 30
MAX_OGS_OPPOSED_DICE = 12
# Opposed odds enumerate each side's sorted faces for the tie-breaks: at most this many
# distinct sorted outcomes a side (6d12 has 12,376).
MAX_OGS_SORTED_OUTCOMES = 15_000
# A table roll in plain dice notation (`roll 2d10`): at most this many dice, of at most
# this many sides (a roll is shown face by face in everyone's log).
MAX_TABLE_DICE = 100
MAX_TABLE_SIDES = 1000


def sorted_outcomes(sides: tuple[int, ...]) -> int:
    """At most how many distinct sorted face lists these dice give: as many as the same
    number of the largest die, C(n + s - 1, n) (exact when the dice are all one size)."""
    from math import comb

    return comb(len(sides) + max(sides) - 1, len(sides)) if sides else 1


def check_faces_given(faces: str | None, vs_faces: str | None, vs: str | None, difficulty: int | None = None) -> None:
    """`--vs-faces` needs another side: `--vs`, or (USOR) the event a `--difficulty`
    rating rolls; faces a roll does not read are then refused by `check_faces_used`."""
    if faces is not None and not faces.strip():
        raise TrackerError("--faces: no faces given (leave --faces out to roll random dice)")
    if vs_faces is not None and not vs_faces.strip():
        raise TrackerError("--vs-faces: no faces given (leave --vs-faces out to roll random dice)")
    if vs_faces is not None and vs is None and difficulty is None:
        raise TrackerError("--vs-faces: there is no other side to roll for (give --vs SPEC, or leave --vs-faces out)")


def check_faces_used(dice: DiceSource | None, label: str) -> None:
    if isinstance(dice, TypedFaces) and dice.unused():
        unused = list(dice.unused())
        raise TrackerError(
            f"{label}: {len(dice.faces)} faces typed but the roll used {dice.used}; "
            f"unused: {', '.join(map(str, unused))}"
        )


def no_negative_difficulty(difficulty: int | None, game: str) -> None:
    if difficulty is not None and difficulty < 0:
        raise TrackerError(f"--difficulty: {game} has no negative difficulties; expected 0 or more, got {difficulty}")
