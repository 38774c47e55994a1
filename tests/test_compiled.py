"""Dataclass methods compiled once per installation (tracker.compiled): the methods are
exactly the ones Python's dataclasses module makes, a text compiled once is read back
from the kept file in the next process instead of being compiled, and a kept file that is
damaged, of another version or cannot be written changes nothing but the time."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tracker import compiled

ROOT = Path(__file__).resolve().parent.parent


def make_classes() -> list[type]:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Blow:
        target: str
        amount: int = 3
        notes: tuple[str, ...] = ()

    @dataclasses.dataclass(order=True)
    class Segment:
        number: int
        label: str = ""
        tags: list[str] = dataclasses.field(default_factory=list)

    return [Blow, Segment]


KNOWN = sys.version_info[:2] in compiled._KNOWN
# Python 3.13 builds a class's methods in one compilation under another function's name:
# nothing is replaced there (tracker.compiled), which the last tests hold on any Python.
only_where_known = pytest.mark.skipif(not KNOWN, reason=f"Python {sys.version_info[0]}.{sys.version_info[1]}: tracker.compiled replaces nothing here")

METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__", "__ge__")


@only_where_known
def test_the_methods_are_the_dataclass_modules_own(monkeypatch: pytest.MonkeyPatch) -> None:
    assert compiled.install()  # the tracker package installed it already; again: a no-op
    assert getattr(dataclasses, "_create_fn") is compiled.create_fn
    ours = make_classes()
    monkeypatch.setattr(dataclasses, "_create_fn", compiled.original)
    theirs = make_classes()
    for mine, stdlib in zip(ours, theirs):
        for name in METHODS:
            a, b = mine.__dict__.get(name), stdlib.__dict__.get(name)
            assert (a is None) == (b is None), name
            if a is None or not hasattr(a, "__code__"):
                continue
            assert a.__code__.co_code == b.__code__.co_code, name
            assert a.__code__.co_consts == b.__code__.co_consts, name
            assert a.__code__.co_names == b.__code__.co_names, name
            assert a.__code__.co_filename == b.__code__.co_filename, name  # "<string>" (a repr: its wrapper's)
            # No future feature of tracker.compiled leaks in: annotations stay objects.
            assert a.__annotations__ == b.__annotations__, name
    blow = ours[0]("Sphinx")
    assert repr(blow).endswith("Blow(target='Sphinx', amount=3, notes=())")
    assert blow == ours[0]("Sphinx") and hash(blow) == hash(ours[0]("Sphinx"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        blow.amount = 4  # type: ignore[misc]
    assert ours[1](1) < ours[1](2)
    assert ours[0].__init__.__annotations__["return"] is None


def test_a_kept_file_reads_back_and_a_damaged_one_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.marshal"
    text = "def __create_fn__():\n def f(x):\n  return x + 1\n return f"
    code = compile(text, "<string>", "exec", dont_inherit=True)
    compiled.write(path, {text: marshal.dumps(code)})
    assert compiled.read(path) == {text: marshal.dumps(code)}
    assert marshal.loads(compiled.read(path)[text]) == code
    good = path.read_bytes()
    for damaged in (b"", good[:4], good[: len(good) // 2], b"\0\0\0\0" + good[4:], good[:4] + b"not marshal at all", good[:4] + marshal.dumps([1, 2]), good[:4] + marshal.dumps({text: code})):
        path.write_bytes(damaged)
        assert compiled.read(path) == {}
    assert compiled.read(tmp_path / "missing") == {}


def test_a_file_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    blocked = tmp_path / "a file" / "dataclasses.marshal"  # its folder is a file
    (tmp_path / "a file").write_text("")
    compiled.write(blocked, {})
    assert not blocked.exists() and (tmp_path / "a file").read_text() == ""
    assert not list(tmp_path.glob("**/*.tmp"))


@only_where_known
def test_the_next_process_reads_what_the_first_compiled(tmp_path: Path) -> None:
    # A copy of the package, so the kept file is this test's own.
    package = tmp_path / "tracker"
    package.mkdir()
    for name in ("__init__.py", "compiled.py"):
        (package / name).write_text((ROOT / "tracker" / name).read_text())
    script = textwrap.dedent(
        """
        import dataclasses, sys
        import tracker.compiled as c
        @dataclasses.dataclass(frozen=True)
        class Bout:
            round: int
            loser: str = "Sphinx"
        assert Bout(1) == Bout(1) and repr(Bout(2)) == "Bout(round=2, loser='Sphinx')"
        print(len(c.kept_code), c.new_code)
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path)
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert first.returncode == 0, first.stderr
    kept = package / "__pycache__" / f"dataclasses.{sys.implementation.cache_tag}.marshal"
    assert kept.is_file()
    assert first.stdout.split()[1] == "True"  # it compiled
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == [first.stdout.split()[0], "False"]  # nothing compiled: all read back
    # PYTHONDONTWRITEBYTECODE: read, never written.
    kept.unlink()
    third = subprocess.run([sys.executable, "-c", script], env=dict(env, PYTHONDONTWRITEBYTECODE="1"), capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert third.returncode == 0, third.stderr
    assert not kept.exists()


def test_an_unknown_python_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    if KNOWN:
        monkeypatch.setattr(dataclasses, "_create_fn", compiled.original)
    monkeypatch.setattr(compiled, "_KNOWN", ())
    assert not compiled.install()
    assert getattr(dataclasses, "_create_fn", None) is not compiled.create_fn


def test_the_running_python_is_replaced_only_where_known() -> None:
    """3.11 and 3.12: the tracker package installed it as it was imported; any other
    (3.13 and later): dataclasses is as Python made it, and its classes still work."""
    assert (getattr(dataclasses, "_create_fn", None) is compiled.create_fn) == KNOWN
    assert compiled.install() == KNOWN
    [blow, segment] = make_classes()
    assert blow("Sphinx") == blow("Sphinx") and segment(1) < segment(2)


def test_an_entry_that_is_not_code_is_compiled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "def __create_fn__():\n def g():\n  return 'Seraph'\n return g"
    monkeypatch.setattr(compiled, "kept_code", {text: b"\x00not code"})
    monkeypatch.setattr(compiled, "_used", {})
    monkeypatch.setattr(compiled, "new_code", False)
    namespace: dict[str, object] = {}
    exec(compiled.compiled(text), {}, namespace)
    assert namespace["__create_fn__"]()() == "Seraph"  # type: ignore[operator]
    assert compiled.new_code and marshal.loads(compiled.kept_code[text]).co_filename == "<string>"

