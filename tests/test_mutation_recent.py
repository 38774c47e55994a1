"""Direct tests of tracker.reading.recent (docs/decisions/0024-recent-actions.md): the label of
a recent choice, which options are worth keeping (PT and the modifiers that differ from
their default; after-roll choices never), how many are offered, and a maintained link's
modifiers (docs/decisions/0053-maintained-links.md). tests/test_recent.py holds the
choices offered in whole fights."""

from __future__ import annotations

from typing import Any

from rulesets import registry
from rulesets.dice import RandomDice
from rulesets.base import ActionTemplate
from rulesets.fields import AFTER_ROLL, Field
from tests.helpers import session_for
from tracker.play.session import Session
from tracker.reading import recent
from tracker.engine import Encounter, Event, Resolution
from tracker.engine.model import CombatantSetup, Setup, TimeMapping
from tracker.engine.model import Action
from tracker.reading.roles import Role

AIM = ActionTemplate("aim", params=(
    Field("steady", "bool", default=True), Field("range", "int", default=10), Field("style", "str"),
    Field("luck", "int", stage=AFTER_ROLL),
))


def test_a_choice_says_what_it_repeats() -> None:
    """Module example: 'again: punch -> Goblin (PT 3, pool=2)'."""
    assert recent.Recent("Ann", "punch", ("Goblin",), 3, (("pool", "2"),)).label() == "again: punch -> Goblin (PT 3, pool=2)"
    assert recent.Recent("Ann", "punch").label() == "again: punch"
    assert recent.Recent("Ann", "punch", ("Bo", "Cy"), secret=True).label() == "again: punch -> Bo, Cy (secret)"
    assert recent.Recent("Ann", "punch", pt=0).label() == "again: punch (PT 0)"  # PT 0 is still a PT
    two = [recent.Recent("Ann", "punch"), recent.Recent("Ann", "kick", ("Bo",))]
    assert recent.labels(two) == ["1 again: punch", "2 again: kick -> Bo"]


def test_two_choices_are_the_same_by_action_targets_and_options_not_actor_or_case() -> None:
    one = recent.Recent("Ann", "Punch", ("Bo",), 3)
    assert one.key == recent.Recent("Cy", "punch", ("Bo",), 3).key
    assert one.key != recent.Recent("Ann", "punch", ("Bo",), 4).key
    assert one.key != recent.Recent("Ann", "punch", ("Bo",), 3, secret=True).key
    assert one.key != recent.Recent("Ann", "punch", ("Cy",), 3).key


def test_asked_keeps_what_differs_from_the_default() -> None:
    """A yes/no default is compared as its word ("true"), in any case; an empty value and
    an after-roll choice are left out; the rest is kept as typed, stripped, sorted."""
    kept = recent.asked(4, {"steady": "TRUE", "range": " 10 ", "style": " wild ", "luck": "3", "other": ""}, AIM)
    assert kept == recent.Asked(4, (("style", "wild"),))
    kept = recent.asked(None, {"steady": "false", "range": "12", "zeal": "1"}, AIM)
    assert kept == recent.Asked(None, (("range", "12"), ("steady", "false"), ("zeal", "1")))
    # without the action's fields, everything given is kept
    assert recent.asked(None, {"luck": "3", "steady": "true"}).params == (("luck", "3"), ("steady", "true"))


def test_a_maintained_link_starts_from_what_its_action_asked() -> None:
    action = Action(id=1, actor="Ann", template="aim", mode="active", pt=3, start=0, completes=3, targets=(), resolution=Resolution(pt=3),
                    asked={"steady": True, "range": 12, "luck": 2, "style": "Calm"})
    assert recent.link_params(action, AIM) == {"range": "12", "style": "Calm"}  # as typed: only a yes/no is a word
    action = Action(id=2, actor="Ann", template="aim", mode="active", pt=3, start=0, completes=3, targets=(), resolution=Resolution(pt=3),
                    asked={"steady": False})
    assert recent.link_params(action, AIM) == {"steady": "false"}
    bare = Action(id=3, actor="Ann", template="aim", mode="active", pt=3, start=0, completes=3, targets=(), resolution=Resolution(pt=3))
    assert recent.link_params(bare, AIM) == {}


def _freeform(*lines: str) -> Any:
    return session_for(registry.get("freeform"), "add Ann hp=10", "add Bo hp=10", "add Cy hp=10", *lines)


