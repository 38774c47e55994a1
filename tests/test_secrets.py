"""The shared table's secrets (issue 19, items 1-3): a player holds their combatants by
identity, identity is never an environment variable, and nothing hidden (a hidden
combatant's name, a secret roll, an enemy's figures the table withholds) reaches a
player or a viewer through any output: show, JSON, export, refusals, odds, history.

The fight is the shipped Seraph vs Sphinx save (Brand X, segment 19: Seraph idle,
Sphinx's punch in progress until 30), with a hidden Lurker added by the GM.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulesets.dice import RandomDice
from tracker.reading import report
from tracker.engine import RuleRefusal, TrackerError
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.serve.seat import player_role
from tracker.play.session import Session
from tracker.reading.viewing import sight
from tests.helpers import cli
from tests.test_players import fresh, open_as

ROOT = Path(__file__).resolve().parent.parent
FIGHT = ROOT / "saves" / "seraph-vs-sphinx.toml"


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "fight.toml"
    shutil.copy(FIGHT, path)
    return path


def seraph_of(path: Path, user: str = "bob") -> Session:
    """A player's session as `--player Seraph` or a key's `combatant=Seraph` makes it."""
    loaded = EncounterFile(path).load()
    role, missing = Role.of(loaded.encounter, ["Seraph"])
    assert role is not None and not missing
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), EncounterFile(path), user, role)


def rename_and_reuse(path: Path) -> Session:
    """The GM renames Seraph and gives the old name to a hidden monster."""
    gm = open_as(path, "alice")
    gm.execute('rename Seraph "Seraph the Bold"')
    gm.execute("add Seraph hidden=true side=monsters")
    return gm


# ------------------------------------------------------------ ownership by identity
def test_a_rename_keeps_the_players_combatant_and_the_reused_name_is_not_theirs(fight: Path) -> None:
    bob = seraph_of(fight)
    rename_and_reuse(fight)
    # The open session folds the GM's changes in with its next command.
    with pytest.raises(TrackerError) as refused:
        bob.execute("declare Seraph punch throwback=false target=Sphinx faces=5,4")
    text = str(refused.value)
    assert "no combatant named 'Seraph'" in text and "combatants: Seraph the Bold, Sphinx)" in text
    assert bob.role.combatants == ("Seraph the Bold",)
    assert not bob.role.owns("Seraph")
    outcome = bob.execute('declare "Seraph the Bold" punch throwback=false target=Sphinx faces=5,4')
    assert outcome.event is not None and outcome.event.by == "player:bob"
    monster = fresh(fight).combatant("Seraph")
    assert monster.hidden and not monster.in_progress


def test_a_new_session_naming_the_old_name_finds_the_renamed_combatant(fight: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rename_and_reuse(fight)
    enc = fresh(fight)
    role, missing = Role.of(enc, ["seraph"])
    assert role is not None and role.combatants == ("Seraph the Bold",) and not missing
    # The CLI's --player and a served key's combatant= resolve the same way.
    code, out = cli("show", str(fight), "--player", "Seraph", "--json")
    data = json.loads(out)
    assert code == 0 and [c["name"] for c in data["combatants"]] == ["Seraph the Bold", "Sphinx"]
    live = type("L", (), {"encounter": enc})()
    seat_role = player_role(live, ("Seraph",))
    assert seat_role is not None and seat_role.combatants == ("Seraph the Bold",)


def test_a_name_whose_bearer_left_names_nobody(fight: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gm = open_as(fight, "alice")
    gm.execute("remove Seraph")
    gm.execute("add Seraph hidden=true")
    assert Role.of(fresh(fight), ["Seraph"]) == (None, ["Seraph"])
    code, _ = cli("show", str(fight), "--player", "Seraph")
    err = capsys.readouterr().err
    assert code == 1 and "--player: no combatant named 'Seraph' (combatants: Sphinx)" in err


def test_undoing_the_rename_gives_the_name_back_and_the_role_follows(fight: Path) -> None:
    bob = seraph_of(fight)
    gm = open_as(fight, "alice")
    gm.execute('rename Seraph "Seraph the Bold"')
    bob.encounter = fresh(fight)
    assert bob.role.combatants == ("Seraph the Bold",)
    gm.execute("undo")
    bob.encounter = fresh(fight)
    assert bob.role.combatants == ("Seraph",)


# ------------------------------------------------------------ identity leftovers
def test_an_environment_variable_cannot_make_a_local_player_someone_else(fight: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`TRACKER_USER=dan tracker play F --player Ann` cannot undo Dan's declaration."""
    gm = open_as(fight, "alice")
    gm.execute("add Nyx")
    gm.execute("add Ann")
    dan = Session(fresh(fight), EncounterFile(fight).load().ruleset, RandomDice(1), EncounterFile(fight), "dan", Role.player(["Ann"]))
    dan.execute("declare Ann punch throwback=false target=Sphinx faces=5,4")
    before = fight.read_bytes()
    for name in ("TRACKER_USER", "USER", "LOGNAME"):
        monkeypatch.setenv(name, "dan")
    code, _ = cli("play", str(fight), "--player", "Ann", stdin="takeback\nundo\n")
    err = capsys.readouterr().err
    assert code == 1 and "the fight has changed since" not in err and "nothing of yours to take back" in err
    assert fight.read_bytes() == before
    assert fresh(fight).events[-1].by == "player:dan"


