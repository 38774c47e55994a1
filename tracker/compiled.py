"""Dataclass methods compiled once per installation, not on every start.

The `dataclasses` module of Python 3.11 and 3.12 writes each method it adds (`__init__`,
`__repr__`, `__eq__`, `__hash__`, a frozen class's `__setattr__` and `__delattr__`) as
source text and compiles it, every time the class is defined: at every start of the
tracker, for the tracker's classes and for Textual's (the app's first screen defines
some 200 dataclasses). Compiling those texts was about a sixth of all the work before the
encounter screen's first frame (docs/decisions/0059-first-screen.md).

`install()` replaces `dataclasses._create_fn` by the same function whose compiled code is
kept, by its exact text, in a file beside the tracker's own bytecode (`__pycache__`, as
Python keeps a module's compiled code beside its source): a class whose text was
compiled before is given that code, exactly what compiling the text gives; any other is
compiled as before and kept for next time. Nothing changes but the time: the text, and
so the methods, are the dataclass module's own. Python 3.13 builds every method of a
class in one compilation and names the function otherwise: there, and on any version
not known to have this function, nothing is replaced.

The file: Python's magic number for its compiled code (the version's format), then each
text with its code, marshalled apart (`marshal`), so reading the file builds only the
code a process asks for. A file that cannot be read, is of another version or is damaged
is ignored (and written again), and so is an entry that does not read back as code; one that cannot be written (a read-only
installation, PYTHONDONTWRITEBYTECODE set) is not written, and the tracker compiles as
before. It is written when the process ends, only if something was compiled, by a
rename, so processes ending together never leave half a file. It keeps at most
`MAX_KEPT` texts; past that, only the ones this process used.

Decisions: docs/decisions/0059-first-screen.md
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

MAX_KEPT = 1024  # the tracker and Textual define about 500; past this, only what one process used
_KNOWN = ((3, 11), (3, 12))  # versions whose dataclasses._create_fn this mirrors

kept_code: dict[str, bytes] = {}  # text -> its code, marshalled
_used: dict[str, bytes] = {}
new_code = False
_path: Path | None = None
original: Any = None  # the dataclasses module's own function, as it was (tests compare)


def cache_file() -> Path | None:
    """Where the compiled texts are kept: beside the tracker's bytecode (None: nowhere)."""
    source = Path(__file__).with_name("__init__.py")
    try:
        pyc = Path(importlib.util.cache_from_source(str(source)))
    except (NotImplementedError, ValueError):  # no bytecode cache on this Python
        return None
    return pyc.with_name(f"dataclasses.{sys.implementation.cache_tag}.marshal")


def read(path: Path) -> dict[str, bytes]:
    """The texts and their code (marshalled) kept in `path`; {} for a file missing, of
    another version, or damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        kept = marshal.loads(data[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict) or not all(isinstance(k, str) and isinstance(v, bytes) for k, v in kept.items()):
        return {}
    return kept


def write(path: Path, kept: dict[str, bytes]) -> None:
    """Keep `kept` in `path`, whole or not at all (a rename)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps(kept))
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass


def compiled(text: str) -> CodeType:
    """The code of `text`, as `exec(text)` in the dataclasses module compiles it (no
    future feature of this module's inherited), from the file when it was kept."""
    global new_code
    blob = kept_code.get(text)
    code = None
    if blob is not None:
        try:
            code = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            code = None
    if not isinstance(code, CodeType):
        code = compile(text, "<string>", "exec", dont_inherit=True)
        blob = kept_code[text] = marshal.dumps(code)
        new_code = True
    _used[text] = blob  # type: ignore[assignment]  # set above when missing
    return code


def create_fn(name: str, args: list[str], body: list[str], *, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None, return_type: Any = dataclasses.MISSING) -> Any:
    # dataclasses._create_fn of Python 3.11 and 3.12, line for line, but for the compiling.
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not dataclasses.MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    joined_args = ",".join(args)
    joined_body = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({joined_args}){return_annotation}:\n{joined_body}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    ns: dict[str, Any] = {}
    exec(compiled(txt), globals, ns)
    return ns["__create_fn__"](**locals)


def _save() -> None:
    if not new_code or _path is None or sys.dont_write_bytecode:
        return
    write(_path, kept_code if len(kept_code) <= MAX_KEPT else _used)


def install() -> bool:
    """Compile dataclass methods through the kept file from now on; True if installed
    (once per process; not on a Python whose dataclasses are not known here)."""
    global _path, original
    if sys.version_info[:2] not in _KNOWN or not callable(getattr(dataclasses, "_create_fn", None)):
        return False
    if getattr(dataclasses, "_create_fn") is create_fn:
        return True
    _path = cache_file()
    if _path is not None:
        kept_code.update(read(_path))
    original = getattr(dataclasses, "_create_fn")
    setattr(dataclasses, "_create_fn", create_fn)
    atexit.register(_save)
    return True
