"""Direct tests of tracker.serve.preload: the app and the table's fight loaded once in the
server and inherited by every forked app (the module docstring, docs/guide/serve.md on
`--spawn fork`, docs/decisions/0036-serve-processes.md). What touches the collector's
frozen generation runs in a forked child, so this process's own stays as it was."""

from __future__ import annotations

import gc
import json
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tracker.serve.preload as preload_module
from tests.helpers import cli
from tracker.serve.keys import VIEWER
from tracker.serve.preload import Preloaded, preload, release_free_memory, reload_frozen

NAME = "Seraph vs Sphinx"


def _in_child(work: Callable[[], Any]) -> Any:
    """`work`'s answer (JSON), worked out in a forked child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            answer = json.dumps({"ok": work()})
        except BaseException as exc:  # the child must never return into the test run
            answer = json.dumps({"error": repr(exc)})
        os.write(w, answer.encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as got:
        data = got.read()
    os.waitpid(pid, 0)
    answer = json.loads(data)
    assert "error" not in answer, answer
    return answer["ok"]


def test_preload_imports_every_screen_and_ruleset_then_freezes() -> None:
    def work() -> dict[str, Any]:
        import pkgutil
        import sys

        import rulesets
        import tracker.ui.screens

        gc.unfreeze()
        preload()
        wanted = [i.name for p in (tracker.ui.screens, rulesets) for i in pkgutil.iter_modules(p.__path__, p.__name__ + ".")]
        return {"missing": [n for n in wanted + ["tracker.serve.seat", "tracker.ui.app"] if n not in sys.modules],
                "wanted": len(wanted), "frozen": gc.get_freeze_count()}

    got = _in_child(work)
    assert got["missing"] == [] and got["wanted"] > 10
    assert got["frozen"] > 0


def test_a_module_that_fails_to_import_does_not_stop_the_preload() -> None:
    """It fails in the app, with a message; the server still starts."""
    def work() -> dict[str, Any]:
        import importlib
        import sys

        real = importlib.import_module

        def failing(name: str, package: str | None = None) -> Any:
            if name.endswith(".help"):
                raise ImportError(f"{name} is broken")
            return real(name, package)

        importlib.import_module = failing
        gc.unfreeze()
        preload()
        return {"help": "tracker.ui.screens.help" in sys.modules, "freeze": gc.get_freeze_count()}

    got = _in_child(work)
    assert got["freeze"] > 0


def test_preload_freezes_only_what_lives() -> None:
    """Collected first, then frozen: garbage is not kept in every fork."""
    def work() -> bool:
        class Knot:
            pass

        gc.unfreeze()
        gc.disable()
        a = Knot()
        a.me = a  # type: ignore[attr-defined]
        gone = weakref.ref(a)
        del a
        preload()
        return gone() is None

    assert _in_child(work)


def test_reload_frozen_lets_what_the_server_dropped_go_and_freezes_the_rest() -> None:
    def work() -> dict[str, Any]:
        class Knot:
            pass

        gc.disable()  # only the calls under test collect
        a = Knot()
        a.me = a  # type: ignore[attr-defined]
        gone = weakref.ref(a)
        gc.freeze()
        del a
        gc.collect()
        frozen_kept = gone() is not None  # frozen: never collected
        trimmed: list[int] = []
        preload_module.release_free_memory = lambda: trimmed.append(gc.get_freeze_count())
        kept = [Knot()]
        reload_frozen()
        return {"frozen_kept": frozen_kept, "collected": gone() is None, "trimmed": trimmed, "frozen": gc.get_freeze_count(),
                "kept": len(kept)}

    got = _in_child(work)
    assert got["frozen_kept"] and got["collected"]
    assert got["trimmed"] == [0]  # memory given back while nothing was frozen
    assert got["frozen"] > 0 and got["kept"] == 1


class _Libc:
    """A stand-in for the C library: what `release_free_memory` asked of it."""

    asked: list[tuple[str, Any]] = []

    def __init__(self, name: str) -> None:
        self.asked.append(("open", name))

    def malloc_trim(self, pad: int) -> int:
        self.asked.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    import ctypes
    import ctypes.util

    asked: list[tuple[str, Any]] = []
    monkeypatch.setattr(_Libc, "asked", asked)
    monkeypatch.setattr(ctypes, "CDLL", _Libc)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so.6")
    return asked


def test_free_memory_given_back_to_glibc(libc: list[tuple[str, Any]]) -> None:
    release_free_memory()
    assert libc == [("open", "libc.so.6"), ("malloc_trim", 0)]


def test_no_c_library_nothing_asked(libc: list[tuple[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes.util

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    release_free_memory()
    assert libc == []


def test_a_c_library_without_malloc_trim(monkeypatch: pytest.MonkeyPatch, libc: list[tuple[str, Any]]) -> None:
    import ctypes

    class Other:
        def __init__(self, name: str) -> None:
            libc.append(("open", name))

    monkeypatch.setattr(ctypes, "CDLL", Other)
    release_free_memory()
    assert libc == [("open", "libc.so.6")]


@pytest.mark.parametrize("error", [OSError("no such library"), AttributeError("no symbol"), ValueError("embedded null")])
def test_a_c_library_that_cannot_be_asked_is_no_error(monkeypatch: pytest.MonkeyPatch, libc: list[tuple[str, Any]], error: Exception) -> None:
    import ctypes

    def fails(name: str) -> None:
        raise error

    monkeypatch.setattr(ctypes, "CDLL", fails)
    release_free_memory()
    assert libc == []


def test_the_real_c_library_is_asked_without_error() -> None:
    release_free_memory()


# ------------------------------------------------------------------ the table's fight, loaded once


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    saves = tmp_path / "saves"
    saves.mkdir()
    file = saves / "fight.toml"
    assert cli("new", str(file), "--ruleset", "freeform", "--name", NAME)[0] == 0
    assert cli("play", str(file), stdin="add Seraph hp=20\nadd Sphinx hp=30\n")[0] == 0
    return file


def test_the_fight_loaded_once_for_viewers(fight: Path) -> None:
    loaded = Preloaded(fight, fight.parent)
    assert (loaded.path, loaded.saves, loaded.name) == (fight, fight.parent, NAME)
    assert list(loaded.live.encounter.combatants) == ["Seraph", "Sphinx"]
    assert loaded.live.viewer and loaded.live.role.is_viewer  # followed as a viewer: it never writes
    assert loaded.usable(fight) is loaded.live
    assert loaded.usable(fight.parent / "other.toml") is None  # another fight: the app opens its own


def test_kept_current_and_not_handed_out_half_refreshed(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = Preloaded(fight, fight.parent)
    assert not loaded.changed()
    assert cli("play", str(fight), stdin="add Nyx hp=8\n")[0] == 0
    assert loaded.changed()
    seen: list[Any] = []
    polled = loaded.live.poll

    def poll() -> Any:
        seen.append(loaded.busy.locked())
        seen.append(loaded.usable(fight))
        return polled()

    monkeypatch.setattr(loaded.live, "poll", poll)
    loaded.refresh()
    assert seen == [True, None]  # refreshing: a new app loads the file itself
    assert list(loaded.live.encounter.combatants) == ["Seraph", "Sphinx", "Nyx"]
    assert not loaded.changed() and not loaded.busy.locked()
    assert loaded.usable(fight) is loaded.live


def test_a_refresh_elsewhere_holds_new_apps_off(fight: Path) -> None:
    loaded = Preloaded(fight, fight.parent)
    with loaded.busy:
        assert loaded.usable(fight) is None
        other = threading.Thread(target=lambda: seen.append(loaded.usable(fight)))
        seen: list[Any] = []
        other.start()
        other.join()
        assert seen == [None]
    assert loaded.usable(fight) is loaded.live


def test_a_viewers_app_on_the_inherited_fight(fight: Path) -> None:
    loaded = Preloaded(fight, fight.parent)
    app = loaded.viewer_app("the GM moved the table")
    assert app.live is loaded.live and app.viewer and app.role is None
    assert (app.file, app.saves) == (fight, fight.parent)
    assert app.seat is not None
    assert (app.seat.kind, app.seat.fight, app.seat.notice, app.seat.moved) == (VIEWER, NAME, "the GM moved the table", None)
    assert loaded.live.role.is_viewer and loaded.live.session.user == ""  # a viewer signs nothing
