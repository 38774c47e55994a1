"""Who may connect to `tracker serve`, as what, and the server's own host key.

Decisions (the brief says only "keys in an authorized-keys file decide who is GM"):

- Roles: a key listed in the GM file (`--gm-keys`, default `SAVES/.tracker_gm_keys`) is
  a GM; a key in the viewer file (`--viewer-keys`, default `SAVES/.tracker_viewer_keys`)
  is a viewer; with `--open-viewers` anyone else is a viewer too, including a client with
  no key at all (keyboard-interactive with no questions, tried by OpenSSH after its keys,
  so a GM's key is still recognised first). Everything else is refused.
- The files use OpenSSH's authorized_keys format (options such as `from="10.0.0.*"` are
  honoured by asyncssh). They are re-read when they change on disk, so the GM can add a
  player's key without restarting the server.
- Players (issue 14): a key in the players' file (`--players-keys`, default
  `SAVES/.tracker_player_keys`) is the player of the combatants its line names with the
  option `combatant="Seraph"` or `combatant="Seraph,Nyx"` (several `combatant=` options
  add up). A line without that option admits nobody (its key is refused and the file's
  problem logged, naming the line). The names are the server's, from this file, never
  from anything the client sends; the app checks them against the encounter.
- A key in several files is a GM if in the GM file, else a player if in the players'
  file, else a viewer (the more capable role wins: the GM listed it on purpose).
- The SSH user name is not an identity (anyone can type any name); logs show it beside
  the key's fingerprint and comment.
- The host key is an Ed25519 key created on first start with mode 0600 (O_EXCL, so two
  servers starting at once cannot both write it) and kept; its fingerprint is logged on
  every start so players can check the warning their ssh prints on first connection.
- Strict modes, as OpenSSH's StrictModes: a keys file that its group or others may write
  (anyone who can write it can make themselves GM), or that belongs to another user, is
  refused: at start the server does not start, while running the file counts as empty
  until it is fixed; the message names the file and the `chmod`/`chown` that fixes it.
  A host key that its group or others may read (or write) is refused the same way. Only
  the files are checked, not their folders: the saves folder may be a group-shared one
  (DESIGN 8, way 1), so the default keys files' folder being group-writable is normal.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from tracker.engine import TrackerError

GM = "gm"
VIEWER = "viewer"
PLAYER = "player"

GM_KEYS_DEFAULT = ".tracker_gm_keys"
VIEWER_KEYS_DEFAULT = ".tracker_viewer_keys"
PLAYER_KEYS_DEFAULT = ".tracker_player_keys"
COMBATANT_OPTION = "combatant"
HOST_KEY_DEFAULT = ".tracker_host_key"


def _who(bits: int, group: int, others: int) -> str:
    return " and ".join(w for w, b in (("its group", group), ("others", others)) if bits & b)


def keys_file_problem(path: Path, st: os.stat_result) -> str:
    """Why an authorized_keys file must not be trusted (StrictModes), or ""."""
    if not stat.S_ISREG(st.st_mode):
        return f"{path}: not a regular file; an authorized_keys file is expected"
    if st.st_uid not in (os.getuid(), 0):
        return f"{path}: belongs to another user (uid {st.st_uid}), who could make themselves GM; fix: chown {os.getuid()} {path}"
    if st.st_mode & 0o022:
        return (
            f"{path}: writable by {_who(st.st_mode, 0o020, 0o002)} (mode {stat.S_IMODE(st.st_mode):04o}), "
            f"so they could add their own key and become GM; refused. Fix: chmod go-w {path}"
        )
    return ""


def host_key_problem(path: Path, st: os.stat_result) -> str:
    """Why the host key must not be used (readable or writable by others), or ""."""
    if st.st_uid not in (os.getuid(), 0):
        return f"{path}: the host key belongs to another user (uid {st.st_uid}); fix: chown {os.getuid()} {path}"
    if st.st_mode & 0o077:
        return (
            f"{path}: the host key is readable or writable by {_who(st.st_mode, 0o070, 0o007)} "
            f"(mode {stat.S_IMODE(st.st_mode):04o}); anyone who reads it can pose as this server. "
            f"Refused. Fix: chmod 600 {path}"
        )
    return ""


@dataclass
class KeysFile:
    """One authorized_keys file, re-read when its modification time or size changes."""

    path: Path | None
    _stamp: tuple[int, ...] | None = None
    _keys: asyncssh.SSHAuthorizedKeys | None = None
    problem: str = ""
    comments: dict[bytes, str] = field(default_factory=dict)  # key blob -> its comment (who)
    players: bool = False  # the players' file: each line names its combatants

    def current(self) -> asyncssh.SSHAuthorizedKeys | None:
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._stamp, self._keys, self.problem = None, None, f"{self.path}: no such file"
            return None
        # Mode and owner too: a chmod that makes the file unsafe (or safe again) counts.
        stamp = (st.st_mtime_ns, st.st_size, st.st_mode, st.st_uid, st.st_ino)
        if stamp != self._stamp:
            self._stamp = stamp
            unsafe = keys_file_problem(self.path, st)
            if unsafe:
                self._keys, self.problem, self.comments = None, unsafe, {}
                return None
            try:
                text = self.path.read_text(encoding="utf-8")
                # An empty file (or one with only comments) means "nobody yet", not an error.
                has_entries = any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())
                self._keys = asyncssh.import_authorized_keys(text) if has_entries else None
                self.comments = _comments(text)
                self.problem = ""
                missing = lines_without_combatant(text) if self.players else []
                if missing:
                    # Not fatal: the other players still get in; these keys are refused.
                    self.problem = (
                        f"{self.path}: line {', '.join(map(str, missing))} names no combatant; such a key is refused. "
                        f'Fix: begin the line with combatant="NAME" (or "NAME,NAME")'
                    )
            except (OSError, UnicodeDecodeError, ValueError, asyncssh.KeyImportError) as exc:
                # Keep serving with no keys from this file rather than the stale list: a
                # GM who removes a key and breaks the file must not leave the key valid.
                self._keys = None
                self.problem = f"{self.path}: cannot be read as an authorized_keys file: {exc}"
        return self._keys


def _comments(text: str) -> dict[bytes, str]:
    """The comment of each key line (`ssh-ed25519 AAAA... alice@laptop`), for the logs."""
    found: dict[bytes, str] = {}
    for line in text.splitlines():
        words = line.split()
        for i, word in enumerate(words[:-1]):
            if word.startswith(("ssh-", "ecdsa-", "sk-")):
                try:
                    key = asyncssh.import_public_key(f"{word} {words[i + 1]}")
                except (ValueError, asyncssh.KeyImportError):
                    break
                found[key.public_data] = " ".join(words[i + 2 :])
                break
    return found


def combatants_of(options: object) -> tuple[str, ...]:
    """The names a players' keys line gives with `combatant="A,B"` (asyncssh keeps an
    option it does not know as a list of its values); () if none or unusable."""
    values = options.get(COMBATANT_OPTION) if isinstance(options, Mapping) else None
    if not isinstance(values, list):
        return ()
    names: list[str] = []
    for value in values:
        for name in str(value).split(","):
            name = name.strip()
            if name and name.isprintable() and name not in names:
                names.append(name)
    return tuple(names)


def _options_part(line: str) -> str:
    """The options before a key line's key ("" when it starts with the key type)."""
    if line.startswith(("ssh-", "ecdsa-", "sk-")):
        return ""
    quoted = False
    for index, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            return line[:index]
    return line


