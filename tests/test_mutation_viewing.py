"""Direct tests of tracker.reading.viewing and tracker.reading.roles: what a GM, a player and a viewer may
see of a fight (docs/decisions/0017-viewer-resources.md), who made a change, in words, and
which characters a player's key gives at a campaign's table (docs/decisions/0050-serve-campaign.md).

Decision 0017: "An enemy is a combatant whose side is not the players': a side named PC,
PCs, player, players, party, hero, heroes, ally or allies (any case) is the players'";
"Down when down, Bloodied at or under one half of the maximum of any of them, Healthy
above"; in label and hidden modes a line stating an enemy's figures reads "NAME: figures
withheld" for viewers."""

from __future__ import annotations

import pytest

from tests.helpers import encounter
from tracker.engine import Encounter, Event, LogEntry, Resolution, Setup, TimeMapping
from tracker.engine.errors import RuleRefusal
from tracker.engine.model import CombatantSetup, Proposal
from tracker.persistence.campaign import Campaign
from tracker.play.policy import Policy
from tracker.reading.roles import Characters, Role, _carrying, campaign_characters, visible_to, who
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


def test_a_local_session_is_the_os_account_never_an_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """roles.account: "the OS account this process runs as (its passwd entry, else `uid N`).
    Never an environment variable (`$USER`, `$LOGNAME`, `$TRACKER_USER`)"."""
    import os
    import pwd

    from tracker.reading.roles import account

    for variable in ("USER", "LOGNAME", "TRACKER_USER"):
        monkeypatch.setenv(variable, "dan-not-me")
    assert account() == pwd.getpwuid(os.getuid()).pw_name != "dan-not-me"

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert account() == f"uid {os.getuid()}"


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


# ------------------------------------------------------------------ a player's key at a campaign's table
def _road(*events: Event) -> Campaign:
    """The campaign road: Seraph (pc1), Nyx (pc2) and Vex (pc3) join, then `events`."""
    joins = [Event("join", {"pc": f"pc{i}", "name": name, "resources": {"hp": 10}})
             for i, name in enumerate(("Seraph", "Nyx", "Vex"), 1)]
    return Campaign("road", "freeform", events=[*joins, *events])


def _fought(party: dict[str, dict[str, object]] | None = None, file: str = "road-1.toml") -> list[Event]:
    """A fight of the whole party that ends with `party` (what goes back to the campaign)."""
    end: dict[str, object] = {"file": file, "revision": 4}
    if party is not None:
        end["party"] = party
    return [Event("fight", {"file": file, "name": file.removesuffix(".toml"), "pcs": ["pc1", "pc2", "pc3"]}), Event("end", end)]


def test_a_key_names_characters_by_the_campaigns_id() -> None:
    """0050: "`pc="pc2"` names the character by its id: `pc1`, `pc2`, ... in the order they
    joined"; an id no character ever had is unknown (logged for the GM)."""
    camp = _road()
    assert campaign_characters(camp, ids=["pc2"]) == Characters(("pc2",))
    found = campaign_characters(camp, ids=["pc3", "pc9", "pc1"])
    assert found.pcs == ("pc3", "pc1") and found.unknown == ("pc9",) and found.gone == ()
    # an id is an id: a name given as pc= names nobody
    assert campaign_characters(camp, ids=["Seraph"]) == Characters(unknown=("Seraph",))
    assert campaign_characters(camp) == Characters()


def test_a_key_names_a_character_by_name_ignoring_case_and_spaces() -> None:
    """0050: "`combatant="Seraph"` names the character by a name it has carried in the
    campaign: the character that first carried it (ignoring case)"."""
    camp = _road()
    assert campaign_characters(camp, ["seraph"]).pcs == ("pc1",)
    assert campaign_characters(camp, [" NYX ", "vEx"]).pcs == ("pc2", "pc3")
    found = campaign_characters(camp, ["Ghost", "Nyx"])
    assert found.pcs == ("pc2",) and found.unknown == ("Ghost",) and found.gone == ()
    assert campaign_characters(camp, ["Sera"]) == Characters(unknown=("Sera",))  # a name nobody carried


