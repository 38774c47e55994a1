"""`tracker web`: the viewer in a browser, through textual-serve.

Every browser tab gets its own app process, started as `tracker open --viewer` over the
saves folder (or one encounter with `--encounter NAME`), with TRACKER_READ_ONLY=1 in its
environment, so the save layer refuses any write even if a key slipped through. There is
no GM mode here: a GM runs the terminal app (or `tracker serve`).

It binds 127.0.0.1 unless `--host` says otherwise: the page has no log-in, so the way to
reach it from elsewhere is an SSH tunnel (`ssh -L 8000:127.0.0.1:8000 HOST`, then
http://127.0.0.1:8000 in the browser). The page loads its scripts and its websocket from
`--public-url` (default `http://HOST:PORT`, or this machine's name when bound to every
address), so a tunnel should use the same port on both ends.
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import sys
from pathlib import Path

from tracker import paths
from tracker.engine.errors import TrackerError


def command(saves: Path, encounter: Path | None) -> str:
    """The shell command textual-serve runs for each browser tab: always a viewer."""
    argv = [sys.executable, "-m", "tracker", "--saves", str(saves.resolve()), "open", "--viewer"]
    if encounter is not None:
        argv.append(str(encounter))  # absolute, its last component unresolved (paths.encounter_option)
    return shlex.join(argv)


def public_url(host: str, port: int) -> str:
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:  # an IPv6 address
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def web(args: argparse.Namespace, saves: Path) -> int:
    encounter = None
    if args.encounter:
        encounter = paths.encounter_option(args.encounter, saves)
    try:
        from textual_serve.server import Server
    except ImportError:
        raise TrackerError("tracker web needs textual-serve (pip install textual-serve)") from None
    os.environ["TRACKER_READ_ONLY"] = "1"  # inherited by every app process
    url = getattr(args, "public_url", None) or public_url(args.host, args.port)
    server = Server(command(saves, encounter), host=args.host, port=args.port, title="tracker (viewer)", public_url=url)
    try:
        server.serve()
    except OSError as exc:
        raise TrackerError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0
