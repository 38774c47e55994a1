"""A player's app roll stands (decision 0049): no sequence of commands a player can send
(take back, Esc, a form opened again, a new process, another seat of the same key, a
proposal withdrawn, lapsed or refused) gives a second app roll for the same declaration;
only the GM's `reroll NAME` moves the dice on.

docs/guide/players.md: "once the app has rolled for a player, the roll stands ... only the GM takes back
(undo) or rerolls". The fight is the shipped Seraph vs Sphinx save (Brand X, segment 19,
Seraph idle), copied, so every player action here is `punch` at Sphinx.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from rulesets.dice import KeyedDice
from tracker.engine import RuleRefusal, TrackerError
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import Session
from tests.helpers import cli
from tests.test_players import fresh, open_as

ROOT = Path(__file__).resolve().parent.parent
FIGHT = ROOT / "saves" / "seraph-vs-sphinx.toml"
PUNCH = "declare Seraph punch throwback=false target=Sphinx"
SERAPH = Role.player(["Seraph"])


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "fight.toml"
    shutil.copy(FIGHT, path)
    return path


def seat(path: Path, user: str = "bob", seed: int = 1) -> Session:
    """A player's seat as a new process (or a reconnect) makes it: its own load, its own
    dice source (a different seed each time, so a reroll would show)."""
    return open_as(path, user, SERAPH, seed=seed)


def app_faces(path: Path) -> list[int]:
    """The faces of the latest declaration or proposal (its Combat Roll first)."""
    event = [e for e in fresh(path).events if e.kind in ("declare", "propose", "maintain")][-1]
    return list(event.args["resolution"]["dice"] if isinstance(event.args["resolution"], dict) else event.args["resolution"].dice)


def declared(path: Path, session: Session) -> list[int]:
    """The player declares the punch with the app's dice (no faces typed): its faces."""
    outcome = session.execute(PUNCH)
    assert outcome.event is not None and outcome.event.args["dice"] == "app"
    return app_faces(path)


# ----------------------------------------------------------------- the command line
def test_play_declare_takeback_declare_gives_the_same_roll_every_time(fight: Path) -> None:
    """The issue's own sequence with `tracker play --player`: 4+8, 7+6, 2+10 before."""
    rolls = []
    for _ in range(3):
        code, out = cli("play", str(fight), "--player", "Seraph", stdin=f"{PUNCH}\ntakeback\n")
        assert code == 0, out
        rolls.append(app_faces(fight))
    assert rolls[0] == rolls[1] == rolls[2]
    code, out = cli("play", str(fight), "--player", "Seraph", stdin=f"{PUNCH}\n")
    assert code == 0 and app_faces(fight) == rolls[0]


def test_every_way_back_serves_the_same_faces(fight: Path) -> None:
    bob = seat(fight, seed=1)
    first = declared(fight, bob)
    bob.execute("takeback")  # undoes the declaration (nothing happened since)
    assert declared(fight, seat(fight, seed=2)) == first  # a new process: the same
    seat(fight, seed=3).execute("undo")  # a player's own undo of their own declaration
    other_seat = seat(fight, seed=4)  # another seat of the same key
    assert other_seat.app_roll([10, 10], actor="Seraph") == first[:2]
    assert declared(fight, other_seat) == first
    assert fresh(fight).combatant("Seraph").draws == {0}


def test_the_next_declaration_that_stands_gets_new_dice(fight: Path) -> None:
    """Draw 0 is spent once its declaration stands; the next action rolls draw 1."""
    bob = seat(fight)
    first = declared(fight, bob)
    gm = open_as(fight, "alice")
    gm.execute("step 20")  # the punch is long done
    second = declared(fight, seat(fight, seed=9))
    enc = fresh(fight)
    assert enc.combatant("Seraph").draws == {0, 1}
    key = EncounterFile(fight).load().encounter.setup
    name, seq = enc.combatant("Seraph").identity
    assert second[:2] != first[:2] or second != first
    # The faces are the stream's: draw 1 of Seraph's, die by die.
    from tracker.play import player_dice

    stream = KeyedDice(player_dice.key_of(key), f"{name}\0{seq}\0{1}")
    assert second[:2] == [stream.face(0, 10), stream.face(1, 10)]


