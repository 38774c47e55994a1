"""Direct tests of tracker.persistence.store: one encounter file on disk, loaded,
created, followed and changed safely with others (the module docstring;
docs/decisions/0012-store-following.md; docs/guide/saves.md; docs/guide/threat-model.md).
Every change is appended as its `[[events]]` tables and a `# revision N` mark; a refused
change writes nothing; a file that fails to load is never written; a change that fails
after memory went ahead reads the file again and says what the file holds. Saves are
written by hand in tmp_path, and every file the store writes is read back."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from tracker.engine import Encounter, Event, TrackerError
from tracker.persistence import codec, store as store_module
from tracker.persistence.checks import SaveError
from tracker.persistence.codec import Loaded
from tracker.persistence.folder import Refused
from tracker.persistence.store import EncounterFile, RefusedSave, reason, refuse_if_read_only

@pytest.fixture(autouse=True)
def _short_lock_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock left held by a broken store is found out in half a second, not ten."""
    real = store_module.locked

    def locked(path: Path, timeout: float = 0.5, **kwargs: Any) -> Any:
        return real(path, min(timeout, 0.5), **kwargs)

    monkeypatch.setattr(store_module, "locked", locked)


HEAD = (
    "# An encounter for segment-tracker. The setup comes first, then the event log;\n"
    "# each change is appended as [[events]] tables ending with a '# revision N' line.\n"
    "# Anything after the last '# revision N' line is an unfinished write and is ignored.\n"
)
ADD_ANN = '[[events]]\nseq = 1\nkind = "add"\nname = "Ann"\n\n[events.resources]\nhp = 5\n'


def _header(name: str = "Bridge", extra: str = "") -> str:
    return f'{HEAD}schema_version = 2\nname = "{name}"\nruleset = "freeform"\n{extra}roster = []\n\n[settings]\n# revision 0\n'


def _note(seq: int, text: str) -> str:
    return f'\n[[events]]\nseq = {seq}\nkind = "note"\ntext = "{text}"\n'


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def _saved(path: Path, notes: int = 0) -> Path:
    """A schema 2 save written by hand: Ann added (revision 1), then `notes` notes."""
    text = _header() + "\n" + ADD_ANN + "# revision 1\n"
    for i in range(notes):
        text += _note(2 + i, f"n{2 + i}") + f"# revision {2 + i}\n"
    return _write(path, text)


def _notes(enc: Encounter) -> list[str]:
    return [e.args["text"] for e in enc.events if e.kind == "note"]


def _change(store: EncounterFile, enc: Encounter, *events: Event) -> Encounter:
    held: list[Encounter] = []
    with store.transaction(enc, held.append) as current:
        for event in events:
            current.apply(event)
    return held[-1]


def _marks(path: Path) -> list[int]:
    return [int(m) for m in re.findall(r"^# revision (\d+)$", path.read_text(), re.M)]


# ------------------------------------------------------------------ loading
def test_a_save_written_by_hand_loads_with_its_events_and_revision(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=2)
    store = EncounterFile(str(path))
    assert store.path == path and store.revision == -1 and store.descriptor is None
    loaded = store.load()
    assert isinstance(loaded, Loaded) and loaded.revision == 3 and loaded.house_rules == "" and loaded.schema == 2
    assert [e.kind for e in loaded.encounter.events] == ["add", "note", "note"]
    assert _notes(loaded.encounter) == ["n2", "n3"]
    assert store.revision == 3 and store.schema == 2 and store.house_rules == ""
    assert store.descriptor is not None and os.fstat(store.descriptor).st_ino == os.stat(path).st_ino
    assert not store.changed_on_disk()


def test_read_text_is_the_files_text(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    assert EncounterFile(path).read_text() == path.read_text()
    path.write_bytes(b'name = "x"\n\xff\xfe')
    with pytest.raises(SaveError) as refused:
        EncounterFile(path).read_text()
    assert str(refused.value) == f"{path}: not UTF-8 text (byte 11)"


def test_a_missing_save_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "gone.toml"
    for action in (lambda s: s.load(), lambda s: s.read_text()):
        with pytest.raises(SaveError) as refused:
            action(EncounterFile(path))
        assert str(refused.value) == f"{path}: no such file"
    assert os.listdir(tmp_path) == []


def test_a_fifo_a_folder_a_link_out_and_a_huge_save_are_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "dir.toml").mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-private.toml"
    _saved(outside)
    (tmp_path / "out.toml").symlink_to(outside)
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", 1000)
    _write(tmp_path / "big.toml", "#" * 1001)
    for name, words in (("pipe.toml", "found a FIFO"), ("dir.toml", "found a folder"), ("out.toml", "symbolic link leading outside"), ("big.toml", "1,001 bytes")):
        with pytest.raises(RefusedSave) as refused:
            EncounterFile(tmp_path / name).load()
        assert isinstance(refused.value, SaveError) and isinstance(refused.value, Refused)
        assert str(refused.value).startswith(f"{tmp_path / name}: ") and words in str(refused.value)
        if name != "dir.toml":
            with pytest.raises(RefusedSave):
                EncounterFile(tmp_path / name).read_text()
    big = str(pytest.raises(RefusedSave, EncounterFile(tmp_path / "big.toml").load).value)
    assert "saves over 1,000 bytes" in big
    assert sorted(os.listdir(tmp_path)) == ["big.toml", "dir.toml", "out.toml", "pipe.toml"]
    outside.unlink()


