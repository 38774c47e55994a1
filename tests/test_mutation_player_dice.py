"""Direct tests of tracker.play.player_dice: a player's app dice (docs/decisions/0049-player-app-dice-stand.md).

"die `i` of draw `n` of a combatant is `1 + HMAC-SHA256(key, identity, n, i) mod
sides`, where identity is the combatant's first name and the change that gave it";
"The next declaration is served the first draw not in force"; the key is the save's
`dice_key` (hex), and "a file made before the key was kept derives one from its title
and game". The faces are worked with `rulesets.dice.KeyedDice` (the stream the decision
describes), labelled by the identity and the draw."""

from __future__ import annotations

import dataclasses
import hashlib

from rulesets.dice import KeyedDice
from tracker.engine import Event
from tracker.play.player_dice import key_of, serve, served, stream
from tests.helpers import encounter

KEY = "00112233445566778899aabbccddeeff"


def _fight(key: str = KEY) -> tuple:
    enc = encounter("Seraph", "Sphinx")
    return dataclasses.replace(enc.setup, dice_key=key), enc


def _faces(key: bytes, name: str, seq: int, draw: int, sides: list[int], start: int = 0) -> list[int]:
    dice = KeyedDice(key, f"{name}\0{seq}\0{draw}")
    return [dice.face(start + i, s) for i, s in enumerate(sides)]


def test_the_key_is_the_saves_own() -> None:
    setup, _ = _fight()
    assert key_of(setup) == bytes.fromhex(KEY)


def test_a_save_without_a_key_derives_one_from_its_title_and_game() -> None:
    setup, _ = _fight("")
    derived = key_of(setup)
    assert len(derived) == 32
    # Fixed across versions: a key-less save's players must be served the same faces by
    # every version of the app (the roll stands in every process).
    assert derived == hashlib.sha256(b"segment-tracker app dice\0test\0freeform").digest()
    assert key_of(dataclasses.replace(setup, name="other")) != derived
    assert key_of(dataclasses.replace(setup, ruleset="brandx")) != derived


def test_a_combatants_stream_is_its_identitys_and_draws() -> None:
    setup, enc = _fight()
    seraph = enc.combatant("Seraph")
    name, seq = seraph.identity
    sides = [10, 10, 6, 20]
    assert [stream(setup, seraph, 2).face(i, s) for i, s in enumerate(sides)] == _faces(bytes.fromhex(KEY), name, seq, 2, sides)
    # a rename keeps the stream
    enc.apply(Event("rename", {"target": "Seraph", "name": "Seraph the Bold"}))
    renamed = enc.combatant("Seraph the Bold")
    assert [stream(setup, renamed, 2).face(i, 10) for i in range(4)] == [stream(setup, seraph, 2).face(i, 10) for i in range(4)]
    assert stream(setup, seraph, 0).index == 0


def test_serve_gives_the_first_draw_not_in_force_from_the_die_asked() -> None:
    setup, enc = _fight()
    seraph = enc.combatant("Seraph")
    name, seq = seraph.identity
    key = bytes.fromhex(KEY)
    sides = [10, 10, 6]
    assert serve(setup, seraph, sides) == _faces(key, name, seq, 0, sides)
    assert serve(setup, seraph, sides, start=2) == _faces(key, name, seq, 0, sides, start=2)
    held = dataclasses.replace(seraph, draws=frozenset({0, 1, 3}))
    assert serve(setup, held, sides) == _faces(key, name, seq, 2, sides)
    assert serve(setup, held, []) == []


def test_served_keeps_the_apps_mark_only_on_the_next_draws_faces_in_order() -> None:
    setup, enc = _fight()
    seraph = enc.combatant("Seraph")
    sides = [20, 20, 20]
    app = serve(setup, seraph, sides)
    assert len(set(app)) == 3  # this key's first three d20s differ (the checks below rely on it)
    assert served(setup, seraph, app, sides, [True] * 3) == [True] * 3
    # the app's faces are its draw's dice in order, whatever was typed between them
    assert served(setup, seraph, [app[0], 7, app[1]], sides, [True, False, True]) == [True, False, True]
    assert served(setup, seraph, [7, app[0], 8], sides, [False, True, False]) == [False, True, False]
    assert served(setup, seraph, [7, 8, 9], sides, [0, 0, 0]) == [False] * 3
    # out of order, or a face the app never rolled: none counts as the app's
    assert served(setup, seraph, [app[1], app[0], app[2]], sides, [True] * 3) == [False] * 3
    assert served(setup, seraph, [app[0], app[1], app[2] % 20 + 1], sides, [True] * 3) == [False] * 3
    assert served(setup, seraph, [7, app[1]], [20, 20], [False, True]) == [False, False]
    # another seat used this draw meanwhile: the faces are not the next draw's
    moved = dataclasses.replace(seraph, draws=frozenset({0}))
    assert serve(setup, moved, sides) != app
    assert served(setup, moved, app, sides, [True] * 3) == [False] * 3
    assert served(setup, moved, serve(setup, moved, sides), sides, [True] * 3) == [True] * 3
    # a face is checked against its own die: a d6's face is no d20's
    assert served(setup, seraph, [serve(setup, seraph, [6])[0]], [6], [1]) == [True]
