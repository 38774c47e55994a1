"""Direct tests of tracker.ui.widgets.clock (the clock bar), worked from its docstring:
the clock in both units; players' declarations waiting for the GM (the GM's: all of
them, with the key of the approvals screen; a player's: their own); whose screen it is
when not the GM's ([viewer], [player: Seraph]); a campaign's fight names its campaign,
and says "ended" once ended; last a reminder of what is due next and who may act now,
combatants hidden from this screen left out. Names are text, never markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Span

from tracker.engine import Event
from tracker.persistence.store import EncounterFile
from tracker.play.live import Live
from tracker.play.session import Session
from tracker.reading.roles import Role
from tracker.ui.widgets.clock import ClockBar
from tests.ui import PaneApp, drawn

pytestmark = pytest.mark.ui

CLOCK = "segment 0 · round 1, segment 0"
FIGHT = [
    "add Seraph",
    "add Sphinx",
    "add Ghost hidden=true",
    "declare Ghost attack target=Seraph pt=2",
    "declare Seraph punch target=Sphinx pt=3",
]


def _file(folder: Path, lines: list[str], players: dict[str, list[str]] | None = None, name: str = "fight") -> Path:
    """A freeform fight: `lines` run by the GM, then each player's (by combatant) lines."""
    path = folder / "fight.toml"
    store, loaded = EncounterFile.create(path, name, "freeform")
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in lines:
        session.execute(line)
    for owner, said in (players or {}).items():
        session.role = Role.player([owner])
        for line in said:
            session.execute(line)
    return path


async def _bar(live: Live, width: int = 80) -> tuple[str, list[Span]]:
    pane = ClockBar(live)
    async with PaneApp(pane, width, 1).run_test(size=(80, 24)) as pilot:
        text = await drawn(pilot, pane)
        assert text.no_wrap and text.overflow == "ellipsis"
        return text.plain, text.spans


def _live(path: Path, role: Role | None = None) -> Live:
    live = Live.open(path)
    if role is not None:
        live.seat(role)
    return live


async def test_the_gm_reads_the_clock_the_fight_who_may_act_and_what_is_due(tmp_path: Path) -> None:
    plain, spans = await _bar(_live(_file(tmp_path, FIGHT)))
    rest = "  fight (freeform)  may act: Sphinx"
    due = "  next 2: Ghost's attack completes"
    assert plain == CLOCK + rest + due
    assert spans == [Span(0, len(CLOCK), "bold"), Span(len(CLOCK + rest), len(plain), "bold")]


@pytest.mark.parametrize(
    ("role", "mark"), [(Role.viewer(), "[viewer]"), (Role.player(["Sphinx"]), "[player: Sphinx]")], ids=["viewer", "player"]
)
async def test_another_screen_says_whose_it_is_and_leaves_the_hidden_out(tmp_path: Path, role: Role, mark: str) -> None:
    plain, spans = await _bar(_live(_file(tmp_path, FIGHT), role))
    head = f"{CLOCK}  fight (freeform)"
    assert plain == f"{head}  {mark}  may act: Sphinx  next 3: Seraph's punch completes"
    assert Span(len(head), len(head) + 2 + len(mark), "italic") in spans


async def test_a_player_of_several_is_named_with_all_of_them(tmp_path: Path) -> None:
    plain, _ = await _bar(_live(_file(tmp_path, FIGHT), Role.player(["Seraph", "Sphinx"])))
    assert "  [player: Seraph, Sphinx]  " in plain


async def test_who_may_act_leaves_out_a_hidden_idle_combatant_for_a_viewer_only(tmp_path: Path) -> None:
    path = _file(tmp_path, ["add Seraph", "add Ghost hidden=true", "add Sphinx"])
    gm, _ = await _bar(_live(path))
    assert gm.endswith("  may act: Seraph, Ghost, Sphinx")
    seen, _ = await _bar(_live(path, Role.viewer()))
    assert seen.endswith("  may act: Seraph, Sphinx")
    # A player who owns the hidden Ghost sees it as the GM does.
    own, _ = await _bar(_live(path, Role.player(["Ghost"])))
    assert own.endswith("  may act: Seraph, Ghost, Sphinx")


