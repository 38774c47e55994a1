"""Campaign properties: for any sequence of fights, ends, rests and undos, the party's
state in the campaign file equals applying each fight's effects on the characters in
order (worked out here by plain arithmetic, never by the tracker), and the file read
again is the campaign held in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.play import fights, rest
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import Event
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session

HP = {"Ann": 10, "Bo": 8, "Cy": 12}

damage = st.dictionaries(st.sampled_from(sorted(HP)), st.integers(0, 15), max_size=3)
step = st.one_of(
    st.tuples(st.just("fight"), damage),
    st.tuples(st.just("rest"), st.dictionaries(st.sampled_from(sorted(HP)), st.integers(1, 9), max_size=3)),
    st.tuples(st.just("full"), st.none()),
    st.tuples(st.just("undo"), st.none()),
)


def _campaign(folder: Path) -> Path:
    path = folder / "c.campaign.toml"
    CampaignFile.create(path, "c", "freeform")
    ruleset = registry.get("freeform")
    for name, hp in HP.items():
        stats, resources = ruleset.build_sheet({"hp": str(hp)}, "test")
        CampaignFile(path).change(lambda camp, n=name, r=resources, s=stats: [Event("join", {"pc": camp.next_id(), "name": n, "stats": s, "resources": r})], "gm")
    return path


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=6))
def test_the_party_is_the_fights_effects_applied_in_order(tmp_path_factory: Any, steps: list[tuple[str, Any]]) -> None:
    folder = tmp_path_factory.mktemp("campaign")
    path = _campaign(folder)
    expected = dict(HP)
    history: list[dict[str, int]] = []  # the expected party before each change, for undo
    n = 0
    for kind, arg in steps:
        before = dict(expected)
        if kind == "fight":
            n += 1
            fight = folder / f"f{n}.toml"
            fights.start(path, fight, f"f{n}", "gm")
            loaded = EncounterFile(fight).load()
            session = Session(loaded.encounter, loaded.ruleset, RandomDice(n), EncounterFile(fight), "gm")
            for name, amount in arg.items():
                if amount:
                    session.execute(f"damage {name} {amount}")
                    expected[name] -= amount
            fights.end(fight, "gm")
        elif kind == "rest":
            rest.record(path, 8.0, RandomDice(0), {f"{name}.hp": str(amount) for name, amount in arg.items()}, by="gm")
            for name, amount in arg.items():
                expected[name] = min(HP[name], expected[name] + amount)
        elif kind == "full":
            rest.record(path, 1.0, RandomDice(0), {}, everyone=True, by="gm")
            expected = dict(HP)
        else:
            if not history:
                continue
            fights.walk(path, "undo", "gm")
            undone = history.pop()
            assert {pc.name: pc.resources["hp"] for pc in CampaignFile(path).load().party()} == undone
            camp = CampaignFile(path).load()
            if camp.fights and camp.fights[-1].open:
                # The undo took back an end: the fight is open again, as it stood; ending it
                # again sends back the same as the first time.
                fights.end(folder / camp.fights[-1].file, "gm")
                history.append(undone)
            else:
                expected = undone
            assert {pc.name: pc.resources["hp"] for pc in CampaignFile(path).load().party()} == expected
            continue
        history.append(before)
        camp = CampaignFile(path).load()
        assert {pc.name: pc.resources["hp"] for pc in camp.party()} == expected
    # The whole file read again is the same campaign, event for event.
    again = CampaignFile(path).load()
    assert [(e.kind, e.args.get("at")) for e in again.events] == [(e.kind, e.args.get("at")) for e in CampaignFile(path).load().events]

