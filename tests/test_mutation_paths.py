"""Direct tests of tracker.persistence.paths: which saves folder is used and how it was
chosen, the name a FILE argument means, the worked examples copied into a folder, and the
message when a name is not found (the module docstring; docs/decisions/0029-saves-folder.md;
docs/guide/commands.md "The saves folder"; docs/guide/troubleshooting.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.persistence import paths
from tracker.persistence.codec import MAX_SAVE_BYTES
from tracker.persistence.paths import (
    Saves,
    campaign_files,
    copy_examples,
    encounter_files,
    encounter_option,
    example_files,
    locate,
    not_found,
    origin,
    prepare,
    resolve,
    slug,
    user_saves,
)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.name for p in (ROOT / "saves").iterdir() if p.name.endswith(".toml") and p.is_file())


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current directory of its own, with no TRACKER_SAVES."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    return tmp_path


def _marked(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / ".tracker-saves").write_text("")
    return folder


# ------------------------------------------------------------------ which folder
def test_the_user_data_folder_is_saves_under_segment_trackers_data_folder() -> None:
    # conftest points XDG_DATA_HOME at a folder of its own: platformdirs' Linux data folder.
    assert user_saves() == Path(os.environ["XDG_DATA_HOME"]) / "segment-tracker" / "saves"


def test_the_saves_folder_is_the_first_of_option_environment_marked_saves_user_data(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert locate() == Saves(user_saves(), "user data folder")
    (here / "saves").mkdir()
    assert locate() == Saves(user_saves(), "user data folder")  # a ./saves by its name alone: never
    (here / "saves" / ".tracker-saves").mkdir()
    assert locate().source == "user data folder"  # the marker is a file, not a folder
    (here / "saves" / ".tracker-saves").rmdir()
    _marked(here / "saves")
    assert locate() == Saves(Path("saves"), "./saves")
    assert locate("") == Saves(Path("saves"), "./saves")  # an empty option is no option
    monkeypatch.setenv("TRACKER_SAVES", "")
    assert locate() == Saves(Path("saves"), "./saves")  # an empty variable is no variable
    monkeypatch.setenv("TRACKER_SAVES", "/elsewhere")
    assert locate() == Saves(Path("/elsewhere"), "TRACKER_SAVES")
    assert locate("mine") == Saves(Path("mine"), "--saves")


def test_origin_says_how_the_folder_was_chosen(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert origin(user_saves()) == "your user data folder"
    assert origin(Path("mine")) == "from --saves"
    assert origin(Path("saves")) == "from --saves"  # ./saves unmarked: it was named
    _marked(here / "saves")
    assert origin(Path("saves")) == "./saves, marked by its .tracker-saves file"
    monkeypatch.setenv("TRACKER_SAVES", "saves")
    assert origin(Path("saves")) == "from TRACKER_SAVES"
    assert origin(Path("other")) == "from --saves"  # the variable names another folder
    monkeypatch.setenv("TRACKER_SAVES", "")
    assert origin(Path(".")) == "from --saves"  # an empty variable (Path("") is ".") chose nothing


def test_prepare_fills_only_a_missing_user_data_folder_with_the_examples(tmp_path: Path) -> None:
    named = tmp_path / "named"
    assert prepare(Saves(named, "--saves")) == named
    assert not named.exists()  # folders the user named are never filled without being asked
    data = tmp_path / "data" / "saves"
    assert prepare(Saves(data, "user data folder")) == data
    assert sorted(p.name for p in data.iterdir()) == SHIPPED
    (data / "seraph-vs-sphinx.toml").write_text("mine")
    (data / "ogs-guard.toml").unlink()
    prepare(Saves(data, "user data folder"))  # there already: left as it is
    assert (data / "seraph-vs-sphinx.toml").read_text() == "mine"
    assert not (data / "ogs-guard.toml").exists()


# ------------------------------------------------------------------ the worked examples
def test_the_examples_are_the_shipped_saves_toml_files_by_name() -> None:
    files = example_files()
    assert [f.name for f in files] == SHIPPED
    assert "seraph-vs-sphinx.toml" in SHIPPED and ".tracker-saves" not in SHIPPED
    assert all(f.read_bytes() == (ROOT / "saves" / f.name).read_bytes() for f in files)


def test_a_tree_without_saves_has_no_examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from importlib import resources

    def missing(name: str) -> object:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", missing)
    monkeypatch.setattr(paths, "__file__", str(tmp_path / "tracker" / "persistence" / "paths.py"))
    assert example_files() == []
    (tmp_path / "saves").mkdir()
    (tmp_path / "saves" / "b.toml").write_text("b")
    (tmp_path / "saves" / "a.toml").write_text("a")
    (tmp_path / "saves" / "c.toml").mkdir()  # not a file
    (tmp_path / "saves" / "notes.txt").write_text("")
    assert [p.name for p in example_files()] == ["a.toml", "b.toml"]


def test_examples_are_copied_and_a_file_already_there_is_kept_unless_forced(tmp_path: Path) -> None:
    saves = tmp_path / "deep" / "saves"
    copied, skipped = copy_examples(saves)
    assert [p.name for p in copied] == SHIPPED and skipped == []
    assert copied[0] == saves / SHIPPED[0]
    assert all((saves / n).read_bytes() == (ROOT / "saves" / n).read_bytes() for n in SHIPPED)
    (saves / "ogs-guard.toml").write_text("mine")
    copied, skipped = copy_examples(saves)
    assert copied == [] and [p.name for p in skipped] == SHIPPED
    assert (saves / "ogs-guard.toml").read_text() == "mine"
    copied, skipped = copy_examples(saves, force=True)
    assert [p.name for p in copied] == SHIPPED and skipped == []
    assert (saves / "ogs-guard.toml").read_bytes() == (ROOT / "saves" / "ogs-guard.toml").read_bytes()


def _linked_out(saves: Path, name: str, text: str) -> Path:
    """`saves` made, holding `name` as a link to a file of `text` beside the folder (returned)."""
    saves.mkdir()
    outside = saves.parent / "outside.toml"
    outside.write_text(text)
    (saves / name).symlink_to(outside)
    return outside


def test_a_link_at_an_examples_name_counts_as_there_and_force_replaces_the_link_not_its_target(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    target = _linked_out(saves, "ogs-guard.toml", "keep me")
    (saves / "d6-warehouse.toml").symlink_to(tmp_path / "nowhere.toml")  # a dangling link is there too
    copied, skipped = copy_examples(saves)
    assert sorted(p.name for p in skipped) == ["d6-warehouse.toml", "ogs-guard.toml"]
    copy_examples(saves, force=True)
    assert target.read_text() == "keep me"
    assert not (saves / "ogs-guard.toml").is_symlink()
    assert (saves / "ogs-guard.toml").read_bytes() == (ROOT / "saves" / "ogs-guard.toml").read_bytes()


def test_force_in_the_examples_own_folder_skips_them_and_writes_nothing() -> None:
    # Wherever they are read from: this tree's saves/, or the installed package's folder.
    shipped = example_files()
    home = Path(str(shipped[0])).parent
    before = {f.name: f.read_bytes() for f in shipped}
    copied, skipped = copy_examples(home, force=True)
    assert copied == [] and sorted(p.name for p in skipped) == SHIPPED
    assert {f.name: f.read_bytes() for f in example_files()} == before


def test_a_link_to_the_example_itself_is_not_the_example(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / "ogs-guard.toml").symlink_to(ROOT / "saves" / "ogs-guard.toml")
    copied, _ = copy_examples(saves, force=True)
    assert saves / "ogs-guard.toml" in copied
    assert not (saves / "ogs-guard.toml").is_symlink()  # the link is replaced, its target untouched


def test_an_example_inside_an_archive_is_no_file_of_the_folder(tmp_path: Path) -> None:
    from importlib.resources.abc import Traversable

    class Zipped(Traversable):  # as importlib.resources gives a file inside a zip
        name = "ogs-guard.toml"

        def iterdir(self):  # type: ignore[no-untyped-def]
            return iter(())

        def read_bytes(self) -> bytes:
            return b"zipped"

        def read_text(self, encoding=None):  # type: ignore[no-untyped-def]
            return "zipped"

        def is_dir(self) -> bool:
            return False

        def is_file(self) -> bool:
            return True

        def joinpath(self, *other):  # type: ignore[no-untyped-def]
            return self

        def __truediv__(self, other):  # type: ignore[no-untyped-def]
            return self

        def open(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise OSError

    (tmp_path / "ogs-guard.toml").write_text("old")
    assert paths._same_file(Zipped(), tmp_path / "ogs-guard.toml") is False


def test_examples_that_cannot_be_copied_are_a_named_refusal(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(TrackerError) as refused:
        copy_examples(blocked / "saves")
    assert str(refused.value).startswith(f"{blocked / 'saves'}: the worked examples cannot be copied there: ")
    assert "Not a directory" in str(refused.value)


def test_a_refused_copy_names_the_folder_when_the_error_names_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saves = tmp_path / "saves"

    def fails(*args: object, **kwargs: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(Path, "mkdir", fails)
    with pytest.raises(TrackerError) as refused:
        copy_examples(saves)
    assert str(refused.value) == f"{saves}: the worked examples cannot be copied there: disk on fire"


# ------------------------------------------------------------------ names
@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Ruined Temple BX", "ruined-temple-bx"),  # the docstring's example
        ("Seraph vs Sphinx", "seraph-vs-sphinx"),
        ("  --Two  Words!! ", "two-words"),
        ("Straße", "strasse"),  # case folded, not just lowered
        ("Round 12", "round-12"),
        ("!!!", "encounter"),
        ("", "encounter"),
    ],
)
def test_an_encounter_is_saved_under_its_title_slugged(title: str, expected: str) -> None:
    assert slug(title) == expected


def test_a_file_argument_is_a_path_a_name_in_the_folder_or_a_title(here: Path) -> None:
    saves = here / "saves-folder"
    saves.mkdir()
    (saves / "fight.toml").write_text("")
    (saves / "ruined-temple-bx.toml").write_text("")
    (here / "local.toml").write_text("")
    assert resolve("local.toml", saves) == Path("local.toml")  # a path as given if it exists
    assert resolve("sub/none.toml", saves) == Path("sub/none.toml")  # a folder part: as given
    assert resolve("fight", saves) == saves / "fight.toml"
    assert resolve("fight.toml", saves) == saves / "fight.toml"
    assert resolve("Ruined Temple BX", saves) == saves / "ruined-temple-bx.toml"
    assert resolve("Ruined Temple BX.toml", saves) == saves / "ruined-temple-bx.toml"
    assert resolve("new fight", saves, must_exist=False) == saves / "new fight.toml"
    assert resolve("new.toml", saves, must_exist=False) == saves / "new.toml"
    with pytest.raises(TrackerError):
        resolve("new fight", saves)


def test_a_name_not_found_says_where_it_looked_how_the_folder_was_chosen_and_what_is_there(here: Path) -> None:
    saves = here / "mine"
    saves.mkdir()
    (saves / "alpha.toml").write_text("")
    (saves / "beta.toml").write_text("")
    with pytest.raises(TrackerError) as missing:
        resolve("Lost Fight", saves)
    assert str(missing.value) == (
        f"Lost Fight: no such encounter in {saves} (from --saves; looked for Lost Fight, "
        f"{saves / 'Lost Fight.toml'}, {saves / 'lost-fight.toml'}; there: alpha, beta). "
        "Choose another folder with --saves DIR or TRACKER_SAVES=DIR"
    )


def test_a_name_not_found_lists_each_place_once_and_none_there(here: Path) -> None:
    empty = here / "empty"
    message = str(not_found("lost", empty, [Path("a.toml"), Path("a.toml"), Path("b.toml")]))
    assert message == (
        f"lost: no such encounter in {empty} (from --saves; looked for a.toml, b.toml; there: none). "
        "Choose another folder with --saves DIR or TRACKER_SAVES=DIR"
    )
    assert str(not_found("lost", empty, [], "--encounter")).startswith("--encounter lost: no such encounter")


def test_a_name_not_found_says_why_an_unmarked_saves_here_was_passed_over(here: Path) -> None:
    mine = here / "mine"
    hint = "; the ./saves folder here is not used without a .tracker-saves file in it (or use --saves saves)"
    assert not str(not_found("x", mine, [])).endswith(hint)  # no ./saves here
    (here / "saves").mkdir()
    assert str(not_found("x", mine, [])).endswith("TRACKER_SAVES=DIR" + hint)
    assert not str(not_found("x", Path("saves"), [])).endswith(hint)  # it is the one searched
    _marked(here / "saves")
    assert not str(not_found("x", mine, [])).endswith(hint)  # marked: it would have been used


def test_an_encounter_option_is_an_absolute_path_through_its_folder(here: Path) -> None:
    saves = here / "saves-folder"
    saves.mkdir()
    (saves / "fight.toml").write_text("")
    assert encounter_option("fight", saves) == saves / "fight.toml"
    assert encounter_option("Fight", saves / ".." / "saves-folder").is_absolute()
    (here / "local.toml").write_text("")
    assert encounter_option("local.toml", saves) == here / "local.toml"
    with pytest.raises(TrackerError) as missing:
        encounter_option("gone", saves)
    assert str(missing.value).startswith("--encounter gone: no such encounter in ")
    assert f"looked for {saves / 'gone.toml'};" in str(missing.value)
    with pytest.raises(TrackerError) as named:
        encounter_option("gone", saves, "--table")
    assert str(named.value).startswith("--table gone: no such encounter")


def test_an_encounter_option_that_is_a_link_out_or_too_big_is_refused_at_start(here: Path) -> None:
    saves = here / "saves-folder"
    _linked_out(saves, "out.toml", "")
    with pytest.raises(TrackerError) as out:
        encounter_option("out", saves)
    assert str(out.value).startswith("--encounter out: refused: ")
    big = saves / "big.toml"
    with big.open("wb") as f:
        f.truncate(MAX_SAVE_BYTES + 1)
    with pytest.raises(TrackerError) as too_big:
        encounter_option("big", saves, "--table")
    assert str(too_big.value).startswith("--table big: refused: ")
    os.mkfifo(saves / "pipe.toml")
    with pytest.raises(TrackerError, match="^--encounter pipe: refused: "):
        encounter_option("pipe", saves)


# ------------------------------------------------------------------ listing
def test_encounters_are_the_toml_files_but_libraries_campaigns_and_hidden_ones(tmp_path: Path) -> None:
    assert encounter_files(tmp_path / "none") == [] and campaign_files(tmp_path / "none") == []
    for name in ("b.toml", "a.toml", "library-brandx.toml", "party.campaign.toml", ".hidden.toml",
                 ".x.campaign.toml", "notes.txt", "a.toml.lock", "my-library-x.toml"):
        (tmp_path / name).write_text("")
    assert encounter_files(tmp_path) == [tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "my-library-x.toml"]
    assert campaign_files(tmp_path) == [tmp_path / "party.campaign.toml"]
    (tmp_path / "z.campaign.toml").write_text("")
    assert campaign_files(tmp_path) == [tmp_path / "party.campaign.toml", tmp_path / "z.campaign.toml"]
    file = tmp_path / "a.toml"
    assert encounter_files(file) == [] and campaign_files(file) == []  # not a folder


# ------------------------------------------------------------------ added for survivors
def test_a_name_not_found_in_the_folder_tracker_saves_names_says_so(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_SAVES", str(here / "env"))
    with pytest.raises(TrackerError) as missing:
        resolve("lost", locate().path)
    assert f"lost: no such encounter in {here / 'env'} (from TRACKER_SAVES; looked for " in str(missing.value)


def test_examples_inside_an_archive_are_listed_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import resources

    class Entry:  # a file inside a zip: no order of its own, only a name
        def __init__(self, name: str) -> None:
            self.name = name

        def is_file(self) -> bool:
            return True

    class Folder:
        def is_dir(self) -> bool:
            return True

        def iterdir(self):  # type: ignore[no-untyped-def]
            return iter([Entry("b.toml"), Entry("a.toml"), Entry("c.txt")])

    monkeypatch.setattr(resources, "files", lambda name: Folder())
    assert [e.name for e in example_files()] == ["a.toml", "b.toml"]


def test_a_folder_at_an_examples_name_is_refused_as_no_regular_save(tmp_path: Path) -> None:
    (tmp_path / "ogs-guard.toml").mkdir()
    with pytest.raises(TrackerError) as refused:
        copy_examples(tmp_path, force=True)
    assert str(refused.value).startswith(f"{tmp_path / 'ogs-guard.toml'}: expected a regular save, found ")
    assert (tmp_path / "ogs-guard.toml").is_dir()


def test_a_copy_refused_for_one_file_names_that_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.persistence import folder

    def full(path: Path, *args: object, **kwargs: object) -> bool:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(folder, "replace", full)
    with pytest.raises(TrackerError) as refused:
        copy_examples(tmp_path)
    assert str(refused.value) == f"{tmp_path / SHIPPED[0]}: the worked examples cannot be copied there: No space left on device"


def test_an_encounter_option_that_is_a_fifo_or_a_folder_names_what_a_save_must_be(here: Path) -> None:
    saves = here / "saves-folder"
    (saves / "folder.toml").mkdir(parents=True)
    with pytest.raises(TrackerError) as refused:
        encounter_option("folder", saves)
    assert str(refused.value) == f"--encounter folder: refused: {saves / 'folder.toml'}: expected a regular save, found a folder; it is not opened"
