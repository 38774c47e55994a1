"""Direct tests of tracker.serve.control: the server's private line to a process it
started, one JSON message per datagram on an AF_UNIX SOCK_SEQPACKET pair, a descriptor
sometimes with it (the module docstring). What comes over it is never trusted: a message
that is not a JSON object reads as {}, a descriptor more than the one ever sent is
closed, never leaked."""

from __future__ import annotations

import array
import json
import os
import socket
from collections.abc import Iterator

import pytest

from tracker.serve.control import MAX_MESSAGE, next_message, pair, peer_is_parent, receive, send


@pytest.fixture
def line() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = pair()
    try:
        yield ours, theirs
    finally:
        ours.close()
        theirs.close()


def _open_fds() -> set[int]:
    """This process's descriptors (less the one the listing itself had open)."""
    listed = {int(n) for n in os.listdir("/proc/self/fd")}
    return {fd for fd in listed if _is_open(fd)}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _send_fds(sock: socket.socket, data: bytes, fds: list[int]) -> None:
    sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])


def test_a_pair_of_datagram_sockets_only_the_childs_end_inherited(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    assert (ours.family, ours.type, theirs.family, theirs.type) == (socket.AF_UNIX, socket.SOCK_SEQPACKET) * 2
    assert theirs.get_inheritable() and not ours.get_inheritable()


def test_one_message_each_way_as_sent(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    send(ours, {"moved": "fight.toml", "n": 2})
    send(ours, {"second": True})
    assert receive(theirs) == ({"moved": "fight.toml", "n": 2}, None)  # one datagram, one message
    assert receive(theirs) == ({"second": True}, None)
    send(theirs, {"back": [1, 2]})
    assert receive(ours) == ({"back": [1, 2]}, None)


def test_a_descriptor_travels_with_its_message(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    r, w = os.pipe()
    try:
        send(ours, {"seat": "gm"}, r)
        message, fd = receive(theirs)
        assert message == {"seat": "gm"} and fd is not None and fd not in (r, w)
        os.write(w, b"hello")
        assert os.read(fd, 5) == b"hello"
        os.close(fd)
    finally:
        os.close(r)
        os.close(w)


def test_descriptors_past_the_first_are_closed(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    r, w = os.pipe()
    try:
        before = _open_fds()
        _send_fds(ours, json.dumps({"x": 1}).encode(), [r, w, r])
        message, fd = receive(theirs)
        assert message == {"x": 1} and fd is not None
        assert _open_fds() == before | {fd}
        os.write(w, b"k")
        assert os.read(fd, 1) == b"k"  # the first one sent is the one kept
        os.close(fd)
    finally:
        os.close(r)
        os.close(w)


def test_credentials_are_not_descriptors(line: tuple[socket.socket, socket.socket]) -> None:
    """Only SCM_RIGHTS carries descriptors: other ancillary data (the sender's
    credentials, when asked for) is never taken for one."""
    ours, theirs = line
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    before = _open_fds()
    send(ours, {"x": 1})
    assert receive(theirs) == ({"x": 1}, None)
    assert _open_fds() == before


def test_the_end_of_the_line(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    ours.close()
    assert receive(theirs) == (None, None)


def test_an_empty_datagram_with_a_descriptor_is_the_end_and_the_descriptor_closed(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    r, w = os.pipe()
    try:
        before = _open_fds()
        _send_fds(ours, b"", [r])
        assert receive(theirs) == (None, None)
        assert _open_fds() == before
        _send_fds(ours, b"", [r, w])  # each closed once
        assert receive(theirs) == (None, None)
        assert _open_fds() == before
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("data", [b"not json", b"[1, 2]", b'"text"', b"3", b"null", b"\xff\xfe"])
def test_anything_but_a_json_object_reads_as_nothing_asked(line: tuple[socket.socket, socket.socket], data: bytes) -> None:
    ours, theirs = line
    ours.sendmsg([data])
    assert receive(theirs) == ({}, None)


def test_a_message_past_the_limit_reads_as_nothing_asked(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * MAX_MESSAGE)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * MAX_MESSAGE)
    fits = {"env": "x" * (MAX_MESSAGE - 20)}
    assert len(json.dumps(fits)) <= MAX_MESSAGE
    send(ours, fits)
    assert receive(theirs) == (fits, None)
    send(ours, {"env": "x" * MAX_MESSAGE})
    assert receive(theirs) == ({}, None)


def test_next_message_on_a_non_blocking_line(line: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = line
    theirs.setblocking(False)
    assert next_message(theirs) == {}  # readable said, nothing there after all
    send(ours, {"a": 1})
    assert next_message(theirs) == {"a": 1}
    r, w = os.pipe()
    try:
        before = _open_fds()
        send(ours, {"b": 2}, r)
        assert next_message(theirs) == {"b": 2}
        assert _open_fds() == before  # the lines that use it take no descriptor: closed
    finally:
        os.close(r)
        os.close(w)
    ours.close()
    assert next_message(theirs) is None


def test_next_message_on_a_broken_line_is_the_end() -> None:
    ours, theirs = pair()
    ours.close()
    theirs.close()
    assert next_message(theirs) is None


def test_the_peer_is_the_parent_only_in_a_child() -> None:
    ours, theirs = pair()
    try:
        assert not peer_is_parent(theirs)  # the other end is this process's own
        pid = os.fork()
        if pid == 0:
            os._exit(0 if peer_is_parent(theirs) else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        ours.close()
        theirs.close()
    assert not peer_is_parent(theirs)  # closed: no word from the kernel, no trust
