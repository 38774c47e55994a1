"""Campaign costs, as ratios against floors measured in the same run.

The fixture: a Brand X campaign of a party of five (`campaign add` sheets, three with
weapons) and 50 ended fights of 5,000 events each. Each fight is started from the
campaign (`fights.start`: the party as it stands) and played in memory through a Session
the way a table plays it (about 40% declarations, with their dice and the chance shown,
a secret roll one time in twenty; time moving on; damage taken; the GM's potions and
notes; waves of foes coming in and the beaten taken off), written whole (the bytes
EncounterFile.rewrite writes) and ended with `fights.end`, so every `end` event in the
campaign file carries the real per-character figures of both views, their rolls against the
odds included (counts by chance).
After each fight the party rests (`campaign rest hours=8 full=true`: a night's Healing
Rolls, recorded with their chances, then everyone back to the sheet), so each fight
starts from the same party: five fights are played and the other 45 repeat their logs
(the file of each is the fight started from the campaign, with its own name, campaign
and dice key, and that log). `fights.end` runs for every one of the 50; the figures it
keeps (`fights.stats_of`: one replay of the fight, both views; a few seconds a fight here)
are computed once per distinct log and reused for its repeats, checked equal to a
fresh computation once. A build of 50 distinct fights would take half an hour on this
machine and measure the same file. The campaign file's size and event count are printed.
The build takes minutes (about 3 on a loaded two-core machine): `--fixture DIR` keeps
it, and a later run given the same DIR measures it again (a change's before and after).

1. `campaign show` costs at most 1.5x reading the campaign file alone ("it keeps what it
   needs; it does not replay the fights"). Measured three ways, interleaved:
   - in-process: `reading.to_text(CampaignFile(path).load())` (read, check, fold, peek at
     each fight file's tail, the text) against `CampaignFile(path).load()` (reading the
     campaign file as the tracker reads it: every event and sheet checked, the party
     folded). THE BUDGET APPLIES HERE: the promise is that showing a campaign costs
     little more than reading its own file, whatever its fights hold.
   - in-process against `codec.parse` of the same text (the TOML alone): printed, with no
     budget, to show what the tracker's checks of every event and sheet add to the parse.
   - as processes: `python -m tracker --saves DIR campaign show NAME` against
     `python -c` that reads the file and parses it with rtoml. Printed for honesty about
     what a person waits: the difference is mostly the tracker's own start-up (its
     command line, the engine and the game's modules), the same for every command and
     the subject of benchmarks/startup.py, not the campaign's reading.
2. Starting the next fight costs at most 1.5x starting a fight of the same game by hand:
   - as processes: `tracker new NEXT --campaign NAME` (party of five) against `tracker
     new NEXT --ruleset brandx`. THE BUDGET APPLIES HERE: both pay the same start-up, so
     the ratio is what the campaign adds to a command a GM types.
   - in-process: `fights.start` against `EncounterFile.create` plus the same five
     combatants added in one change (the same two fsynced writes: a new file, an append).
   Between runs the campaign file is put back as it was and NEXT deleted (not timed).

Each figure: interleaved rounds (floor, ours, floor, ours, ...), one unmeasured warm-up
each; medians of N (9 processes and 21 in-process rounds; --quick: 5 and 7) with the
spread (min-max) and the ratio of medians beside the per-round ratios' range. Two clocks:
wall time (time.perf_counter) and CPU time (a process's user + system from wait4, an
in-process run's finest CPU clock, benchmarks/clocks.py, its step printed), both well
under a millisecond in resolution; the
verdict uses CPU time when the load average is above the CPU count (a shared machine),
else wall time. Children run with an empty config and data folder and with bytecode
caches written (as startup.py says why).

Run: python benchmarks/campaign.py [--quick] [--fixture DIR]
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tomli_w

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import cpu as cpu_s, describe  # noqa: E402

from rulesets.dice import RandomDice  # noqa: E402
from tracker.play import fights, party  # noqa: E402
from tracker.reading import campaign as reading  # noqa: E402
from tracker.play.rest import record  # noqa: E402
from tracker.persistence.campaign import Campaign  # noqa: E402
from tracker.persistence.campaign_file import SUFFIX, CampaignFile  # noqa: E402
from tracker.engine import Encounter, Event  # noqa: E402
from tracker.engine.errors import RuleRefusal  # noqa: E402
from tracker.persistence import codec  # noqa: E402
from tracker.persistence.event_tables import events_text  # noqa: E402
from tracker.persistence.header import HEADER, header_document  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402
from tracker.play.session import Session  # noqa: E402

PY = sys.executable
NAME = "saga"
GAME = "brandx"
FIGHTS, EVENTS = 50, 5_000
PLAYED = 5  # distinct fights played; the others repeat one of them (see build)
BUDGET = 1.5
# The party (campaign add words): name, sheet, weapon damage (0: fists).
PARTY = (
    ("Seraph", "agility=22 strength=11 constitution=12 vp=43 dp=15 ep=74", 0),
    ("Ilsa Marren", "agility=16 strength=15 constitution=14 vp=48 dp=17 ep=80", 4),
    ("Brannoc", "agility=13 strength=19 constitution=16 vp=55 dp=19 ep=90", 6),
    ("Mira Vey", "agility=19 strength=10 constitution=11 vp=38 dp=14 ep=66", 2),
    ("Tovin", "agility=15 strength=14 constitution=13 vp=46 dp=16 ep=72", 0),
)
FOES = (
    ("Ghoul", "agility=14 strength=13 vp=40 dp=14 ep=60", 0),
    ("Cutthroat", "agility=16 strength=12 vp=36 dp=13 ep=58", 3),
    ("Ogre", "agility=10 strength=20 vp=70 dp=22 ep=95", 5),
)

# Throwback Rolls off (Brand X's own setting) for the fixture's fights: a Pushback a fight
# leaves on a character (a resource with no maximum) makes the campaign refuse the next
# fight and the rest ("add NAME: current: pushback is not one of its resources"), a fault
# of tracker.play.fights.entry_event that this benchmark does not measure.
NO_PUSHBACK = {"throwback": False}

# The floor of figure 1 as a process: read the file, parse it with the tracker's reader.
READ_FLOOR = "import sys, rtoml; rtoml.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))"

Sample = tuple[float, float]  # (wall seconds, CPU seconds)


# ------------------------------------------------------------------ the fixture
class Nowhere:
    """A Session's store that writes nothing: the fight is written whole at its end."""

    @contextmanager
    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> Iterator[Encounter]:
        yield encounter


