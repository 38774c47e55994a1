"""Direct tests of rulesets.dice: the dice sources every roll goes through and the dice
groups the declare form relies on (module docstring: a group per dice a person picks up
and throws together, `for_actor` naming whose roll; typed faces refused when short, out
of range or left unused; `PromptingFaces` naming the next group; `plain_roll`'s plain
notation). Expected values are worked from the docstrings."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from rulesets import dice
from rulesets.dice import DiceGroup, DiceNeeded, NotEnoughFaces
from tracker.engine.errors import TrackerError
from tests.helpers import ListeningSource


class Deaf:
    """A source without `begin`."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def roll(self, sides: int) -> int:
        return self.faces.pop(0)


# ------------------------------------------------------------------ groups


def test_dice_text_merges_runs_in_order() -> None:
    assert DiceGroup("x", (10, 10)).dice_text() == "2d10"
    assert DiceGroup("x", (6, 8, 8)).dice_text() == "1d6+2d8"
    assert DiceGroup("x", (6, 8, 6)).dice_text() == "1d6+1d8+1d6"
    assert DiceGroup("x", (6,)).dice_text() == "1d6"
    assert DiceGroup("x", ()).dice_text() == "no dice"


def test_group_text_names_whose_roll() -> None:
    assert DiceGroup("Combat Roll", (10, 10), "Seraph").text() == "Seraph's Combat Roll: 2d10"
    assert DiceGroup("damage", (6, 6, 6)).text() == "damage: 3d6"


def test_roll_group_announces_then_rolls_each_die() -> None:
    source = ListeningSource(4, 7)
    assert dice.roll_group(source, "Sphinx's dodge", [6, 8]) == [4, 7]
    assert source.groups == [DiceGroup("Sphinx's dodge", (6, 8), "")]
    assert source.asked == [6, 8]
    assert dice.roll_group(source := ListeningSource(2), "dodge", (6,), who="Sphinx") == [2]
    assert source.groups == [DiceGroup("dodge", (6,), "Sphinx")]
    assert dice.roll_group(Deaf(5, 1), "damage", (6, 6)) == [5, 1]


def test_for_actor_names_the_groups_that_do_not_say() -> None:
    source = ListeningSource(3, 9, 2)
    actor = dice.for_actor(source, "Seraph")
    assert dice.roll_group(actor, "Combat Roll", (10, 10)) == [3, 9]
    assert dice.roll_group(actor, "dodge", (6,), who="Sphinx") == [2]
    assert source.groups == [DiceGroup("Combat Roll", (10, 10), "Seraph"), DiceGroup("dodge", (6,), "Sphinx")]
    # Through a source that does not listen the rolls still pass.
    assert dice.roll_group(dice.for_actor(Deaf(6), "Seraph"), "damage", (6,)) == [6]


# ------------------------------------------------------------------ random and keyed


def test_random_dice_replay_by_seed_and_cover_every_face() -> None:
    first = [dice.RandomDice(7).roll(6) for _ in range(1)]
    one, two = dice.RandomDice(7), dice.RandomDice(7)
    rolls = [one.roll(6) for _ in range(300)]
    assert rolls == [two.roll(6) for _ in range(300)]
    assert rolls[:1] == first
    assert set(rolls) == {1, 2, 3, 4, 5, 6}


def _keyed_face(key: bytes, label: str, index: int, sides: int) -> int:
    # The stream's definition: HMAC-SHA256 of label NUL index, reduced to 1..sides.
    digest = hmac.new(key, label.encode() + b"\0" + str(index).encode(), hashlib.sha256).digest()
    return 1 + int.from_bytes(digest, "big") % sides


def test_keyed_dice_stand_for_a_key_label_and_position() -> None:
    key = b"campaign key"
    stream = dice.KeyedDice(key, "Seraph/3")
    faces = [stream.roll(10) for _ in range(20)]
    assert faces == [_keyed_face(key, "Seraph/3", i, 10) for i in range(20)]
    assert stream.index == 20
    assert all(1 <= f <= 10 for f in faces) and len(set(faces)) > 3
    later = dice.KeyedDice(key, "Seraph/3", start=5)
    assert later.roll(10) == faces[5] and later.index == 6
    assert later.face(0, 10) == faces[0]
    other = dice.KeyedDice(key, "Sphinx/3")
    assert [other.roll(10) for _ in range(20)] != faces
    assert [dice.KeyedDice(b"another key", "Seraph/3").roll(10) for _ in range(1)] == [_keyed_face(b"another key", "Seraph/3", 0, 10)]


