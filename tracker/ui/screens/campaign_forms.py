"""The campaign screen's forms: the next fight, a character joining (the game's sheet,
or from the library), a change to one, one leaving or dying.

Each form's work reads and writes the campaign file (and a new fight's) on a thread
(`BackgroundForm`, tracker.ui.background): a refusal is shown in the form and nothing
typed is lost; keys typed while it works wait for it. The words are the command line's
(tracker.play.party), so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from textual.widgets import Label

from rulesets.base import Ruleset
from tracker.play import fights, party
from tracker.persistence.campaign import DIED, LEFT, PC, Campaign
from tracker.persistence.campaign_file import SUFFIX, CampaignFile
from tracker.engine import Event, TrackerError
from tracker.engine.kinds import fmt
from tracker.engine.text import refuse_controls
from tracker.ui.background import in_thread
from tracker.ui.screens.form import FormField, FormScreen, set_error
from tracker.ui.screens.roster import _name, _pairs, _split_values

LEAVES, DIES = "leaves", "dies"


class BackgroundForm(FormScreen):
    """A form whose `work(values)` runs on a thread; its result is kept in `result`."""

    def __init__(self, title: str, fields: Sequence[FormField], work: Callable[[dict[str, str]], object], note: str = "", start: int = 0) -> None:
        super().__init__(title, fields, None, note, start)
        self.work = work
        self.working = False
        self.result: object = None

    def action_submit(self) -> None:
        if self.working:
            return
        values = self.values()
        if not all([self._check(f, values[f.name]) for f in self.fields]):
            return
        error = self.query_one("#form-error", Label)
        set_error(error, "")

        def done(result: object) -> None:
            self.result = result
            self.dismiss(values)

        def refused(message: str) -> None:
            set_error(error, message)
            error.scroll_visible(animate=False)  # under a long sheet: brought into view

        in_thread(self, partial(self.work, values), done, refused)

    def action_cancel(self) -> None:
        if not self.working:  # what the thread does lands; the form says so when it ends
            self.dismiss(None)


def _number(text: str) -> None:
    try:
        float(text)
    except ValueError:
        raise TrackerError(f"expected a number, got {text!r}") from None


def _figure(value: Any) -> str:
    return fmt(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _conditions_text(conditions: dict[str, int]) -> str:
    sep = ", " if any(" " in name for name in conditions) else " "
    return sep.join(f"{name}={left}" for name, left in conditions.items())


def _conditions(text: str) -> dict[str, str]:
    """'stunned=40 poisoned=10', or with commas 'on fire=5, stunned=40' (segments left)."""
    pairs: dict[str, str] = {}
    for part in text.split(",") if "," in text else text.split():
        name, eq, left = part.strip().rpartition("=")
        name = name.strip()
        if not part.strip():
            continue
        if not eq or not name:
            raise TrackerError(f"conditions: expected NAME=SEGMENTS (stunned=40), got {part.strip()!r}")
        if not left.strip().isdigit() or int(left) < 1:
            raise TrackerError(f"conditions: {name}: expected the segments left, a whole number of at least 1, got {left.strip()!r}")
        pairs[name] = str(int(left))
    return pairs


def next_fight_form(camp: Campaign, path: Path, by: str, opened: Callable[[Path], object]) -> BackgroundForm:
    """The next fight's name; its work starts it (`fights.start`) and reads it for the
    encounter screen (`opened(fight_file)`, on the thread)."""
    from tracker.persistence import paths
    from tracker.ui.naming import slug

    def work(values: dict[str, str]) -> object:
        name = values["name"]
        if not name:
            raise TrackerError("name: expected the fight's name")
        _name(name)
        # A name in another script (no Latin letter or digit: `slug` would give its
        # "encounter"): the campaign's file and the fight's number.
        latin = any(ch.isascii() and ch.isalnum() for ch in name.casefold())
        stem = slug(name) if latin else f"{path.name.removesuffix(SUFFIX)}-{len(camp.fights) + 1}"
        fight = path.parent / f"{stem}{paths.SUFFIX}"
        fights.start(path, fight, name, by)
        return fight, opened(fight)

    who = ", ".join(pc.name for pc in camp.party()) or "nobody yet"
    field = FormField("name", "name", f"{camp.name} {len(camp.fights) + 1}", "the fight's name", _name)
    return BackgroundForm(f"Next fight of {camp.name}", [field], work, note=f"the party goes in as it stands ({who}); then add the foes")


def _checked(words: dict[str, str]) -> dict[str, str]:
    """Typed (or pasted) words as the command line takes them: no control characters."""
    for key, value in words.items():
        refuse_controls(key, "key")
        refuse_controls(value, key)
    return words


def _join(path: Path, by: str, name: str, words: dict[str, str]) -> object:
    _checked(words)
    camp, events = CampaignFile(path).change(lambda camp: [party.join(camp, path.parent, name, dict(words))], by)
    return camp.pcs[events[0].args["pc"]].name


def add_form(camp: Campaign, ruleset: Ruleset, path: Path, by: str) -> BackgroundForm:
    """A character joins: the game's sheet, as the roster editor's add form has it."""
    rows = [FormField("name", "name", "", "the character's name", _name), FormField("side", "side", "", "optional: PC, party, ...")]
    for f in ruleset.sheet:
        help_text = f"{f.help} ({f.expected()})" if f.help else f.expected()
        rows.append(FormField(f"sheet_{f.name}", f.name, "" if f.default is None else str(f.default), help_text, partial(f.coerce, where=f.name)))
    rows.append(FormField("more", "more", "", "other key=value pairs", _pairs))

    def work(values: dict[str, str]) -> object:
        if not values["name"]:
            raise TrackerError("name: expected the character's name")
        words = _split_values(values)
        if values["side"]:
            words["side"] = values["side"]
        return _join(path, by, values["name"], words)

    return BackgroundForm(f"A character joins {camp.name} ({ruleset.name} sheet)", rows, work)


def library_form(camp: Campaign, path: Path, by: str, names: list[str]) -> BackgroundForm:
    """A character joins from a sheet of the library (`names`: its entries)."""

    def check(text: str) -> None:
        if text not in names:
            raise TrackerError(f"sheet: expected one of {', '.join(names[:12])}, got {text!r}")

    fields = [
        FormField("entry", "sheet", names[0], ", ".join(names[:12]), check, names),
        FormField("name", "name", "", "default: the sheet's name", _name),
        FormField("side", "side", "", "default: the sheet's side"),
    ]

    def work(values: dict[str, str]) -> object:
        words = {"from": values["entry"]}
        if values["side"]:
            words["side"] = values["side"]
        return _join(path, by, values["name"] or values["entry"], words)

    return BackgroundForm(f"A character joins {camp.name} from the library", fields, work)


def change_form(camp: Campaign, ruleset: Ruleset, path: Path, by: str, pc: PC) -> BackgroundForm:
    """A character's figures as they stand, maxima, stats, conditions, name and side:
    what is changed is sent (`party.change`'s words), the rest is left as it is."""
    sheet = {f.name: f for f in ruleset.sheet}
    fields = [FormField("name", "name", pc.name, "the character's name", _name), FormField("side", "side", pc.side, "PC, party, ... (empty: none)")]
    keys: dict[str, str] = {}  # field -> the word it sends
    for i, (key, value) in enumerate(pc.resources.items()):
        fields.append(FormField(f"r{i}", key, _figure(value), f"{key} as it stands (of {_figure(pc.maxima.get(key, value))})", _number))
        fields.append(FormField(f"m{i}", f"{key} max", _figure(pc.maxima.get(key, value)), f"{key}'s maximum", _number))
        keys[f"r{i}"], keys[f"m{i}"] = key, f"{key}.max"
    for i, (key, value) in enumerate(pc.stats.items()):
        lowered = f" (sheet {_figure(pc.sheet[key])}; a change sets the sheet too)" if key in pc.sheet and pc.sheet[key] != value else ""
        check = partial(sheet[key].coerce, where=key) if key in sheet else None
        fields.append(FormField(f"s{i}", key, _figure(value), f"{key}{lowered}", check))
        keys[f"s{i}"] = key
    fields.append(FormField("conditions", "conditions", _conditions_text(pc.conditions), "NAME=SEGMENTS left: stunned=40 (commas if a name has spaces); removed: ended", _conditions))
    before = {f.name: f.value for f in fields}

    def work(values: dict[str, str]) -> object:
        words = {keys[k]: v for k, v in values.items() if k in keys and v != before[k]}
        for k in ("name", "side"):
            if values[k] != before[k]:
                words[k] = values[k]
        if values["conditions"] != before["conditions"]:
            now = _conditions(values["conditions"])
            words.update({f"condition.{c}": left for c, left in now.items() if str(pc.conditions.get(c)) != left})
            words.update({f"condition.{c}": "0" for c in pc.conditions if c not in now})
        if not words:
            return None  # nothing changed: nothing written
        _checked(words)
        CampaignFile(path).change(lambda camp: [party.change(camp, path.parent, pc.id, dict(words))], by)
        return pc.id

    return BackgroundForm(f"Change {pc.name}", fields, work, note="what you change is written; the rest stays as it is")


def leave_form(camp: Campaign, path: Path, by: str, pc: PC) -> BackgroundForm:
    def check(text: str) -> None:
        if text not in (LEAVES, DIES):
            raise TrackerError(f"expected {LEAVES} or {DIES}, got {text!r}")

    fields = [
        FormField("how", "how", LEAVES, f"{LEAVES} the party, or {DIES}", check, (LEAVES, DIES), pick=True),
        FormField("note", "note", "", "why, in a few words (optional)"),
    ]

    def work(values: dict[str, str]) -> object:
        args: dict[str, Any] = {"pc": pc.id, "reason": DIED if values["how"] == DIES else LEFT}
        if values["note"]:
            args["note"] = _checked({"note": values["note"]})["note"]
        CampaignFile(path).change(lambda camp: [Event("leave", args)], by)
        return values["how"]

    return BackgroundForm(f"{pc.name} leaves the party, or dies", fields, work, note="u on the campaign screen takes it back")
