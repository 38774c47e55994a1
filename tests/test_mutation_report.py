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


def test_the_json_keeps_an_upkeep_and_the_time_airborne_while_it_lasts() -> None:
    """Ann's glow (PT 1) sets an upkeep of 2 EP a payment; A's punch throws B back (3
    segments airborne once it lands on 10): the JSON keeps both exactly, for scripts."""
    from tracker.engine import Resolution, Throwback, Upkeep

    enc = encounter("Ann", "A", "B", payment_every=10)
    enc.apply(Event("declare", {"actor": "Ann", "template": "glow", "mode": "active",
                                "resolution": Resolution(pt=1, effects=(Upkeep("Ann", "glow", "ep", 2),))}))
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 3.0, 3.0, 2),), targets=("B",))
    advance(enc, 2)
    before = {c["name"]: c for c in report.to_json(enc)["combatants"]}
    assert before["Ann"]["upkeep"] == {"glow": {"resource": "ep", "amount": 2}}
    assert before["B"]["upkeep"] == {} and before["B"]["airborne_until"] is None
    advance(enc, 10)
    b = enc.combatants["B"]
    assert b.airborne(10)
    after = {c["name"]: c for c in report.to_json(enc)["combatants"]}
    assert after["B"]["airborne_until"] == b.airborne_until and b.airborne_until > 10


def _raid() -> Encounter:
    """Ann (side party) and Orc (side raiders, hp 10), viewers told labels (decision 0017):
    Ann's hit (PT 3) at Orc hits by 4 with a 6 and a 5; Ann's player proposes a kick
    (approval mode) on 1, then the GM notes something."""
    from tracker.engine import Resolution

    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": "party", "resources": {"hp": 20}}))
    enc.apply(Event("add", {"name": "Orc", "side": "raiders", "resources": {"hp": 10}}))
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=3, success=True, margin=4, dice=(6, 5), summary="hits by 4")}, by="gm:alice"))
    advance(enc, 1)
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}, by="gm:alice"))
    enc.apply(Event("propose", {"action": "declare", "actor": "Ann", "template": "kick", "mode": "passive",
                                "resolution": Resolution(pt=2)}, by="player:ann"))
    enc.apply(Event("note", {"text": "the bridge creaks"}, by="gm:alice"))
    return enc


def test_the_json_names_each_actions_figures_and_withholds_an_enemys_from_viewers() -> None:
    enc = _raid()
    gm = report.to_json(enc)["actions"][0]
    assert {k: gm[k] for k in ("id", "actor", "template", "pt", "start", "completes", "targets")} == {
        "id": gm["id"], "actor": "Ann", "template": "hit", "pt": 3, "start": 0, "completes": 3, "targets": ["Orc"]}
    assert (gm["success"], gm["margin"], gm["dice"], gm["summary"]) == (True, 4, [6, 5], "hits by 4")
    seen = report.to_json(enc, viewer=True)["actions"][0]
    assert {k: seen[k] for k in ("success", "margin", "dice", "summary")} == {
        "success": True, "margin": None, "dice": [], "summary": "figures withheld from viewers"}
    assert seen["id"] == gm["id"] and seen["pt"] == 3 and seen["targets"] == ["Orc"]


def test_the_proposals_waiting_are_the_gms_and_each_players_own() -> None:
    enc = _raid()
    waiting = enc.pending()[0]
    expected = {"seq": waiting.seq, "action": "declare", "actor": "Ann", "what": waiting.what(), "segment": 1, "by": "player:ann"}
    assert report.to_json(enc)["proposals"] == [expected]
    assert report.to_json(enc, role=Role.player(["Ann"]))["proposals"] == [expected]
    assert report.to_json(enc, role=Role.player(["Orc"]))["proposals"] == []
    assert report.to_json(enc, viewer=True)["proposals"] == []
    text = report.to_text(enc)
    assert _block(text, "Waiting for the GM:") == [f"  proposal {waiting.seq}: Ann, {waiting.what()} (player ann)"]


