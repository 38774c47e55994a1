"""The `tracker` command. Exit codes: 0 ok, 1 bad input (with a message), 2 usage,
3 internal error (a bug: said in one line, never a traceback unless TRACKER_DEBUG=1).

Everything the command prints, results and messages alike, goes through
`tracker.engine.text.Shown`: standard output and standard error are wrapped while it runs, so a
name holding an escape sequence (a hand-edited save, a file name, an argument) reaches
the reader's terminal made visible, whichever message quotes it. Only the app (`open`,
the start screen) and `web` get the real streams: their screens escape text themselves
and Textual draws with escape sequences of its own.

What it reads is checked the same way: an argument that is not UTF-8 is refused before
anything runs, naming the argument; `play` reads its commands as bytes, splits them at
"\n" only (tracker.engine.text.command_lines) and refuses a line that is not UTF-8 by number.

Start-up time matters (a roll from the shell, the app's first screen): each command
imports only what it uses. The saves folder is resolved only by commands that use it,
and the config file is read only by commands that use it.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from tracker.persistence import paths
from tracker.command.parser import build_parser, command_in
from tracker.engine.errors import TrackerError, no_such_combatant
from tracker.engine.text import TITLE_CELLS, Shown, check_name, command_lines, printable, refuse_controls
from rulesets import registry
from rulesets.dice import RandomDice, source_for

if TYPE_CHECKING:
    from tracker.reading.roles import Role

def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in getattr(args, "set", []):
        key, eq, value = item.partition("=")
        if not eq:
            raise TrackerError(f"--set {item}: expected KEY=VALUE")
        options[key] = value
    if getattr(args, "pool", None) is not None:
        options["pool"] = args.pool
    return options


def _out(data: Any, as_json: bool, text: str, out: TextIO) -> None:
    if as_json:
        import json  # only for --json: not loaded by a start that opens the app

        out.write(json.dumps(data, indent=2, default=str) + "\n")
    else:
        out.write(text.rstrip("\n") + "\n")


# Commands that hand the terminal to an app, which draws with escape sequences of its own.
_APPS = (None, "open", "web")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    if argv is None and "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (tracker.command.completion)
        from tracker.command.completion import complete

        complete(build_parser())
    out = cast(TextIO, Shown(stdout or sys.stdout))  # a TextIO in all but its base class
    real = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(sys.stdout), Shown(sys.stderr)  # argparse quotes what was typed
    try:
        return _main(list(sys.argv[1:] if argv is None else argv), stdin or sys.stdin, out, real)
    finally:
        sys.stdout, sys.stderr = real


def _main(argv: list[str], stdin: TextIO, out: TextIO, real: tuple[TextIO, TextIO]) -> int:
    err = sys.stderr
    try:
        _check_arguments(argv)
        parser = build_parser(command_in(argv))
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
        if args.command in _APPS:
            sys.stdout, sys.stderr = real
        if args.command == "new" and not args.ruleset and not getattr(args, "source", None) and not getattr(args, "campaign", None):
            args.ruleset = _default_ruleset()
            if not args.ruleset:
                return 2
        return _run(args, args.saves, stdin, out)
    except TrackerError as exc:
        err.write(f"tracker: {exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        err.write("tracker: the input is nested too deeply to read (RecursionError)\n")
        return 1
    except Exception as exc:  # a bug: say so in one line, never a traceback, and fail
        if os.environ.get("TRACKER_DEBUG"):
            raise
        err.write(f"tracker: internal error: {type(exc).__name__}: {exc} (set TRACKER_DEBUG=1 for details)\n")
        return 3


def _check_arguments(argv: list[str]) -> None:
    """Refuse an argument that is not UTF-8 (Python reads its bytes as lone surrogates),
    naming it, before anything runs: as a file name it would make a file no message can
    name, as text a name no save can hold."""
    for number, arg in enumerate(argv, 1):
        if any("\udc80" <= char <= "\udcff" for char in arg):
            raise TrackerError(f"argument {number} ({arg}) is not UTF-8 text; names and file names must be UTF-8")


def _default_ruleset() -> str | None:
    """`new` without --ruleset: the config's default_ruleset (a bad config raises), else a usage error."""
    from tracker.persistence import config

    chosen = config.check_ruleset(config.load()).default_ruleset
    if not chosen:
        sys.stderr.write(f"tracker new: --ruleset is required (or --from OTHER, or default_ruleset in {config.config_path()})\n")
    return chosen


