"""One SSH connection's log-in (`TableSSHServer`, asyncssh's per-connection callbacks):
admission as it connects, the role and the name from the key that signs, the seat decided
while the client can still be told why not, and at most one session (the seat's app,
tracker.serve.channel).

Decisions: docs/decisions/0003-ssh-server.md (identity from the key, never the user name),
docs/decisions/0006-ssh-keys.md and docs/decisions/0039-ssh-key-names.md (the keys files),
docs/decisions/0025-admission.md and docs/decisions/0037-serve-client-limits.md (refusals
told, the seat decided when a key is checked), docs/decisions/0038-serve-logs-signals.md
(the user name logged quoted)
"""

from __future__ import annotations

import logging

import asyncssh

from tracker.serve.channel import TableSession
from tracker.serve.keys import PLAYER, VIEWER
from tracker.serve.table import USER_SHOWN, Connection, TableServer
from tracker.engine.text import quoted

log = logging.getLogger("tracker.serve")


class TableSSHServer(asyncssh.SSHServer):
    """Per-connection callbacks: admission, authentication, the one session."""

    def __init__(self, table: TableServer) -> None:
        self.table = table
        self.record: Connection | None = None
        self.conn: asyncssh.SSHServerConnection | None = None
        self._sessions = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.record = self.table.new_connection(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.record is not None:
            self.table.lost_connection(self.record, exc)

    def begin_auth(self, username: str) -> bool:
        record = self.record
        if record is not None:
            record.user = username  # logged only: anyone may type any name
            if record.refusal:  # the key exchange is done: now the client hears why
                self.table.tell_refusal(record)
                self.record = None
        return True  # always authenticate: the key decides the role

    # Public keys: the role, the name and the seat by the authorized_keys files.
    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        record = self.record
        if record is None:
            return False
        addr = record.source
        role = self.table.keyring.role_for(key, addr, addr)
        for problem in self.table.keyring.new_problems():
            log.error("%s", problem)  # a keys file made unsafe (or unreadable) while running
        if role is None:
            log.info("refused key %s for %s@%s", self.table.keyring.key_line(key), quoted(username, USER_SHOWN), record.peer)
            return False
        # Several keys may be offered; the last one accepted is the one that signed.
        record.role, record.key = role, self.table.keyring.key_line(key, role)
        record.name = self.table.keyring.identity(key, role)
        record.combatants, record.pcs = self.table.keyring.characters(key, addr, addr) if role == PLAYER else ((), ())
        # The seat is decided now, while the client still shows a reason it is given
        # (after authentication it would see only the connection close).
        reason = self.table.seat_refusal(role)
        if reason:
            self.table.refuse_seat(record, reason)
            self.record = None
            return False
        return True

    # Keyboard-interactive with no questions: a key-less viewer, only with --open-viewers.
    def kbdint_auth_supported(self) -> bool:
        return self.table.keyring.open_viewers

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        record = self.record
        if not self.table.keyring.open_viewers or record is None:
            return False
        reason = self.table.seat_refusal(VIEWER)
        if reason:
            self.table.refuse_seat(record, reason)
            self.record = None
            return False
        record.role, record.key, record.name = VIEWER, "", ""
        return True

    def password_auth_supported(self) -> bool:
        return False

    def auth_completed(self) -> None:
        if self.record is None:
            return
        if not self.table.admit(self.record):
            self.record = None
            return
        log.info("connect %s", self.record.who())

    def session_requested(self) -> "TableSession | bool":
        if self.record is None or self.record.role is None or self._sessions:
            return False  # one app per connection
        self._sessions += 1
        session = TableSession(self.table, self.record, self)
        return session

    def session_ended(self) -> None:
        """A session that ran no app (refused: no pty, a command) frees the slot."""
        self._sessions = max(0, self._sessions - 1)