def test_a_character_renamed_in_a_fight_is_still_theirs_by_its_first_name() -> None:
    """0050: "a key written when the character was Seraph stays theirs after it becomes
    Sera, and a new character who joins later as Seraph is someone else ... Its names now
    are read too: a key written as `combatant="Sera"` after the rename is the same
    character." A rename in a fight goes back to the campaign with the fight's end."""
    camp = _road(*_fought({"pc1": {"name": "Sera", "resources": {"hp": 7}}, "pc2": {"resources": {"hp": 3}}}))
    assert camp.pcs["pc1"].name == "Sera"
    assert campaign_characters(camp, ["Seraph"]).pcs == ("pc1",)
    assert campaign_characters(camp, ["SERA"]).pcs == ("pc1",)
    assert campaign_characters(camp, ["Nyx"]).pcs == ("pc2",)  # not renamed: still hers
    camp.apply(Event("join", {"pc": "pc4", "name": "Seraph", "resources": {"hp": 12}}))  # a newcomer, the old name
    assert campaign_characters(camp, ["Seraph"]).pcs == ("pc1",)
    assert campaign_characters(camp, ids=["pc4"]).pcs == ("pc4",)  # the newcomer's key names its id


def test_a_character_renamed_with_campaign_set_is_still_theirs() -> None:
    """docs/campaigns.md: "A rename, in a fight or in the campaign, keeps it"; a set may name
    its character by id or by name (ignoring case), as `campaign set` takes either."""
    camp = _road(Event("set", {"pc": "pc2", "name": "Nyxa"}), Event("set", {"pc": "vex", "name": "Vexa"}),
                 Event("set", {"pc": "pc1", "side": "party"}))  # a set that renames nobody
    assert campaign_characters(camp, ["nyx", "Nyxa"]).pcs == ("pc2",)
    assert campaign_characters(camp, ["Vexa"]).pcs == ("pc3",)
    assert campaign_characters(camp, ["Vex"]).pcs == ("pc3",)
    camp.apply(Event("join", {"pc": "pc4", "name": "Nyx", "resources": {"hp": 8}}))  # someone else
    assert campaign_characters(camp, ["Nyx"]).pcs == ("pc2",)
    assert campaign_characters(camp, ["Nyx"], ["pc4"]).pcs == ("pc4", "pc2")


def test_a_character_who_left_or_died_is_nobodys() -> None:
    """0050: "A character who has left the party or died is nobody's: the key watches as a
    viewer, told "Your character Seraph has died" (or "has left the party")"."""
    camp = _road(Event("leave", {"pc": "pc3", "reason": "died"}), Event("leave", {"pc": "pc2"}))
    found = campaign_characters(camp, ["Vex", "Seraph"], ["pc2"])
    assert found.pcs == ("pc1",)
    assert set(found.gone) == {"Vex has died", "Nyx has left the party"} and found.unknown == ()
    assert campaign_characters(camp, ["nyx"]) == Characters(gone=("Nyx has left the party",))
    # a newcomer under the dead one's name is someone else: the key still names the dead
    camp.apply(Event("join", {"pc": "pc4", "name": "Vex", "resources": {"hp": 5}}))
    assert campaign_characters(camp, ["Vex"]) == Characters(gone=("Vex has died",))
    assert campaign_characters(camp, ids=["pc4"]).pcs == ("pc4",)


def test_each_character_once_in_the_order_the_key_names_them() -> None:
    """A key that names a character twice (by two names, by name and id) gives it once; ids
    first (`pc=`), then names (`combatant=`), each in the order written."""
    camp = _road(*_fought({"pc1": {"name": "Sera"}}), Event("leave", {"pc": "pc3", "reason": "died"}))
    found = campaign_characters(camp, ["Seraph", "nyx", "sera", "Vex", "vex"], ["pc2", "pc3", "pc2"])
    assert found.pcs == ("pc2", "pc1")
    assert found.gone == ("Vex has died",)
    assert campaign_characters(camp, ["Nyx", "Seraph"]).pcs == ("pc2", "pc1")


def _campaign_fight() -> Encounter:
    """A campaign's fight: Sera (pc1), a foe named Seraph (no id), Nyx (pc2), Bo (pc3)."""
    enc = Encounter(Setup("road 2", "freeform", TimeMapping(50, "test"), ("hp",), campaign="road.campaign.toml"))
    enc.apply(Event("add", {"name": "Sera", "resources": {"hp": 20}, "pc": "pc1"}))
    enc.apply(Event("add", {"name": "Seraph", "side": "raiders", "resources": {"hp": 9}}))
    enc.apply(Event("add", {"name": "Nyx", "resources": {"hp": 12}, "pc": "pc2"}))
    enc.apply(Event("add", {"name": "Bo", "resources": {"hp": 12}, "pc": "pc3"}))
    return enc