def _run(args: argparse.Namespace, saves_option: str | None, stdin: TextIO, out: TextIO) -> int:
    command = args.command
    handler = _OWN.get(command)
    if handler is not None:  # commands that need neither the saves folder nor the engine
        return handler(args, out)
    if command in _EXTRAS:
        _needs_extra(command)
    if command in ("roll", "odds", "chart", "rulesets"):
        saves = Path()
    else:
        # Every command that reads the saves folder finds the user's on first use
        # already holding the worked examples (`tracker show seraph-vs-sphinx` right
        # after installing), not only the app.
        saves = paths.prepare(paths.locate(saves_option))
    if command is None or command == "open":
        # The app's modules (Textual's and ours) live as long as the process: collecting
        # while they load is wasted work, and once loaded they are moved out of the
        # collector's sight, so later collections walk only what was made since. The
        # encounter is read after: its objects are replaced as it changes, and stay
        # collectable. The collector stays off until the first screen is drawn (the
        # collections that fell due while it was built were about a tenth of the time
        # to the first frame); the app turns it on then (tracker.ui.app, `collector_off`).
        collecting = gc.isenabled()
        gc.disable()
        try:
            from tracker.ui import commands, settings

            settings.load_checked(commands.tables())  # a bad config file is named here, before the screen takes over
            file = paths.resolve(args.file, saves) if command == "open" and args.file else None
            from tracker.ui.app import run

            gc.freeze()
            role = _role(args, file)
            replay = getattr(args, "replay", None)
            if replay is not None and file is None:
                sys.stderr.write("tracker open: --replay needs FILE (the fight to replay)\n")
                return 2
            return run(saves=saves, file=file, viewer=getattr(args, "viewer", False), role=role, replay=replay, collector_off=collecting)
        finally:
            if collecting:
                gc.enable()
    if command == "examples":
        copied, skipped = paths.copy_examples(saves, force=args.force)
        for path in copied:
            out.write(f"copied {path}\n")
        for path in skipped:
            out.write(f"kept {path} (already there; --force replaces it)\n")
        if not copied and not skipped:
            raise TrackerError("no worked examples were found in this installation")
        return 0
    if command == "export":
        from tracker.reading.export import export

        return export(args, saves, out)
    if command == "web":
        from tracker.ui import commands, settings
        from tracker.web import web

        settings.load_checked(commands.tables())  # every tab's app reads it: a bad file is named here, once

        return web(args, saves)
    if command == "campaign":
        from tracker.command.campaign import run as campaign

        return campaign(args, saves, stdin, out)
    if command == "new":
        from tracker.persistence.store import EncounterFile

        path = paths.resolve(args.file, saves, must_exist=False)
        name = args.name or path.stem.replace("-", " ").replace("_", " ")
        check_name(name, "--name" if args.name else f"the title from the file name ({name}; --name gives another)", TITLE_CELLS)
        if args.campaign:
            from tracker.play import fights
            from tracker.command.campaign import campaign_by

            if args.ruleset:
                raise TrackerError("new --campaign: the campaign says the game (leave out --ruleset)")
            cpath = fights.campaign_path(args.campaign, saves)
            foes = paths.resolve(args.source, saves) if args.source else None
            camp, enc = fights.start(cpath, path, name, campaign_by(), _options(args), foes)
            out.write(f"created {path}: the next fight of {camp.name}, with {', '.join(c.name for c in enc.combatants.values())}\n")
            return 0
        if args.source:
            from tracker.persistence.library import new_from_roster

            new_from_roster(paths.resolve(args.source, saves), path, name)
            out.write(f"created {path} (the roster of {args.source})\n")
            return 0
        if not args.ruleset:
            sys.stderr.write("tracker new: --ruleset is required (or --from OTHER to take another encounter's roster)\n")
            return 2  # a usage error, as argparse would report it
        options = _options(args)
        store, _ = EncounterFile.create(path, name, args.ruleset, options)
        out.write(f"created {path} ({args.ruleset})\n")
        return 0
    if command == "rulesets":
        rows = []
        for rid, cls in sorted(registry.available().items()):
            t = cls.time
            rows.append({"id": rid, "name": cls.name, "description": cls.description, "segments_per_round": t.segments_per_round, "segment_means": t.segment_means})
        # A plugin that is installed but cannot be loaded is listed with why, not left out.
        failed = [{"id": rid, "error": why} for rid, why in sorted(registry.failures().items())]
        text = [f"{r['id']:10} {r['description']}" for r in rows]
        text += [f"{r['id']:10} cannot be loaded: {printable(r['error'])}" for r in failed]
        _out([*rows, *failed], args.json, "\n".join(text), out)
        return 0
    if command in ("roll", "odds"):
        ruleset = registry.get(args.ruleset)
        spec = " ".join(args.spec)
        options = _options(args)
        if command == "roll":
            from rulesets.dice import check_all_used
            from rulesets.limits import check_faces_given

            check_faces_given(args.faces, args.vs_faces, args.vs, args.difficulty)
            dice = source_for(args.faces, args.seed, "--faces")
            vs_dice = source_for(args.vs_faces, None if args.seed is None else args.seed + 1, "--vs-faces") if (args.vs or args.vs_faces or args.difficulty is not None) else None
            result = ruleset.roll(spec, dice, vs=args.vs, vs_dice=vs_dice, difficulty=args.difficulty, options=options)
            check_all_used(dice, "--faces")
            check_all_used(vs_dice, "--vs-faces")
            _out(result.to_json(), args.json, result.text, out)
        else:
            chance = ruleset.chance(spec, vs=args.vs, difficulty=args.difficulty, options=options)
            notes = ruleset.chance_notes(spec, vs=args.vs, difficulty=args.difficulty, options=options)
            data = {"ruleset": ruleset.id, "probability": float(chance), "fraction": f"{chance.numerator}/{chance.denominator}", "notes": notes}
            _out(data, args.json, f"{float(chance):.2%} ({data['fraction']})" + "".join(f" [{n}]" for n in notes), out)
        return 0
    if command == "chart":
        ruleset = registry.get("brandx")
        lookup = getattr(ruleset, "chart_lookup", None)
        if lookup is None:
            raise TrackerError("the Brand X adapter is not installed")
        data = lookup(args.name, args.value, reverse=args.reverse)
        _out(data, args.json, str(data["result"]), out)
        return 0
    if command == "show":
        from tracker.reading import report
        from tracker.persistence.store import EncounterFile

        path = paths.resolve(args.file, saves)
        loaded = EncounterFile(path).load()
        role = _role(args, path, loaded)
        shown = _at(loaded.encounter, args.at)
        role = role.following(shown) if role is not None else None  # a player's own, by identity, as named then
        if args.json:
            _out(report.to_json(shown, viewer=args.viewer, role=role), True, "", out)
        else:
            out.write(report.to_text(shown, viewer=args.viewer, log_limit=args.log, role=role) + "\n")
        return 0
    if command == "stats":
        from tracker.reading.charts import report_text
        from tracker.persistence.store import EncounterFile
        from tracker.reading.stats import fight_stats

        loaded = EncounterFile(paths.resolve(args.file, saves)).load()
        figures = fight_stats(loaded.encounter, viewer=args.viewer)
        width = args.width if args.width else shutil.get_terminal_size((80, 24)).columns
        _out(figures.to_json(), args.json, report_text(figures, max(40, min(width, 400))), out)
        return 0
    if command == "check":
        from tracker.persistence.campaign_file import CampaignFile, is_campaign
        from tracker.persistence.store import EncounterFile

        path = paths.resolve(args.file, saves)
        if is_campaign(path):
            book = CampaignFile(path)
            camp = book.load()
            data = {"file": str(path), "ok": True, "campaign": True, "ruleset": camp.ruleset, "revision": book.revision, "events": len(camp.events), "fights": len(camp.fights), "party": len(camp.party())}
            _out(data, args.json, f"{path}: ok (a campaign of {camp.ruleset}, revision {book.revision}, {len(camp.events)} events, {len(camp.fights)} fights)", out)
            return 0
        loaded = EncounterFile(path).load()
        enc = loaded.encounter
        data = {"file": str(path), "ok": True, "ruleset": enc.setup.ruleset, "revision": loaded.revision, "events": len(enc.events), "segment": enc.now, "combatants": len(enc.combatants)}
        _out(data, args.json, f"{path}: ok ({enc.setup.ruleset}, revision {loaded.revision}, {len(enc.events)} events, {enc.time.clock(enc.now)})", out)
        return 0
    if command == "play":
        return _play(args, saves, stdin, out)
    if command == "serve":
        from tracker.serve.server import serve

        return serve(args, saves)
    raise TrackerError(f"unknown command {command!r}")


