"""The `tracker` command's words: its parser, every command's options and help, the
examples under each help, the version. `tracker.command.cli` runs what it reads; shell
completion (tracker.command.completion) asks the same parser.

Start-up time matters: building the parser imports nothing beyond argparse and the
modules named here (each command imports what it uses when it runs).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from rulesets import registry
from tracker.persistence import paths
from tracker.engine.errors import TrackerError

DISTRIBUTION = "segment-tracker"


class _Version(argparse.Action):
    """`--version`: read from the package metadata only when asked (it costs a scan)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        sys.stdout.write(f"tracker {version()}\n")
        parser.exit()


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree on sys.path that was never installed
        return "unknown (not installed)"


_SAVES_HELP = (
    "the folder of encounter files (default: $TRACKER_SAVES, else ./saves if it holds a "
    f"{paths.MARKER} marker, else saves in your user data folder, made with the worked examples on first use)"
)
_SAVES_SHORT = "the saves folder (see `tracker --help`)"  # documented once, at the top
_JSON_HELP = "print JSON instead of text"
_FILE_HELP = "an encounter: a name in the saves folder (NAME, NAME.toml or its title) or a path"
# Commands that never read the saves folder: `--saves` is not offered there.
NO_SAVES = ("rulesets", "roll", "odds", "chart", "config", "completion")


def _saves(p: argparse.ArgumentParser, top: bool = False) -> None:
    # Accepted before or after the command; after it, SUPPRESS keeps a value given before.
    p.add_argument("--saves", metavar="DIR", help=_SAVES_HELP if top else _SAVES_SHORT, **({"default": None} if top else {"default": argparse.SUPPRESS}))


class _Help(argparse.RawDescriptionHelpFormatter):
    """Help pages: descriptions and examples as written, and each option's default
    after its help unless the help already says what happens without it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if not action.option_strings or "default" in text or default in (None, False, [], argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


# Examples at the foot of the main commands' help pages.
_EXAMPLES = {
    None: """examples:
  tracker                                  the start screen over your saves folder
  tracker open seraph-vs-sphinx            open a worked example
  tracker show seraph-vs-sphinx --log 5    its state as text
  tracker COMMAND --help                   each command's own options""",
    "open": """examples:
  tracker open seraph-vs-sphinx
  tracker open "Seraph vs Sphinx" --viewer        read-only, follows the GM
  tracker open duel --player Ann                  declare for Ann only""",
    "new": """examples:
  tracker new duel --ruleset freeform
  tracker new rematch --from duel                 the same roster, fresh resources, no log
  tracker new "Ruined Temple" --ruleset brandx --set throwback=no""",
    "show": """examples:
  tracker show seraph-vs-sphinx
  tracker show seraph-vs-sphinx --viewer --log 40
  tracker show seraph-vs-sphinx --json""",
    "play": """examples:
  printf 'add Ann hp=20\\nadd Bo hp=15\\ndeclare Ann sword target=Bo pt=8 damage=4\\nnext\\n' | tracker play duel
  tracker play duel --script round1.txt --seed 7""",
    "check": """examples:
  tracker check seraph-vs-sphinx
  tracker check ./backup/fight.toml --json""",
    "export": """examples:
  tracker export seraph-vs-sphinx -o fight.md
  tracker export seraph-vs-sphinx --viewer -o handout.html""",
    "roll": """examples:
  tracker roll d6 4D+1 --difficulty 15
  tracker roll usor 16 --faces 5,2""",
    "odds": """examples:
  tracker odds d6 3D --difficulty 10
  tracker odds ore 6d --json""",
    "serve": """examples:
  tracker serve --encounter "Seraph vs Sphinx"
  tracker serve --port 2222 --open-viewers
  tracker serve --campaign road""",
    "web": """examples:
  tracker web --encounter "Seraph vs Sphinx"
  tracker web --encounter "Seraph vs Sphinx" --port 0""",
    "config": """examples:
  tracker config
  tracker config --set theme=nord --set keys.next=n,space,j""",
    "completion": """examples:
  eval "$(tracker completion bash)"                                  in ~/.bashrc
  eval "$(tracker completion zsh)"                                   in ~/.zshrc
  tracker completion fish > ~/.config/fish/completions/tracker.fish""",
}


