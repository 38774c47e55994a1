"""A viewer's first screen at `tracker serve`, against a bare Textual app's
(python benchmarks/viewer_screen.py [--runs N]).

The table: `tracker serve --encounter seraph-vs-sphinx` over a copy of the shipped saves
(a subprocess on a free port of 127.0.0.1, viewers' processes as by default), with a
viewer key. Each run, interleaved:

1. The floor: a bare Textual app with a Header, a DataTable and a Footer through an
   80x24 pty (TERM=xterm-256color), from spawn until the footer's "^p palette" is
   written (benchmarks/startup.py's `pty_time` and `BARE`).
2. The first viewer: an SSH client (asyncssh, its own connection, an 80x24 pty,
   xterm-256color) connects with the viewer key while nobody watches; from the connect
   call until "^p palette" is on its screen. The server forks a viewers' process for
   it; the client then leaves, and the run waits until the server has retired that
   process, so every first viewer is a first viewer.
3. A viewer joining a watched table: the same, while another viewer of the same size
   watches (it shares that viewer's view: the newcomer is sent the screen whole).

Two clocks: wall time (what the person waits: for a viewer, SSH's handshake and
authentication included), and CPU time: the bare app's own; for a viewer, the server's
and its viewers' processes' (benchmarks/clocks.tree_cpu_s, every thread) over the same
span, the SSH server's share included (this client's own CPU is not counted). Medians of
N runs (default 9). Budget 1.2x the bare app (the issue's target for a viewer's first
screen); the verdict uses CPU time when the load average is above the CPU count, as
benchmarks/startup.py does. The config and data folders are pointed at an empty
temporary folder. Exit 0 if both viewers' figures are within budget.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clocks import describe, tree_cpu_s  # noqa: E402
from benchmarks.startup import BARE, PY, _env, pty_time  # noqa: E402
from tracker.serve.probe import Screen, ServerProcess, make_key  # noqa: E402

BUDGET = 1.2
MARKER = "^p palette"
FIGHT = "seraph-vs-sphinx"
Sample = tuple[float, float]  # (wall seconds, CPU seconds)


async def viewer_time(server: ServerProcess, key: object) -> Sample:
    """Connect as a viewer; (wall, server-side CPU) until the first screen is drawn."""
    cpu_from = tree_cpu_s(server.proc.pid)
    started = time.perf_counter()
    screen = await Screen.connect(server.port, key, size=(80, 24), timeout=60)  # type: ignore[arg-type]
    try:
        arrived = await screen.wait_for(MARKER, timeout=60)
        cpu = tree_cpu_s(server.proc.pid) - cpu_from
    finally:
        await screen.close()
    return arrived - started, cpu


async def retired(server: ServerProcess, before: int, timeout: float = 60.0) -> None:
    """Wait until the server has retired a viewers' process more than `before` times."""
    deadline = time.monotonic() + timeout
    while _retirements(server) <= before:
        if time.monotonic() > deadline:
            raise RuntimeError(f"no viewers' process retired within {timeout}s: {server.lines[-5:]}")
        await asyncio.sleep(0.05)


def _retirements(server: ServerProcess) -> int:
    return sum(1 for line in server.lines if re.search(r"viewers' process \d+ (?!started)", line))


async def run(runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = _env(root)
        saves, keys = root / "saves", root / "keys"
        saves.mkdir()
        keys.mkdir()
        shutil.copy(ROOT / "saves" / f"{FIGHT}.toml", saves)
        (saves / ".tracker-saves").touch()
        gm, viewer = make_key(keys / "gm", "gm"), make_key(keys / "viewer", "viewer")
        (keys / "gm_keys").write_text(gm.export_public_key().decode())
        (keys / "viewer_keys").write_text(viewer.export_public_key().decode())
        environ = dict(env, TRACKER_CONFIG=str(root / "config" / "config.toml"), PYTHONPATH=str(ROOT))
        server = ServerProcess.start(saves, "--gm-keys", str(keys / "gm_keys"), "--viewer-keys", str(keys / "viewer_keys"), "--encounter", FIGHT, environ=environ)
        bare = lambda: pty_time([PY, "-c", BARE], MARKER.encode(), env)  # noqa: E731
        floor: list[Sample] = []
        first: list[Sample] = []
        joining: list[Sample] = []
        try:
            await asyncio.to_thread(bare)  # warm the file cache, unmeasured
            gone = _retirements(server)
            await viewer_time(server, viewer)
            await retired(server, gone)
            for _ in range(runs):
                floor.append(await asyncio.to_thread(bare))
                gone = _retirements(server)
                first.append(await viewer_time(server, viewer))
                await retired(server, gone)
                watcher = await Screen.connect(server.port, viewer, size=(80, 24), timeout=60)
                try:
                    await watcher.wait_for(MARKER, timeout=60)
                    joining.append(await viewer_time(server, viewer))
                finally:
                    gone = _retirements(server)
                    await watcher.close()
                await retired(server, gone)
        finally:
            server.stop()

    def median(samples: list[Sample]) -> Sample:
        return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)

    loaded = os.getloadavg()[0] > (os.cpu_count() or 1)
    floor_wall, floor_cpu = median(floor)
    rows = [("the first viewer at `tracker serve`  vs  bare app", median(first)), ("a viewer joining a watched table  vs  bare app", median(joining))]
    width = max(len(name) for name, _ in rows)
    print(f"{'what':{width}}  {'wall: floor':>11} {'ours':>6} {'ratio':>6}  {'cpu: floor':>10} {'ours':>6} {'ratio':>6}  budget")
    failed = False
    for name, (wall, cpu) in rows:
        wall_ratio, cpu_ratio = wall / floor_wall, cpu / floor_cpu
        ratio = cpu_ratio if loaded else wall_ratio
        failed |= ratio > BUDGET
        print(
            f"{name:{width}}  {floor_wall * 1000:9.0f}ms {wall * 1000:4.0f}ms {wall_ratio:5.2f}x  {floor_cpu * 1000:8.0f}ms {cpu * 1000:4.0f}ms {cpu_ratio:5.2f}x  "
            f"{BUDGET}x {'ok' if ratio <= BUDGET else 'OVER'}"
        )
    clock = "CPU time (the machine is loaded)" if loaded else "wall time"
    print(f"medians of {runs} interleaved runs; {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}; verdict on {clock}")
    print(describe())
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    return asyncio.run(run(args.runs))


if __name__ == "__main__":
    raise SystemExit(main())
