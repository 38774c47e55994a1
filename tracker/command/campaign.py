"""`tracker campaign ...`: the campaign's command line (docs/campaigns.md).

    tracker campaign new NAME --ruleset R [--house-rules FILE]
    tracker campaign add NAME PC key=value ... [from=ENTRY] [side=S]
    tracker campaign remove NAME PC [died=true] [note=TEXT]
    tracker campaign set NAME PC key=value ...   (KEY=N a stat, or a resource as it
                                                  stands; KEY.max=N its maximum;
                                                  condition.NAME=SEGMENTS, 0 ends it;
                                                  name=NEW; side=S)
    tracker campaign rest NAME [hours=N] [PC.KEY=N ...] [full=true] [PC.full=true]
                               [--faces N,N,...] [--seed N] [--note TEXT]
    tracker campaign end FIGHT [--yes] [--outcome TEXT]
    tracker campaign show NAME [--json]
    tracker campaign stats NAME [--json] [--viewer]
    tracker campaign export NAME --format html|md [--viewer] [--output FILE]
    tracker campaign note NAME TEXT | undo NAME | redo NAME | list

`tracker new FIGHT --campaign NAME [--from OTHER]` starts the next fight (tracker.command.cli).
Every change is signed with the OS account, as the fight's are; a viewer's session
(`TRACKER_READ_ONLY`) changes nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from rulesets.dice import RandomDice, TypedFaces, parse_faces
from tracker.play import verbs
from tracker.play import fights, party
from tracker.reading import campaign as reading
from tracker.persistence.campaign import DIED, LEFT
from tracker.persistence import paths
from tracker.persistence.campaign_file import SUFFIX, CampaignFile
from tracker.engine import Event
from tracker.engine.errors import CommandError, TrackerError
from tracker.reading.roles import Role, account
from tracker.engine.text import check_name, refuse_controls


def campaign_by() -> str:
    """Who makes a campaign change from the command line: the OS account, as a GM."""
    return Role.gm().signature(account())



def _pairs(values: list[str], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise CommandError(f"{where}: expected KEY=VALUE, got {item!r}")
        refuse_controls(key, f"{where}: key")
        refuse_controls(value, f"{where}: {key}")
        if key in out:
            raise CommandError(f"{where}: {key} given twice")
        out[key] = value
    return out


def run(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    cmd = args.campaign_command
    if cmd == "list":
        for path in paths.campaign_files(saves):
            try:
                camp = CampaignFile(path).load()
                out.write(f"{path.name}: {camp.name} ({camp.ruleset}), {len(camp.party())} in the party, {len(camp.fights)} fights\n")
            except TrackerError as exc:
                out.write(f"{path.name}: refused: {exc}\n")
        return 0
    if cmd == "end":
        return _end(args, saves, stdin, out)
    path = fights.campaign_path(args.name, saves)
    if cmd == "new":
        title = args.title or path.name.removesuffix(SUFFIX).replace("-", " ").replace("_", " ")
        check_name(title, "--title")
        from rulesets import registry
        from tracker.persistence.header import house_rules_tables

        # An unknown game, or house rules that do not load beside the file, are named
        # before the file is written: a refused `new` leaves nothing behind.
        rules = house_rules_tables(args.house_rules, path.parent, str(path)) if args.house_rules else None
        game = registry.get(args.ruleset, rules)
        if rules is not None:
            try:
                game.check_tables()  # tables handed over already read are the caller's to check
            except TrackerError as exc:
                raise TrackerError(f"{path}: house rules {args.house_rules}: {exc}") from None
        CampaignFile.create(path, title, args.ruleset, args.house_rules)
        out.write(f"created {path} ({args.ruleset})\n")
        return 0
    store = CampaignFile(path)
    if cmd in ("show", "stats", "export"):
        camp = store.load()
        if cmd == "show":
            if args.json:
                out.write(json.dumps(reading.to_json(camp, path.parent), indent=2) + "\n")
            else:
                out.write(reading.to_text(camp, path.parent) + "\n")
        elif cmd == "stats":
            figures = reading.stats(camp, viewer=args.viewer)
            out.write((json.dumps(figures, indent=2) if args.json else reading.stats_text(figures)) + "\n")
        else:
            from tracker.reading.campaign_export import export

            text = export(camp, path.parent, args.format, viewer=args.viewer)
            if args.output:
                Path(args.output).write_text(text, encoding="utf-8")
                out.write(f"wrote {args.output}\n")
            else:
                out.write(text)
        return 0
    if cmd in ("undo", "redo"):
        _, said = fights.walk(path, cmd, campaign_by())
        out.write(said + "\n")
        return 0
    if cmd == "note":
        text = " ".join(args.text)
        refuse_controls(text, "note")
        store.change(lambda camp: [Event("note", {"text": text})], campaign_by())
        out.write(f"note: {text}\n")
        return 0
    if cmd == "add":
        camp, events = store.change(lambda camp: [party.join(camp, path.parent, args.pc, _pairs(args.values, "campaign add"))], campaign_by())
        out.write(f"{args.pc} joins the party of {camp.name} ({events[0].args['pc']})\n")
        return 0
    if cmd == "remove":
        opts = _pairs(args.values, "campaign remove")
        unknown = set(opts) - {"died", "note"}
        if unknown:
            raise CommandError(f"campaign remove: unknown option {sorted(unknown)[0]!r} (died=true, note=TEXT)")
        died = verbs.yes_no(opts.get("died", "false"), "died")
        camp, _ = store.change(lambda camp: [Event("leave", {"pc": camp.pc(args.pc).id, "reason": DIED if died else LEFT, "note": opts.get("note") or None})], campaign_by())
        out.write(f"{args.pc} {'dies' if died else 'leaves the party'}\n")
        return 0
    if cmd == "set":
        camp, events = store.change(lambda camp: [party.change(camp, path.parent, args.pc, _pairs(args.values, "campaign set"))], campaign_by())
        pc = camp.pcs[events[0].args["pc"]]
        out.write(f"{pc.name}: {reading._figures(pc)}\n")
        return 0
    if cmd == "rest":
        return _rest(args, path, out)
    raise TrackerError(f"unknown campaign command {cmd!r}")


def _rest(args: argparse.Namespace, path: Path, out: TextIO) -> int:
    from tracker.play.rest import record

    opts = _pairs(args.values, "campaign rest")
    hours = verbs.number(opts.pop("hours", "8"), "campaign rest: hours")
    everyone = verbs.yes_no(opts.pop("full", "false"), "full")
    refuse_controls(args.note, "--note")
    dice = TypedFaces(parse_faces(args.faces), "--faces") if args.faces else RandomDice(args.seed)
    camp, rested = record(path, float(hours), dice, opts, everyone, args.note, campaign_by())
    out.write("\n".join(rested.said(camp.name)) + "\n")
    return 0


def _end(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    from tracker.persistence import paths

    fight = paths.resolve(args.fight, saves)
    refuse_controls(args.outcome, "--outcome")
    shown = fights.preview(fight, args.outcome)
    out.write(shown.text() + "\n")
    if not args.yes:
        if not stdin.isatty():
            raise CommandError("campaign end: say --yes to end it without asking (standard input is not a terminal)")
        out.write("End the fight and send this back to the campaign? [y/N] ")
        out.flush()
        answer = stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            out.write("not ended\n")
            return 1
    camp, _ = fights.end(fight, campaign_by(), args.outcome, expect=shown)
    out.write(f"ended {fight.name}; the party of {camp.name} goes on as shown\n")
    return 0