# ------------------------------------------------------------ nothing hidden reaches a player
@pytest.fixture
def lurking(fight: Path) -> Path:
    gm = open_as(fight, "alice")
    gm.execute("add Lurker hidden=true side=monsters")
    gm.execute("declare Lurker punch target=Seraph secret=true")
    return fight


def test_the_odds_and_a_declaration_against_a_hidden_combatant_are_refused_without_names(lurking: Path) -> None:
    """The declare form's chance line (Session.request) listed every name and gave odds
    against a hidden one ("Lurker's Defense +0")."""
    bob = seraph_of(lurking)
    with pytest.raises(TrackerError) as refused:
        bob.chance("Seraph", "punch", ["Lurker"])
    assert str(refused.value) == "no combatant named 'Lurker' (combatants: Seraph, Sphinx)"
    with pytest.raises(TrackerError) as refused:
        bob.chance("Seraph", "punch", ["Nobody"])
    assert "Lurker" not in str(refused.value)
    with pytest.raises(TrackerError) as refused:
        bob.execute("declare Seraph punch throwback=false target=Lurker faces=5,4")
    assert str(refused.value) == "no combatant named 'Lurker' (combatants: Seraph, Sphinx)"
    assert not [e for e in fresh(lurking).log if e.kind == "declare" and e.about[:1] == ("Seraph",) and "Lurker" in e.text]


@pytest.mark.parametrize("line", ["undo", "takeback"])
def test_refusals_do_not_quote_the_gms_secret_declaration(lurking: Path, line: str) -> None:
    bob = seraph_of(lurking)
    if line == "takeback":
        gm = open_as(lurking, "alice")
        bob.execute("declare Seraph punch throwback=false target=Sphinx faces=5,4")
        gm.execute("damage Lurker 1")  # the latest change: about the hidden Lurker
    with pytest.raises(RuleRefusal) as refused:
        bob.execute(line)
    assert "Lurker" not in str(refused.value) and "secret" not in str(refused.value)


