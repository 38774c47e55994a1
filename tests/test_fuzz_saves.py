"""A fuzzer over mutated shipped saves: `tracker check`, `show`, `play`, and opening in
the app never end in a traceback, and a file that does not load is never modified.

Every shipped save is mutated (in its shipped first format and migrated to the current
one): bytes flipped, cut, repeated or inserted (control characters, brackets, quotes,
numbers past 64 bits, nan, deep nesting), lines dropped or swapped, commit marks moved.
With TRACKER_DEBUG=1 the CLI lets an internal error out as an exception, so any bug
shows as a failure here rather than as a one-line "internal error".

Run more cases by hand: `python -m tests.test_fuzz_saves 2000` prints the counts.
"""

from __future__ import annotations

from tests.helpers import shipped_fights

import io
import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.command.cli import main as cli_main
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.ui import press, settle

pytestmark = pytest.mark.slow

SAVES = Path(__file__).resolve().parent.parent / "saves"
SHIPPED = shipped_fights(playable=True)

INSERTS = [
    "\x1b]52;c;UFdORUQ=\x1b\\", "\x1b[2J", "\x00", "\x07", "[/]", "[@click=app.quit]x[/]", '"', "'", "]]", "[[",
    "{", "}", "=", "\n", "99999999999999999999", "-9223372036854775809", "nan", "inf", "1e400", "-0",
    "[" * 200 + "]" * 200, "[" * 3000, "# revision 999\n", "\n[[events]]\n", "\nseq = 1\n", '\nkind = "undo"\n',
    '\nhouse_rules = "/dev/zero"\n', '\nhouse_rules = "../x.toml"\n', "\u202e", "\ud7ff", "é",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of a save's bytes."""
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(7)
        n = len(data)
        at = rng.randrange(n + 1) if n else 0
        if choice == 0 and n:  # flip a byte
            at = min(at, n - 1)
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        elif choice == 1 and n:  # cut a stretch
            data = data[:at] + data[at + rng.randint(1, 200) :]
        elif choice == 2:  # insert something hostile
            data = data[:at] + rng.choice(INSERTS).encode("utf-8", "surrogatepass") + data[at:]
        elif choice == 3:  # repeat a stretch
            data = data[:at] + data[at : at + rng.randint(1, 300)] * rng.randint(2, 4) + data[at:]
        elif choice in (4, 5):  # drop or swap lines
            lines = data.split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if choice == 4:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        else:  # change a value after an `=`
            lines = data.split(b"\n")
            i = rng.randrange(len(lines))
            key, eq, _ = lines[i].partition(b"=")
            if eq:
                lines[i] = key + b"= " + rng.choice(INSERTS + ["1", "-1", "true", '"x"', "[1, 2]", "{bad=[1,2]}"]).encode("utf-8", "surrogatepass")
            data = b"\n".join(lines)
    return data


@dataclass
class Counts:
    cases: int = 0
    loaded: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)
    data_lost: int = 0  # a file that did not load, changed on disk anyway


def _cli(*argv: str, stdin: str = "") -> int:
    return cli_main(list(argv), stdin=io.StringIO(stdin), stdout=io.StringIO())


def _sources(folder: Path) -> list[Path]:
    """Each shipped save as shipped (first format), and migrated to the current one."""
    out = []
    for path in SHIPPED:
        old = folder / f"v1-{path.name}"
        shutil.copy(path, old)
        new = folder / f"v2-{path.name}"
        shutil.copy(path, new)
        store = EncounterFile(new)
        loaded = store.load()
        Session(loaded.encounter, loaded.ruleset, RandomDice(1), store).note("migrated")
        out += [old, new]
    return out


