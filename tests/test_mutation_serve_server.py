"""Direct tests of tracker.serve.server: `tracker serve` started and stopped (the log,
the signals), against docs/guide/serve.md ("Ctrl+C or SIGTERM closes every connection",
"Connections, refusals, moves of the table and drops are logged to standard error", the
keys files, `--port 0`: "any free port, named in the log") and
docs/decisions/0038-serve-logs-signals.md. `serve` runs here with a stand-in for the
server loop; `run_server` listens for real, on 127.0.0.1 only, in this process."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

import tracker.serve.server as server_module
from tests.helpers import DEADLINE, cli, until
from tracker.engine import TrackerError
from tracker.serve.arguments import defaults
from tracker.serve.keys import KeyRing
from tracker.serve.options import ServeOptions
from tracker.serve.probe import make_key
from tracker.serve.server import run_server, serve

pytestmark = pytest.mark.serve

LOG = logging.getLogger("tracker.serve")


@pytest.fixture(autouse=True)
def log_kept_as_it_was() -> Iterator[list[str]]:
    """The server's log as it was before the test, and what the test logged at INFO."""
    handlers, level, propagate = list(LOG.handlers), LOG.level, LOG.propagate
    asyncssh_level = logging.getLogger("asyncssh").level
    said: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    keep = Keep(logging.INFO)
    LOG.addHandler(keep)
    LOG.setLevel(logging.INFO)
    try:
        yield said
    finally:
        LOG.handlers[:] = handlers
        LOG.setLevel(level)
        LOG.propagate = propagate
        logging.getLogger("asyncssh").setLevel(asyncssh_level)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    monkeypatch.setenv("TRACKER_CONFIG", str(folder / "config.toml"))
    return folder


def _public(tmp_path: Path, name: str) -> str:
    return make_key(tmp_path / name, name).export_public_key().decode()


# ------------------------------------------------------------------ the log


