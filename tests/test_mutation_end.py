"""Direct tests of tracker.ui.screens.end, worked from its docstring and
docs/decisions/0051-campaign-in-the-app.md: the end's preview (each character before and
after), y or Enter ends the fight (refused if it changed since it was shown), n or Esc
changes nothing; a fight of its own or one ended already has nothing to end; `u` on an
ended campaign fight reopens it while its end is the campaign's latest change, `r` closes
it again, and each says why not otherwise.

The screen is shown alone in a bare app (tests/ui.py's `ScreenApp`) over a campaign and
its fight made on disk (tests/campaign_ui.py); every file is read back with a fresh load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Label, Static

import tracker.ui

from tracker.engine.errors import RuleRefusal
from tracker.persistence.store import EncounterFile
from tracker.play.live import Live
from tracker.play.session import Outcome, Session
from tracker.ui.screens.end import EndScreen, of_campaign, walk_end, walks_campaign
from tests.campaign_ui import BY, load, make_campaign, make_fight
from tests.test_ui_app import make_file
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

PARTY = {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}}
PREVIEW = [
    "End The Ford (ford.toml) at segment 0: 1 of 1 of the party standing, 1 of 1 others",
    "The party's state goes back to the campaign The Long Road:",
    "  Seraph: vp 43 -> 31 of 43 (-12)",
]


class _App(ScreenApp):
    """The bare app, its notifications kept as plain text."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.said: list[str] = []

    def notify(self, message: str, **options: Any) -> None:  # type: ignore[override]
        self.said.append(str(message))


def _ford(saves: Path) -> tuple[Path, Path]:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    return road, make_fight(road, "ford", "The Ford", ["add Goblin vp=20", "damage Seraph 12 resource=vp"])


def _previewed(screen: EndScreen) -> bool:
    return screen.preview is not None and bool(screen.shown_text)


def _body(screen: EndScreen) -> str:
    return str(screen.query_one("#end-body", Static).render())


# ------------------------------------------------------------------ of_campaign, walks_campaign
def test_a_fight_of_its_own_or_one_ended_has_nothing_to_end(saves: Path, tmp_path: Path) -> None:
    alone = Live.open(make_file(tmp_path, "freeform", ["add Bo"]))
    try:
        with pytest.raises(RuleRefusal) as refused:
            of_campaign(alone.encounter)
        assert str(refused.value) == f"{alone.encounter.setup.name} is a fight of its own, not of a campaign: nothing to end (rule: end)"
        assert not walks_campaign(alone.encounter, "undo") and not walks_campaign(alone.encounter, "redo")
    finally:
        alone.close()
    road, ford = _ford(saves)
    live = Live.open(ford)
    try:
        of_campaign(live.encounter)  # open: may end
        assert not walks_campaign(live.encounter, "undo")  # open: `u` is the fight's own
        assert not walks_campaign(live.encounter, "redo")  # nothing undone
        live.session.end_fight("")
        ended = EncounterFile(ford).load().encounter
        with pytest.raises(RuleRefusal) as refused:
            of_campaign(ended)
        assert str(refused.value) == "this fight has already ended (campaign The Long Road); u reopens it while its end is the campaign's latest change (rule: end)"
        assert walks_campaign(ended, "undo")
        assert not walks_campaign(ended, "redo")
    finally:
        live.close()


# ------------------------------------------------------------------ the screen
async def test_the_preview_is_shown_and_esc_or_n_changes_nothing(saves: Path) -> None:
    road, ford = _ford(saves)
    before = (road.read_bytes(), ford.read_bytes())
    for key in ("escape", "n"):
        live = Live.open(ford)
        screen = EndScreen(live)
        app = _App(screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.screen is screen, "the end screen")
            assert str(screen.query_one(".title", Label).render()) == "End The Ford?"
            await wait_for(pilot, lambda: _previewed(screen), "the preview")
            assert screen.shown_text.splitlines() == PREVIEW
            assert _body(screen).splitlines()[:3] == PREVIEW
            assert str(screen.query_one("#end-hint", Label).render()) == "y / enter: end the fight and send this back · n / esc: change nothing"
            await pilot.press(key)
            await wait_for(pilot, lambda: app.closed, "the screen closed")
        live.close()
        assert app.result is None
        assert (road.read_bytes(), ford.read_bytes()) == before


async def test_the_body_says_it_is_working_until_the_preview_comes(saves: Path) -> None:
    _, ford = _ford(saves)
    live = Live.open(ford)
    screen = EndScreen(live)
    shown: list[str] = []
    look = live.session.end_preview

    def slow(outcome: str = "") -> Any:
        shown.append(_body(screen))  # on the thread, before the preview is made
        return look(outcome)

    live.session.end_preview = slow  # type: ignore[method-assign]
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _previewed(screen), "the preview")
    live.close()
    assert shown == ["working out what goes back to the campaign…"]


@pytest.mark.parametrize("key", ["y", "enter"])
async def test_y_or_enter_ends_the_fight_with_the_outcome_given(saves: Path, key: str) -> None:
    road, ford = _ford(saves)
    live = Live.open(ford)
    screen = EndScreen(live, "routed")
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _previewed(screen), "the preview")
        assert screen.shown_text.splitlines()[0] == "End The Ford (ford.toml) at segment 0: routed"
        await pilot.press(key)
        await wait_for(pilot, lambda: app.closed, "the screen closed")
    live.close()
    assert isinstance(app.result, Outcome)
    fight = load(road).fight("ford.toml")
    assert not fight.open and fight.outcome == "routed"
    assert EncounterFile(ford).load().encounter.ended == "The Long Road"


