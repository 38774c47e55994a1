"""Players at the table (issue 14): a role decided by whoever starts the session, one
guard every change passes, proposals the GM approves or refuses, take-backs, and every
change naming who made it. The fight is the shipped Seraph vs Sphinx save, at segment 19
with Seraph idle and Sphinx's punch in progress."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesets.dice import RandomDice
from tracker.reading import report
from tracker.engine import RuleRefusal, TrackerError
from tracker.persistence import codec
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role, visible_to, who
from tracker.play.session import Session
from tracker.reading.wording import describe, history
from tests.helpers import cli

ROOT = Path(__file__).resolve().parent.parent
FIGHT = ROOT / "saves" / "seraph-vs-sphinx.toml"
SERAPH = Role.player(["Seraph"])


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "fight.toml"
    shutil.copy(FIGHT, path)
    return path


def open_as(path: Path, user: str, role: Role | None = None, seed: int = 1) -> Session:
    """A session as a separate process would have it: its own load of the file."""
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(seed), store, user, role)


def fresh(path: Path) -> Any:
    return EncounterFile(path).load().encounter


def sphinx_state(enc: Any) -> tuple[Any, ...]:
    s = enc.combatant("Sphinx")
    return (dict(s.resources), [(a.template, a.start, a.completes) for a in s.in_progress], dict(s.conditions), s.hidden, s.side)


# ----------------------------------------------------------------- declaring
def test_a_player_declares_for_their_own_combatant_with_typed_dice(fight: Path) -> None:
    bob = open_as(fight, "bob", SERAPH)
    outcome = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    assert outcome.event is not None and outcome.event.kind == "declare"
    assert outcome.event.by == "player:bob"
    enc = fresh(fight)
    seraph = enc.combatant("Seraph")
    assert [a.template for a in seraph.in_progress] == ["punch"]
    assert seraph.in_progress[0].resolution.dice[:2] == (5, 4)
    assert enc.events[-1].by == "player:bob"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("declare Sphinx punch target=Seraph faces=5,4,10,10", "not your combatant"),
        ("abort Sphinx", "not your combatant"),
        ("maintain Sphinx", "not your combatant"),
        ("damage Sphinx 3", "damage"),
        ("heal Seraph 3", "damage"),
        ("next", "moving time"),
        ("step 3", "moving time"),
        ("undo", "the latest change is the GM's"),
        ("add Nyx", "add"),
        ("set Seraph vp 43", "set"),
        ("note the Sphinx is tired", "note"),
        ("hide Sphinx", "hide"),
        ("remove Sphinx", "remove"),
        ("rename Sphinx Cat", "rename"),
        ("condition Sphinx stunned 3", "condition"),
        ("keep Seraph", "keep"),
        ("library", "library"),
        ("setting player_declarations at_once", "setting"),
        ("approve 1", "approving a proposal"),
        ("refuse 1 no", "refusing a proposal"),
        ("declare Seraph punch target=Sphinx secret=true faces=5,4,10,10", "secret rolls are the GM's"),
    ],
)
def test_a_player_is_refused_everything_else_and_nothing_changes(fight: Path, line: str, words: str) -> None:
    before = fight.read_bytes()
    bob = open_as(fight, "bob", SERAPH)
    with pytest.raises(RuleRefusal) as caught:
        bob.execute(line)
    assert words in str(caught.value)
    assert caught.value.rule == "player"
    assert fight.read_bytes() == before
    assert len(bob.encounter.events) == 10


def test_a_player_may_not_undo_the_gms_change_even_after_declaring(fight: Path) -> None:
    alice, bob = open_as(fight, "alice"), open_as(fight, "bob", SERAPH)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    alice.execute("damage Sphinx 2")
    with pytest.raises(RuleRefusal, match=r"the latest change is the GM's \(change \d+\)"):
        bob.execute("undo")
    with pytest.raises(RuleRefusal, match="the fight has changed since"):
        bob.execute("takeback")
    assert fresh(fight).combatant("Sphinx").resources["vp"] == 26
    alice.execute("undo")
    with pytest.raises(RuleRefusal, match="redo: a player takes back only"):
        open_as(fight, "bob", SERAPH).execute("redo")


def test_a_viewer_role_refuses_every_change_and_the_file_refuses_too(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = fight.read_bytes()
    carol = open_as(fight, "carol", Role.viewer())
    for line in ("declare Seraph punch target=Sphinx faces=5,4,10,10", "next", "note hi", "proposals", "library"):
        with pytest.raises(RuleRefusal, match="read-only") as caught:
            carol.execute(line)
        assert caught.value.rule == "viewer"
    # The second wall: even a GM's session writes nothing with TRACKER_READ_ONLY set.
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    with pytest.raises(TrackerError, match="read-only"):
        open_as(fight, "alice").execute("note hi")
    assert fight.read_bytes() == before


def test_live_passes_the_role_and_refuses_a_viewer_through_it(fight: Path) -> None:
    from tracker.play.live import Live

    live = Live.open(fight, user="bob", role=SERAPH)
    assert live.viewer and live.role == SERAPH  # shown as a viewer sees it
    live.run(lambda s: s.declare("Seraph", "punch", ["Sphinx"], faces="5,4,10,10"))
    with pytest.raises(RuleRefusal, match="not your combatant"):
        live.run(lambda s: s.declare("Sphinx", "punch", ["Seraph"], faces="5,4,10,10"))
    live.store.flush()
    viewer = Live.open(fight, viewer=True, user="carol")
    assert viewer.role.is_viewer
    with pytest.raises(RuleRefusal, match="read-only"):
        viewer.run(lambda s: s.note("hi"))
    gm_seated_as_viewer = Live.open(fight, user="alice")
    gm_seated_as_viewer.seat(Role.viewer())  # the seat decides, once: a viewer's app
    assert gm_seated_as_viewer.viewer
    with pytest.raises(RuleRefusal, match="read-only"):
        gm_seated_as_viewer.run(lambda s: s.note("hi"))
    # `tracker serve` opens one viewer's Live and seats the GM on it.
    viewer.seat(Role.gm())
    assert not viewer.viewer
    viewer.run(lambda s: s.note("the GM's"))
    viewer.store.flush()
    # What the screens show is no key to more: a player's role is the seat's, whatever the flag.
    live.viewer = False
    with pytest.raises(RuleRefusal, match="moving time"):
        live.run(lambda s: s.step())


# ----------------------------------------------------------------- approval
def approval(fight: Path) -> tuple[Session, Session]:
    alice = open_as(fight, "alice")
    alice.execute("setting player_declarations approval")
    return alice, open_as(fight, "bob", SERAPH)


def test_approval_mode_records_a_proposal_that_changes_nothing(fight: Path) -> None:
    alice, bob = approval(fight)
    before = fresh(fight)
    outcome = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    assert outcome.event is not None and outcome.event.kind == "propose"
    assert "waiting for the GM" in outcome.lines[0]
    enc = fresh(fight)
    assert enc.combatant("Seraph").in_progress == [] and enc.now == before.now
    assert enc.combatant("Seraph").resources == before.combatant("Seraph").resources
    (proposal,) = enc.pending()
    assert (proposal.actor, proposal.action, proposal.args["template"]) == ("Seraph", "declare", "punch")
    assert enc.events[proposal.seq - 1].args["faces"] == [5, 4, 10, 10]
    alice_view = open_as(fight, "alice")
    assert [p.seq for p in alice_view.proposals()] == [proposal.seq]
    assert [p.seq for p in open_as(fight, "dan", Role.player(["Sphinx"])).proposals()] == []
    assert "(player bob)" in alice_view.execute("proposals").lines[0]


def test_the_gm_approves_and_the_viewer_sees_only_the_approved_action(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute(f"approve {seq}")
    enc = fresh(fight)
    (action,) = enc.combatant("Seraph").in_progress
    assert action.resolution.dice[:2] == (5, 4) and enc.pending() == []
    viewer = [e.text for e in enc.log if visible_to(Role.viewer(), e)]
    assert any("Seraph initiates active punch" in t for t in viewer)
    assert not any("proposal" in t for t in viewer)
    assert any("proposal" in e.text for e in enc.log if visible_to(SERAPH, e))
    with pytest.raises(RuleRefusal, match="already approved"):
        alice.execute(f"approve {seq}")


def test_the_gm_approves_edited_keeping_the_players_dice(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    plain = fresh(fight).pending()[0].args["resolution"]
    alice.execute(f"approve {seq} pool=3")
    (action,) = fresh(fight).combatant("Seraph").in_progress
    assert action.resolution.dice[:2] == (5, 4)
    assert action.resolution.summary != plain.summary and "pool 4" in action.resolution.summary


def test_the_gm_refuses_and_the_player_sees_why(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute(f"refuse {seq} the Sphinx is out of reach")
    enc = open_as(fight, "bob", SERAPH).encounter
    assert enc.combatant("Seraph").in_progress == []
    seen = [e.text for e in enc.log if visible_to(SERAPH, e)]
    assert any("refuses" in t and "the Sphinx is out of reach" in t for t in seen)
    assert not any("out of reach" in e.text for e in enc.log if visible_to(Role.viewer(), e))
    assert not any("out of reach" in e.text for e in enc.log if visible_to(Role.player(["Sphinx"]), e))


def test_a_proposal_lapses_when_time_moves(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute("step")
    with pytest.raises(RuleRefusal, match="already lapsed"):
        alice.execute(f"approve {seq}")
    assert fresh(fight).combatant("Seraph").in_progress == []


def test_undo_of_an_approval_puts_the_proposal_back_in_the_queue(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute(f"approve {seq}")
    alice.execute("undo")
    enc = fresh(fight)
    assert [p.seq for p in enc.pending()] == [seq] and enc.combatant("Seraph").in_progress == []


# ----------------------------------------------------------------- take back
def test_a_player_takes_back_their_declaration_before_time_moves(fight: Path) -> None:
    bob = open_as(fight, "bob", SERAPH)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    outcome = bob.execute("takeback")
    assert outcome.lines == ["undo: Seraph declares punch against Sphinx at segment 19"]
    assert fresh(fight).combatant("Seraph").in_progress == []


def test_take_back_is_refused_once_time_has_moved(fight: Path) -> None:
    alice, bob = open_as(fight, "alice"), open_as(fight, "bob", SERAPH)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    alice.execute("step")
    for line in ("takeback", "undo"):
        with pytest.raises(RuleRefusal):
            bob.execute(line)
    assert [a.template for a in fresh(fight).combatant("Seraph").in_progress] == ["punch"]
    alice.execute("undo")  # the GM can undo a player's change like any other
    said = alice.execute("undo").lines
    assert said == ["undo: Seraph declares punch against Sphinx at segment 19 (player bob)"]
    assert fresh(fight).combatant("Seraph").in_progress == []


def test_a_player_withdraws_a_pending_proposal_even_after_others(fight: Path) -> None:
    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute("note the Sphinx roars")
    bob.execute("takeback")
    enc = fresh(fight)
    assert enc.pending() == [] and enc.proposals[seq].status == "withdrawn"
    with pytest.raises(RuleRefusal):
        alice.execute(f"approve {seq}")


def test_a_player_may_not_withdraw_anothers_proposal(fight: Path) -> None:
    alice, bob = approval(fight)
    alice.execute("add Nyx")
    seq = open_as(fight, "dan", Role.player(["Nyx"])).execute("declare Nyx punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    bob = open_as(fight, "bob", SERAPH)
    with pytest.raises(RuleRefusal, match="nothing of yours"):
        bob.execute("takeback")
    from tracker.engine import Event

    with pytest.raises(RuleRefusal, match="not yours"):
        bob.submit(lambda enc: Event("withdraw", {"target": seq}), kind="withdraw")


# ----------------------------------------------------------------- who did what
def test_log_describe_and_history_name_who(fight: Path) -> None:
    alice, bob = open_as(fight, "alice"), open_as(fight, "bob", SERAPH)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    alice.execute("damage Sphinx 2")
    enc = fresh(fight)
    declared, damaged = enc.events[-2], enc.events[-1]
    assert describe(declared) == "Seraph declares punch against Sphinx (player bob)"
    assert describe(damaged) == "Sphinx takes 2 vp (GM alice)"
    assert [h.by for h in history(enc)[:2]] == ["GM alice", "player bob"]
    assert enc.author(enc.log[-1]) == "alice"
    text = report.to_text(enc, log_limit=5)
    assert "(player bob)" in text and "(GM alice)" in text
    assert who("player:bob") == "player bob" and who("") == "GM"
    assert {e["by"] for e in report.to_json(enc)["log"][-3:]} == {"player:bob", "alice"}


def test_an_account_named_like_a_player_tag_stays_a_gm(fight: Path) -> None:
    sneaky = open_as(fight, "player:bob")
    event = sneaky.execute("note hi").event
    assert event is not None and who(event.by) == "GM player:bob"


def test_save_and_load_keep_proposals_and_by(fight: Path) -> None:
    alice, bob = approval(fight)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    bob.execute("takeback")
    bob.execute("declare Seraph strike target=Sphinx faces=3,3,10,10")
    seq = len(fresh(fight).events)
    alice.execute(f"approve {seq} pool=2")
    enc = fresh(fight)
    text = codec.dumps(enc, 99)
    again = codec.loads(text, "again").encounter
    assert [(e.kind, e.by) for e in again.events] == [(e.kind, e.by) for e in enc.events]
    assert {s: p.status for s, p in again.proposals.items()} == {s: p.status for s, p in enc.proposals.items()}
    assert codec.dumps(again, 99) == text
    assert [e.kind for e in enc.events[-5:]] == ["setting", "propose", "withdraw", "propose", "approve"]


def test_the_setting_is_validated_like_other_settings(fight: Path, saves: Path) -> None:
    with pytest.raises(TrackerError, match="player_declarations: expected one of at_once, approval"):
        open_as(fight, "alice").execute("setting player_declarations later")
    code, _ = cli("new", "a.toml", "--ruleset", "brandx", "--set", "player_declarations=approval")
    assert code == 0
    enc = EncounterFile(saves / "a.toml").load().encounter
    assert enc.table["player_declarations"] == "approval"
    code, _ = cli("new", "b.toml", "--ruleset", "brandx", "--set", "player_declarations=sometimes")
    assert code == 1


# ----------------------------------------------------------------- CLI
def test_play_as_a_player(fight: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli("play", str(fight), "--player", "seraph", stdin="declare Seraph punch target=Sphinx faces=5,4,10,10\n")
    assert code == 0 and "Seraph initiates active punch" in out
    assert fresh(fight).events[-1].by.startswith("player:")
    before = fight.read_bytes()
    code, _ = cli("play", str(fight), "--player", "Seraph", stdin="damage Sphinx 5\n")
    assert code == 1 and "rule: player" in capsys.readouterr().err
    code, _ = cli("play", str(fight), "--player", "Nobody", stdin="")
    assert code == 1 and "--player: no combatant named 'Nobody'" in capsys.readouterr().err
    assert fight.read_bytes() == before


def test_open_passes_the_players_role_to_the_app(fight: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tracker.ui.app as app

    seen: dict[str, Any] = {}
    monkeypatch.setattr(app, "run", lambda **kw: seen.update(kw) or 0)
    assert cli("open", str(fight), "--player", "seraph,Sphinx")[0] == 0
    assert seen["role"].is_player and seen["role"].combatants == ("Seraph", "Sphinx") and not seen["viewer"]
    assert cli("open", str(fight), "--player", "Seraph", "--viewer")[0] == 1
    assert "choose one" in capsys.readouterr().err


# ----------------------------------------------------------------- property
PLAYER_LINES = st.sampled_from(
    [
        "declare Seraph punch target=Sphinx",
        "declare Seraph strike target=Sphinx",
        "declare Seraph punch target=Sphinx mode=passive",
        "declare Sphinx punch target=Seraph",
        "maintain Seraph",
        "maintain Sphinx",
        "abort Seraph",
        "abort Sphinx",
        "damage Sphinx 3",
        "damage Seraph 3",
        "heal Sphinx 3",
        "set Sphinx vp 1",
        "condition Sphinx stunned 2",
        "next",
        "step 5",
        "undo",
        "redo",
        "takeback",
        "note hello",
        "hide Sphinx",
        "remove Sphinx",
        "add Nyx",
        "approve 11",
        "refuse 11 no",
        "setting player_declarations at_once",
        "keep Sphinx",
        "proposals",
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(PLAYER_LINES, max_size=12), approve=st.booleans(), seed=st.integers(0, 1000))
def test_no_sequence_of_player_commands_changes_another_combatant_or_the_clock(lines: list[str], approve: bool, seed: int) -> None:
    loaded = codec.loads(FIGHT.read_text(encoding="utf-8"), "fight")
    gm = Session(loaded.encounter, loaded.ruleset, RandomDice(seed))
    if approve:
        gm.execute("setting player_declarations approval")
    enc = gm.encounter
    gm_events = len(enc.events)
    now, sphinx = enc.now, sphinx_state(enc)
    player = Session(enc, loaded.ruleset, RandomDice(seed), user="bob", role=SERAPH)
    for line in lines:
        try:
            player.execute(line)
        except TrackerError:
            pass
        assert enc.now == now
        assert sphinx_state(enc) == sphinx
        assert set(enc.combatants) == {"Seraph", "Sphinx"}
        assert all(enc.events[i].seq for i in range(gm_events))
        assert [e.seq for e in enc.effective_events()][:gm_events] == list(range(1, gm_events + 1))
        assert all(e.by == "player:bob" for e in enc.events[gm_events:])


def test_an_abort_waits_for_approval_too(fight: Path) -> None:
    bob = open_as(fight, "bob", SERAPH)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    alice = open_as(fight, "alice")
    alice.execute("setting player_declarations approval")
    seq = open_as(fight, "bob", SERAPH).execute("abort Seraph").event.seq  # type: ignore[union-attr]
    assert [a.template for a in fresh(fight).combatant("Seraph").in_progress] == ["punch"]
    alice.execute(f"approve {seq}")
    assert fresh(fight).combatant("Seraph").in_progress == []
    alice.execute("undo")  # the proposal waits again
    with pytest.raises(TrackerError, match="nothing to edit"):
        alice.execute(f"approve {seq} pt=3")


def test_a_proposal_the_rules_refuse_is_not_recorded(fight: Path) -> None:
    alice, bob = approval(fight)
    bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10")
    alice.execute(f"approve {len(fresh(fight).events)}")
    before = fight.read_bytes()
    with pytest.raises(RuleRefusal, match="one initiation per segment|one active action"):
        open_as(fight, "bob", SERAPH).execute("declare Seraph strike target=Sphinx faces=5,4,10,10")
    assert fight.read_bytes() == before


def test_show_as_a_player(fight: Path) -> None:
    alice, bob = approval(fight)
    alice.execute("add Nyx hidden=true")
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    alice.execute(f"refuse {seq} not yet")
    code, mine = cli("show", str(fight), "--player", "Seraph", "--log", "50")
    assert code == 0 and "not yet" in mine and "Nyx" not in mine
    code, theirs = cli("show", str(fight), "--viewer", "--log", "50")
    assert code == 0 and "not yet" not in theirs
    code, nyx = cli("show", str(fight), "--player", "Nyx", "--json")
    assert [c["name"] for c in json.loads(nyx)["combatants"]] == ["Seraph", "Sphinx", "Nyx"]


def test_a_player_is_never_told_a_hidden_combatants_name(fight: Path) -> None:
    alice = open_as(fight, "alice")
    alice.execute("add Ghost hidden=true")
    bob = open_as(fight, "bob", SERAPH)
    for line in ("declare Seraph punch target=Nobody faces=5,4,10,10", "declare Seraph punch target=Ghost faces=5,4,10,10", "abort Ghost", "declare Nobody punch"):
        with pytest.raises(TrackerError) as refused:
            bob.execute(line)
        said = str(refused.value)
        assert "no combatant named" in said or "not your combatant" in said, (line, said)
        assert "Ghost" not in said.partition("(combatants:")[2], (line, said)  # the names listed
    assert "no combatant named 'Ghost'" in str(pytest.raises(TrackerError, bob.execute, "declare Seraph punch target=Ghost faces=5,4,10,10").value)
    assert fresh(fight).combatant("Seraph").in_progress == []
    with pytest.raises(TrackerError, match="Ghost"):  # the GM is told everything
        alice.execute("declare Seraph punch target=Nobody faces=5,4,10,10")
