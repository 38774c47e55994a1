"""The `tracker campaign` command's arguments (argparse), kept apart from what runs them
(tracker.command.campaign) so that building the parser imports nothing else: `tracker
roll` and completion never load the files, engine or stores a campaign needs."""

from __future__ import annotations

from typing import Any


def fill(p: Any, json_help: str) -> dict[str, Any]:
    """`tracker campaign`'s subcommands and their options, on its parser; returns each
    subcommand's parser by its name."""
    cmds = p.add_subparsers(dest="campaign_command", metavar="SUBCOMMAND", required=True, help="what to do (each has --help)")
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
    return dict(cmds.choices)