def lines_without_combatant(text: str) -> list[int]:
    """Line numbers of key lines in a players' file that name no combatant."""
    missing = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and f"{COMBATANT_OPTION}=" not in _options_part(stripped):
            missing.append(number)
    return missing


@dataclass
class KeyRing:
    gm: KeysFile
    viewer: KeysFile
    open_viewers: bool = False
    _reported: set[str] = field(default_factory=set)
    player: KeysFile = field(default_factory=lambda: KeysFile(None))

    @classmethod
    def from_options(cls, saves: Path, gm_keys: str | None, viewer_keys: str | None, open_viewers: bool, player_keys: str | None = None) -> "KeyRing":
        gm_path = Path(gm_keys) if gm_keys else saves / GM_KEYS_DEFAULT
        viewer_path = Path(viewer_keys) if viewer_keys else saves / VIEWER_KEYS_DEFAULT
        player_path = Path(player_keys) if player_keys else saves / PLAYER_KEYS_DEFAULT
        if gm_keys and not gm_path.is_file():
            raise TrackerError(f"--gm-keys {gm_keys}: no such file (an authorized_keys file: one public key per line)")
        if viewer_keys and not viewer_path.is_file():
            raise TrackerError(f"--viewer-keys {viewer_keys}: no such file (an authorized_keys file: one public key per line)")
        if player_keys and not player_path.is_file():
            raise TrackerError(f'--players-keys {player_keys}: no such file (an authorized_keys file: one public key per line, each with combatant="NAME")')
        ring = cls(KeysFile(gm_path), KeysFile(viewer_path), open_viewers, player=KeysFile(player_path, players=True))
        for keys_file in (ring.gm, ring.viewer, ring.player):
            keys_file.current()
            # A default file that does not exist is normal; a named or present one that
            # cannot be read is worth stopping for at start, when the person is watching.
            if keys_file.problem and keys_file.path is not None and keys_file.path.exists():
                raise TrackerError(keys_file.problem)
        return ring

    def role_for(self, key: asyncssh.SSHKey, client_host: str, client_addr: str) -> str | None:
        gm = self.gm.current()
        if gm is not None and gm.validate(key, client_host, client_addr) is not None:
            return GM
        if self.combatants(key, client_host, client_addr):
            return PLAYER
        viewer = self.viewer.current()
        if viewer is not None and viewer.validate(key, client_host, client_addr) is not None:
            return VIEWER
        if self.open_viewers:
            return VIEWER
        return None

    def combatants(self, key: asyncssh.SSHKey, client_host: str, client_addr: str) -> tuple[str, ...]:
        """The combatants the players' file gives this key (() if it is not a player's)."""
        players = self.player.current()
        if players is None:
            return ()
        return combatants_of(players.validate(key, client_host, client_addr))

    def describe(self, key: asyncssh.SSHKey) -> str:
        """The key's fingerprint and, if a keys file gives one, its comment (who it is)."""
        comment = self.gm.comments.get(key.public_data) or self.player.comments.get(key.public_data) or self.viewer.comments.get(key.public_data) or key.get_comment() or ""
        text = key.get_fingerprint("sha256")
        return f"{text} ({comment})" if comment else text

    def anyone_can_connect(self) -> bool:
        return self.open_viewers or any(f.current() is not None for f in (self.gm, self.player, self.viewer))

    def problems(self) -> list[str]:
        return [f.problem for f in (self.gm, self.player, self.viewer) if f.problem and f.path is not None and f.path.exists()]

    def new_problems(self) -> list[str]:
        """Problems not reported yet (each is logged once, until it changes)."""
        found = self.problems()
        fresh = [p for p in found if p not in self._reported]
        self._reported = set(found)
        return fresh


def load_or_create_host_key(path: Path) -> tuple[asyncssh.SSHKey, bool]:
    """The server's host key at `path`, created (Ed25519, mode 0600) if missing; (key, created)."""
    if path.exists():
        unsafe = host_key_problem(path, os.stat(path))
        if unsafe:
            raise TrackerError(unsafe)
        try:
            return asyncssh.read_private_key(str(path)), False
        except (OSError, ValueError, asyncssh.KeyImportError) as exc:
            raise TrackerError(f"{path}: cannot be read as an SSH private key ({exc}); move it away to have a new one made") from None
    key = asyncssh.generate_private_key("ssh-ed25519", comment="tracker serve host key")
    data = key.export_private_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # Another server made it a moment ago: use theirs, so both present the same key.
        unsafe = host_key_problem(path, os.stat(path))
        if unsafe:
            raise TrackerError(unsafe) from None
        return asyncssh.read_private_key(str(path)), False
    except OSError as exc:
        raise TrackerError(f"{path}: cannot create the host key: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return key, True
