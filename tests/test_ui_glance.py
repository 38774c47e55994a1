"""Pilot tests of the roster's glance mode (`g`): the whole table at once, at 80x24 and
160x40 in every shipped example save, remembered in the config, and as a viewer sees it."""

from __future__ import annotations

from tests.helpers import shipped_fights

import re
import shutil
from pathlib import Path

import pytest

from tracker.persistence import config
from tracker.engine import Combatant
from tracker.ui.app import TrackerApp
from tracker.ui.widgets.roster import RosterView
from tracker.reading.viewing import sight
from tests.test_ui_app import encounter_screen, make_file
from tests.test_ui_screen import screen_text
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

SAVES = shipped_fights()


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config of the test's own, with a comment that must survive being written back."""
    path = tmp_path / "config.toml"
    path.write_text("# my settings\ntheme = \"textual-dark\"  # kept\n", encoding="utf-8")
    monkeypatch.setenv("TRACKER_CONFIG", str(path))
    return path


def _rows(roster: RosterView) -> dict[str, list[str]]:
    """Each combatant's lines on screen, by name (a name starts its first line)."""
    out: dict[str, list[str]] = {}
    names = [c.name for c in roster.combatants]
    current: str | None = None
    for line in screen_text(roster):
        body = line[2:]
        starts = [n for n in names if body.startswith(n + " ")]
        if starts:
            current = max(starts, key=len)
            out[current] = [line]
        elif current is not None and line.strip():
            out[current].append(line)
    return out


def _damaged(c: Combatant) -> list[str]:
    """A pattern for each resource below its maximum: `chest 8/10` (the down resource
    with its bar between: `stun ████░ 14/20`)."""
    return [
        rf"{re.escape(key)} (?:[█░]+ )?{value:g}/{c.maxima[key]:g}"
        for key, value in c.resources.items()
        if isinstance(value, (int, float)) and isinstance(c.maxima.get(key), (int, float)) and value < c.maxima[key]
    ]


async def _glance(app: TrackerApp, pilot) -> RosterView:
    await settle(pilot)
    roster = encounter_screen(app).query_one(RosterView)
    assert not roster.glance
    await press(pilot, "g")
    await wait_for(pilot, lambda: roster.glance and not encounter_screen(app).query_one("#log-pane").display, "glance mode")
    await settle(pilot)
    return roster


@pytest.mark.parametrize("save", SAVES, ids=lambda p: p.stem)
async def test_glance_at_80x24_shows_every_combatant_and_every_damaged_figure(save: Path, saves: Path, config_file: Path) -> None:
    path = saves / save.name
    shutil.copy(save, path)
    app = TrackerApp(saves, path)
    async with app.run_test(size=(80, 24)) as pilot:
        roster = await _glance(app, pilot)
        rows = _rows(roster)
        shown = sight(roster.live.encounter, roster.live.seen_as).combatants()
        assert sorted(rows) == sorted(c.name for c in shown)
        for c in shown:
            text = " ".join(rows[c.name])
            assert len(rows[c.name]) <= 2, rows[c.name]
            assert f" {c.state(roster.live.encounter.now)} " in text
            for figure in _damaged(c):  # every damaged resource or location, with its figure
                assert re.search(figure, text), (figure, rows[c.name])
            for name in c.conditions:
                assert f"{name}→" in text
        # Remembered in the config, whose comments are kept; `g` again goes back.
        await wait_for(pilot, lambda: 'roster_mode = "glance"' in config_file.read_text(), "glance remembered")
        assert "# my settings" in config_file.read_text() and "# kept" in config_file.read_text()
        await press(pilot, "g")
        await wait_for(pilot, lambda: not roster.glance and encounter_screen(app).query_one("#log-pane").display, "the roster beside the log again")
        await wait_for(pilot, lambda: 'roster_mode = "detail"' in config_file.read_text(), "detail remembered")


async def test_usor_locations_at_80x24_each_with_its_figure_not_a_count(saves: Path, config_file: Path) -> None:
    # Issue 22: "The USOR roster row shows only Stun, with location damage behind +6".
    path = make_file(saves, "usor", [
        "add Max stun=20 chest=10 head=4 right_arm=6 left_arm=6 right_leg=8 left_leg=8",
        "add Bandit side=bandits stun=20 chest=10 head=4 right_arm=6 left_arm=6 right_leg=8 left_leg=8",
        "damage Max 6 resource=stun", "damage Max 3 resource=right_arm", "damage Max 2 resource=left_leg", "damage Bandit 4 resource=head",
    ])
    app = TrackerApp(saves, path)
    async with app.run_test(size=(80, 24)) as pilot:
        plain = " ".join(screen_text(encounter_screen(app).query_one(RosterView)))
        await settle(pilot)
        plain = " ".join(screen_text(encounter_screen(app).query_one(RosterView)))
        assert "right_arm 3/6" not in plain  # the plain roster beside the log has no room
        roster = await _glance(app, pilot)
        rows = _rows(roster)
        max_rows = " ".join(rows["Max"])
        assert "stun" in max_rows and "14/20" in max_rows
        assert "right_arm 3/6" in max_rows and "left_leg 6/8" in max_rows
        assert "head 0/4" in " ".join(rows["Bandit"])
        assert not re.search(r"\+\d", max_rows)  # every location fits in two rows at 80 columns


async def test_more_columns_on_a_wider_terminal(saves: Path, config_file: Path) -> None:
    path = saves / "usor-mountain-pass.toml"
    shutil.copy(Path(__file__).parent.parent / "saves" / path.name, path)
    app = TrackerApp(saves, path)
    async with app.run_test(size=(160, 40)) as pilot:
        roster = await _glance(app, pilot)
        rows = _rows(roster)
        lines = screen_text(roster)
        for i, c in enumerate(roster.combatants):
            assert lines[i][2:].startswith(c.name + " "), lines  # one line each, one under the other
            assert len(rows[c.name]) == 1, rows[c.name]  # every figure beside the name
            for key, value in c.resources.items():
                assert f"{value:g}/{c.maxima[key]:g}" in rows[c.name][0]


async def test_the_mode_is_remembered_when_the_app_opens(saves: Path, config_file: Path) -> None:
    config_file.write_text(config_file.read_text() + 'roster_mode = "glance"\n', encoding="utf-8")
    path = make_file(saves, "freeform", ["add Ann hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        roster = encounter_screen(app).query_one(RosterView)
        await wait_for(pilot, lambda: roster.glance and not encounter_screen(app).query_one("#detail").display, "glance from the config")


def test_a_bad_roster_mode_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(config.ConfigError, match=r"config.toml: roster_mode: expected one of detail, glance, got 'wide'"):
        config.parse(path, 'roster_mode = "wide"\n')


async def test_a_viewer_sees_no_hidden_combatant_and_only_labels(saves: Path, config_file: Path) -> None:
    path = make_file(saves, "freeform", [
        "add Kestrel hp=24 side=party", "add Chief hp=18 side=bandits", "add Archer hp=10 side=bandits",
        "damage Kestrel 4", "damage Chief 12", "hide Archer", "setting viewer_resources label",
    ])
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=(80, 24)) as pilot:
        roster = await _glance(app, pilot)
        rows = _rows(roster)
        assert sorted(rows) == ["Chief", "Kestrel"]  # Archer is hidden from viewers
        assert "20/24" in " ".join(rows["Kestrel"])  # the party's own figures are shown
        chief = " ".join(rows["Chief"])
        assert "Bloodied" in chief and "6/18" not in chief and "hp" not in chief
        # A viewer's app never writes the config.
        assert "roster_mode" not in config_file.read_text()