def test_keyed_dice_reach_every_face() -> None:
    stream = dice.KeyedDice(b"k", "s")
    assert {stream.roll(2) for _ in range(60)} == {1, 2}


# ------------------------------------------------------------------ typed faces


def test_typed_faces_in_order_and_what_is_left() -> None:
    typed = dice.TypedFaces([3, 10, 1, 5])
    assert [typed.roll(10), typed.roll(10), typed.roll(6)] == [3, 10, 1]
    assert typed.used == 3
    assert list(typed.unused()) == [5]


def test_typed_faces_running_short_is_not_enough_faces() -> None:
    typed = dice.TypedFaces((4, 5), "--faces")
    typed.roll(6)
    typed.roll(6)
    with pytest.raises(NotEnoughFaces) as short:
        typed.roll(8)
    assert str(short.value) == "--faces: the roll needs more dice than the 2 typed (die 3 is a d8)"
    assert isinstance(short.value, TrackerError)


def test_typed_faces_refuse_a_face_the_die_has_not() -> None:
    typed = dice.TypedFaces([6, 7])
    assert typed.roll(6) == 6
    with pytest.raises(TrackerError) as bad:
        typed.roll(6)
    assert str(bad.value) == "faces: die 2 is a d6; 7 is not one of its faces"
    assert typed.used == 1
    with pytest.raises(TrackerError) as bad:
        dice.TypedFaces([0], "faces=").roll(6)
    assert str(bad.value) == "faces=: die 1 is a d6; 0 is not one of its faces"
    assert dice.TypedFaces([1]).roll(6) == 1


def test_check_all_used_refuses_unread_faces() -> None:
    typed = dice.TypedFaces([4, 5, 6], "--faces")
    typed.roll(6)
    with pytest.raises(TrackerError) as refused:
        dice.check_all_used(typed, "--faces")
    assert str(refused.value) == "--faces: 3 typed but the roll used 1; unused: 5, 6"
    with pytest.raises(TrackerError) as refused:
        dice.check_all_used(dice.TypedFaces([2]))
    assert str(refused.value) == "faces: 1 typed but the roll used 0; unused: 2"
    typed.roll(6)
    typed.roll(6)
    dice.check_all_used(typed)
    dice.check_all_used(dice.RandomDice(1))
    dice.check_all_used(None)


# ------------------------------------------------------------------ prompting


def test_dice_needed_names_the_group() -> None:
    group = DiceGroup("Combat Roll", (10, 10), "Seraph")
    needed = DiceNeeded(group, [3], 4)
    assert str(needed) == "next: Seraph's Combat Roll: 2d10"
    assert needed.group == group and needed.have == (3,) and needed.index == 4
    assert not isinstance(needed, TrackerError)


def test_prompting_faces_name_the_rest_of_the_group() -> None:
    faces = dice.PromptingFaces([5, 3])
    actor = dice.for_actor(faces, "Seraph")
    assert dice.roll_group(actor, "Initiative", (6,)) == [5]
    with pytest.raises(DiceNeeded) as needed:
        dice.roll_group(actor, "Combat Roll", (10, 10))
    assert needed.value.group == DiceGroup("Combat Roll", (10, 10), "Seraph")
    assert needed.value.have == (3,)
    assert needed.value.index == 1
    # The form asks for group.sides[len(have):], adds it, and the roll goes through.
    more = dice.PromptingFaces([5, 3, 8])
    actor = dice.for_actor(more, "Seraph")
    dice.roll_group(actor, "Initiative", (6,))
    assert dice.roll_group(actor, "Combat Roll", (10, 10)) == [3, 8]