def test_a_players_role_in_a_campaign_fight_is_its_characters_by_id() -> None:
    """Role.of_characters: "held by that id: a rename keeps them, and a combatant without it
    (a foe, whatever its name) is never theirs. None if none of them is in the fight."
    Their names are the fight's combatants', in the roster's order."""
    enc = _campaign_fight()
    role = Role.of_characters(enc, ["pc2", "", "pc1", "pc2"])
    assert role is not None and role.is_player
    assert role.combatants == ("Sera", "Nyx") and set(role.pcs) == {"pc1", "pc2"} and len(role.pcs) == 2
    assert role.owns("sera") and role.owns("Nyx") and not role.owns("Seraph") and not role.owns("Bo")
    assert Role.of_characters(enc, ["pc7"]) is None and Role.of_characters(enc, ["", ""]) is None
    assert Role.of_characters(enc, []) is None
    # what the player may declare for: its own characters, never the foe with the old name
    policy = Policy(role)
    policy.guard(enc, Event("declare", {"actor": "Nyx", "template": "hex", "mode": "active"}), "player:dan")
    for actor in ("Seraph", "Bo"):
        with pytest.raises(RuleRefusal, match="player"):
            policy.guard(enc, Event("declare", {"actor": actor, "template": "hex", "mode": "active"}), "player:dan")
    # what it sees: its own in full, the foe as a viewer does
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "hidden"}))
    view = sight(enc, role)
    assert view.exact(enc.combatants["Sera"]) and not view.exact(enc.combatants["Seraph"])
    assert view.resources(enc.combatants["Seraph"]).withheld and view.resources(enc.combatants["Nyx"]).resources == {"hp": 12}


def test_a_role_held_by_id_follows_renames_and_departures() -> None:
    """Role.following: "a player's held by identity, or by the campaign's id; a combatant
    that has left is nobody's"; with none left the player is told none of theirs is here."""
    enc = _campaign_fight()
    role = Role.of_characters(enc, ["pc1"])
    assert role is not None
    assert role.following(enc) is role  # nothing changed
    enc.apply(Event("rename", {"target": "Sera", "name": "Angel"}))
    renamed = role.following(enc)
    assert renamed.combatants == ("Angel",) and renamed.pcs == ("pc1",) and renamed.owns("angel")
    assert not renamed.owns("Seraph")
    enc.apply(Event("remove", {"name": "Angel"}))
    left = role.following(enc)
    assert left.combatants == () and left.is_player and left.pcs == ("pc1",)
    assert left.label() == "player (none of yours is in this fight)"
    assert not left.owns("Seraph")


def test_carrying_names_only_the_fights_combatants_with_those_ids() -> None:
    """_carrying: "The names now of the fight's combatants that are the campaign's
    characters `pcs`": a combatant with no id is no character, even asked for a blank id."""
    enc = _campaign_fight()
    assert _carrying(enc, ["pc3", "pc1"]) == ("Sera", "Bo")  # the roster's order
    assert _carrying(enc, ["", "pc2"]) == ("Nyx",)
    assert _carrying(enc, [""]) == () and _carrying(enc, ["pc9"]) == () and _carrying(enc, []) == ()


def test_a_proposal_is_seen_by_the_gm_and_by_its_actors_player() -> None:
    """Module docstring: "A player sees what a viewer sees plus their own combatants in full
    ... and the proposals and refusals about them"; a viewer sees no proposal."""
    enc = _campaign_fight()
    mine = Proposal(5, "declare", "Nyx", {}, 1)
    theirs = Proposal(6, "declare", "Bo", {}, 1)
    assert sight(enc, Role.gm()).proposal(mine) and sight(enc, Role.gm()).proposal(theirs)
    assert not sight(enc, Role.viewer()).proposal(mine)
    player = sight(enc, Role.player(["nyx"]))
    assert player.proposal(mine) and not player.proposal(theirs)


