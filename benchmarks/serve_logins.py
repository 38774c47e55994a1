"""The GM's log-in past silent strangers: how many single tries get in, and how fast.

    python benchmarks/serve_logins.py [--strangers 10,100] [--tries 20] [--clients asyncssh,openssh]
                                      [--sources 1] [--pause 0.3] [--speak] [-- SERVE OPTIONS...]

A table is made in a temporary folder (a freeform fight, a GM key) and `tracker serve` is
started on it (a subprocess, free port, 127.0.0.1, the default admission settings unless
options follow `--`). Then `--strangers N` silent clients connect over TCP from
127.0.0.2 (or spread over `--sources` addresses 127.0.0.2, 127.0.0.3, ...): each sends
nothing (with `--speak`: an SSH version line, then nothing), reads what the server says,
and connects again the moment it is closed. Once
they are all connected, the GM tries `--tries` times, one try each (no retry), with
asyncssh and with OpenSSH's `ssh -tt` (where installed), `--pause` seconds apart. A try
succeeds when the fight's title is drawn on the GM's screen; it fails when refused (the
reason is counted) or when nothing is drawn within 10 s. Printed per client: tries in,
the reasons of the others, and the seconds from connect to title (median, slowest), wall
time; beside it the CPU time the server and the apps it runs used per try, and this
process's (the client side) per try (benchmarks/clocks.py).

Exit 0 if every try got in within 2 s, else 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.clocks import cpu, describe, tree_cpu_s  # noqa: E402
from tracker.serve.probe import Screen, ServerProcess, Strangers, env, make_key, openssh_argv  # noqa: E402

TITLE = "Login Bench"
TRY_TIMEOUT = 10.0
TARGET = 2.0


async def try_asyncssh(port: int, key: asyncssh.SSHKey) -> tuple[bool, float, str]:
    started = time.monotonic()
    try:
        screen = await Screen.connect(port, key, size=(80, 24), timeout=TRY_TIMEOUT)
    except (asyncssh.Error, OSError, asyncio.TimeoutError) as exc:
        return False, time.monotonic() - started, _reason(str(exc) or type(exc).__name__)
    try:
        await screen.wait_for(TITLE, timeout=TRY_TIMEOUT)
        return True, time.monotonic() - started, ""
    except AssertionError:
        return False, time.monotonic() - started, "no title drawn"
    finally:
        await screen.close()


async def try_openssh(ssh: str, port: int, key: Path) -> tuple[bool, float, str]:
    started = time.monotonic()
    argv = openssh_argv(ssh, port, key, "-tt", "127.0.0.1")
    proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    seen = b""
    try:
        async with asyncio.timeout(TRY_TIMEOUT):
            while TITLE.encode() not in seen:
                chunk = await proc.stdout.read(65536)
                if not chunk:
                    break
                seen += chunk
    except TimeoutError:
        pass
    took = time.monotonic() - started
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    err = (await proc.stderr.read()).decode("utf-8", "replace")
    await proc.wait()
    if TITLE.encode() in seen:
        return True, took, ""
    return False, took, _reason(err.strip().splitlines()[-1] if err.strip() else "no title drawn")


def _reason(text: str) -> str:
    for known in ("too many connections from your address", "too many connections are logging in", "the table is full", "Connection reset", "closed"):
        if known.lower() in text.lower():
            return known
    return text[:80]


async def run(args: argparse.Namespace, serve_extra: list[str]) -> bool:
    ok = True
    ssh = shutil.which("ssh")
    clients = [c for c in args.clients.split(",") if c != "openssh" or ssh]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        saves = root / "saves"
        saves.mkdir()
        keys = root / "keys"
        keys.mkdir()
        gm = make_key(keys / "gm", "gm")
        (keys / "gm_keys").write_text(gm.export_public_key().decode())
        subprocess.run([sys.executable, "-m", "tracker", "new", str(saves / "fight.toml"), "--ruleset", "freeform", "--name", TITLE], env=env(), check=True, capture_output=True)
        for count in [int(n) for n in args.strangers.split(",")]:
            server = ServerProcess.start(saves, "--gm-keys", str(keys / "gm_keys"), "--encounter", "fight", *serve_extra)
            strangers = Strangers(server.port, count, sources=args.sources, speak=args.speak)
            try:
                strangers.start()
                deadline = time.monotonic() + 30
                while strangers.connected < min(count, 30) and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                await asyncio.sleep(1.0)
                for client in clients:
                    results = []
                    server_from, here_from = tree_cpu_s(server.proc.pid), cpu()
                    for _ in range(args.tries):
                        if client == "asyncssh":
                            results.append(await try_asyncssh(server.port, gm))
                        else:
                            assert ssh is not None
                            results.append(await try_openssh(ssh, server.port, keys / "gm"))
                        await asyncio.sleep(args.pause)
                    server_cpu = (tree_cpu_s(server.proc.pid) - server_from) / len(results)
                    here_cpu = (cpu() - here_from) / len(results)
                    times = [t for good, t, _ in results if good]
                    reasons = Counter(r for good, _, r in results if not good)
                    fine = len(times) == len(results) and max(times) < TARGET
                    ok = ok and fine
                    took = f"median {statistics.median(times):.2f} s, slowest {max(times):.2f} s" if times else "none in"
                    print(
                        f"{count:>4} strangers from {args.sources} address(es), {client:>8}: {len(times)} of {len(results)} tries in ({took})"
                        + (f"; refused: {dict(reasons)}" if reasons else "")
                        + f"; strangers reconnected {strangers.reconnects} times"
                        + f"; CPU per try: server and its apps {server_cpu * 1000:.0f} ms, this client {here_cpu * 1000:.0f} ms (pauses included)"
                    )
            finally:
                await strangers.stop()
                server.stop()
    return ok


def main() -> int:
    argv = sys.argv[1:]
    serve_extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, serve_extra = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strangers", default="10,100")
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--clients", default="asyncssh,openssh")
    parser.add_argument("--sources", type=int, default=1)
    parser.add_argument("--pause", type=float, default=0.3)
    parser.add_argument("--speak", action="store_true", help="strangers send an SSH version line, then nothing")
    args = parser.parse_args(argv)
    print(describe())
    return 0 if asyncio.run(run(args, serve_extra)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