def words(sheet: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in sheet.split())


def play(session: Session, rng: random.Random, events: int, fight: int) -> None:
    """A GM's table until the log holds `events` events: the idle declare on someone of
    the other side (punch, or strike with their weapon; a secret roll one time in
    twenty), time moves on, a fallen hero gets a potion, a beaten wave of foes is taken
    off and the next comes in, a note now and then; at the end the fallen get up."""
    enc = session.encounter
    weapons = {name: damage for name, _, damage in PARTY}
    wave = 0

    def new_wave() -> None:
        nonlocal wave
        wave += 1
        for letter, (kind, sheet, damage) in zip("abcd", rng.sample(FOES, k=rng.randint(2, 3)) + [rng.choice(FOES)]):
            name = f"{kind} {fight}.{wave}{letter}"
            weapons[name] = damage
            session.execute(f'add "{name}" {sheet} side=foes')

    new_wave()
    while len(session.encounter.events) < events:
        enc = session.encounter
        here = enc.combatants
        foes = [c for c in here.values() if c.side == "foes"]
        if all(c.down for c in foes):
            for c in foes:
                session.execute(f'remove "{c.name}"')
            new_wave()
            continue
        fallen = [c for c in here.values() if c.side == "party" and c.down]
        roll = rng.random()
        if fallen and roll < 0.15:
            c = rng.choice(fallen)
            key = "dp" if c.resources["dp"] <= 0 else "vp"
            session.execute(f'heal "{c.name}" {c.maxima[key] - c.resources[key]} resource={key}')
            continue
        idle = [c for c in here.values() if c.active is None and not c.down]
        if idle and roll < 0.45:
            actor = rng.choice(idle)
            targets = [c for c in here.values() if c.side != actor.side and not c.down]
            if targets:
                target = rng.choice(targets)
                damage = weapons.get(actor.name, 0)
                verb = f"strike damage={damage}" if damage else "punch"
                secret = " secret=true" if rng.random() < 0.05 else ""
                try:
                    session.execute(f'declare "{actor.name}" {verb} target="{target.name}"{secret}')
                    continue
                except RuleRefusal:  # airborne from a throwback, out of EP: the game says no, time moves on
                    pass
        if roll > 0.97:
            session.execute(f"note round {enc.now}: {rng.choice(('the bridge creaks', 'torches gutter', 'a horn sounds'))}")
            continue
        session.execute("next" if enc.next_happening() is not None else "step 5")
    # The fight is over: the fallen are brought round before the party rests (Brand X's
    # Healing Roll refuses a character who is down: "is down and cannot act").
    for c in list(session.encounter.combatants.values()):
        if c.side == "party" and c.down:
            for key in ("vp", "dp"):
                if c.resources[key] <= 0:
                    session.execute(f'heal "{c.name}" {c.maxima[key] - c.resources[key]} resource={key}')


