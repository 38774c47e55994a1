"""Direct tests of tracker.ui.screens.campaign_forms, worked from its docstrings,
docs/decisions/0051-campaign-in-the-app.md and docs/guide/campaigns.md ("Campaigns in the
app"): the next fight's name (its file named from it, or `CAMPAIGN-N.toml` for a title
with no Latin letters or digits), a character joining (the game's sheet, or the
library), a change to one (only what was changed is sent), one leaving or dying; each
form's work writes the campaign file, which is loaded again; a refusal is shown in the
form and nothing typed is lost; keys typed while it works wait for it.

The forms' fields and their work are called directly (fast); the form itself is shown
alone in a bare app (tests/ui.py's `ScreenApp`) where it matters how it behaves."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import tracker.ui
from textual.widgets import Input, Label

from rulesets import registry
from rulesets.fields import Field
from tracker.engine import TrackerError
from tracker.persistence.campaign import DIED, LEFT
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.library import Library, Sheet
from tracker.persistence.store import EncounterFile
from tracker.play import fights
from tracker.ui.screens import campaign_forms as forms
from tracker.ui.screens.campaign_forms import BackgroundForm, _checked, _conditions, _conditions_text, _figure, _number
from tracker.ui.screens.form import FormField
from tests.campaign_ui import BY, load, make_campaign, make_fight
from tests.ui import ScreenApp, wait_for

SERAPH = {"vp": "43", "dp": "15", "ep": "74", "agility": "22"}
WAIT = 10.0  # a broken form fails fast


def _road(saves: Path, pcs: dict[str, dict[str, str]] | None = None) -> Path:
    return make_campaign(saves, "brandx", "The Long Road", {"Seraph": SERAPH} if pcs is None else pcs)


def _fields(form: BackgroundForm) -> list[tuple[str, str, str, str]]:
    return [(f.name, f.label, f.value, f.help) for f in form.fields]


def _refused(check: Any, text: str) -> str:
    with pytest.raises(TrackerError) as refused:
        check(text)
    return str(refused.value)


# ------------------------------------------------------------------ the pure parts
def test_a_figure_must_be_a_number() -> None:
    for text in ("12", "-3.5", "0", "1e3", " 7 "):
        assert _number(text) is None
    assert _refused(_number, "abc") == "expected a number, got 'abc'"
    assert _refused(_number, "4d") == "expected a number, got '4d'"


def test_figures_are_written_as_the_sheet_says_them() -> None:
    assert _figure(43) == "43"
    assert _figure(74.0) == "74"  # no trailing .0
    assert _figure(1.75) == "1.75"
    assert _figure(True) == "True"  # a yes/no stat is not a number
    assert _figure("d6") == "d6"


def test_conditions_are_written_with_spaces_or_with_commas_if_a_name_has_one() -> None:
    assert _conditions_text({}) == ""
    assert _conditions_text({"stunned": 40}) == "stunned=40"
    assert _conditions_text({"stunned": 40, "poisoned": 10}) == "stunned=40 poisoned=10"
    assert _conditions_text({"stunned": 40, "on fire": 5}) == "stunned=40, on fire=5"


def test_conditions_are_read_as_name_equals_segments_left() -> None:
    assert _conditions("") == {}
    assert _conditions("stunned=40 poisoned=10") == {"stunned": "40", "poisoned": "10"}
    assert _conditions("  stunned=40   poisoned=010 ") == {"stunned": "40", "poisoned": "10"}
    assert _conditions("on fire=5, stunned=40") == {"on fire": "5", "stunned": "40"}
    assert _conditions(" on fire = 5 ,, stunned=40,") == {"on fire": "5", "stunned": "40"}  # empty parts skipped
    assert _conditions("a=b=3") == {"a=b": "3"}  # the last = parts the segments
    assert _conditions("x=1") == {"x": "1"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("stunned", "conditions: expected NAME=SEGMENTS (stunned=40), got 'stunned'"),
        ("=5", "conditions: expected NAME=SEGMENTS (stunned=40), got '=5'"),
        ("on fire=5,  =5 ", "conditions: expected NAME=SEGMENTS (stunned=40), got '=5'"),
        ("stunned=0", "conditions: stunned: expected the segments left, a whole number of at least 1, got '0'"),
        ("stunned=-1", "conditions: stunned: expected the segments left, a whole number of at least 1, got '-1'"),
        ("stunned=x", "conditions: stunned: expected the segments left, a whole number of at least 1, got 'x'"),
        ("on fire= , a=1", "conditions: on fire: expected the segments left, a whole number of at least 1, got ''"),
        ("stunned=2.5", "conditions: stunned: expected the segments left, a whole number of at least 1, got '2.5'"),
    ],
)
def test_conditions_refused_say_what_was_expected(text: str, said: str) -> None:
    assert _refused(_conditions, text) == said


def test_words_with_a_control_character_are_refused_naming_the_key() -> None:
    words = {"side": "party", "vp": "30"}
    assert _checked(words) is words
    with pytest.raises(TrackerError) as refused:
        _checked({"vp": "30", "note": "a\x1bb"})
    assert "note" in str(refused.value) and "vp" not in str(refused.value)
    with pytest.raises(TrackerError) as refused:
        _checked({"v\x07p": "30"})
    assert str(refused.value).startswith("key")


# ------------------------------------------------------------------ the next fight
def test_the_next_fight_form_names_the_party_and_offers_the_next_number(saves: Path) -> None:
    road = _road(saves, {"Seraph": SERAPH, "Kestrel": {"vp": "30"}})
    form = forms.next_fight_form(load(road), road, BY, lambda target: None)
    assert form.title_text == "Next fight of The Long Road"
    assert form.note == "the party goes in as it stands (Seraph, Kestrel); then add the foes"
    assert _fields(form) == [("name", "name", "The Long Road 1", "the fight's name")]
    assert _refused(form.fields[0].check, "a\x1bb").startswith("name")
    make_fight(road, "ford", "The Ford", [])
    empty = make_campaign(saves, "brandx", "Empty", {}, file="empty")
    form = forms.next_fight_form(load(empty), empty, BY, lambda target: None)
    assert form.note == "the party goes in as it stands (nobody yet); then add the foes"
    assert form.fields[0].value == "Empty 1"
    fights_made = load(road)
    assert forms.next_fight_form(fights_made, road, BY, lambda t: None).fields[0].value == "The Long Road 2"


def test_the_next_fight_is_started_in_a_file_named_from_its_title(saves: Path) -> None:
    road = _road(saves)
    opened: list[tuple[Path, str]] = []

    def reading(target: Path) -> str:
        opened.append((target, threading.current_thread().name))
        return "the fight read"

    form = forms.next_fight_form(load(road), road, "gm:ann", reading)
    with pytest.raises(TrackerError) as refused:
        form.work({"name": ""})
    assert str(refused.value) == "name: expected the fight's name"
    with pytest.raises(TrackerError):
        form.work({"name": "Am\x1bbush"})
    assert not opened and load(road).fights == []
    result = form.work({"name": "Ambush [at] the Ford, 2"})
    fight = saves / "ambush-at-the-ford-2.toml"
    assert result == (fight, "the fight read")
    assert opened == [(fight, threading.current_thread().name)]
    camp = load(road)
    (started,) = camp.fights
    assert (started.name, started.file, started.pcs) == ("Ambush [at] the Ford, 2", "ambush-at-the-ford-2.toml", ("pc1",))
    assert camp.events[-1].by == "gm:ann"
    enc = EncounterFile(fight).load().encounter
    assert enc.setup.campaign == "road.campaign.toml" and list(enc.combatants) == ["Seraph"]


def test_a_title_with_no_latin_letters_or_digits_gives_the_campaigns_file_and_the_fights_number(saves: Path) -> None:
    road = _road(saves)
    form = forms.next_fight_form(load(road), road, BY, lambda target: None)
    assert form.work({"name": "峠の戦い"}) == (saves / "road-1.toml", None)
    fights.end(saves / "road-1.toml", BY)
    form = forms.next_fight_form(load(road), road, BY, lambda target: None)
    assert form.work({"name": "二"})[0] == saves / "road-2.toml"
    fights.end(saves / "road-2.toml", BY)
    form = forms.next_fight_form(load(road), road, BY, lambda target: None)
    assert form.work({"name": "3"})[0] == saves / "3.toml"  # a digit is enough
    assert [f.name for f in load(road).fights] == ["峠の戦い", "二", "3"]


# ------------------------------------------------------------------ a character joins
def test_the_add_form_is_the_games_sheet(saves: Path) -> None:
    road = _road(saves)
    ruleset = registry.get("brandx")
    form = forms.add_form(load(road), ruleset, road, BY)
    assert form.title_text == "A character joins The Long Road (Brand X sheet)"
    rows = _fields(form)
    assert rows[:2] == [("name", "name", "", "the character's name"), ("side", "side", "", "optional: PC, party, ...")]
    assert rows[-1] == ("more", "more", "", "other key=value pairs")
    by_name = {r[0]: r for r in rows}
    assert by_name["sheet_agility"] == ("sheet_agility", "agility", "10", "Agility; the Combat Roll is Sphere(2 x agility) (an integer from 0 to 1000)")
    assert by_name["sheet_mass"][2] == "70.0"
    assert by_name["sheet_editing_points"][2] == ""  # no default: empty
    assert len(rows) == 3 + len(ruleset.sheet)
    assert [r[0] for r in rows[2:-1]] == [f"sheet_{f.name}" for f in ruleset.sheet]
    checks = {f.name: f.check for f in form.fields}
    assert "agility" in _refused(checks["sheet_agility"], "lots")
    assert _refused(checks["more"], "loose").startswith("more:")
    assert _refused(checks["name"], "x\x07").startswith("name")
    assert form.note == ""


def test_a_sheet_field_without_help_says_what_it_expects(saves: Path) -> None:
    road = _road(saves)

    class Plain:  # a game whose sheet field has no help text
        name = "Plain"
        sheet = (Field("hp", "int", 10, minimum=1), Field("luck", "int", None, help="luck points"))

    form = forms.add_form(load(road), Plain(), road, BY)  # type: ignore[arg-type]
    assert _fields(form)[2:4] == [("sheet_hp", "hp", "10", "an integer of at least 1"), ("sheet_luck", "luck", "", "luck points (an integer)")]
    assert form.title_text == "A character joins The Long Road (Plain sheet)"


def test_a_character_joins_with_the_sheet_typed(saves: Path) -> None:
    road = _road(saves)
    form = forms.add_form(load(road), registry.get("brandx"), road, "gm:ann")
    values = {f.name: "" for f in form.fields} | {"name": "Kestrel [b]x[/b]", "sheet_vp": "30", "sheet_agility": "18", "more": "dp=12"}
    with pytest.raises(TrackerError) as refused:
        form.work(values | {"name": ""})
    assert str(refused.value) == "name: expected the character's name"
    assert form.work(values) == "Kestrel [b]x[/b]"
    camp = load(road)
    kestrel = camp.pcs["pc2"]
    assert (kestrel.name, kestrel.side) == ("Kestrel [b]x[/b]", "")
    assert kestrel.resources["vp"] == 30 and kestrel.resources["dp"] == 12 and kestrel.stats["agility"] == 18
    assert kestrel.stats["strength"] == 10  # the sheet's default
    assert camp.events[-1].by == "gm:ann"
    assert form.work(values | {"name": "Wren", "side": "allies"}) == "Wren"
    assert load(road).pcs["pc3"].side == "allies"
    with pytest.raises(TrackerError):
        form.work(values | {"name": "Moss", "side": "al\x1blies"})
    assert "pc4" not in load(road).pcs


def test_a_character_joins_from_the_library(saves: Path) -> None:
    road = _road(saves)
    library = Library.in_folder(saves, "brandx")
    library.put(Sheet("Guard", "watch", {"agility": 14}, {"vp": 25}))
    library.put(Sheet("Archer", "", {"agility": 20}, {"vp": 20}))
    names = library.names()
    form = forms.library_form(load(road), road, "gm:ann", names)
    assert form.title_text == "A character joins The Long Road from the library"
    assert form.note == ""
    assert _fields(form) == [
        ("entry", "sheet", "Archer", "Archer, Guard"),
        ("name", "name", "", "default: the sheet's name"),
        ("side", "side", "", "default: the sheet's side"),
    ]
    assert list(form.fields[0].suggestions) == ["Archer", "Guard"]
    assert form.fields[0].check("Guard") is None
    assert _refused(form.fields[0].check, "Thief") == "sheet: expected one of Archer, Guard, got 'Thief'"
    assert _refused(form.fields[1].check, "x\x07").startswith("name")
    assert form.work({"entry": "Guard", "name": "", "side": ""}) == "Guard"
    assert form.work({"entry": "Guard", "name": "Gate [2]", "side": "party"}) == "Gate [2]"
    camp = load(road)
    guard, gate = camp.pcs["pc2"], camp.pcs["pc3"]
    assert (guard.name, guard.side, guard.stats["agility"], guard.resources["vp"]) == ("Guard", "watch", 14, 25)
    assert (gate.name, gate.side) == ("Gate [2]", "party")
    assert camp.events[-1].by == "gm:ann"


def test_the_library_list_shows_its_first_twelve(saves: Path) -> None:
    road = _road(saves)
    names = [f"Sheet {n:02}" for n in range(14)]
    form = forms.library_form(load(road), road, BY, names)
    twelve = ", ".join(names[:12])
    assert form.fields[0].help == twelve
    assert _refused(form.fields[0].check, "x") == f"sheet: expected one of {twelve}, got 'x'"
    assert form.fields[0].check("Sheet 13") is None  # listed or not, every entry is taken


# ------------------------------------------------------------------ a change
def _changed(saves: Path) -> tuple[Path, Any]:
    road = _road(saves)
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 12 resource=vp", "condition Seraph stunned 40", "condition Seraph 'on fire' 5"])
    fights.end(ford, BY)
    CampaignFile(road).change(lambda camp: [forms.party.change(camp, saves, "pc1", {"agility": "20", "ep.max": "80"})], BY)
    return road, load(road).pcs["pc1"]


def test_the_change_form_shows_each_figure_as_it_stands(saves: Path) -> None:
    road, seraph = _changed(saves)
    ruleset = registry.get("brandx")
    form = forms.change_form(load(road), ruleset, road, BY, seraph)
    assert form.title_text == "Change Seraph"
    assert form.note == "what you change is written; the rest stays as it is"
    rows = _fields(form)
    assert rows[:8] == [
        ("name", "name", "Seraph", "the character's name"),
        ("side", "side", "", "PC, party, ... (empty: none)"),
        ("r0", "vp", "31", "vp as it stands (of 43)"),
        ("m0", "vp max", "43", "vp's maximum"),
        ("r1", "dp", "15", "dp as it stands (of 15)"),
        ("m1", "dp max", "15", "dp's maximum"),
        ("r2", "ep", "74", "ep as it stands (of 80)"),
        ("m2", "ep max", "80", "ep's maximum"),
    ]
    stats = {r[1]: r for r in rows[8:-1]}
    assert stats["agility"][2:] == ("20", "agility")  # the sheet was set too: not lowered
    assert stats["strength"][2:] == ("10", "strength")
    assert [r[0] for r in rows[8:-1]] == [f"s{i}" for i in range(len(seraph.stats))]
    assert rows[-1] == ("conditions", "conditions", "stunned=40, on fire=5", "NAME=SEGMENTS left: stunned=40 (commas if a name has spaces); removed: ended")
    checks = {f.name: f.check for f in form.fields}
    assert _refused(checks["r0"], "lots") == "expected a number, got 'lots'"
    assert _refused(checks["m0"], "lots") == "expected a number, got 'lots'"
    assert "agility" in _refused(checks[stats["agility"][0]], "lots")
    assert _refused(checks["conditions"], "stunned").startswith("conditions:")
    assert _refused(checks["name"], "x\x07").startswith("name")
    assert checks["side"] is None


def test_a_stat_below_its_sheet_says_so_and_a_stat_the_game_lacks_is_not_checked(saves: Path) -> None:
    road, seraph = _changed(saves)
    seraph.stats["agility"] = 12  # lowered in a fight: the sheet says 20
    seraph.stats["luck"] = 3  # a stat the game does not know
    seraph.sheet["luck"] = 3
    form = forms.change_form(load(road), registry.get("brandx"), road, BY, seraph)
    by_label = {f.label: f for f in form.fields}
    assert by_label["agility"].help == "agility (sheet 20; a change sets the sheet too)"
    assert by_label["luck"].help == "luck" and by_label["luck"].check is None


def test_a_resource_without_a_maximum_is_shown_of_itself(saves: Path) -> None:
    road = make_campaign(saves, "ogs", "Under the Hill", {"Ayla": {"hp": "20"}})
    ayla = load(road).pcs["pc1"]
    ayla.maxima.clear()  # as a character held with no maximum for a resource
    ayla.resources["hp"] = 7
    form = forms.change_form(load(road), registry.get("ogs"), road, BY, ayla)
    assert _fields(form)[2:4] == [("r0", "hp", "7", "hp as it stands (of 7)"), ("m0", "hp max", "7", "hp's maximum")]


def test_a_change_sends_only_what_was_changed(saves: Path) -> None:
    road, seraph = _changed(saves)
    form = forms.change_form(load(road), registry.get("brandx"), road, "gm:ann", seraph)
    before = road.read_bytes()
    start = {f.name: f.value for f in form.fields}
    assert form.work(dict(start)) is None  # nothing changed: nothing written
    assert road.read_bytes() == before
    agility = next(f.name for f in form.fields if f.label == "agility")
    assert form.work(start | {"r0": "21", "m2": "90", agility: "25", "conditions": "stunned=30 poisoned=3"}) == "pc1"
    camp = load(road)
    after = camp.pcs["pc1"]
    assert after.resources == {"vp": 21, "dp": 15, "ep": 74} and after.maxima == {"vp": 43, "dp": 15, "ep": 90}
    assert after.stats["agility"] == 25 and after.stats["strength"] == 10
    assert after.conditions == {"stunned": 30, "poisoned": 3}  # on fire ended
    assert after.name == "Seraph" and after.side == ""
    assert camp.events[-1].by == "gm:ann"
    sent = camp.events[-1].args
    assert set(sent) - {"at"} == {"pc", "resources", "maxima", "stats", "conditions"}
    assert sent["resources"] == {"vp": 21} and sent["maxima"] == {"ep": 90} and sent["stats"] == {"agility": 25}
    assert sent["conditions"] == {"stunned": 30, "poisoned": 3, "on fire": 0}


def test_a_condition_left_as_it_was_is_not_sent_again(saves: Path) -> None:
    road, seraph = _changed(saves)
    form = forms.change_form(load(road), registry.get("brandx"), road, BY, seraph)
    start = {f.name: f.value for f in form.fields}
    assert form.work(start | {"conditions": "on fire=5,"}) == "pc1"  # commas if a name has spaces
    sent = load(road).events[-1].args
    assert sent["conditions"] == {"stunned": 0}
    assert load(road).pcs["pc1"].conditions == {"on fire": 5}


def test_a_name_and_side_changed_are_sent_and_a_control_character_refused(saves: Path) -> None:
    road, seraph = _changed(saves)
    form = forms.change_form(load(road), registry.get("brandx"), road, BY, seraph)
    start = {f.name: f.value for f in form.fields}
    before = road.read_bytes()
    with pytest.raises(TrackerError) as refused:
        form.work(start | {"side": "par\x1bty"})
    assert "side" in str(refused.value)
    assert road.read_bytes() == before
    assert form.work(start | {"name": "Seraph [the] Bold", "side": "party"}) == "pc1"
    sent = load(road).events[-1].args
    assert set(sent) - {"at"} == {"pc", "name", "side"}
    after = load(road).pcs["pc1"]
    assert (after.name, after.side, after.resources["vp"]) == ("Seraph [the] Bold", "party", 31)
    form = forms.change_form(load(road), registry.get("brandx"), road, BY, after)
    assert form.fields[1].value == "party"
    assert form.work({f.name: f.value for f in form.fields} | {"side": ""}) == "pc1"
    assert load(road).pcs["pc1"].side == ""


# ------------------------------------------------------------------ one leaves or dies
def test_the_leave_form_asks_how_and_why(saves: Path) -> None:
    road = _road(saves)
    seraph = load(road).pcs["pc1"]
    form = forms.leave_form(load(road), road, BY, seraph)
    assert form.title_text == "Seraph leaves the party, or dies"
    assert form.note == "u on the campaign screen takes it back"
    assert _fields(form) == [("how", "how", "leaves", "leaves the party, or dies"), ("note", "note", "", "why, in a few words (optional)")]
    how = form.fields[0]
    assert how.pick and tuple(how.suggestions) == ("leaves", "dies")
    assert how.check("leaves") is None and how.check("dies") is None
    assert _refused(how.check, "flees") == "expected leaves or dies, got 'flees'"


def test_one_dies_with_a_note_and_one_leaves_without(saves: Path) -> None:
    road = _road(saves, {"Seraph": SERAPH, "Kestrel": {"vp": "30"}})
    camp = load(road)
    died = forms.leave_form(camp, road, "gm:ann", camp.pcs["pc1"])
    with pytest.raises(TrackerError) as refused:
        died.work({"how": "dies", "note": "fell \x1b at the ford"})
    assert "note" in str(refused.value)
    assert died.work({"how": "dies", "note": "fell [at] the ford"}) == "dies"
    left = forms.leave_form(camp, road, BY, camp.pcs["pc2"])
    assert left.work({"how": "leaves", "note": ""}) == "leaves"
    camp = load(road)
    leaves = [e for e in camp.events if e.kind == "leave"]
    assert [{k: v for k, v in e.args.items() if k != "at"} for e in leaves] == [
        {"pc": "pc1", "reason": DIED, "note": "fell [at] the ford"},
        {"pc": "pc2", "reason": LEFT},
    ]
    assert leaves[0].by == "gm:ann"
    assert (camp.pcs["pc1"].status, camp.pcs["pc1"].why) == (DIED, "fell [at] the ford")
    assert camp.pcs["pc2"].status == LEFT and camp.party() == []


# ------------------------------------------------------------------ the form on screen
pilots = pytest.mark.ui


class _Work:
    """A form's work held at a gate on its thread, its calls recorded."""

    def __init__(self, answer: object = "done", refusal: str = "") -> None:
        self.gate = threading.Event()
        self.calls: list[dict[str, str]] = []
        self.answer, self.refusal = answer, refusal

    def __call__(self, values: dict[str, str]) -> object:
        self.calls.append(dict(values))
        assert self.gate.wait(WAIT)
        if self.refusal:
            raise TrackerError(self.refusal)
        return self.answer


