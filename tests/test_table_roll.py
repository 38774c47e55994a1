"""Issue 22: a table dice roll. `roll DICE` in the game's own notation, by the GM or a
player, through the session's dice source; a line in everyone's log, signed with who
rolled; saved as a `roll` event (one definition: tracker.persistence.event_tables.EVENT_ARGS and the engine); the
GM's may be secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets.dice import TypedFaces
from tracker.engine import RuleRefusal, TrackerError
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role, visible_to
from tracker.play.session import Session
from tracker.reading.wording import describe


def session(saves: Path, ruleset: str, faces: list[int], role: Role | None = None, user: str = "") -> Session:
    path = saves / f"{ruleset}.toml"
    if not path.exists():
        store, loaded = EncounterFile.create(path, "night", ruleset)
        Session(loaded.encounter, loaded.ruleset, store=store).execute("add Seraph")
    loaded = EncounterFile(path).load()
    return Session(loaded.encounter, loaded.ruleset, store=EncounterFile(path), dice=TypedFaces(faces), role=role, user=user)


@pytest.mark.parametrize(("ruleset", "line", "faces", "shown"), [
    # Plain dice in any game: 2d10 showing 7 and 3 is 10.
    ("brandx", "roll 2d10", [7, 3], "roll 2d10: 7 3 = 10"),
    ("freeform", "roll 3d6+2", [1, 2, 3], "roll 3d6+2: 1 2 3 = 8"),
    # D6's notation: 3D+1 is three dice (the Wild Die first) 4, 2 and 5, plus 1: 12.
    ("d6", "roll 3D+1", [4, 2, 5], "roll 3D+1: dice 4, 2, 5 = 12"),
    # ORE's: 5d+1wd rolls five dice (9 9 4 2 1) and sets the wiggle die where it makes
    # the widest set: 9, making 3x9.
    ("ore", "roll 5d+1wd", [9, 9, 4, 2, 1], "3x9"),
])
def test_a_roll_in_the_games_notation_is_logged_and_saved(saves: Path, ruleset: str, line: str, faces: list[int], shown: str) -> None:
    s = session(saves, ruleset, faces)
    s.execute(line)
    entry = s.encounter.log[-1]
    assert entry.kind == "roll" and shown in entry.text, entry.text
    event = EncounterFile(saves / f"{ruleset}.toml").load().encounter.events[-1]
    assert event.kind == "roll" and event.args["dice"] == faces and event.args["spec"] == line.split(None, 1)[1]
    assert visible_to(Role.viewer(), entry) and visible_to(Role.player(["Seraph"]), entry)


def test_a_players_roll_is_signed_and_seen_by_all(saves: Path) -> None:
    session(saves, "freeform", [])  # the file
    s = session(saves, "freeform", [6, 1], Role.player(["Seraph"]), user="bob")
    s.execute("roll 2d6")
    event = s.encounter.events[-1]
    assert event.by == "player:bob" and describe(event) == "roll 2d6: 6 1 = 7 (player bob)"
    assert visible_to(Role.gm(), s.encounter.log[-1]) and visible_to(Role.viewer(), s.encounter.log[-1])
    with pytest.raises(RuleRefusal, match="secret rolls are the GM's"):
        s.execute("roll 2d6 secret=true")
    with pytest.raises(TrackerError):
        session(saves, "freeform", [], Role.viewer()).execute("roll 2d6")


def test_the_gms_secret_roll_is_kept_from_the_table(saves: Path) -> None:
    s = session(saves, "freeform", [5])
    s.execute("roll 1d20 secret=true")
    entry = s.encounter.log[-1]
    assert entry.text == "roll 1d20: 5 = 5 (secret)" and entry.secret
    assert visible_to(Role.gm(), entry)
    assert not visible_to(Role.viewer(), entry) and not visible_to(Role.player(["Seraph"]), entry)


@pytest.mark.parametrize("line", ["roll", "roll 2x10", "roll 101d6", "roll 1d1001", "roll 2d10 loud=yes"])
def test_bad_rolls_are_refused_and_change_nothing(saves: Path, line: str) -> None:
    s = session(saves, "freeform", [1] * 200)
    before = len(s.encounter.events)
    with pytest.raises(TrackerError):
        s.execute(line)
    assert len(EncounterFile(saves / "freeform.toml").load().encounter.events) == before