@pytest.mark.parametrize("reader", [["--viewer"], ["--player", "Seraph"]])
@pytest.mark.parametrize("form", [[], ["--json"]])
def test_show_lists_no_hidden_action_under_upcoming(lurking: Path, reader: list[str], form: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli("show", str(lurking), *reader, *form)
    assert code == 0 and "Lurker" not in out
    assert "Sphinx's punch completes" in out  # what may be seen still is
    code, out = cli("show", str(lurking), *form)
    assert "Lurker's punch completes" in out  # the GM sees it


def test_export_for_viewers_names_no_hidden_combatant(lurking: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("md", "html"):
        code, out = cli("export", str(lurking), "--viewer", "--format", fmt)
        assert code == 0 and "Lurker" not in out and "Sphinx" in out


# ------------------------------------------------------------ figures withheld from viewers
@pytest.fixture
def labelled(fight: Path) -> Path:
    gm = open_as(fight, "alice")
    gm.execute("side Seraph party")
    gm.execute("setting viewer_resources label")
    return fight


def test_label_mode_withholds_the_hit_from_the_log_and_the_actions(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The log said "hit for 6 VP" beside "figures withheld"."""
    for form in ([], ["--json"]):
        code, out = cli("show", str(labelled), "--viewer", "--log", "100", *form)
        assert code == 0 and "figures withheld" in out
        assert "hit for 6 VP" not in out and "Sphinx's Defense" not in out and "vp 34 -> 28" not in out
        # Seraph is on the party's side: the Sphinx's blow on Seraph is told in full.
        assert "hit for 7 VP" in out
    code, out = cli("show", str(labelled), "--log", "100")
    assert "hit for 6 VP" in out  # the GM reads everything


def test_export_for_viewers_shows_the_label_show_shows(labelled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`export --viewer` printed "-" where `show --viewer` printed "Healthy"."""
    _, shown = cli("show", str(labelled), "--viewer")
    assert "Sphinx: acting; Healthy" in shown
    code, out = cli("export", str(labelled), "--viewer", "--format", "md")
    assert code == 0 and "| Sphinx | acting | Healthy | - |" in out
    assert "hit for 6 VP" not in out


def test_the_sight_is_what_every_reader_is_given(lurking: Path) -> None:
    enc = fresh(lurking)
    assert sight(enc, Role.gm()).names() == ["Seraph", "Sphinx", "Lurker"]
    assert sight(enc, Role.viewer()).names() == ["Seraph", "Sphinx"]
    assert sight(enc, Role.player(["Seraph"])).names() == ["Seraph", "Sphinx"]
    data: dict[str, Any] = report.to_json(enc, role=Role.player(["Seraph"]))
    assert "Lurker" not in json.dumps(data)


# ------------------------------------------------------------ every output, any fight
HIDDEN = ("Wraith", "Lurker")
NAMES = ("Seraph", "Sphinx", *HIDDEN)
_ops = st.one_of(
    st.tuples(st.just("declare"), st.sampled_from(NAMES), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("next")),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(1, 9)),
    st.tuples(st.just("setting"), st.sampled_from(("exact", "label", "hidden"))),
    st.tuples(st.just("player"), st.sampled_from(("Sphinx", "Wraith"))),
)


def outputs(enc: Any, ruleset: Any, reader: Role) -> list[str]:
    """Everything a reader may be shown: show (text, JSON), export (Markdown, HTML), the
    log and history as the app renders them, the : line's names, refusals and odds."""
    from types import SimpleNamespace

    from tracker.reading import export
    from tracker.ui.screens.history import history_rows
    from tracker.ui.widgets.log import entry_text

    texts = [
        report.to_text(enc, role=reader, viewer=reader.is_viewer, log_limit=10_000),
        json.dumps(report.to_json(enc, role=reader, viewer=reader.is_viewer), ensure_ascii=False),
        export.render(enc, "md", True) if reader.is_viewer else "",
        export.render(enc, "html", True) if reader.is_viewer else "",
    ]
    view = sight(enc, reader)
    texts += [entry_text(e, enc, reader) for e in view.log()]
    live = SimpleNamespace(encounter=enc, viewer=True, seen_as=reader)
    texts += [str(row) for row in history_rows(live)]  # type: ignore[arg-type]
    texts += view.names()
    if reader.is_player:
        session = Session(enc, ruleset, RandomDice(3), None, "bob", reader)

        def said(attempt: Any) -> str:
            try:
                return str(attempt())
            except TrackerError as exc:
                return str(exc)

        texts += [said(lambda: session.execute("undo")), said(lambda: session.execute("takeback"))]
        # A hidden name typed by the player is answered exactly as a name nobody has.
        for attempt in ("declare Seraph punch target={}", "declare {} punch target=Seraph", "damage {} 2", "hide {}", "maintain {}"):
            hidden = said(lambda: session.execute(attempt.format("Wraith")))
            assert hidden.replace("Wraith", "Nobody") == said(lambda: session.execute(attempt.format("Nobody")))
        hidden = said(lambda: session.chance("Seraph", "punch", ["Wraith"]))
        assert hidden.replace("Wraith", "Nobody") == said(lambda: session.chance("Seraph", "punch", ["Nobody"]))
    return texts


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_ops, max_size=12), st.integers(0, 1000))
@example([("declare", "Seraph", "Sphinx", True), ("declare", "Wraith", "Seraph", False), ("next",)], 1)
@example([("declare", "Seraph", "Wraith", False), ("setting", "label"), ("declare", "Lurker", "Seraph", True), ("next",)], 2)
def test_no_output_for_a_player_or_viewer_names_a_hidden_combatant_or_a_secret_roll(ops: list[tuple[Any, ...]], seed: int) -> None:
    loaded = EncounterFile(FIGHT).load()
    enc, ruleset = loaded.encounter, loaded.ruleset
    gm = Session(enc, ruleset, RandomDice(seed), None, "alice")
    gm.execute("side Seraph party")
    for name in HIDDEN:
        gm.execute(f"add {name} hidden=true side=monsters")
    for op in ops:
        try:
            if op[0] == "declare":
                gm.execute(f"declare {op[1]} punch target={op[2]}" + (" secret=true" if op[3] else ""))
            elif op[0] == "next":
                gm.execute("next")
            elif op[0] == "damage":
                gm.execute(f"damage {op[1]} {op[2]}")
            elif op[0] == "setting":
                gm.execute(f"setting viewer_resources {op[1]}")
            else:  # a player's declaration goes through the player's own session
                Session(enc, ruleset, RandomDice(seed), None, "bob", Role.player(["Seraph"])).execute(f"declare Seraph punch target={op[1]}")
        except TrackerError:
            pass
    secrets = {a.resolution.summary for a in enc.actions if a.secret and a.resolution.summary}
    secrets -= {a.resolution.summary for a in enc.actions if not a.secret}  # the same words said openly
    for reader in (Role.viewer(), Role.player(["Seraph"])):
        for text in outputs(enc, ruleset, reader):
            for name in HIDDEN:
                assert name not in text, (reader.label(), text)
            for summary in secrets:
                assert summary not in text, (reader.label(), text)
            assert "secret roll for" not in text


