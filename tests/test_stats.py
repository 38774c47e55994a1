"""After the fight (`tracker stats`, the stats screen, the export's charts): figures
worked by hand from small fights, one per kind of resources (Brand X VP/DP with EP
costs and rolled chances; freeform HP with the GM's damage by hand), luck against the
chances the declare form showed, and the viewer variant hiding nothing it must not
show."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets.brandx import BrandXRuleset
from rulesets.freeform import FreeformRuleset
from tests.helpers import cli, session_for
from tracker.reading import charts, stats
from tracker.reading.stats import fight_stats, luck_of, poisson_binomial

SERAPH = "add Seraph agility=22 strength=11 mass=80 height=1.791 learning=12 vp=43 dp=15 ep=74"
SPHINX = "add Sphinx agility=10 strength=14 mass=100 learning=10 vp=34 dp=15 ep=38"


def brandx_fight():  # type: ignore[no-untyped-def]
    """The Seraph vs Sphinx worked combat (tests/test_brandx_combat.py), then the GM's
    30 by hand on Sphinx at segment 30, then two segments on."""
    return session_for(
        BrandXRuleset(), SERAPH, SPHINX,
        "declare Seraph punch target=Sphinx faces=10,10,10,10",  # needs 15, rolls 20: miss
        "declare Sphinx punch target=Seraph faces=6,6,10,10",  # needs 12, rolls 12: hit, Hand Damage 7
        "next",  # 15: Sphinx's 7 VP land on Seraph
        "declare Seraph punch target=Sphinx faces=3,3,10,10 q_speed=6 q_attack=1 q_defense=2",  # Q 9, PT 4
        "declare Sphinx punch target=Seraph faces=7,7,10,10",  # needs 12, rolls 14: miss
        "next",  # 19: Seraph's 6 VP land on Sphinx
        "next",  # 30: Sphinx's punch completes, missing
        "damage Sphinx 30",  # by hand: VP 28 -> 0, the 2 left go through to DP
        "step 2",
    )


def by_name(items: list, name: str):  # type: ignore[no-untyped-def,type-arg]
    return next(t for t in items if t.name == name)


def test_brandx_fight_worked_by_hand() -> None:
    """Working:
    - Chances (2d10 roll-under, success on a total at or under the target): Seraph needs
      15: P(total >= 16) = (5+4+3+2+1)/100, so 85/100 = 17/20 each time. Sphinx needs
      12: P(total <= 12) = (1+2+...+10 for totals 2..11, + 9 for 12)/100 = 64/100 = 16/25.
    - Seraph: 2 declared, 1 hit (3+3), 1 miss (10+10); dealt VP 6 (segment 19); took
      VP 7 (segment 15); paid EP 4 + 4 = 8; acting [0,15) + [15,19) = 19 segments;
      idle 32 - 19 = 13; never down.
    - Sphinx: 2 declared, 1 hit (6+6), 1 miss (7+7); dealt VP 7; took VP 6, then by
      hand 30 on VP 28 -> 0 with 2 through to DP: VP 34, DP 2; EP 8; acting [0,15) +
      [15,30) = 30; down (VP 0) from 30 to 32: 2; idle 32 - 30 - 2 = 0.
    - Luck, Seraph: expected 17/20 + 17/20 = 17/10, got 1, 7/10 off. P(0) = (3/20)^2
      = 9/400, P(1) = 2 (17/20)(3/20) = 102/400, P(2) = 289/400; counts at least 7/10
      from 17/10: 0 (17/10 off) and 1: 111/400.
      Sphinx: expected 32/25, got 1, 7/25 off: 0, 1 and 2 are all at least that far
      (32/25, 7/25, 18/25): 1.
    - Brand X rounds are 50 segments: everything in round 1: Seraph 6, Sphinx 7, by hand 30.
    """
    s = brandx_fight()
    chances = [e.args.get("chance") for e in s.encounter.events if e.kind == "declare"]
    assert chances == ["17/20", "16/25", "17/20", "16/25"]
    st = fight_stats(s.encounter)
    seraph, sphinx = by_name(st.combatants, "Seraph"), by_name(st.combatants, "Sphinx")
    assert (seraph.declared, seraph.succeeded, seraph.missed, seraph.no_roll) == (2, 1, 1, 0)
    assert (sphinx.declared, sphinx.succeeded, sphinx.missed, sphinx.no_roll) == (2, 1, 1, 0)
    assert seraph.dealt == {"vp": 6} and seraph.taken == {"vp": 7} and seraph.costs == {"ep": 8}
    assert sphinx.dealt == {"vp": 7} and sphinx.taken == {"vp": 34, "dp": 2} and sphinx.costs == {"ep": 8}
    assert (seraph.acting, seraph.idle, seraph.down) == (19, 13, 0)
    assert (sphinx.acting, sphinx.idle, sphinx.down) == (30, 0, 2)
    assert seraph.luck.expected == Fraction(17, 10) and seraph.luck.successes == 1
    assert seraph.luck.tail == Fraction(111, 400) and seraph.luck.exact
    assert sphinx.luck.expected == Fraction(32, 25) and sphinx.luck.tail == 1
    # Two unaligned duellists are two sides of one each.
    assert [t.name for t in st.sides] == ["Seraph", "Sphinx"]
    assert by_name(st.sides, "Sphinx").taken == {"vp": 34, "dp": 2}
    assert st.rounds == 1 and st.by_round == {"Sphinx": [7], "Seraph": [6], "by hand": [30]}
    rows = {r.name: r for r in st.rows}
    assert rows["Seraph"].resource == "vp" and rows["Seraph"].series == [(0, 43), (15, 36)]
    assert rows["Sphinx"].series == [(0, 34), (19, 28), (30, 0)]
    assert [(b.start, b.end, b.status) for b in rows["Sphinx"].bars] == [(0, 15, "completed"), (15, 30, "completed")]


def test_freeform_fight_worked_by_hand() -> None:
    """Working (freeform: no rolls; the GM states damage by hand; rounds of 10):
    - Kestrel slash 0 -> 5; Goblin stab 0 -> 8; Orc passive guard 0 -> 4; the Orc's
      smash 8 -> 18 is aborted on 10; Goblin prone 10 -> 13; the fight stops at 12.
    - Acting: Kestrel 5, idle 12 - 5 = 7; Goblin 8, idle 4; Orc [0,4) + [8,10) = 6,
      idle 6. Side goblins: 14 acting, 10 idle; 3 declared, 1 aborted.
    - Damage by hand: Goblin 5 HP on 5, Kestrel 3 HP on 8 (both round 1), Kestrel
      heals 1 and Goblin takes 1 on 12 (round 2): by hand [8, 1] (healing is not
      damage); Kestrel took 3 and healed 1, Goblin took 6.
    """
    s = session_for(
        FreeformRuleset(),
        "add Kestrel hp=20 side=party", "add Goblin hp=8 side=goblins", "add Orc hp=12 side=goblins",
        "declare Kestrel slash target=Goblin pt=5", "declare Goblin stab target=Kestrel pt=8",
        "declare Orc guard mode=passive pt=4",
        "next", "next", "damage Goblin 5", "next", "damage Kestrel 3",
        "declare Orc smash target=Kestrel pt=10", "step 2", "abort Orc", "condition Goblin prone 3",
        "step 2", "heal Kestrel 1", "damage Goblin 1",
    )
    st = fight_stats(s.encounter)
    kestrel, goblin, orc = (by_name(st.combatants, n) for n in ("Kestrel", "Goblin", "Orc"))
    assert (kestrel.declared, kestrel.no_roll, kestrel.acting, kestrel.idle) == (1, 1, 5, 7)
    assert (goblin.acting, goblin.idle) == (8, 4)
    assert (orc.declared, orc.no_roll, orc.aborted, orc.acting, orc.idle) == (2, 2, 1, 6, 6)
    assert kestrel.taken == {"hp": 3} and kestrel.healed == {"hp": 1} and goblin.taken == {"hp": 6}
    assert kestrel.dealt == {} and goblin.dealt == {}  # the GM dealt it by hand
    goblins = by_name(st.sides, "goblins")
    assert (goblins.declared, goblins.aborted, goblins.acting, goblins.idle) == (3, 1, 14, 10)
    assert goblins.luck.verdict == "no rolls"
    assert st.rounds == 2 and st.by_round == {"by hand": [8, 1]}
    # The whole-fight timeline, as the app draws bars: the Orc's passive guard (lower
    # half) completes on 4; its smash (upper half) is cut on 10; Goblin's prone 10-13.
    lines = charts.timeline_lines(st, 80)
    rows = {line[:12].strip(): line[12:] for line in lines[1:-1]}
    assert rows["Orc"].rstrip() == "▄▄▄▄┤   ▀▀×"
    assert rows["Goblin"].rstrip() == "▀▀▀▀▀▀▀▀┤ ┄┄┄"
    assert rows["Kestrel"].rstrip() == "▀▀▀▀▀┤"


def test_throwback_is_marked_on_the_timeline() -> None:
    s = session_for(FreeformRuleset(), "add A hp=10", "add B hp=10", "declare A shove pt=3")
    st = fight_stats(s.encounter)
    assert by_name(st.rows, "A").marks == []
    # A throwback comes from a resolution's effects; the engine's own rule is noted.
    from tracker.engine import Event, Resolution, Throwback

    s.encounter.apply(Event("declare", {"actor": "B", "template": "kick", "mode": "active", "targets": ["A"],
                                        "resolution": Resolution(2, effects=(Throwback("A", 3.0, 1.5, 2),))}))
    s.execute("step 3")
    st = fight_stats(s.encounter)
    assert by_name(st.rows, "A").marks == [("throwback", 2, 4)]
    line = next(t for t in charts.timeline_lines(st, 80) if t.startswith("A "))
    assert line[12 + 2] == charts.THROWBACK_GLYPH


def test_poisson_binomial_tail_small_cases() -> None:
    # One roll at 1/2 that succeeded: 1/2 off, and both 0 and 1 are that far: 1.
    assert luck_of([Fraction(1, 2)], [True]).tail == 1
    # Three at 1/2, all succeeded: expected 3/2, 3/2 off: only 0 and 3, 1/8 each.
    assert luck_of([Fraction(1, 2)] * 3, [True] * 3).tail == Fraction(1, 4)
    assert luck_of([Fraction(1, 2)] * 3, [True] * 3).verdict == "about as expected"  # 1 in 4: not rare
    # Six of six at 1/2: only 0 and 6 are 3 off: 2/64; rarer than 1 in 5, so luck.
    assert luck_of([Fraction(1, 2)] * 6, [True] * 6).tail == Fraction(1, 32)
    assert luck_of([Fraction(1, 2)] * 6, [True] * 6).verdict == "luckier than expected"
    assert luck_of([Fraction(1, 2)] * 6, [False] * 6).verdict == "unluckier than expected"
    # Exactly as expected: every count is at least 0 away.
    assert luck_of([Fraction(1, 2)] * 2, [True, False]).tail == 1
    assert poisson_binomial([Fraction(1, 3), Fraction(1, 2)]) == [Fraction(1, 3), Fraction(1, 2), Fraction(1, 6)]


def test_luck_beyond_the_exact_limit_is_floating_point_and_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    chances = [Fraction(k % 9 + 1, 10) for k in range(40)]
    outcomes = [k % 3 == 0 for k in range(40)]
    exact = luck_of(chances, outcomes)
    monkeypatch.setattr(stats, "MAX_LUCK_EXACT", 10)
    rough = luck_of(chances, outcomes)
    assert exact.exact and not rough.exact
    assert abs(float(exact.tail) - float(rough.tail)) < 1e-12


def test_old_saves_load_and_say_no_chance_was_kept(saves: Path) -> None:
    """A save from before the chance was kept in the declaration event (the shipped D6
    warehouse as it was first saved: its `chance` lines taken out): Hero rolled twice (a
    shot that hit, a check that passed), Merc two shots that missed."""
    from tracker.persistence.store import EncounterFile

    shipped_text = (Path(__file__).resolve().parent.parent / "saves" / "d6-warehouse.toml").read_text(encoding="utf-8")
    path = saves / "old-warehouse.toml"
    path.write_text(re.sub(r'(?m)^chance = "\d+/\d+"\n', "", shipped_text), encoding="utf-8")
    assert "chance" not in path.read_text(encoding="utf-8")
    st = fight_stats(EncounterFile(path).load().encounter)
    hero, merc = by_name(st.combatants, "Hero"), by_name(st.combatants, "Merc")
    assert (hero.luck.rolls, hero.luck.unrecorded, merc.luck.unrecorded) == (0, 2, 2)
    assert hero.luck.verdict == "no chances recorded"
    assert "no chances recorded (2 roll(s) made before chances were kept)" in charts.report_text(st)


def test_every_shipped_fight_with_rolls_shows_luck() -> None:
    """The worked examples show the luck figures: each side that rolled has chances kept
    (ORE's Bruiser's one roll with his hard die lost is the one left without)."""
    from tests.helpers import shipped_fights
    from tracker.persistence.store import EncounterFile

    for path in shipped_fights():
        st = fight_stats(EncounterFile(path).load().encounter)
        for side in st.sides:
            if side.luck.rolls or side.luck.unrecorded:
                assert side.luck.rolls > 0 and side.luck.verdict != "no chances recorded", (path.name, side.name)
                assert side.luck.unrecorded <= 1, (path.name, side.name)


def test_the_shipped_duel_keeps_the_chances_its_form_showed() -> None:
    """saves/seraph-vs-sphinx.toml holds the chances of tests above (17/20 and 16/25)."""
    from tracker.persistence.store import EncounterFile

    path = Path(__file__).resolve().parent.parent / "saves" / "seraph-vs-sphinx.toml"
    st = fight_stats(EncounterFile(path).load().encounter)
    assert by_name(st.combatants, "Seraph").luck.tail == Fraction(111, 400)


def test_a_bad_chance_in_a_save_is_refused_by_name(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = cli("new", "duel", "--ruleset", "brandx")
    assert code == 0
    code, _ = cli("play", "duel", stdin=f"{SERAPH}\n{SPHINX}\ndeclare Seraph punch target=Sphinx faces=3,3,10,10\n")
    assert code == 0
    path = saves / "duel.toml"
    text = path.read_text()
    assert 'chance = "17/20"' in text
    path.write_text(text.replace('chance = "17/20"', 'chance = "21/20"'))
    capsys.readouterr()
    code, _ = cli("check", "duel")
    err = capsys.readouterr().err
    assert code == 1 and "duel.toml" in err and "chance" in err and "n/d" in err and "21/20" in err
    assert path.read_text().count('chance = "21/20"') == 1  # the bad file is left as it was


def test_cli_stats_text_and_json(saves: Path) -> None:
    cli("new", "duel", "--ruleset", "brandx")
    script = f"{SERAPH}\n{SPHINX}\ndeclare Seraph punch target=Sphinx faces=10,10,10,10\ndeclare Sphinx punch target=Seraph faces=6,6,10,10\nnext\n"
    assert cli("play", "duel", stdin=script)[0] == 0
    code, text = cli("stats", "duel", "--width", "80")
    assert code == 0
    assert "Seraph" in text and "taken vp 7" in text and "0 of 1 (expected 0.85)" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    code, raw = cli("stats", "duel", "--json")
    data = json.loads(raw)
    seraph = next(c for c in data["combatants"] if c["name"] == "Seraph")
    assert seraph["luck"]["expected_fraction"] == "17/20" and seraph["luck"]["successes"] == 0
    # 0 of 1 at 17/20: 17/20 off; only 0 is that far: 3/20.
    assert seraph["luck"]["tail"] == pytest.approx(0.15)
    assert data["damage_by_round"]["sides"] == {"Sphinx": [7]}


def viewer_fight():  # type: ignore[no-untyped-def]
    return session_for(
        BrandXRuleset(),
        SERAPH + " side=party", SPHINX + " side=monsters",
        "add Lurker agility=10 strength=10 mass=70 learning=10 vp=20 ep=30 side=monsters hidden=true",
        "setting viewer_resources label",
        "declare Seraph punch target=Sphinx faces=3,3,10,10",  # hits Sphinx on 15 (VP 6)
        "declare Sphinx punch target=Seraph faces=6,6,10,10 secret=true",  # hits Seraph (VP 7), rolled in secret
        "declare Lurker punch target=Seraph faces=5,5,10,10",
        "next",
    )


def test_viewer_stats_show_nothing_hidden() -> None:
    s = viewer_fight()
    gm = fight_stats(s.encounter)
    assert {t.name for t in gm.combatants} == {"Seraph", "Sphinx", "Lurker"}
    st = fight_stats(s.encounter, viewer=True)
    assert [t.name for t in st.combatants] == ["Seraph", "Sphinx"]  # the hidden Lurker is left out
    seraph, sphinx = by_name(st.combatants, "Seraph"), by_name(st.combatants, "Sphinx")
    # The secret roll: declared, outcome not told, not in luck.
    assert (sphinx.declared, sphinx.succeeded, sphinx.missed, sphinx.secret) == (1, 0, 0, 1)
    assert sphinx.luck.rolls == 0
    # Sphinx is an enemy in label mode: no figures, its label instead; what Seraph dealt
    # to it is withheld too.
    assert sphinx.withheld and sphinx.label in ("Healthy", "Bloodied", "Down")
    assert seraph.dealt == {} and "Sphinx: figures withheld from viewers" in " ".join(st.withheld)
    assert seraph.taken.get("vp", 0) >= 7  # the players' own figures are theirs to see
    data = st.to_json()
    blob = json.dumps(data) + charts.report_text(st) + charts.timeline_svg(st) + charts.resource_svg(st) + charts.damage_svg(st)
    assert "Lurker" not in blob
    sphinx_json = next(c for c in data["combatants"] if c["name"] == "Sphinx")
    assert sphinx_json["taken"] is None and sphinx_json["costs"] is None and sphinx_json["health"] == sphinx.label
    assert next(r for r in data["resources"] if r["name"] == "Sphinx") == {"name": "Sphinx", "resource": "vp", "withheld": True, "health": sphinx.label}
    # The GM sees every figure.
    assert by_name(gm.combatants, "Sphinx").taken == {"vp": 6} and by_name(gm.combatants, "Sphinx").succeeded == 1


def test_actions_taken_while_hidden_stay_unseen_after_showing() -> None:
    s = session_for(FreeformRuleset(), "add Scout hp=5 side=party hidden=true", "declare Scout sneak pt=3", "next", "unhide Scout", "declare Scout wave pt=2")
    st = fight_stats(s.encounter, viewer=True)
    scout = by_name(st.combatants, "Scout")
    assert scout.declared == 1 and [b.template for b in by_name(st.rows, "Scout").bars] == ["wave"]
    assert any("while hidden" in w for w in st.withheld)


def test_export_html_draws_the_charts_as_inline_svg(saves: Path) -> None:
    cli("new", "duel", "--ruleset", "freeform")
    script = "add <b>Bad</b> hp=10\nadd Good hp=10\ndeclare Good slash target=<b>Bad</b> pt=3\nnext\ndamage <b>Bad</b> 4\n"
    assert cli("play", "duel", stdin=script)[0] == 0
    code, page = cli("export", "duel", "--format", "html")
    assert code == 0
    assert page.count("<svg ") == 3 and "<script" not in page.lower()
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<b>Bad</b>" not in page and "&lt;b&gt;Bad&lt;/b&gt;" in page
    assert "After the fight" in page


def test_a_player_sees_its_own_hidden_combatant_and_secret_roll() -> None:
    from tracker.reading.roles import Role

    s = viewer_fight()
    st = fight_stats(s.encounter, role=Role.player(["Lurker", "Sphinx"]))
    assert {t.name for t in st.combatants} == {"Seraph", "Sphinx", "Lurker"}
    sphinx = by_name(st.combatants, "Sphinx")
    assert (sphinx.succeeded, sphinx.secret, sphinx.withheld) == (1, 0, False)  # its own roll, its own figures
    assert by_name(fight_stats(s.encounter, role=Role.player(["Seraph"])).combatants, "Sphinx").withheld


def test_a_removed_combatant_is_counted_until_it_left() -> None:
    """Joined on 0, acted 0 -> 3, removed on 5, the fight runs to 10: 3 acting, 2 idle."""
    s = session_for(FreeformRuleset(), "add A hp=5", "add B hp=5", "declare A run pt=3", "step 5", "remove A", "step 5")
    a = by_name(fight_stats(s.encounter).combatants, "A")
    assert (a.declared, a.acting, a.idle) == (1, 3, 2)


def shipped(name: str):  # type: ignore[no-untyped-def]
    from tracker.persistence.store import EncounterFile

    return fight_stats(EncounterFile(Path(__file__).resolve().parent.parent / "saves" / f"{name}.toml").load().encounter)


def figures(t) -> tuple:  # type: ignore[no-untyped-def,type-arg]
    return (t.declared, t.succeeded, t.missed, t.no_roll, t.dealt, t.taken, t.acting, t.idle)


def test_d6_warehouse_worked_from_its_log() -> None:
    """D6 (wound levels, rounds of 10). From the log: Hero shoots 0 -> 10 (success, Merc
    takes 2 wounds on 10: round 2), dodges 10 -> 20 (no roll), checks 20 -> 30
    (success): 3 declared, 2 succeeded, 1 no roll, acting 30 of 30. Merc dodges 0 -> 5,
    shoots 5 -> 10 and 10 -> 20 (both miss): acting 20, idle 10."""
    st = shipped("d6-warehouse")
    assert figures(by_name(st.combatants, "Hero")) == (3, 2, 0, 1, {"wounds": 2}, {}, 30, 0)
    assert figures(by_name(st.combatants, "Merc")) == (3, 0, 2, 1, {}, {"wounds": 2}, 20, 10)
    assert st.rounds == 4 and st.by_round == {"Hero": [0, 2, 0, 0]}


def test_ogs_guard_worked_from_its_log() -> None:
    """OGS (HP, rounds of 10). Mage's open roll 0 -> 5 (no success or failure) lands 11
    on the Guard on 5 (round 1); Michael's contest 0 -> 10 and attack 10 -> 20 succeed,
    25 on the Guard on 20 (round 3); the Guard's attack 10 -> 20 succeeds, 8 on Michael.
    Guard: HP 40 -> 29 -> 4, 36 taken."""
    st = shipped("ogs-guard")
    assert figures(by_name(st.combatants, "Michael")) == (2, 2, 0, 0, {"hp": 25}, {"hp": 8}, 20, 0)
    assert figures(by_name(st.combatants, "Mage")) == (1, 0, 0, 1, {"hp": 11}, {}, 5, 15)
    assert figures(by_name(st.combatants, "Guard")) == (1, 1, 0, 0, {"hp": 8}, {"hp": 36}, 10, 10)
    assert st.by_round == {"heroes": [11, 0, 25], "city": [0, 0, 8]}
    assert by_name(st.rows, "Guard").series == [(0, 40), (5, 29), (20, 4)]


def test_ore_knife_fight_worked_from_its_log() -> None:
    """ORE (hit locations, shock and killing apart). Razor's strikes land torso 3 +
    torso_k 2 on 10 and torso 2 + torso_k 1 on 20 on Vex, then fail twice. Bruiser's
    punches land head 1 (10) on Vex, then right_arm 1 on Vex and left_leg 2 on his own
    side's Razor (20). Vex dodges twice and shoots Razor on 30: torso 3, torso_k 3.
    Per round (10 segments): gang 3+2+1 = 6 in round 2, 2+1+1+2 = 6 in round 3; corp 6
    in round 4."""
    st = shipped("ore-knife-fight")
    assert figures(by_name(st.combatants, "Razor")) == (4, 2, 2, 0, {"torso": 5, "torso_k": 3}, {"left_leg": 2, "torso": 3, "torso_k": 3}, 40, 0)
    assert figures(by_name(st.combatants, "Bruiser")) == (2, 2, 0, 0, {"head": 1, "right_arm": 1, "left_leg": 2}, {}, 20, 20)
    assert figures(by_name(st.combatants, "Vex")) == (3, 3, 0, 0, {"torso": 3, "torso_k": 3}, {"torso": 5, "torso_k": 3, "head": 1, "right_arm": 1}, 30, 10)
    assert st.by_round == {"gang": [0, 6, 6, 0, 0], "corp": [0, 0, 0, 6, 0]}


def test_usor_mountain_pass_worked_from_its_log() -> None:
    """USOR (stun and locations; a minute is 60 segments). The Bandit's strike 0 -> 10
    hits Max's right arm for 1; Max's check 0 -> 11 fails and the GM rules 6 stun by
    hand; Max's strikes 11 -> 22 (a draw: missed) and 22 -> 33 (hit: chest 2)."""
    st = shipped("usor-mountain-pass")
    assert figures(by_name(st.combatants, "Max")) == (3, 1, 2, 0, {"chest": 2}, {"right_arm": 1, "stun": 6}, 33, 0)
    assert figures(by_name(st.combatants, "Bandit")) == (1, 1, 0, 0, {"right_arm": 1}, {"chest": 2}, 10, 23)
    assert st.by_round == {"bandits": [1], "by hand": [6], "Max": [2]}


def test_the_chance_the_form_computed_is_the_one_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The form asks the session for the chance as you type; the commit records that
    one without asking the adapter again (an exact chance may take a while)."""
    s = session_for(BrandXRuleset(), SERAPH, SPHINX)
    assert s.chance("Seraph", "punch", ["Sphinx"]) == Fraction(17, 20)
    asked = []
    original = type(s.ruleset).chance_of
    monkeypatch.setattr(type(s.ruleset), "chance_of", lambda self, request: asked.append(1) or original(self, request))
    s.execute("declare Seraph punch target=Sphinx faces=3,3,10,10")
    assert asked == [] and s.encounter.events[-1].args["chance"] == "17/20"
    s.execute("declare Sphinx punch target=Seraph faces=3,3,10,10")  # not asked before: computed now
    assert asked == [1] and s.encounter.events[-1].args["chance"] == "16/25"