def _form(work: _Work) -> BackgroundForm:
    fields = [FormField("name", "name", "Bo", "a name"), FormField("count", "count", "", "a number", _number)]
    return BackgroundForm("Two [b]fields[/b]", fields, work, note="a note", start=1)


def _error(form: BackgroundForm) -> str:
    return str(form.query_one("#form-error", Label).render())


@pilots
async def test_the_work_runs_on_a_thread_and_its_result_is_kept() -> None:
    work = _Work(answer=("a", 2))
    form = _form(work)
    app = ScreenApp(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form, "the form", WAIT)
        assert form.focused is form.query_one("#f-count", Input)  # `start` passed on
        assert str(form.query_one(".hint", Label).render()) == "a note"
        form.query_one("#f-count", Input).value = "3"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(work.calls), "the work started", WAIT)
        assert form.working and not app.closed  # on its thread, not on the loop
        form.action_submit()  # keys meanwhile do not start it again
        form.action_cancel()  # nor close the form
        work.gate.set()
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    assert work.calls == [{"name": "Bo", "count": "3"}]
    assert app.result == {"name": "Bo", "count": "3"} and form.result == ("a", 2)


@pilots
async def test_a_refusal_is_shown_in_the_form_and_nothing_typed_is_lost() -> None:
    work = _Work(refusal="count: [b]no[/b] room for 3")
    form = _form(work)
    app = ScreenApp(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form, "the form", WAIT)
        count = form.query_one("#f-count", Input)
        count.value = "lots"  # refused by its field: the work is not run
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "expected a number" in str(form.query_one("#f-count-error", Label).render()), "the field's message", WAIT)
        assert not work.calls and not form.working
        count.value = "3"
        work.gate.set()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: _error(form) == "count: [b]no[/b] room for 3", "the refusal, as text", WAIT)
        assert not app.closed and form.result is None and not form.working
        assert form.query_one("#form-error", Label).display
        assert count.value == "3" and form.query_one("#f-name", Input).value == "Bo"
        work.refusal = ""
        work.gate.clear()
        await pilot.press("ctrl+s")  # the message goes as the work is tried again
        await wait_for(pilot, lambda: len(work.calls) == 2, "the work started again", WAIT)
        assert _error(form) == "" and not form.query_one("#form-error", Label).display
        work.gate.set()
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    assert len(work.calls) == 2 and form.result == "done"