def build(folder: Path) -> Path:
    """The campaign: five join, then each fight is started from it, played (or, from the
    sixth on, given the log of the earlier fight it repeats), written, ended, and
    followed by a night's rest."""
    cpath = folder / f"{NAME}{SUFFIX}"
    CampaignFile.create(cpath, "The Long Saga", GAME)
    for name, sheet, _ in PARTY:
        def joins(camp: Campaign, name: str = name, sheet: str = sheet) -> list[Event]:
            return [party.join(camp, folder, name, {**words(sheet), "side": "party"})]

        CampaignFile(cpath).change(joins, "gm")
    rng = random.Random(50)
    logs: dict[int, tuple[list[Event], str]] = {}  # a played fight: its events and their text
    tallies: dict[int, dict[str, Any]] = {}
    playing = [0]
    real_stats_of = fights.stats_of

    def stats_once(enc: Encounter) -> dict[str, Any]:
        if playing[0] not in tallies:
            tallies[playing[0]] = real_stats_of(enc)
        return copy.deepcopy(tallies[playing[0]])

    fights.stats_of = stats_once
    try:
        for n in range(1, FIGHTS + 1):
            fight_file = folder / f"fight-{n:02d}.toml"
            _, enc = fights.start(cpath, fight_file, f"Fight {n}", "gm", NO_PUSHBACK)
            playing[0] = (n - 1) % PLAYED
            if playing[0] not in logs:
                ruleset = fights.ruleset_of(CampaignFile(cpath).load(), folder)
                session = Session(enc, ruleset, RandomDice(n), Nowhere(), "gm")
                play(session, rng, EVENTS, playing[0] + 1)
                logs[playing[0]] = (session.encounter.events, events_text(session.encounter.events))
                enc = session.encounter
            events, text = logs[playing[0]]
            entries = [e.to_dict() for e in enc.events]
            assert entries == [e.to_dict() for e in events[:len(entries)]], "the party did not come in as it did the first time"
            # The file EncounterFile.rewrite writes for these events (checked once below),
            # without encoding the same 5,000 events again for every repeat.
            head = HEADER + tomli_w.dumps(header_document(enc))
            fight_file.write_bytes(f"{head}\n{text}# revision {len(events)}\n".encode("utf-8"))
            if n == PLAYED + 1:
                loaded = EncounterFile(fight_file).load()
                assert codec.dumps(loaded.encounter, len(events)).encode("utf-8") == fight_file.read_bytes()
                assert real_stats_of(loaded.encounter) == tallies[playing[0]], "a repeated fight's figures differ"
            fights.end(fight_file, "gm")
            # A night's Healing Rolls, then the temple's healers: everyone back to the sheet.
            record(cpath, 8.0, RandomDice(1000 + n), {}, everyone=True, note=f"after fight {n}", by="gm")
            print(f"\r  fixture: fight {n} of {FIGHTS} ended", end="", flush=True)
    finally:
        fights.stats_of = real_stats_of
    print()
    return cpath


def check_fixture(cpath: Path) -> None:
    """The campaign is what the figures claim: 50 ended fights of 5,000 events, each
    `end` with every character's figures, their rolls against the odds included."""
    camp = CampaignFile(cpath).load()
    assert len(camp.fights) == FIGHTS and all(not f.open for f in camp.fights)
    chances = declared = 0
    for fight in camp.fights:
        assert set(fight.stats) == {pc.id for pc in camp.pcs.values()}, fight.file
        for views in fight.stats.values():
            chances += sum(rolls for rolls, _ in views["gm"]["luck"].values())
            declared += views["gm"]["declared"]
        status = reading.fight_status(cpath.parent, fight)
        assert status == reading.ENDED, f"{fight.file}: {status}"
    sizes = [os.path.getsize(cpath.parent / f.file) for f in camp.fights]
    events = len(EncounterFile(cpath.parent / camp.fights[0].file).load().encounter.events)
    assert events >= EVENTS, events
    print(f"campaign file: {cpath.stat().st_size:,} bytes, {len(camp.events):,} events "
          f"({len(camp.fights)} fights, {sum(1 for e in camp.events if e.kind == 'rest')} rests); "
          f"its `end` events carry {declared:,} declarations and {chances:,} rolls against a chance, kept as counts by chance")
    print(f"fight files: {len(sizes)} of {events:,}+ events, {min(sizes) / 1e6:.1f}-{max(sizes) / 1e6:.1f} MB each, {sum(sizes) / 1e6:.0f} MB in all")


