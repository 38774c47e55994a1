"""A combatant's recent actions for the declare form (`tracker.reading.recent`), without a screen.

Issue 22, "What must be true" 4: "The declare form offers each combatant's recent
actions first: the same action against the same target again is one key plus the dice,
and the defaults (target, PT, modifiers) come from the last one."
"""

from __future__ import annotations

from tests.helpers import shipped_fights

from typing import Any

from rulesets import registry
from tracker.reading import recent
from tracker.reading.roles import Role
from tests.helpers import session_for


def freeform(*lines: str) -> Any:
    return session_for(registry.get("freeform"), "add Ann hp=10", "add Bo hp=10", "add Cy hp=10", *lines)


def offered(session: Any, actor: str, role: Role | None = None) -> list[str]:
    found = recent.recent(session.encounter, session.ruleset, role or Role.gm(), actor)
    return [r.label() for r in found]


def test_newest_first_one_per_choice_at_most_three() -> None:
    s = freeform(
        "declare Ann sword target=Bo",
        "step 10",
        "declare Ann sword target=Cy",
        "step 10",
        "declare Ann sword target=Bo",  # the same choice as the first: offered once, as newest
        "step 10",
        "declare Bo club target=Ann",  # Bo's, not Ann's
        "declare Ann dodge mode=passive",
        "step 10",
        "declare Ann kick target=Cy",
    )
    assert offered(s, "Ann") == ["again: kick -> Cy", "again: dodge (mode=passive)", "again: sword -> Bo"]
    assert offered(s, "Bo") == ["again: club -> Ann"]
    assert offered(s, "Cy") == []
    assert recent.labels(recent.recent(s.encounter, s.ruleset, Role.gm(), "Ann"))[0] == "1 again: kick -> Cy"


def test_several_targets_are_one_choice_in_their_order() -> None:
    s = freeform("declare Ann sweep target=Bo,Cy", "step 10", "declare Ann sweep target=Bo")
    assert offered(s, "Ann") == ["again: sweep -> Bo", "again: sweep -> Bo, Cy"]


def test_an_undone_declaration_is_not_offered() -> None:
    s = freeform("declare Ann sword target=Bo", "step 10", "declare Ann kick target=Cy", "undo")
    assert offered(s, "Ann") == ["again: sword -> Bo"]


def test_a_target_gone_is_not_offered_and_names_follow_a_rename() -> None:
    s = freeform("declare Ann sword target=Bo", "step 10", "declare Ann kick target=Cy", "remove Cy", "rename Bo Bob", "rename Ann Anna")
    assert offered(s, "Anna") == ["again: sword -> Bob"]
    assert offered(s, "Ann") == []  # nobody of that name now
    s.execute("add Ann hp=10")  # a newcomer under the old name is someone else
    assert offered(s, "Ann") == []


def test_a_hidden_target_is_never_named_to_a_player() -> None:
    s = freeform("declare Ann sword target=Bo", "step 10", "declare Ann kick target=Cy", "hide Cy")
    assert offered(s, "Ann") == ["again: kick -> Cy", "again: sword -> Bo"]  # the GM knows Cy
    player = Role.player(["Ann"])
    assert offered(s, "Ann", player) == ["again: sword -> Bo"]
    assert all("Cy" not in label for label in offered(s, "Ann", player))
    s.execute("hide Ann")
    assert offered(s, "Ann", player) == ["again: sword -> Bo"]  # a player's own, hidden or not
    assert offered(s, "Ann", Role.viewer()) == []


def test_options_asked_are_kept_in_the_save_and_tell_choices_apart(tmp_path: Any) -> None:
    from rulesets.dice import RandomDice
    from tracker.persistence.store import EncounterFile
    from tracker.play.session import Session

    store, loaded = EncounterFile.create(tmp_path / "fight.toml", "fight", "freeform")
    s = Session(loaded.encounter, loaded.ruleset, RandomDice(1), store)
    for line in ("add Ann hp=10", "add Bo hp=10"):
        s.execute(line)
    s.declare("Ann", "sword", ["Bo"], pt=8, params={"damage": "4", "note": ""})
    s.execute("step 10")
    s.execute("declare Ann sword target=Bo")  # the : line and `tracker play` alike
    expected = ["again: sword -> Bo", "again: sword -> Bo (PT 8, damage=4)"]
    assert offered(s, "Ann") == expected
    # Another session, on another day: the save keeps what was asked.
    again = EncounterFile(tmp_path / "fight.toml").load()
    assert [c.label() for c in recent.recent(again.encounter, again.ruleset, Role.gm(), "Ann")] == expected


def test_asked_leaves_out_defaults_and_after_roll_choices() -> None:
    brandx = registry.get("brandx")
    punch = brandx.template("punch")
    after = [p.name for p in punch.params if p.stage == "after_roll"]
    assert after, "Brand X's punch has choices made after the roll (its Q)"
    pool = next(p for p in punch.params if p.name == "pool")
    given = {"pool": "2", after[0]: "3", "hand_damage": ""}
    if pool.default is not None:
        given["pool"] = str(pool.default)
    kept = recent.asked(None, given, punch)
    assert after[0] not in dict(kept.params)
    assert dict(kept.params) == ({} if pool.default is not None else {"pool": "2"})
    assert recent.asked(5, {"pool": "3"}, punch).params == (("pool", "3"),)


def test_a_secret_roll_is_offered_secret_to_the_gm() -> None:
    s = freeform("declare Ann sword target=Bo secret=true")
    assert offered(s, "Ann") == ["again: sword -> Bo (secret)"]
    assert offered(s, "Ann", Role.player(["Ann"])) == ["again: sword -> Bo"]  # a player cannot roll secret


def test_an_approved_proposal_is_offered_with_what_it_asked() -> None:
    s = freeform("setting player_declarations approval")
    s.role = Role.player(["Ann"])
    s.declare("Ann", "sword", ["Bo"], pt=7, params={"damage": "3"})
    assert offered(s, "Ann", Role.player(["Ann"])) == []  # waiting: not in force yet
    s.role = Role.gm()
    seq = s.encounter.pending()[0].seq
    s.approve(seq)
    assert offered(s, "Ann", Role.player(["Ann"])) == ["again: sword -> Bo (PT 7, damage=3)"]


def test_every_shipped_game_offers_its_saves_declarations() -> None:
    from tracker.persistence.store import EncounterFile

    seen = {}
    for path in shipped_fights():
        loaded = EncounterFile(path).load()
        enc = loaded.encounter
        for name in enc.combatants:
            for choice in recent.recent(enc, loaded.ruleset, Role.gm(), name):
                seen.setdefault(enc.setup.ruleset, []).append(choice)
                assert choice.template in {a.template for a in enc.actions if a.actor == name}
    assert set(seen) == {"brandx", "d6", "ogs", "ore", "usor", "freeform"}


def test_each_change_is_read_at_once() -> None:
    s = freeform("declare Ann sword target=Bo")
    assert offered(s, "Ann") == ["again: sword -> Bo"]
    s.execute("step 10")
    s.declare("Ann", "kick", ["Cy"], pt=3)
    assert offered(s, "Ann") == ["again: kick -> Cy (PT 3)", "again: sword -> Bo"]
    s.execute("step 10")
    s.declare("Ann", "kick", ["Cy"], pt=4)
    assert offered(s, "Ann")[:2] == ["again: kick -> Cy (PT 4)", "again: kick -> Cy (PT 3)"]
    s.execute("undo")
    assert offered(s, "Ann") == ["again: kick -> Cy (PT 3)", "again: sword -> Bo"]