def test_a_viewer_reads_an_enemys_label_in_place_of_its_figures() -> None:
    enc = _raid()
    enc.apply(Event("damage", {"target": "Orc", "amount": 6, "resource": "hp"}))  # 4 of 10: at most half
    seen = _block(report.to_text(enc, viewer=True), "Combatants:")
    assert seen == ["  Ann [party]: acting; hp 20/20", "  Orc [raiders]: idle; Bloodied"]
    assert _block(report.to_text(enc), "Combatants:")[1] == "  Orc [raiders]: idle; hp 4/10"


def test_every_condition_and_mark_of_a_combatant_on_its_line() -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True, "side": "red"}))
    enc.apply(Event("condition", {"target": "Spy", "name": "stunned", "duration": 3}))
    enc.apply(Event("condition", {"target": "Spy", "name": "prone", "duration": 4}))
    enc.apply(Event("set", {"target": "Spy", "key": "luck", "value": 3}))  # no maximum: shown as its own
    assert _block(report.to_text(enc), "Combatants:") == [
        "  Spy [red]: idle; hp 5/5, luck 3/3; stunned until 3 (3 left), prone until 4 (4 left); hidden"]
    # a player sees its own hidden combatant in the text too
    assert "  Spy [red]: idle; hp 5/5, luck 3/3; stunned until 3 (3 left), prone until 4 (4 left); hidden" in report.to_text(
        enc, viewer=True, role=Role.player(["Spy"])).splitlines()


def test_the_text_is_headings_indented_lines_and_blank_lines() -> None:
    enc = _raid()
    lines = report.to_text(enc).splitlines()
    assert all(line == "" or line.startswith("  ") or line.endswith(":") for line in lines[1:])
    assert lines[lines.index("Log:") - 1] == "" and lines[lines.index("In progress:") - 1] == ""


def test_a_maintained_link_says_how_many_times_in_progress() -> None:
    from tracker.engine import Resolution

    enc = encounter("Ann", "Bob")
    declare(enc, "Ann", "punch", 2, targets=("Bob",), maintainable=True)
    advance(enc, 2)
    enc.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(pt=2)}))
    link = report.to_json(enc)["actions"][-1]
    assert link["maintained"] >= 1
    assert _block(report.to_text(enc), "In progress:") == [f"  Ann: active punch (maintained x{link['maintained']}), 2 -> 4"]


def test_nothing_a_viewer_may_see_is_due_next() -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    declare(enc, "Spy", "stab", 2)
    assert report.to_json(enc)["next"] == 2
    assert report.to_json(enc, viewer=True)["next"] is None


def test_a_replays_line_comes_before_the_blank_line() -> None:
    from tracker.engine.replay import fold_at

    enc = _fight()
    advance(enc, 6)
    lines = report.to_text(fold_at(enc, 2, "--at")).splitlines()
    assert lines[1].startswith("Replay: ") and lines[2] == "" and lines[3] == "Combatants:"


def test_the_text_lists_eight_things_due_and_a_sheet_with_nothing_on_it() -> None:
    """docs/mutation.md (viewing's survivors): "the text and the app show 8" things due."""
    enc = encounter(*(f"Orc {i}" for i in range(1, 11)))
    for i in range(1, 11):
        declare(enc, f"Orc {i}", "swing", i)
    assert len(report.to_json(enc)["upcoming"]) == 10
    assert _block(report.to_text(enc), "Upcoming:") == [f"  segment {i}: Orc {i}'s swing completes" for i in range(1, 9)]
    enc.apply(Event("add", {"name": "Ghost", "resources": {}}))
    ghost = next(line for line in _block(report.to_text(enc), "Combatants:") if "Ghost" in line)
    assert ghost.startswith("  Ghost: idle;") and "None" not in ghost
