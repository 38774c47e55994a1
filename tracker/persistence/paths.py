"""Where encounter files live, and the worked examples the tracker ships.

The saves folder is the first of: `--saves DIR` (before or after the command),
`$TRACKER_SAVES`, a `saves` folder in the current directory that holds the marker file
`.tracker-saves` (a clone has one), else `saves` in the user's data folder
(platformdirs: e.g. `~/.local/share/segment-tracker/saves` on Linux).

Decisions: docs/decisions/0029-saves-folder.md
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from tracker.engine.errors import TrackerError

SUFFIX = ".toml"
APP_NAME = "segment-tracker"
MARKER = ".tracker-saves"  # a ./saves holding this file is the saves folder


@dataclass(frozen=True, slots=True)
class Saves:
    """The saves folder, and where the choice of it came from."""

    path: Path
    source: str  # "--saves", "TRACKER_SAVES", "./saves" or "user data folder"


def _marked_here() -> bool:
    return (Path("saves") / MARKER).is_file()


def user_saves() -> Path:
    from platformdirs import user_data_path  # only when no nearer folder is there

    return user_data_path(APP_NAME, appauthor=False) / "saves"


def locate(option: str | None = None) -> Saves:
    if option:
        return Saves(Path(option), "--saves")
    env = os.environ.get("TRACKER_SAVES")
    if env:
        return Saves(Path(env), "TRACKER_SAVES")
    if _marked_here():
        return Saves(Path("saves"), "./saves")
    return Saves(user_saves(), "user data folder")


def origin(saves: Path) -> str:
    """How a saves folder was chosen, as a sentence part (for messages): `locate` is
    deterministic, so this is read back from the same sources."""
    if os.environ.get("TRACKER_SAVES") and Path(os.environ["TRACKER_SAVES"]) == saves:
        return "from TRACKER_SAVES"
    if saves == Path("saves") and _marked_here():
        return f"./saves, marked by its {MARKER} file"
    if saves == user_saves():
        return "your user data folder"
    return "from --saves"


def not_found(name: str, saves: Path, looked: list[Path], option: str = "") -> TrackerError:
    """`name` names no encounter: say where we looked, how that folder was chosen, and
    how to choose another."""
    from tracker.engine.errors import TrackerError

    there = ", ".join(p.stem for p in encounter_files(saves)) or "none"
    tried = ", ".join(dict.fromkeys(str(p) for p in looked))
    unmarked = ""
    if Path("saves").is_dir() and not _marked_here() and saves != Path("saves"):
        unmarked = f"; the ./saves folder here is not used without a {MARKER} file in it (or use --saves saves)"
    label = f"{option} {name}" if option else name
    return TrackerError(
        f"{label}: no such encounter in {saves} ({origin(saves)}; looked for {tried}; there: {there}). "
        f"Choose another folder with --saves DIR or TRACKER_SAVES=DIR{unmarked}"
    )


def prepare(saves: Saves) -> Path:
    """The folder the app lists: the user data folder is created with the examples on first use."""
    if saves.source == "user data folder" and not saves.path.exists():
        copy_examples(saves.path)
    return saves.path


EXAMPLES_PACKAGE = "tracker.examples"  # pyproject.toml maps it onto the repository's saves/


def example_files() -> list[Traversable]:
    """The shipped worked examples, read as package data (`tracker.examples`: a wheel,
    pipx, uv tool, or a tree on PYTHONPATH that was built). A clone or an editable
    install has no such package (setuptools' editable finder cannot map a folder with no
    `__init__.py` under a package) and reads the clone's `saves/`, which it is made from."""
    from importlib import resources  # only when examples are copied: not on every start

    try:
        folder: Traversable = resources.files(EXAMPLES_PACKAGE)
    except ModuleNotFoundError:
        folder = Path(__file__).resolve().parents[2] / "saves"  # tracker/persistence/ -> the clone
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.name.endswith(SUFFIX) and p.is_file()), key=lambda p: p.name)


