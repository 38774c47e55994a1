"""A campaign file on disk: `NAME.campaign.toml` in the saves folder.

The same guarantees as a fight's save (docs/campaigns.md): the header, then the events
as `[[events]]` tables, each change appended after the last `# revision N` line and
fsynced, never rewritten; a torn tail (a crash mid-append) is cut back to the last
whole change; every change is made under the sidecar lock, on the file as it stands
(read whole: a campaign is small); the file is opened through its folder as a regular
file of bounded size (links out of the folder, FIFOs and devices refused); a new file is
written whole and atomically. Anything wrong in it is refused naming the file, the line
and what was expected; a file that does not load is never written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import tomli_w

from tracker.persistence.campaign import KINDS, Campaign
from tracker.engine.errors import TrackerError
from tracker.engine.model import Event
from tracker.persistence.paths import CAMPAIGN_SUFFIX
from tracker.persistence import codec, folder
from tracker.persistence.checks import SaveError, check_numbers
from tracker.persistence.event_tables import events_text
from tracker.persistence.header import house_rules_tables
from tracker.persistence.folder import Refused
from tracker.persistence.lock import locked
from tracker.persistence.store import refuse_if_read_only

SUFFIX = CAMPAIGN_SUFFIX
SCHEMA_VERSION = 1
MAX_CAMPAIGN_BYTES = 4 * 1024 * 1024  # a fight's end and a rest take a few kB for a party of five: hundreds of fights
HEADER = (
    "# A campaign for segment-tracker: the party, its fights and what happened between them.\n"
    "# Each change is appended as [[events]] tables ending with a '# revision N' line;\n"
    "# anything after the last '# revision N' line is an unfinished write and is ignored.\n"
)
_EVENTS = re.compile(rb"^\[\[events\]\][ \t]*\r?$", re.M)


def is_campaign(path: Path | str) -> bool:
    return str(path).endswith(SUFFIX)


def now() -> str:
    """The time a campaign event carries (UTC, to the second)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class CampaignError(SaveError):
    """A campaign file that will not load (the message names file, line and field)."""


def _line_of(data: bytes, index: int) -> int:
    """The line (from 1) where the `index`-th `[[events]]` table starts, or 0."""
    for i, match in enumerate(_EVENTS.finditer(data)):
        if i == index:
            return data.count(b"\n", 0, match.start()) + 1
    return 0