def test_a_set_naming_its_character_by_name_renames_the_one_called_so_then() -> None:
    """A set written by name (a hand-edited campaign file) changes the character the
    campaign finds by that name at that point, the party first: after Seraph became Sera
    and a newcomer joined as Seraph, `set pc="Seraph" name="Angel"` renames the newcomer,
    so a key naming Angel is the newcomer's, never Sera's."""
    camp = _road(*_fought({"pc1": {"name": "Sera"}}), Event("join", {"pc": "pc4", "name": "Seraph", "resources": {"hp": 12}}),
                 Event("set", {"pc": "Seraph", "name": "Angel"}))
    assert camp.pcs["pc4"].name == "Angel" and camp.pcs["pc1"].name == "Sera"
    assert campaign_characters(camp, ["Angel"]).pcs == ("pc4",)
    assert campaign_characters(camp, ["Seraph"]).pcs == ("pc1",)  # the name's first bearer still
    # one who left is found by name after the party: Vex left, a newcomer took the name
    camp = _road(Event("leave", {"pc": "pc3"}), Event("join", {"pc": "pc4", "name": "Vex", "resources": {"hp": 5}}),
                 Event("set", {"pc": "vex", "name": "Rook"}))
    assert camp.pcs["pc4"].name == "Rook"
    assert campaign_characters(camp, ["Rook"]).pcs == ("pc4",)


# ------------------------------------------------------------------ what each reader sees, function by function
def test_the_encounters_setting_else_the_users_default_else_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """viewing.mode_of: "The encounter's own setting, else the user's config default, else exact"."""
    from tracker.persistence import config

    enc = _table()
    assert not shown(enc, enc.combatants["Orc"], viewer=True).withheld  # no setting, no config: exact
    monkeypatch.setattr(config, "_viewer_default", "label")
    assert shown(enc, enc.combatants["Orc"], viewer=True).label == "Healthy"
    labelled = _table("hidden")
    assert shown(labelled, labelled.combatants["Orc"], viewer=True).label == ""  # the encounter's own wins


def test_a_label_reads_every_resource_when_none_puts_it_down() -> None:
    """health_label: the resources that put a combatant down, else all of them; a resource
    with no maximum (0) is no wound."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ward", "resources": {"luck": 10, "ward": 0}}))
    assert health_label(enc.combatants["Ward"]) == "Healthy"
    enc.apply(Event("damage", {"target": "Ward", "amount": 6, "resource": "luck"}))  # 4 of 10
    assert health_label(enc.combatants["Ward"]) == "Bloodied"


def test_a_result_line_withholds_its_targets_figures_or_its_actors() -> None:
    """log_text: "An action's result line (a `note` about the actor and its targets) states
    the targets' figures, or the actor's own when it has no target"; lines of other kinds
    state no figures."""
    enc = _table("label")

    def note(about: tuple[str, ...], kind: str = "note") -> LogEntry:
        return LogEntry(0, kind, "the words", about, 1)

    assert log_text(enc, note(("Ann", "Orc")), viewer=True) == "Orc: figures withheld from viewers"
    assert log_text(enc, note(("Orc", "Ann")), viewer=True) == "the words"  # at the party's: stated
    assert log_text(enc, note(("Orc",)), viewer=True) == "Orc: figures withheld from viewers"
    assert log_text(enc, note(("Ann",)), viewer=True) == "the words"
    assert log_text(enc, note(("Orc", "Ann"), kind="damage"), viewer=True) == "Orc: figures withheld from viewers"
    assert log_text(enc, note(("Ann", "Orc"), kind="damage"), viewer=True) == "the words"  # about Ann first
    assert log_text(enc, note(("Orc",), kind="add"), viewer=True) == "the words"
    assert log_text(enc, note(()), viewer=True) == "the words"
    assert log_text(enc, note(("Orc",)), viewer=False) == "the words"
    assert log_text(enc, note(("Gone",)), viewer=True) == "Gone: figures withheld from viewers"  # one that left


def test_a_declaration_at_an_enemy_loses_only_its_own_summary() -> None:
    """log_text: "a declaration against an enemy keeps who, at whom and when, and loses its
    roll's summary" (the actor's own action begun on that segment); at the party's it is whole."""
    enc = _table("label")
    # Nobody's summary is the tail of Ann's: hers is read from her own action
    enc.apply(Event("declare", {"actor": "Nobody", "template": "jab", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=2, summary="hit for 6 VP")}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=2, summary="Attack +1 vs Orc's Defense +0: hit for 6 VP")}))
    enc.apply(Event("declare", {"actor": "Orc", "template": "chop", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=3, summary="hits by 1")}))
    view = sight(enc, Role.viewer())
    assert [view.text(e) for e in enc.log[-3:]] == [
        "Nobody initiates active jab at Orc, PT 2, completes on segment 2 (figures withheld from viewers)",
        "Ann initiates active hex at Orc, PT 2, completes on segment 2 (figures withheld from viewers)",
        "Orc initiates active chop at Ann, PT 3, completes on segment 3: hits by 1",
    ]