def test_the_log_goes_to_standard_error_dated_and_named(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    LOG.handlers.clear()
    LOG.setLevel(logging.NOTSET)
    LOG.propagate = True
    logging.getLogger("asyncssh").setLevel(logging.DEBUG)
    with caplog.at_level(logging.DEBUG):  # everything, unless the server's log says otherwise
        server_module._setup_logging()
        LOG.info("listening on %s", "127.0.0.1")
        LOG.debug("not this")
    err = capsys.readouterr().err
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d tracker serve: listening on 127\.0\.0\.1\n", err), err
    assert LOG.level == logging.INFO and not LOG.propagate
    assert [r.getMessage() for r in caplog.records if r.name == "tracker.serve"] == []  # its own line only, not the root's too
    assert logging.getLogger("asyncssh").level == logging.WARNING  # the SSH library's chatter left out


# ------------------------------------------------------------------ serve: checks before the loop


@pytest.fixture
def loop_stand_in(monkeypatch: pytest.MonkeyPatch) -> list[tuple[ServeOptions, KeyRing]]:
    """What `serve` hands the server loop, which answers 7 at once."""
    ran: list[tuple[ServeOptions, KeyRing]] = []

    async def stand_in(options: ServeOptions, keyring: KeyRing, ready: Any = None) -> int:
        ran.append((options, keyring))
        return 7

    monkeypatch.setattr(server_module, "run_server", stand_in)
    return ran


def _args(**given: Any) -> argparse.Namespace:
    args = defaults()
    for name, value in given.items():
        setattr(args, name, value)
    return args


def test_nobody_could_connect_the_server_does_not_start(config: Path, tmp_path: Path, loop_stand_in: list[Any]) -> None:
    with pytest.raises(TrackerError) as refused:
        serve(_args(), tmp_path / "saves")
    assert str(refused.value) == (
        f"nobody could connect: put GM public keys (lines of ~/.ssh/id_ed25519.pub) in {config / 'gm_keys'} or pass --gm-keys FILE; "
        "add --players-keys FILE, --viewer-keys FILE or --open-viewers for players"
    )
    assert loop_stand_in == []


def test_serve_makes_the_saves_folder_and_runs_with_the_options_and_keys(config: Path, tmp_path: Path, loop_stand_in: list[Any],
                                                                        log_kept_as_it_was: list[str]) -> None:
    gm, viewers, players = tmp_path / "gm", tmp_path / "viewers", tmp_path / "players"
    gm.write_text(_public(tmp_path, "gm-key"))
    viewers.write_text(_public(tmp_path, "viewer-key"))
    players.write_text('combatant="Seraph" ' + _public(tmp_path, "player-key"))
    saves = tmp_path / "deep" / "saves"
    args = _args(gm_keys=str(gm), viewer_keys=str(viewers), players_keys=str(players), open_viewers=True, port=2222)
    assert serve(args, saves) == 7
    assert saves.is_dir()
    [(options, keyring)] = loop_stand_in
    assert (options.saves, options.port, options.host) == (saves.resolve(), 2222, "127.0.0.1")
    assert (keyring.gm.path, keyring.viewer.path, keyring.player.path, keyring.open_viewers) == (gm, viewers, players, True)
    assert not any("beyond this machine" in line for line in log_kept_as_it_was)
    # The folder there already: served as it is.
    assert serve(args, saves) == 7


def test_open_viewers_alone_let_someone_in(config: Path, tmp_path: Path, loop_stand_in: list[Any]) -> None:
    assert serve(_args(open_viewers=True), tmp_path / "saves") == 7
    [(_options, keyring)] = loop_stand_in
    assert keyring.open_viewers and keyring.gm.path == config / "gm_keys"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_this_machine_only_is_not_remarked(config: Path, tmp_path: Path, loop_stand_in: list[Any], log_kept_as_it_was: list[str], host: str) -> None:
    assert serve(_args(open_viewers=True, host=host), tmp_path / "saves") == 7
    assert not any("beyond this machine" in line for line in log_kept_as_it_was)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::"])
def test_listening_beyond_this_machine_is_said(config: Path, tmp_path: Path, loop_stand_in: list[Any], log_kept_as_it_was: list[str], host: str) -> None:
    assert serve(_args(open_viewers=True, host=host), tmp_path / "saves") == 7
    assert f"listening beyond this machine ({host}): only the keys above get in" in log_kept_as_it_was


# ------------------------------------------------------------------ run_server: listening, stopping


@pytest.fixture
def signals_guarded() -> Iterator[list[int]]:
    """A signal the server did not take stops nothing and kills nothing: it is noted."""
    caught: list[int] = []
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    for sig in before:
        signal.signal(sig, lambda number, frame: caught.append(number))
    try:
        yield caught
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _table(tmp_path: Path, config: Path, **given: Any) -> tuple[ServeOptions, KeyRing]:
    saves = tmp_path / "saves"
    saves.mkdir(exist_ok=True)
    gm = tmp_path / "gm_keys"
    gm.write_text(make_key(tmp_path / "gm", "gm").export_public_key().decode())
    options = ServeOptions(saves=saves.resolve(), port=0, gm_keys=str(gm), host_key=tmp_path / "host_key", spawn="exec", **given)
    keyring = KeyRing.from_options(options.saves, options.gm_keys, options.viewer_keys, options.open_viewers, options.players_keys)
    return options, keyring


async def _banner(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await asyncio.wait_for(reader.readline(), DEADLINE)
    finally:
        writer.close()


async def _stopped_by(sig: int, task: "asyncio.Task[int]", caught: list[int]) -> None:
    os.kill(os.getpid(), sig)
    assert await asyncio.wait_for(task, DEADLINE) == 0
    assert caught == []


async def test_listening_said_with_who_may_connect_and_stopped_by_sigterm(tmp_path: Path, config: Path, signals_guarded: list[int],
                                                                          log_kept_as_it_was: list[str]) -> None:
    options, keyring = _table(tmp_path, config)
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_server(options, keyring, ready))
    port = await asyncio.wait_for(ready, DEADLINE)
    assert port > 0  # --port 0: a free one, named in the log
    assert (await _banner(port)).startswith(b"SSH-2.0-")
    # The GM's key gets in (the table's own keys, its own SSH server); a stranger's does not.
    gm = asyncssh.read_private_key(str(tmp_path / "gm"))
    async with asyncssh.connect("127.0.0.1", port, client_keys=[gm], known_hosts=None, username="gm") as conn:
        assert conn.get_extra_info("username") == "gm"
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh.connect("127.0.0.1", port, client_keys=[make_key(tmp_path / "stranger", "stranger")], known_hosts=None,
                               username="gm", agent_path=None, password=None, kbdint_auth=False)
    said = log_kept_as_it_was
    assert (f"listening on 127.0.0.1 port {port} (saves {options.saves}, the fight the GM opens; GM keys {tmp_path / 'gm_keys'}); "
            f"connect with: ssh -p {port} 127.0.0.1") in said
    await _stopped_by(signal.SIGTERM, task, signals_guarded)
    assert said[-1] == "stopped"
    with pytest.raises(OSError):
        await _banner(port)  # nobody listens any more
    # The signals are this process's own again.
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL and signal.getsignal(signal.SIGHUP) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) == signal.default_int_handler