# ----------------------------------------------------------------- the GM's word
def test_only_the_gm_grants_a_new_roll(fight: Path) -> None:
    bob = seat(fight)
    first = declared(fight, bob)
    bob.execute("takeback")
    with pytest.raises(RuleRefusal) as refused:
        bob.execute("reroll Seraph")
    assert "GM" in str(refused.value) or "player" in refused.value.rule
    gm = open_as(fight, "alice")
    out = gm.execute("reroll Seraph")
    assert "Seraph" in out.lines[0] and "new" in out.lines[0]
    second = declared(fight, seat(fight, seed=7))
    assert fresh(fight).combatant("Seraph").draws == {0, 1}  # draw 0 set aside, draw 1 used
    assert second[:2] != first[:2] or second != first  # draw 1 is a different stream
    # The GM's undo of the grant (before anything used it) brings the old dice back.
    gm2 = open_as(fight, "alice")
    gm2.execute("undo")  # the declaration
    gm2.execute("undo")  # the reroll
    assert declared(fight, seat(fight, seed=8)) == first


def test_a_gm_undo_of_a_players_declaration_keeps_their_dice(fight: Path) -> None:
    """Undo by the GM takes the change back, not the roll: the same dice serve again
    (a reroll is its own word, `reroll NAME`)."""
    first = declared(fight, seat(fight))
    open_as(fight, "alice").execute("undo")
    assert declared(fight, seat(fight, seed=5)) == first


# ----------------------------------------------------------------- proposals
@pytest.mark.parametrize("close", ["takeback", "refuse", "lapse"])
def test_a_proposal_that_does_not_apply_frees_its_dice(fight: Path, close: str) -> None:
    gm = open_as(fight, "alice")
    gm.execute("setting player_declarations approval")
    bob = seat(fight)
    outcome = bob.execute(PUNCH)
    assert outcome.event is not None and outcome.event.kind == "propose" and outcome.event.args["draw"] == 0
    first = app_faces(fight)
    assert fresh(fight).combatant("Seraph").draws == {0}
    if close == "takeback":
        seat(fight, seed=2).execute("takeback")
    elif close == "refuse":
        open_as(fight, "alice").execute(f"refuse {outcome.event.seq} not now")
    else:
        open_as(fight, "alice").execute("step")
    assert fresh(fight).combatant("Seraph").draws == frozenset()
    again = seat(fight, seed=3).execute(PUNCH)
    assert again.event is not None and again.event.args["draw"] == 0
    assert app_faces(fight) == first


def test_an_approved_proposal_keeps_its_draw_and_the_next_is_new(fight: Path) -> None:
    gm = open_as(fight, "alice")
    gm.execute("setting player_declarations approval")
    proposal = seat(fight).execute(PUNCH).event
    assert proposal is not None
    open_as(fight, "alice").execute(f"approve {proposal.seq}")
    enc = fresh(fight)
    assert enc.combatant("Seraph").draws == {0}
    declare = [e for e in enc.effective_events() if e.kind == "approve"][-1]
    assert declare.args.get("target") == proposal.seq
    # Taken back by the GM's undo, the approval frees nothing: the proposal waits again.
    open_as(fight, "alice").execute("undo")
    assert fresh(fight).combatant("Seraph").draws == {0}