# Commands that need an optional part of the install: the extra that brings it, and the
# module it brings. A solo GM installs neither (about 30 MB).
_EXTRAS = {"serve": ("serve", "asyncssh"), "web": ("web", "textual_serve")}


def _needs_extra(command: str) -> None:
    """Say which extra to install, before anything else runs, rather than fail on an import."""
    if command == "serve":
        try:  # each seat runs in a pseudo-terminal (fcntl, termios): POSIX only
            import fcntl  # noqa: F401
            import termios  # noqa: F401
        except ImportError:
            raise TrackerError("serve needs a POSIX host (Linux, macOS, BSD): each seat runs in a pseudo-terminal; on Windows, run it under WSL") from None
    extra, module = _EXTRAS[command]
    try:
        __import__(module)
    except ImportError:
        from tracker.command import extras

        raise TrackerError(f"{command} needs the '{extra}' extra, which is not installed ({module} is missing): {extras.command(extra, extras.running())}") from None


def _at(encounter: Any, segment: int | None) -> Any:
    """`--at SEGMENT`: the fight as it stood at the end of that segment (tracker.engine.replay)."""
    if segment is None:
        return encounter
    from tracker.engine.replay import fold_at

    return fold_at(encounter, segment, "--at")


def _role(args: argparse.Namespace, file: Path | None, loaded: Any = None) -> Role | None:
    """`--player NAME[,NAME]`: a player's role, its names checked against the encounter.

    The role comes from the command line of the account that runs it, never from the
    commands the session reads."""
    option = getattr(args, "player", None)
    if option is None:
        return None
    if getattr(args, "viewer", False):
        raise TrackerError("--player and --viewer: choose one (a player also sees what a viewer sees)")
    from tracker.reading.roles import Role

    refuse_controls(option, "--player")
    if not any(name.strip() for name in option.split(",")):  # a role of no one is refused by Role itself
        raise TrackerError(f"--player {option!r}: expected the names of your combatants, NAME[,NAME]")
    role = Role.player(option.split(","))
    if loaded is None and file is not None:
        from tracker.persistence.store import EncounterFile

        loaded = EncounterFile(file).load()
    if loaded is not None:
        # By identity: a name means the combatant that first carried it (tracker.reading.roles).
        found, missing = Role.of(loaded.encounter, role.combatants)
        if missing or found is None:
            from tracker.reading.viewing import sight

            raise no_such_combatant(missing[0], sight(loaded.encounter, Role.viewer()).names(), "--player: ")
        role = found
    return role


