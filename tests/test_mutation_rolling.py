"""Direct tests of tracker.play.rolling: a declaration's dice, rolled and resolved (module
docstring: the faces typed, every one used; the app's, for a player the draw that stands;
an edited approval's, the player's faces in order then fresh ones; who decided the faces,
"typed", "app" or "typed+app"). docs/guide/players.md "Dice: what a player decides
alone" and docs/decisions/0049-player-app-dice-stand.md. The fight is the shipped Seraph
vs Sphinx save (Brand X): Seraph's punch at Sphinx rolls four d10s (a Combat Roll of two,
a Throwback Roll of two)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets.base import ActionRequest, Ruleset
from rulesets.dice import DiceGroup, RandomDice
from tracker.engine import CommandError, Encounter, TrackerError
from tracker.play import player_dice, rolling
from tracker.play.policy import Policy
from tracker.play.requests import action_request
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role

FIGHT = Path(__file__).resolve().parent.parent / "saves" / "seraph-vs-sphinx.toml"


def _punch() -> tuple[Ruleset, Encounter, ActionRequest]:
    loaded = EncounterFile(FIGHT).load()
    enc, ruleset = loaded.encounter, loaded.ruleset
    return ruleset, enc, action_request(Policy(Role.gm()), ruleset, enc, "Seraph", "punch", ["Sphinx"])


def _gm_dice(seed: int = 1) -> rolling.Hands:
    return rolling.Hands(RandomDice(seed), False)


def _faces(seed: int, n: int = 4) -> tuple[int, ...]:
    dice = RandomDice(seed)
    return tuple(dice.roll(10) for _ in range(n))


# ------------------------------------------------------------------ an edited approval's dice
def test_an_edited_approval_rolls_the_players_faces_in_order_then_fresh_dice() -> None:
    replayed = rolling.ReplayedFaces([3, 5], RandomDice(7), seq=12)
    assert replayed.seq == 12 and replayed.used == 0
    assert [replayed.roll(6), replayed.roll(6)] == [3, 5]
    assert replayed.used == 2
    fresh = RandomDice(7)
    assert [replayed.roll(6), replayed.roll(8)] == [fresh.roll(6), fresh.roll(8)]


def test_a_players_face_the_edited_action_cannot_roll_is_refused_naming_the_die() -> None:
    replayed = rolling.ReplayedFaces([6, 9], RandomDice(7), seq=12)
    assert replayed.roll(6) == 6  # a face equal to the die's sides is on it
    assert rolling.ReplayedFaces([1], RandomDice(7), seq=12).roll(6) == 1  # and a 1
    with pytest.raises(CommandError) as refused:
        replayed.roll(6)
    assert str(refused.value) == (
        "approve 12: the edited action rolls a d6 as die 2, where the player rolled 9; give the dice with faces=")
    with pytest.raises(CommandError, match=r"as die 1, where the player rolled 0;"):
        rolling.ReplayedFaces([0], RandomDice(7), seq=3).roll(6)


# ------------------------------------------------------------------ who decided the faces
def test_faces_typed_are_the_rolls_and_every_one_must_be_used() -> None:
    ruleset, _, request = _punch()
    typed = rolling.roll(ruleset, request, _gm_dice(), "5,4,10,10")
    assert (typed.mark, typed.draw, typed.faces, typed.chance) == ("typed", None, (5, 4, 10, 10), None)
    assert "rolled 5+4 = 9" in typed.resolution.summary
    as_list = rolling.roll(ruleset, request, _gm_dice(), [5, 4, 10, 10])
    assert as_list.faces == (5, 4, 10, 10) and as_list.resolution.summary == typed.resolution.summary
    with pytest.raises(TrackerError, match=r"^faces: 5 typed but the roll used 4; unused: 3"):
        rolling.roll(ruleset, request, _gm_dice(), "5,4,10,10,3")


def test_the_gms_app_dice_come_from_the_sessions_source() -> None:
    ruleset, _, request = _punch()
    for none in (None, ""):
        rolled = rolling.roll(ruleset, request, _gm_dice(1), none)
        assert (rolled.mark, rolled.draw, rolled.faces) == ("app", None, _faces(1))


def test_the_dice_source_is_told_whose_roll_each_group_is() -> None:
    """docs/guide/declaring.md: the form asks "next: Seraph's Combat Roll: 2d10"."""
    ruleset, _, request = _punch()

    class Listening(RandomDice):
        def __init__(self) -> None:
            super().__init__(1)
            self.groups: list[str] = []

        def begin(self, group: DiceGroup) -> None:
            self.groups.append(group.text())

    listening = Listening()
    rolling.roll(ruleset, request, rolling.Hands(listening, False), None)
    assert listening.groups[0] == "Seraph's Combat Roll: 2d10"
    assert len(listening.groups) == 2 and listening.groups[1].endswith(": 2d10")


def test_a_players_app_dice_are_their_draw_not_the_sessions() -> None:
    ruleset, enc, request = _punch()
    seraph = enc.combatant("Seraph")
    stream = player_dice.stream(enc.setup, seraph, 0)
    expected = tuple(stream.face(i, 10) for i in range(4))
    for seed in (1, 2):
        rolled = rolling.roll(ruleset, request, rolling.Hands(RandomDice(seed), True), None)
        assert (rolled.mark, rolled.draw, rolled.faces) == ("app", 0, expected)


def test_the_chance_the_form_showed_is_kept_and_a_link_is_maintained() -> None:
    ruleset, _, request = _punch()
    seen: list[ActionRequest] = []

    def chance(asked: ActionRequest) -> str:
        seen.append(asked)
        return "55%"

    rolled = rolling.roll(ruleset, request, _gm_dice(), "5,4,10,10", chance=chance)
    assert rolled.chance == "55%" and seen == [request]


def test_a_maintained_link_is_resolved_by_the_games_maintain_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset, _, request = _punch()
    calls: list[str] = []
    resolve = ruleset.resolve

    def watched(name: str):  # type: ignore[no-untyped-def]
        def call(request, dice):  # type: ignore[no-untyped-def]
            calls.append(name)
            return resolve(request, dice)
        return call

    monkeypatch.setattr(ruleset, "maintain", watched("maintain"))
    monkeypatch.setattr(ruleset, "resolve", watched("resolve"))
    rolling.roll(ruleset, request, _gm_dice(), "5,4,10,10", maintain=True)
    rolling.roll(ruleset, request, _gm_dice(), "5,4,10,10")
    assert calls == ["maintain", "resolve"]


def test_an_edited_approvals_faces_are_marked_as_the_player_decided_them_with_no_draw() -> None:
    """The guide: "Every declaration and proposal says who decided its faces"; an
    approval the GM edited replays the player's faces, then rolls any more it needs."""
    ruleset, _, request = _punch()

    def approved(mark: str, faces: list[int]) -> rolling.Rolled:
        return rolling.roll(ruleset, request, rolling.Hands(RandomDice(1), True), "1,1,1,1",
                            replayed=rolling.ReplayedFaces(faces, RandomDice(3), seq=9, mark=mark))

    fresh = RandomDice(3)
    rolled = approved("app", [5, 4])  # the app's dice for the player, then the GM's session's
    assert (rolled.mark, rolled.draw) == ("app", None)
    assert rolled.faces == (5, 4, fresh.roll(10), fresh.roll(10))
    assert approved("typed", [5, 4]).mark == "typed+app"  # typed by the player, two more rolled
    assert approved("typed", [5, 4, 10, 10]).mark == "typed"  # all the player's: as they typed them
    assert approved("typed+app", [5, 4, 10, 10]).mark == "typed+app"
    assert rolling.ReplayedFaces([5], RandomDice(3), seq=9).mark == "app"  # a proposal that says nothing


