"""Random keys at the campaign screen: the app stays alive and every file loads.

Hypothesis draws bursts (letters and digits, Esc, Tab, Enter, ctrl+u, ctrl+r, ctrl+b,
ctrl+s, arrows, text with brackets and CJK) and sends them to the campaign screen of a Brand X
campaign with a party, an ended fight and a rest behind it: the keys reach its forms,
the rest's dice, the fights it opens and their dialogs. After each sequence the app must
still be running with no internal error, and the campaign file and every fight must load.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesets.dice import TypedFaces
from tracker.play import fights, rest
from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp

from tests.campaign_ui import BY, load, make_campaign, make_fight, open_campaign
from tests.test_ui_app import SIZE
from tests.ui import burst, post_keys, settle

pytestmark = pytest.mark.ui

# q and ctrl+q end the app by design. Everything else is fair.
LETTERS = "abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789 .,=-+[]/@*:?鷹"
SPECIAL = ["\x1b", "\t", "\r", "\x15", "\x7f"]
WORDS = ["[b]x[/b]", "vp=5", "full", "stunned=3", "3,4", "1,1", "2", "end\r", "undo\r"]
KEYS = ["up", "down", "ctrl+r", "ctrl+b", "ctrl+s", "shift+tab"]


@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_CONFIG", str(tmp_path / "config.toml"))


chunk = st.one_of(
    st.text(alphabet=LETTERS, min_size=1, max_size=8).map(lambda t: ("text", t)),
    st.sampled_from(SPECIAL + WORDS).map(lambda t: ("text", t)),
    st.sampled_from(KEYS).map(lambda k: ("key", k)),
)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(chunks=st.lists(chunk, min_size=1, max_size=8))
async def test_random_keys_at_the_campaign_screen_never_end_the_app(tmp_path_factory: pytest.TempPathFactory, chunks: list[tuple[str, str]]) -> None:
    saves = tmp_path_factory.mktemp("saves")
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}, "Kestrel": {"vp": "30"}})
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp", "damage Kestrel 4 resource=vp"])
    fights.end(ford, BY)
    rest.record(road, 1, TypedFaces([9, 9]), {})
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await open_campaign(pilot, app, road)
        for kind, text in chunks:
            if kind == "key":
                post_keys(app, [text])
            else:
                burst(app, text)
            await settle(pilot)
            assert app.is_running, chunks
        assert not app.errors, (chunks, app.errors)
    load(road)
    for file in saves.glob("*.toml"):
        if not file.name.endswith(".campaign.toml"):
            EncounterFile(file).load()