def _config(args: argparse.Namespace, out: TextIO) -> int:
    from tracker.persistence import config
    from tracker.ui import commands, settings

    tables = commands.tables()
    path = config.config_path()
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise TrackerError(f"--set {item}: expected KEY=VALUE (e.g. theme=nord, keys.next=n,space)")
        settings.remember(key.strip(), value.strip(), path, tables)  # refused whole, file untouched, if it would not load
        sys.stderr.write(f"set {key.strip()} in {path}\n")
    try:
        loaded = config.check_ruleset(settings.check_ui(config.load(path), tables))
    except config.ConfigError as exc:
        if args.json:
            _out({"path": str(path), "exists": path.exists(), "error": str(exc)}, True, "", out)
        else:
            out.write(f"{path}\n")
        sys.stderr.write(f"tracker: {exc}\n")
        return 1
    shown = loaded.settings()
    if args.json:
        _out({"path": str(path), "exists": loaded.exists, "settings": shown}, True, "", out)
        return 0
    lines = [f"{path}" + ("" if loaded.exists else " (not there yet: every setting is the default)")]
    for key, value in shown.items():
        if key == "keys":
            lines.extend(f"keys.{name} = {keys!r}" for name, keys in value.items())
        else:
            lines.append(f"{key} = {value!r}")
    if loaded.exists and not shown:
        lines.append("(nothing set)")
    out.write("\n".join(lines) + "\n")
    return 0


def _completion(args: argparse.Namespace, out: TextIO) -> int:
    from tracker.command.completion import script

    out.write(script(args.shell))
    return 0


_OWN = {"config": _config, "completion": _completion}


def _play(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    from tracker.reading import report
    from tracker.persistence.store import EncounterFile
    from tracker.persistence.library import Library
    from tracker.reading.roles import account
    from tracker.play.session import Session

    path = paths.resolve(args.file, saves)
    store = EncounterFile(path)
    loaded = store.load()
    role = _role(args, path, loaded)
    user = account() if role is not None else ""
    library = Library.in_folder(path.parent, loaded.encounter.setup.ruleset)
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(args.seed), store, user, role, library)
    if args.script:
        try:
            data: bytes | str = Path(args.script).read_bytes()
        except OSError as exc:
            raise TrackerError(f"{args.script}: cannot be read: {exc.strerror}") from None
        label = args.script
    else:
        buffer = getattr(stdin, "buffer", None)  # bytes: a text stream would decode (and split at "\r") itself
        data = buffer.read() if buffer is not None else stdin.read()
        label = "<stdin>"
    for number, raw in command_lines(data, label):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        before = len(session.encounter.log)
        try:
            outcome = session.execute(line)
        except TrackerError as exc:
            raise TrackerError(f"{label}, line {number} ({line}): {exc}") from None
        if not args.json:
            # Each line carries the segment its event happened on (a completion at 26
            # reached by `step 39` is "[26]"), when the lines are the new log entries.
            entries = session.encounter.log[before:]
            same = len(entries) == len(outcome.lines) and all(e.text == t for e, t in zip(entries, outcome.lines))
            for i, text in enumerate(outcome.lines):
                out.write(f"[{entries[i].segment if same else session.encounter.now}] {text}\n")
    if args.json:
        _out(report.to_json(session.encounter), True, "", out)
    else:
        out.write(f"{path}: {session.encounter.time.clock(session.encounter.now)}, revision {store.revision}\n")
    return 0