# ------------------------------------------------------------------ measuring
def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    for key in ("TRACKER_CONFIG", "TRACKER_SAVES", "TRACKER_READ_ONLY", "PYTHONDONTWRITEBYTECODE"):
        env.pop(key, None)
    return env


def process(argv: list[str], env: dict[str, str]) -> Sample:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{argv} failed: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def in_process(run: Callable[[], Any]) -> Sample:
    wall, cpu = time.perf_counter(), cpu_s()
    run()
    return time.perf_counter() - wall, cpu_s() - cpu


def interleaved(rounds: int, floor: Callable[[], Sample], ours: Callable[[], Sample], after: Callable[[], None] = lambda: None) -> tuple[list[Sample], list[Sample]]:
    floors: list[Sample] = []
    mine: list[Sample] = []
    for warm in (floor, ours):  # the file cache, the .pyc files and the caches, once, unmeasured
        warm()
        after()
    for _ in range(rounds):
        floors.append(floor())
        after()
        mine.append(ours())
        after()
    return floors, mine


class Row:
    def __init__(self, what: str, floor_name: str, floors: list[Sample], mine: list[Sample], budget: float | None, note: str = "") -> None:
        self.what, self.floor_name, self.floors, self.mine, self.budget, self.note = what, floor_name, floors, mine, budget, note

    def ratio(self, clock: int) -> float:
        return statistics.median(s[clock] for s in self.mine) / statistics.median(s[clock] for s in self.floors)

    def cells(self, clock: int) -> str:
        f = [s[clock] * 1000 for s in self.floors]
        o = [s[clock] * 1000 for s in self.mine]
        paired = [a / b for a, b in zip(o, f)]
        return (f"{statistics.median(f):.2f} ms ({min(f):.2f}-{max(f):.2f}) | {statistics.median(o):.2f} ms ({min(o):.2f}-{max(o):.2f}) | "
                f"{self.ratio(clock):.2f}x ({min(paired):.2f}-{max(paired):.2f})")


def table(title: str, rows: list[Row], rounds: dict[str, int], verdict_clock: int) -> bool:
    print(f"\n{title}")
    print("| what | clock | floor: median (min-max) | ours: median (min-max) | ratio of medians (per-round range) | budget |")
    print("|---|---|---:|---:|---:|---|")
    ok = True
    for row in rows:
        for clock, label in ((0, "wall"), (1, "CPU")):
            if row.budget is None:
                verdict = f"(no budget: {row.note})" if clock == verdict_clock else ""
            elif clock == verdict_clock:
                within = row.ratio(clock) <= row.budget
                ok &= within
                verdict = f"{row.budget}x {'ok' if within else 'OVER'}"
            else:
                verdict = f"({row.budget}x on {('wall', 'CPU')[verdict_clock]} time)"
            print(f"| {row.what} vs {row.floor_name}, {rounds[row.what]} rounds | {label} | {row.cells(clock)} | {verdict} |")
    return ok


