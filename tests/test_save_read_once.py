"""A save the app wrote (its `[state]` summary last) is read once, in pieces, not read in
pieces, refused and read again whole: the same fight either way
(docs/decisions/0059-first-screen.md)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tracker.persistence import codec
from tracker.persistence.store import EncounterFile

SAVES = Path(__file__).resolve().parent.parent / "saves"
SHIPPED = sorted(p.name for p in SAVES.glob("*.toml") if not p.name.endswith(".campaign.toml"))
SUMMED = [name for name in SHIPPED if "\n[state]\n" in (SAVES / name).read_text()]  # the app's summary last
assert "seraph-vs-sphinx.toml" in SUMMED


def tables_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time a save's header is read (its ruleset made, its tables read and checked)."""
    read: list[str] = []
    opening = codec.read_header

    def counted(doc: dict[str, Any], source: str, base_dir: Path | None) -> Any:
        read.append(source)
        return opening(doc, source, base_dir)

    monkeypatch.setattr(codec, "read_header", counted)
    return read


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_save_is_read_once_and_as_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    shutil.copy(SAVES / name, tmp_path / name)
    text = (tmp_path / name).read_text()
    read = tables_read(monkeypatch)
    pieces = codec.read_in_pieces(text, name, tmp_path)
    assert pieces is not None
    assert len(read) == 1
    whole = codec.from_document(codec.parse(text, name), name, tmp_path)
    assert pieces[1] == whole.encounter.events
    read.clear()
    EncounterFile(tmp_path / name).load()
    assert len(read) == 1


def test_a_summary_before_the_last_piece_is_read_whole(tmp_path: Path) -> None:
    # Two [state] tables are no TOML: the whole reading names the problem, as ever.
    name = "seraph-vs-sphinx.toml"
    text = (SAVES / name).read_text()
    doubled = text + "\n[[events]]\nseq = 11\nkind = \"note\"\ntext = \"x\"\n\n[state]\nsegment = 1\n"
    assert codec.read_in_pieces(doubled, name, SAVES) is None
    with pytest.raises(codec.SaveError, match="not valid TOML"):
        codec.loads(doubled, name, SAVES)
