"""The server's private line to a process it started: one JSON message per datagram.

An AF_UNIX SOCK_SEQPACKET socket pair, made by the server for each process it starts
(an app, or a process shared by viewers); the child inherits its end and nothing else of
the server's. Nobody else can write to it: it has no name in the file system, and no
other process holds it. Used for the viewers' processes (viewer_host), the GM's app
telling the server where it moved the table, and a seat's identity for `--spawn exec`
(seat.py). A descriptor may travel with a message (SCM_RIGHTS).
"""

from __future__ import annotations

import array
import json
import os
import socket
from typing import Any

MAX_MESSAGE = 256 * 1024  # an environment is a few kB; nothing legitimate comes close


def pair() -> tuple[socket.socket, socket.socket]:
    """(the server's end, the child's end); the child's end is inheritable."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    theirs.set_inheritable(True)
    return ours, theirs


def send(sock: socket.socket, message: dict[str, Any], fd: int | None = None) -> None:
    data = json.dumps(message).encode()
    if fd is None:
        sock.sendmsg([data])
    else:
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])


def receive(sock: socket.socket) -> tuple[dict[str, Any] | None, int | None]:
    """One message and the descriptor sent with it; (None, None) at end of file."""
    size = array.array("i").itemsize
    data, ancillary, _flags, _address = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(4 * size))
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            got = array.array("i")
            got.frombytes(payload[: len(payload) - len(payload) % size])
            fds.extend(got)
    for extra in fds[1:]:  # at most one is ever sent: close anything else, never leak it
        os.close(extra)
    if not data:
        for fd in fds[:1]:
            os.close(fd)
        return None, None
    try:
        message = json.loads(data)
    except ValueError:
        message = {}
    return (message if isinstance(message, dict) else {}), (fds[0] if fds else None)


def next_message(sock: socket.socket) -> dict[str, Any] | None:
    """The next message on a non-blocking `sock` said to be readable, any descriptor sent
    with it closed (the lines that use this take none): {} when nothing was there after
    all, None at end of file (the other end has gone)."""
    try:
        message, fd = receive(sock)
    except (BlockingIOError, InterruptedError):
        return {}
    except OSError:
        message, fd = None, None
    if fd is not None:
        os.close(fd)
    return message


def peer_is_parent(sock: socket.socket) -> bool:
    """Whether the other end of `sock` is held by this process's parent, running as this
    account (SO_PEERCRED: the kernel's word, not the peer's)."""
    import struct

    try:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    except OSError:
        return False
    return pid == os.getppid() and uid == os.getuid()