def show_figure(cpath: Path, env: dict[str, str], rounds: int, runs: int) -> list[Row]:
    folder, text = cpath.parent, cpath.read_bytes().decode("utf-8")
    shown = subprocess.run([PY, "-m", "tracker", "--saves", str(folder), "campaign", "show", NAME], env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    listed = [line for line in shown.splitlines() if line.startswith("  ") and "(fight-" in line]
    assert len(listed) == FIGHTS and not any(line.endswith("]") for line in listed), shown[:2000]  # every fight listed, none flagged
    read_rows = interleaved(rounds, lambda: in_process(lambda: CampaignFile(cpath).load()),
                            lambda: in_process(lambda: reading.to_text(CampaignFile(cpath).load(), folder)))
    in_rows = interleaved(rounds, lambda: in_process(lambda: codec.parse(cpath.read_bytes().decode("utf-8"), str(cpath))),
                          lambda: in_process(lambda: reading.to_text(CampaignFile(cpath).load(), folder)))
    assert len(text) == cpath.stat().st_size
    out_rows = interleaved(runs, lambda: process([PY, "-c", READ_FLOOR, str(cpath)], env),
                           lambda: process([PY, "-m", "tracker", "--saves", str(folder), "campaign", "show", NAME], env))
    return [Row("show, in-process", "reading the campaign file (CampaignFile.load)", *read_rows, BUDGET),
            Row("show, in-process ", "its TOML alone (codec.parse)", *in_rows, None, "the tracker's checks of every event and sheet on top of the parse"),
            Row("show, process", "python -c rtoml.loads(file)", *out_rows, None, "the floor has no tracker start-up")]


def start_figure(cpath: Path, env: dict[str, str], rounds: int, runs: int) -> list[Row]:
    folder = cpath.parent
    kept = cpath.read_bytes()
    nxt = folder / "next.toml"
    camp = CampaignFile(cpath).load()
    adds = [fights.entry_event(pc) for pc in camp.party()]
    for event in adds:
        del event.args["pc"]  # the same combatants, in a fight of its own

    def put_back() -> None:
        if cpath.read_bytes() != kept:
            cpath.write_bytes(kept)
        nxt.unlink(missing_ok=True)

    def by_hand() -> None:
        store, loaded = EncounterFile.create(nxt, "next", GAME)
        held = [loaded.encounter]
        with store.transaction(held[0], lambda e: held.__setitem__(0, e)) as enc:
            for event in adds:
                enc.apply(Event(event.kind, dict(event.args), by="gm"))

    def from_campaign() -> None:
        _, enc = fights.start(cpath, nxt, "next", "gm")
        assert len(enc.combatants) == len(PARTY)

    by_hand()  # the floor's fight holds the same five combatants as the campaign's
    assert [c.name for c in EncounterFile(nxt).load().encounter.combatants.values()] == [pc.name for pc in camp.party()]
    put_back()
    in_rows = interleaved(rounds, lambda: in_process(by_hand), lambda: in_process(from_campaign), put_back)
    tracker = [PY, "-m", "tracker", "--saves", str(folder), "new", "next"]
    out_rows = interleaved(runs, lambda: process([*tracker, "--ruleset", GAME], env), lambda: process([*tracker, "--campaign", NAME], env), put_back)
    return [Row("new --campaign, process", "new --ruleset brandx", *out_rows, BUDGET),
            Row("fights.start, in-process", "create + 5 adds", *in_rows, None, "the campaign's own reading, shown")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (5 processes, 7 in-process), the same fixture")
    parser.add_argument("--fixture", metavar="DIR", type=Path, help="build the fixture in DIR and keep it; a later run given the same DIR measures it again (before and after a change)")
    args = parser.parse_args()
    runs, rounds = (5, 7) if args.quick else (9, 21)
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        folder = args.fixture.resolve() if args.fixture else home / "saves"
        env = env_for(home)
        subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "tracker"), str(ROOT / "rulesets")], env=env, check=True)
        cpath = folder / f"{NAME}{SUFFIX}"
        if cpath.exists():
            print(f"fixture: {folder} (built before)")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            build(folder)
            print(f"fixture built in {time.perf_counter() - start:.0f} s")
        check_fixture(cpath)
        busy = os.getloadavg()[0] > (os.cpu_count() or 1)
        clock = 1 if busy else 0
        show_rows = show_figure(cpath, env, rounds, runs)
        start_rows = start_figure(cpath, env, rounds, runs)
        counts = {"show, in-process": rounds, "show, in-process ": rounds, "show, process": runs, "new --campaign, process": runs, "fights.start, in-process": rounds}
        ok = table(f"1. `campaign show` of {FIGHTS} ended fights of {EVENTS:,} events: budget {BUDGET}x reading the campaign file alone, in-process "
                   "(the process pair differs mostly by the tracker's start-up, not the reading)", show_rows, counts, clock)
        ok = table(f"2. starting the next fight, party of {len(PARTY)}: budget {BUDGET}x `tracker new NEXT --ruleset {GAME}`, as processes "
                   "(both pay the same start-up)", start_rows, counts, clock) and ok
    print(f"\n{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}; verdict on {'CPU time (the machine is loaded)' if clock else 'wall time'}")
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
