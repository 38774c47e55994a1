"""Direct tests of tracker.serve.options: what `tracker serve` runs with, each option
checked and the ones left out made whole from the parser's defaults, against
docs/guide/serve.md ("Seats and logging in", the keys' files, the time-outs) and
docs/decisions/0025-admission.md, 0036, 0037, 0040 and 0050."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import cli
from tracker.engine import TrackerError
from tracker.serve.admission import Admission, Startups
from tracker.serve.arguments import defaults
from tracker.serve.options import ServeOptions


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The config folder, where the keys files and the host key live by default."""
    folder = tmp_path / "config"
    monkeypatch.setenv("TRACKER_CONFIG", str(folder / "config.toml"))
    return folder


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    return folder


def _args(**given: Any) -> argparse.Namespace:
    """`tracker serve`'s arguments with no options, then `given`."""
    args = defaults()
    for name, value in given.items():
        setattr(args, name, value)
    return args


def _bare(**given: Any) -> argparse.Namespace:
    """What a table started from Python passes: only the options it has always had."""
    args = argparse.Namespace(host="127.0.0.1", port=0, gm_keys=None, viewer_keys=None, open_viewers=False, encounter=None,
                              host_key=None, max_connections=32, idle_timeout=3600.0)
    for name, value in given.items():
        setattr(args, name, value)
    return args


def _refusal(args: argparse.Namespace, saves: Path) -> str:
    with pytest.raises(TrackerError) as refused:
        ServeOptions.from_args(args, saves)
    return str(refused.value)


def test_no_options_are_the_guides(keys: Path, saves: Path) -> None:
    got = ServeOptions.from_args(_args(), saves)
    assert got == ServeOptions(
        saves=saves.resolve(), host="127.0.0.1", port=8022, gm_keys=None, viewer_keys=None, open_viewers=False,
        players_keys=None, encounter=None, campaign=None, host_key=keys / "host_key", max_connections=32, gm_seats=2,
        idle_timeout=3600.0, startups=Startups(10, 30, 100), per_source=30, login_grace=10.0, spawn="fork",
        viewers_per_process=25, python=sys.executable,
    )
    # A table started from Python with no options runs as `tracker serve` with none.
    assert ServeOptions(saves=saves.resolve(), host_key=keys / "host_key") == got


def test_a_table_from_python_gets_the_same_defaults(keys: Path, saves: Path) -> None:
    got = ServeOptions.from_args(_bare(), saves)
    assert (got.gm_seats, got.startups, got.per_source, got.login_grace, got.spawn, got.viewers_per_process, got.players_keys,
            got.campaign) == (2, Startups(10, 30, 100), 30, 10.0, "fork", 25, None, None)