def copy_examples(saves: Path, *, force: bool = False) -> tuple[list[Path], list[Path]]:
    """Copy the worked examples into `saves`: (copied, skipped because a file is there).

    The saves folder may be shared (tracker.persistence.folder): anything already at an
    example's name, a symbolic link included wherever it leads, counts as there and is
    kept; with `force` it is replaced, a link by the example itself (its target is never
    written). Each copy is an atomic write inside the folder."""
    from tracker.engine.errors import TrackerError
    from tracker.persistence import folder

    copied: list[Path] = []
    skipped: list[Path] = []
    try:
        saves.mkdir(parents=True, exist_ok=True)
        for source in example_files():
            target = saves / source.name
            if folder.exists(target) and (not force or _same_file(source, target)):
                skipped.append(target)
                continue
            folder.replace(target, source.read_bytes(), follow=False, what="save")
            copied.append(target)
    except OSError as exc:
        raise TrackerError(f"{getattr(exc, 'filename', None) or saves}: the worked examples cannot be copied there: {exc.strerror or exc}") from None
    return copied, skipped


def _same_file(source: Traversable, target: Path) -> bool:
    """`target` is `source` itself, not through a link (a clone whose saves folder is the examples')."""
    if not isinstance(source, Path):
        return False  # an example inside a zip archive is no file of the folder's
    here, there = os.stat(source), os.lstat(target)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def slug(name: str) -> str:
    """The file name (without .toml) an encounter titled `name` is saved under."""
    text = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return text or "encounter"


def resolve(name: str, saves: Path, *, must_exist: bool = True) -> Path:
    """A FILE argument: a path as given if it exists (or has a folder part), else NAME[.toml]
    in the saves folder, else the file an encounter titled NAME is saved under
    ("Ruined Temple BX" -> ruined-temple-bx.toml, as the start screen names it)."""
    given = Path(name)
    if given.exists() or given.parent != Path("."):
        return given
    in_saves = saves / (name if name.endswith(SUFFIX) else name + SUFFIX)
    if in_saves.exists():
        return in_saves
    by_title = saves / (slug(name.removesuffix(SUFFIX)) + SUFFIX)
    if by_title.exists():
        return by_title
    if not must_exist:
        return in_saves
    raise not_found(name, saves, [given, in_saves, by_title])


def encounter_option(name: str, saves: Path, option: str = "--encounter") -> Path:
    """The save `--encounter NAME` names (`tracker serve`, `tracker web`), as an absolute
    path whose last component is not resolved, so the save is still opened through its
    folder: a link leading out of it, a FIFO or an oversize file is refused here, at
    start, with the reason (tracker.persistence.folder)."""
    from tracker.engine.errors import TrackerError
    from tracker.persistence import folder
    from tracker.persistence.codec import MAX_SAVE_BYTES

    path = resolve(name, saves, must_exist=False)
    path = Path(os.path.abspath(path.parent)) / path.name
    why = folder.refusal(path, MAX_SAVE_BYTES, "save")
    if why:
        raise TrackerError(f"{option} {name}: refused: {why}")
    if not path.is_file():
        raise not_found(name, saves, [path], option)
    return path


CAMPAIGN_SUFFIX = ".campaign.toml"  # tracker.persistence.campaign_file.SUFFIX: a campaign, not a fight


def encounter_files(saves: Path) -> list[Path]:
    if not saves.is_dir():
        return []
    # library-<ruleset>.toml holds sheets and NAME.campaign.toml a campaign, not an encounter.
    return sorted(p for p in saves.iterdir() if p.suffix == SUFFIX and not p.name.startswith((".", "library-")) and not p.name.endswith(CAMPAIGN_SUFFIX))


def campaign_files(saves: Path) -> list[Path]:
    if not saves.is_dir():
        return []
    return sorted(p for p in saves.iterdir() if p.name.endswith(CAMPAIGN_SUFFIX) and not p.name.startswith("."))
