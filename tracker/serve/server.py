"""`tracker serve`: the shared table over SSH, so players need no account on the host.

A table, not a file browser (docs/contributing/design.md#shared-table). The server serves one fight at a time, the
table's: the one named by `--encounter`, or the one the GM opens from the GM's start
screen; with `--campaign NAME`, the campaign's fight, following it from fight to fight
(tracker.serve.campaign). Each SSH connection gets one interactive session: a pseudo-terminal sized from
the client's pty request, with the seat's app on it (pty_bridge, seat).

This module starts and stops it (the log, the signals); the parts are modules of their
own: the command line's arguments and their defaults (arguments), the options read from
them (options), the table's shared state (table), one connection's log-in (ssh_server)
and its session with the seat's app (channel).

Decisions: docs/decisions/0003-ssh-server.md, docs/decisions/0036-serve-processes.md,
docs/decisions/0037-serve-client-limits.md, docs/decisions/0038-serve-logs-signals.md,
docs/decisions/0050-serve-campaign.md, docs/decisions/0054-replay.md (the GM's replay at the table)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

from tracker.engine import TrackerError
from tracker.serve.keys import KeyRing
from tracker.serve.options import ServeOptions
from tracker.serve.ssh_server import TableSSHServer
from tracker.serve.table import TableServer
from tracker.engine.text import printable

log = logging.getLogger("tracker.serve")


def _setup_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s tracker serve: %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


async def run_server(options: ServeOptions, keyring: KeyRing, ready: "asyncio.Future[int] | None" = None) -> int:
    table = TableServer(options, keyring)
    try:
        await table.start(lambda: TableSSHServer(table))
    except OSError as exc:
        raise TrackerError(f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # Not possible outside the main thread (tests run the server in one): then the
        # caller stops it through `stop` instead of a signal.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    who = []
    if keyring.gm.current() is not None:
        who.append(f"GM keys {keyring.gm.path}")
    if keyring.player.current() is not None:
        who.append(f"players' keys {keyring.player.path}")
    if keyring.viewer.current() is not None:
        who.append(f"viewer keys {keyring.viewer.path}")
    if keyring.open_viewers:
        who.append("anyone else as a viewer")
    target = f"encounter {options.encounter}" if options.encounter else f"saves {options.saves}, the fight the GM opens"
    if table.campaign is not None:
        target = f"campaign {printable(table.campaign.name)}, " + (f"its fight {table.fight.name}" if table.fight is not None else "no fight yet")
    log.info("listening on %s port %d (%s; %s); connect with: ssh -p %d %s", options.host, table.port, target, ", ".join(who), table.port, options.host)
    if ready is not None and not ready.done():
        ready.set_result(table.port)
    try:
        await stop.wait()
    finally:
        await table.close()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
    log.info("stopped")
    return 0


def serve(args: argparse.Namespace, saves: Path) -> int:
    """The CLI's `tracker serve`."""
    _setup_logging()
    saves.mkdir(parents=True, exist_ok=True)
    options = ServeOptions.from_args(args, saves)
    keyring = KeyRing.from_options(options.saves, options.gm_keys, options.viewer_keys, options.open_viewers, options.players_keys)
    if not keyring.anyone_can_connect():
        raise TrackerError(
            f"nobody could connect: put GM public keys (lines of ~/.ssh/id_ed25519.pub) in "
            f"{keyring.gm.path} or pass --gm-keys FILE; add --players-keys FILE, --viewer-keys FILE or --open-viewers for players"
        )
    if options.host not in ("127.0.0.1", "localhost", "::1"):
        log.info("listening beyond this machine (%s): only the keys above get in", options.host)
    return asyncio.run(run_server(options, keyring))
