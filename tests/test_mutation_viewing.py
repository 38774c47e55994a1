"""Direct tests of tracker.reading.viewing and tracker.reading.roles: what a GM, a player and a viewer may
see of a fight (docs/decisions/0017-viewer-resources.md) and who made a change, in words.

Decision 0017: "An enemy is a combatant whose side is not the players': a side named PC,
PCs, player, players, party, hero, heroes, ally or allies (any case) is the players'";
"Down when down, Bloodied at or under one half of the maximum of any of them, Healthy
above"; in label and hidden modes a line stating an enemy's figures reads "NAME: figures
withheld" for viewers."""

from __future__ import annotations

import pytest

from tests.helpers import encounter
from tracker.engine import Encounter, Event, LogEntry, Resolution
from tracker.reading.roles import Role, visible_to, who
from tracker.reading.viewing import dice_of, health_label, is_enemy, log_text, shown, sight


def _table(mode: str = "", orc_hp: int = 10) -> Encounter:
    """Ann (side party), Orc (side raiders, hp 10) and Nobody (no side)."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": "party", "resources": {"hp": 20}}))
    enc.apply(Event("add", {"name": "Orc", "side": "raiders", "resources": {"hp": orc_hp}}))
    enc.apply(Event("add", {"name": "Nobody", "resources": {"hp": 4}}))
    if mode:
        enc.apply(Event("setting", {"key": "viewer_resources", "value": mode}))
    return enc


# ------------------------------------------------------------------ roles
def test_who_made_a_change_in_words() -> None:
    assert who("player:bob") == "player bob"
    assert who("gm:alice") == "GM alice"
    assert who("alice") == "GM alice"  # an account without a tag is a GM's
    assert who("") == "GM"


def test_a_role_is_one_of_three_and_a_player_names_a_combatant() -> None:
    with pytest.raises(ValueError, match="expected gm, player or viewer, got 'king'"):
        Role("king")
    with pytest.raises(ValueError, match="at least one combatant"):
        Role.player(["  ", ""])
    player = Role.player([" Ann ", "Ann", "Bob", ""])
    assert player.combatants == ("Ann", "Bob")  # stripped, once each, blanks dropped
    assert (player.is_player, player.is_gm, player.is_viewer) == (True, False, False)
    assert (Role.gm().is_gm, Role.viewer().is_viewer, Role.viewer().is_gm) == (True, True, False)


def _line(about: tuple[str, ...] = ("Orc",), *, secret: bool = False, private: bool = False, while_hidden: bool = False) -> LogEntry:
    return LogEntry(0, "note", "x", about, 1, secret, while_hidden, private)


def test_which_log_lines_each_reader_sees() -> None:
    """roles.visible_to: the GM sees everything; nobody else a secret roll; a private line
    only the players of the combatants it is about; a line about a hidden combatant (or
    written while one was hidden) nobody but that combatant's player."""
    gm, viewer, ann, orc = Role.gm(), Role.viewer(), Role.player(["Ann"]), Role.player(["Orc"])
    for line in (_line(secret=True), _line(private=True), _line(while_hidden=True), _line()):
        assert visible_to(gm, line, hidden=["Orc"])
    assert not visible_to(orc, _line(secret=True))
    assert not visible_to(viewer, _line(private=True)) and not visible_to(ann, _line(private=True))
    assert visible_to(orc, _line(private=True))
    assert visible_to(orc, _line(("Ann", "Orc"), private=True))
    assert not visible_to(viewer, _line(while_hidden=True)) and visible_to(orc, _line(while_hidden=True))
    assert visible_to(viewer, _line()) and visible_to(ann, _line())
    assert not visible_to(viewer, _line(("Ann", "Orc")), hidden=["Orc"])
    assert not visible_to(ann, _line(("Ann", "Orc")), hidden=["Orc"])
    assert visible_to(orc, _line(("Ann", "Orc")), hidden=["Orc"])  # its own
    assert visible_to(viewer, _line(("Ann",)), hidden=["Orc"])


# ------------------------------------------------------------------ enemies and labels
@pytest.mark.parametrize("side", ["PC", "pcs", "Player", "players", "party", "hero", "HEROES", "ally", "allies", " Party "])
def test_the_players_sides(side: str) -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": side, "resources": {"hp": 1}}))
    assert not is_enemy(enc.combatants["Ann"])


@pytest.mark.parametrize("side", ["", "raiders", "partying", "allied", "villains"])
def test_every_other_side_is_an_enemy(side: str) -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Orc", "side": side, "resources": {"hp": 1}}))
    assert is_enemy(enc.combatants["Orc"])