async def test_an_encounter_and_every_kind_of_key_said_and_stopped_by_ctrl_c(tmp_path: Path, config: Path, signals_guarded: list[int],
                                                                              log_kept_as_it_was: list[str]) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    assert cli("new", str(saves / "fight.toml"), "--ruleset", "freeform", "--name", "Seraph vs Sphinx")[0] == 0
    (tmp_path / "viewer_keys").write_text(_public(tmp_path, "viewer"))
    (tmp_path / "players_keys").write_text('combatant="Seraph" ' + _public(tmp_path, "player"))
    options, keyring = _table(tmp_path, config, encounter=saves.resolve() / "fight.toml", viewer_keys=str(tmp_path / "viewer_keys"),
                              players_keys=str(tmp_path / "players_keys"), open_viewers=True)
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_server(options, keyring, ready))
    port = await asyncio.wait_for(ready, DEADLINE)
    assert (f"listening on 127.0.0.1 port {port} (encounter {saves.resolve() / 'fight.toml'}; GM keys {tmp_path / 'gm_keys'}, "
            f"players' keys {tmp_path / 'players_keys'}, viewer keys {tmp_path / 'viewer_keys'}, anyone else as a viewer); "
            f"connect with: ssh -p {port} 127.0.0.1") in log_kept_as_it_was
    await _stopped_by(signal.SIGINT, task, signals_guarded)


async def test_a_campaign_with_no_fight_yet_and_no_one_waiting_for_the_port(tmp_path: Path, config: Path, signals_guarded: list[int],
                                                                            log_kept_as_it_was: list[str]) -> None:
    """Started with nobody waiting on `ready`: the log still names the port; stopped by SIGHUP."""
    saves = tmp_path / "saves"
    saves.mkdir()
    assert cli("--saves", str(saves), "campaign", "new", "road", "--ruleset", "freeform", "--title", "The Road")[0] == 0
    options, keyring = _table(tmp_path, config, campaign=saves.resolve() / "road.campaign.toml")
    task = asyncio.create_task(run_server(options, keyring))
    await until(lambda: any(line.startswith("listening on") for line in log_kept_as_it_was), "the server listening")
    [line] = [line for line in log_kept_as_it_was if line.startswith("listening on")]
    port = int(re.search(r"port (\d+)", line).group(1))  # type: ignore[union-attr]
    assert line == (f"listening on 127.0.0.1 port {port} (campaign The Road, no fight yet; GM keys {tmp_path / 'gm_keys'}); "
                    f"connect with: ssh -p {port} 127.0.0.1")
    await _stopped_by(signal.SIGHUP, task, signals_guarded)


async def test_a_campaign_fight_is_named(tmp_path: Path, config: Path, signals_guarded: list[int], log_kept_as_it_was: list[str]) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    assert cli("--saves", str(saves), "campaign", "new", "road", "--ruleset", "freeform")[0] == 0
    assert cli("--saves", str(saves), "campaign", "add", "road", "Ann", "hp=10")[0] == 0
    assert cli("--saves", str(saves), "new", "ambush", "--campaign", "road")[0] == 0
    options, keyring = _table(tmp_path, config, campaign=saves.resolve() / "road.campaign.toml")
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    ready.set_result(-1)  # answered already: left as it is
    task = asyncio.create_task(run_server(options, keyring, ready))
    await until(lambda: any(line.startswith("listening on") for line in log_kept_as_it_was), "the server listening")
    assert ready.result() == -1
    [line] = [line for line in log_kept_as_it_was if line.startswith("listening on")]
    assert "(campaign road, its fight ambush.toml; GM keys" in line
    await _stopped_by(signal.SIGTERM, task, signals_guarded)


def test_a_server_in_a_thread_of_its_own_takes_no_signals(tmp_path: Path, config: Path) -> None:
    """Signals are the main thread's: a server run in another thread (as a test may) starts
    without them, is stopped by cancelling it, and leaves the process's handlers as they were."""
    options, keyring = _table(tmp_path, config)
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    state: dict[str, Any] = {}
    started = threading.Event()

    def run() -> None:
        async def main() -> None:
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[int] = loop.create_future()
            task = asyncio.create_task(run_server(options, keyring, ready))
            state["loop"], state["task"] = loop, task
            await asyncio.wait({task, ready}, timeout=DEADLINE, return_when=asyncio.FIRST_COMPLETED)
            if ready.done():
                state["port"] = ready.result()
            started.set()
            try:
                state["result"] = await task
            except BaseException as exc:  # noqa: BLE001 - what ended it is the answer
                state["error"] = exc

        asyncio.run(main())

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert started.wait(DEADLINE)
        assert state.get("port", 0) > 0, state
    finally:
        if "task" in state:
            state["loop"].call_soon_threadsafe(state["task"].cancel)
        thread.join(DEADLINE)
    assert isinstance(state.get("error"), asyncio.CancelledError), state
    assert {sig: signal.getsignal(sig) for sig in before} == before


async def test_a_port_in_use_is_said_in_words(tmp_path: Path, config: Path) -> None:
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        options, keyring = _table(tmp_path, config)
        options.port = port
        with pytest.raises(TrackerError) as refused:
            await run_server(options, keyring)
        said = str(refused.value)
        assert said.startswith(f"cannot listen on 127.0.0.1:{port}: ") and said.lower().endswith("address already in use")
        assert "Errno" not in said  # the reason in words, not the exception's repr
        assert refused.value.__cause__ is None and refused.value.__suppress_context__
    finally:
        taken.close()