def test_prompting_faces_without_a_group_ask_one_die_at_a_time() -> None:
    faces = dice.PromptingFaces([4], "form")
    assert faces.roll(6) == 4
    with pytest.raises(DiceNeeded) as needed:
        faces.roll(8)
    assert needed.value.group == DiceGroup("die 2", (8,))
    assert needed.value.have == () and needed.value.index == 1
    # Past the end of the last group announced, the same.
    grouped = dice.PromptingFaces([2])
    dice.roll_group(grouped, "dodge", (6,))
    with pytest.raises(DiceNeeded) as needed:
        grouped.roll(12)
    assert needed.value.group == DiceGroup("die 2", (12,)) and needed.value.index == 1
    # With nothing typed, the first group whole.
    empty = dice.PromptingFaces([])
    with pytest.raises(DiceNeeded) as needed:
        dice.roll_group(empty, "damage", (6, 6))
    assert needed.value.group == DiceGroup("damage", (6, 6)) and needed.value.have == () and needed.value.index == 0
    # A typed face out of range is still an error, not a prompt, named by the label.
    with pytest.raises(TrackerError) as bad:
        dice.PromptingFaces([9]).roll(6)
    assert str(bad.value) == "faces: die 1 is a d6; 9 is not one of its faces"
    with pytest.raises(TrackerError) as bad:
        dice.PromptingFaces([9], "declare").roll(6)
    assert str(bad.value) == "declare: die 1 is a d6; 9 is not one of its faces"


def test_check_faces_refuses_too_many_or_a_wrong_face() -> None:
    group = DiceGroup("Combat Roll", (10, 10))
    dice.check_faces(group, [10, 1])
    dice.check_faces(group, [4])
    with pytest.raises(TrackerError) as refused:
        dice.check_faces(group, [1, 2, 3])
    assert str(refused.value) == "faces: Combat Roll: 2d10 is 2 dice; 3 faces were typed"
    with pytest.raises(TrackerError) as refused:
        dice.check_faces(DiceGroup("dodge", (6,)), [1, 2], "form")
    assert str(refused.value) == "form: dodge: 1d6 is 1 die; 2 faces were typed"
    with pytest.raises(TrackerError) as refused:
        dice.check_faces(DiceGroup("dodge", (6, 8)), [6, 9], first=4)
    assert str(refused.value) == "faces: die 5 is a d8; 9 is not one of its faces"
    with pytest.raises(TrackerError) as refused:
        dice.check_faces(group, [0])
    assert str(refused.value) == "faces: die 1 is a d10; 0 is not one of its faces"


# ------------------------------------------------------------------ recorder


def test_recorder_keeps_faces_sides_and_groups() -> None:
    source = ListeningSource(3, 9, 2, 6, 1)
    recorder = dice.Recorder(source)
    assert recorder.roll(4) == 3  # before any group: kept, in no group
    assert recorder.groups == []
    dice.roll_group(recorder, "Combat Roll", (10, 10))
    recorder.begin(DiceGroup("dodge", (6,)))
    assert recorder.roll(6) == 6
    assert recorder.roll(6) == 1  # past the group's one die: not the group's
    assert recorder.faces == [3, 9, 2, 6, 1]
    assert recorder.sides == [4, 10, 10, 6, 6]
    assert recorder.groups == [(DiceGroup("Combat Roll", (10, 10)), [9, 2]), (DiceGroup("dodge", (6,)), [6])]
    assert [g.label for g, _ in recorder.groups] == ["Combat Roll", "dodge"]
    assert [faces for _, faces in recorder.groups] == [[9, 2], [6]]
    assert source.groups == [DiceGroup("Combat Roll", (10, 10)), DiceGroup("dodge", (6,))]


# ------------------------------------------------------------------ parsing and sources


def test_parse_faces_by_commas_or_spaces() -> None:
    assert dice.parse_faces("3,7,1") == [3, 7, 1]
    assert dice.parse_faces(" 3 , 7 ,1 ") == [3, 7, 1]
    assert dice.parse_faces("3 7  1") == [3, 7, 1]
    assert dice.parse_faces("12") == [12]


def test_parse_faces_refuses_naming_the_entry() -> None:
    with pytest.raises(TrackerError) as refused:
        dice.parse_faces("1,,5", "--faces")
    assert str(refused.value) == "--faces: entry 2 is empty (faces are written 3,7,1)"
    with pytest.raises(TrackerError) as refused:
        dice.parse_faces(",5")
    assert str(refused.value) == "faces: entry 1 is empty (faces are written 3,7,1)"
    with pytest.raises(TrackerError) as refused:
        dice.parse_faces("3, x")
    assert str(refused.value) == "faces: entry 2 ('x') is not a whole number"
    with pytest.raises(TrackerError) as refused:
        dice.parse_faces("   ", "faces=")
    assert str(refused.value) == "faces=: expected die faces such as 3,7"


