"""Direct tests of tracker.ui.screens.history, worked from its docstring: the effective
changes, newest first (the top row is what `u` takes back first), each with who made it,
the segment it was made on and what it did; undone changes are not listed; a player or
viewer sees only changes that wrote a line they may read, in that line's words; plain
text, never markup, control characters made visible; Esc or H closes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Span
from textual.widgets import Label, OptionList

from tracker.engine import Event
from tracker.persistence.store import EncounterFile
from tracker.play.live import Live
from tracker.play.session import Session
from tracker.reading.roles import Role
from tracker.ui.screens.history import HistoryScreen, history_rows
from tests.ui import ScreenApp, wait_for

FIGHT = [
    "add Seraph hp=10",
    "add Ghost hidden=true",
    "add Bob hp=4",
    "note [b]x[/b]",
    "declare Ghost attack target=Seraph pt=4",
    "damage Bob 2",
    "step 3",
    "note oops",
    "undo",
    "setting viewer_resources label",
]


def _live(folder: Path, lines: list[str], name: str = "Ford [2]", user: str = "ann", role: Role | None = None) -> Live:
    path = folder / "fight.toml"
    store, loaded = EncounterFile.create(path, name, "freeform")
    session = Session(loaded.encounter, loaded.ruleset, store=store, user=user)
    for line in lines:
        session.execute(line)
    live = Live.open(path)
    if role is not None:
        live.seat(role)
    return live


def _rows(live: Live) -> list[str]:
    return [row.plain for row in history_rows(live)]


def test_the_gm_sees_every_effective_change_newest_first_with_segment_and_who(tmp_path: Path) -> None:
    rows = _rows(_live(tmp_path, FIGHT))
    assert rows == [
        "#10       3  setting: viewer_resources is now label (GM ann)",
        "#7        3  time moves on to segment 3 (GM ann)",
        "#6        0  Bob takes 2 hp (GM ann)",
        "#5        0  Ghost declares attack against Seraph (GM ann)",
        "#4        0  note: [b]x[/b] (GM ann)",
        "#3        0  Bob joins the fight (GM ann)",
        "#2        0  Ghost joins the fight (GM ann)",
        "#1        0  Seraph joins the fight (GM ann)",
    ]


def test_a_row_is_its_number_dim_its_segment_bold_and_who_dim(tmp_path: Path) -> None:
    row = history_rows(_live(tmp_path, ["add Seraph hp=10"]))[0]
    assert row.plain == "#1        0  Seraph joins the fight (GM ann)"
    assert row.spans == [Span(0, 6, "dim"), Span(6, 13, "bold"), Span(35, 44, "dim")]
    assert history_rows(_live(tmp_path / "u", ["add Seraph hp=10"], user=""))[0].plain == "#1        0  Seraph joins the fight"


def test_names_and_words_from_a_file_show_their_control_characters_visibly(tmp_path: Path) -> None:
    # A hand-edited save can hold what the command line refuses: a note and a signature
    # with escapes, applied here as a change read from such a file would be.
    for role in (None, Role.viewer()):
        live = _live(tmp_path / str(role), ["add Seraph hp=10"], role=role)
        live.session.encounter.apply(Event("note", {"text": "red\x1b[31m"}, by="gm:\x1b"))
        row = history_rows(live)[0].plain
        assert "\x1b" not in row
        assert row.startswith("#2        0  ") and "red\u241b[31m" in row and row.endswith("(GM \u241b)")


def test_numbers_and_segments_keep_their_columns_past_four_digits(tmp_path: Path) -> None:
    rows = _rows(_live(tmp_path, ["add Seraph hp=10", "step 12345"]))
    assert rows[0] == "#2    12345  time moves on to segment 12345 (GM ann)"


@pytest.mark.parametrize(
    ("role", "damage"),
    [(Role.viewer(), "Bob: figures withheld from viewers"), (Role.player(["Bob"]), "Bob takes 2 hp (hp 4 -> 2)")],
    ids=["viewer", "player"],
)
def test_a_viewer_or_player_sees_only_lines_they_may_read_in_those_words(tmp_path: Path, role: Role, damage: str) -> None:
    rows = _rows(_live(tmp_path, FIGHT, role=role))
    # Not the hidden Ghost's joining or action, not time moving on with no line; each
    # row in its log line's words as this reader may read it now: the setting shows
    # viewers labels, not figures, while a player reads their own Bob's figures.
    assert rows == [
        "#10       3  setting: viewer_resources is now label (GM ann)",
        f"#6        0  {damage} (GM ann)",
        "#4        0  [b]x[/b] (GM ann)",
        "#3        0  Bob joins the fight (GM ann)",
        "#1        0  Seraph joins the fight (GM ann)",
    ]


@pytest.mark.ui
@pytest.mark.parametrize("key", ["escape", "H"])
async def test_the_screen_lists_the_rows_under_its_title_and_closes_on_esc_or_h(tmp_path: Path, key: str) -> None:
    live = _live(tmp_path, FIGHT)
    app = ScreenApp(HistoryScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        screen = app.screen
        title = screen.query_one("#history .title", Label)
        assert str(title.render()) == "History · Ford [2]: newest first, what u takes back"
        options = screen.query_one("#history-list", OptionList)
        assert options.has_focus
        assert [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)] == _rows(live)
        await pilot.press(key)
        await wait_for(pilot, lambda: app.closed, f"{key} to close the history")
        assert not isinstance(app.screen, HistoryScreen)


@pytest.mark.ui
async def test_a_fight_with_no_change_a_viewer_may_read_says_so(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ghost hidden=true"], role=Role.viewer())
    app = ScreenApp(HistoryScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        options = app.screen.query_one(OptionList)
        assert options.option_count == 1
        only = options.get_option_at_index(0)
        assert str(only.prompt) == "(no changes yet)" and only.disabled
        await pilot.press("x", "escape")
        await wait_for(pilot, lambda: app.closed, "Esc to close the history")
