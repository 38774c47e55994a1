"""The `tracker serve` command's arguments (argparse): the one place each of its defaults
is said. Kept apart from what runs the server, so that building the CLI's parser imports
nothing else (no asyncssh, which only the serve extra brings: without it, `tracker serve`
names the extra instead of failing on an import). The server's options
(tracker.serve.options) and admission (tracker.serve.admission) read the parser's own
defaults (`defaults`) rather than restating them.

Decisions: docs/decisions/0003-ssh-server.md, docs/decisions/0025-admission.md (the
admission defaults), docs/decisions/0036-serve-processes.md (--spawn,
--viewers-per-process), docs/decisions/0037-serve-client-limits.md,
docs/decisions/0050-serve-campaign.md (--campaign)
"""

from __future__ import annotations

import argparse

# Two defaults depend on other options, so the parser's default is None and the options
# work them out (tracker.serve.options): these are the numbers they start from.
GM_SEATS = 2  # seats kept for GM keys, never more than half of --max-connections unless asked
PER_SOURCE = 30  # connections logging in at once from one address, never more than --max-startups' FULL


def fill(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`tracker serve`'s options, on its parser (tracker.command.parser names the command)."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8022, help="port to listen on; 0: any free port (the log says which)")
    p.add_argument("--gm-keys", metavar="FILE", help="authorized_keys file of GM keys (default: gm_keys in the config folder)")
    p.add_argument("--viewer-keys", metavar="FILE", help="authorized_keys file of viewer keys (default: viewer_keys in the config folder)")
    p.add_argument("--players-keys", metavar="FILE", help='authorized_keys file of players\' keys, each line naming its combatants: combatant="Seraph" or "Seraph,Nyx" (default: players_keys in the config folder)')
    p.add_argument("--open-viewers", action="store_true", help="let any key join as a viewer")
    p.add_argument("--encounter", metavar="NAME", help="the table's fight to start with (else the GM opens one; players and viewers wait)")
    p.add_argument("--campaign", metavar="NAME", help="serve the campaign's fight (the one under way, else the latest) and follow it to the next; only its fights may be the table's")
    p.add_argument("--host-key", metavar="FILE", help="host key file (created on first start; default: host_key in the config folder)")
    p.add_argument("--max-connections", type=int, default=32, metavar="N", help="the table's seats")
    p.add_argument("--gm-seats", type=int, metavar="N", help=f"seats kept for GM keys, within --max-connections (default {GM_SEATS}, at most half of them)")
    p.add_argument("--idle-timeout", type=float, default=3600.0, metavar="SECONDS", help="a connection idle this long is closed")
    p.add_argument("--max-startups", default="10:30:100", metavar="START:RATE:FULL", help="connections still logging in: refused at random past START (RATE%%), always at FULL (default %(default)s, as OpenSSH)")
    p.add_argument("--per-source-startups", type=int, metavar="N", help=f"connections logging in at once from one address (default {PER_SOURCE})")
    p.add_argument("--login-grace", type=float, default=10.0, metavar="SECONDS", help="how long a connection has to log in")
    p.add_argument("--spawn", choices=("fork", "exec"), default="fork", help="fork the preloaded app per connection, or run a new one")
    p.add_argument("--viewers-per-process", type=int, default=25, metavar="N", help="viewers sharing one process, with fork (1: a process each); those of one size there share one drawing")
    return p


def defaults() -> argparse.Namespace:
    """What `tracker serve` runs with when given no options: the parser's own defaults."""
    return fill(argparse.ArgumentParser(add_help=False)).parse_args([])
