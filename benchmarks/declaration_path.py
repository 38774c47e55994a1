"""The road one declaration travels through the code (python benchmarks/declaration_path.py).

Not a timing: a count of where the program goes. The declare flow (`tracker.play.declaring`,
what the form drives) runs one Brand X declaration on a copy of a shipped save, as the
form does: the choices, Enter, the dice typed, Enter at the result (the commit: the
request built, resolved, the event checked, applied and encoded into the file). Every
Python call and return in the project's own code (tracker/ and rulesets/) is followed
with `sys.setprofile`; code outside the project (the standard library, icepool) is
passed through as if it were the file that called it, and a game's adapter
(rulesets/brandx/) counts as one room: how it resolves is its own business.

Printed for the Enter that commits, and for the whole declaration:
- stays: how many times the program moves into a file (a run of calls and returns in
  one file is one stay; leaving it and coming back is a second stay);
- files: how many different files it stays in;
- the files with the most stays (the session and the roles among them).

Fewer stays for the same work means a declaration that travels one way instead of back
and forth.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulesets.dice import RandomDice  # noqa: E402
from tracker.persistence.store import EncounterFile  # noqa: E402

OWN = (str(ROOT / "tracker") + "/", str(ROOT / "rulesets") + "/")


class Road:
    """The files the program stays in, in order."""

    def __init__(self) -> None:
        self.stays: list[str] = []

    def _follow(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            here = frame
        elif event == "return":
            here = frame.f_back  # type: ignore[assignment]
        else:
            return
        while here is not None and not here.f_code.co_filename.startswith(OWN):
            here = here.f_back  # type: ignore[assignment]
        if here is None:
            return
        name = str(Path(here.f_code.co_filename).relative_to(ROOT))
        parts = name.split("/")
        if parts[0] == "rulesets" and len(parts) > 2:
            name = "/".join(parts[:2]) + "/"  # the game's adapter: its own business, one room
        if not self.stays or self.stays[-1] != name:
            self.stays.append(name)

    def walk(self, step: Callable[[], object]) -> None:
        sys.setprofile(self._follow)
        try:
            step()
        finally:
            sys.setprofile(None)

    def table(self, title: str) -> str:
        # The first stay is the caller's own file (declaring.py) and is counted.
        counts = Counter(self.stays)
        lines = [f"{title}: {len(self.stays)} stays in {len(counts)} files"]
        for name, n in counts.most_common(8):
            lines.append(f"  {n:4d}  {name}")
        return "\n".join(lines)


def main() -> None:
    from tracker.play.declaring import DeclareFlow, FormStage
    from tracker.reading.roles import Role
    from tracker.play.session import Session

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fight.toml"
        shutil.copy(ROOT / "saves" / "seraph-vs-sphinx.toml", path)
        file = EncounterFile(path)
        loaded = file.load()
        session = Session(loaded.encounter, loaded.ruleset, RandomDice(), file, "", Role.gm())
        flow = DeclareFlow(session, Role.gm())
        whole, commit = Road(), Road()

        def choose_and_roll() -> None:
            flow.set("d", "actor", "Seraph")
            flow.set("d", "template", "punch")
            flow.set("d", "targets", "Sphinx")
            flow.go()
            faces = iter(["7,3", "4", "2", "5", "6", "1"])
            while flow.stage == FormStage.DICE:
                flow.go(next(faces))

        whole.walk(choose_and_roll)
        assert flow.stage == FormStage.RESULT, flow.error
        commit.walk(flow.go)
        assert flow.outcome is not None, flow.error
        whole.stays.extend(commit.stays)
        print(commit.table("Enter at the result (the commit)"))
        print(whole.table("the whole declaration (choices, dice, commit)"))


if __name__ == "__main__":
    main()
