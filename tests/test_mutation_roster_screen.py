"""Direct tests of tracker.ui.screens.roster, worked from its docstring and
docs/guide/app.md ("`e`: roster and sheets, forms built from the ruleset's sheet, errors
inline"): the add form is the ruleset's sheet (name, copies, side, hidden, surprised,
each sheet field with its help and what it expects, "more" for other key=value pairs);
each field is checked as it is typed; copies > 1 adds numbered copies (Goblin 1..4) in
one change; editing records a `set` for each value changed and nothing for a value
written another way ("4d" for a D6 "4D"); `r` renames, `s` changes side, `[` / `]`
move, `x` removes after asking, `l` / `w` add from and save to the library of sheets
(`library-<ruleset>.toml` beside the fight); a viewer or a player is refused every
change; names and sides are plain text with control characters made visible.

The pure parts (the fields' checks, the sheet's rows, the forms' submits) are called
directly first; then the screen is shown alone in a bare app (tests/ui.py's
`ScreenApp`, its notifications kept) at 80x24 over fights made on disk in several
rulesets, keys typed in bursts, every wait on a condition capped at 10 seconds. Every
fight written is loaded again from its file."""

from __future__ import annotations

import contextlib

from pathlib import Path
from types import SimpleNamespace
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Input, Label, OptionList

from rulesets.fields import Field
from tracker.engine import CommandError, TrackerError
from tracker.persistence.library import Library, Sheet
from tracker.play.live import Live
from tracker.play.session import Session
from tracker.reading.roles import Role
from tracker.ui.commands import ROSTER
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.screens.roster import (
    RosterScreen,
    _copies,
    _name,
    _pairs,
    _same_value,
    _segment,
    _set_value,
    _split_values,
    _yes_no,
    add_form,
    edit_form,
    sheet_fields,
)
from tests.test_ui_app import make_file, on_disk
from tests.ui import ScreenApp, post_keys, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0  # a broken screen fails fast


def _live(path: Path, **kw: Any) -> Live:
    return Live.open(path, **kw)


def _events(path: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(e.kind, dict(e.args)) for e in on_disk(path).events]


def _odd(saves: Path) -> Path:
    """A freeform fight with a name from an old file: a bell and brackets (the command
    line refuses the bell, so it is written into the file as an older version did)."""
    path = make_file(saves, "freeform", ["add Seraph hp=10 side=PC", "add Sphinx hp=30.5 mp=4", "add Zed hp=3 hidden=yes side=foe", "surprise Sphinx 4"])
    path.write_text(path.read_text(encoding="utf-8").replace('"Zed"', '"Z\\u0007ed [b]"'), encoding="utf-8")
    assert list(on_disk(path).combatants) == ["Seraph", "Sphinx", "Z\x07ed [b]"]
    return path


# ------------------------------------------------------------------ the pure parts
def test_the_fields_checks_say_what_they_expect() -> None:
    assert _segment("0") == 0 and _segment("12") == 12
    with pytest.raises(TrackerError) as refused:
        _segment("soon")
    assert isinstance(refused.value, CommandError) and str(refused.value) == "surprised: expected a segment number, got 'soon'"
    with pytest.raises(TrackerError) as refused:
        _segment("-1")
    assert str(refused.value) == "surprised: expected a segment of at least 0, got -1"
    assert _yes_no("") is False and _yes_no("yes") is True and _yes_no(" NO ") is False and _yes_no("true") is True
    with pytest.raises(TrackerError) as refused:
        _yes_no("maybe")
    assert str(refused.value) == "hidden: expected true or false (or yes or no), got 'maybe'"
    for fine in ("", "   ", " Grok [/] "):
        _name(fine)  # no message
    with pytest.raises(TrackerError) as refused:
        _name("Bad\x07Bob")
    assert str(refused.value) == "name: control characters are not allowed (found \u2407, a control character, at character 4)"
    with pytest.raises(TrackerError) as refused:
        _name(" Bad\x07Bob")  # checked as the add will see it: trimmed
    assert "at character 4)" in str(refused.value)
    assert _copies("1") == 1 and _copies("4") == 4 and _copies("100") == 100 and _copies(" 7 ") == 7
    for bad, said in (("0", "0"), ("101", "101"), ("-3", "-3"), ("x", "'x'"), ("", "''"), ("2.5", "'2.5'")):
        with pytest.raises(TrackerError) as refused:
            _copies(bad)
        assert str(refused.value) == f"copies: expected a whole number from 1 to 100, got {said}"
    assert _pairs("") == {}
    assert _pairs("mp=4 Note='a b' x=") == {"mp": "4", "note": "a b", "x": ""}
    with pytest.raises(CommandError) as refused:
        _pairs("mp=4 loose")
    assert str(refused.value) == "more: expected key=value pairs, got 'loose'"
    with pytest.raises(CommandError):
        _pairs("note='open")


def _rows(fields: list[Any]) -> list[tuple[str, str, str, str]]:
    return [(f.name, f.label, f.value, f.help) for f in fields]


def test_a_new_combatants_sheet_in_freeform(saves: Path) -> None:
    live = _live(make_file(saves, "freeform", []))
    fields = sheet_fields(live)
    assert _rows(fields) == [
        ("name", "name", "", "the combatant's name"),
        ("copies", "copies", "1", "more than 1: numbered copies (Goblin 1, 2, ...), up to 100"),
        ("side", "side", "", "optional: PC, foe, ..."),
        ("hidden", "hidden", "no", "yes: not shown to viewers"),
        ("surprised", "surprised", "", "may not initiate before this segment"),
        ("sheet_hp", "hp", "10", "hit points; 0 means down (a number)"),
        ("more", "more", "", "other key=value pairs"),
    ]
    by = {f.name: f for f in fields}
    assert by["name"].check is _name and by["copies"].check is _copies and by["side"].check is None
    assert by["hidden"].check is _yes_no and by["surprised"].check is _segment and by["more"].check is _pairs
    hp = by["sheet_hp"].check
    assert hp is not None and hp("7.5") == 7.5
    with pytest.raises(TrackerError) as refused:
        hp("lots")
    assert str(refused.value) == "hp: expected a number, got 'lots'"
    assert all(not f.suggestions and not f.pick for f in fields)
    live.close()


