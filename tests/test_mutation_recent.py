"""Direct tests of tracker.reading.recent (docs/decisions/0024-recent-actions.md): the label of
a recent choice, which options are worth keeping (PT and the modifiers that differ from
their default; after-roll choices never), how many are offered, and a maintained link's
modifiers (docs/decisions/0053-maintained-links.md). tests/test_recent.py holds the
choices offered in whole fights."""

from __future__ import annotations

from typing import Any

from rulesets import registry
from rulesets.base import ActionTemplate
from rulesets.fields import AFTER_ROLL, Field
from tests.helpers import session_for
from tracker.reading import recent
from tracker.engine import Resolution
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
