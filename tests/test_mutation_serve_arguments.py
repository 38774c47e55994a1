"""Direct tests of tracker.serve.arguments: `tracker serve`'s options, what each reads
into, its default and how its help describes it, against docs/guide/serve.md ("Seats and
logging in", "What is served, input, and time-outs", the keys' files) and
docs/decisions/0025-admission.md, 0036-serve-processes.md and 0050-serve-campaign.md."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from tracker.command.parser import build_parser
from tracker.serve.arguments import GM_SEATS, PER_SOURCE, defaults, fill

# What `tracker serve` with no options runs with (docs/guide/serve.md): 127.0.0.1 on
# port 8022, 32 seats, an hour's idle time-out, OpenSSH's 10:30:100, ten seconds to log
# in, the preloaded app forked, 25 viewers a process; no keys files named (the config
# folder's), no fight, no campaign; the GM seats and per-source limit worked out later.
NO_OPTIONS = {
    "host": "127.0.0.1",
    "port": 8022,
    "gm_keys": None,
    "viewer_keys": None,
    "players_keys": None,
    "open_viewers": False,
    "encounter": None,
    "campaign": None,
    "host_key": None,
    "max_connections": 32,
    "gm_seats": None,
    "idle_timeout": 3600.0,
    "max_startups": "10:30:100",
    "per_source_startups": None,
    "login_grace": 10.0,
    "spawn": "fork",
    "viewers_per_process": 25,
}


def _parser() -> argparse.ArgumentParser:
    return fill(argparse.ArgumentParser(prog="tracker serve", add_help=False))


def _read(*argv: str) -> dict[str, Any]:
    return vars(_parser().parse_args(list(argv)))


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        _parser().parse_args(list(argv))
    assert stop.value.code == 2
    return capsys.readouterr().err


def _serve_page() -> argparse.ArgumentParser:
    [commands] = [a for a in build_parser("serve")._actions if isinstance(a, argparse._SubParsersAction)]
    page = commands.choices["serve"]
    assert isinstance(page, argparse.ArgumentParser)
    return page


def test_the_numbers_the_defaults_start_from() -> None:
    """Two GM seats kept (never more than half unless asked), 30 logging in at once from
    one address (docs/decisions/0025-admission.md)."""
    assert (GM_SEATS, PER_SOURCE) == (2, 30)


def test_no_options_are_the_guides_defaults() -> None:
    assert vars(defaults()) == NO_OPTIONS
    assert _read() == NO_OPTIONS
    got = vars(build_parser("serve").parse_args(["serve"]))
    assert (got.pop("command"), got.pop("saves")) == ("serve", None)
    assert got == NO_OPTIONS


def test_defaults_reads_no_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults are the parser's own, whatever this process was started with."""
    monkeypatch.setattr("sys.argv", ["tracker", "serve", "--port", "2222", "--open-viewers", "--help"])
    assert vars(defaults()) == NO_OPTIONS


def test_fill_hands_back_the_parser_it_was_given() -> None:
    p = argparse.ArgumentParser(add_help=False)
    assert fill(p) is p


def test_each_option_read_into_its_own_type() -> None:
    got = _read(
        "--host", "0.0.0.0", "--port", "0", "--gm-keys", "gm.txt", "--viewer-keys", "v.txt", "--players-keys", "p.txt",
        "--open-viewers", "--encounter", "Seraph vs Sphinx", "--host-key", "hk", "--max-connections", "4",
        "--gm-seats", "1", "--idle-timeout", "1.5", "--max-startups", "4", "--per-source-startups", "3",
        "--login-grace", "2.5", "--spawn", "exec", "--viewers-per-process", "1",
    )
    assert got == {
        "host": "0.0.0.0", "port": 0, "gm_keys": "gm.txt", "viewer_keys": "v.txt", "players_keys": "p.txt",
        "open_viewers": True, "encounter": "Seraph vs Sphinx", "campaign": None, "host_key": "hk", "max_connections": 4,
        "gm_seats": 1, "idle_timeout": 1.5, "max_startups": "4", "per_source_startups": 3, "login_grace": 2.5,
        "spawn": "exec", "viewers_per_process": 1,
    }
    assert [type(got[k]) for k in ("port", "max_connections", "gm_seats", "per_source_startups", "viewers_per_process")] == [int] * 5
    assert [type(got[k]) for k in ("idle_timeout", "login_grace")] == [float, float]
    assert _read("--campaign", "road")["campaign"] == "road"
    # Whole seconds are still seconds as numbers.
    assert (_read("--idle-timeout", "60")["idle_timeout"], _read("--login-grace", "3")["login_grace"]) == (60.0, 3.0)


