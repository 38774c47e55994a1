"""Input the command-line checks refuse rather than take silently, and the named
limits that keep an exact answer within a second.

- Size limits (`MAX_*`) are named in the refusal; below them every exact answer is
  computed in well under a second. The same checks (the `limit_*` functions) guard the
  command line (`roll`, `odds`), the timeline (`declare` in `play`, the `:` line, the
  approvals screen) and the declare form's chance line: a roll or chance refused in
  one is refused in all, with the same words.

Decisions: docs/decisions/0032-cli-refusals.md
"""

from __future__ import annotations

from collections import Counter

from tracker.engine.errors import TrackerError

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
# Luck after the fight (tracker.reading.stats): the Poisson-binomial of a side's recorded chances
# in exact fractions up to this many rolls; beyond, in floating point (the exact
# denominators multiply with every roll).
MAX_LUCK_EXACT = 1000
# Luck is weighed over at most this many rolls: the Poisson-binomial takes time in the
# square of the rolls (5,000 take about a second, 10,000 six). Beyond, the rolls, the
# successes and the expectation are still counted, and the luck is said not weighed.
MAX_LUCK_ROLLS = 5000


def limit_d6_dice(dice: int, what: str) -> None:
    """A D6 roll of more than MAX_D6_DICE dice is refused (a 400D check took a minute)."""
    if dice > MAX_D6_DICE:
        raise TrackerError(f"{what}: {dice}D is more than the {MAX_D6_DICE}D limit on one roll")


def limit_d6_difficulty(difficulty: int | None, what: str) -> None:
    if difficulty is not None and difficulty > MAX_D6_DIFFICULTY:
        raise TrackerError(f"{what}: {difficulty} is past the limit of {MAX_D6_DIFFICULTY} (the standard difficulties end at Legendary, 31)")


def limit_ogs_dice(sides: tuple[int, ...], label: str) -> None:
    """An OGS roll (a check or an Open Roll) of more than MAX_OGS_DICE dice is refused (a
    42-die check was accepted), counted after any Die Increase: every roll is checked in
    `rulesets.ogs.notation.increased`."""
    if len(sides) > MAX_OGS_DICE:
        raise TrackerError(f"{label}: {len(sides)} dice is more than the limit of {MAX_OGS_DICE}")


def limit_ogs_opposed(own: tuple[int, ...], rival: tuple[int, ...], own_label: str = "ogs dice", rival_label: str = "--vs") -> None:
    """Opposed odds enumerate both sides' sorted faces for the tie-breaks: refuse sizes
    past MAX_OGS_OPPOSED_DICE dice in all or MAX_OGS_SORTED_OUTCOMES a side (a contest
    of 12 dice a side took 30 s in the form)."""
    if len(own) + len(rival) > MAX_OGS_OPPOSED_DICE:
        raise TrackerError(f"opposed odds: {len(own)} + {len(rival)} dice is more than the limit of "
                           f"{MAX_OGS_OPPOSED_DICE} dice in all (the tie-breaks compare every die)")
    for label, side in ((own_label, own), (rival_label, rival)):
        count = sorted_outcomes(side)
        if count > MAX_OGS_SORTED_OUTCOMES:
            shown = "+".join(f"{n}d{size}" for size, n in sorted(Counter(side).items(), reverse=True))
            raise TrackerError(f"opposed odds: {label} {shown} has up to {count:,} sorted outcomes to compare, "
                               f"past the limit of {MAX_OGS_SORTED_OUTCOMES:,} (6d12 has 12,376)")


def sorted_outcomes(sides: tuple[int, ...]) -> int:
    """At most how many distinct sorted face lists these dice give: as many as the same
    number of the largest die, C(n + s - 1, n) (exact when the dice are all one size)."""
    from math import comb

    return comb(len(sides) + max(sides) - 1, len(sides)) if sides else 1


def check_faces_given(faces: str | None, vs_faces: str | None, vs: str | None, difficulty: int | None = None) -> None:
    """`--vs-faces` needs another side: `--vs`, or (USOR) the event a `--difficulty`
    rating rolls; faces a roll does not read are then refused by `rulesets.dice.check_all_used`."""
    if faces is not None and not faces.strip():
        raise TrackerError("--faces: no faces given (leave --faces out to roll random dice)")
    if vs_faces is not None and not vs_faces.strip():
        raise TrackerError("--vs-faces: no faces given (leave --vs-faces out to roll random dice)")
    if vs_faces is not None and vs is None and difficulty is None:
        raise TrackerError("--vs-faces: there is no other side to roll for (give --vs SPEC, or leave --vs-faces out)")



def no_negative_difficulty(difficulty: int | None, game: str) -> None:
    if difficulty is not None and difficulty < 0:
        raise TrackerError(f"--difficulty: {game} has no negative difficulties; expected 0 or more, got {difficulty}")
