"""Random keys at every screen of every ruleset: the app stays alive and the save loads.

Hypothesis draws key sequences (bursts of letters and digits, Esc, Tab, Enter, ctrl+u,
arrows, `:` lines, text with brackets) and sends them as bursts to the start screen,
the encounter screen and the dialogs reached from it (forms, help, roster editor,
palette), in each shipped example save (one per ruleset). After each sequence the app
must still be running with no internal error, and the file must load and replay.
"""

from __future__ import annotations

from tests.helpers import shipped_fights

import pytest

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp

from tests.test_ui_app import SIZE
from tests.ui import burst, settle

pytestmark = pytest.mark.ui

SAVES = shipped_fights()
# q and ctrl+q end the app by design; ctrl+c too. Everything else is fair.
LETTERS = "abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789 .,=-+[]/@*:?"
SPECIAL = ["\x1b", "\t", "\r", "\x15", "\x7f"]
LINES = ["note [b]x[/b]", "add \"Ogre [/]\" hp=5", "declare {a} attack target={a}", "damage {a} 3", "set {a} hp abc", "undo", "redo", "step 3", "next", "[/x]", "condition {a} stunned 5", "setting viewer_resources label"]
START_KEYS = ["", "\r", "n", "?", "c", "g"]

@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`g` (glance) and the palette's themes write the config: this test's own, so what a
    random key remembers never reaches the other tests run in this process."""
    monkeypatch.setenv("TRACKER_CONFIG", str(tmp_path / "config.toml"))


chunk = st.one_of(
    st.text(alphabet=LETTERS, min_size=1, max_size=8),
    st.sampled_from(SPECIAL),
    st.sampled_from(LINES).map(lambda line: ":" + line + "\r"),
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(save=st.sampled_from(SAVES), start=st.sampled_from(START_KEYS), chunks=st.lists(chunk, min_size=1, max_size=6), from_start=st.booleans())
async def test_random_keys_never_end_the_app(tmp_path_factory, save: Path, start: str, chunks: list[str], from_start: bool) -> None:
    folder = tmp_path_factory.mktemp("saves")
    path = folder / save.name
    shutil.copy(save, path)
    names = [c for c in EncounterFile(path).load().encounter.combatants] or ["X"]
    app = TrackerApp(folder, None if from_start else path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.workers.wait_for_complete()
        if from_start:
            burst(app, start)
            await settle(pilot)
        for text in chunks:
            burst(app, text.replace("{a}", names[0].replace(" ", "\\ ")))
            await settle(pilot)
            assert app.is_running, (save.name, chunks)
        assert not app.errors, (save.name, chunks, app.errors)
    for file in folder.glob("*.toml"):
        if file.name.endswith(".campaign.toml"):  # a campaign its keys made (C on the start screen)
            CampaignFile(file).load()
        else:
            EncounterFile(file).load()
