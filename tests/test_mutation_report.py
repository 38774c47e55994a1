"""Direct tests of tracker.reading.report: the encounter as text (`tracker show`) and as JSON
(`tracker show --json`), as the GM, a viewer and a player see it (module docstring;
what each reader sees is `tracker.reading.viewing.sight`'s)."""

from __future__ import annotations

from tests.helpers import advance, declare, encounter
from tracker.reading import report
from tracker.engine import Encounter, Event
from tracker.reading.roles import Role


def _fight() -> Encounter:
    """Ann and Bob in the open, Spy hidden on side red; Ann punches (PT 3) at Bob, Spy
    stabs (PT 2); at segment 1 Bob's player stuns Bob for 3 segments."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True, "side": "red"}))
    declare(enc, "Ann", "punch", 3, targets=("Bob",))
    declare(enc, "Spy", "stab", 2)
    advance(enc, 1)
    enc.apply(Event("condition", {"target": "Bob", "name": "stunned", "duration": 3}, by="player:bob"))
    return enc


def _block(text: str, head: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(head) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


def test_the_gm_sees_everything_in_the_text() -> None:
    text = report.to_text(_fight())
    lines = text.splitlines()
    assert lines[0] == "test (freeform) · segment 1 · round 1, segment 1"
    assert lines[1] == ""
    # stunned at 1 for 3 segments: until 4, 3 left
    assert _block(text, "Combatants:") == [
        "  Ann: acting; hp 20/20, ep 30/30",
        "  Bob: idle; hp 20/20, ep 30/30; stunned until 4 (3 left)",
        "  Spy [red]: acting; hp 5/5; hidden",
    ]
    assert _block(text, "In progress:") == ["  Ann: active punch, 0 -> 3", "  Spy: active stab, 0 -> 2"]
    assert _block(text, "Upcoming:") == [
        "  segment 2: Spy's stab completes", "  segment 3: Ann's punch completes", "  segment 4: Bob stops being stunned"]
    log = _block(text, "Log:")
    assert log[-1] == "  [1] Bob is stunned until segment 4  (player bob)"  # a signed change names who
    assert log[0] == "  [0] Ann joins the fight"  # an unsigned one names nobody
    assert "Waiting for the GM:" not in lines


def test_a_viewer_sees_no_hidden_combatant_nor_its_happenings() -> None:
    enc = _fight()
    text = report.to_text(enc, viewer=True)
    assert "Spy" not in text
    assert _block(text, "Upcoming:") == ["  segment 3: Ann's punch completes", "  segment 4: Bob stops being stunned"]
    gm, viewer = report.to_json(enc), report.to_json(enc, viewer=True)
    assert gm["next"] == 2  # Spy's stab
    assert viewer["next"] == 3  # the first a viewer may see: Ann's punch
    assert [c["name"] for c in viewer["combatants"]] == ["Ann", "Bob"]
    assert [a["actor"] for a in viewer["actions"]] == ["Ann"]
    # the role says viewer though the flag does not
    assert report.to_json(enc, role=Role.viewer())["next"] == 3
    # a player sees its own combatant, hidden or not
    mine = report.to_json(enc, viewer=True, role=Role.player(["Spy"]))
    assert [c["name"] for c in mine["combatants"]] == ["Ann", "Bob", "Spy"]
    assert mine["next"] == 2
    # the GM's role and no flag: everything
    assert report.to_json(enc, role=Role.gm())["next"] == 2


def test_nothing_yet_says_so() -> None:
    text = report.to_text(encounter())
    assert _block(text, "Combatants:") == ["  (none yet: `add NAME key=value ...`)"]
    assert _block(text, "In progress:") == ["  (nothing)"]
    assert "Upcoming:" not in text.splitlines()
    assert _block(text, "Log:") == []


def test_the_json_keeps_the_figures_and_the_time() -> None:
    enc = _fight()
    data = report.to_json(enc)
    assert (data["name"], data["ruleset"], data["segment"], data["round"], data["segment_in_round"]) == ("test", "freeform", 1, 1, 1)
    assert data["clock"] == "segment 1 · round 1, segment 1"
    assert "replay" not in data
    bob = next(c for c in data["combatants"] if c["name"] == "Bob")
    assert bob["conditions"] == {"stunned": 4} and bob["conditions_left"] == {"stunned": 3}
    assert bob["resources"] == {"hp": 20, "ep": 30} and bob["maxima"] == {"hp": 20, "ep": 30}
    assert bob["surprised_until"] is None and bob["airborne_until"] is None
    assert data["can_undo"] is True and data["can_redo"] is False
    assert data["log"][-1] == {"segment": 1, "kind": "condition", "text": "Bob is stunned until segment 4", "seq": 7, "by": "player:bob"}
    assert data["upcoming"][0] == {"segment": 2, "what": "Spy's stab completes"}


def test_surprised_only_while_it_lasts() -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Orc", "resources": {"hp": 5}, "surprised_until": 3}))
    advance(enc, 2)
    orc = report.to_json(enc)["combatants"][0]
    assert orc["surprised_until"] == 3 and orc["state"] == "surprised"
    advance(enc, 3)
    assert report.to_json(enc)["combatants"][0]["surprised_until"] is None  # over at 3


def test_the_log_limit_keeps_the_latest_lines() -> None:
    enc = encounter(*(f"Orc {i}" for i in range(1, 21)))
    assert len(report.to_json(enc)["log"]) == 20
    assert [e["text"] for e in report.to_json(enc, log_limit=2)["log"]] == ["Orc 19 joins the fight", "Orc 20 joins the fight"]
    text = report.to_text(enc)  # `tracker show`: the last 15
    log = _block(text, "Log:")
    assert len(log) == 15 and log[0] == "  [0] Orc 6 joins the fight" and log[-1] == "  [0] Orc 20 joins the fight"


def test_who_is_named_on_the_first_line_of_a_change_only() -> None:
    """An advance the GM alice made lands two actions: two lines, one change; who made it
    is named once."""
    enc = encounter("Ann", "Bob")
    declare(enc, "Ann", "punch", 3)
    declare(enc, "Bob", "kick", 5)
    enc.apply(Event("advance", {"to": 6}, by="gm:alice"))
    log = _block(report.to_text(enc), "Log:")
    assert log[-2:] == ["  [3] Ann's punch completes  (GM alice)", "  [5] Bob's kick completes"]


def test_a_secret_roll_and_withheld_figures() -> None:
    """A secret roll's figures are nobody's but the GM's; everything else shows its summary."""
    from tracker.engine import Resolution

    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Bob"], "secret": True,
                                "resolution": Resolution(pt=2, success=True, margin=4, dice=(6, 5), summary="hits by 4")}))
    gm = report.to_json(enc)["actions"][0]
    assert (gm["success"], gm["margin"], gm["dice"], gm["summary"]) == (True, 4, [6, 5], "hits by 4")
    seen = report.to_json(enc, viewer=True)["actions"][0]
    assert (seen["success"], seen["margin"], seen["dice"], seen["summary"]) == (None, None, [], "rolled in secret")


def test_control_characters_in_names_are_shown_visibly_in_the_text_and_kept_in_the_json() -> None:
    enc = encounter("Ann\x1b[2J")
    text = report.to_text(enc)
    assert "\x1b" not in text
    assert "  Ann\u241b[2J: idle; hp 20/20, ep 30/30" in text.splitlines()
    assert report.to_json(enc)["combatants"][0]["name"] == "Ann\x1b[2J"  # exact for scripts


def test_a_replay_says_which_segment_it_shows() -> None:
    from tracker.engine.replay import fold_at

    enc = _fight()
    advance(enc, 6)
    shown = fold_at(enc, 2, "--at")
    data = report.to_json(shown)
    assert data["replay"] == {"segment": 2, "first": 0, "last": 6}
    lines = report.to_text(shown).splitlines()
    assert lines[1] == "Replay: the fight as it stood at the end of segment 2 (segments 0 to 6)"
