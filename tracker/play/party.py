"""A character's sheet for a campaign, read from `key=value` words as `add` reads a
combatant's: `join` (a character joins the party, from the words or the sheet library),
`change` (its sheet or state between fights). The command line and the app's party
screen both build their events here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracker.play import verbs
from tracker.play import fights
from tracker.persistence.campaign import Campaign
from tracker.engine import Event
from tracker.engine.errors import CommandError
from tracker.engine.text import check_name


def join(camp: Campaign, folder: Path, name: str, opts: dict[str, str]) -> Event:
    name = name.strip()
    check_name(name, "campaign add: name")
    ruleset = fights.ruleset_of(camp, folder)
    side = opts.pop("side", "")
    entry = opts.pop("from", None)
    where = f"campaign add {name}"
    if entry is not None:
        from tracker.persistence.library import Library

        sheet = Library.in_folder(folder, camp.ruleset).get(entry)
        stats, resources = dict(sheet.stats), dict(sheet.resources)
        side = side or sheet.side
        extra_stats, extra_resources = ruleset.build_sheet(opts, where) if opts else ({}, {})
        # Only the keys typed: build_sheet fills the sheet's defaults in, which would
        # overwrite the library's values.
        stats.update({k: v for k, v in extra_stats.items() if k in opts})
        resources.update({k: v for k, v in extra_resources.items() if k in opts})
        stats, resources = ruleset.check_sheet(stats, resources, where)
    else:
        stats, resources = ruleset.build_sheet(opts, where)
    args: dict[str, Any] = {"pc": camp.next_id(), "name": name, "stats": stats, "resources": resources}
    if side:
        args["side"] = side
    return Event("join", args)


def change(camp: Campaign, folder: Path, name: str, opts: dict[str, str]) -> Event:
    pc = camp.pc(name)
    ruleset = fights.ruleset_of(camp, folder)
    where = f"campaign set {pc.name}"
    args: dict[str, Any] = {"pc": pc.id}
    if "name" in opts:
        new = opts.pop("name").strip()
        check_name(new, f"{where}: name")
        args["name"] = new
    if "side" in opts:
        args["side"] = opts.pop("side")
    conditions, maxima, plain = {}, {}, {}
    for key, value in opts.items():
        if key.startswith("condition."):
            conditions[key.removeprefix("condition.")] = verbs.number(value, f"{where}: {key}")
        elif key.endswith(".max"):
            maxima[key.removesuffix(".max")] = value
        else:
            plain[key] = value
    resource_names = {f.name for f in ruleset.resource_fields()}
    if maxima:
        unknown = [k for k in maxima if k not in resource_names]
        if unknown:
            raise CommandError(f"{where}: {unknown[0]}.max: {unknown[0]} is not a resource of {ruleset.name} ({', '.join(sorted(resource_names))})")
        _, tops = ruleset.build_sheet(maxima, where)
        args["maxima"] = {k: v for k, v in tops.items() if k in maxima}  # not the sheet's defaults for the others
    if plain:
        stats, resources = ruleset.build_sheet(plain, where)
        stats = {k: v for k, v in stats.items() if k in plain}  # build_sheet fills the sheet's defaults in
        if stats:
            args["stats"] = stats
        if resources:
            args["resources"] = {k: v for k, v in resources.items() if k in plain}
    if conditions:
        args["conditions"] = conditions
    if len(args) == 1:
        raise CommandError(f"{where}: nothing to change (KEY=N, KEY.max=N, condition.NAME=SEGMENTS, name=NEW, side=S)")
    return Event("set", args)