def test_a_save_of_exactly_the_limit_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml")
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", path.stat().st_size)
    assert EncounterFile(path).load().revision == 1


@pytest.mark.parametrize(("step", "code", "words"), [
    ("open_file", errno.EACCES, "Permission denied"),  # it cannot be opened
    ("read_fd", errno.EIO, "Input/output error"),  # its read fails
])
def test_a_save_that_cannot_be_read_says_so_with_the_systems_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, code: int, words: str) -> None:
    path = _saved(tmp_path / "fight.toml")

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, words)

    monkeypatch.setattr(store_module.folder, step, failing)
    with pytest.raises(SaveError) as refused:
        EncounterFile(path).load()
    assert str(refused.value) == f"{path}: cannot be read: {words}"


def test_a_save_that_grew_while_read_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml")

    def grew(*args: Any, **kwargs: Any) -> bytes:
        raise Refused(f"{path}: over 24 MB (it grew while being read); saves that big are refused")

    monkeypatch.setattr(store_module.folder, "read_fd", grew)
    with pytest.raises(RefusedSave) as refused_save:
        EncounterFile(path).read_text()
    assert str(refused_save.value) == f"{path}: over 24 MB (it grew while being read); saves that big are refused"


def test_a_save_that_is_a_link_inside_the_folder_is_read_at_its_file(tmp_path: Path) -> None:
    real = _saved(tmp_path / "fight-3.toml", notes=1)
    (tmp_path / "current.toml").symlink_to("fight-3.toml")
    store = EncounterFile(tmp_path / "current.toml")
    enc = store.load().encounter
    assert not store.changed_on_disk()
    enc = _change(store, enc, Event("note", {"text": "via link"}))
    assert (tmp_path / "current.toml").is_symlink() and _marks(real)[-1] == 3
    assert _notes(EncounterFile(real).load().encounter) == ["n2", "via link"]
    assert os.path.exists(tmp_path / "fight-3.toml.lock") and not os.path.lexists(tmp_path / "current.toml.lock")


