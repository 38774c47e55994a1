"""Run mutmut's mutants with the tests mutmut maps to their function, collecting once.

`mutmut run` starts a pytest session per mutant, which collects hundreds of test files
again each time: for tracker/'s functions every command reaches, most of a mutant's time.
This runs the same tests for each mutant (those `mutants/mutmut-stats.json` maps to the
mutant's function, fastest first, stopping at the first failure, as mutmut does) from one
collection, forking a process per mutant from one that has run no test (as mutmut's
forkserver does). Failing Hypothesis examples are not shrunk: the verdict is the same.

Run it in a copy of `mutants/` (after a `mutmut run` has made the mutants and the map):

    cp -r mutants /tmp/mutants-copy && cd /tmp/mutants-copy
    python /path/to/benchmarks/mutation_by_function.py NAMES_FILE OUT_FILE

NAMES_FILE: one mutant's name a line (the keys of `mutants/tracker/...py.meta`). OUT_FILE
gets a line per mutant: its name and 1 (killed), 0 (survived), 33 (no test reaches it)
or a negative number (stopped by a signal: -14 after two minutes). mutmut's own results
are not changed: docs/mutation.md says which rows were counted this way.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tomllib
from typing import Any

import pytest
from _pytest.runner import runtestprotocol
from hypothesis import Phase, settings

# Set before the tests are imported: a test's own @settings inherits the phases.
settings.register_profile("mutation", database=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile("mutation")


class ByFunction:
    def __init__(self, names: list[str], out: Any) -> None:
        stats = json.loads(open("mutmut-stats.json", encoding="utf-8").read())
        self.names, self.out = names, out
        self.tests: dict[str, list[str]] = stats["tests_by_mangled_function_name"]
        self.duration: dict[str, float] = stats["duration_by_test"]

    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        by_id = {item.nodeid: item for item in session.items}
        for name in self.names:
            function = name.rsplit("__mutmut_", 1)[0]
            ids = sorted(self.tests.get(function, ()), key=lambda t: self.duration.get(t, 0))
            items = [by_id[t] for t in ids if t in by_id]
            self.out.write(f"{name} {self._run(name, items) if items else 33}\n")
            self.out.flush()
        return True

    @staticmethod
    def _run(name: str, items: list[pytest.Item]) -> int:
        pid = os.fork()
        if pid == 0:
            os.environ["MUTANT_UNDER_TEST"] = name
            signal.alarm(120)
            for item in items:
                if any(report.failed for report in runtestprotocol(item, log=False, nextitem=None)):
                    os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


def main() -> None:
    sys.path.insert(0, os.getcwd())  # the mutated copy, as `python -m pytest` would
    names = [line.strip() for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    config = tomllib.loads(open("pyproject.toml", encoding="utf-8").read())["tool"]["mutmut"]
    args = [*config["pytest_add_cli_args_test_selection"], *config["pytest_add_cli_args"], "-q", "-p", "no:cacheprovider"]
    with open(sys.argv[2], "a", encoding="utf-8") as out:
        pytest.main(args, plugins=[ByFunction(names, out)])


if __name__ == "__main__":
    main()
