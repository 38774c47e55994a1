"""Who may connect to `tracker serve`, as what and as whom, and the server's own host key.

Decisions: docs/decisions/0006-ssh-keys.md, docs/decisions/0039-ssh-key-names.md,
docs/decisions/0040-ssh-keys-strict-modes.md, docs/decisions/0050-serve-campaign.md
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from tracker.engine import TrackerError

GM = "gm"
VIEWER = "viewer"
PLAYER = "player"

# File names in the keys folder, and where older versions kept them (the saves folder).
GM_KEYS_DEFAULT = "gm_keys"
VIEWER_KEYS_DEFAULT = "viewer_keys"
PLAYER_KEYS_DEFAULT = "players_keys"
HOST_KEY_DEFAULT = "host_key"
OLD_PLACES = {
    GM_KEYS_DEFAULT: ".tracker_gm_keys",
    VIEWER_KEYS_DEFAULT: ".tracker_viewer_keys",
    PLAYER_KEYS_DEFAULT: ".tracker_player_keys",
    HOST_KEY_DEFAULT: ".tracker_host_key",
}
COMBATANT_OPTION = "combatant"
PC_OPTION = "pc"  # a campaign's character by its id (`tracker serve --campaign`)
NAME_OPTION = "name"
NAME_LIMIT = 64
_KEY_TYPES = ("ssh-", "ecdsa-", "sk-")


def keys_folder() -> Path:
    """Where the GM's keys files and host key live by default: the tracker's config folder
    (the folder of `tracker config`'s file)."""
    from tracker.persistence.config import config_path

    return config_path().parent


def _who(bits: int, group: int, others: int) -> str:
    return " and ".join(w for w, b in (("its group", group), ("others", others)) if bits & b)


def folder_problem(path: Path, what: str) -> str:
    """Why someone other than this account (or root) could replace `path` through a folder
    above it, or "" (docs/decisions/0040-ssh-keys-strict-modes.md: sticky folders)."""
    uid = os.getuid()
    seen: set[Path] = set()
    chains = [Path(os.path.abspath(path)).parents]
    try:
        chains.append(path.resolve().parents)
    except (OSError, RuntimeError):  # a loop of links: the lexical chain still tells
        pass
    for chain in chains:
        for folder in chain:
            if folder in seen:
                continue
            seen.add(folder)
            try:
                st = os.stat(folder)
            except OSError as exc:
                return f"{folder}: cannot be checked ({exc.strerror}), so {what} {path} is not trusted"
            if st.st_uid not in (uid, 0):
                return (
                    f"{folder}: belongs to another user (uid {st.st_uid}), who could replace {what} {path}; refused. "
                    f"Fix: keep it in a folder of your own, such as {keys_folder()}"
                )
            if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
                return (
                    f"{folder}: writable by {_who(st.st_mode, 0o020, 0o002)} (mode {stat.S_IMODE(st.st_mode):04o}), "
                    f"so they could put their own {what} in place of {path}; refused. "
                    f"Fix: chmod go-w {folder}, or keep it in {keys_folder()} (the default)"
                )
    return ""


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
    return folder_problem(path, "the keys file")


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
    return folder_problem(path, "the host key")


def old_place_problem(saves: Path, name: str, option: str) -> str:
    """A keys file or host key left in the saves folder by an older version: where to move
    it, or "". One that is not this account's (a link, or another user's) was not left by
    the GM: it is to be removed, never moved into the keys folder."""
    old = saves / OLD_PLACES[name]
    try:
        st = os.lstat(old)
    except OSError:
        return ""
    why = "keys files and the host key no longer live in the saves folder, where anyone who may write the folder (its group) could rename one into another and become GM"
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid():
        owner = "a link" if stat.S_ISLNK(st.st_mode) else f"belongs to another user (uid {st.st_uid})"
        return f"{old}: {why}; this one {owner}, so you did not put it there: look at it, then remove it (rm {old})"
    new = keys_folder() / name
    return f"{old}: {why}. Move it: mkdir -p -m 700 {new.parent} && mv {old} {new} (or name it with {option})"


@dataclass(frozen=True, slots=True)
class Entry:
    """What a keys file's line says of its key besides the options asyncssh checks."""

    comment: str = ""
    name: str = ""  # the `name=` option, as written


_NAME = re.compile(r'(?:^|,)name=(?:"((?:[^"\\]|\\.)*)"|([^,\s"]*))')


def _entries(text: str) -> dict[bytes, Entry]:
    """Each key line's comment and `name=` option, by key blob."""
    found: dict[bytes, Entry] = {}
    for line in text.splitlines():
        words = line.split()
        for i, word in enumerate(words[:-1]):
            if word.startswith(_KEY_TYPES):
                try:
                    key = asyncssh.import_public_key(f"{word} {words[i + 1]}")
                except (ValueError, asyncssh.KeyImportError):
                    break
                named = _NAME.search(_options_part(line.strip()))
                name = (named.group(1) if named.group(1) is not None else named.group(2)).replace('\\"', '"') if named else ""
                found[key.public_data] = Entry(" ".join(words[i + 2 :]), name)
                break
    return found


def clean_name(text: str) -> str:
    """A name as the log will show it, or "" if it cannot be one (docs/decisions/0039-ssh-key-names.md)."""
    text = " ".join(text.split())
    if not text or not text.isprintable():
        return ""
    return text[:NAME_LIMIT]


def fingerprint_name(key: asyncssh.SSHKey) -> str:
    """The stable name of a key whose line gives none: `key-` and 8 characters of its fingerprint."""
    return "key-" + key.get_fingerprint("sha256").split(":", 1)[-1][:8]


@dataclass
class KeysFile:
    """One authorized_keys file, re-read when its modification time or size changes."""

    path: Path | None
    _stamp: tuple[int, ...] | None = None
    _keys: asyncssh.SSHAuthorizedKeys | None = None
    problem: str = ""
    entries: dict[bytes, Entry] = field(default_factory=dict)  # key blob -> comment and name=
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
        stamp = (st.st_mtime_ns, st.st_size, st.st_mode, st.st_uid, st.st_ino, st.st_dev)
        # The folders are checked on every use: a folder made writable (or a file renamed
        # into place, which the stamp sees) must stop the file at once.
        unsafe = keys_file_problem(self.path, st)
        if unsafe:
            self._stamp, self._keys, self.problem, self.entries = None, None, unsafe, {}
            return None
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                text = self.path.read_text(encoding="utf-8")
                # An empty file (or one with only comments) means "nobody yet", not an error.
                has_entries = any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())
                self._keys = asyncssh.import_authorized_keys(text) if has_entries else None
                self.entries = _entries(text)
                self.problem = ""
                missing = lines_without_combatant(text) if self.players else []
                if missing:
                    # Not fatal: the other players still get in; these keys are refused.
                    self.problem = (
                        f"{self.path}: line {', '.join(map(str, missing))} names no combatant; such a key is refused. "
                        f'Fix: begin the line with combatant="NAME" (or "NAME,NAME"; at a campaign\'s table pc="pc1" names a character by its id)'
                    )
            except (OSError, UnicodeDecodeError, ValueError, asyncssh.KeyImportError) as exc:
                # Keep serving with no keys from this file rather than the stale list: a
                # GM who removes a key and breaks the file must not leave the key valid.
                self._keys, self.entries = None, {}
                self.problem = f"{self.path}: cannot be read as an authorized_keys file: {exc}"
        return self._keys


