"""Campaigns made on disk for the app's tests, and the steps that reach the campaign screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracker.play import fights, party
from tracker.persistence.campaign import Campaign
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.ui.screens.campaign import CampaignScreen
from tracker.ui.screens.start import StartScreen

from tests.ui import press, settle, wait_for

BY = "gm:tester"


def make_campaign(saves: Path, ruleset: str, title: str, pcs: dict[str, dict[str, str]], file: str = "road") -> Path:
    path = saves / f"{file}.campaign.toml"
    CampaignFile.create(path, title, ruleset)
    for name, words in pcs.items():
        CampaignFile(path).change(lambda camp, name=name, words=words: [party.join(camp, saves, name, dict(words))], BY)
    return path


def play(fight: Path, *lines: str) -> Session:
    """`lines` of the command language played on the fight in its file, by the GM."""
    store = EncounterFile(fight)
    loaded = store.load()
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in lines:
        session.execute(line)
    return session


def make_fight(campaign: Path, file: str, name: str, lines: list[str]) -> Path:
    """The campaign's next fight, played by `lines` of the command language."""
    path = campaign.parent / f"{file}.toml"
    fights.start(campaign, path, name, BY)
    play(path, *lines)
    return path


def load(campaign: Path) -> Campaign:
    return CampaignFile(campaign).load()


def screen(app: TrackerApp) -> CampaignScreen:
    assert isinstance(app.screen, CampaignScreen), app.screen
    return app.screen


def ready(app: TrackerApp) -> bool:
    """The campaign screen shows the campaign as it now is on disk (read, nothing working)."""
    s = app.screen
    return isinstance(s, CampaignScreen) and s.shown is not None and not s.working


async def open_campaign(pilot: Any, app: TrackerApp, campaign: Path) -> CampaignScreen:
    """From the start screen: the campaign's row, Enter."""
    await settle(pilot)
    await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and bool(app.screen.listings), "the start list")
    start = app.screen
    assert isinstance(start, StartScreen)
    row = [i for i, item in enumerate(start.listings) if item.path == campaign and item.kind == "campaign"][0]
    start.query_one("DataTable").move_cursor(row=row)  # type: ignore[attr-defined]
    await press(pilot, "enter")
    await wait_for(pilot, lambda: ready(app), "the campaign screen, read")
    return screen(app)


def highlight(s: CampaignScreen, ident: str) -> None:
    from textual.widgets import OptionList

    s.query_one(OptionList).highlighted = s.ids.index(ident)


def rows(s: CampaignScreen) -> list[str]:
    from textual.widgets import OptionList

    options = s.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
