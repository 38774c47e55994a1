"""The footer (tracker.ui.widgets.footer): the same keys as Textual's own Footer, drawn
with the encounter screen's first frame, and built again only when the keys change (a
dialog opening and closing over the screen leaves them as they were). Waits are on
conditions only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer

from tracker.ui import widgets
from tracker.ui.app import TrackerApp
from tracker.ui.screens import encounter as encounter_module
from tracker.ui.screens import start as start_module
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.start import StartScreen
from tracker.ui.widgets.footer import KeyFooter
from tests.test_ui_app import make_file
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
assert widgets  # the package whose module is under test


def footer_keys(app: TrackerApp) -> list[tuple[str, str, bool, tuple[str, ...], bool]]:
    """What the footer shows, key by key: the key as drawn, its description, whether it is
    compact, its classes and whether it is disabled."""
    footer = app.screen.query_one(Footer)
    return [(k.key_display, k.description, k.compact, tuple(sorted(k.classes)), k.disabled) for k in footer.query("FooterKey")]  # type: ignore[attr-defined]


def count_builds(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every footer build after its first compose (a recompose), by footer."""
    built: list[Any] = []
    recompose = Footer.recompose

    async def counted(self: Footer) -> None:
        built.append(self)
        await recompose(self)

    monkeypatch.setattr(Footer, "recompose", counted)
    return built


async def shown_by(app: TrackerApp, screen_type: type) -> list[tuple[str, str, bool, tuple[str, ...], bool]]:
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, screen_type) and bool(app.screen.query("FooterKey")), "the footer's keys")
        await settle(pilot)
        return footer_keys(app)


@pytest.mark.parametrize("which", ["encounter", "start"])
async def test_the_footer_shows_what_textuals_footer_shows(saves: Path, monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx"])
    file = path if which == "encounter" else None
    screen_type = EncounterScreen if which == "encounter" else StartScreen
    ours = await shown_by(TrackerApp(saves, file), screen_type)
    module = encounter_module if which == "encounter" else start_module
    monkeypatch.setattr(module, "KeyFooter", lambda **_: Footer())
    textuals = await shown_by(TrackerApp(saves, file), screen_type)
    assert ours == textuals
    descriptions = [d for _, d, *_ in ours]
    assert "Quit" in descriptions and "palette" in descriptions
    # Textual's keys are not compact, but for the palette's own key.
    assert {(d, c, "-compact" in cls) for _, d, c, cls, _ in ours} == {(d, d == "palette", d == "palette") for d in descriptions}


async def test_the_encounter_footer_is_built_once(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = count_builds(monkeypatch)
    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        footer = app.screen.query_one(KeyFooter)
        # Its keys are there from its first compose, not a frame later.
        assert footer.query("FooterKey")
        await settle(pilot)
        before = footer_keys(app)
        for _ in range(3):  # a dialog opens over the screen and closes
            await press(pilot, "s")
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the schedule form")
            await press(pilot, "escape")
            await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen again")
        await settle(pilot)
        assert built == []
        assert footer_keys(app) == before
        assert not app.errors


async def test_the_footer_is_built_again_when_its_keys_change(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The start screen's table takes the focus as the screen opens, and with it enter:
    # the screen's own enter (open) no longer shows, its other key (o) does.
    built = count_builds(monkeypatch)
    make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and bool(app.screen.query("FooterKey")), "the start screen's keys")
        await settle(pilot)
        assert len(built) == 1
        shown = {d: k for k, d, *_ in footer_keys(app)}
        assert shown["Open"] == "o"
        await press(pilot, "question_mark")  # help over the list, and back: the same keys
        await wait_for(pilot, lambda: not isinstance(app.screen, StartScreen), "the help")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again")
        await settle(pilot)
        assert len(built) == 1
        assert not app.errors


async def test_the_footer_keys_are_styled_once(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual's keys are restyled twice as they mount (compact by default, then not, by the
    # Footer's binding); the encounter screen's first frame waits for every one of them.
    from textual.dom import DOMNode

    restyled: list[str] = []
    update = DOMNode.update_node_styles

    def counted(self: DOMNode, animate: bool = True) -> None:
        if type(self).__name__ == "FooterKey":
            restyled.append(str(getattr(self, "description", "")))
        update(self, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", counted)
    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen) and bool(app.screen.query("FooterKey")), "the footer's keys")
        await settle(pilot)
        assert len(footer_keys(app)) > 5
        assert restyled == []
