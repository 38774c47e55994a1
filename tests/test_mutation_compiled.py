"""Direct tests of tracker.compiled (its module docstring; docs/decisions/0059-first-screen.md):
the kept file beside the tracker's bytecode (Python's magic number, then each text with its
code marshalled apart; anything else read as nothing), written whole by a rename or not at
all, only when something was compiled and bytecode may be written, at most `MAX_KEPT`
texts (past that only those this process used); each method's text exactly the one
`dataclasses._create_fn` of Python 3.11 and 3.12 writes, compiled as `exec` compiles it
there, or read back from the file; installed once, only on those versions.

Every test puts the module's state back as it was (monkeypatch), so the process's own
classes are not disturbed."""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tracker import compiled

MAGIC = importlib.util.MAGIC_NUMBER
TEXT = "def __create_fn__():\n def f(x):\n  return x + 1\n return f"
OTHER = "def __create_fn__():\n def f(x):\n  return x * 10\n return f"
KNOWN = sys.version_info[:2] in ((3, 11), (3, 12))
only_where_known = pytest.mark.skipif(not KNOWN, reason="tracker.compiled replaces nothing on this Python")


def code_of(text: str) -> Any:
    return compile(text, "<string>", "exec", dont_inherit=True)


def run(code: Any) -> Any:
    namespace: dict[str, Any] = {}
    exec(code, {}, namespace)
    return namespace["__create_fn__"]()


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module as before any class: nothing kept, nothing used, nothing compiled."""
    monkeypatch.setattr(compiled, "kept_code", {})
    monkeypatch.setattr(compiled, "_used", {})
    monkeypatch.setattr(compiled, "new_code", False)
    monkeypatch.setattr(compiled, "_path", None)
    monkeypatch.setattr(compiled, "original", compiled.original)


# ------------------------------------------------------------------ the file's place
def test_the_file_is_beside_the_trackers_own_bytecode() -> None:
    package = Path(compiled.__file__).parent
    expected = Path(importlib.util.cache_from_source(str(package / "__init__.py"))).parent / f"dataclasses.{sys.implementation.cache_tag}.marshal"
    assert compiled.cache_file() == expected
    assert expected.parent.name == "__pycache__" and expected.parent.parent == package


def test_a_python_with_no_bytecode_cache_keeps_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.implementation, "cache_tag", None)
    assert compiled.cache_file() is None


# ------------------------------------------------------------------ reading and writing
def test_a_file_written_reads_back_text_by_text(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "dataclasses.marshal"  # its folders are made
    kept = {TEXT: marshal.dumps(code_of(TEXT)), OTHER: marshal.dumps(code_of(OTHER))}
    compiled.write(path, kept)
    data = path.read_bytes()
    assert data == MAGIC + marshal.dumps(kept)  # the magic number, then the texts with their code
    assert compiled.read(path) == kept
    assert run(marshal.loads(compiled.read(path)[OTHER]))(4) == 40
    assert sorted(p.name for p in path.parent.iterdir()) == ["dataclasses.marshal"]  # no temporary left


def test_a_file_written_again_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.marshal"
    compiled.write(path, {TEXT: b"1"})
    compiled.write(path, {OTHER: b"2"})
    assert compiled.read(path) == {OTHER: b"2"}


@pytest.mark.parametrize("data", [
    b"",
    MAGIC[:3],
    b"\0\0\0\0" + marshal.dumps({TEXT: b"x"}),  # another version's
    MAGIC + marshal.dumps({TEXT: b"x"})[:-2],  # cut short
    MAGIC + b"\xff\xfe not marshal",
    MAGIC + marshal.dumps([TEXT]),  # not a table
    MAGIC + marshal.dumps({1: b"x"}),  # a key not a text
    MAGIC + marshal.dumps({TEXT: "x"}),  # code not bytes
    MAGIC + marshal.dumps({TEXT: b"x", OTHER: 2}),  # one entry wrong is the whole file wrong
])
def test_a_file_of_another_version_or_damaged_reads_as_nothing(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "dataclasses.marshal"
    path.write_bytes(data)
    assert compiled.read(path) == {}


def test_a_missing_or_unreadable_file_reads_as_nothing(tmp_path: Path) -> None:
    assert compiled.read(tmp_path / "missing") == {}
    assert compiled.read(tmp_path) == {}  # a folder


def test_an_empty_table_reads_back_empty(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.marshal"
    path.write_bytes(MAGIC + marshal.dumps({}))
    assert compiled.read(path) == {}


def test_a_file_that_cannot_be_put_in_place_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.marshal"
    path.mkdir()  # the rename onto a folder fails
    (path / "inside").write_text("kept")
    compiled.write(path, {TEXT: b"x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataclasses.marshal"]
    assert (path / "inside").read_text() == "kept"


def test_the_temporary_is_named_for_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dataclasses.marshal"
    renamed: list[tuple[str, str]] = []
    monkeypatch.setattr(os, "replace", lambda a, b: renamed.append((str(a), str(b))))
    compiled.write(path, {TEXT: b"x"})
    assert renamed == [(str(tmp_path / f"dataclasses.marshal.{os.getpid()}.tmp"), str(path))]
    assert (tmp_path / f"dataclasses.marshal.{os.getpid()}.tmp").read_bytes() == MAGIC + marshal.dumps({TEXT: b"x"})


def test_a_temporary_that_cannot_be_removed_either_is_left_quietly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a file" / "dataclasses.marshal"  # its folder is a file: nothing can be written
    (tmp_path / "a file").write_text("")
    compiled.write(blocked, {TEXT: b"x"})
    assert (tmp_path / "a file").read_text() == ""


# ------------------------------------------------------------------ compiling a text
def test_a_text_not_kept_is_compiled_kept_and_marked_new(fresh: None) -> None:
    code = compiled.compiled(TEXT)
    assert code == code_of(TEXT) and code.co_filename == "<string>"
    assert run(code)(1) == 2
    assert compiled.kept_code == {TEXT: marshal.dumps(code)} and compiled._used == {TEXT: marshal.dumps(code)}
    assert compiled.new_code is True


def test_a_text_kept_is_read_back_not_compiled(fresh: None) -> None:
    blob = marshal.dumps(code_of(OTHER))  # the file says so: what was kept is what runs
    compiled.kept_code[TEXT] = blob
    code = compiled.compiled(TEXT)
    assert run(code)(4) == 40
    assert compiled.new_code is False and compiled._used == {TEXT: blob} and compiled.kept_code == {TEXT: blob}


@pytest.mark.parametrize("blob", [b"", b"\xff\xfe", marshal.dumps(5), marshal.dumps("text")])
def test_an_entry_that_is_not_code_is_compiled_again(fresh: None, blob: bytes) -> None:
    compiled.kept_code[TEXT] = blob
    code = compiled.compiled(TEXT)
    assert run(code)(1) == 2
    assert compiled.kept_code[TEXT] == marshal.dumps(code) == compiled._used[TEXT] and compiled.new_code is True


def test_a_text_is_compiled_without_this_modules_future_features(fresh: None) -> None:
    # tracker.compiled has `from __future__ import annotations`; the dataclasses module has not.
    text = "def __create_fn__():\n def f(x: int) -> str:\n  return str(x)\n return f"
    assert run(compiled.compiled(text)).__annotations__ == {"x": int, "return": str}


# ------------------------------------------------------------------ the method's text
@pytest.fixture
def texts(fresh: None, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = compiled.compiled

    def spy(text: str) -> Any:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(compiled, "compiled", spy)
    return seen


def test_the_text_is_the_dataclass_modules_with_locals_and_a_return_type(texts: list[str]) -> None:
    where: dict[str, Any] = {"seen": []}
    made = compiled.create_fn("__init__", ["self", "a", "b=_b"], ["self.a = a", "self.b = b", "_log.append(a)"],
                              globals=where, locals={"_b": 7, "_log": where["seen"]}, return_type=None)
    assert texts == [
        "def __create_fn__(_b, _log, _return_type):\n"
        " def __init__(self,a,b=_b)->_return_type:\n  self.a = a\n  self.b = b\n  _log.append(a)\n return __init__"
    ]
    assert made.__name__ == "__init__" and made.__annotations__ == {"return": None}

    class Box:
        pass

    box = Box()
    made(box, 3)
    assert (box.a, box.b, where["seen"]) == (3, 7, [3])  # type: ignore[attr-defined]


def test_the_text_with_no_locals_and_no_return_type(texts: list[str]) -> None:
    made = compiled.create_fn("__repr__", ["self"], ["return 'Seraph'"])
    assert texts == ["def __create_fn__():\n def __repr__(self):\n  return 'Seraph'\n return __repr__"]
    assert made(None) == "Seraph" and made.__annotations__ == {}


def test_the_functions_globals_are_those_given(texts: list[str]) -> None:
    made = compiled.create_fn("f", [], ["return WHO"], globals={"WHO": "Nyx"}, locals={})
    assert texts == ["def __create_fn__():\n def f():\n  return WHO\n return f"]
    assert made() == "Nyx"


def test_a_return_type_is_put_in_the_callers_locals(texts: list[str]) -> None:
    local: dict[str, Any] = {"x": 1}
    compiled.create_fn("f", ["a"], ["return a"], locals=local, return_type=int)
    assert local == {"x": 1, "_return_type": int}  # as the dataclasses module does


@only_where_known
def test_every_method_is_as_the_dataclass_modules_own(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def classes() -> list[type]:
        @dataclasses.dataclass(frozen=True, order=True)
        class Blow:
            target: str
            amount: int = 3
            tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)

        return [Blow]

    monkeypatch.setattr(dataclasses, "_create_fn", compiled.create_fn)
    (ours,) = classes()
    monkeypatch.setattr(dataclasses, "_create_fn", compiled.original)
    (theirs,) = classes()
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__", "__ge__"):
        a, b = ours.__dict__[name], theirs.__dict__[name]
        a = getattr(a, "__wrapped__", a)
        b = getattr(b, "__wrapped__", b)
        assert (a.__code__.co_code, a.__code__.co_consts, a.__code__.co_names) == (b.__code__.co_code, b.__code__.co_consts, b.__code__.co_names), name
    assert repr(ours("Sphinx")).endswith("Blow(target='Sphinx', amount=3, tags=())")
    assert ours("a") < ours("b") and ours("a") == ours("a") and hash(ours("a")) == hash(ours("a"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours("a").amount = 4


# ------------------------------------------------------------------ writing at the end
@pytest.fixture
def written(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[Path, dict[str, bytes]]]:
    calls: list[tuple[Path, dict[str, bytes]]] = []
    monkeypatch.setattr(compiled, "write", lambda path, kept: calls.append((path, dict(kept))))
    monkeypatch.setattr(compiled, "_path", tmp_path / "kept.marshal")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    compiled.kept_code.update({TEXT: b"1", OTHER: b"2"})
    compiled._used.update({OTHER: b"2"})
    return calls


def test_the_file_is_written_at_the_end_only_if_something_was_compiled(written: list[Any], tmp_path: Path) -> None:
    compiled._save()
    assert written == []
    compiled.new_code = True
    compiled._save()
    assert written == [(tmp_path / "kept.marshal", {TEXT: b"1", OTHER: b"2"})]


def test_nowhere_to_keep_it_or_no_bytecode_to_write_writes_nothing(written: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    compiled.new_code = True
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    compiled._save()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(compiled, "_path", None)
    compiled._save()
    assert written == []


def test_past_max_kept_only_what_this_process_used_is_kept(written: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    compiled.new_code = True
    monkeypatch.setattr(compiled, "MAX_KEPT", 2)  # exactly as many as kept: all of them
    compiled._save()
    monkeypatch.setattr(compiled, "MAX_KEPT", 1)
    compiled._save()
    assert written == [(tmp_path / "kept.marshal", {TEXT: b"1", OTHER: b"2"}), (tmp_path / "kept.marshal", {OTHER: b"2"})]


def test_max_kept_is_above_what_the_tracker_and_textual_define() -> None:
    assert compiled.MAX_KEPT == 1024


# ------------------------------------------------------------------ installing
@pytest.fixture
def bare(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Any]:
    """dataclasses as Python made it, the kept file in tmp_path, atexit recorded."""
    def stdlib_fn(*args: Any, **kwargs: Any) -> Any:
        return compiled.original(*args, **kwargs)

    monkeypatch.setattr(dataclasses, "_create_fn", stdlib_fn)
    monkeypatch.setattr(compiled, "cache_file", lambda: tmp_path / "kept.marshal")
    registered: list[Any] = []
    monkeypatch.setattr(compiled.atexit, "register", registered.append)
    return registered


@only_where_known
def test_install_puts_create_fn_in_place_reads_the_file_and_writes_it_at_exit(bare: list[Any], tmp_path: Path) -> None:
    compiled.write(tmp_path / "kept.marshal", {TEXT: b"kept"})
    before = getattr(dataclasses, "_create_fn")
    assert compiled.install() is True
    assert getattr(dataclasses, "_create_fn") is compiled.create_fn
    assert compiled.original is before and compiled._path == tmp_path / "kept.marshal"
    assert compiled.kept_code == {TEXT: b"kept"}
    assert bare == [compiled._save]
    # Once per process: again, nothing more.
    assert compiled.install() is True
    assert compiled.original is before and bare == [compiled._save]


@only_where_known
def test_install_with_nowhere_to_keep_the_file_still_compiles_as_before(bare: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "cache_file", lambda: None)
    monkeypatch.setattr(compiled, "read", lambda path: pytest.fail("nothing to read"))
    assert compiled.install() is True
    assert compiled._path is None and compiled.kept_code == {}
    assert getattr(dataclasses, "_create_fn") is compiled.create_fn


def test_install_leaves_an_unknown_python_alone(bare: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    before = getattr(dataclasses, "_create_fn")
    monkeypatch.setattr(compiled, "_KNOWN", ((3, 10),))
    assert compiled.install() is False
    assert getattr(dataclasses, "_create_fn") is before and bare == [] and compiled._path is None


@only_where_known
def test_install_leaves_a_dataclasses_without_the_function_alone(bare: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(dataclasses, "_create_fn")
    assert compiled.install() is False
    assert not hasattr(dataclasses, "_create_fn") and bare == []
    monkeypatch.setattr(dataclasses, "_create_fn", "not a function", raising=False)
    assert compiled.install() is False
    assert dataclasses._create_fn == "not a function" and bare == []  # type: ignore[attr-defined]


def test_the_versions_known_are_3_11_and_3_12() -> None:
    assert compiled._KNOWN == ((3, 11), (3, 12))
