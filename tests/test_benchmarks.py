"""The benchmarks measure what they say they do."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import engine as bench
from tracker.engine import Encounter, Event, Resolution


def _scanning_fight(enc: Encounter, pts: list[int]) -> None:
    """(a)'s fight as a driver that reads the engine would run it: after every advance,
    whoever has no active action declares next, in roster order."""
    declared, n = 0, len(pts)
    idle = list(enc.combatants)
    while declared < n:
        for name in idle:
            if declared == n:
                break
            enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "resolution": Resolution(pts[declared])}))
            declared += 1
        to = enc.next_happening()
        assert to is not None
        enc.apply(Event("advance", {"to": to}))
        idle = [c.name for c in enc.combatants.values() if c.active is None]
    while (to := enc.next_happening()) is not None:
        enc.apply(Event("advance", {"to": to}))


def _changes(enc: Encounter) -> list[tuple[str, object, object]]:
    return [(e.kind, e.args.get("actor"), e.args["resolution"].pt if "resolution" in e.args else e.args.get("to")) for e in enc.events]


def test_the_engine_benchmarks_driver_makes_the_changes_a_driver_reading_the_engine_would() -> None:
    """engine.py (a) finds who is idle from its own calendar of the strikes it declared,
    not from the engine's state: the engine is asked exactly the same changes."""
    rng = random.Random(7)
    pts = [rng.randint(1, 20) for _ in range(3_000)]
    names = [f"c{i}" for i in range(120)]
    lean, scanning = bench.new_encounter(120), bench.new_encounter(120)
    bench.fight(lean, pts, names)
    _scanning_fight(scanning, pts)
    assert _changes(lean) == _changes(scanning)
    assert sum(1 for a in lean.actions if a.status == "completed") == 3_000
    assert [e.text for e in lean.log] == [e.text for e in scanning.log]


@pytest.mark.slow
def test_the_direct_mutation_run_counts_what_the_tests_kill() -> None:
    """benchmarks/mutation_direct.py (docs/contributing/mutation.md): `slug`'s direct
    tests kill all but the one equivalent mutant docs/mutation.md lists (`strip("XX-XX")`:
    no X is left to strip); tests that never call `slug` kill none of its 15."""
    pytest.importorskip("mutmut.mutation.file_mutation")  # the mutation run's own tool, not a test dependency
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "mutation_direct.py"

    def run(tests: str) -> list[str]:
        done = subprocess.run([sys.executable, str(script), "tracker/ui/naming.py", tests], capture_output=True, text=True, timeout=600, check=True)
        return done.stdout.splitlines()

    assert run("tests/test_mutation_naming.py") == [
        "tracker/ui/naming.py: 15 mutants, 14 killed, 1 survived, 0 timeouts",
        "  survived: tracker.ui.naming.x_slug__mutmut_12",
    ]
    assert run("tests/test_mutation_seat.py")[0] == "tracker/ui/naming.py: 15 mutants, 0 killed, 15 survived, 0 timeouts"


def test_a_packages_init_mutants_are_named_as_the_package(tmp_path: Path) -> None:
    """mutmut's trampoline switches a mutant on by the name `MUTANT_UNDER_TEST` gives:
    a function of `rulesets/freeform/__init__.py` is in the module `rulesets.freeform`,
    so its mutants must be named so, or none of them is ever switched on."""
    pytest.importorskip("mutmut.mutation.file_mutation")
    import importlib.util
    import shutil

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("mutation_direct", root / "benchmarks" / "mutation_direct.py")
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    (tmp_path / "rulesets" / "freeform").mkdir(parents=True)
    shutil.copy(root / "rulesets" / "freeform" / "__init__.py", tmp_path / "rulesets" / "freeform" / "__init__.py")
    shutil.copy(root / "tracker" / "ui" / "naming.py", tmp_path / "naming.py")
    names = runner.mutate(tmp_path, "rulesets/freeform/__init__.py")
    assert names and all(n.startswith("rulesets.freeform.x") for n in names)
    assert runner.mutate(tmp_path, "naming.py")[0].startswith("naming.x_")  # a plain module keeps its own name