def test_source_for_typed_faces_else_random() -> None:
    typed = dice.source_for("4,2", label="--faces")
    assert isinstance(typed, dice.TypedFaces)
    assert (typed.faces, typed.label) == ([4, 2], "--faces")
    listed = dice.source_for([6, 1])
    assert isinstance(listed, dice.TypedFaces) and listed.faces == [6, 1] and listed.label == "faces"
    with pytest.raises(TrackerError, match="^--vs-faces: entry 1"):
        dice.source_for("a", label="--vs-faces")
    for nothing in (None, ""):
        seeded = dice.source_for(nothing, seed=11)
        assert isinstance(seeded, dice.RandomDice)
        reference = dice.RandomDice(11)
        assert [seeded.roll(20) for _ in range(10)] == [reference.roll(20) for _ in range(10)]


# ------------------------------------------------------------------ plain notation


def test_plain_roll_says_the_faces_and_the_total() -> None:
    assert dice.plain_roll("2d10", dice.TypedFaces([7, 3]), 100, 1000) == ([7, 3], "2d10: 7 3 = 10")
    assert dice.plain_roll("3d6+2", dice.TypedFaces([1, 2, 3]), 100, 1000) == ([1, 2, 3], "3d6+2: 1 2 3 = 8")
    assert dice.plain_roll("d20-1", dice.TypedFaces([20]), 100, 1000) == ([20], "d20-1: 20 = 19")
    assert dice.plain_roll("2d6+1d4", dice.TypedFaces([6, 5, 4]), 100, 1000) == ([6, 5, 4], "2d6+1d4: 6 5 4 = 15")
    assert dice.plain_roll("1d6-1d4", dice.TypedFaces([2, 4]), 100, 1000) == ([2, 4], "1d6-1d4: 2 4 = -2")
    assert dice.plain_roll("2 D 8", dice.TypedFaces([1, 8]), 100, 1000) == ([1, 8], "2D8: 1 8 = 9")
    assert dice.plain_roll("5-1d2", dice.TypedFaces([2]), 100, 1000) == ([2], "5-1d2: 2 = 3")


def test_plain_roll_rolls_a_group_per_term_named_by_the_spec() -> None:
    source = ListeningSource(6, 5, 4)
    dice.plain_roll("2d6+1d4", source, 100, 1000)
    assert source.groups == [DiceGroup("2d6+1d4", (6, 6)), DiceGroup("2d6+1d4", (4,))]


@pytest.mark.parametrize("spec", ["", "  ", "+2d6", "2d6x", "5", "5+3", "d", "2d", "x2d6", "2d6+"])
def test_plain_roll_refuses_what_is_not_plain_notation(spec: str) -> None:
    with pytest.raises(TrackerError) as refused:
        dice.plain_roll(spec, dice.RandomDice(1), 100, 1000)
    assert str(refused.value) == f"roll: expected dice such as 2d10 or 3d6+2, got {spec!r}"


@pytest.mark.parametrize("spec", ["0d6", "2d1", "1d0"])
def test_plain_roll_refuses_a_term_of_no_dice_or_one_side(spec: str) -> None:
    with pytest.raises(TrackerError) as refused:
        dice.plain_roll(spec, dice.RandomDice(1), 100, 1000)
    assert str(refused.value) == f"roll {spec!r}: a term needs at least 1 die of at least 2 sides"


def test_plain_roll_limits_dice_in_all_and_sides() -> None:
    assert dice.plain_roll("2d2", dice.TypedFaces([1, 2]), 2, 2)[1] == "2d2: 1 2 = 3"
    assert dice.plain_roll("1d6+2d4", dice.TypedFaces([1, 2, 3]), 3, 6)[0] == [1, 2, 3]
    for spec, most, sides in (("3d6", 2, 6), ("1d6+2d4", 2, 6), ("1d8", 5, 6)):
        with pytest.raises(TrackerError) as refused:
            dice.plain_roll(spec, dice.RandomDice(1), most, sides)
        assert str(refused.value) == f"roll {spec!r}: at most {most} dice of at most {sides} sides"
