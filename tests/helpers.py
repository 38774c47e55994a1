"""Small builders shared by the engine tests."""

from __future__ import annotations

from typing import Any

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

    from tracker.cli import main

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
    from tracker.session import Session

    checked = ruleset.validate_settings(settings, "settings")
    setup = Setup("test", ruleset.id, ruleset.time, ruleset.down_when, checked, [])
    session = Session(Encounter(setup), ruleset, RandomDice(seed))
    for line in lines:
        session.execute(line)
    return session
