"""What a 100,000-event fight takes on disk, per ruleset: the figure behind MAX_SAVE_BYTES.

For each worked example in saves/ (one per ruleset), play a table's mix of changes on
its roster through a Session (45% declarations of the game's usual attack, 10% heals,
5% notes, the rest `next`; refused ones skipped), encode each change exactly as it is
appended (`codec.chunk`: its [[events]] tables, the log lines it made, the commit mark),
and report the bytes per event and what 100,000 events take. Then write a freeform
fight of that mix up to the limit, and open it in a fresh process: the time (wall and
CPU) and the peak memory a follower pays for the largest save the tracker accepts, beside
what `tomllib.loads` needs for the same file (target: the loader peaks at most 2x) and
what the compiled reader the loader uses, rtoml, needs. Peak memory is the rise of the
process's resident high-water mark (getrusage ru_maxrss) over its resident size just
before reading (rtoml's own memory is not Python's, so tracemalloc would miss it); each
reader in a process of its own, the readers interleaved, median of 3 rounds (1 with
--quick).

Run: python benchmarks/save_size.py [--quick] (or --open SAVE: only the opening table, for SAVE)
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tracker.engine import Encounter, TrackerError  # noqa: E402
from tracker.persistence import codec  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402
from tracker.play.session import Session  # noqa: E402
from rulesets.dice import RandomDice  # noqa: E402

ATTACK = {"brandx": "punch", "ore": "strike", "d6": "shoot", "ogs": "attack", "usor": "strike", "freeform": "charge"}
EVENTS = 100_000


class Meter:
    """A store that writes nothing and keeps what each change would append."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    @contextmanager
    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> Iterator[Encounter]:
        before = len(encounter.events)
        yield encounter
        if len(encounter.events) > before:
            self.chunks.append(codec.chunk(encounter, before, len(self.chunks) + 1))


def play(example: Path, changes: int, seed: int = 1) -> tuple[str, Meter, int]:
    loaded = EncounterFile(example).load()
    ruleset_id = loaded.encounter.setup.ruleset
    meter = Meter()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(seed), meter)
    names = list(loaded.encounter.combatants)
    rng = random.Random(seed)
    start = len(session.encounter.events)
    for i in range(changes):
        idle = [n for n in names if session.encounter.combatants[n].active is None]
        roll = rng.random()
        if idle and roll < 0.45:
            actor = rng.choice(idle)
            target = rng.choice([n for n in names if n != actor])
            line = f'declare "{actor}" {ATTACK[ruleset_id]} target="{target}"'
        elif roll < 0.55:
            line = f'heal "{rng.choice(names)}" 5'
        elif roll < 0.6:
            line = f"note round {i} goes on"
        else:
            line = "next"
        try:
            session.execute(line)
        except TrackerError:
            pass
    return ruleset_id, meter, len(session.encounter.events) - start


OPEN = """
import resource, sys
sys.path.insert(0, sys.argv[2])
from pathlib import Path
import rtoml, tomllib
from benchmarks.clocks import Stopwatch
from tracker.persistence.store import EncounterFile

def resident():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize()

path, reader = Path(sys.argv[1]), sys.argv[3]
before = resident()
with Stopwatch() as watch:
    if reader == "load":
        kept = EncounterFile(path).load()
        events = len(kept.encounter.events)
    else:
        kept = (tomllib if reader == "tomllib" else rtoml).loads(path.read_text(encoding="utf-8"))
        events = len(kept["events"])
print(events, watch.wall, watch.cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
"""
READERS = ("tomllib", "rtoml", "load")


def open_in_a_process(path: Path, reader: str) -> tuple[int, float, float, int]:
    """(events, wall s, CPU s, peak bytes) of one reading of `path` in a fresh process."""
    out = subprocess.run([sys.executable, "-c", OPEN, str(path), str(ROOT), reader], capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), float(out[1]), float(out[2]), int(out[3])


def open_table(path: Path, rounds: int) -> int:
    """Print the readers' table for `path`; 1 if a reader failed."""
    runs: dict[str, list[tuple[int, float, float, int]]] = {reader: [] for reader in READERS}
    try:
        for _ in range(rounds):
            for reader in READERS:
                runs[reader].append(open_in_a_process(path, reader))
    except subprocess.CalledProcessError as exc:
        print(f"\nthe save at the limit did not open: {exc.stderr.strip().splitlines()[-1]}")
        return 1
    events = runs["load"][0][0]
    print(f"\nopening the largest freeform save accepted ({path.stat().st_size:,} bytes, {events:,} events), each in a fresh process, median of {rounds}:\n")
    print("| reader | wall | CPU | peak memory | peak against tomllib (target: <= 2x) |")
    print("|---|---:|---:|---:|---:|")
    floor = [r[3] for r in runs["tomllib"]]
    for reader, what in (("tomllib", "`tomllib.loads`"), ("rtoml", "`rtoml.loads` (the reader the loader uses)"), ("load", "the tracker's loader (parse, check, replay)")):
        rows = runs[reader]
        ratios = [r[3] / f for r, f in zip(rows, floor)]
        print(f"| {what} | {statistics.median(r[1] for r in rows):.2f} s | {statistics.median(r[2] for r in rows):.2f} s | {statistics.median(r[3] for r in rows) / 2**20:,.0f} MB | {statistics.median(ratios):.2f}x |")
    return 0


def main() -> int:
    if "--open" in sys.argv:  # only the opening table, for a save already made
        return open_table(Path(sys.argv[sys.argv.index("--open") + 1]), 3)
    quick = "--quick" in sys.argv
    changes = 800 if quick else 3000
    print(f"limit: MAX_SAVE_BYTES = {codec.MAX_SAVE_BYTES:,} bytes ({codec.MAX_SAVE_BYTES / 2**20:.0f} MB)\n")
    print("| ruleset | events played | bytes per event (appended) | 100,000 events | events that fit the limit |")
    print("|---|---:|---:|---:|---:|")
    freeform = None
    for example in sorted((ROOT / "saves").glob("*.toml")):
        ruleset_id, meter, events = play(example, changes)
        size = sum(len(c) for c in meter.chunks)
        per = size / events
        print(f"| {ruleset_id} | {events:,} | {per:,.0f} | {per * EVENTS / 1e6:,.1f} MB | {codec.MAX_SAVE_BYTES / per:,.0f} |")
        if ruleset_id == "freeform":
            freeform = example
    assert freeform is not None
    # The largest save accepted: the freeform mix appended until the next change would not fit.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.toml"
        head = codec.dumps(EncounterFile(freeform).load().encounter, 0).encode()
        _, meter, _ = play(freeform, 40_000 if quick else 200_000)
        total, kept = len(head), 0
        for chunk in meter.chunks:  # each ends with its commit mark, revisions 1, 2, ...
            if total + len(chunk) > codec.MAX_SAVE_BYTES:
                break
            total += len(chunk)
            kept += 1
        path.write_bytes(head + b"".join(meter.chunks[:kept]))
        if open_table(path, 1 if quick else 3):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