class _PlayHelp(argparse.Action):
    """`play --help`: the command language and each ruleset's actions for `declare`,
    read from the session and the rulesets only when asked (loading every ruleset is
    not free)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show this help (the commands, and each ruleset's actions) and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        parser.epilog = f"{play_language()}\n\n{_EXAMPLES['play']}"
        parser.print_help()
        parser.exit()


def play_language() -> str:
    """The commands `play` reads, and the action templates `declare` takes per ruleset."""
    import textwrap

    from tracker.reading.roles import GM
    from tracker.play.verbs import VERBS

    lines = ["commands (one per line; # starts a comment):"]
    lines += [f"  {c.usage}\n      {c.help_for(GM)}" for c in VERBS]
    lines.append("")
    lines.append("actions for declare ACTOR TEMPLATE, by ruleset:")
    for rid in sorted(registry.available()):
        try:
            names = ", ".join(registry.get(rid).catalogue())
        except TrackerError as exc:
            names = f"(cannot be listed: {exc})"
        names = names or "any name the GM gives (the GM states time and outcome)"
        lines.append(textwrap.fill(names, width=88, initial_indent=f"  {rid}: ", subsequent_indent="      "))
    return "\n".join(lines)


def _open(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="an encounter: a name in the saves folder or a path; without FILE: choose one on the start screen (`open --viewer`: a viewer's start screen)")
    p.add_argument("--viewer", action="store_true", help="read-only; follows changes; hides hidden combatants")
    p.add_argument("--player", metavar="NAME[,NAME]", help="play these combatants: declare for them only (sees what a viewer sees)")
    p.add_argument("--replay", type=int, nargs="?", const=0, metavar="SEGMENT", help="start in a replay of the fight at SEGMENT (default 0): read-only; esc goes to the fight as it stands now")


def _new(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the new encounter: a name in the saves folder (NAME.toml) or a path")
    p.add_argument("--ruleset", help="the ruleset (default: default_ruleset in the config file; not with --from)")
    p.add_argument("--from", dest="source", metavar="OTHER", help="start with OTHER's roster (fresh resources, no log)")
    p.add_argument("--name", help="the encounter's title (default: from the file name)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a ruleset setting (repeatable)")
    p.add_argument("--campaign", metavar="NAME", help="the campaign's next fight: its party comes in as it stands (with --from: OTHER's foes too)")


def _json_only(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help=_JSON_HELP)


def _check_args(p: argparse.ArgumentParser) -> None:
    # `--faces -1,5` and a TARGET of -3 are values, not options: widen argparse's test
    # for a negative number to lists of them (its own reads only "-1").
    p._negative_number_matcher = re.compile(r"^-\d+([.,]\d*)*$|^-\.\d+$")
    p.add_argument("ruleset", help="a ruleset id (`tracker rulesets` lists them)")
    p.add_argument("spec", nargs="+", help="what to roll, in the ruleset's notation")
    p.add_argument("--vs", help="the opposing side, for an opposed roll (default: unopposed)")
    p.add_argument("--difficulty", type=int, help="the number to reach, where the ruleset rolls against one (default: the ruleset's own)")
    p.add_argument("--pool", type=int, help="Brand X bonus pool (default: none)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option (repeatable)")
    p.add_argument("--json", action="store_true", help=_JSON_HELP)


def _roll(p: argparse.ArgumentParser) -> None:
    _check_args(p)
    p.add_argument("--faces", help="the dice you rolled, in the order the roll uses them")
    p.add_argument("--vs-faces", help="the other side's dice, for an opposed roll")
    p.add_argument("--seed", type=int, help="seed the dice for a repeatable roll (default: a fresh random roll)")


def _chart(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the chart: sphere, square, doubles, result, or ep (EP per use of a row)")
    p.add_argument("value", help="the value to read on the chart (with --reverse: the result)")
    p.add_argument("--reverse", action="store_true", help="result -> chart value")
    p.add_argument("--json", action="store_true", help=_JSON_HELP)


def _show(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help=_FILE_HELP)
    p.add_argument("--json", action="store_true", help=_JSON_HELP)
    p.add_argument("--viewer", action="store_true", help="as a viewer sees it")
    p.add_argument("--player", metavar="NAME[,NAME]", help="as the player of these combatants sees it")
    p.add_argument("--log", type=int, default=15, metavar="N", help="the newest N log lines (text output)")
    p.add_argument("--at", type=int, metavar="SEGMENT", help="the fight as it stood at the end of SEGMENT (a replay: 0 to the last segment)")


def _play(p: argparse.ArgumentParser) -> None:
    p.add_argument("-h", "--help", action=_PlayHelp)
    p.add_argument("file", help=_FILE_HELP)
    p.add_argument("--script", help="file of commands (default: standard input)")
    p.add_argument("--seed", type=int, help="seed the dice for a repeatable run")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.add_argument("--player", metavar="NAME[,NAME]", help="as the player of these combatants: only their declarations are accepted")


def _check(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help=_FILE_HELP)
    p.add_argument("--json", action="store_true", help=_JSON_HELP)


def _serve(p: argparse.ArgumentParser) -> None:
    from tracker.serve.arguments import fill

    fill(p)


def _web(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: reach it through an SSH tunnel)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on; 0: any free port (printed)")
    p.add_argument("--encounter", metavar="NAME", help="the fight every tab shows (required)")
    p.add_argument("--public-url", metavar="URL", help="the address browsers use (default http://HOST:PORT)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN", help="also accept pages from ORIGIN (scheme://host:port); by default only this server's own")
    p.add_argument("--max-sessions", type=int, default=20, metavar="N", help="browser tabs open at once")


def _export(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help=_FILE_HELP)
    p.add_argument("--format", choices=("md", "html"), help="default: from OUT's suffix, else md")
    p.add_argument("--viewer", action="store_true", help="only what a viewer may see")
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT (default: standard output)")
    p.add_argument("--at", type=int, metavar="SEGMENT", help="the fight as it stood at the end of SEGMENT (a replay: 0 to the last segment)")


def _stats(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="the figures and chart series as JSON")
    p.add_argument("--viewer", action="store_true", help="only what a viewer may see (withheld figures are named)")
    p.add_argument("--width", type=int, help="columns for the text charts (default: the terminal's, else 80)")


def _campaign(p: argparse.ArgumentParser) -> None:
    from tracker.command.campaign_arguments import fill

    # `campaign show NAME --saves DIR` reads as `show FILE --saves DIR`: each subcommand takes it too.
    for page in fill(p, _JSON_HELP).values():
        _saves(page)


def _examples(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace files of the same name")


def _config(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help=_JSON_HELP)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="change a setting (theme, default_ruleset, viewer_resources, keys.COMMAND), keeping the file's comments and order (repeatable)")


def _completion(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell to complete in")


# Every command, in the order `tracker --help` lists them: its help line and what fills
# in its options.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "open": ("open an encounter in the terminal UI", _open),
    "new": ("create an encounter", _new),
    "rulesets": ("list ruleset adapters", _json_only),
    "roll": ("roll a check", _roll),
    "odds": ("exact chance of a check", _check_args),
    "chart": ("Brand X charts: sphere, square, doubles (value -> result)", _chart),
    "show": ("the encounter's state and timeline as text", _show),
    "play": ("apply timeline commands (one per line)", _play),
    "check": ("validate a save", _check),
    "serve": ("SSH server for the shared table: the GM's fight, one at a time, followed by players and viewers", _serve),
    "web": ("the table's fight in a browser (read-only)", _web),
    "export": ("the roster, final state and whole combat log as Markdown or HTML", _export),
    "stats": ("after the fight: actions, damage, costs, time, luck against the odds shown, and charts", _stats),
    "campaign": ("a party from fight to fight: new, add, rest, end, show, stats, export", _campaign),
    "examples": ("copy the worked example encounters into the saves folder", _examples),
    "config": ("where the config file is and what is set", _config),
    "completion": ("shell completion script: eval or source its output", _completion),
}
_OWN_HELP = ("play",)  # commands whose -h is their own (`play --help` lists the language)


def command_in(argv: list[str]) -> str | None:
    """The command `argv` runs, if it names one (the first word that is not an option or
    the top level's --saves value); None when it names none or one that is not ours, or
    asks for the top level's help (which lists every command); "" when it names none
    (the start screen)."""
    after_saves = False
    for arg in argv:
        if after_saves:
            after_saves = False
        elif arg == "--saves":
            after_saves = True
        elif arg in ("--", "-h", "--help"):
            return None
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return ""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with `command` (see `command_in`), of that one
    alone: each command's parser and options are argparse objects, built only when the
    command runs, so a first screen does not wait for `serve`'s twenty options. The top
    level's help and a mistyped command's error use the whole parser."""
    parser = argparse.ArgumentParser(
        prog="tracker",
        description="A terminal combat tracker on a segment timeline, for tabletop role-playing games.\nWithout a COMMAND: the start screen over the saves folder.",
        formatter_class=_Help,
    )
    parser.add_argument("--version", action=_Version)
    _saves(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, fill) in COMMANDS.items():
        if command not in (None, name):
            continue
        each = sub.add_parser(name, help=help_text, add_help=name not in _OWN_HELP)
        fill(each)
        each.formatter_class = _Help
        if not each.description:
            each.description = help_text[:1].upper() + help_text[1:] + "."
        each.epilog = each.epilog or _EXAMPLES.get(name)
        for action in each._actions:  # an encounter argument reads the same everywhere
            if action.dest == "file" and not action.help:
                action.help = _FILE_HELP
        if name not in NO_SAVES:
            _saves(each)
    parser.epilog = _EXAMPLES[None]
    return parser
