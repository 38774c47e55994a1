"""Small builders and waits shared by the tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from collections.abc import Callable
from typing import Any

from rulesets.dice import DiceGroup, TypedFaces
from tracker.engine import Encounter, Event, Resolution, Setup, TimeMapping
from tracker.engine.effects import Effect


def encounter(*names: str, hp: int = 20, simultaneous: bool = True, payment_every: int = 0) -> Encounter:
    time = TimeMapping(50, "test", payment_every=payment_every, simultaneous=simultaneous)
    enc = Encounter(Setup("test", "freeform", time, ("hp",)))
    for name in names:
        enc.apply(Event("add", {"name": name, "resources": {"hp": hp, "ep": 30}}))
    return enc


def declare(
    enc: Encounter,
    actor: str,
    template: str,
    pt: int,
    mode: str = "active",
    *,
    effects: tuple[Effect, ...] = (),
    targets: tuple[str, ...] = (),
    companions: tuple[str, ...] = (),
    maintainable: bool = False,
    order: tuple[int, ...] = (),
) -> Event:
    args: dict[str, Any] = {
        "actor": actor,
        "template": template,
        "mode": mode,
        "targets": list(targets),
        "companions": list(companions),
        "maintainable": maintainable,
        "resolution": Resolution(pt=pt, effects=effects, order=order),
    }
    return enc.apply(Event("declare", args))


def advance(enc: Encounter, to: int) -> None:
    enc.apply(Event("advance", {"to": to}))


def next_(enc: Encounter) -> int:
    to = enc.next_happening()
    assert to is not None
    advance(enc, to)
    return to


def cli(*argv: str, stdin: str = "") -> tuple[int, str]:
    """Run the `tracker` command in-process: (exit code, standard output)."""
    import io

    from tracker.command.cli import main

    out = io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


def cli_json(*argv: str) -> Any:
    """Run `tracker ... --json`, require exit 0, and return the parsed output."""
    import json

    code, text = cli(*argv, "--json")
    assert code == 0, text
    return json.loads(text)


def session_for(ruleset: Any, *lines: str, seed: int = 0, **settings: Any) -> Any:
    """An in-memory Session over a fresh encounter of `ruleset`, after running `lines`."""
    from rulesets.dice import RandomDice
    from tracker.play.session import Session

    checked = ruleset.validate_settings(settings, "settings")
    setup = Setup("test", ruleset.id, ruleset.time, ruleset.down_when, checked, [])
    session = Session(Encounter(setup), ruleset, RandomDice(seed))
    for line in lines:
        session.execute(line)
    return session



def brandx_session(*lines: str, **settings: Any) -> Any:
    """`session_for` of Brand X (imported here, as a test of it runs)."""
    from rulesets.brandx import BrandXRuleset

    return session_for(BrandXRuleset(), *lines, **settings)


def last_resolution(session: Any) -> Any:
    """The resolution of the last action in `session`'s encounter."""
    return session.encounter.actions[-1].resolution


class ListeningSource:
    """A dice source that hands out fixed faces and keeps each group announced to it,
    and the sides asked of it."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.groups: list[DiceGroup] = []
        self.asked: list[int] = []

    def begin(self, group: DiceGroup) -> None:
        self.groups.append(group)

    def roll(self, sides: int) -> int:
        self.asked.append(sides)
        return self.faces.pop(0)


class ListeningFaces(TypedFaces):
    """Typed faces that also keep each dice group announced, as its text (as a form
    shows it)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(faces)
        self.groups: list[str] = []

    def begin(self, group: DiceGroup) -> None:
        self.groups.append(group.text())

DEADLINE = 30.0
"""Seconds any one wait may take before the test fails naming what never happened (one
generous deadline for the whole suite: it must pass on a busy two-core machine)."""