@pytest.mark.parametrize("option", ["--port", "--max-connections", "--gm-seats", "--per-source-startups", "--viewers-per-process"])
def test_a_count_that_is_not_a_whole_number_is_refused(capsys: pytest.CaptureFixture[str], option: str) -> None:
    assert f"argument {option}: invalid int value: 'two'" in _refused(capsys, option, "two")


@pytest.mark.parametrize("option", ["--idle-timeout", "--login-grace"])
def test_seconds_that_are_not_a_number_are_refused(capsys: pytest.CaptureFixture[str], option: str) -> None:
    assert f"argument {option}: invalid float value: 'soon'" in _refused(capsys, option, "soon")


def test_spawn_is_fork_or_exec(capsys: pytest.CaptureFixture[str]) -> None:
    assert _read("--spawn", "fork")["spawn"] == "fork"
    assert "argument --spawn: invalid choice: 'thread' (choose from" in _refused(capsys, "--spawn", "thread")


def test_open_viewers_takes_no_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert "unrecognized arguments: yes" in _refused(capsys, "--open-viewers", "yes")


def test_the_usage_line_names_each_value() -> None:
    usage = " ".join(_serve_page().format_usage().split())
    for shown in ("[--host HOST]", "[--port PORT]", "[--gm-keys FILE]", "[--viewer-keys FILE]", "[--players-keys FILE]",
                  "[--open-viewers]", "[--encounter NAME]", "[--campaign NAME]", "[--host-key FILE]", "[--max-connections N]",
                  "[--gm-seats N]", "[--idle-timeout SECONDS]", "[--max-startups START:RATE:FULL]",
                  "[--per-source-startups N]", "[--login-grace SECONDS]", "[--spawn {fork,exec}]",
                  "[--viewers-per-process N]"):
        assert shown in usage


def test_each_options_help_as_the_page_shows_it() -> None:
    """Every option described, in the guide's words, its default after its help where
    the help does not say it (the parser's `_Help`)."""
    page = " ".join(_serve_page().format_help().split())
    for line in (
        "--host HOST address to listen on (default: 127.0.0.1)",
        "--port PORT port to listen on; 0: any free port (the log says which) (default: 8022)",
        "--gm-keys FILE authorized_keys file of GM keys (default: gm_keys in the config folder)",
        "--viewer-keys FILE authorized_keys file of viewer keys (default: viewer_keys in the config folder)",
        "--players-keys FILE authorized_keys file of players' keys, each line naming its combatants: "
        'combatant="Seraph" or "Seraph,Nyx" (default: players_keys in the config folder)',
        "--open-viewers let any key join as a viewer",
        "--encounter NAME the table's fight to start with (else the GM opens one; players and viewers wait)",
        "--campaign NAME serve the campaign's fight (the one under way, else the latest) and follow it to the next; "
        "only its fights may be the table's",
        "--host-key FILE host key file (created on first start; default: host_key in the config folder)",
        "--max-connections N the table's seats (default: 32)",
        "--gm-seats N seats kept for GM keys, within --max-connections (default 2, at most half of them)",
        "--idle-timeout SECONDS a connection idle this long is closed (default: 3600.0)",
        "--max-startups START:RATE:FULL connections still logging in: refused at random past START (RATE%), "
        "always at FULL (default 10:30:100, as OpenSSH)",
        "--per-source-startups N connections logging in at once from one address (default 30)",
        "--login-grace SECONDS how long a connection has to log in (default: 10.0)",
        "--spawn {fork,exec} fork the preloaded app per connection, or run a new one (default: fork)",
        "--viewers-per-process N viewers sharing one process, with fork (1: a process each); those of one size "
        "there share one drawing (default: 25)",
    ):
        assert line in page


def test_the_options_in_the_order_of_the_page() -> None:
    assert [a.dest for a in _parser()._actions] == list(NO_OPTIONS)
