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

`tracker new FIGHT --campaign NAME [--from OTHER]` starts the next fight (tracker.cli).
Every change is signed with the OS account, as the fight's are; a viewer's session
(`TRACKER_READ_ONLY`) changes nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from rulesets.dice import RandomDice, TypedFaces, parse_faces
from tracker import verbs
from tracker.campaign import fights, party, reading
from tracker.campaign.model import DIED, LEFT
from tracker.campaign.store import SUFFIX, CampaignFile
from tracker.engine import Event
from tracker.engine.errors import CommandError, TrackerError
from tracker.roles import Role, account
from tracker.text import check_name, refuse_controls


def add_parser(sub: Any, json_help: str) -> None:
    p = sub.add_parser("campaign", help="a party from fight to fight: new, add, rest, end, show, stats, export")
    cmds = p.add_subparsers(dest="campaign_command", metavar="SUBCOMMAND", required=True)
    c = cmds.add_parser("new", help="create a campaign file (NAME.campaign.toml) in the saves folder")
    c.add_argument("name", help="the campaign: a name in the saves folder, or a path ending in .campaign.toml")
    c.add_argument("--ruleset", required=True, help="the game the campaign plays")
    c.add_argument("--house-rules", metavar="FILE", default="", help="a house-rules file beside the campaign file")
    c.add_argument("--title", help="the campaign's title (default: from the name)")
    for verb, what in (("add", "a character joins the party: a sheet as `add` takes it, or from=ENTRY of the library"),
                       ("set", "change a character: KEY=N, KEY.max=N, condition.NAME=SEGMENTS, name=NEW, side=S")):
        c = cmds.add_parser(verb, help=what)
        c.add_argument("name", help="the campaign")
        c.add_argument("pc", help="the character's name")
        c.add_argument("values", nargs="*", metavar="KEY=VALUE")
    c = cmds.add_parser("remove", help="a character leaves the party (died=true: dies)")
    c.add_argument("name", help="the campaign")
    c.add_argument("pc", help="the character's name")
    c.add_argument("values", nargs="*", metavar="died=true|note=TEXT")
    c = cmds.add_parser("rest", help="the party rests: the game's own recovery (Brand X: the Healing Roll), or amounts the GM states")
    c.add_argument("name", help="the campaign")
    c.add_argument("values", nargs="*", metavar="hours=N|PC.KEY=N|full=true|PC.full=true")
    c.add_argument("--faces", help="the dice rolled at the table, in the order the rest asks for them")
    c.add_argument("--seed", type=int, help="seed the app's dice (a replayable rest)")
    c.add_argument("--note", default="", help="what the rest was (a night at the inn)")
    c = cmds.add_parser("end", help="end a campaign's fight: shows what goes back to the party, then asks")
    c.add_argument("fight", help="the fight: a name in the saves folder or a path")
    c.add_argument("--yes", action="store_true", help="do not ask (scripts): end it as shown")
    c.add_argument("--outcome", default="", help="the outcome in words (default: who is still standing)")
    for verb, what in (("show", "the party and the fights"), ("stats", "each character's figures over every fight")):
        c = cmds.add_parser(verb, help=what)
        c.add_argument("name", help="the campaign")
        c.add_argument("--json", action="store_true", help=json_help)
        c.add_argument("--viewer", action="store_true", help="only what viewers may see")
    c = cmds.add_parser("export", help="the campaign as a document: Markdown or HTML with charts")
    c.add_argument("name", help="the campaign")
    c.add_argument("--format", choices=("md", "html"), default="md")
    c.add_argument("--viewer", action="store_true", help="only what viewers may see")
    c.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    c = cmds.add_parser("note", help="a note in the campaign's log")
    c.add_argument("name", help="the campaign")
    c.add_argument("text", nargs="+")
    for verb in ("undo", "redo"):
        c = cmds.add_parser(verb, help=f"{verb} the campaign's latest change (an end taken back reopens its fight)")
        c.add_argument("name", help="the campaign")
    cmds.add_parser("list", help="the campaigns in the saves folder")


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
        for path in sorted(saves.glob(f"*{SUFFIX}")):
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

        registry.get(args.ruleset)  # an unknown game is named now
        store = CampaignFile.create(path, title, args.ruleset, args.house_rules)
        camp = store.load()
        if args.house_rules:
            fights.ruleset_of(camp, path.parent)  # the house rules must load beside it
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
            from tracker.campaign.export import export

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
    from tracker.campaign.rest import record

    opts = _pairs(args.values, "campaign rest")
    hours = verbs.number(opts.pop("hours", "8"), "campaign rest: hours")
    everyone = verbs.yes_no(opts.pop("full", "false"), "full")
    refuse_controls(args.note, "--note")
    dice = TypedFaces(parse_faces(args.faces), "--faces") if args.faces else RandomDice(args.seed)
    camp, rested = record(path, float(hours), dice, opts, everyone, args.note, campaign_by())
    out.write("\n".join(rested.said(camp.name)) + "\n")
    return 0


def _end(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    from tracker import paths

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