@pilots
async def test_esc_closes_the_form_with_nothing_done() -> None:
    work = _Work()
    form = BackgroundForm("Two", [FormField("name", "name", "Bo"), FormField("count", "count")], work)
    app = ScreenApp(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form, "the form", WAIT)
        assert form.note == ""  # no note: no line for it
        assert [str(h.render()) for h in form.query(".hint")] == ["enter: next field, saves from the last · ctrl+s: save · esc: cancel"]
        assert form.focused is form.query_one("#f-name", Input)  # the first field first
        form.query_one("#f-count", Input).value = "9"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    assert app.result is None and not work.calls and form.result is None


class _Styled(ScreenApp):
    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))  # the app's own stylesheet


@pilots
async def test_a_refusal_under_a_long_form_is_brought_into_view() -> None:
    work = _Work(refusal="the last field's refusal")
    work.gate.set()
    fields = [FormField(f"f{i}", f"field {i}", str(i)) for i in range(30)]
    form = BackgroundForm("Long", fields, work)
    app = _Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form, "the form", WAIT)
        form.query_one("#f-f0", Input).focus()
        await pilot.press("ctrl+s")
        error = form.query_one("#form-error", Label)
        await wait_for(pilot, lambda: _error(form) == "the last field's refusal", "the refusal", WAIT)
        scroll: Any = error.parent
        await wait_for(pilot, lambda: scroll.scroll_y > 0, "the form scrolled", WAIT)
        first = scroll.scroll_y
        await wait_for(pilot, lambda: 0 <= error.region.y < 24, "the refusal in view", WAIT)
        assert scroll.scroll_y == first  # at once, not animated



def test_a_change_reads_the_house_rules_beside_the_campaign(saves: Path) -> None:
    (saves / "house.toml").write_text("", encoding="utf-8")
    inn = saves / "inn.campaign.toml"
    CampaignFile.create(inn, "The Inn", "ogs", "house.toml")
    ayla = forms.add_form(load(inn), registry.get("ogs"), inn, BY)
    assert ayla.work({f.name: "" for f in ayla.fields} | {"name": "Ayla", "sheet_hp": "20"}) == "Ayla"
    pc = load(inn).pcs["pc1"]
    form = forms.change_form(load(inn), registry.get("ogs"), inn, BY, pc)
    assert form.work({f.name: f.value for f in form.fields} | {"r0": "12"}) == "pc1"
    assert load(inn).pcs["pc1"].resources["hp"] == 12