def test_a_player_reads_a_line_exactly_only_when_all_it_is_about_is_theirs() -> None:
    """Sight.text: "a player's own figures are theirs: exact"; a line also about an enemy
    of someone else's is read as a viewer reads it."""
    enc = _table("label")
    both = LogEntry(0, "note", "Ann hits Orc for 5", ("Ann", "Orc"), 1)
    alone = LogEntry(0, "note", "Orc rests", ("Orc",), 1)
    orc = sight(enc, Role.player(["orc"]))
    assert orc.text(alone) == "Orc rests"
    assert orc.text(both) == "Orc: figures withheld from viewers"
    assert sight(enc, Role.player(["Ann", "Orc"])).text(both) == "Ann hits Orc for 5"
    assert sight(enc, Role.gm()).text(both) == "Ann hits Orc for 5"


def test_which_lines_a_sight_shows() -> None:
    """Sight.entry, as roles.visible_to: a line about a hidden combatant is shown to the GM
    and to that combatant's player only."""
    enc = _table()
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    about_spy = LogEntry(0, "note", "Spy waits", ("Spy",), 1)
    assert sight(enc, Role.gm()).entry(about_spy) and sight(enc, Role.player(["spy"])).entry(about_spy)
    assert not sight(enc, Role.viewer()).entry(about_spy) and not sight(enc, Role.player(["Ann"])).entry(about_spy)
    assert about_spy not in sight(enc, Role.player(["Ann"])).log()
    assert sight(enc, Role.viewer()).entry(LogEntry(0, "note", "Ann waits", ("Ann",), 1))
    assert not sight(enc, Role.player(["Ann"])).knows(enc.combatants["Spy"])
    assert sight(enc, Role.player(["SPY"])).knows(enc.combatants["Spy"])


def test_a_line_shows_its_faces_and_who_decided_them_when_known() -> None:
    """Sight.line: a declaration's faces, then who decided them when the event says; a line
    that is no declaration's, or names no event, is its words alone."""
    enc = _table("exact")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=2, dice=(3, 1), summary="misses")}))
    declared = enc.log[-1]
    gm = sight(enc, Role.gm())
    assert gm.line(declared) == declared.text + " [dice 3 1]"  # no `dice` word: no mark
    assert LogEntry(0, "declare", "x", ("Ann",), declared.seq).seq == len(enc.events)  # the last event's line
    assert gm.line(LogEntry(0, "declare", "no event", ("Ann",), 0)) == "no event"
    assert gm.line(LogEntry(0, "declare", "beyond", ("Ann",), len(enc.events) + 1)) == "beyond"
    assert gm.line(LogEntry(0, "note", "a note", ("Ann",), declared.seq)) == "a note"


def test_an_actions_figures_are_withheld_when_aimed_at_an_enemy() -> None:
    """Sight.withheld: "aimed at an enemy while the table shows enemies' figures to viewers
    as a label, or not at all"; never from the GM, nor a player's own target."""
    for mode in ("label", "hidden"):
        enc = _table(mode)
        enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"], "resolution": Resolution(pt=2)}))
        enc.apply(Event("declare", {"actor": "Orc", "template": "chop", "mode": "active", "targets": ["Ann"], "resolution": Resolution(pt=3)}))
        enc.apply(Event("declare", {"actor": "Nobody", "template": "hide", "mode": "active", "resolution": Resolution(pt=4)}))
        at_orc, at_ann, alone = enc.actions
        viewer = sight(enc, Role.viewer())
        assert viewer.withheld(at_orc) and not viewer.withheld(at_ann) and not viewer.withheld(alone)
        assert not sight(enc, Role.gm()).withheld(at_orc)
        assert not sight(enc, Role.player(["orc"])).withheld(at_orc)
        assert sight(enc, Role.player(["Ann"])).withheld(at_orc)
    enc = _table("exact")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"], "resolution": Resolution(pt=2)}))
    assert not sight(enc, Role.viewer()).withheld(enc.actions[0])


