"""Direct tests of rulesets.ogs.notation's `increased`, the Die Increase every OGS roll
goes through: the die it is aimed at when the effect names one.

Why: the seed (002) aims a Die Increase at the enhancement die "unless a different target
is explicitly described in the effect description"; the other tests aim only at the
default, so a named die must be shown to be the one that grows. Expected dice are worked
from the seed: a 1-Stage Die Increase moves a die one size up the ladder d4, d6, d8,
d10, d12, a 2-Stage two sizes.
"""

from __future__ import annotations

from rulesets.ogs.notation import DiceSteps, increased, parse


def test_a_named_die_is_the_one_increased() -> None:
    steps = DiceSteps()
    # Michael's sneak: Coordination d4, Sneak d8, Quiet Footpad d8.
    sneak = parse("d4+d8+d8", steps)
    assert increased(sneak, 1, steps, "sneak", 0).text() == "d6+d8+d8"
    assert increased(sneak, 2, steps, "sneak", which=1).text() == "d4+d12+d8"
    # Not named: the enhancement die (the third).
    assert increased(sneak, 1, steps, "sneak").text() == "d4+d8+d10"
