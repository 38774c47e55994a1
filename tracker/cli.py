"""The `tracker` command. Exit codes: 0 ok, 1 bad input (with a message), 2 usage,
3 internal error (a bug: said in one line, never a traceback unless TRACKER_DEBUG=1)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from tracker import paths, report
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.session import Session
from tracker.roles import Role, account
from tracker.text import refuse_controls, visible
from rulesets import registry
from rulesets.dice import RandomDice, source_for


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tracker", description="Segment-timeline combat tracker.")
    parser.add_argument("--saves", help="folder of encounter files (default: $TRACKER_SAVES or ./saves)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("open", help="open an encounter in the terminal UI")
    p.add_argument("file", nargs="?", help="without FILE: choose one on the start screen (`open --viewer`: a viewer's start screen)")
    p.add_argument("--viewer", action="store_true", help="read-only; follows changes; hides hidden combatants")
    p.add_argument("--player", metavar="NAME[,NAME]", help="play these combatants: declare for them only (sees what a viewer sees)")

    p = sub.add_parser("new", help="create an encounter")
    p.add_argument("file")
    p.add_argument("--ruleset", help="the ruleset (required unless --from)")
    p.add_argument("--from", dest="source", metavar="OTHER", help="start with OTHER's roster (fresh resources, no log)")
    p.add_argument("--name", help="the encounter's title (default: from the file name)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a ruleset setting")

    p = sub.add_parser("rulesets", help="list ruleset adapters")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("roll", help="roll a check")
    _check_args(p)
    p.add_argument("--faces", help="the dice you rolled, in the order the roll uses them")
    p.add_argument("--vs-faces", help="the other side's dice, for an opposed roll")
    p.add_argument("--seed", type=int)

    p = sub.add_parser("odds", help="exact chance of a check")
    _check_args(p)

    p = sub.add_parser("chart", help="Brand X charts: sphere, square, doubles (value -> result)")
    p.add_argument("name")
    p.add_argument("value")
    p.add_argument("--reverse", action="store_true", help="result -> chart value")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("show", help="the encounter's state and timeline as text")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--viewer", action="store_true", help="as a viewer sees it")
    p.add_argument("--player", metavar="NAME[,NAME]", help="as the player of these combatants sees it")
    p.add_argument("--log", type=int, default=15, help="log lines to show (text)")

    p = sub.add_parser("play", help="apply timeline commands (one per line)")
    p.add_argument("file")
    p.add_argument("--script", help="file of commands (default: standard input)")
    p.add_argument("--seed", type=int, help="seed the dice for a repeatable run")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.add_argument("--player", metavar="NAME[,NAME]", help="as the player of these combatants: only their declarations are accepted")

    p = sub.add_parser("check", help="validate a save")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("serve", help="SSH server for the shared table")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8022)
    p.add_argument("--gm-keys", help="authorized_keys file of GM keys")
    p.add_argument("--viewer-keys", help="authorized_keys file of viewer keys")
    p.add_argument("--open-viewers", action="store_true", help="let any key join as a viewer")
    p.add_argument("--encounter", help="skip the choice of encounter")
    p.add_argument("--host-key", help="host key file (created on first start)")
    p.add_argument("--max-connections", type=int, default=32)
    p.add_argument("--idle-timeout", type=float, default=3600.0, help="seconds")
    p.add_argument("--max-startups", type=int, default=10, help="connections still logging in at once (apart from the seats)")
    p.add_argument("--login-grace", type=float, default=10.0, help="seconds a connection has to log in")
    p.add_argument("--spawn", choices=("fork", "exec"), default="fork", help="fork the preloaded app per connection (default) or run a new one")
    return parser


def _check_args(p: argparse.ArgumentParser) -> None:
    # `--faces -1,5` and a TARGET of -3 are values, not options: widen argparse's test
    # for a negative number to lists of them (its own reads only "-1").
    p._negative_number_matcher = re.compile(r"^-\d+([.,]\d*)*$|^-\.\d+$")
    p.add_argument("ruleset")
    p.add_argument("spec", nargs="+", help="what to roll, in the ruleset's notation")
    p.add_argument("--vs", help="the opposing side, for an opposed roll")
    p.add_argument("--difficulty", type=int)
    p.add_argument("--pool", type=int, help="Brand X bonus pool")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option")
    p.add_argument("--json", action="store_true")


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
        out.write(json.dumps(data, indent=2, default=str) + "\n")
    else:
        out.write(text.rstrip("\n") + "\n")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    saves = paths.saves_dir(args.saves)
    try:
        return _run(args, saves, stdin or sys.stdin, out)
    except TrackerError as exc:
        sys.stderr.write(f"tracker: {exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        sys.stderr.write("tracker: the input is nested too deeply to read (RecursionError)\n")
        return 1
    except Exception as exc:  # a bug: say so in one line, never a traceback, and fail
        if os.environ.get("TRACKER_DEBUG"):
            raise
        sys.stderr.write(f"tracker: internal error: {type(exc).__name__}: {visible(str(exc))} (set TRACKER_DEBUG=1 for details)\n")
        return 3


def _run(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    command = args.command
    if command is None or command == "open":
        from tracker.ui.app import run

        file = paths.resolve(args.file, saves) if command == "open" and args.file else None
        role = _role(args, file)
        return run(saves=saves, file=file, viewer=getattr(args, "viewer", False), role=role)
    if command == "new":
        path = paths.resolve(args.file, saves, must_exist=False)
        name = args.name or path.stem.replace("-", " ").replace("_", " ")
        if args.source:
            from tracker.library import new_from_roster

            new_from_roster(paths.resolve(args.source, saves), path, name)
            out.write(f"created {path} (the roster of {args.source})\n")
            return 0
        if not args.ruleset:
            sys.stderr.write("tracker new: --ruleset is required (or --from OTHER to take another encounter's roster)\n")
            return 2  # a usage error, as argparse would report it
        settings = _options(args)
        store, _ = EncounterFile.create(path, name, args.ruleset, settings)
        out.write(f"created {path} ({args.ruleset})\n")
        return 0
    if command == "rulesets":
        rows = []
        for rid, cls in sorted(registry.available().items()):
            t = cls.time
            rows.append({"id": rid, "name": cls.name, "description": cls.description, "segments_per_round": t.segments_per_round, "segment_means": t.segment_means})
        _out(rows, args.json, "\n".join(f"{r['id']:10} {r['description']}" for r in rows), out)
        return 0
    if command in ("roll", "odds"):
        ruleset = registry.get(args.ruleset)
        spec = " ".join(args.spec)
        options = _options(args)
        if command == "roll":
            from rulesets.limits import check_faces_given, check_faces_used

            check_faces_given(args.faces, args.vs_faces, args.vs, args.difficulty)
            dice = source_for(args.faces, args.seed, "--faces")
            vs_dice = source_for(args.vs_faces, None if args.seed is None else args.seed + 1, "--vs-faces") if (args.vs or args.vs_faces or args.difficulty is not None) else None
            result = ruleset.roll(spec, dice, vs=args.vs, vs_dice=vs_dice, difficulty=args.difficulty, options=options)
            check_faces_used(dice, "--faces")
            check_faces_used(vs_dice, "--vs-faces")
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
        path = paths.resolve(args.file, saves)
        loaded = EncounterFile(path).load()
        role = _role(args, path, loaded)
        if args.json:
            _out(report.to_json(loaded.encounter, viewer=args.viewer, role=role), True, "", out)
        else:
            out.write(report.to_text(loaded.encounter, viewer=args.viewer, log_limit=args.log, role=role) + "\n")
        return 0
    if command == "check":
        path = paths.resolve(args.file, saves)
        loaded = EncounterFile(path).load()
        enc = loaded.encounter
        data = {"file": str(path), "ok": True, "ruleset": enc.setup.ruleset, "revision": loaded.revision, "events": len(enc.events), "segment": enc.now, "combatants": len(enc.combatants)}
        _out(data, args.json, f"{path}: ok ({enc.setup.ruleset}, revision {loaded.revision}, {len(enc.events)} events, {enc.time.clock(enc.now)})", out)
        return 0
    if command == "play":
        return _play(args, saves, stdin, out)
    if command == "serve":
        from tracker.serve import serve

        return serve(args, saves)
    raise TrackerError(f"unknown command {command!r}")


def _role(args: argparse.Namespace, file: Path | None, loaded: Any = None) -> Role | None:
    """`--player NAME[,NAME]`: a player's role, its names checked against the encounter.

    The role comes from the command line of the account that runs it, never from the
    commands the session reads."""
    option = getattr(args, "player", None)
    if option is None:
        return None
    if getattr(args, "viewer", False):
        raise TrackerError("--player and --viewer: choose one (a player also sees what a viewer sees)")
    refuse_controls(option, "--player")
    role = Role.player(option.split(","))
    if not role.combatants:
        raise TrackerError(f"--player {option!r}: expected the names of your combatants, NAME[,NAME]")
    if loaded is None and file is not None:
        loaded = EncounterFile(file).load()
    if loaded is not None:
        try:
            names = [loaded.encounter.combatant(n).name for n in role.combatants]
        except TrackerError as exc:
            raise TrackerError(f"--player: {exc}") from None
        role = Role.player(names)
    return role


def _play(args: argparse.Namespace, saves: Path, stdin: TextIO, out: TextIO) -> int:
    path = paths.resolve(args.file, saves)
    store = EncounterFile(path)
    loaded = store.load()
    role = _role(args, path, loaded)
    user = account() if role is not None else ""
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(args.seed), store, user, role)
    if args.script:
        try:
            source = Path(args.script).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise TrackerError(f"{args.script}: cannot be read: {exc.strerror}") from None
        label = args.script
    else:
        source = stdin.read().splitlines()
        label = "<stdin>"
    for number, raw in enumerate(source, 1):
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
                out.write(f"[{entries[i].segment if same else session.encounter.now}] {visible(text)}\n")
    if args.json:
        _out(report.to_json(session.encounter), True, "", out)
    else:
        out.write(f"{path}: {session.encounter.time.clock(session.encounter.now)}, revision {store.revision}\n")
    return 0