@pytest.mark.parametrize(("hp", "label"), [(10, "Healthy"), (6, "Healthy"), (5, "Bloodied"), (1, "Bloodied"), (0, "Down")])
def test_bloodied_at_or_under_half_the_maximum(hp: int, label: str) -> None:
    """hp 10: 6 is above one half, 5 is one half exactly (at or under: Bloodied), 0 is down."""
    enc = _table()
    enc.apply(Event("damage", {"target": "Orc", "amount": 10 - hp, "resource": "hp"}))
    assert health_label(enc.combatants["Orc"]) == label


def test_a_ruleset_may_set_its_own_threshold() -> None:
    enc = _table()
    enc.apply(Event("damage", {"target": "Orc", "amount": 3, "resource": "hp"}))  # 7 of 10
    assert health_label(enc.combatants["Orc"], bloodied_at=0.75) == "Bloodied"
    assert health_label(enc.combatants["Orc"], bloodied_at=0.6) == "Healthy"


def test_only_the_resources_that_put_a_combatant_down_make_it_bloodied() -> None:
    """The label reads `down_when` (here hp): a spent ep is no wound."""
    enc = encounter("Ann")  # hp 20, ep 30
    enc.apply(Event("damage", {"target": "Ann", "amount": 30, "resource": "ep"}))
    assert health_label(enc.combatants["Ann"]) == "Healthy"
    enc.apply(Event("damage", {"target": "Ann", "amount": 10, "resource": "hp"}))
    assert health_label(enc.combatants["Ann"]) == "Bloodied"


# ------------------------------------------------------------------ resources per mode
@pytest.mark.parametrize("mode", ["", "exact", "label", "hidden"])
def test_the_gm_and_the_players_own_side_always_see_exact_figures(mode: str) -> None:
    enc = _table(mode)
    for name in ("Ann", "Orc"):
        assert shown(enc, enc.combatants[name], viewer=False).resources == enc.combatants[name].resources
    ann = shown(enc, enc.combatants["Ann"], viewer=True)
    assert (ann.resources, ann.maxima, ann.label, ann.withheld) == ({"hp": 20}, {"hp": 20}, "", False)


def test_a_viewer_sees_an_enemys_resources_as_the_mode_says() -> None:
    exact = shown(_table("exact"), _table("exact").combatants["Orc"], viewer=True)
    assert (exact.resources, exact.maxima, exact.label, exact.withheld) == ({"hp": 10}, {"hp": 10}, "", False)
    enc = _table("label")
    label = shown(enc, enc.combatants["Nobody"], viewer=True)  # no side: an enemy
    assert (label.resources, label.maxima, label.label, label.withheld) == ({}, {}, "Healthy", True)
    enc = _table("hidden")
    hidden = shown(enc, enc.combatants["Orc"], viewer=True)
    assert (hidden.resources, hidden.maxima, hidden.label, hidden.withheld) == ({}, {}, "", True)
    # through a sight: a player's own enemy-side combatant is exact for that player
    assert sight(enc, Role.player(["Orc"])).resources(enc.combatants["Orc"]).resources == {"hp": 10}
    assert sight(enc, Role.player(["Ann"])).resources(enc.combatants["Orc"]).withheld


# ------------------------------------------------------------------ log lines per mode
def _hit(enc: Encounter, secret: bool = False) -> None:
    enc.apply(Event("damage", {"target": "Orc", "amount": 5, "resource": "hp"}))
    enc.apply(Event("damage", {"target": "Ann", "amount": 2, "resource": "hp"}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"], "dice": "typed",
                                "secret": secret,
                                "resolution": Resolution(pt=2, success=True, margin=4, dice=(6, 5), summary="hits by 4")}))


def test_in_label_mode_a_viewer_reads_no_enemys_figures() -> None:
    enc = _table("label")
    _hit(enc)
    view = sight(enc, Role.viewer())
    lines = [view.line(e) for e in view.log()][-3:]
    assert lines == [
        "Orc: figures withheld from viewers",
        "Ann takes 2 hp (hp 20 -> 18)",  # the players' own side: exact
        "Ann initiates active hex at Orc, PT 2, completes on segment 2 (figures withheld from viewers) [dice 6 5] (typed)",
    ]
    gm = sight(enc, Role.gm())
    assert [gm.line(e) for e in gm.log()][-3:] == [
        "Orc takes 5 hp (hp 10 -> 5)",
        "Ann takes 2 hp (hp 20 -> 18)",
        "Ann initiates active hex at Orc, PT 2, completes on segment 2: hits by 4 [dice 6 5] (typed)",
    ]
    # a player of the Orc reads its own lines exactly
    orc = sight(enc, Role.player(["Orc"]))
    assert orc.line(orc.log()[-3]) == "Orc takes 5 hp (hp 10 -> 5)"


