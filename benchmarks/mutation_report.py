"""The mutation score of the rules, per game, from the last `mutmut run` (README,
"Mutation score"). Run from the repository root after mutmut has run:

    .venv/bin/python benchmarks/mutation_report.py            # score per game and module
    .venv/bin/python benchmarks/mutation_report.py --survivors # and each survivor's diff

Killed counts mutants a test failed on, those that hit the time limit (an endless loop
is caught) and those the type checker refused. A mutant no rule test reaches ("no
tests") counts as a survivor: nothing would notice it. A mutant that only changes the
text of a message (a string literal of a message, label or key shown to the GM) is
counted apart as "text": the seed sentences fix numbers and outcomes, not wording, and
the score is given both with and without them.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

KILLED = {1, 3, 36, 37, 24, -24, 152, 255}
# A line of a mutant's diff that differs from the original only inside string literals.
_STRING = re.compile(r"""(?:[rbuf]{0,2})("[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*')""")


def _game(path: Path) -> str:
    parts = path.relative_to("mutants/rulesets").parts
    return parts[0] if len(parts) > 1 else "shared"


def _only_text(diff: str) -> bool:
    """Whether the mutant changes only string literals (or swaps one for None)."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    if len(removed) != len(added) or not removed:
        return False
    for old, new in zip(removed, added):
        if _STRING.sub('""', old) != _STRING.sub('""', new):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument("--only", default="", help="only modules whose path contains this")
    args = parser.parse_args()
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    per_game: dict[str, Counter[str]] = defaultdict(Counter)
    per_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[tuple[str, str, str]] = []
    for meta in sorted(Path("mutants/rulesets").rglob("*.py.meta")):
        if args.only not in str(meta):
            continue
        source = meta.with_suffix("")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        for name, code in codes.items():
            if code is None:
                continue  # not run yet
            if code in KILLED:
                kind = "killed"
            else:
                diff = get_diff_for_mutant(name, path=source.relative_to("mutants"))
                kind = "text" if _only_text(diff) else "survived"
                survivors.append((kind, name, diff))
            for bucket in (per_game[_game(source)], per_module[str(source.relative_to("mutants"))]):
                bucket[kind] += 1

    def line(label: str, c: Counter[str]) -> str:
        total = sum(c.values())
        logic = c["killed"] + c["survived"]
        return (f"{label:32} {total:5} mutants, {c['killed']:5} killed, {c['survived']:4} survived, "
                f"{c['text']:4} text only: {100 * c['killed'] / max(1, total):5.1f}% of all, "
                f"{100 * c['killed'] / max(1, logic):5.1f}% without text")

    for game, c in sorted(per_game.items()):
        print(line(game, c))
    print()
    for module, c in sorted(per_module.items()):
        print(line(module, c))
    if args.survivors:
        for kind, name, diff in survivors:
            if kind == "survived":
                print(f"\n## {name}\n{diff}")


if __name__ == "__main__":
    main()