def _need(doc: dict[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    value = doc.get(key, default)
    if value is None or not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise CampaignError(f"{where} {key}: expected {'a whole number' if kind is int else 'text'}, got {value!r}")
    return value


def _game(ruleset_id: str, house_rules: str, base_dir: Path | None, source: str) -> Any:
    """The campaign's game with its house rules, or a refusal naming the file."""
    from rulesets import registry

    try:
        rules = house_rules_tables(house_rules, base_dir, source) if house_rules else None
        return registry.get(ruleset_id, rules)
    except TrackerError as exc:
        raise CampaignError(f"{source}: ruleset: {exc}") from None


def _check_sheets(game: Any, event: Event, at: str) -> None:
    """The sheets an event carries, checked by the game's own sheet (names the key)."""
    args = event.args
    try:
        if event.kind == "join":
            game.check_sheet(args.get("stats") or {}, args.get("resources") or {}, f"{at} ({event.kind})")
        elif event.kind == "set":
            game.check_sheet(args.get("stats") or {}, {**(args.get("maxima") or {}), **(args.get("resources") or {})}, f"{at} ({event.kind})")
        elif event.kind in ("end", "rest"):
            for pid, state in (args.get("party") or {}).items():
                if isinstance(state, dict):
                    game.check_sheet(state.get("stats") or {}, {**(state.get("maxima") or {}), **(state.get("resources") or {})}, f"{at} ({event.kind}).party.{pid}")
    except TrackerError as exc:
        raise CampaignError(str(exc)) from None


def decode(data: bytes, source: str, base_dir: Path | None = None) -> tuple[Campaign, int]:
    """The campaign a file's bytes hold (committed part only) and its revision; every
    event checked, its sheets by the campaign's own game (house rules read from
    `base_dir`, the campaign's folder)."""
    cut = codec.split(data)
    try:
        text = cut.committed.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CampaignError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = codec.parse(text, source)
    except SaveError as exc:
        raise CampaignError(str(exc)) from None
    where = f"{source}:"
    if doc.get("kind") != "campaign":
        raise CampaignError(f"{where} kind: expected \"campaign\" (a campaign file), got {doc.get('kind')!r}")
    version = _need(doc, "schema_version", int, where)
    if version != SCHEMA_VERSION:
        raise CampaignError(f"{where} schema_version: expected {SCHEMA_VERSION}, got {version} (a newer tracker wrote this file?)")
    name = _need(doc, "name", str, where)
    ruleset = _need(doc, "ruleset", str, where)
    house_rules = _need(doc, "house_rules", str, where, "")
    unknown = sorted(set(doc) - {"kind", "schema_version", "name", "ruleset", "house_rules", "events"})
    if unknown:
        raise CampaignError(f"{where} unexpected key {unknown[0]!r} (a campaign file has kind, schema_version, name, ruleset, house_rules and [[events]])")
    raws = doc.get("events", [])
    if not isinstance(raws, list) or not all(isinstance(r, dict) for r in raws):
        raise CampaignError(f"{where} events: expected an array of tables [[events]]")
    game = _game(ruleset, house_rules, base_dir, source)
    campaign = Campaign(name, ruleset, house_rules)
    for i, raw in enumerate(raws):
        at = f"{source}: event {i + 1}"
        try:
            event = _event(raw, i, at)
            _check_sheets(game, event, at)
            try:
                campaign.apply(event)
            except TrackerError as exc:
                raise CampaignError(f"{at} ({event.kind}): {exc}") from None
        except CampaignError as exc:
            # The line is looked for only to name it in a refusal: looking for every
            # event's line took seconds on a long campaign (it reads the file from the top).
            said, line = str(exc), _line_of(cut.committed, i)
            if line and said.startswith(at):
                said = f"{source}:{line}: event {i + 1}{said[len(at):]}"
            raise CampaignError(said) from None
    return campaign, cut.revision or 0


_CHECKED_BY_THE_CAMPAIGN = frozenset({"party", "stats"})


def _event(raw: dict[str, Any], index: int, at: str) -> Event:
    seq = raw.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq != index + 1:
        raise CampaignError(f"{at}: seq: expected {index + 1} (events are numbered in order), got {seq!r}")
    kind = raw.get("kind")
    row = KINDS.get(kind) if isinstance(kind, str) else None
    if row is None:
        raise CampaignError(f"{at}: kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    by = raw.get("by", "")
    if not isinstance(by, str):
        raise CampaignError(f"{at}: by: expected text, got {by!r}")
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("seq", "kind", "by"):
            continue
        spec = row.args.get(key)
        if spec is None:
            raise CampaignError(f"{at} ({kind}): unexpected key {key!r} (a {kind} event has {', '.join(row.args)})")
        (wanted, test), _ = spec
        if not test(value):
            raise CampaignError(f"{at} ({kind}).{key}: expected {wanted}, got {value!r}")
        args[key] = value
    for key, ((wanted, _), required) in row.args.items():
        if required and key not in args:
            raise CampaignError(f"{at} ({kind}): missing key {key!r} ({wanted})")
    # Every number must fit a save; a character's figures (`party`, `stats`) are checked
    # number by number by the campaign as it applies them, the rest here.
    try:
        check_numbers({k: v for k, v in args.items() if k not in _CHECKED_BY_THE_CAMPAIGN}, f"{at} ({kind})")
    except SaveError as exc:
        raise CampaignError(str(exc)) from None
    return Event(row.name, args, seq, by)


def _encode(events: list[Event], revision: int) -> bytes:
    """Appended events as a fight's are written (tracker.persistence.event_tables.events_text), then the mark."""
    return ("\n" + events_text(events) + f"# revision {revision}\n").encode("utf-8")


class CampaignFile:
    """One campaign file: `load` it, `create` it, `change` it under its lock."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.revision = -1

    def _read(self) -> tuple[bytes, int, Campaign]:
        try:
            fd = folder.open_file(self.path, os.O_RDONLY, limit=MAX_CAMPAIGN_BYTES, what="campaign")
        except Refused as exc:
            raise CampaignError(str(exc)) from None
        except FileNotFoundError:
            raise CampaignError(f"{self.path}: no such campaign file") from None
        except OSError as exc:
            raise CampaignError(f"{self.path}: cannot be read: {exc.strerror}") from None
        try:
            data = folder.read_fd(fd, MAX_CAMPAIGN_BYTES, self.path, "campaign")
        except Refused as exc:
            raise CampaignError(str(exc)) from None
        finally:
            os.close(fd)
        campaign, revision = decode(data, str(self.path), self.path.parent)
        return data, revision, campaign

    def load(self) -> Campaign:
        _, self.revision, campaign = self._read()
        return campaign

    @classmethod
    def create(cls, path: Path | str, name: str, ruleset: str, house_rules: str = "") -> "CampaignFile":
        store = cls(path)
        if not is_campaign(store.path):
            raise TrackerError(f"{store.path}: a campaign file's name ends with {SUFFIX}")
        refuse_if_read_only(store.path)
        doc: dict[str, Any] = {"kind": "campaign", "schema_version": SCHEMA_VERSION, "name": name, "ruleset": ruleset}
        if house_rules:
            doc["house_rules"] = house_rules
        data = (HEADER + tomli_w.dumps(doc) + "# revision 0\n").encode("utf-8")
        store.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(store.path, create=True):
            if folder.exists(store.path):
                raise TrackerError(f"{store.path}: already exists; choose another name or delete it first")
            folder.replace(store.path, data, what="campaign")
        store.revision = 0
        return store

    @contextmanager
    def transaction(self) -> Iterator[Campaign]:
        """Lock, read the campaign as it stands, let the body apply events, append them."""
        refuse_if_read_only(self.path)
        with locked(self.path):
            data, revision, campaign = self._read()
            cut = codec.split(data)
            before = len(campaign.events)
            yield campaign
            new = campaign.events[before:]
            if not new:
                return
            payload = _encode(new, revision + 1)
            if len(cut.committed) + len(payload) > MAX_CAMPAIGN_BYTES:
                raise TrackerError(f"{self.path}: the campaign file is full (over {folder.size_text(MAX_CAMPAIGN_BYTES)}); start a new campaign")
            self._append(len(cut.committed), payload)
            self.revision = revision + 1

    def _append(self, offset: int, payload: bytes) -> None:
        try:
            fd = folder.open_file(self.path, os.O_WRONLY, what="campaign")
        except Refused as exc:
            raise CampaignError(str(exc)) from None
        try:
            if os.fstat(fd).st_size != offset:
                os.ftruncate(fd, offset)  # a torn tail from a crashed writer
            written = 0
            while written < len(payload):
                written += os.pwrite(fd, payload[written:], offset + written)
            os.fsync(fd)
        finally:
            os.close(fd)

    def change(self, build: Callable[[Campaign], list[Event]], by: str = "") -> tuple[Campaign, list[Event]]:
        """Build events against the campaign as it stands, apply and append them: the
        campaign after, and the events (numbered)."""
        with self.transaction() as campaign:
            events = build(campaign)
            for event in events:
                event.by = event.by or by
                event.args.setdefault("at", now())
                campaign.apply(event)
        return campaign, events
