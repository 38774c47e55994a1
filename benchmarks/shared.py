"""Load on the shared table: one GM and N viewers over loopback SSH, at 20,000 events (or any).

    python benchmarks/shared.py [--viewers 100] [--changes 15] [--sizes 20000] [--spawn fork,exec]
                                [--viewers-per-process 10,1] [--deadline 900]

For each size a fresh encounter is built with the engine (freeform; 50 combatants for the
1,000-event fight, 1,000 combatants for the 20,000-event one, as benchmarks/engine.py),
`tracker serve` is started on it (a subprocess, free port, 127.0.0.1), the viewers connect
one after another (as players join a table; real SSH clients: asyncssh, each with its own
connection, pty and key) and then the GM. Measured:

- Time to first draw, per viewer: from the SSH connect call until the encounter's name is
  on that viewer's screen.
- Memory: PSS (/proc/PID/smaps_rollup, shared pages divided among their users) of every
  process running viewers' apps (one each, or shared with the server's
  `--viewers-per-process N`), and of the server; "per viewer" is those processes' PSS
  plus the server's PSS shared by everyone connected, divided by the viewers (target:
  6 MB or less).
- A GM's change on every viewer's screen: the GM opens the command line and types
  `note pingN`, and the clock starts when Enter (the GM's key) is sent. It stops when the
  slowest viewer has drawn the log line's `pingN` (targets: median under 300 ms and p95
  under 600 ms up to 100 viewers; median under 500 ms and p95 under 1 s beyond). Split
  into whose time it is: Enter -> the file written (the GM's app: apply, draw, save;
  polled every 2 ms), and the file written -> the last viewer (the server's nudge, the
  followers' read and apply, the drawing, the SSH relay).
- The floor, measured in the same run and interleaved with each change: one key's echo
  on the GM's screen (the last character of `note pingN` typed, once the GM's app is
  idle again after opening the command line and drawing the rest -> drawn there: the key
  over SSH, the app's event loop, a redraw of one field, the screen back over SSH: the
  least any visible change costs on this table as loaded). The ratio last viewer / floor
  says what reaching every viewer adds to one key's echo.
- CPU beside wall: what the change costs the machine, from each process's CPU time
  (/proc/PID/task/*/schedstat: nanoseconds, every thread; /proc/PID/stat's 10 ms ticks
  where schedstat is missing): the viewers' processes and the server per change, net of
  what the same processes spend idle over the same time (measured just before the
  changes), per viewer (target: 2 ms or less, the server's share included, less what it
  spent relaying the GM's typing); the GM's app per echoed key beside the floor (net of
  what it spends idle, printed too); this benchmark's own clients per change (they
  share the machine).

Also printed: the PSS figures again after the changes (a viewer copies what following a
change touches), and the load average at the start, once everyone is connected, and at
the end (other programs on the machine show there: timing figures from a loaded machine
are read against the floor). Figures are medians unless named otherwise.

Every wait has a timeout and the whole run a deadline; the server is stopped (SIGTERM) at
the end whatever happens. Exit 0 if every target was met and nothing was lost, else 1.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import process_cpu_s  # noqa: E402
from rulesets.freeform import FreeformRuleset  # noqa: E402
from tracker.engine import Encounter, Event, Resolution, Setup  # noqa: E402
from tracker.persistence import codec  # noqa: E402
from tracker.serve.probe import Screen, ServerProcess, make_key  # noqa: E402

NAME = "Load test"
IDLE_WINDOW = 3.0  # seconds of nothing happening, to measure what idle viewers cost
PSS_MB = 6.0  # target: PSS per viewer
CPU_PER_VIEWER = 0.002  # target: CPU seconds per viewer per change


def build(path: Path, events: int) -> None:
    """A freeform fight of about `events` events: adds, declarations, advances."""
    combatants = 50 if events <= 5_000 else 1_000
    rng = random.Random(3)
    enc = Encounter(Setup(NAME, "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    names = [f"c{i}" for i in range(combatants)]
    for name in names:
        enc.apply(Event("add", {"name": name, "resources": {"hp": 10**6}}))
    while len(enc.events) < events:
        for name in rng.sample(names, min(50, combatants)):
            if enc.combatants[name].active is None and len(enc.events) < events:
                target = rng.choice(names)
                res = Resolution(rng.randint(1, 20), True, rng.randint(0, 9), (rng.randint(1, 10), rng.randint(1, 10)), "2d10 vs 15", ())
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "targets": [target], "resolution": res}))
        to = enc.next_happening()
        if to is not None and len(enc.events) < events:
            enc.apply(Event("advance", {"to": to}))
    path.write_text(codec.dumps(enc, len(enc.events)))


def pss_kb(pid: int) -> int:
    """Proportional set size of one process in kB; 0 if it has gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process so far; 0 if it has gone (nanoseconds from
    its threads' schedstat where kept: /proc/PID/stat alone counts in 10 ms ticks)."""
    used = process_cpu_s(pid)
    return 0.0 if used != used else used  # nan: gone


async def settled(pid: int, idle_per_s: float, timeout: float) -> None:
    """Wait until process `pid` spends no more CPU than it does idle (plus 1 ms) over
    50 ms, or `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    before = cpu_s(pid)
    while loop.time() < deadline:
        await asyncio.sleep(0.05)
        now = cpu_s(pid)
        if now - before <= idle_per_s * 0.05 + 0.001:
            return
        before = now


def load_average() -> float:
    """The machine's 1-minute load average (other programs share these 2 cores)."""
    try:
        with open("/proc/loadavg") as handle:
            return float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def _stamp(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size, st.st_ino)


async def _written(path: Path, before: tuple[int, int, int], timeout: float) -> float | None:
    """When the file changed (polled every 2 ms: the GM's write); None if it did not."""
    give_up = time.perf_counter() + timeout
    while time.perf_counter() < give_up:
        if _stamp(path) != before:
            return time.perf_counter()
        await asyncio.sleep(0.002)
    return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass
class Result:
    events: int
    viewers: int
    spawn: str
    per_process: int = 1
    first_draw: list[float] = field(default_factory=list)
    viewer_pss_kb: list[int] = field(default_factory=list)  # each process running viewers' apps
    server_pss_kb: int = 0
    to_last: list[float] = field(default_factory=list)  # Enter -> the slowest viewer
    to_gm: list[float] = field(default_factory=list)  # one key -> echoed on the GM's screen (floor)
    gm_cpu_per_key: list[float] = field(default_factory=list)  # the GM's app, CPU s per echoed key, net of idle
    gm_idle_cpu_per_s: float = 0.0  # the GM's app, CPU s per s, nothing changing
    bench_cpu_per_change: float = 0.0  # this benchmark's own clients (they share the machine)
    to_file: list[float] = field(default_factory=list)  # Enter -> the file written
    file_to_last: list[float] = field(default_factory=list)  # file written -> slowest viewer
    lost: int = 0
    made: int = 0
    viewer_pss_after_kb: list[int] = field(default_factory=list)  # the same, after the changes
    server_pss_after_kb: int = 0
    viewer_cpu_per_change: list[float] = field(default_factory=list)  # CPU s per change, each viewers' process
    server_cpu_per_change: float = 0.0
    load: list[float] = field(default_factory=list)  # load average at start, after connecting, at the end
    viewer_idle_cpu_per_s: list[float] = field(default_factory=list)  # CPU s per s, each viewers' process, nothing changing
    change_cycle_s: float = 0.0  # wall time per change in the loop (typing, waits)

    @property
    def label(self) -> str:
        return f"{self.spawn}, {self.per_process} per process" if self.spawn == "fork" else self.spawn

    @property
    def pss_per_viewer_mb(self) -> float:
        return self._per_viewer(self.viewer_pss_kb, self.server_pss_kb)

    @property
    def pss_per_viewer_after_mb(self) -> float:
        return self._per_viewer(self.viewer_pss_after_kb, self.server_pss_after_kb)

    def _per_viewer(self, viewers_kb: list[int], server_kb: int) -> float:
        if not viewers_kb:
            return float("nan")
        return (sum(viewers_kb) + server_kb * self.viewers / (self.viewers + 1)) / self.viewers / 1024

    @property
    def targets(self) -> tuple[float, float]:
        """(median, p95) in seconds: 300 / 600 ms up to 100 viewers, 500 ms / 1 s beyond."""
        return (0.300, 0.600) if self.viewers <= 100 else (0.500, 1.000)

    @property
    def cpu_per_viewer(self) -> float:
        """CPU s per change per viewer: the viewers' processes and the server, net of idle."""
        if not self.viewer_cpu_per_change:
            return float("nan")
        idle = sum(rate * self.change_cycle_s for rate in self.viewer_idle_cpu_per_s)
        return (sum(self.viewer_cpu_per_change) - idle + self.server_cpu_per_change) / self.viewers

    def met(self) -> bool:
        median, p95 = self.targets
        return (
            self.lost == 0
            and bool(self.to_last)
            and len(self.first_draw) == self.viewers
            and self.pss_per_viewer_mb <= PSS_MB
            and (not self.viewer_pss_after_kb or self.pss_per_viewer_after_mb <= PSS_MB)
            and statistics.median(self.to_last) < median
            and pct(self.to_last, 0.95) < p95
            and self.cpu_per_viewer <= CPU_PER_VIEWER
        )


async def measure(events: int, viewers: int, changes: int, end: float, spawn: str, per_process: int) -> Result:
    result = Result(events, viewers, spawn, per_process)
    result.load.append(load_average())
    with tempfile.TemporaryDirectory(prefix="tracker-bench-") as tmp:
        root = Path(tmp)
        saves = root / "saves"
        saves.mkdir()
        file = saves / "load.toml"
        gm_key = make_key(root / "gm", "gm")
        viewer_key = make_key(root / "viewer", "viewer")
        (root / "gm_keys").write_text(gm_key.export_public_key().decode())
        (root / "viewer_keys").write_text(viewer_key.export_public_key().decode())
        build(file, events)
        server = ServerProcess.start(
            saves, "--encounter", "load", "--gm-keys", str(root / "gm_keys"), "--viewer-keys", str(root / "viewer_keys"), "--max-connections", str(viewers + 4), "--spawn", spawn,
            "--viewers-per-process", str(per_process),
        )
        screens: list[Screen] = []
        gm: Screen | None = None
        try:
            for _ in range(viewers):
                started = time.perf_counter()
                screen = await Screen.connect(server.port, viewer_key, size=(80, 24), timeout=60)
                screens.append(screen)
                drawn = await screen.wait_for(NAME, timeout=max(5.0, min(120.0, end - time.monotonic())))
                result.first_draw.append(drawn - started)
            gm = await Screen.connect(server.port, gm_key, size=(80, 24), timeout=60)
            await gm.wait_for(NAME, timeout=120)
            pids = server.app_pids()
            viewer_pids = list(dict.fromkeys(pids[:viewers]))  # each process once, however many viewers it runs
            result.viewer_pss_kb = [pss_kb(p) for p in viewer_pids]
            result.server_pss_kb = pss_kb(server.proc.pid)
            result.load.append(load_average())
            # What the viewers cost while nothing changes (following the file, timers): the
            # floor the CPU per change is read against.
            gm_pid = pids[viewers] if len(pids) > viewers else 0
            gm_idle_from = cpu_s(gm_pid)
            idle_from, idle_started = [cpu_s(p) for p in viewer_pids], time.perf_counter()
            await asyncio.sleep(IDLE_WINDOW)
            idle_s = time.perf_counter() - idle_started
            result.viewer_idle_cpu_per_s = [(cpu_s(p) - b) / idle_s for p, b in zip(viewer_pids, idle_from)]
            result.gm_idle_cpu_per_s = (cpu_s(gm_pid) - gm_idle_from) / idle_s
            cpu_before = [cpu_s(p) for p in viewer_pids]
            server_cpu_before = cpu_s(server.proc.pid)
            bench_cpu_before = time.process_time()
            changes_started = time.perf_counter()
            server_typing = 0.0
            for n in range(1, changes + 1):
                left = end - time.monotonic()
                if left <= 5:
                    print(f"  deadline reached after {n - 1} changes")
                    break
                token = f"ping{events}x{n:03d}"
                typing_from = cpu_s(server.proc.pid)
                gm_mark = len(gm.session.data)
                gm.send(b":")
                await gm.wait_for("esc: cancel", timeout=min(20, left), since=gm_mark)
                gm.send(f"note {token[:-1]}".encode())
                await gm.wait_for(token[:-1], timeout=min(20, left), since=gm_mark)
                # The app still finishes opening the command line (Textual mounts the
                # form's footer keys and styles them) after the typed text is drawn: the
                # key is sent once it is idle, so the floor is one key's echo alone.
                await settled(gm_pid, result.gm_idle_cpu_per_s, min(5.0, left))
                # The floor: one key (the token's last character) echoed on the GM's screen.
                gm_cpu = cpu_s(gm_pid)
                key_mark = len(gm.session.data)
                typed = time.perf_counter()
                gm.send(token[-1].encode())
                echoed = await gm.wait_for(token, timeout=min(20, left), since=key_mark)
                result.to_gm.append(echoed - typed)
                result.gm_cpu_per_key.append(cpu_s(gm_pid) - gm_cpu - result.gm_idle_cpu_per_s * (time.perf_counter() - typed))
                server_typing += cpu_s(server.proc.pid) - typing_from  # relaying the GM's typing: not the change's
                # The log line `[segment]  text` (its gap depends on the segment's digits).
                # Only the GM's own screen shows the typed command, and it is not watched here.
                needle = token
                marks = [len(s.session.data) for s in screens]
                stamp = _stamp(file)
                sent = time.perf_counter()
                gm.send(b"\r")  # the GM's key: the clock starts here
                result.made += 1
                wait = min(20.0, left)
                waits = asyncio.gather(*(s.wait_for(needle, timeout=wait, since=m) for s, m in zip(screens, marks)), return_exceptions=True)
                written = await _written(file, stamp, wait)
                arrived_all = await waits
                arrived = [a for a in arrived_all if isinstance(a, float)]
                result.lost += len(arrived_all) - len(arrived)
                if written is not None:
                    result.to_file.append(written - sent)
                if arrived and len(arrived) == len(arrived_all):
                    result.to_last.append(max(arrived) - sent)
                    if written is not None:
                        result.file_to_last.append(max(arrived) - written)
            if result.made:
                result.viewer_cpu_per_change = [(cpu_s(p) - b) / result.made for p, b in zip(viewer_pids, cpu_before)]
                result.change_cycle_s = (time.perf_counter() - changes_started) / result.made
                result.server_cpu_per_change = (cpu_s(server.proc.pid) - server_cpu_before - server_typing) / result.made
                result.bench_cpu_per_change = (time.process_time() - bench_cpu_before) / result.made
                result.viewer_pss_after_kb = [pss_kb(p) for p in viewer_pids]
                result.server_pss_after_kb = pss_kb(server.proc.pid)
            result.load.append(load_average())
        finally:
            for s in [*screens, *([gm] if gm else [])]:
                await s.close()
            server.stop()
    return result


def ms(values: list[float], q: float | None = None) -> str:
    if not values:
        return "-"
    return f"{(statistics.median(values) if q is None else pct(values, q)) * 1000:.0f}"


def report(results: list[Result]) -> None:
    print()
    print(f"| spawn | events | viewers | first draw median / max (s) | PSS per viewer (MB, target {PSS_MB:g}) | viewers' processes: count, PSS median (MB) | server PSS (MB) | PSS per viewer after (MB) | load: start / connected / end |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---|")
    for r in results:
        fd = f"{statistics.median(r.first_draw):.2f} / {max(r.first_draw):.2f}" if r.first_draw else "-"
        app = f"{len(r.viewer_pss_kb)}, {statistics.median(r.viewer_pss_kb) / 1024:.1f}" if r.viewer_pss_kb else "-"
        after = f"{r.pss_per_viewer_after_mb:.1f} ({r.pss_per_viewer_after_mb / PSS_MB:.2f}x)" if r.viewer_pss_after_kb else "-"
        load = " / ".join(f"{x:.2f}" for x in r.load)
        print(f"| {r.label} | {r.events:,} | {r.viewers} | {fd} | {r.pss_per_viewer_mb:.1f} ({r.pss_per_viewer_mb / PSS_MB:.2f}x) | {app} | {r.server_pss_kb / 1024:.1f} | {after} | {load} |")
    print()
    print("| spawn | events | viewers | changes | lost | GM key -> last viewer median / p95 (ms) | against target | floor: a key echoed to the GM (ms) | GM app CPU per key less idle (ms) | to floor | key -> file written | written -> last viewer |")
    print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|")
    for r in results:
        ratio = statistics.median(r.to_last) / statistics.median(r.to_gm) if r.to_last and r.to_gm else float("nan")
        median, p95 = r.targets
        against = f"{statistics.median(r.to_last) / median:.2f}x / {pct(r.to_last, 0.95) / p95:.2f}x of {median * 1000:.0f} / {p95 * 1000:.0f}" if r.to_last else "-"
        print(
            f"| {r.label} | {r.events:,} | {r.viewers} | {r.made} | {r.lost} | {ms(r.to_last)} / {ms(r.to_last, 0.95)} | {against} | {ms(r.to_gm)} | {ms(r.gm_cpu_per_key)} (idle: {r.gm_idle_cpu_per_s * 1000:.0f} ms/s) | {ratio:.1f}x "
            f"| {ms(r.to_file)} | {ms(r.file_to_last)} |"
        )
    print()
    print(f"| spawn | events | viewers | wall per change: last viewer median (ms) | CPU per change, viewers' processes | of which idle | server (ms) | net, all (ms) | per viewer (ms, target {CPU_PER_VIEWER * 1000:g}) | benchmark's clients (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if r.viewer_cpu_per_change:
            v = r.viewer_cpu_per_change
            idle = sum(rate * r.change_cycle_s for rate in r.viewer_idle_cpu_per_s)
            net = r.cpu_per_viewer * r.viewers
            print(
                f"| {r.label} | {r.events:,} | {r.viewers} | {ms(r.to_last)} | {sum(v) * 1000:.0f} | {idle * 1000:.0f} | {r.server_cpu_per_change * 1000:.0f} | {net * 1000:.0f} | "
                f"{r.cpu_per_viewer * 1000:.2f} ({r.cpu_per_viewer / CPU_PER_VIEWER:.2f}x) | {r.bench_cpu_per_change * 1000:.0f} |"
            )
    print()
    for r in results:
        median, p95 = r.targets
        print(
            f"{r.label}, {r.events:,} events, {r.viewers} viewers: targets (median < {median * 1000:.0f} ms, p95 < {p95 * 1000:.0f} ms, "
            f"CPU <= {CPU_PER_VIEWER * 1000:g} ms per viewer per change, PSS <= {PSS_MB:g} MB per viewer, nothing lost):",
            "met" if r.met() else "NOT met",
        )


async def run(sizes: list[int], viewers: int, changes: int, deadline: float, spawns: list[str], per_process: list[int]) -> int:
    end = time.monotonic() + deadline
    results: list[Result] = []
    runs = [(events, spawn, n) for events in sizes for spawn in spawns for n in (per_process if spawn == "fork" else [1])]
    for events, spawn, n in runs:
        per_run_end = time.monotonic() + (end - time.monotonic()) / (len(runs) - len(results))
        print(f"{events:,} events, {viewers} viewers, --spawn {spawn} --viewers-per-process {n} ...", flush=True)
        results.append(await measure(events, viewers, changes, per_run_end, spawn, n))
    report(results)
    return 0 if all(r.met() for r in results) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--changes", type=int, default=15, help="changes per size (median of these)")
    parser.add_argument("--sizes", default="20000", help="event counts, comma-separated")
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds for the whole run")
    parser.add_argument("--spawn", default="fork", help="fork, exec or fork,exec (the server's --spawn; each size run with each)")
    parser.add_argument("--viewers-per-process", default="25", help="the server's --viewers-per-process with fork, e.g. 25,10 (each size run with each)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    spawns = [s.strip() for s in args.spawn.split(",") if s.strip()]
    per_process = [int(s) for s in args.viewers_per_process.split(",") if s.strip()]
    return asyncio.run(run(sizes, args.viewers, args.changes, args.deadline, spawns, per_process))


if __name__ == "__main__":
    raise SystemExit(main())