async def test_a_viewer_is_reminded_of_the_first_of_ten_due_that_names_no_hidden_one(tmp_path: Path) -> None:
    lurks = [f"schedule {s} Ghost lurks" for s in range(1, 10)]
    path = _file(tmp_path, ["add Seraph", "add Ghost hidden=true", "declare Seraph punch pt=3", *lurks, "schedule 12 bell"])
    # The first ten due: nine of Ghost and Seraph's punch on 3. The viewer reads the punch.
    seen, _ = await _bar(_live(path, Role.viewer()))
    assert seen.endswith("  next 3: Seraph's punch completes")
    path = _file(tmp_path / "b", ["add Seraph", "add Ghost hidden=true", *lurks, "schedule 10 Ghost lurks", "schedule 12 bell"])
    # Ten of Ghost first: nothing among them to tell a viewer, so no "next" (the bell on
    # 12 is the eleventh); the GM reads the first.
    seen, _ = await _bar(_live(path, Role.viewer()))
    assert "next" not in seen and seen.endswith("  may act: Seraph")
    gm, _ = await _bar(_live(path))
    assert gm.endswith("  next 1: Ghost lurks")


async def test_nothing_due_and_nobody_idle_leaves_the_line_at_the_fight(tmp_path: Path) -> None:
    plain, spans = await _bar(_live(_file(tmp_path, [])))
    assert plain == f"{CLOCK}  fight (freeform)"
    assert spans == [Span(0, len(CLOCK), "bold")]


async def test_declarations_waiting_for_the_gm(tmp_path: Path) -> None:
    lines = ["setting player_declarations approval", "add Seraph", "add Sphinx", "add Imp"]
    players = {"Sphinx": ["declare Sphinx bite target=Seraph pt=4"], "Imp": ["declare Imp claw target=Seraph pt=2"]}
    path = _file(tmp_path, lines, players)
    gm, spans = await _bar(_live(path))
    waiting = "  2 waiting for approval (p)"
    assert gm.startswith(CLOCK + waiting + "  fight (freeform)")
    assert Span(len(CLOCK), len(CLOCK + waiting), "bold reverse") in spans
    mine, spans = await _bar(_live(path, Role.player(["Sphinx"])))
    assert mine.startswith(CLOCK + "  1 waiting for the GM  fight (freeform)  [player: Sphinx]")
    assert Span(len(CLOCK), len(CLOCK) + len("  1 waiting for the GM"), "bold reverse") in spans
    others, _ = await _bar(_live(path, Role.player(["Seraph"])))
    assert "waiting" not in others
    seen, _ = await _bar(_live(path, Role.viewer()))
    assert "waiting" not in seen


async def test_no_declaration_waiting_says_nothing_of_it(tmp_path: Path) -> None:
    path = _file(tmp_path, ["setting player_declarations approval", "add Seraph"])
    for role in (None, Role.player(["Seraph"])):
        plain, _ = await _bar(_live(path, role))
        assert "waiting" not in plain


async def test_a_replay_says_so_first(tmp_path: Path) -> None:
    class Replaying(Live):
        @property
        def banner(self) -> str:
            return "replay 3/9"

    plain, spans = await _bar(Replaying.open(_file(tmp_path, ["add Seraph"])))
    assert plain.startswith("replay 3/9 " + CLOCK)
    assert spans[0] == Span(0, len("replay 3/9 "), "bold reverse")


async def test_an_ended_fight_says_so_and_has_nothing_due(tmp_path: Path) -> None:
    live = _live(_file(tmp_path, FIGHT))
    # A campaign's `end` (tracker.play.fights), applied as the file's change is read.
    live.encounter.apply(Event("end", {"campaign": "The Long Road"}))
    plain, spans = await _bar(live)
    assert plain == f"{CLOCK}  ended  fight (freeform)"
    assert Span(len(CLOCK), len(CLOCK) + len("  ended"), "bold reverse") in spans


async def test_a_campaigns_fight_names_its_campaign(tmp_path: Path) -> None:
    live = _live(_file(tmp_path, ["add Seraph"]))
    live.encounter.setup.campaign = "the-long-road.campaign.toml"
    plain, spans = await _bar(live)
    head = f"{CLOCK}  fight (freeform)"
    assert plain.startswith(head + "  campaign: the-long-road  may act")  # the file's name, read before its title
    assert Span(len(head), len(head) + len("  campaign: the-long-road"), "italic") in spans
    live.campaign_title = "The Long [Road]"
    plain, _ = await _bar(live)
    assert plain.startswith(head + "  campaign: The Long [Road]  may act")


async def test_names_are_text_and_controls_are_made_visible(tmp_path: Path) -> None:
    path = _file(tmp_path, ['add "Grok [/]"'], name="Ford [b]2[/b]")
    live = _live(path)
    plain, _ = await _bar(live)
    assert plain == f"{CLOCK}  Ford [b]2[/b] (freeform)  may act: Grok [/]"
    live.encounter.setup.name = "Ford\x1b[2J"
    plain, _ = await _bar(live)
    assert "\x1b" not in plain and "Ford\u241b[2J (freeform)" in plain
