"""The screenshots of the docs and the README: the app at 80x24 on a shipped example.

Run from the repository's top level after a visible change: `python docs/screenshots.py`.
The example is copied to a temporary saves folder first, so the shipped save is never
written, and the config is an empty one there (the defaults, whatever yours sets); keys are typed as the Pilot tests type them, and each shot waits for the app to
settle (tests/ui.py), never a fixed time.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ui import press, settle  # noqa: E402
from tracker.ui.app import TrackerApp  # noqa: E402

SIZE = (80, 24)
EXAMPLE = "seraph-vs-sphinx.toml"
# (file under docs/images, the keys typed on the encounter screen before the shot)
SHOTS = [
    ("encounter.svg", ()),
    ("declare.svg", ("a", "1")),  # Seraph again punches the Sphinx: the chance, then the dice asked
]


async def shoot(saves: Path, name: str, keys: tuple[str, ...]) -> None:
    app = TrackerApp(saves, saves / EXAMPLE, user="gm")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if keys:
            await press(pilot, *keys)
        svg = app.export_screenshot(title=f"tracker open {EXAMPLE}")
    (ROOT / "docs" / "images" / name).write_text(svg, encoding="utf-8")
    print(f"docs/images/{name}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TRACKER_CONFIG"] = str(Path(tmp) / "config.toml")
        saves = Path(tmp) / "saves"
        saves.mkdir()
        for name, keys in SHOTS:
            shutil.copyfile(ROOT / "saves" / EXAMPLE, saves / EXAMPLE)
            asyncio.run(shoot(saves, name, keys))


if __name__ == "__main__":
    main()
