"""Mutate one module of tracker/ and run each mutant against its direct tests.

The method of the rows of docs/mutation.md that say "by hand" or "as `encounter`":
mutmut 3.8's own mutants of the module (its `mutate_file_contents`, the file mutmut
itself would write) in a copy of this checkout, each run in a process forked from one
pytest collection of the test files given, stopping at the first failing test. It needs
no `mutmut run` (which collects every test of the selection again per mutant, and leaves
out the screens' Pilot tests and the servers' by their marks), so a screen's module is
measured with its own Pilot tests the same way as the engine's with its own.

    pip install mutmut
    python benchmarks/mutation_direct.py tracker/ui/widgets/clock.py tests/test_mutation_clock_bar.py
    python benchmarks/mutation_direct.py tracker/ui/naming.py tests/test_mutation_naming.py --only NAMES_FILE

It prints the counts and each mutant that was not killed (a survivor, or a timeout: a
mutant still running after `--seconds`, not counted as killed), and writes every
verdict to `--out` (a line a mutant: its name and 1 killed, 0 survived, -14 timeout).
Failing Hypothesis examples are not shrunk (the verdict is the same). To see a
survivor's change: the function named after the module's name in the copy (`--keep`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = (".git", ".venv", ".nox", "mutants", "site", "build", "dist", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis")
VERDICT = {1: "killed", 0: "survived", -signal.SIGALRM: "timeout"}


def mutate(copy: Path, module: str) -> list[str]:
    """Write the module's mutants into `copy`; the names MUTANT_UNDER_TEST takes."""
    from mutmut.mutation.file_mutation import mutate_file_contents

    path = copy / module
    mutated = mutate_file_contents(module, path.read_text(encoding="utf-8"))
    path.write_text(mutated.code, encoding="utf-8")
    # A package's `__init__.py` is the package itself to the trampoline (its functions'
    # `__module__`), as mutmut names it: "rulesets.freeform", not "...freeform.__init__".
    dotted = module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return [f"{dotted}.{name}" for name in mutated.mutant_names]


def run(names: list[str], tests: list[str], out: Path, seconds: int) -> None:
    """In the copy (the working folder): one collection, a forked process per mutant."""
    import pytest
    from _pytest.runner import runtestprotocol
    from hypothesis import Phase, settings

    settings.register_profile("mutation", database=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("mutation")

    class Forking:
        def pytest_runtestloop(self, session: pytest.Session) -> bool:
            with out.open("a", encoding="utf-8") as verdicts:
                for name in names:
                    pid = os.fork()
                    if pid == 0:
                        os.environ["MUTANT_UNDER_TEST"] = name
                        signal.alarm(seconds)
                        for item in session.items:
                            if any(report.failed for report in runtestprotocol(item, log=False, nextitem=None)):
                                os._exit(1)
                        os._exit(0)
                    _, status = os.waitpid(pid, 0)
                    verdicts.write(f"{name} {os.waitstatus_to_exitcode(status)}\n")
                    verdicts.flush()
            return True

    log = os.open(f"{out}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(log, 1)
    os.dup2(log, 2)
    # Native tracebacks: pytest's own walk a mutated module's thousands of lines to format
    # each failure (over a minute a mutant on a loaded machine, counted as a timeout).
    sys.exit(pytest.main([*tests, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0", "--tb=native"], plugins=[Forking()]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the module's path, e.g. tracker/ui/naming.py")
    parser.add_argument("tests", nargs="+", help="its direct test files (or test ids)")
    parser.add_argument("--only", type=Path, help="a file of mutant names (a line each): run those only")
    parser.add_argument("--out", type=Path, help="the verdicts file (default: in the copy)")
    parser.add_argument("--seconds", type=int, default=60, help="a mutant's time before it counts as a timeout")
    parser.add_argument("--keep", action="store_true", help="keep the copy (its path is printed)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # inside the copy: the collection and the forks
        names = [line.strip() for line in args.only.read_text(encoding="utf-8").splitlines() if line.strip()]
        run(names, args.tests, args.out, args.seconds)
    copy = Path(tempfile.mkdtemp(prefix="mutation-direct-"))
    shutil.copytree(ROOT, copy, dirs_exist_ok=True, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED))
    made = mutate(copy, args.module)
    names = made if args.only is None else [n.strip() for n in args.only.read_text(encoding="utf-8").splitlines() if n.strip() in made]
    listed, out = copy / "mutants.txt", (args.out or copy / "verdicts.txt").resolve()
    listed.write_text("".join(f"{n}\n" for n in names), encoding="utf-8")
    out.unlink(missing_ok=True)
    # A process of its own, in the copy, so that `tracker` is imported from there.
    subprocess.run([sys.executable, str(Path(__file__).resolve()), args.module, *args.tests, "--child", "--only", str(listed),
                    "--out", str(out), "--seconds", str(args.seconds)], cwd=copy, env={**os.environ, "PYTHONPATH": str(copy)}, check=False)
    verdicts = dict(line.rsplit(" ", 1) for line in out.read_text(encoding="utf-8").splitlines()) if out.exists() else {}
    counts = {word: sum(1 for v in verdicts.values() if VERDICT.get(int(v)) == word) for word in ("killed", "survived", "timeout")}
    print(f"{args.module}: {len(names)} mutants, {counts['killed']} killed, {counts['survived']} survived, {counts['timeout']} timeouts"
          f"{'' if len(verdicts) == len(names) else f', {len(names) - len(verdicts)} not run'}")
    for name, code in verdicts.items():
        if int(code) != 1:
            print(f"  {VERDICT.get(int(code), f'ended with {code}')}: {name}")
    if args.keep:
        print(f"the copy: {copy}")
    else:
        shutil.rmtree(copy, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