def test_the_saves_folder_is_made_absolute(keys: Path, tmp_path: Path, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ServeOptions.from_args(_args(), Path("saves")).saves == saves.resolve()


def test_every_option_given_is_kept(keys: Path, saves: Path, tmp_path: Path) -> None:
    got = ServeOptions.from_args(_args(host="0.0.0.0", port=2222, gm_keys="gm.txt", viewer_keys="v.txt", players_keys="p.txt",
                                       open_viewers=1, host_key=str(tmp_path / "hk"), max_connections=8, gm_seats=3.0,
                                       idle_timeout=60, max_startups="4:50:6", per_source_startups=5.0, login_grace=3,
                                       spawn="exec", viewers_per_process=2.0), saves)
    assert got == ServeOptions(
        saves=saves.resolve(), host="0.0.0.0", port=2222, gm_keys="gm.txt", viewer_keys="v.txt", open_viewers=True,
        players_keys="p.txt", host_key=tmp_path / "hk", max_connections=8, gm_seats=3, idle_timeout=60.0,
        startups=Startups(4, 50, 6), per_source=5, login_grace=3.0, spawn="exec", viewers_per_process=2,
    )
    # Counts are whole numbers and seconds numbers of seconds, whatever Python handed in.
    assert [type(v) for v in (got.gm_seats, got.per_source, got.viewers_per_process)] == [int, int, int]
    assert [type(v) for v in (got.idle_timeout, got.login_grace, got.open_viewers)] == [float, float, bool]
    assert isinstance(got.host_key, Path)
    assert got.admission == Admission(Startups(4, 50, 6), per_source=5, max_connections=8, gm_seats=3)


@pytest.mark.parametrize(("seats", "kept"), [(32, 2), (5, 2), (4, 2), (3, 1), (2, 1), (1, 0)])
def test_gm_seats_at_most_half_the_table_unless_asked(keys: Path, saves: Path, seats: int, kept: int) -> None:
    """Default 2, but never more than half the seats unless given: a two-seat table keeps one."""
    assert ServeOptions.from_args(_args(max_connections=seats), saves).gm_seats == kept
    assert ServeOptions.from_args(_bare(max_connections=seats), saves).gm_seats == kept


def test_gm_seats_asked_for_may_be_none_or_every_seat(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(max_connections=4, gm_seats=4), saves).gm_seats == 4
    assert ServeOptions.from_args(_args(max_connections=4, gm_seats=0), saves).gm_seats == 0
    assert _refusal(_args(max_connections=4, gm_seats=5), saves) == "--gm-seats: expected 0 to --max-connections (4), got 5"
    assert _refusal(_args(max_connections=4, gm_seats=-1), saves) == "--gm-seats: expected 0 to --max-connections (4), got -1"


def test_a_table_has_a_seat_at_least(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(max_connections=1), saves).max_connections == 1
    assert _refusal(_args(max_connections=0), saves) == "--max-connections: expected at least 1, got 0"
    assert _refusal(_args(max_connections=-3, gm_seats=0), saves) == "--max-connections: expected at least 1, got -3"


def test_the_idle_timeout_is_above_zero(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(idle_timeout=0.5), saves).idle_timeout == 0.5
    assert _refusal(_args(idle_timeout=0.0), saves) == "--idle-timeout: expected a number of seconds above 0, got 0"
    assert _refusal(_args(idle_timeout=-1.5), saves) == "--idle-timeout: expected a number of seconds above 0, got -1.5"


@pytest.mark.parametrize("port", [0, 1, 65535])
def test_a_port_from_0_to_65535(keys: Path, saves: Path, port: int) -> None:
    assert ServeOptions.from_args(_args(port=port), saves).port == port


@pytest.mark.parametrize("port", [-1, 65536])
def test_a_port_out_of_range_is_refused(keys: Path, saves: Path, port: int) -> None:
    assert _refusal(_args(port=port), saves) == f"--port: expected 0-65535, got {port}"


def test_max_startups_and_the_per_source_limit_never_past_full(keys: Path, saves: Path) -> None:
    """`--max-startups N` is N:100:N (OpenSSH); the per-source limit defaults to 30 but
    never more than FULL."""
    got = ServeOptions.from_args(_args(max_startups="4"), saves)
    assert (got.startups, got.per_source) == (Startups(4, 100, 4), 4)
    got = ServeOptions.from_args(_args(max_startups="10:30:40"), saves)
    assert (got.startups, got.per_source) == (Startups(10, 30, 40), 30)
    assert ServeOptions.from_args(_args(max_startups="4", per_source_startups=9), saves).per_source == 9
    assert ServeOptions.from_args(_args(per_source_startups=1), saves).per_source == 1
    assert _refusal(_args(per_source_startups=0), saves) == "--per-source-startups: expected at least 1, got 0"
    assert _refusal(_args(max_startups="0"), saves).startswith("--max-startups: expected N or START:RATE:FULL")


def test_the_login_grace_is_above_zero(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(login_grace=0.25), saves).login_grace == 0.25
    assert _refusal(_args(login_grace=0.0), saves) == "--login-grace: expected a number of seconds above 0, got 0"
    assert _refusal(_args(login_grace=-2.5), saves) == "--login-grace: expected a number of seconds above 0, got -2.5"


def test_spawn_fork_or_exec(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(spawn=None), saves).spawn == "fork"
    assert ServeOptions.from_args(_args(spawn="exec"), saves).spawn == "exec"
    assert _refusal(_args(spawn="thread"), saves) == "--spawn: expected fork or exec, got thread"


def test_viewers_per_process_one_at_least(keys: Path, saves: Path) -> None:
    assert ServeOptions.from_args(_args(viewers_per_process=1), saves).viewers_per_process == 1
    assert _refusal(_args(viewers_per_process=0), saves) == "--viewers-per-process: expected at least 1, got 0"


def test_the_options_read_in_the_order_of_the_command_line(keys: Path, saves: Path) -> None:
    """Each bad option is named on its own: the first wrong one is the one said."""
    assert _refusal(_args(max_connections=0, idle_timeout=0), saves).startswith("--max-connections")
    assert _refusal(_args(idle_timeout=0, port=-1), saves).startswith("--idle-timeout")
    assert _refusal(_args(port=-1, per_source_startups=0), saves).startswith("--port")
    assert _refusal(_args(per_source_startups=0, login_grace=0), saves).startswith("--per-source-startups")
    assert _refusal(_args(login_grace=0, spawn="x"), saves).startswith("--login-grace")
    assert _refusal(_args(spawn="x", viewers_per_process=0), saves).startswith("--spawn")


def test_an_encounter_is_a_save_in_the_saves_folder(keys: Path, saves: Path) -> None:
    assert cli("new", str(saves / "fight.toml"), "--ruleset", "freeform", "--name", "Seraph vs Sphinx")[0] == 0
    assert ServeOptions.from_args(_args(encounter="fight"), saves).encounter == saves.resolve() / "fight.toml"
    said = _refusal(_args(encounter="nowhere"), saves)
    assert "--encounter" in said and "nowhere" in said


def test_a_campaign_is_served_from_its_own_folder(keys: Path, saves: Path, tmp_path: Path) -> None:
    """The campaign's fights live beside it: its folder must be the one served."""
    assert ServeOptions.from_args(_args(campaign="road"), saves).campaign == saves.resolve() / "road.campaign.toml"
    assert ServeOptions.from_args(_bare(campaign="road"), saves).campaign == saves.resolve() / "road.campaign.toml"
    # Named by a path through a link to the saves folder: the saves folder's own name for it.
    (tmp_path / "link").symlink_to(saves)
    assert ServeOptions.from_args(_args(campaign=str(tmp_path / "link" / "road")), saves).campaign == saves.resolve() / "road.campaign.toml"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    said = _refusal(_args(campaign=str(elsewhere / "road")), saves)
    assert said == (f"--campaign {elsewhere / 'road'}: a served campaign and its fights live in the saves folder ({saves.resolve()}); "
                    f"serve that folder with --saves {elsewhere}")


def test_a_campaign_and_an_encounter_are_not_both_given(keys: Path, saves: Path) -> None:
    assert cli("new", str(saves / "fight.toml"), "--ruleset", "freeform", "--name", "Seraph vs Sphinx")[0] == 0
    said = _refusal(_args(campaign="road", encounter="fight"), saves)
    assert said == ("--campaign: the table is the campaign's fight (the one under way, else the latest); leave out --encounter, "
                    "and open another of its fights from the GM's start screen")
    assert ServeOptions.from_args(_args(campaign=None, encounter="fight"), saves).campaign is None
    assert ServeOptions.from_args(_args(campaign="", encounter="fight"), saves).campaign is None


def test_a_host_key_left_in_the_saves_folder_stops_the_start(keys: Path, saves: Path, tmp_path: Path) -> None:
    """docs/decisions/0040: the host key no longer lives in the saves folder; one left
    there by an older version is to be moved, unless --host-key names the key."""
    old = saves / ".tracker_host_key"
    old.write_text("key")
    said = _refusal(_args(), saves)
    assert said.startswith(f"{saves.resolve() / '.tracker_host_key'}: keys files and the host key no longer live in the saves folder")
    assert f"mv {saves.resolve() / '.tracker_host_key'} {keys / 'host_key'}" in said and "(or name it with --host-key FILE)" in said
    assert ServeOptions.from_args(_args(host_key=str(tmp_path / "hk")), saves).host_key == tmp_path / "hk"
    os.remove(old)
    assert ServeOptions.from_args(_args(), saves).host_key == keys / "host_key"