def test_the_sheet_of_ogs_and_d6_defaults_and_a_field_without_help(saves: Path) -> None:
    ogs = _live(make_file(saves, "ogs", [], name="ogs"))
    rows = {f.name: (f.label, f.value, f.help) for f in sheet_fields(ogs)}
    assert rows["sheet_reroll_ones"] == ("reroll_ones", "no", "enhancement modifier: each enhancement die showing 1 is rolled once more (true or false (or yes or no))")
    assert rows["sheet_hp"] == ("hp", "20", "hit points; 0 means down (an integer from 1 to 10000)")
    assert rows["sheet_force"][1] == "" and rows["sheet_flat"][1] == "0"
    check = {f.name: f.check for f in sheet_fields(ogs)}["sheet_hp"]
    with pytest.raises(TrackerError) as refused:
        check("0")  # type: ignore[misc]
    assert str(refused.value).startswith("hp: expected an integer from 1 to 10000")
    ogs.close()
    d6 = _live(make_file(saves, "d6", [], name="d6"))
    d6_rows = {f.name: (f.label, f.value) for f in sheet_fields(d6)}
    assert d6_rows["sheet_weapon"] == ("weapon", "") and d6_rows["sheet_reflexes"] == ("reflexes", "3D") and d6_rows["sheet_wounds"] == ("wounds", "4")
    d6.close()
    bare = SimpleNamespace(ruleset=SimpleNamespace(sheet=(Field("luck", "int", None, minimum=0),)))
    rows2 = _rows(sheet_fields(bare))  # type: ignore[arg-type]
    assert rows2[5] == ("sheet_luck", "luck", "", "an integer of at least 0")