def test_at_most_the_limit_newest_first() -> None:
    s = _freeform("declare Ann a target=Bo", "step 10", "declare Ann b target=Bo", "step 10",
                  "declare Ann c target=Bo", "step 10", "declare Ann d target=Bo")
    found = recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")
    assert [r.template for r in found] == ["d", "c", "b"]  # MAX_RECENT, three
    assert [r.template for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann", limit=1)] == ["d"]
    assert [r.template for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann", limit=5)] == ["d", "c", "b", "a"]
    assert recent.recent(s.encounter, s.ruleset, Role.gm(), "Nobody") == []


def test_a_modifier_is_offered_as_typed() -> None:
    s = _freeform("declare Ann sword target=Bo note=Wild")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")] == ["again: sword -> Bo (note=Wild)"]


def test_an_approval_edited_by_the_gm_is_offered_as_approved() -> None:
    s = _freeform("setting player_declarations approval")
    s.role = Role.player(["Ann"])
    s.declare("Ann", "sword", ["Bo"], pt=7)
    s.role = Role.gm()
    s.execute(f"approve {s.encounter.pending()[0].seq} target=Cy pt=5")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")] == ["again: sword -> Cy (PT 5)"]


def test_a_newcomer_under_a_renamed_ones_new_name_is_someone_else() -> None:
    """Ann declares, is renamed Anna, leaves; a newcomer named Anna has done nothing yet
    (module docstring: "with names as they are now"; the identity follows the rename)."""
    s = _freeform("declare Ann sword target=Bo", "rename Ann Anna")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Anna")] == ["again: sword -> Bo"]
    s.execute("remove Anna")
    s.execute("add Anna hp=10")
    assert recent.recent(s.encounter, s.ruleset, Role.gm(), "Anna") == []


def test_one_who_takes_the_name_of_one_who_left_is_offered_only_its_own() -> None:
    """Ann declares and leaves; Bo, who declared a kick, is renamed Ann: "Ann" now is Bo,
    offered Bo's kick and nothing of the Ann who left."""
    s = _freeform("declare Ann sword target=Cy", "declare Bo kick target=Cy", "remove Ann", "rename Bo Ann")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")] == ["again: kick -> Cy"]


def test_one_of_a_roster_written_with_the_fight_is_offered_its_own() -> None:
    """A fight whose roster was written with it has no `add` for its combatants; Ann's
    punch at Orc is offered to her all the same (0024: "a declaration counts once it is
    in force"), and it is hers alone; Imp, of the roster too, leaves without having been
    named by anyone, which changes nothing of it."""
    roster = [CombatantSetup(name, resources={"hp": 10}) for name in ("Ann", "Orc", "Imp")]
    enc = Encounter(Setup("ambush", "freeform", TimeMapping(50, "test"), ("hp",), roster=roster))
    ruleset = registry.get("freeform")
    enc.apply(Event("declare", {"actor": "Ann", "template": "punch", "mode": "active", "targets": ["Orc"],
                                "resolution": Resolution(pt=2)}))
    enc.apply(Event("remove", {"name": "Imp"}))
    assert [r.label() for r in recent.recent(enc, ruleset, Role.gm(), "Ann")] == ["again: punch -> Orc"]
    assert recent.recent(enc, ruleset, Role.gm(), "Orc") == []


def test_a_newcomer_leaves_the_history_of_one_named_none_alone() -> None:
    """A name is data, "None" as any other: the one so named keeps his sword at Bo after
    a newcomer joins, and under his new name once renamed (0024: a newcomer is someone
    else, and takes no one's history; names follow renames)."""
    s = session_for(registry.get("freeform"), "add None hp=10", "add Bo hp=10", "declare None sword target=Bo", "add Cy hp=10")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "None")] == ["again: sword -> Bo"]
    assert recent.recent(s.encounter, s.ruleset, Role.gm(), "Cy") == []
    s.execute("rename None Zed")  # names follow renames (0024)
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Zed")] == ["again: sword -> Bo"]


def test_an_approved_abort_is_not_offered_as_a_choice() -> None:
    """0024: "a player's proposal once the GM approves it" counts when it proposes a
    declaration; Ann's approved proposal to abort her sword is no choice of hers: the
    sword at Bo alone is offered."""
    s = _freeform("setting player_declarations approval")
    s.role = Role.player(["Ann"])
    s.declare("Ann", "sword", ["Bo"], pt=7)
    s.role = Role.gm()
    s.execute(f"approve {s.encounter.pending()[0].seq}")
    s.role = Role.player(["Ann"])
    s.execute("abort Ann sword")
    s.role = Role.gm()
    s.execute(f"approve {s.encounter.pending()[0].seq}")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")] == ["again: sword -> Bo (PT 7)"]


def test_a_fights_first_change_a_proposal_approved_is_offered() -> None:
    """A fight whose roster and settings were written with it (players' declarations need
    approval) may open with a proposal, change 1; once approved it is offered (0024: "a
    player's proposal once the GM approves it")."""
    ruleset = registry.get("freeform")
    settings = ruleset.validate_settings({"player_declarations": "approval"}, "settings")
    roster = [CombatantSetup(name, resources={"hp": 10}) for name in ("Ann", "Bo")]
    s = Session(Encounter(Setup("ambush", ruleset.id, ruleset.time, ruleset.down_when, settings, roster)), ruleset, RandomDice(0))
    s.role = Role.player(["Ann"])
    s.declare("Ann", "sword", ["Bo"], pt=7)
    s.role = Role.gm()
    (proposal,) = s.encounter.pending()
    assert proposal.seq == 1
    s.execute("approve 1")
    assert [r.label() for r in recent.recent(s.encounter, ruleset, Role.gm(), "Ann")] == ["again: sword -> Bo (PT 7)"]


def test_a_choice_offered_already_is_passed_over_and_older_ones_still_offered() -> None:
    """"One per distinct choice" (module docstring): Ann's punch, sword, kick, sword again:
    the sword once (the newest), then the kick, then the punch before them."""
    s = _freeform("declare Ann punch target=Bo", "step 10", "declare Ann sword target=Bo", "step 10",
                  "declare Ann kick target=Bo", "step 10", "declare Ann sword target=Bo")
    assert [r.label() for r in recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann")] == [
        "again: sword -> Bo", "again: kick -> Bo", "again: punch -> Bo"]


def test_an_action_the_ruleset_no_longer_has_is_passed_over_and_older_ones_still_offered() -> None:
    """0024: an entry "whose action the ruleset no longer has" is not offered. Ann punched
    Bo, then used a "hex" the ruleset now read (Brand X's list: punch, no hex) does not
    have: the punch is offered."""
    s = _freeform("declare Ann punch target=Bo", "step 10", "declare Ann hex target=Bo")
    assert [r.label() for r in recent.recent(s.encounter, registry.get("brandx"), Role.gm(), "Ann")] == ["again: punch -> Bo"]