async def until(condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
    """Wait until `condition` holds, polling (no fixed sleeps); fail naming what never
    happened."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await asyncio.sleep(0.05)


def refresh(session: Any) -> bool:
    """Fold what others saved into `session` from its file store; True if anything
    changed (the store returns the encounter to hold, the session holds it)."""
    found = session.store.refresh(session.encounter)
    if found is None:
        return False
    session.encounter = found
    return True


def pty_session(argv: list[str], env: dict[str, str], steps: list[tuple[bytes, bytes]], seconds: float = 30.0, to_the_end: bool = False) -> bytes:
    """Run `argv` on an 80x24 pseudo-terminal; for each (wait for, then write) step, wait
    until the screen has drawn `wait for` since the last write, then write (one write:
    the bytes arrive in one read). With `to_the_end`, read on until the program exits.
    Everything the program drew is returned."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios
    import time
    from contextlib import suppress

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out = bytearray()
    deadline = time.monotonic() + seconds

    def read() -> bool:
        """False once the program has closed the terminal."""
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            out.extend(chunk)
            return bool(chunk)
        return True

    try:
        since = 0
        for wanted, then in steps:
            while wanted not in out[since:]:
                assert time.monotonic() < deadline, f"{wanted!r} never drawn: {bytes(out[-1500:])!r}"
                if not read():
                    break
            since = len(out)
            os.write(fd, then)
        while to_the_end and time.monotonic() < deadline and read():
            pass  # the program's last frames, until it closes the terminal
    finally:
        with suppress(ProcessLookupError):  # it may have quit already
            os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    return bytes(out)


async def close_table(server: Any, screens: list[Any]) -> None:
    """Hang up every client (tracker.serve.probe.Screen), then stop the server
    (probe.ServerProcess), which must exit cleanly."""
    for screen in screens:
        await screen.close()
    assert server.stop() == 0


def viewer_given_up(server_lines: list[str]) -> bool:
    """A viewers' process gave a terminal up, by either of its writer's rules
    (tracker.serve.viewer_output): `STALLED` seconds taking nothing, or `BACKLOG` bytes
    behind. Which comes first depends on how fast the host draws: a quiet host fills
    the backlog before the stall runs out, a busy one the other way round."""
    return any("took no output" in line or "bytes behind: it is given up" in line for line in server_lines)


def check_declared(path: Any, before: int, made: Any, actor: str, action: str, shown: str, faces: list[int]) -> None:
    """A declaration made through the form (its flow or its screen): the action is the
    one asked for, its success as the result said, and the file holds exactly one more
    event that reloads as the same resolution."""
    from tracker.persistence.store import EncounterFile

    assert made.actor == actor and made.template == action
    assert made.resolution.success is None or ("success: yes" in shown) == made.resolution.success
    saved = EncounterFile(path).load().encounter
    assert len(saved.events) == before + 1
    assert saved.events[-1].kind == "declare"
    if faces:
        assert list(saved.actions[-1].resolution.dice) or saved.actions[-1].resolution.summary
        assert saved.actions[-1].resolution.to_dict() == made.resolution.to_dict()


SHIPPED = Path(__file__).resolve().parent.parent / "saves"


def shipped_fights(playable: bool = False) -> list[Path]:
    """The worked example fights in saves/ (the campaign file beside them is not one);
    `playable`: only those that take changes (not a campaign's ended fights)."""
    fights = sorted(p for p in SHIPPED.glob("*.toml") if not p.name.endswith(".campaign.toml"))
    if playable:
        from tracker.persistence.store import EncounterFile

        fights = [p for p in fights if not EncounterFile(p).load().encounter.ended]
    return fights


def install_game(monkeypatch: Any, game: type) -> None:
    """`game` installed as a plugin is: an entry point in the rulesets' group beside what
    is really installed (rulesets.registry reads the group again). Call
    `rulesets.registry.forget()` once the test is done, so no later test finds it."""
    from importlib.metadata import EntryPoint

    from rulesets import registry

    point = EntryPoint(game.id, f"{game.__module__}:{game.__qualname__}", registry.GROUP)  # type: ignore[attr-defined]
    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points", lambda group: [*real(group), *([point] if group == registry.GROUP else [])])
    registry.forget()