def test_the_sheet_of_a_combatant_in_the_fight_holds_its_values(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10 side=PC note=abc flag=yes mp=2.5", "add Sphinx hp=30", "hide Sphinx", "surprise Sphinx 6", "damage Seraph 3"])
    live = _live(path)
    seraph = sheet_fields(live, live.encounter.combatant("Seraph"))
    assert _rows(seraph) == [
        ("hidden", "hidden", "no", "yes: not shown to viewers"),
        ("surprised", "surprised", "", "may not initiate before this segment"),
        ("sheet_hp", "hp", "7", "hit points; 0 means down (a number)"),
        ("more", "more", "note=abc flag=yes mp=2.5", "other key=value pairs"),
    ]
    sphinx = sheet_fields(live, live.encounter.combatant("Sphinx"))
    assert [(f.name, f.value) for f in sphinx] == [("hidden", "yes"), ("surprised", "6"), ("sheet_hp", "30"), ("more", "")]
    live.close()
    d6 = _live(make_file(saves, "d6", ["add Hero coordination=3D+1 weapon=+1D", "add Orc"], name="d6"))
    hero = {f.name: f.value for f in sheet_fields(d6, d6.encounter.combatant("Hero"))}
    assert hero["sheet_coordination"] == "3D+1" and hero["sheet_weapon"] == "+1D" and hero["sheet_dodge"] == "" and hero["more"] == ""
    assert hero["sheet_wounds"] == "4"
    orc = {f.name: f.value for f in sheet_fields(d6, d6.encounter.combatant("Orc"))}
    assert orc["sheet_weapon"] == "" and orc["sheet_reflexes"] == "3D"
    d6.close()


def test_the_values_of_a_sheet_are_its_fields_filled_and_the_more_pairs() -> None:
    values = {"name": "Goblin", "side": "foe", "sheet_hp": "5", "sheet_mp": "", "more": "Note=x ac=3"}
    assert _split_values(values) == {"hp": "5", "note": "x", "ac": "3"}
    assert _split_values({"sheet_hp": "5", "more": "hp=6"}) == {"hp": "6"}  # the pairs typed last win
    assert _split_values({"sheet_hp": "5"}) == {"hp": "5"}
    assert _split_values({"hidden": "yes", "surprised": "3"}) == {}


def _values(**kw: str) -> dict[str, str]:
    return {"name": "", "copies": "1", "side": "", "hidden": "no", "surprised": "", "sheet_hp": "", "more": ""} | kw


def test_the_add_form_adds_one_or_numbered_copies_and_names_the_first(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10 side=PC"])
    live = _live(path)
    told: list[str] = []
    form = add_form(live, told.append)
    assert isinstance(form, FormScreen) and form.title_text == "Add a combatant (Freeform sheet)" and form.note == ""
    assert [f.name for f in form.fields] == ["name", "copies", "side", "hidden", "surprised", "sheet_hp", "more"]
    assert form.submit is not None
    values = _values(name="Goblin", copies="4", side="foe", hidden="yes", surprised="3", sheet_hp="5", more="mp=2")
    form.submit(values)
    assert told == ["Goblin 1"] and values["name"] == "Goblin 1"
    one = _values(name="Ork", copies="", sheet_hp="")
    form.submit(one)
    assert told == ["Goblin 1", "Ork"] and one["name"] == "Ork"
    with pytest.raises(TrackerError) as refused:
        form.submit(_values(name=""))
    assert str(refused.value) == "name: expected the combatant's name"
    with pytest.raises(TrackerError) as refused:
        form.submit(_values(name="Imp", copies="0"))
    assert str(refused.value) == "copies: expected a whole number from 1 to 100, got 0"
    with pytest.raises(TrackerError):
        form.submit(_values(name="Imp", surprised="soon"))
    with pytest.raises(TrackerError):
        form.submit(_values(name="Imp", hidden="maybe"))
    quiet = add_form(live)  # no one told: added all the same
    assert quiet.submit is not None
    imp = _values(name="Imp", copies="2")
    quiet.submit(imp)
    assert imp["name"] == "Imp 1"
    live.store.flush()
    live.close()
    enc = on_disk(path)
    assert list(enc.combatants) == ["Seraph", "Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4", "Ork", "Imp 1", "Imp 2"]
    g = enc.combatant("Goblin 3")
    assert (g.side, g.hidden, g.surprised_until, g.resources) == ("foe", True, 3, {"hp": 5, "mp": 2})
    ork = enc.combatant("Ork")
    assert (ork.side, ork.hidden, ork.surprised_until, ork.resources["hp"]) == ("", False, 0, 10)
    assert [e.kind for e in enc.events] == ["add"] * 4  # one change each, copies and all


def test_the_add_form_takes_the_games_sheet(saves: Path) -> None:
    path = make_file(saves, "ogs", [], name="cave")
    live = _live(path)
    form = add_form(live)
    assert form.title_text == "Add a combatant (OGS sheet)"
    values = {f.name: f.value for f in form.fields} | {"name": "Ayla", "sheet_hp": "14", "sheet_reroll_ones": "yes"}
    assert form.submit is not None
    form.submit(values)
    with pytest.raises(TrackerError) as refused:
        form.submit({f.name: f.value for f in form.fields} | {"name": "Brom", "more": "luck=3"})
    assert "luck" in str(refused.value) and "hp" in str(refused.value)  # the known keys listed
    live.store.flush()
    live.close()
    ayla = on_disk(path).combatant("Ayla")
    assert ayla.resources["hp"] == 14 and ayla.stats["reroll_ones"] is True and ayla.stats["stat"] == "d6"
    assert list(on_disk(path).combatants) == ["Ayla"]


def test_a_value_written_another_way_is_the_same_value() -> None:
    hp = Field("hp", "int", 10, minimum=1)
    assert _same_value(None, "5", 5) is False
    assert _same_value(hp, "5", None) is False
    assert _same_value(hp, " 5", 5) is True and _same_value(hp, "6", 5) is False
    assert _same_value(hp, "0", 0) is False  # refused by the field: the set says why
    assert _same_value(hp, "x", 5) is False


def test_the_same_value_asks_the_fields_own_reading(saves: Path) -> None:
    d6 = _live(make_file(saves, "d6", ["add Hero weapon=4D"]))
    weapon = {f.name: f for f in d6.ruleset.sheet}["weapon"]
    assert _same_value(weapon, "4d", "4D") is True and _same_value(weapon, "5d", "4D") is False
    d6.close()


def test_the_edit_form_records_a_set_for_each_value_changed_only(saves: Path) -> None:
    path = make_file(saves, "d6", ["add Hero coordination=3D weapon=4D", "add Orc", "surprise Orc 5"])
    live = _live(path)
    hero = live.encounter.combatant("Hero")
    form = edit_form(live, hero)
    assert form.title_text == "Edit Hero" and form.note == "all or nothing; each change is logged as `set` (undo takes it back)"
    assert [f.name for f in form.fields][:3] == ["hidden", "surprised", "sheet_reflexes"]
    base = {f.name: f.value for f in form.fields}
    assert form.submit is not None
    form.submit(dict(base))  # nothing changed: nothing recorded
    form.submit(base | {"sheet_weapon": "4d"})  # the same code written another way
    assert len(live.encounter.events) == 3
    form.submit(base | {"sheet_weapon": "5d", "sheet_reflexes": "", "sheet_coordination": "4D", "hidden": "yes"})
    assert [(e.kind, dict(e.args)) for e in live.encounter.events[3:]] == [
        ("set", {"target": "Hero", "key": "coordination", "value": "4D", "stat": True}),
        ("set", {"target": "Hero", "key": "weapon", "value": "5D", "stat": True}),
        ("hide", {"target": "Hero", "hidden": True}),
    ]
    now = {f.name: f.value for f in edit_form(live, live.encounter.combatant("Hero")).fields}
    with pytest.raises(TrackerError) as refused:
        form.submit(now | {"sheet_weapon": "[b]"})
    assert "weapon" in str(refused.value)
    orc = edit_form(live, live.encounter.combatant("Orc"))
    orc_base = {f.name: f.value for f in orc.fields}
    assert orc_base["surprised"] == "5" and orc_base["hidden"] == "no"
    assert orc.submit is not None
    orc.submit(orc_base | {"surprised": ""})  # cleared while it still holds: recorded
    assert (live.encounter.events[-1].kind, dict(live.encounter.events[-1].args)) == ("surprise", {"target": "Orc", "until": 0})
    orc.submit(orc_base | {"surprised": "8"})
    assert (live.encounter.events[-1].kind, dict(live.encounter.events[-1].args)) == ("surprise", {"target": "Orc", "until": 8})
    count = len(live.encounter.events)
    orc.submit(orc_base | {"surprised": "8"})  # as it is: nothing
    assert len(live.encounter.events) == count
    live.store.flush()
    live.close()
    enc = on_disk(path)
    assert enc.combatant("Hero").stats["weapon"] == "5D" and enc.combatant("Hero").stats["coordination"] == "4D"
    assert enc.combatant("Hero").hidden and enc.combatant("Orc").surprised_until == 8


def test_an_edit_with_a_value_refused_saves_none_of_the_form(saves: Path) -> None:
    """The roster editor's docstring: "each value checked before any is recorded: one
    refused saves none of the form". The refused value comes after two good ones in the
    sheet's order, and the file holds none of them."""
    path = make_file(saves, "d6", ["add Hero coordination=3D weapon=4D"])
    live = _live(path)
    form = edit_form(live, live.encounter.combatant("Hero"))
    base = {f.name: f.value for f in form.fields}
    assert form.submit is not None
    with pytest.raises(TrackerError) as refused:
        form.submit(base | {"sheet_coordination": "4D", "sheet_reflexes": "5D", "hidden": "yes", "sheet_weapon": "lots"})
    assert "weapon" in str(refused.value)
    assert [e.kind for e in live.encounter.events] == ["add"]
    live.store.flush()
    live.close()
    hero = on_disk(path).combatant("Hero")
    assert (hero.stats["coordination"], hero.stats["weapon"], hero.hidden) == ("3D", "4D", False)
    assert [e.kind for e in on_disk(path).events] == ["add"]


def test_a_surprise_already_past_is_not_cleared_again(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "surprise Ann 3", "step 6"])
    live = _live(path)
    ann = live.encounter.combatant("Ann")
    form = edit_form(live, ann)
    base = {f.name: f.value for f in form.fields}
    assert base["surprised"] == "3" and live.encounter.now == 6
    count = len(live.encounter.events)
    assert form.submit is not None
    form.submit(base | {"surprised": ""})  # the surprise is over: nothing to clear
    assert len(live.encounter.events) == count
    form.submit(base | {"surprised": "9"})
    assert dict(live.encounter.events[-1].args) == {"target": "Ann", "until": 9}
    form.submit(base | {"surprised": "9", "hidden": ""})  # an emptied hidden: not hidden, as it is
    assert len(live.encounter.events) == count + 1
    live.close()


def test_the_edit_keeps_other_pairs_as_they_are_and_shows_again(saves: Path) -> None:
    """Pairs beyond the sheet (freeform's `note=abc`) left as they were record nothing;
    a new pair is set whatever its text ("None" too); hidden to no shows it again."""
    path = make_file(saves, "freeform", ["add Seraph hp=10 note=abc mp=2.5", "hide Seraph"])
    live = _live(path)
    form = edit_form(live, live.encounter.combatant("Seraph"))
    base = {f.name: f.value for f in form.fields}
    assert base["more"] == "note=abc mp=2.5" and base["hidden"] == "yes"
    assert form.submit is not None
    form.submit(dict(base))
    assert len(live.encounter.events) == 2
    form.submit(base | {"more": "note=abc mp=2.5 title=None", "hidden": "no"})
    assert [(e.kind, dict(e.args)) for e in live.encounter.events[2:]] == [
        ("set", {"target": "Seraph", "key": "title", "value": "None", "stat": True}),
        ("hide", {"target": "Seraph", "hidden": False}),
    ]
    live.store.flush()
    live.close()
    seraph = on_disk(path).combatant("Seraph")
    assert seraph.stats == {"note": "abc", "title": "None"} and seraph.resources == {"hp": 10, "mp": 2.5} and not seraph.hidden


def test_a_surprise_that_ends_now_is_not_cleared(saves: Path) -> None:
    """Surprised until segment 3: from segment 3 on it may initiate, nothing to clear."""
    path = make_file(saves, "freeform", ["add Ann hp=10", "surprise Ann 3", "step 3"])
    live = _live(path)
    form = edit_form(live, live.encounter.combatant("Ann"))
    base = {f.name: f.value for f in form.fields}
    assert base["surprised"] == "3" and live.encounter.now == 3
    assert form.submit is not None
    form.submit(base | {"surprised": ""})
    assert len(live.encounter.events) == 3
    live.close()


def test_the_edit_of_a_name_the_command_line_refuses(saves: Path) -> None:
    path = _odd(saves)
    live = _live(path)
    z = live.encounter.combatant("Z\x07ed [b]")
    form = edit_form(live, z)
    assert form.title_text == "Edit Z\x07ed [b]"
    base = {f.name: f.value for f in form.fields}
    assert base["hidden"] == "yes" and base["sheet_hp"] == "3"
    assert form.submit is not None
    form.submit(base | {"sheet_hp": "2", "more": "mp=1"})
    assert [dict(e.args) for e in live.encounter.events[-2:]] == [
        {"target": "Z\x07ed [b]", "key": "hp", "value": 2},
        {"target": "Z\x07ed [b]", "key": "mp", "value": 1},
    ]
    outcome = _set_value("Seraph", "hp", "4", live.session)
    assert outcome.event is not None and dict(outcome.event.args) == {"target": "Seraph", "key": "hp", "value": 4}
    live.store.flush()
    live.close()
    enc = on_disk(path)
    assert enc.combatant("Z\x07ed [b]").resources == {"hp": 2, "mp": 1} and enc.combatant("Seraph").resources["hp"] == 4


# ------------------------------------------------------------------ the screen
class _App(ScreenApp):
    """The bare app, its notifications kept: (message, severity, markup)."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.said: list[tuple[str, str, bool]] = []

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None, markup: bool = True) -> None:
        self.said.append((str(message), str(severity), markup))


def _hint(s: RosterScreen) -> str:
    return str(s.query_one("#roster-hint", Label).render())


def _list(s: RosterScreen) -> OptionList:
    return s.query_one("#roster-list", OptionList)


def _shown(s: RosterScreen) -> list[tuple[str, str | None, bool]]:
    rows = _list(s)
    out = []
    for i in range(rows.option_count):
        o = rows.get_option_at_index(i)
        prompt = o.prompt
        out.append((prompt.plain if isinstance(prompt, Text) else str(prompt), o.id, o.disabled))
    return out


def _highlighted(s: RosterScreen) -> str | None:
    rows = _list(s)
    if rows.highlighted is None:
        return None
    return rows.get_option_at_index(rows.highlighted).id


async def _open(pilot: Any, app: _App, s: RosterScreen) -> None:
    await wait_for(pilot, lambda: app.screen is s and _hint(s) != "" and _list(s).has_focus, "the roster shown", WAIT)


@contextlib.asynccontextmanager
async def _opened(live: Live) -> AsyncIterator[tuple[RosterScreen, _App, Any]]:
    """The roster editor of `live` on a bare app at 80x24, shown with its list focused:
    (screen, app, pilot)."""
    s = RosterScreen(live)
    app = _App(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, app, s)
        yield s, app, pilot


async def _form(pilot: Any, app: _App, key: str) -> FormScreen:
    post_keys(app, [key])
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen) and app.screen.focused is not None, f"the form of {key}", WAIT)
    return app.screen  # type: ignore[return-value]


async def _type(pilot: Any, app: _App, form: FormScreen, field: str, text: str) -> None:
    """Into one field of `form`, its text typed over what it held, in one burst."""
    entry = form.query_one(f"#f-{field}", Input)
    entry.value = ""

    def focused() -> bool:  # asked again until it holds: the form's own first focus may land after ours
        if not entry.has_focus:
            entry.focus()
        return entry.has_focus

    await wait_for(pilot, focused, f"{field} focused", WAIT)
    post_keys(app, list(text))
    await wait_for(pilot, lambda: entry.value == text, f"{text!r} typed into {field}", WAIT)


async def _back(pilot: Any, app: _App, s: RosterScreen) -> None:
    await wait_for(pilot, lambda: app.screen is s, "back on the roster", WAIT)


async def test_a_refused_change_is_said_as_plain_text_and_the_list_read_again(saves: Path) -> None:
    """Called from the test's own code (a mutant that breaks the message fails here at
    once): the refusal's text is said with no markup, the control character made
    visible, and the row asked for is highlighted."""
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=7"])
    live = _bare_live(path)
    async with _opened(live) as (s, app, pilot):

        def refused(session: Session) -> Any:
            raise TrackerError("no [b]way\x1b")

        s._run(refused, "Bo")
        assert app.said == [("no [b]way\u241b", "error", False)] and _highlighted(s) == "Bo"
        s.do_library_add()  # no saves folder: said, no form
        assert app.said[1] == ("library: this encounter has no saves folder (it is not saved in a file)", "error", False)
        assert app.screen is s
        s._run(lambda session: session.reorder("Bo", 1))
        assert [row[1] for row in _shown(s)] == ["Bo", "Ann"] and len(app.said) == 2
    live.store.flush()
    assert list(on_disk(path).combatants) == ["Bo", "Ann"]


async def test_the_list_shows_each_combatant_as_plain_text(saves: Path) -> None:
    path = _odd(saves)
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        title = s.query_one(".title", Label)
        assert str(title.render()) == "Roster · fight (Freeform)" and title.parent is not None and title.parent.id == "roster-editor"
        assert _shown(s) == [
            ("Seraph [PC]: hp 10", "Seraph", False),
            ("Sphinx: hp 30.5, mp 4", "Sphinx", False),
            ("Z\u2407ed [b] [foe] (hidden): hp 3", "Z\x07ed [b]", False),
        ]
        assert all(isinstance(_list(s).get_option_at_index(i).prompt, Text) for i in range(3))
        assert _highlighted(s) == "Seraph"  # opened: the first row
        assert _hint(s) == "r rename  s side  [ move up  ] move down  w to library"
        assert s.query_one("#roster-hint", Label).has_class("hint")
        assert s.COMMAND_TABLE is ROSTER
        post_keys(app, ["question_mark"])
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen) and help_screen.title_text == "Roster" and help_screen.commands is ROSTER
        await wait_for(pilot, lambda: str(help_screen.query_one(".title", Label).render()) == "Roster: keys (esc closes)", "the help's title", WAIT)
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: app.closed, "the roster closed", WAIT)
    assert app.result is None
    live.close()


async def test_the_title_of_an_odd_fight_is_plain_text(saves: Path) -> None:
    path = make_file(saves, "ogs", ["add Ayla", "add Brom hp=7"], name="cave")
    path.write_text(path.read_text(encoding="utf-8").replace('name = "cave"', 'name = "The [b]Cave\\u001b"'), encoding="utf-8")
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        title = s.query_one(".title", Label)
        rendered = title.render()
        assert str(rendered) == "Roster · The [b]Cave\u241b (OGS)"  # the brackets shown, not read as markup
        assert _shown(s)[1] == ("Brom: hp 7", "Brom", False)
        post_keys(app, ["ctrl+s"])  # done, as Esc
        await wait_for(pilot, lambda: app.closed, "the roster closed", WAIT)
    live.close()


async def test_an_empty_roster_says_a_adds_and_the_other_keys_wait(saves: Path) -> None:
    path = make_file(saves, "freeform", [])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        assert _shown(s) == [("(no combatants yet: press a to add one)", None, True)]
        assert _list(s).highlighted is None and s._current() is None
        # Nothing highlighted: each key does nothing (the a after them is read after them).
        post_keys(app, ["e", "delete", "x", "r", "s", "left_square_bracket", "right_square_bracket", "w"])
        form = await _form(pilot, app, "a")
        assert form.title_text == "Add a combatant (Freeform sheet)" and not app.said and on_disk(path).events == []
        await _type(pilot, app, form, "name", "Ann")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _shown(s) == [("Ann: hp 10", "Ann", False)], "Ann listed", WAIT)
        assert _highlighted(s) == "Ann"
    live.store.flush()
    live.close()
    assert list(on_disk(path).combatants) == ["Ann"]


async def test_a_adds_copies_in_one_change_and_highlights_the_first(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10 side=PC", "add Sphinx hp=30"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        form = await _form(pilot, app, "a")
        assert form.title_text == "Add a combatant (Freeform sheet)"
        assert form.focused is form.query_one("#f-name", Input)
        post_keys(app, [*"Goblin", "enter"])  # a field's text in one burst; enter: the next field
        await wait_for(pilot, lambda: form.query_one("#f-copies", Input).has_focus, "the copies next", WAIT)
        assert form.values()["name"] == "Goblin"
        await _type(pilot, app, form, "copies", "4")
        await _type(pilot, app, form, "side", "foe")
        await _type(pilot, app, form, "sheet_hp", "5")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _highlighted(s) == "Goblin 1", "the first copy highlighted", WAIT)
        assert [row[1] for row in _shown(s)] == ["Seraph", "Sphinx", "Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
        assert _shown(s)[3] == ("Goblin 2 [foe]: hp 5", "Goblin 2", False)
        # Esc in the middle of the form: nothing added, the highlight kept.
        form = await _form(pilot, app, "a")
        await _type(pilot, app, form, "name", "Troll")
        await _type(pilot, app, form, "copies", "9")
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert _highlighted(s) == "Goblin 1" and "Troll" not in live.encounter.combatants
        # A refused add keeps the form open and says why.
        form = await _form(pilot, app, "a")
        await _type(pilot, app, form, "name", "seraph")
        post_keys(app, ["ctrl+s"])
        error = form.query_one("#form-error", Label)
        await wait_for(pilot, lambda: str(error.render()) == "there is already a combatant named 'Seraph' (names are unique ignoring case)", "the add refused", WAIT)
        assert app.screen is form
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
    live.store.flush()
    live.close()
    enc = on_disk(path)
    assert list(enc.combatants) == ["Seraph", "Sphinx", "Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
    assert [e.kind for e in enc.events] == ["add", "add", "add"]


async def test_e_edits_the_highlighted_sheet_and_esc_keeps_it(saves: Path) -> None:
    path = make_file(saves, "d6", ["add Hero coordination=3D", "add Orc"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["down"])
        await wait_for(pilot, lambda: _highlighted(s) == "Orc", "Orc highlighted", WAIT)
        form = await _form(pilot, app, "e")
        assert form.title_text == "Edit Orc"
        await _type(pilot, app, form, "sheet_weapon", "4d")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: live.encounter.combatant("Orc").stats.get("weapon") == "4D", "the weapon set", WAIT)
        assert _highlighted(s) == "Orc"
        form = await _form(pilot, app, "e")
        await _type(pilot, app, form, "sheet_weapon", "6D")
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert live.encounter.combatant("Orc").stats["weapon"] == "4D" and _highlighted(s) == "Orc"
    live.store.flush()
    live.close()
    assert _events(path)[-1] == ("set", {"target": "Orc", "key": "weapon", "value": "4D", "stat": True})
    assert len(_events(path)) == 3


@pytest.mark.parametrize(("key", "field", "text", "saved"), [
    ("e", "sheet_hp", "5", True), ("e", "sheet_hp", "5", False), ("s", "side", "foe", True),
    ("s", "side", "foe", False), ("r", "name", "Bob", True), ("r", "name", "Bob", False),
])
async def test_the_combatant_in_a_form_stays_highlighted_where_another_session_moved_it(saves: Path, key: str, field: str, text: str, saved: bool) -> None:
    """While a form is up on Bo, another GM's seat moves Bo to the top: once the form
    is saved or left, the highlight follows Bo, not the row it was on."""
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=7"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["down"])
        await wait_for(pilot, lambda: _highlighted(s) == "Bo", "Bo highlighted", WAIT)
        form = await _form(pilot, app, key)
        other = _live(path)
        other.run(lambda session: session.reorder("Bo", 1))
        other.store.flush()
        other.close()
        assert live.poll()  # read in, as the app's follower does while a form is up
        await _type(pilot, app, form, field, text)
        post_keys(app, ["ctrl+s" if saved else "escape"])
        await _back(pilot, app, s)
        name = "Bob" if saved and key == "r" else "Bo"
        await wait_for(pilot, lambda: _shown(s)[0][1] == name, "the move shown", WAIT)
        assert _highlighted(s) == name
    live.store.flush()
    live.close()
    assert list(on_disk(path).combatants) == [name, "Ann"]


async def test_a_rename_after_another_seats_undo_highlights_the_new_name(saves: Path) -> None:
    """Bo at the top; while the rename form is up another seat undoes that move (the
    fight read again from its log): the new name is highlighted where Bo now is."""
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=7", "reorder Bo 1"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        assert _highlighted(s) == "Bo"
        form = await _form(pilot, app, "r")
        other = _live(path)
        other.run(lambda session: session.undo())
        other.store.flush()
        other.close()
        assert live.poll() and list(live.encounter.combatants) == ["Ann", "Bo"]
        await _type(pilot, app, form, "name", "Bob")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: [row[1] for row in _shown(s)] == ["Ann", "Bob"], "the rename shown", WAIT)
        assert _highlighted(s) == "Bob"
    live.store.flush()
    live.close()
    assert list(on_disk(path).combatants) == ["Ann", "Bob"]


async def test_enter_edits_the_highlighted_row_as_the_help_says(saves: Path) -> None:
    """The table binds "enter,e" to Edit (the help lists `enter / e`); the list claims
    Enter first, so its selection is the edit."""
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=7"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["down", "enter"])
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen) and app.screen.focused is not None, "the edit form", WAIT)
        form = app.screen
        assert isinstance(form, FormScreen) and form.title_text == "Edit Bo"
        await _type(pilot, app, form, "sheet_hp", "4")
        post_keys(app, ["enter"])  # hp, then more: the last field saves
        await wait_for(pilot, lambda: form.query_one("#f-more", Input).has_focus, "more focused", WAIT)
        post_keys(app, ["enter"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _shown(s)[1][0] == "Bo: hp 4", "the new hp shown", WAIT)
        assert _highlighted(s) == "Bo"
    live.store.flush()
    live.close()
    assert _events(path)[-1] == ("set", {"target": "Bo", "key": "hp", "value": 4})


@pytest.mark.parametrize("seat", ["viewer", "player"])
async def test_enter_on_a_row_is_refused_to_a_viewer_or_a_player(saves: Path, seat: str) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10"])
    live = _live(path, viewer=True) if seat == "viewer" else _live(path, role=Role.player(["Ann"]))
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["enter"])
        await wait_for(pilot, lambda: bool(app.said), "the edit refused", WAIT)
        assert app.said == [("Edit: refused, this is a read-only viewer", "warning", True)] and app.screen is s
    live.close()


async def test_x_removes_after_asking(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=10", "add Cy hp=10"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["end"])
        await wait_for(pilot, lambda: _highlighted(s) == "Cy", "Cy highlighted", WAIT)
        post_keys(app, ["x"])
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked", WAIT)
        assert app.screen.question == "Remove Cy from the fight?"  # type: ignore[attr-defined]
        post_keys(app, ["n"])
        await _back(pilot, app, s)
        assert "Cy" in live.encounter.combatants
        post_keys(app, ["delete"])
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked again", WAIT)
        post_keys(app, ["y"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: "Cy" not in live.encounter.combatants, "Cy removed", WAIT)
        assert [row[1] for row in _shown(s)] == ["Ann", "Bo"] and _highlighted(s) == "Bo"  # the last row now
        assert not app.said
    live.store.flush()
    live.close()
    assert list(on_disk(path).combatants) == ["Ann", "Bo"]


async def test_r_renames_s_changes_side_and_the_brackets_move(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10 side=PC", "add Bo hp=10 side=foe", "add Cy hp=10"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["down"])
        await wait_for(pilot, lambda: _highlighted(s) == "Bo", "Bo highlighted", WAIT)
        form = await _form(pilot, app, "r")
        assert form.title_text == "Rename Bo"
        field = form.fields[0]
        assert (field.name, field.label, field.value, field.help, field.check) == ("name", "new name", "Bo", "the combatant's new name", _name)
        await _type(pilot, app, form, "name", "Grok [/]")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _highlighted(s) == "Grok [/]", "the new name highlighted", WAIT)
        assert _shown(s)[1] == ("Grok [/] [foe]: hp 10", "Grok [/]", False)
        # r, then Esc: the name kept, the row still highlighted.
        form = await _form(pilot, app, "r")
        await _type(pilot, app, form, "name", "Gr")
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert _highlighted(s) == "Grok [/]" and "Grok [/]" in live.encounter.combatants
        # A rename refused: said in the form, which stays.
        form = await _form(pilot, app, "r")
        await _type(pilot, app, form, "name", "ann")
        post_keys(app, ["ctrl+s"])
        error = form.query_one("#form-error", Label)
        await wait_for(pilot, lambda: "already a combatant" in str(error.render()), "the rename refused", WAIT)
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        # s: the sides there are suggested.
        form = await _form(pilot, app, "s")
        side = form.fields[0]
        assert form.title_text == "Side of Grok [/]"
        assert (side.name, side.label, side.value, side.help, side.check, list(side.suggestions)) == ("side", "side", "foe", "PC, foe, ... (empty: no side)", None, ["PC", "foe"])
        await _type(pilot, app, form, "side", "boss")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _shown(s)[1][0] == "Grok [/] [boss]: hp 10", "the side shown", WAIT)
        assert _highlighted(s) == "Grok [/]"
        form = await _form(pilot, app, "s")
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert live.encounter.combatant("Grok [/]").side == "boss"
        # ] twice: one place down, then no further than the last.
        post_keys(app, ["right_square_bracket"])
        await wait_for(pilot, lambda: list(live.encounter.combatants) == ["Ann", "Cy", "Grok [/]"], "moved down", WAIT)
        await wait_for(pilot, lambda: _highlighted(s) == "Grok [/]", "still highlighted", WAIT)
        count = len(live.encounter.events)
        post_keys(app, ["right_square_bracket"])
        post_keys(app, ["left_square_bracket", "left_square_bracket"])
        await wait_for(pilot, lambda: list(live.encounter.combatants) == ["Grok [/]", "Ann", "Cy"], "at the top", WAIT)
        assert _highlighted(s) == "Grok [/]" and len(live.encounter.events) == count + 2
        post_keys(app, ["left_square_bracket"])  # the first stays first
        await pilot.pause()
        post_keys(app, ["down"])
        await wait_for(pilot, lambda: _highlighted(s) == "Ann", "Ann highlighted", WAIT)
        assert len(live.encounter.events) == count + 2 and not app.said
    live.store.flush()
    live.close()
    events = _events(path)
    assert events[3:] == [
        ("rename", {"target": "Bo", "name": "Grok [/]"}),
        ("side", {"target": "Grok [/]", "side": "boss"}),
        ("reorder", {"target": "Grok [/]", "position": 3}),
        ("reorder", {"target": "Grok [/]", "position": 2}),
        ("reorder", {"target": "Grok [/]", "position": 1}),
    ]


async def test_the_library_empty_then_a_sheet_saved_and_added_from(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Grok hp=5 side=boss mp=3"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["l"])
        await wait_for(pilot, lambda: bool(app.said), "the empty library said", WAIT)
        assert app.said == [("library-freeform.toml holds no sheets yet: highlight a combatant and press w to save one", "warning", False)]
        assert app.screen is s
        # w, then Esc: nothing saved, nothing said.
        form = await _form(pilot, app, "w")
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert not (saves / "library-freeform.toml").exists() and len(app.said) == 1
        form = await _form(pilot, app, "w")
        assert form.title_text == "Save Grok's sheet in the library"
        entry = form.fields[0]
        assert (entry.name, entry.label, entry.value, entry.help) == ("entry", "sheet name", "Grok", "saving under an existing name replaces that sheet")
        await _type(pilot, app, form, "entry", "Goblin [boss]")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: len(app.said) == 2, "the save said", WAIT)
        assert app.said[1] == ("Goblin [boss]: sheet saved in library-freeform.toml", "information", False)
        form = await _form(pilot, app, "w")  # an emptied name: the combatant's own
        await _type(pilot, app, form, "entry", "")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: len(app.said) == 3, "the second save said", WAIT)
        assert app.said[2][0] == "Grok: sheet saved in library-freeform.toml"
        # l: the sheets listed, two copies added and the first highlighted.
        form = await _form(pilot, app, "l")
        assert form.title_text == "Add from library-freeform.toml"
        assert [(f.name, f.label, f.value, f.help) for f in form.fields] == [
            ("entry", "sheet", "Goblin [boss]", "Goblin [boss], Grok"),
            ("name", "name", "", "default: the sheet's name"),
            ("copies", "copies", "1", "more than 1: numbered copies, up to 100"),
            ("side", "side", "", "default: the sheet's side"),
        ]
        assert list(form.fields[0].suggestions) == ["Goblin [boss]", "Grok"] and form.fields[2].check is _copies
        await _type(pilot, app, form, "copies", "2")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _highlighted(s) == "Goblin [boss] 1", "the first copy highlighted", WAIT)
        assert _shown(s)[2] == ("Goblin [boss] 2 [boss]: hp 5, mp 3", "Goblin [boss] 2", False)
        # One, named and of another side, its copies emptied (one).
        form = await _form(pilot, app, "l")
        await _type(pilot, app, form, "entry", "Grok")
        await _type(pilot, app, form, "name", "Urk")
        await _type(pilot, app, form, "copies", "")
        await _type(pilot, app, form, "side", "foe")
        post_keys(app, ["ctrl+s"])
        await _back(pilot, app, s)
        await wait_for(pilot, lambda: _highlighted(s) == "Urk", "Urk highlighted", WAIT)
        # A sheet the library does not hold: said in the form.
        form = await _form(pilot, app, "l")
        await _type(pilot, app, form, "entry", "Nobody")
        post_keys(app, ["ctrl+s"])
        await wait_for(pilot, lambda: "Nobody" in str(form.query_one("#f-entry-error", Label).render()), "the sheet refused", WAIT)
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert _highlighted(s) == "Urk"
    live.store.flush()
    live.close()
    enc = on_disk(path)
    assert list(enc.combatants) == ["Grok", "Goblin [boss] 1", "Goblin [boss] 2", "Urk"]
    assert enc.combatant("Urk").side == "foe" and enc.combatant("Goblin [boss] 1").side == "boss"
    assert Library(saves / "library-freeform.toml").get("Goblin [boss]").resources == {"hp": 5, "mp": 3}


async def test_whole_figures_show_whole_and_the_library_names_twelve_sheets(saves: Path) -> None:
    """Brand X keeps EP as a number with a fraction (74.0): the row says `ep 74`. The
    sheet field's help names the library's first 12 sheets; all of them are offered."""
    path = make_file(saves, "brandx", ["add Seraph vp=43 ep=74"])
    library = Library.in_folder(saves, "brandx")
    for i in range(13):
        library.put(Sheet(f"Sheet {i:02d}", resources={"vp": 30}))
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        assert _shown(s) == [("Seraph: vp 43, dp 15, ep 74", "Seraph", False)]
        form = await _form(pilot, app, "l")
        entry = form.fields[0]
        assert entry.help == ", ".join(f"Sheet {i:02d}" for i in range(12)) and len(entry.suggestions) == 13
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert list(live.encounter.combatants) == ["Seraph"]
    live.close()


async def test_a_library_that_cannot_be_read_says_why(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Grok hp=5"])
    (saves / "library-freeform.toml").write_text("this is [not toml\n", encoding="utf-8")
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["l"])
        await wait_for(pilot, lambda: bool(app.said), "the library refused", WAIT)
        message, severity, markup = app.said[0]
        assert "library-freeform.toml" in message and severity == "error" and markup is False
        assert app.screen is s
    live.close()


def _bare_live(path: Path) -> Live:
    """An encounter with no saves folder to keep a library in."""
    from tracker.persistence.store import EncounterFile
    from tracker.play.live import WriteBehindStore
    from rulesets.dice import RandomDice

    file = EncounterFile(path)
    loaded = file.load()
    store = WriteBehindStore(file)
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(), store, "", Role.gm(), None)
    return Live(path, session, store)


async def test_no_library_beside_the_fight_says_so(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Grok hp=5"])
    live = _bare_live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["l"])
        await wait_for(pilot, lambda: bool(app.said), "the library refused", WAIT)
        assert app.said == [("library: this encounter has no saves folder (it is not saved in a file)", "error", False)]
        form = await _form(pilot, app, "w")
        post_keys(app, ["ctrl+s"])
        await wait_for(pilot, lambda: "no saves folder" in str(form.query_one("#form-error", Label).render()), "the save refused", WAIT)
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        assert len(app.said) == 1


async def test_a_change_another_session_made_first_is_said(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "add 'Bo [x]' hp=10", "add Cy hp=10"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["down"])
        await wait_for(pilot, lambda: _highlighted(s) == "Bo [x]", "Bo highlighted", WAIT)
        other = _live(path)
        other.run(lambda session: session.remove("Bo [x]"))
        other.store.flush()
        other.close()
        post_keys(app, ["right_square_bracket"])
        await wait_for(pilot, lambda: bool(app.said), "the move refused", WAIT)
        message, severity, markup = app.said[0]
        assert message.startswith("no combatant named 'Bo [x]'") and severity == "error" and markup is False
        await wait_for(pilot, lambda: [row[1] for row in _shown(s)] == ["Ann", "Cy"], "the list read again", WAIT)
    live.close()
    assert list(on_disk(path).combatants) == ["Ann", "Cy"]


async def test_a_removal_refused_is_said_and_the_list_read_again(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=10"])
    live = _live(path)
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["x"])
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked", WAIT)
        other = _live(path)
        other.run(lambda session: session.remove("Ann"))
        other.store.flush()
        other.close()
        post_keys(app, ["enter"])
        await wait_for(pilot, lambda: bool(app.said), "the removal refused", WAIT)
        assert app.said[0][0].startswith("no combatant named 'Ann'") and app.said[0][1:] == ("error", False)
        await wait_for(pilot, lambda: [row[1] for row in _shown(s)] == ["Bo"], "the list read again", WAIT)
    live.close()


@pytest.mark.parametrize("seat", ["viewer", "player"])
async def test_a_viewer_or_a_player_is_refused_every_change(saves: Path, seat: str) -> None:
    path = make_file(saves, "freeform", ["add Ann hp=10", "add Bo hp=10 hidden=yes"])
    before = path.read_bytes()
    live = _live(path, viewer=True) if seat == "viewer" else _live(path, role=Role.player(["Ann"]))
    async with _opened(live) as (s, app, pilot):
        post_keys(app, ["a", "e", "x", "r", "s", "left_square_bracket", "right_square_bracket", "l", "w"])
        await wait_for(pilot, lambda: len(app.said) == 9, "every change refused", WAIT)
        labels = ["Add", "Edit", "Remove", "Rename", "Side", "Move down", "Move up", "From library", "To library"]
        assert sorted(m for m, _, _ in app.said) == sorted(f"{label}: refused, this is a read-only viewer" for label in labels)
        assert {sev for _, sev, _ in app.said} == {"warning"}
        assert app.screen is s
        post_keys(app, ["question_mark"])
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        post_keys(app, ["escape"])
        await _back(pilot, app, s)
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: app.closed, "closed", WAIT)
    live.close()
    assert path.read_bytes() == before


def test_the_screens_keys_are_the_roster_table() -> None:
    screen_keys = {b.id: b.key for b in RosterScreen.BINDINGS}  # type: ignore[union-attr]
    assert screen_keys == {c.name: c.keys for c in ROSTER}