def one_case(source: Path, seed: int, folder: Path, counts: Counts) -> tuple[Path, bool]:
    """check, show, play on one mutant; returns (path, loads) for an app test."""
    rng = random.Random(seed)
    path = folder / f"case-{seed}.toml"
    data = mutate(source.read_bytes(), rng)
    path.write_bytes(data)
    counts.cases += 1
    try:
        EncounterFile(path).load()
        loads = True
    except TrackerError:
        loads = False
    except Exception as exc:  # noqa: BLE001 - the very thing counted
        counts.failures.append(f"{source.name} seed {seed}: load: {type(exc).__name__}: {exc}")
        return path, False
    counts.loaded += loads
    counts.refused += not loads
    for argv, stdin in ((("check", str(path)), ""), (("show", str(path)), ""), (("show", str(path), "--viewer"), ""), (("play", str(path)), "note fuzz\nstep\nundo\n")):
        try:
            code = _cli(*argv, stdin=stdin)
        except BaseException as exc:  # noqa: BLE001
            counts.failures.append(f"{source.name} seed {seed}: {argv[0]}: {type(exc).__name__}: {exc}")
            continue
        if not loads and code == 0 and argv[0] in ("check", "play"):
            counts.failures.append(f"{source.name} seed {seed}: {argv[0]} succeeded on a file that does not load")
    if not loads and path.read_bytes() != data:
        counts.data_lost += 1
        counts.failures.append(f"{source.name} seed {seed}: a file that does not load was modified")
    return path, loads


async def open_in_app(path: Path, loads: bool) -> str:
    """Open the mutant as `tracker open` would, press a few keys, quit; '' or a failure."""
    from tracker.ui.app import TrackerApp
    from tracker.play.live import Live

    before = path.read_bytes()
    try:
        live = Live.open(path, False, "fuzz")
    except TrackerError:
        return "" if not loads else "Live.open refused a file that loads"
    app = TrackerApp(path.parent, path, live=live, user="fuzz")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            for key in ("down", "full_stop", "u", "question_mark", "escape", "l"):
                await press(pilot, key)
            await press(pilot, "q")
    except Exception as exc:  # noqa: BLE001
        return f"app: {type(exc).__name__}: {exc}"
    if not loads and path.read_bytes() != before:
        return "the app modified a file that does not load"
    return ""


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _sources(tmp_path_factory.mktemp("sources"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 1000), seed=st.integers(0, 2**32 - 1))
def test_mutated_saves_never_crash_the_cli_nor_get_overwritten(sources: list[Path], index: int, seed: int, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_DEBUG", "1")
    counts = Counts()
    one_case(sources[index % len(sources)], seed, tmp_path_factory.mktemp("case"), counts)
    assert not counts.failures, counts.failures


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 1000), seed=st.integers(0, 2**32 - 1))
def test_mutated_saves_open_in_the_app_without_a_traceback(sources: list[Path], index: int, seed: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    import asyncio

    counts = Counts()
    path, loads = one_case(sources[index % len(sources)], seed, tmp_path_factory.mktemp("app"), counts)
    assert not counts.failures, counts.failures
    # Hypothesis drives plain functions; the Pilot needs an event loop of its own.
    assert asyncio.run(open_in_app(path, loads)) == ""


def run(cases: int, app_every: int = 10) -> Counts:
    import asyncio

    os.environ["TRACKER_DEBUG"] = "1"
    counts = Counts()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sources = _sources(folder)
        for seed in range(cases):
            path, loads = one_case(sources[seed % len(sources)], seed, folder, counts)
            if seed % app_every == 0:
                problem = asyncio.run(open_in_app(path, loads))
                if problem:
                    counts.failures.append(f"seed {seed}: {problem}")
            path.unlink(missing_ok=True)
    return counts


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    result = run(n)
    print(f"cases {result.cases} (runs: {4 * result.cases} CLI + {len(range(0, n, 10))} app), loaded {result.loaded}, refused with a named error {result.refused}, failures {len(result.failures)}, data lost {result.data_lost}")
    for failure in result.failures[:30]:
        print("  ", failure)