# ------------------------------------------------------------------ creating
def test_a_new_encounter_is_its_header_and_mark_0_with_a_fresh_dice_key(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "fight.toml"
    store, loaded = EncounterFile.create(path, "Bridge", "freeform")
    text = path.read_text()
    key = loaded.encounter.setup.dice_key
    assert re.fullmatch(r"[0-9a-f]{32}", key)
    assert text == f'{HEAD}schema_version = 2\nname = "Bridge"\nruleset = "freeform"\ndice_key = "{key}"\nroster = []\n\n[settings]\n# revision 0\n'
    assert (loaded.revision, loaded.house_rules, loaded.encounter.events) == (0, "", [])
    assert store.revision == 0 and store.descriptor is not None and not store.changed_on_disk()
    again = EncounterFile(path).load()
    assert again.encounter.setup.dice_key == key and again.revision == 0
    _, other = EncounterFile.create(tmp_path / "two.toml", "Bridge", "freeform")
    assert other.encounter.setup.dice_key != key


def test_a_new_encounter_takes_the_games_checked_settings(tmp_path: Path) -> None:
    _, loaded = EncounterFile.create(tmp_path / "f.toml", "B", "brandx", {"negative_movement": True})
    settings = EncounterFile(tmp_path / "f.toml").load().encounter.setup.settings
    assert settings["negative_movement"] is True and settings["throwback"] is True
    assert loaded.encounter.setup.settings == settings
    with pytest.raises(TrackerError):
        EncounterFile.create(tmp_path / "g.toml", "B", "brandx", {"throwback": 3})
    assert not (tmp_path / "g.toml").exists()


def test_a_new_encounter_is_changed_at_once_without_reading_it_again(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    store, loaded = EncounterFile.create(path, "Bridge", "freeform")
    enc = _change(store, loaded.encounter, Event("note", {"text": "first"}))
    assert _notes(enc) == ["first"] and _marks(path) == [0, 1] and store.revision == 1
    assert path.read_text().endswith('\n[[events]]\nseq = 1\nkind = "note"\ntext = "first"\n#   first\n# revision 1\n')
    assert _notes(EncounterFile(path).load().encounter) == ["first"]


def test_an_existing_name_is_never_written_over(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    before = path.read_bytes()
    with pytest.raises(TrackerError) as refused:
        EncounterFile.create(path, "Other", "freeform")
    assert str(refused.value) == f"{path}: already exists; choose another name or delete it first"
    assert path.read_bytes() == before


def test_a_viewer_session_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()
    for value in ("1", "yes"):
        monkeypatch.setenv("TRACKER_READ_ONLY", value)
        message = f"{path}: this is a read-only (viewer) session; changes are refused"
        with pytest.raises(TrackerError) as refused:
            _change(store, enc, Event("note", {"text": "no"}))
        assert str(refused.value) == message
        with pytest.raises(TrackerError) as refused:
            EncounterFile.create(tmp_path / "new.toml", "N", "freeform")
        assert str(refused.value) == f"{tmp_path / 'new.toml'}: this is a read-only (viewer) session; changes are refused"
        with pytest.raises(TrackerError):
            store.duplicate(tmp_path / "copy.toml", "Copy")
        with pytest.raises(TrackerError):
            refuse_if_read_only(path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["fight.toml"]
    for value in ("", "0"):
        monkeypatch.setenv("TRACKER_READ_ONLY", value)
        refuse_if_read_only(path)
    monkeypatch.delenv("TRACKER_READ_ONLY")
    refuse_if_read_only(path)
    assert _notes(_change(store, enc, Event("note", {"text": "yes"}))) == ["n2", "yes"]


def test_a_copy_holds_the_log_under_a_new_title_at_revision_0_with_its_own_key(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=2)
    store = EncounterFile(path)
    original = store.load().encounter
    copy = store.duplicate(tmp_path / "copy.toml", "The copy")
    loaded = EncounterFile(tmp_path / "copy.toml").load()
    assert loaded.encounter.setup.name == "The copy" and loaded.revision == 0 and copy.revision == 0
    assert [(e.kind, e.seq) for e in loaded.encounter.events] == [("add", 1), ("note", 2), ("note", 3)]
    assert _notes(loaded.encounter) == ["n2", "n3"] and loaded.encounter.combatants["Ann"].resources == {"hp": 5}
    assert re.fullmatch(r"[0-9a-f]{32}", loaded.encounter.setup.dice_key)
    assert original.setup.name == "Bridge" and EncounterFile(path).load().encounter.setup.name == "Bridge"
    copied = _change(copy, loaded.encounter, Event("note", {"text": "in the copy"}))
    assert _notes(copied)[-1] == "in the copy" and _marks(tmp_path / "copy.toml") == [0, 1]


def test_a_copy_keeps_the_house_rules(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("")
    _write(tmp_path / "fight.toml", _header(extra='house_rules = "house.toml"\n'))
    copy = EncounterFile(tmp_path / "fight.toml").duplicate(tmp_path / "copy.toml", "C")
    assert copy.house_rules == "house.toml"
    assert EncounterFile(tmp_path / "copy.toml").load().house_rules == "house.toml"
    assert 'house_rules = "house.toml"' in (tmp_path / "copy.toml").read_text()


def test_a_whole_write_removes_temporaries_a_crashed_writer_left(tmp_path: Path) -> None:
    _write(tmp_path / ".fight.toml.1234abcd.tmp", "half")
    EncounterFile.create(tmp_path / "fight.toml", "B", "freeform")
    assert sorted(os.listdir(tmp_path)) == ["fight.toml", "fight.toml.lock"]


def test_the_first_change_of_a_session_removes_temporaries(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml")
    store = EncounterFile(path)
    enc = store.load().encounter
    _write(tmp_path / ".fight.toml.1234abcd.tmp", "half")
    enc = _change(store, enc, Event("note", {"text": "a"}))
    assert sorted(os.listdir(tmp_path)) == ["fight.toml", "fight.toml.lock"]
    _write(tmp_path / ".fight.toml.5678abcd.tmp", "half")
    _change(store, enc, Event("note", {"text": "b"}))  # only the first change looks
    assert ".fight.toml.5678abcd.tmp" in os.listdir(tmp_path)


def test_rewrite_writes_the_whole_file_at_the_stores_revision(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    enc.apply(Event("note", {"text": "in memory"}))
    store.rewrite(enc)
    assert _marks(path) == [2]
    loaded = EncounterFile(path).load()
    assert loaded.revision == 2 and _notes(loaded.encounter) == ["n2", "in memory"]
    assert not store.changed_on_disk()
    enc = _change(store, enc, Event("note", {"text": "after"}))
    assert _marks(path) == [2, 3] and _notes(EncounterFile(path).load().encounter) == ["n2", "in memory", "after"]


# ------------------------------------------------------------------ changing
def test_a_change_is_appended_with_its_mark_and_the_file_never_rewritten(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()
    inode = path.stat().st_ino
    enc = _change(store, enc, Event("note", {"text": "x"}), Event("note", {"text": "y"}))
    data = path.read_bytes()
    assert data.startswith(before) and path.stat().st_ino == inode
    assert data[len(before):].decode() == _note(3, "x") + _note(4, "y") + "#   x\n#   y\n# revision 3\n"
    assert store.revision == 3 and not store.changed_on_disk()
    loaded = EncounterFile(path).load()
    assert loaded.revision == 3 and _notes(loaded.encounter) == ["n2", "x", "y"]


def test_a_body_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()
    held: list[Encounter] = []
    with store.transaction(enc, held.append) as current:
        assert current is enc
    assert held == [enc] and path.read_bytes() == before and store.revision == 2
    assert store.prepare(enc, len(enc.events)) is None


def test_a_refused_event_writes_nothing_and_memory_stays(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()
    with pytest.raises(TrackerError):
        _change(store, enc, Event("damage", {"target": "Nobody", "amount": 1}))
    assert path.read_bytes() == before and _notes(enc) == ["n2"] and len(enc.events) == 2
    assert _notes(_change(store, enc, Event("note", {"text": "ok"}))) == ["n2", "ok"]
    assert _marks(path) == [0, 1, 2, 3]


def test_others_changes_are_folded_in_before_the_change_is_applied_on_top(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml")
    mine, theirs = EncounterFile(path), EncounterFile(path)
    my_enc, their_enc = mine.load().encounter, theirs.load().encounter
    their_enc = _change(theirs, their_enc, Event("note", {"text": "theirs"}))
    assert mine.changed_on_disk()
    held: list[Encounter] = []
    with mine.transaction(my_enc, held.append) as current:
        assert _notes(current) == ["theirs"] and held == [current]
        current.apply(Event("note", {"text": "mine"}))
    assert _marks(path) == [0, 1, 2, 3] and mine.revision == 3
    assert _notes(EncounterFile(path).load().encounter) == ["theirs", "mine"]
    assert _notes(theirs.refresh(their_enc) or their_enc) == ["theirs", "mine"]


def test_a_torn_tail_is_cut_off_by_the_next_writer(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    committed = path.read_bytes()
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "no')  # a crashed writer
    enc = _change(store, enc, Event("note", {"text": "after"}))
    assert path.read_bytes() == committed + (_note(3, "after") + "#   after\n# revision 3\n").encode()
    assert _notes(EncounterFile(path).load().encounter) == ["n2", "after"]


def test_a_torn_tail_is_left_alone_by_a_reader(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "note"\ntext = "half"\n')
    assert store.changed_on_disk()
    assert store.refresh(enc) is None and _notes(enc) == ["n2"]
    assert not store.changed_on_disk()  # the torn bytes were seen: not read again
    with path.open("ab") as f:
        f.write(b"#   half\n# revision 3\n")
    assert store.refresh(enc) is enc and _notes(enc) == ["n2", "half"] and store.revision == 3


def test_a_first_format_save_is_written_whole_in_schema_2_on_its_first_change(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "old.toml",
        'schema_version = 1\nrevision = 4\nname = "Old"\nruleset = "freeform"\n\n[settings]\n\n'
        + ADD_ANN + _note(2, "old"),
    )
    store = EncounterFile(path)
    loaded = store.load()
    assert loaded.schema == 1 and loaded.revision == 4 and store.schema == 1
    enc = _change(store, loaded.encounter, Event("note", {"text": "new"}))
    text = path.read_text()
    assert "schema_version = 2" in text and "revision = 4" not in text and _marks(path) == [5]
    assert store.schema == 2 and store.revision == 5 and not store.changed_on_disk()
    again = EncounterFile(path).load()
    assert again.schema == 2 and again.revision == 5 and _notes(again.encounter) == ["old", "new"]
    enc = _change(store, enc, Event("note", {"text": "appended"}))
    assert _marks(path) == [5, 6] and _notes(EncounterFile(path).load().encounter) == ["old", "new", "appended"]


def test_a_change_that_would_take_the_save_past_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    size = path.stat().st_size
    step = len((_note(3, "x") + "#   x\n# revision 3\n").encode())
    before = path.read_bytes()
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", size + step - 1)
    with pytest.raises(TrackerError) as refused:
        _change(store, enc, Event("note", {"text": "x"}))
    assert str(refused.value) == (
        f"{path}: the change (note) was not saved: the save is full: this change would make it {size + step:,} bytes,"
        f" over the limit of {size + step - 1:,} bytes; go on in a new encounter (tracker new NEXT --from fight);"
        " the file holds every change up to revision 2, and the fight is shown as saved there"
    )
    assert path.read_bytes() == before
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", size + step)  # exactly the limit: saved
    enc = store.restore()
    _change(store, enc, Event("note", {"text": "x"}))
    assert path.stat().st_size == size + step == codec.MAX_SAVE_BYTES


def test_a_change_that_fails_after_memory_went_ahead_reads_the_file_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()

    def full(*args: Any, **kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    held: list[Encounter] = []
    with pytest.raises(TrackerError) as refused:
        with store.transaction(enc, held.append) as current:
            current.apply(Event("note", {"text": "lost"}))
            current.apply(Event("add", {"name": "Bo", "resources": {"hp": 3}}))
    assert str(refused.value) == (
        f"{path}: the change (note, add) was not saved: No space left on device; the file holds every change up to"
        " revision 2, and the fight is shown as saved there"
    )
    assert len(held) == 2 and held[0] is enc and _notes(held[1]) == ["n2"] and "Bo" not in held[1].combatants
    assert path.read_bytes() == before
    monkeypatch.undo()
    after = _change(store, held[1], Event("note", {"text": "next"}))
    assert _marks(path) == [0, 1, 2, 3] and _notes(EncounterFile(path).load().encounter) == ["n2", "next"] == _notes(after)


def test_a_failure_whose_file_cannot_be_read_again_says_nothing_more_is_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter

    def full(*args: Any, **kwargs: Any) -> int:
        path.write_text("broken = ")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    held: list[Encounter] = []
    with pytest.raises(TrackerError) as refused:
        with store.transaction(enc, held.append) as current:
            current.apply(Event("note", {"text": "lost"}))
    message = str(refused.value)
    assert message.startswith(f"{path}: the change (note) was not saved: No space left on device; the file could not be read again (")
    assert message.endswith("), so nothing more is saved until it can be") and "not valid TOML" in message
    assert held == [enc]  # nothing fresh to hold
    monkeypatch.undo()
    with pytest.raises(TrackerError) as again:
        store.prepare(enc, len(enc.events) - 1)
    assert str(again.value) == "an earlier change was not saved, so this one is not either"


def test_a_bug_in_the_body_is_named_by_its_type_and_memory_goes_back(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    held: list[Encounter] = []
    with pytest.raises(TrackerError) as refused:
        with store.transaction(enc, held.append) as current:
            current.apply(Event("note", {"text": "lost"}))
            raise ZeroDivisionError("division by zero")
    assert str(refused.value) == (
        f"{path}: the change (note) was not saved: internal error: ZeroDivisionError: division by zero; the file holds every"
        " change up to revision 2, and the fight is shown as saved there"
    )
    assert isinstance(refused.value.__cause__, ZeroDivisionError)
    assert _notes(held[-1]) == ["n2"]


def test_an_error_before_anything_changed_passes_as_it_is(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    held: list[Encounter] = []
    with pytest.raises(ValueError, match="^before$"):
        with store.transaction(enc, held.append):
            raise ValueError("before")
    assert held == [enc]
    assert _notes(_change(store, enc, Event("note", {"text": "fine"}))) == ["n2", "fine"]  # the lock was let go


def test_ctrl_c_after_memory_went_ahead_goes_on_as_it_is_with_memory_as_saved(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    held: list[Encounter] = []
    with pytest.raises(KeyboardInterrupt):
        with store.transaction(enc, held.append) as current:
            current.apply(Event("note", {"text": "lost"}))
            raise KeyboardInterrupt
    assert len(held) == 2 and _notes(held[1]) == ["n2"]
    error, fresh = store.abandon(enc, len(enc.events) - 1, KeyboardInterrupt())
    assert isinstance(error, KeyboardInterrupt) and fresh is not None and _notes(fresh) == ["n2"]


def test_abandon_with_no_new_events_and_nothing_stale_keeps_memory(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    error = ValueError("x")
    assert store.abandon(enc, len(enc.events), error) == (error, None)
    assert not store.ahead(enc, len(enc.events)) and store.ahead(enc, len(enc.events) - 1)
    store._stale = True
    assert store.ahead(enc, len(enc.events))
    wrapped, fresh = store.abandon(enc, len(enc.events), error)
    assert str(wrapped) == f"{path}: the change was not saved: internal error: ValueError: x; the file holds every change up to revision 2, and the fight is shown as saved there"
    assert fresh is not None and _notes(fresh) == ["n2"]


def test_a_change_that_cannot_be_written_as_toml_is_refused_naming_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = path.read_bytes()

    def cannot(*args: Any, **kwargs: Any) -> str:
        raise TypeError("Object of type set is not TOML serializable")

    monkeypatch.setattr(codec, "chunk", cannot)
    with pytest.raises(TrackerError) as refused:
        _change(store, enc, Event("note", {"text": "x"}))
    assert str(refused.value) == (
        f"{path}: the change (note) was not saved: it could not be written as TOML: internal error: TypeError: Object of type"
        " set is not TOML serializable; the file holds every change up to revision 2, and the fight is shown as saved there"
    )
    assert path.read_bytes() == before


def test_a_save_replaced_while_locked_is_never_appended_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    held: list[Encounter] = []
    with pytest.raises(TrackerError) as refused:
        with store.transaction(enc, held.append) as current:
            current.apply(Event("note", {"text": "lost"}))
            other = _saved(tmp_path / "other.toml", notes=3)
            os.replace(other, path)
    assert str(refused.value).startswith(
        f"{path}: the change (note) was not saved: {path}: the file was replaced while it was locked; the change was not saved;"
    )
    assert _notes(EncounterFile(path).load().encounter) == ["n2", "n3", "n4"]
    assert _notes(held[-1]) == ["n2", "n3", "n4"]


# ------------------------------------------------------------------ later (write behind)
def test_a_write_handed_to_later_runs_under_the_lock_when_called(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    queued: list[Callable[[], None]] = []
    with store.transaction(enc, lambda e: None, later=queued.append) as current:
        current.apply(Event("note", {"text": "behind"}))
    assert len(queued) == 1 and _marks(path) == [0, 1, 2]
    lock_file = tmp_path / "fight.toml.lock"
    import fcntl

    probe = os.open(lock_file, os.O_RDONLY)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # still held
        queued[0]()
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go
        fcntl.flock(probe, fcntl.LOCK_UN)
    finally:
        os.close(probe)
    assert _marks(path) == [0, 1, 2, 3] and _notes(EncounterFile(path).load().encounter) == ["n2", "behind"]


def test_a_write_behind_that_fails_installs_the_file_as_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    queued: list[Callable[[], None]] = []
    held: list[Encounter] = []
    with store.transaction(enc, held.append, later=queued.append) as current:
        current.apply(Event("note", {"text": "behind"}))

    def full(*args: Any, **kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(TrackerError) as refused:
        queued[0]()
    assert str(refused.value) == (
        f"{path}: the change (note) was not saved: No space left on device; the file holds every change up to revision 2,"
        " and the fight is shown as saved there"
    )
    assert len(held) == 2 and _notes(held[1]) == ["n2"]
    monkeypatch.undo()
    _change(store, held[1], Event("note", {"text": "later"}))
    assert _marks(path) == [0, 1, 2, 3]


def test_two_changes_queued_are_numbered_in_turn(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    queued: list[Callable[[], None]] = []
    with store.transaction(enc, lambda e: None, later=queued.append) as current:
        current.apply(Event("note", {"text": "a"}))
    queued.pop()()
    with store.transaction(enc, lambda e: None, later=queued.append) as current:
        current.apply(Event("note", {"text": "b"}))
    queued.pop()()
    assert _marks(path) == [0, 1, 2, 3, 4] and _notes(EncounterFile(path).load().encounter) == ["n2", "a", "b"]


def test_a_queued_write_after_a_failed_one_is_not_written(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    before = len(enc.events)
    enc.apply(Event("note", {"text": "q"}))
    with store.begin(enc)[0]:
        write = store.prepare(enc, before)
    assert write is not None
    store._stale = True
    with pytest.raises(TrackerError) as refused:
        write()
    assert str(refused.value) == "an earlier change was not saved, so this one is not either"
    assert _marks(path) == [0, 1, 2]


# ------------------------------------------------------------------ following
def test_following_reads_only_what_others_appended(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    assert follower.probe() is None and follower.refresh(enc) is None
    with path.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n" + _note(4, "y") + "# revision 4\n").encode())
    assert follower.changed_on_disk()
    change = follower.probe()
    assert change is not None and change.loaded is None and [e.args["text"] for e in change.events] == ["x", "y"]
    assert change.revision == 4 and change.offset == path.stat().st_size and change.mark == b"# revision 4\n"
    assert follower.commit(enc, change) is enc and _notes(enc) == ["n2", "x", "y"]
    assert follower.revision == 4 and not follower.changed_on_disk()
    assert follower.commit(enc, change) is None  # read against a state since moved past


def test_following_a_change_read_before_the_store_moved_on_is_dropped(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    with path.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n").encode())
    stale = follower.probe()
    assert follower.refresh(enc) is enc
    assert stale is not None and follower.commit(enc, stale) is None and _notes(enc) == ["n2", "x"]


def test_a_file_replaced_is_read_whole_as_a_new_encounter(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    os.replace(_saved(tmp_path / "other.toml", notes=3), path)
    change = follower.probe()
    assert change is not None and change.loaded is not None and change.revision == 4
    fresh = follower.commit(enc, change)
    assert fresh is not None and fresh is not enc and _notes(fresh) == ["n2", "n3", "n4"] and _notes(enc) == ["n2"]
    assert follower.revision == 4 and follower.refresh(fresh) is None


def test_a_file_cut_short_is_read_whole(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=2)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    text = path.read_text()
    with path.open("r+b") as f:  # the same file, cut back to revision 2
        f.truncate(text.index("\n[[events]]\nseq = 3") + 1)
    fresh = follower.refresh(enc)
    assert fresh is not None and fresh is not enc and _notes(fresh) == ["n2"] and follower.revision == 2


def test_a_file_whose_last_mark_moved_is_read_whole(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    text = path.read_text().replace('text = "n2"', 'text = "n2, said again"') + _note(3, "x") + "# revision 3\n"
    with path.open("r+b") as f:  # rewritten in place, same inode, longer
        f.write(text.encode())
    fresh = follower.refresh(enc)
    assert fresh is not None and fresh is not enc and _notes(fresh) == ["n2, said again", "x"]


def test_a_mark_other_than_the_one_read_is_noticed(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    data = path.read_bytes()
    assert data.endswith(b"# revision 2\n")
    with path.open("r+b") as f:
        f.write(data[:-3] + b"9\n" + (_note(3, "x") + "# revision 3\n").encode())
    fresh = follower.refresh(enc)
    assert fresh is not None and fresh is not enc


def test_an_appended_event_that_is_not_toml_is_named_by_the_whole_file(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = = "note"\n# revision 3\n')
    with pytest.raises(SaveError) as refused:
        follower.refresh(enc)
    assert str(refused.value).startswith(f"{path}: not valid TOML") and "line" in str(refused.value)
    assert _notes(enc) == ["n2"]


def test_an_appended_event_that_is_not_utf8_is_named_by_the_whole_file(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "note"\ntext = "\xff"\n# revision 3\n')
    with pytest.raises(SaveError) as refused:
        follower.refresh(enc)
    assert str(refused.value).startswith(f"{path}: not UTF-8 text (byte ")


def test_an_appended_event_that_does_not_replay_is_refused_and_the_next_read_is_whole(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "damage"\ntarget = "Nobody"\namount = 1\nresource = "hp"\n# revision 3\n')
    with pytest.raises(SaveError) as refused:
        follower.refresh(enc)
    assert str(refused.value).startswith(f"{path}: events[2] (seq 3, damage) does not replay: ") and "Nobody" in str(refused.value)
    assert follower.changed_on_disk()  # read whole next time
    with pytest.raises(SaveError):
        follower.refresh(enc)
    with pytest.raises(TrackerError):
        _change(follower, enc, Event("note", {"text": "never written"}))
    assert b"never written" not in path.read_bytes()


def test_an_append_that_grows_the_save_past_the_limit_is_refused_while_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", path.stat().st_size + 10)
    with path.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n").encode())
    with pytest.raises(RefusedSave) as refused:
        follower.refresh(enc)
    assert str(refused.value).startswith(f"{path}: ") and "bytes" in str(refused.value)
    assert _notes(enc) == ["n2"]


def test_a_followed_save_deleted_is_said_moved_or_deleted(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    path.unlink()
    assert follower.changed_on_disk()
    with pytest.raises(SaveError) as refused:
        follower.probe()
    assert str(refused.value) == f"{path}: no such file (moved or deleted?)"
    with pytest.raises(SaveError):
        follower.refresh(enc)


def test_a_followed_save_turned_into_a_link_out_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    outside = tmp_path.parent / f"{tmp_path.name}-out.toml"
    _saved(outside, notes=4)
    path.unlink()
    path.symlink_to(outside)
    assert follower.changed_on_disk()
    with pytest.raises(RefusedSave) as refused:
        follower.refresh(enc)
    assert str(refused.value).startswith(f"{path}: ") and "symbolic link" in str(refused.value)
    outside.unlink()


def test_a_followed_link_inside_the_folder_follows_its_file(tmp_path: Path) -> None:
    real = _saved(tmp_path / "fight-3.toml", notes=1)
    (tmp_path / "current.toml").symlink_to("fight-3.toml")
    follower = EncounterFile(tmp_path / "current.toml")
    enc = follower.load().encounter
    assert not follower.changed_on_disk() and follower.refresh(enc) is None
    with real.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n").encode())
    assert follower.changed_on_disk()
    assert follower.refresh(enc) is enc and _notes(enc) == ["n2", "x"]
    (tmp_path / "current.toml").unlink()
    assert follower.changed_on_disk()


def test_a_follower_of_a_first_format_file_reads_it_whole_when_it_changes(tmp_path: Path) -> None:
    path = _write(tmp_path / "old.toml", 'schema_version = 1\nrevision = 4\nname = "Old"\nruleset = "freeform"\n\n[settings]\n\n' + ADD_ANN)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    assert follower.probe() is None and follower.refresh(enc) is None
    path.write_text('schema_version = 1\nrevision = 5\nname = "Old"\nruleset = "freeform"\n\n[settings]\n\n' + ADD_ANN + _note(2, "more"))
    fresh = follower.refresh(enc)
    assert fresh is not None and _notes(fresh) == ["more"] and follower.revision == 5


def test_a_store_never_read_reads_the_file_whole(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    assert store.changed_on_disk()
    change = store.probe()
    assert change is not None and change.loaded is not None and change.revision == 2
    enc = store.commit(Encounter(change.loaded.encounter.setup), change)
    assert enc is change.loaded.encounter and store.revision == 2


def test_restore_reads_the_file_again(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    enc.apply(Event("note", {"text": "memory only"}))
    fresh = store.restore()
    assert fresh is not enc and _notes(fresh) == ["n2"] and store.revision == 2


def test_a_descriptor_closed_in_a_forked_process_is_opened_again(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    fd = follower.descriptor
    assert fd is not None
    handle = follower._handle
    assert handle is not None
    handle.pid = -1  # as seen from a forked process
    os.close(fd)  # the fork closed it
    with path.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n").encode())
    assert follower.refresh(enc) is enc and _notes(enc) == ["n2", "x"]
    assert follower.descriptor is not None and os.fstat(follower.descriptor).st_ino == path.stat().st_ino
    assert follower._handle is not handle


def test_reason_is_the_systems_words_a_refusals_or_the_bugs_type() -> None:
    assert reason(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"
    assert reason(OSError("bare")) == "bare"
    assert reason(TrackerError("refused")) == "refused"
    assert reason(KeyError("hp")) == "internal error: KeyError: 'hp'"


# ------------------------------------------------------------------ the tests added for survivors
def test_a_fight_built_in_memory_is_written_whole_by_a_new_store(tmp_path: Path) -> None:
    path = _saved(tmp_path / "src.toml", notes=1)
    enc = EncounterFile(path).load().encounter
    out = tmp_path / "built.toml"
    store = EncounterFile(out)
    store.revision = len(enc.events)
    store.rewrite(enc)
    loaded = EncounterFile(out).load()
    assert loaded.house_rules == "" and loaded.revision == 2 and _notes(loaded.encounter) == ["n2"]
    assert "house_rules" not in out.read_text()


def test_a_store_let_go_closes_its_descriptor(tmp_path: Path) -> None:
    import gc

    path = _saved(tmp_path / "fight.toml")
    store = EncounterFile(path)
    store.load()
    fd = store.descriptor
    assert fd is not None
    del store
    gc.collect()
    with pytest.raises(OSError) as closed:
        os.fstat(fd)
    assert closed.value.errno == errno.EBADF


def test_a_forked_process_keeps_a_descriptor_still_open_on_the_same_file(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    handle = follower._handle
    assert handle is not None
    handle.pid = -1  # as seen from a forked process that did not close it
    with path.open("ab") as f:
        f.write((_note(3, "x") + "# revision 3\n").encode())
    assert follower.refresh(enc) is enc and _notes(enc) == ["n2", "x"]
    assert follower._handle is handle


def test_a_descriptor_number_reused_for_another_file_in_a_fork_is_not_read(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    handle = follower._handle
    assert handle is not None
    handle.pid = -1
    os.close(handle.fd)
    decoy = _write(tmp_path / "decoy.toml", "#" * 5000)
    opened = os.open(decoy, os.O_RDONLY)
    fd = os.dup2(opened, handle.fd)  # the number now names another file
    os.close(opened)
    try:
        with path.open("ab") as f:
            f.write((_note(3, "x") + "# revision 3\n").encode())
        assert follower.refresh(enc) is enc and _notes(enc) == ["n2", "x"]
        assert follower._handle is not handle
    finally:
        os.close(fd)


def test_a_save_that_cannot_be_opened_for_the_write_says_it_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    real = store_module.folder.open_file

    def denied(p: Path, flags: int = os.O_RDONLY, **kwargs: Any) -> int:
        if flags & os.O_WRONLY:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(p, flags, **kwargs)

    monkeypatch.setattr(store_module.folder, "open_file", denied)
    with pytest.raises(TrackerError) as refused:
        _change(store, enc, Event("note", {"text": "x"}))
    assert str(refused.value) == (
        f"{path}: the change (note) was not saved: {path}: cannot be written: Permission denied; the file holds every change"
        " up to revision 2, and the fight is shown as saved there"
    )


def test_following_reads_only_the_appended_bytes_never_the_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read whole")

    monkeypatch.setattr(codec, "load_bytes", whole)
    for seq in (3, 4):
        with path.open("ab") as f:
            f.write((_note(seq, f"x{seq}") + f"# revision {seq}\n").encode())
        assert follower.refresh(enc) is enc
    assert _notes(enc) == ["n2", "x3", "x4"] and follower.revision == 4


def test_following_works_when_the_system_hands_the_bytes_over_a_few_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    follower = EncounterFile(path)
    enc = follower.load().encounter
    real = store_module.folder.pread

    def trickle(fd: int, size: int, offset: int) -> bytes:
        return real(fd, min(size, 3), offset)

    monkeypatch.setattr(store_module.folder, "pread", trickle)

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read whole")

    monkeypatch.setattr(codec, "load_bytes", whole)
    with path.open("ab") as f:
        f.write((_note(3, "trickled") + "# revision 3\n").encode())
    assert follower.refresh(enc) is enc and _notes(enc) == ["n2", "trickled"]


def test_a_save_that_grows_past_the_limit_while_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path / "fight.toml")
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", 1000)
    real = store_module.folder.open_file

    def then_grows(p: Path, flags: int = os.O_RDONLY, **kwargs: Any) -> int:
        fd = real(p, flags, **kwargs)
        with path.open("ab") as f:
            f.write(b"#" * 1000)
        return fd

    monkeypatch.setattr(store_module.folder, "open_file", then_grows)
    with pytest.raises(RefusedSave) as refused:
        EncounterFile(path).load()
    assert str(refused.value) == f"{path}: over 1,000 bytes (it grew while being read); saves that big are refused"


def test_a_new_encounter_holds_the_games_time_going_down_rule_and_ruleset(tmp_path: Path) -> None:
    from rulesets import registry

    store, loaded = EncounterFile.create(tmp_path / "f.toml", "B", "brandx")
    brandx = registry.get("brandx")
    setup = loaded.encounter.setup
    assert (setup.time, setup.down_when, setup.roster) == (brandx.time, brandx.down_when, [])
    assert loaded.ruleset.name == brandx.name
    with pytest.raises(TrackerError) as refused:
        EncounterFile.create(tmp_path / "g.toml", "B", "brandx", {"throwback": 3})
    assert str(refused.value).startswith("settings.throwback: ")


@pytest.mark.parametrize("how", ["create", "duplicate"])
def test_a_new_or_copied_encounter_follows_others_by_the_appended_bytes_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    if how == "create":
        store, loaded = EncounterFile.create(tmp_path / "f.toml", "B", "freeform")
        enc = loaded.encounter
    else:
        store = EncounterFile(_saved(tmp_path / "src.toml")).duplicate(tmp_path / "f.toml", "B")
        enc = EncounterFile(tmp_path / "f.toml").load().encounter
    other = EncounterFile(tmp_path / "f.toml")
    _change(other, other.load().encounter, Event("note", {"text": "theirs"}))

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read whole")

    monkeypatch.setattr(codec, "load_bytes", whole)
    assert store.refresh(enc) is enc and _notes(enc) == ["theirs"]


def test_house_rules_are_kept_when_a_first_format_save_is_written_out_and_by_rewrite(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("")
    path = _write(
        tmp_path / "old.toml",
        'schema_version = 1\nrevision = 4\nname = "Old"\nruleset = "freeform"\nhouse_rules = "house.toml"\n\n[settings]\n\n' + ADD_ANN,
    )
    store = EncounterFile(path)
    enc = _change(store, store.load().encounter, Event("note", {"text": "new"}))
    assert EncounterFile(path).load().house_rules == "house.toml"
    store.rewrite(enc)
    assert EncounterFile(path).load().house_rules == "house.toml"


def test_a_torn_tail_longer_than_the_change_is_cut_off(tmp_path: Path) -> None:
    path = _saved(tmp_path / "fight.toml", notes=1)
    store = EncounterFile(path)
    enc = store.load().encounter
    committed = path.read_bytes()
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "note"\ntext = "' + b"t" * 500 + b'"\n')
    _change(store, enc, Event("note", {"text": "short"}))
    assert path.read_bytes() == committed + (_note(3, "short") + "#   short\n# revision 3\n").encode()