# ------------------------------------------------------------ dice a player cannot game
def test_an_app_roll_stands_for_a_player_but_not_for_the_gm(fight: Path) -> None:
    """Backing out of the app's roll and asking again gives the same faces (ctrl+b then
    Enter rolled again, as often as a player liked)."""
    bob = seraph_of(fight)
    first = bob.app_roll([10, 10], actor="Seraph")
    assert bob.app_roll([10, 10], actor="Seraph") == first  # a form closed and opened again: the same faces
    more = bob.app_roll([10, 10], drawn=2, actor="Seraph")  # a form already holding those two: the draw's next dice
    assert bob.app_roll([10, 10, 10, 10], actor="Seraph") == first + more
    gm = open_as(fight, "alice", seed=5)
    rolls = {tuple(gm.app_roll([10, 10])) for _ in range(20)}
    assert len(rolls) > 1  # the GM rolls again freely


def test_typed_and_app_dice_are_marked_in_the_proposal_and_the_event(fight: Path) -> None:
    from tests.test_players import approval

    alice, bob = approval(fight)
    faces = bob.app_roll([10, 10], actor="Seraph")
    seq = bob.declare("Seraph", "punch", ["Sphinx"], faces=[faces[0], faces[1]], params={"throwback": "false"}, app_rolled=[True, True]).event.seq  # type: ignore[union-attr]
    assert fresh(fight).pending()[0].args["dice"] == "app"
    assert "(the app's dice)" in alice.proposal_line(fresh(fight).pending()[0])
    assert fresh(fight).combatant("Seraph").draws == {0}  # draw 0 spent by the waiting proposal: the next roll is draw 1
    bob.execute("takeback")
    # A face the player claims the app rolled, but which it never did, counts as typed.
    bob.declare("Seraph", "punch", ["Sphinx"], faces=[5, 4], params={"throwback": "false"}, app_rolled=[True, True])
    pending = fresh(fight).pending()
    assert pending[-1].args["dice"] == "typed" and "(dice typed by the player)" in alice.proposal_line(pending[-1])
    assert seq < pending[-1].seq


