"""Pilot tests at 80x24: the forms say why a name or a yes/no word is refused as it is
typed (and refuse it when sent), and names a hand-edited save holds (bidi overrides,
zero-width, tag and separator characters, stacked marks) are drawn as stand-ins."""

from __future__ import annotations

import html
import re
from functools import partial
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Input, Label

from tracker.engine import Event
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.roster import RosterScreen
from tracker.ui.widgets.roster import RosterView
from tracker.ui.widgets.timeline import NAME as TIMELINE_NAME, TimelineView
from tests.test_ui_app import SIZE, make_file
from tests.test_ui_declare import no_bugs, open_form
from tracker.play.form import FormStage
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

WORDS = "expected true or false (or yes or no)"


async def _paste(pilot, selector: str, text: str) -> None:
    """Text put in a field whole, as a paste (characters no key sends)."""
    pilot.app.screen.query_one(selector, Input).value = text
    await settle(pilot)


def _message(app: TrackerApp, selector: str) -> str:
    label = app.screen.query_one(selector, Label)
    return str(label.render()) if label.display else ""


async def test_the_add_form_says_why_a_name_or_a_hidden_word_is_refused(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        roster = app.screen
        assert isinstance(roster, RosterScreen)
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the add form")
        await _paste(pilot, "#f-name", "Ann\u200bX")
        assert _message(app, "#f-name-error") == "name: control characters are not allowed in a name (found <U+200B>, a zero-width character, at character 4)"
        await _paste(pilot, "#f-hidden", "yes-please")
        assert _message(app, "#f-hidden-error") == f"hidden: {WORDS}, got 'yes-please'"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, FormScreen)  # the form stays open, nothing typed lost
        assert list(roster.live.encounter.combatants) == ["Seraph"]
        await _paste(pilot, "#f-name", "Z" + "\u0301" * 200)
        assert "more than 4 combining marks on one character" in _message(app, "#f-name-error")
        await _paste(pilot, "#f-name", "Ann")
        await _paste(pilot, "#f-hidden", "yes")
        assert _message(app, "#f-name-error") == _message(app, "#f-hidden-error") == ""
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "back on the roster")
        assert roster.live.encounter.combatant("Ann").hidden
        no_bugs(app)
    assert EncounterFile(path).load().encounter.combatant("Ann").hidden


async def test_a_secret_typo_in_the_declare_form_is_refused_not_rolled_in_the_open(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Ann", "scheme", "")
        await press(pilot, "ctrl+o")
        await _paste(pilot, "#d-secret", "ture")
        assert _message(app, "#d-secret-error") == f"secret: {WORDS}, got 'ture'"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, DeclareScreen) and screen.stage == FormStage.SETUP
        assert f"secret: {WORDS}" in _message(app, "#declare-error")
        assert not screen.live.encounter.actions
        await _paste(pilot, "#d-secret", "true")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen) or screen.stage != FormStage.SETUP, "the form moved on")
        no_bugs(app)


def _add(name: str, enc: object) -> Event:
    return Event("add", {"name": name, "resources": {"hp": 5}})


HAND_EDITED = ["Ann\u200bX", "Rtl\u202eevil", "Tag\U000e0041s", "Z" + "\u0301" * 200, "Sep\u2028Line", "Mark\u200fed", "鬼武者鬼武者鬼武者"]


async def test_names_a_hand_edited_save_holds_are_drawn_as_stand_ins(saves: Path) -> None:
    path = make_file(saves, "freeform", [])
    store = EncounterFile(path)
    loaded = store.load()
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for name in HAND_EDITED:  # past the door, as a hand edit would put them
        session.submit(partial(_add, name))
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        drawn = html.unescape("".join(re.findall(r">([^<]*)</text>", app.export_screenshot()))).replace("\xa0", " ")
        for raw in ("\u200b", "\u202e", "\U000e0041", "\u2028", "\u200f", "\u0301" * 5):
            assert raw not in drawn, repr(raw)
        for tag in ("Ann<U+200B>X", "Rtl<U+202E>evil", "Tag<U+E0041>s", "<+196 marks> joins", "Sep<U+2028>Line", "Mark<U+200F>ed"):
            assert tag in drawn, tag  # in the combat log, whole
        # Columns are measured in cells: every timeline row's bars start after the same
        # label width, every roster row's state in the same column (wide names and marks too).
        timeline = app.screen.query_one(TimelineView)
        rows = ["".join(s.text for s in timeline.render_line(y)) for y in range(1, 1 + len(HAND_EDITED))]
        assert {cell_len(row[: row.index("│")]) for row in rows if "│" in row} == {TIMELINE_NAME}
        assert len([row for row in rows if "│" in row]) >= 5
        roster = app.screen.query_one(RosterView)
        rows = ["".join(s.text for s in roster.render_line(y)) for y in range(roster.size.height)]
        assert len({cell_len(row[: row.index(" idle")]) for row in rows if " idle" in row}) == 1
        assert any("鬼武者" in row and "5/5" in row for row in rows)  # its figures still show
        no_bugs(app)