def test_in_exact_mode_every_reader_reads_the_figures() -> None:
    enc = _table("exact")
    _hit(enc)
    view = sight(enc, Role.viewer())
    assert view.line(view.log()[-3]) == "Orc takes 5 hp (hp 10 -> 5)"
    assert log_text(enc, enc.log[-1], viewer=True).endswith(": hits by 4")


def test_a_secret_rolls_faces_are_the_gms_alone() -> None:
    """A secret roll: the declaration line is everyone's, its faces and the roll's own
    line (secret) the GM's alone."""
    enc = _table("exact")
    _hit(enc, secret=True)
    declared, rolled = enc.log[-2:]
    assert rolled.secret and not declared.secret
    said = "Ann initiates active hex at Orc, PT 2, completes on segment 2 (rolled in secret)"
    assert sight(enc, Role.gm()).line(declared) == said + " [dice 6 5] (typed)"
    for reader in (Role.viewer(), Role.player(["Ann"])):
        view = sight(enc, reader)
        assert view.line(declared) == said
        assert view.log()[-1] == declared and rolled not in view.log()
    # in label mode the secret declaration keeps its words (no figures on it to withhold)
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    assert sight(enc, Role.viewer()).line(declared) == said


def test_dice_of_reads_the_faces_a_declaration_recorded() -> None:
    assert dice_of(None) == ()
    assert dice_of(Event("declare", {"resolution": Resolution(pt=1, dice=(3, 4))})) == (3, 4)
    assert dice_of(Event("declare", {"resolution": {"dice": [2, 6]}})) == (2, 6)
    assert dice_of(Event("declare", {"resolution": {}})) == ()
    assert dice_of(Event("declare", {})) == ()


def test_a_hidden_combatant_is_not_known_to_a_viewer_nor_its_actions() -> None:
    enc = _table()
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Spy"],
                                "resolution": Resolution(pt=2)}))
    enc.apply(Event("declare", {"actor": "Orc", "template": "chop", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=3)}))
    viewer, gm, spy = sight(enc, Role.viewer()), sight(enc, Role.gm()), sight(enc, Role.player(["Spy"]))
    assert viewer.names() == ["Ann", "Orc", "Nobody"]
    assert gm.names() == ["Ann", "Orc", "Nobody", "Spy"] == spy.names()
    assert [a.actor for a in enc.actions if viewer.action(a)] == ["Orc"]
    assert [a.actor for a in enc.actions if spy.action(a)] == ["Ann", "Orc"]
    assert viewer.upcoming() == [(3, "Orc's chop completes")]
    assert len(gm.upcoming()) == 2
    assert not viewer.knows_name("Gone") and gm.knows_name("Gone")  # one that has left


# ------------------------------------------------------------------ a role's words and identity
def test_a_roles_label_signature_and_refusals() -> None:
    """docs/decisions/0016-roles-identity.md: a player's changes are signed "player:" and
    its account (else its combatants); an account that looks like a tag stays a GM's."""
    player = Role.player(["Ann", "Bo"])
    assert player.label() == "player of Ann, Bo"
    assert Role.gm().label() == "GM" and Role.viewer().label() == "viewer"
    assert player.signature("carol") == "player:carol"
    assert player.signature("") == "player:Ann,Bo"
    assert Role.gm().signature("alice") == "alice"
    assert Role.gm().signature("player:x") == "gm:player:x"
    assert Role.gm().signature("gm:x") == "gm:gm:x"
    assert player.owns("ann") and player.owns("BO") and not player.owns("Cy")
    viewer = Role.viewer().refuse("damage")
    assert str(viewer) == "damage: a viewer's session is read-only; changes are made by the GM (rule: viewer)"
    refused = str(player.refuse("damage"))
    assert refused == ("damage: a player declares, maintains and aborts actions for their own combatants (Ann, Bo) "
                       "and takes back their own last declaration; everything else is the GM's (rule: player)")


def test_a_player_is_held_by_identity_through_a_rename() -> None:
    """Role.of: each name is its first bearer; a rename keeps it; one who left is nobody's;
    a newcomer under the old name is someone else."""
    enc = encounter("Ann", "Bo")
    role, missing = Role.of(enc, ["ann ", "Zed", "Ann", ""])
    assert role is not None and role.combatants == ("Ann",) and missing == ["Zed"]
    assert Role.of(enc, ["Zed"]) == (None, ["Zed"])
    enc.apply(Event("rename", {"target": "Ann", "name": "Anna"}))
    assert role.following(enc).combatants == ("Anna",)
    enc.apply(Event("add", {"name": "Ann", "resources": {"hp": 1}}))
    assert role.following(enc).combatants == ("Anna",)
    enc.apply(Event("remove", {"name": "Anna"}))
    assert role.following(enc).combatants == ()
    plain = Role.player(["Bo"])
    assert plain.following(enc) is plain  # held by name: as it is
    assert Role.gm().following(enc) == Role.gm()