def test_show_prints_each_declarations_faces_and_who_decided_them(fight: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The log in `show`, its JSON and exports carries the faces and the mark the app's
    log shows ("[dice 5 4] (typed)"); a secret roll's faces only to the GM."""
    bob = seraph_of(fight)
    faces = bob.app_roll([10, 10], actor="Seraph")
    bob.declare("Seraph", "punch", ["Sphinx"], faces=[faces[0], faces[1]], params={"throwback": "false"}, app_rolled=[True, True])
    gm = open_as(fight, "alice")
    gm.execute("add Nyx")
    gm.execute("declare Nyx punch throwback=false target=Seraph faces=3,9 secret=true")
    code, out = cli("show", str(fight))
    assert code == 0
    assert f"[dice {faces[0]} {faces[1]}] (app's roll)" in out
    assert "[dice 3 9] (typed)" in out
    for reader in (["--viewer"], ["--player", "Seraph"]):
        code, out = cli("show", str(fight), *reader, "--json")
        assert f"[dice {faces[0]} {faces[1]}] (app's roll)" in out and "[dice 3 9]" not in out


def test_an_edited_approval_tells_the_player_what_the_gm_changed(fight: Path) -> None:
    from tests.test_players import approval

    alice, bob = approval(fight)
    alice.execute("add Nyx")
    seq = bob.execute("declare Seraph punch throwback=false target=Sphinx faces=5,4").event.seq  # type: ignore[union-attr]
    alice.execute(f"approve {seq} target=Nyx")
    enc = fresh(fight)
    assert enc.proposal(seq).changes == "targets Sphinx -> Nyx"
    lines = [e.text for e in sight(enc, Role.player(["Seraph"])).log() if e.kind == "approve"]
    assert lines == [f"the GM approves proposal {seq} with changes (targets Sphinx -> Nyx): Seraph, punch against Sphinx"]


def test_an_approval_that_only_makes_the_roll_secret_says_so_to_the_player(fight: Path) -> None:
    """`approve N secret=true` changes nothing the player chose but who sees the roll:
    the player's log says the GM approved it with that change, not a plain approval."""
    from tests.test_players import approval

    alice, bob = approval(fight)
    seq = bob.execute("declare Seraph punch throwback=false target=Sphinx faces=5,4").event.seq  # type: ignore[union-attr]
    alice.execute(f"approve {seq} secret=true")
    enc = fresh(fight)
    assert enc.proposal(seq).changes == "roll made secret"
    lines = [e.text for e in sight(enc, Role.player(["Seraph"])).log() if e.kind == "approve"]
    assert lines == [f"the GM approves proposal {seq} with changes (roll made secret): Seraph, punch against Sphinx"]
    # A proposal approved as it is stays a plain approval (once the secret punch is done).
    alice.execute("step 40")
    seq = bob.execute("declare Seraph punch throwback=false target=Sphinx faces=5,4").event.seq  # type: ignore[union-attr]
    alice.execute(f"approve {seq}")
    assert fresh(fight).proposal(seq).changes == ""


def test_the_gm_caps_a_players_freeform_damage(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    shutil.copy(ROOT / "saves" / "freeform-bridge-ambush.toml", path)
    gm = open_as(path, "alice")
    with pytest.raises(TrackerError, match="expected none or a whole number"):
        gm.execute("setting player_damage_cap lots")
    gm.execute("setting player_damage_cap 5")
    kestrel = open_as(path, "bob", Role.player(["Kestrel"]))
    before = path.read_bytes()
    with pytest.raises(RuleRefusal, match=r"damage=9: the GM caps a player's damage at 5"):
        kestrel.execute('declare Kestrel "Sword cut" target="Bandit Chief" damage=9')
    assert path.read_bytes() == before
    kestrel.execute('declare Kestrel "Sword cut" target="Bandit Chief" damage=5')  # at the cap: allowed
    gm.execute("setting player_damage_cap none")
    assert fresh(path).table["player_damage_cap"] == "none"