def test_a_viewer_is_told_as_many_coming_events_as_the_gm_where_it_may_see_them() -> None:
    """Sight.upcoming(limit): at most `limit` items, counted among those the reader may see."""
    enc = _table()
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    enc.apply(Event("declare", {"actor": "Spy", "template": "stab", "mode": "active", "resolution": Resolution(pt=2)}))
    for actor, pt in (("Ann", 3), ("Orc", 4), ("Nobody", 5)):
        enc.apply(Event("declare", {"actor": actor, "template": "hit", "mode": "active", "resolution": Resolution(pt=pt)}))
    assert sight(enc, Role.gm()).upcoming(limit=2) == [(2, "Spy's stab completes"), (3, "Ann's hit completes")]
    assert sight(enc, Role.viewer()).upcoming(limit=2) == [(3, "Ann's hit completes"), (4, "Orc's hit completes")]
    assert len(sight(enc, Role.viewer()).upcoming()) == 3


def test_a_one_point_resource_spent_is_a_wound() -> None:
    """Decision 0017: "Bloodied at or under one half of the maximum of any of them": a
    maximum of 1 counts like any other (0 is under one half of 1), only a maximum of 0 is
    no wound."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ward", "resources": {"luck": 1}}))
    assert health_label(enc.combatants["Ward"]) == "Healthy"
    enc.apply(Event("damage", {"target": "Ward", "amount": 1, "resource": "luck"}))  # 0 of 1
    assert health_label(enc.combatants["Ward"]) == "Bloodied"


def test_a_viewers_label_reads_the_rulesets_own_threshold() -> None:
    """`shown` passes the ruleset's share on to the label: Orc at 4 of 10 is Healthy
    against a share of a quarter (4 > 2.5), Bloodied against the default half."""
    enc = _table("label")
    enc.apply(Event("damage", {"target": "Orc", "amount": 6, "resource": "hp"}))
    assert shown(enc, enc.combatants["Orc"], viewer=True, bloodied_at=0.25).label == "Healthy"
    assert shown(enc, enc.combatants["Orc"], viewer=True).label == "Bloodied"


# ------------------------------------------------------------------ lines and keys the survivors pointed at
def test_a_declaration_with_no_summary_at_an_enemy_is_read_whole() -> None:
    """Decision 0017: "the declaration and completion lines stay: the players saw the blow
    land"; log_text: a declaration against an enemy "keeps who, at whom and when, and loses
    its roll's summary". A freeform declaration has no summary (the GM states the outcome),
    so a viewer reads it whole, as the GM does: nothing on it is a figure."""
    for mode in ("label", "hidden"):
        enc = _table(mode)
        enc.apply(Event("declare", {"actor": "Ann", "template": "punch", "mode": "active", "targets": ["Orc"],
                                    "resolution": Resolution(pt=5)}))
        said = "Ann initiates active punch at Orc, PT 5, completes on segment 5"
        assert enc.log[-1].text == said
        for reader in (Role.viewer(), Role.player(["Ann"])):
            assert sight(enc, reader).line(enc.log[-1]) == said


def test_a_declaration_line_no_action_wrote_withholds_all_but_its_actor() -> None:
    """log_text: "A declaration line none of its actor's actions wrote (the engine writes
    none) reads "NAME acts: figures withheld from viewers": what it states is not known."
    Ann's hex at Orc was declared on segment 0 with "hits by 4"; a line dated segment 1,
    ending in other figures, or ending with no summary, is none of hers."""
    enc = _table("label")
    _hit(enc)
    written = enc.log[-1]
    for stray in (LogEntry(1, "declare", written.text, ("Ann", "Orc"), written.seq),
                  LogEntry(0, "declare", "Ann initiates active hex at Orc: hits by 9", ("Ann", "Orc"), written.seq),
                  LogEntry(0, "declare", "Ann initiates active hex at Orc, PT 2, completes on segment 2", ("Ann", "Orc"), written.seq),
                  LogEntry(0, "declare", "Ann initiates active hex at Orc, PT 9, completes on segment 9", ("Ann", "Orc"), 1)):
        assert log_text(enc, stray, viewer=True) == "Ann acts: figures withheld from viewers"
    assert log_text(enc, written, viewer=True) == (
        "Ann initiates active hex at Orc, PT 2, completes on segment 2 (figures withheld from viewers)")


def test_a_declaration_loses_its_summary_behind_earlier_segments_actions() -> None:
    """log_text, as above, for a declaration that is not the first begun on its segment,
    after actions begun on an earlier one: Bo's and then Ann's on segment 1, behind Orc's
    and Nobody's of segment 0; each loses its own summary."""
    enc = _table("label")
    enc.apply(Event("add", {"name": "Bo", "side": "party", "resources": {"hp": 20}}))
    enc.apply(Event("declare", {"actor": "Orc", "template": "chop", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=4, summary="hits by 1")}))
    enc.apply(Event("declare", {"actor": "Nobody", "template": "jab", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=4, summary="misses by 2")}))
    enc.apply(Event("advance", {"to": 1}))
    enc.apply(Event("declare", {"actor": "Bo", "template": "kick", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=3, summary="misses by 3")}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=2, summary="hits by 4")}))
    view = sight(enc, Role.viewer())
    assert [view.text(e) for e in enc.log[-2:]] == [
        "Bo initiates active kick at Orc, PT 3, completes on segment 4 (figures withheld from viewers)",
        "Ann initiates active hex at Orc, PT 2, completes on segment 3 (figures withheld from viewers)",
    ]