async def test_an_end_refused_says_why_and_nothing_is_changed(saves: Path, tmp_path: Path) -> None:
    alone = make_file(tmp_path, "freeform", ["add Bo"])
    before = alone.read_bytes()
    live = Live.open(alone)
    screen = EndScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(screen.shown_text), "the refusal")
        assert screen.preview is None
        assert screen.shown_text.endswith("\n\nNothing was changed.")
        assert "not of a campaign" in screen.shown_text  # the session's own words
        await wait_for(pilot, lambda: str(screen.query_one("#end-hint", Label).render()) == "esc: back", "the hint")
        await pilot.press("y")  # nothing to confirm
        assert not app.closed
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "the screen closed")
    live.close()
    assert app.result is None and alone.read_bytes() == before


async def test_a_fight_changed_since_the_preview_is_refused_and_not_ended(saves: Path) -> None:
    road, ford = _ford(saves)
    live = Live.open(ford)
    screen = EndScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _previewed(screen), "the preview")
        other = EncounterFile(ford)  # another session of the table damages Seraph meanwhile
        loaded = other.load()
        Session(loaded.encounter, loaded.ruleset, store=other).execute("damage Seraph 1 resource=vp")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.preview is None, "the refusal")
        assert screen.shown_text.endswith("Nothing was changed.") and "changed" in screen.shown_text.split("\n\n")[0]
        assert not app.closed
        await pilot.press("y")  # refused: y no longer ends it
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "the screen closed")
    live.close()
    assert app.result is None
    assert load(road).fight("ford.toml").open


async def test_keys_wait_while_the_end_is_being_written(saves: Path) -> None:
    _, ford = _ford(saves)
    live = Live.open(ford)
    screen = EndScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _previewed(screen), "the preview")
        screen.working = True  # as while its job is on a thread
        screen.action_cancel()
        screen.action_confirm()
        assert not app.closed and load(ford.parent / "road.campaign.toml").fight("ford.toml").open
        screen.working = False
        screen.action_cancel()
        await wait_for(pilot, lambda: app.closed, "the screen closed")
    live.close()


class _Styled(_App):
    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))  # the app's own stylesheet


async def test_the_dialog_is_styled_as_the_apps_dialogs_and_a_long_name_is_cut(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    name = "The Ford of the " + "Very " * 20 + "Long River"
    ford = make_fight(road, "ford", name, [])
    live = Live.open(ford)
    screen = EndScreen(live)
    app = _Styled(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _previewed(screen), "the preview")
        dialog = screen.query_one(VerticalScroll)
        await wait_for(pilot, lambda: dialog.outer_size.width == 76, "the dialog 76 wide (tracker.tcss's .dialog)")
        title = screen.query_one(".title", Label)
        assert title.size.height == 1
        (row,) = title.render_lines(Region(0, 0, title.size.width, 1))
        assert row.text.rstrip().endswith("…") and row.text.startswith("End The Ford of the Very")
        assert title.rich_style.bold  # tracker.tcss's .title
        hint, body = screen.query_one("#end-hint", Label), screen.query_one("#end-body", Static)
        assert hint.rich_style.color != body.rich_style.color  # muted, as every dialog's hint
    live.close()


# ------------------------------------------------------------------ walk_end
async def _walked(saves: Path, live: Live, kind: str) -> list[str]:
    screen = EndScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "a screen to work from")
        walk_end(screen, live, kind, BY)
        await wait_for(pilot, lambda: bool(app.said), "what the walk says")
    return app.said


async def test_u_reopens_an_ended_fight_and_r_closes_it_again(saves: Path) -> None:
    road, ford = _ford(saves)
    live = Live.open(ford)
    try:
        live.session.end_fight("held")
        end = load(road).undo_target()
        assert end is not None and end.kind == "end"
        said = await _walked(saves, live, "undo")
        assert said == [f"undo: {load(road).describe(end)}"]  # fights.walk's own words
        assert load(road).events[-1].kind == "undo" and load(road).events[-1].by == BY  # signed by who took it back
        assert load(road).fight("ford.toml").open
        reopened = EncounterFile(ford).load().encounter
        assert not reopened.ended
        assert walks_campaign(reopened, "redo") and not walks_campaign(reopened, "undo")  # r: the campaign's to make
        said = await _walked(saves, live, "redo")
        assert said == [f"redo: {load(road).describe(end)}"]
        assert load(road).events[-1].kind == "redo" and load(road).events[-1].by == BY
        assert not load(road).fight("ford.toml").open
        assert EncounterFile(ford).load().encounter.ended == "The Long Road"
    finally:
        live.close()


async def test_u_says_why_not_while_a_later_change_of_the_campaign_stands(saves: Path) -> None:
    road, ford = _ford(saves)
    live = Live.open(ford)
    try:
        live.session.end_fight("")
        make_fight(road, "hill", "The Hill", [])  # the campaign's latest change is now the next fight
        latest = load(road).undo_target()
        assert latest is not None and latest.kind == "fight"
        said = await _walked(saves, live, "undo")
        assert said == [
            f"this fight can be reopened only while its end is the campaign The Long Road's latest change to undo "
            f"(change {latest.seq}: {load(road).describe(latest)}): undo that first on the campaign screen (rule: undo)"
        ]
        assert not load(road).fight("ford.toml").open
        said = await _walked(saves, live, "redo")
        assert said == [
            "this fight can be closed again only while its end is the campaign The Long Road's latest change to redo "
            "(nothing to redo): redo that first on the campaign screen (rule: redo)"
        ]
    finally:
        live.close()
