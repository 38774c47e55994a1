"""What `tracker serve` runs with (`ServeOptions`): the command line's options, checked
and made whole. Each default is the parser's own (tracker.serve.arguments), read from it
here rather than restated, so a table started from Python (as the tests do) gets what
`tracker serve` with no options gets.

Decisions: docs/decisions/0025-admission.md (the admission limits),
docs/decisions/0036-serve-processes.md (--spawn, --viewers-per-process),
docs/decisions/0037-serve-client-limits.md (--idle-timeout, --login-grace),
docs/decisions/0040-ssh-keys-strict-modes.md (the host key),
docs/decisions/0050-serve-campaign.md (--campaign)
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from tracker.persistence import paths
from tracker.engine import TrackerError
from tracker.serve.admission import Admission, Startups
from tracker.serve.arguments import GM_SEATS, PER_SOURCE, defaults
from tracker.serve.keys import HOST_KEY_DEFAULT, keys_folder, old_place_problem

_DEFAULT = defaults()


@dataclass
class ServeOptions:
    saves: Path
    host: str = _DEFAULT.host
    port: int = _DEFAULT.port
    gm_keys: str | None = _DEFAULT.gm_keys
    viewer_keys: str | None = _DEFAULT.viewer_keys
    open_viewers: bool = _DEFAULT.open_viewers
    players_keys: str | None = _DEFAULT.players_keys
    encounter: Path | None = None
    campaign: Path | None = None  # the campaign file whose fight the table is
    host_key: Path | None = None
    max_connections: int = _DEFAULT.max_connections
    gm_seats: int = GM_SEATS
    idle_timeout: float = _DEFAULT.idle_timeout
    startups: Startups = Startups.parse(_DEFAULT.max_startups)
    per_source: int = PER_SOURCE
    login_grace: float = _DEFAULT.login_grace
    spawn: str = _DEFAULT.spawn
    viewers_per_process: int = _DEFAULT.viewers_per_process  # with shared views, the drawing is per process: fewer, larger ones cost less
    python: str = sys.executable

    @property
    def admission(self) -> Admission:
        return Admission(self.startups, self.per_source, self.max_connections, self.gm_seats)

    @classmethod
    def from_args(cls, args: argparse.Namespace, saves: Path) -> "ServeOptions":
        saves = saves.resolve()
        if getattr(args, "campaign", None) and args.encounter:
            raise TrackerError("--campaign: the table is the campaign's fight (the one under way, else the latest); leave out --encounter, and open another of its fights from the GM's start screen")
        encounter = None
        if args.encounter:
            encounter = paths.encounter_option(args.encounter, saves)
        campaign = None
        if getattr(args, "campaign", None):
            from tracker.play.fights import campaign_path

            campaign = campaign_path(args.campaign, saves)
            if campaign.parent.resolve() != saves:
                raise TrackerError(f"--campaign {args.campaign}: a served campaign and its fights live in the saves folder ({saves}); serve that folder with --saves {campaign.parent}")
            campaign = saves / campaign.name
        if args.max_connections < 1:
            raise TrackerError(f"--max-connections: expected at least 1, got {args.max_connections}")
        gm_seats = getattr(args, "gm_seats", None)
        if gm_seats is None:  # never more than half the seats unless asked (a two-seat table: one)
            gm_seats = min(cls.gm_seats, args.max_connections // 2)
        if not 0 <= gm_seats <= args.max_connections:
            raise TrackerError(f"--gm-seats: expected 0 to --max-connections ({args.max_connections}), got {gm_seats}")
        if args.idle_timeout <= 0:
            raise TrackerError(f"--idle-timeout: expected a number of seconds above 0, got {args.idle_timeout:g}")
        if not 0 <= args.port <= 65535:
            raise TrackerError(f"--port: expected 0-65535, got {args.port}")
        startups = getattr(args, "max_startups", None)
        startups = Startups.parse(str(startups)) if startups is not None else cls.startups
        per_source = getattr(args, "per_source_startups", None)
        per_source = min(cls.per_source, startups.full) if per_source is None else per_source
        if per_source < 1:
            raise TrackerError(f"--per-source-startups: expected at least 1, got {per_source}")
        login_grace = getattr(args, "login_grace", None)
        login_grace = cls.login_grace if login_grace is None else login_grace
        if login_grace <= 0:
            raise TrackerError(f"--login-grace: expected a number of seconds above 0, got {login_grace:g}")
        spawn = getattr(args, "spawn", None) or cls.spawn
        if spawn not in ("fork", "exec"):
            raise TrackerError(f"--spawn: expected fork or exec, got {spawn}")
        per_process = getattr(args, "viewers_per_process", None)
        per_process = cls.viewers_per_process if per_process is None else per_process
        if per_process < 1:
            raise TrackerError(f"--viewers-per-process: expected at least 1, got {per_process}")
        if not args.host_key:
            left_behind = old_place_problem(saves, HOST_KEY_DEFAULT, "--host-key FILE")
            if left_behind:
                raise TrackerError(left_behind)
        return cls(
            saves=saves,
            host=args.host,
            port=args.port,
            gm_keys=args.gm_keys,
            viewer_keys=args.viewer_keys,
            open_viewers=bool(args.open_viewers),
            players_keys=getattr(args, "players_keys", None),
            encounter=encounter,
            campaign=campaign,
            host_key=Path(args.host_key) if args.host_key else keys_folder() / HOST_KEY_DEFAULT,
            max_connections=args.max_connections,
            gm_seats=int(gm_seats),
            idle_timeout=float(args.idle_timeout),
            startups=startups,
            per_source=int(per_source),
            login_grace=float(login_grace),
            spawn=spawn,
            viewers_per_process=int(per_process),
        )