def combatants_of(options: object, option: str = COMBATANT_OPTION) -> tuple[str, ...]:
    """The names a players' keys line gives with `combatant="A,B"` (or the ids with
    `pc="pc1,pc2"`: asyncssh keeps an option it does not know as a list of its values);
    () if none or unusable."""
    values = options.get(option) if isinstance(options, Mapping) else None
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
    if line.startswith(_KEY_TYPES):
        return ""
    quoted = False
    for index, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            return line[:index]
    return line


def _option_names(part: str) -> list[str]:
    """The names of a key line's options (`a="x,y",b` -> a, b), commas in quotes kept."""
    names, word, quoted, naming = [], "", False, True
    for ch in part + ",":
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            names.append(word.strip())
            word, naming = "", True
        elif ch == "=" and not quoted:
            naming = False
        elif naming:
            word += ch
    return names


def lines_without_combatant(text: str) -> list[int]:
    """Line numbers of key lines in a players' file that name no combatant (neither
    `combatant=` nor a campaign's `pc=`)."""
    missing = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        options = _option_names(_options_part(stripped))
        if COMBATANT_OPTION not in options and PC_OPTION not in options:
            missing.append(number)
    return missing


def _keys_path(option: str | None, default: str) -> Path:
    return Path(option) if option else keys_folder() / default


