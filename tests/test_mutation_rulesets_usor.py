"""USOR's `Ruleset` class (`rulesets/usor/__init__.py`), tested directly for the mutation
run: the `glossary_rows` setting reaches a strike or check and the chance notes, and
the command line's roll refuses typed faces it did not read, on either side.

From docs/rulesets/usor.md and the module docstring: the USOR glossary's rating 11 =
1d6+1d8 is outside the rules text; with `glossary_rows=true` it replaces the derived
1d4+1d20 and is shown as a "glossary" row. The seed's chart row 16 is 1d8+1d12; a die
showing 4 or more is a success.
"""

from __future__ import annotations

import pytest

from rulesets.dice import TypedFaces, for_actor
from rulesets.usor import UsorRuleset
from tracker.engine.errors import TrackerError
from tests.helpers import session_for


def test_the_glossary_setting_reaches_a_check_in_the_encounter() -> None:
    """With glossary_rows=true a check of rating 11 rolls the glossary's 1d6+1d8, not the
    derived 1d4+1d20: 4 and 4 are two successes against the event's 16 (1d8+1d12) showing
    1 and 1, none."""
    r = UsorRuleset()
    s = session_for(r, "add A agility=11", glossary_rows=True)
    request, _ = s.request("A", "check", [], {"rating": "11", "against": "16"})
    res = r.resolve(request, for_actor(TypedFaces([4, 4, 1, 1]), "A"))
    assert res.summary.startswith("A rating 11 [1d6+1d8, glossary row]: d6 4, d8 4 -> 2 successes")
    assert "1d4+1d20" not in res.summary


def test_the_chance_notes_follow_the_glossary_setting() -> None:
    r = UsorRuleset()
    assert r.chance_notes("11") == ["derived row: rating 11 = 1d4+1d20"]
    assert r.chance_notes("11", options={"glossary_rows": "true"}) == ["glossary row: rating 11 = 1d6+1d8"]


def refused(call: object) -> str:
    with pytest.raises(TrackerError) as caught:
        call()  # type: ignore[operator]
    return str(caught.value)


def test_a_single_roll_refuses_a_face_it_did_not_read() -> None:
    """Rating 16 rolls two dice (1d8+1d12): a third typed face is another roll."""
    r = UsorRuleset()
    assert refused(lambda: r.roll("16", TypedFaces([4, 4, 3]))) == "--faces: 3 typed but the roll used 2; unused: 3"


def test_an_opposed_roll_refuses_a_face_either_side_did_not_read() -> None:
    """16 against 16 between characters: 4, 4 (two successes) against 1, 1 (none) is
    decided in one exchange, so a third face on either side is unread and named."""
    r = UsorRuleset()
    assert refused(lambda: r.roll("16", TypedFaces([4, 4, 2]), vs="16", vs_dice=TypedFaces([1, 1]))) == (
        "--faces: 3 typed but the roll used 2; unused: 2")
    assert refused(lambda: r.roll("16", TypedFaces([4, 4]), vs="16", vs_dice=TypedFaces([1, 1, 5]))) == (
        "--vs-faces: 3 typed but the roll used 2; unused: 5")
    done = r.roll("16", TypedFaces([4, 4]), vs="16", vs_dice=TypedFaces([1, 1]))
    assert (done.fields["successes"], done.fields["rival_successes"], done.fields["nost"]) == (2, 0, 2)
