"""`tracker show FILE --at SEGMENT` and `tracker export FILE --at SEGMENT`: the fight as it
stood at the end of a segment, from the command line.

The fight (freeform, worked by hand): Ann (hp 20) and Bo (hp 15, a foe, hidden until
segment 12). Segment 2: Ann's sword at Bo (PT 8, 4 damage, lands on 10), Ann dazed for 5
(ends on 7). `step 10` to 12: Bo is shown, a note, Bo's dodge (passive, PT 30, to 42);
`step 28` to 40.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import cli

LINES = [
    "add Ann hp=20", "add Bo hp=15 side=foes hidden=true", "step 2",
    "declare Ann sword target=Bo pt=8 damage=4", "condition Ann dazed 5", "step 10", "unhide Bo",
    "note the throwback landed first", "declare Bo dodge mode=passive pt=30", "step 28",
]


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "duel.toml"
    assert cli("new", str(path), "--ruleset", "freeform")[0] == 0
    assert cli("play", str(path), stdin="\n".join(LINES) + "\n")[0] == 0
    return path


def show(path: Path, *args: str) -> dict:  # type: ignore[type-arg]
    code, text = cli("show", str(path), *args, "--json")
    assert code == 0, text
    return json.loads(text)


def test_show_at_a_segment_inside_a_jump_of_time(fight: Path) -> None:
    """At 5: the sword is in progress (2 -> 10), Ann dazed until 7 (2 segments left), Bo
    untouched; nothing of segment 12 in the log."""
    data = show(fight, "--at", "5")
    assert data["segment"] == 5 and data["replay"] == {"segment": 5, "first": 0, "last": 40}
    people = {c["name"]: c for c in data["combatants"]}
    assert people["Ann"]["conditions"] == {"dazed": 7} and people["Ann"]["conditions_left"] == {"dazed": 2}
    assert people["Bo"]["resources"] == {"hp": 15} and people["Bo"]["hidden"] is True
    assert [(a["template"], a["start"], a["completes"], a["status"]) for a in data["actions"]] == [("sword", 2, 10, "in progress")]
    assert data["upcoming"][0] == {"segment": 7, "what": "Ann stops being dazed"}
    assert not any("throwback" in e["text"] for e in data["log"])
    assert all(e["segment"] <= 5 for e in data["log"])


def test_show_at_the_segment_a_blow_lands_and_at_the_last(fight: Path) -> None:
    at10 = show(fight, "--at", "10")
    assert {c["name"]: c["resources"]["hp"] for c in at10["combatants"]} == {"Ann": 20, "Bo": 11}
    assert at10["actions"][0]["status"] == "completed"
    at12 = show(fight, "--at", "12")
    assert [a["template"] for a in at12["actions"]] == ["sword", "dodge"]  # declared on 12: in it
    assert any("throwback landed first" in e["text"] for e in at12["log"])
    last = show(fight, "--at", "40")
    now = show(fight)
    last.pop("replay")
    assert last == now  # the last segment is the fight as it stands


def test_show_at_as_a_viewer_hides_who_was_hidden_then(fight: Path) -> None:
    """Bo is shown on 12: a viewer at 5 sees no Bo (not in the roster, the actions aimed at
    him, the log); at 12, Bo and his dodge."""
    data = show(fight, "--at", "5", "--viewer")
    assert [c["name"] for c in data["combatants"]] == ["Ann"]
    assert data["actions"] == [] and not any("Bo" in e["text"] for e in data["log"])
    code, text = cli("show", str(fight), "--at", "5", "--viewer")
    assert code == 0 and "Bo" not in text and "Replay: the fight as it stood at the end of segment 5 (segments 0 to 40)" in text
    assert "dazed until 7 (2 left)" in text
    later = show(fight, "--at", "12", "--viewer")
    assert [c["name"] for c in later["combatants"]] == ["Ann", "Bo"]
    # What Ann's sword did while Bo was hidden stays unseen after he is shown.
    assert not any("sword" in e["text"] for e in later["log"])


def test_show_at_as_a_player(fight: Path) -> None:
    data = show(fight, "--at", "5", "--player", "Ann")
    assert [c["name"] for c in data["combatants"]] == ["Ann"]
    code, text = cli("show", str(fight), "--at", "5", "--player", "Bo")
    assert code == 0 and "Bo [foes]" in text  # a player's own combatant, hidden or not


def test_a_segment_out_of_range_is_refused_naming_the_range(fight: Path) -> None:
    for bad in ("-1", "41", "1000"):
        for command in ("show", "export"):
            code, text = cli(command, str(fight), "--at", bad)
            assert code == 1 and text == ""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "tracker", "show", str(fight), "--at", "41"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.strip() == "tracker: --at 41: this fight's segments run from 0 to 40"
    done = subprocess.run([sys.executable, "-m", "tracker", "show", str(fight), "--at", "x"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "invalid int value" in done.stderr


def test_export_at_a_segment(fight: Path, tmp_path: Path) -> None:
    code, text = cli("export", str(fight), "--at", "5", "--viewer")
    assert code == 0
    assert "At segment 5 · round 1, segment 5, as the fight stood at the end of that segment (a replay of segments 0 to 40)." in text
    assert "## State at the end of that segment" in text and "## Final state" not in text
    assert "Bo" not in text and "| Ann | acting | hp 20/20 | dazed until 7 |" in text
    out = tmp_path / "at12.html"
    code, text = cli("export", str(fight), "--at", "12", "-o", str(out))
    assert code == 0
    page = out.read_text()
    assert "<h2>State at the end of that segment</h2>" in page and "throwback landed first" in page and "dodge" in page


def test_open_replay_needs_a_file() -> None:
    code, _ = cli("open", "--replay")
    assert code == 2