@dataclass
class KeyRing:
    gm: KeysFile
    viewer: KeysFile
    open_viewers: bool = False
    _reported: set[str] = field(default_factory=set)
    player: KeysFile = field(default_factory=lambda: KeysFile(None))

    @classmethod
    def from_options(cls, saves: Path, gm_keys: str | None, viewer_keys: str | None, open_viewers: bool, player_keys: str | None = None) -> "KeyRing":
        named = ((gm_keys, GM_KEYS_DEFAULT, "--gm-keys"), (viewer_keys, VIEWER_KEYS_DEFAULT, "--viewer-keys"), (player_keys, PLAYER_KEYS_DEFAULT, "--players-keys"))
        for option, default, flag in named:
            left_behind = "" if option else old_place_problem(saves, default, f"{flag} FILE")
            if left_behind:
                raise TrackerError(left_behind)
        gm_path, viewer_path, player_path = (_keys_path(option, default) for option, default, _flag in named)
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
        if any(self.characters(key, client_host, client_addr)):
            return PLAYER
        viewer = self.viewer.current()
        if viewer is not None and viewer.validate(key, client_host, client_addr) is not None:
            return VIEWER
        if self.open_viewers:
            return VIEWER
        return None

    def combatants(self, key: asyncssh.SSHKey, client_host: str, client_addr: str) -> tuple[str, ...]:
        """The combatants the players' file gives this key (() if it is not a player's)."""
        return self.characters(key, client_host, client_addr)[0]

    def characters(self, key: asyncssh.SSHKey, client_host: str, client_addr: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What the players' file gives this key: the combatants it names (`combatant=`)
        and the campaign's characters by id (`pc=`); both () if it is not a player's."""
        players = self.player.current()
        if players is None:
            return (), ()
        options = players.validate(key, client_host, client_addr)
        return combatants_of(options), combatants_of(options, PC_OPTION)

    def _file(self, role: str) -> KeysFile:
        return {GM: self.gm, PLAYER: self.player}.get(role, self.viewer)

    def identity(self, key: asyncssh.SSHKey, role: str) -> str:
        """Who holds `key`, from its line in the file that gave it `role` (docs/decisions/0039-ssh-key-names.md)."""
        entry = self._file(role).entries.get(key.public_data, Entry())
        name = clean_name(entry.name)
        if name:
            return name
        comment = clean_name(entry.comment)
        if not comment:
            return fingerprint_name(key)
        folded = comment.casefold()
        for keys_file in (self.gm, self.player, self.viewer):
            for blob, other in keys_file.entries.items():
                if blob != key.public_data and folded in (clean_name(other.name).casefold(), clean_name(other.comment).casefold()):
                    return f"{comment} ({fingerprint_name(key)})"  # another key says the same: tell them apart
        return comment

    def key_line(self, key: asyncssh.SSHKey, role: str = VIEWER) -> str:
        """The key's fingerprint and who it names, for the server's log."""
        return f"{key.get_fingerprint('sha256')} ({self.identity(key, role)})"

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


def _make_folders(folder: Path) -> None:
    """Create `folder` and any missing folder above it, each 0700 (whatever the umask)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for each in reversed(missing):
        os.mkdir(each, 0o700)


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
    try:
        _make_folders(path.parent)
    except OSError as exc:
        raise TrackerError(f"{path.parent}: cannot create the folder for the host key: {exc.strerror}") from None
    unsafe = folder_problem(path, "the host key")
    if unsafe:
        raise TrackerError(unsafe)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        # Another server made it a moment ago: use theirs, so both present the same key.
        # Or a link that leads nowhere is at its name (not followed: O_NOFOLLOW).
        try:
            st = os.stat(path)
        except OSError as exc:
            raise TrackerError(f"{path}: cannot create the host key: a link that leads nowhere is in its place ({exc.strerror}); look at it, then remove it (rm {path})") from None
        unsafe = host_key_problem(path, st)
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