def test_faces_the_form_rolled_and_typed_are_marked_as_such() -> None:
    ruleset, _, request = _punch()

    def marked(app: list[bool], faces: str = "5,4,10,10") -> tuple[str, int | None]:
        rolled = rolling.roll(ruleset, request, _gm_dice(), faces, app_rolled=app)
        return rolled.mark, rolled.draw

    assert marked([True] * 4) == ("app", None)
    assert marked([False] * 4) == ("typed", None)
    assert marked([True, False, False, False]) == ("typed+app", None)
    assert marked([False, False, False, True]) == ("typed+app", None)
    assert marked([]) == ("typed", None)
    assert marked([True] * 3) == ("typed", None)  # not said for these faces: typed
    assert marked([True] * 5) == ("typed", None)


def test_a_players_faces_count_as_the_apps_only_when_they_are_the_draws() -> None:
    ruleset, enc, request = _punch()
    seraph = enc.combatant("Seraph")
    stream = player_dice.stream(enc.setup, seraph, 0)
    served = [stream.face(i, 10) for i in range(4)]
    hands = rolling.Hands(RandomDice(1), True)

    def marked(faces: list[int], app: list[bool]) -> tuple[str, int | None]:
        rolled = rolling.roll(ruleset, request, hands, faces, app_rolled=app)
        return rolled.mark, rolled.draw

    assert marked(served, [True] * 4) == ("app", 0)
    assert marked(served[:2] + [10, 10], [True, True, False, False]) == ("typed+app", 0)
    assert marked(served, [False] * 4) == ("typed", None)
    other = [5, 4, 10, 10]  # not the draw's faces: all typed
    assert other[0] != served[0]
    assert marked(other, [True] * 4) == ("typed", None)
    assert marked(other, [True, False, False, False]) == ("typed", None)