def test_the_fights_first_change_a_declaration_shows_its_faces() -> None:
    """Sight.line: "a declaration's faces and who decided them ("[dice 5 4] (typed)")". A
    fight whose roster was written with it (no `add`) may open with a declaration: its
    line is that of the first change, and shows its faces all the same."""
    roster = [CombatantSetup("Ann", resources={"hp": 20}, side="party"), CombatantSetup("Orc", resources={"hp": 10}, side="raiders")]
    enc = Encounter(Setup("ambush", "freeform", TimeMapping(50, "test"), ("hp",), roster=roster))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Orc"], "dice": "typed",
                                "resolution": Resolution(pt=2, dice=(6, 5), summary="hits by 4")}))
    (declared,) = enc.log
    assert declared.seq == 1
    said = "Ann initiates active hex at Orc, PT 2, completes on segment 2: hits by 4"
    for reader in (Role.gm(), Role.viewer(), Role.player(["Ann"])):
        assert sight(enc, reader).line(declared) == said + " [dice 6 5] (typed)"


def test_a_set_that_renames_nobody_does_not_send_its_character_away() -> None:
    """roles.campaign_characters reads a set or leave by name "as `Campaign.pc` found it
    then: ... the party before those who left": a set that changes only a side leaves its
    character in the party, so a later set by the name the newcomer shares with the one who
    left renames the newcomer, as the campaign did."""
    camp = _road(Event("leave", {"pc": "pc3"}), Event("join", {"pc": "pc4", "name": "Vex", "resources": {"hp": 5}}),
                 Event("set", {"pc": "pc4", "side": "raiders"}), Event("set", {"pc": "vex", "name": "Rook"}))
    assert camp.pcs["pc4"].name == "Rook" and camp.pcs["pc3"].name == "Vex"
    assert campaign_characters(camp, ["Rook"]) == Characters(("pc4",))


def test_a_character_sent_away_by_name_is_nobodys() -> None:
    """roles._called: "A set or leave may name its character (a hand-written campaign
    file)"; 0050: "A character who has left the party or died is nobody's"."""
    camp = _road(Event("leave", {"pc": "vex", "reason": "died"}), Event("leave", {"pc": "NYX"}))
    assert camp.pcs["pc3"].status == "died" and camp.pcs["pc2"].status == "left"
    found = campaign_characters(camp, ["Vex", "Nyx", "Seraph"])
    assert found == Characters(("pc1",), ("Vex has died", "Nyx has left the party"))


def test_a_fight_that_ended_with_nothing_to_carry_back_changes_no_key() -> None:
    """A fight's `end` holds `party` only when it has something to carry back (the table is
    optional: tracker.persistence.campaign); a key names its characters as before."""
    camp = _road(*_fought())
    assert "party" not in camp.effective_events()[-1].args
    assert campaign_characters(camp, ["Nyx", "seraph"], ["pc3"]) == Characters(("pc3", "pc2", "pc1"))
