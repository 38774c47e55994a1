from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty saves folder used as $TRACKER_SAVES."""
    folder = tmp_path / "saves"
    folder.mkdir()
    monkeypatch.setenv("TRACKER_SAVES", str(folder))
    return folder