# ----------------------------------------------------------------- odd paths
def test_two_seats_rolling_at_once_cannot_both_use_one_draw(fight: Path) -> None:
    """Two seats of one key see draw 0; the first to commit uses it. The second's faces,
    claimed as the app's, are not the next draw's: they count as typed."""
    a, b = seat(fight, seed=1), seat(fight, seed=2)
    faces_a = a.app_roll([10, 10], actor="Seraph")
    faces_b = b.app_roll([10, 10], actor="Seraph")
    assert faces_a == faces_b
    assert a.declare("Seraph", "punch", ["Sphinx"], faces=[faces_a[0], faces_a[1]], params={"throwback": "false"}, app_rolled=[True, True]).event.args["dice"] == "app"  # type: ignore[union-attr]
    open_as(fight, "alice").execute("step 20")
    event = b.declare("Seraph", "punch", ["Sphinx"], faces=[faces_b[0], faces_b[1]], params={"throwback": "false"}, app_rolled=[True, True]).event
    assert event is not None and event.args["dice"] == "typed" and "draw" not in event.args


def test_a_rename_keeps_the_dice_and_a_newcomer_with_the_old_name_has_others(fight: Path) -> None:
    first = declared(fight, seat(fight))
    gm = open_as(fight, "alice")
    gm.execute("undo")
    gm.execute('rename Seraph "Seraph the Bold"')
    bob = seat(fight, seed=4)
    assert bob.app_roll([10, 10], actor="Seraph the Bold") == first[:2]
    gm.execute("add Seraph side=monsters")
    newcomer = fresh(fight).combatant("Seraph")
    from tracker.play import player_dice

    setup = fresh(fight).setup
    assert player_dice.serve(setup, newcomer, [10] * 8) != player_dice.serve(setup, fresh(fight).combatant("Seraph the Bold"), [10] * 8)


def test_a_draw_already_in_force_is_refused_by_the_engine(fight: Path) -> None:
    """A hand-made event reusing a draw (a second use of the same dice) never applies."""
    first = seat(fight).execute(PUNCH).event
    assert first is not None
    enc = fresh(fight)
    enc.apply(type(first)("advance", {"to": 40}))
    args: dict[str, Any] = dict(first.args)
    with pytest.raises(TrackerError, match="draw 0 are in use"):
        enc.apply(type(first)("declare", args))


# ----------------------------------------------------------------- the key
def test_each_new_file_has_its_own_secret_key_and_no_output_shows_it(tmp_path: Path) -> None:
    code, _ = cli("new", str(tmp_path / "a.toml"), "--ruleset", "brandx")
    assert code == 0
    code, _ = cli("new", str(tmp_path / "b.toml"), "--ruleset", "brandx")
    key_a = EncounterFile(tmp_path / "a.toml").load().encounter.setup.dice_key
    key_b = EncounterFile(tmp_path / "b.toml").load().encounter.setup.dice_key
    assert len(key_a) == 32 and key_a != key_b
    for argv in (("show", "--json"), ("show",), ("export", "--format", "md"), ("export", "--format", "html")):
        code, out = cli(argv[0], str(tmp_path / "a.toml"), *argv[1:])
        assert code == 0 and key_a not in out, argv


@pytest.mark.parametrize("value", ["xyz", "00", "A" * 32, 5])
def test_a_bad_dice_key_is_refused_by_name(tmp_path: Path, value: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "f.toml"
    text = FIGHT.read_text().replace('ruleset = "brandx"', f'ruleset = "brandx"\ndice_key = {value!r}'.replace("'", '"'), 1)
    path.write_text(text)
    code, _ = cli("check", str(path))
    said = capsys.readouterr().err
    assert code == 1 and f"{path}: dice_key: expected a key of 32 to 128 hex digits" in said


def test_a_save_with_draws_and_rerolls_loads_as_it_was(fight: Path) -> None:
    seat(fight).execute(PUNCH)
    gm = open_as(fight, "alice")
    gm.execute("step 20")
    gm.execute("reroll Seraph")
    live = gm.encounter.combatant("Seraph").draws
    assert live == {0, 1}
    assert fresh(fight).combatant("Seraph").draws == live
    code, out = cli("check", str(fight))
    assert code == 0, out
