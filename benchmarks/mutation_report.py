"""The mutation score of the rules, per game, and of tracker/, from the last `mutmut run`
(docs/contributing/mutation.md). Run from the repository root after mutmut has run:

    .venv/bin/python benchmarks/mutation_report.py            # score per game and module
    .venv/bin/python benchmarks/mutation_report.py --survivors # and each survivor's diff

Killed counts mutants a test failed on, those that hit the time limit (an endless loop
is caught) and those the type checker refused. A mutant no rule test reaches ("no
tests") counts as a survivor: nothing would notice it. Survivors are sorted in
three kinds: "text" changes only string literals, "message" changes a line that builds
words for the GM (a summary, a label, an error message), "logic" changes anything else.
The seed sentences fix numbers and outcomes, not wording: the score is given over all
mutants and over the logic ones (killed + logic survivors).
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
    """The game a rules module belongs to ("shared" for rulesets/ itself), or "tracker"."""
    if path.is_relative_to("mutants/tracker"):
        return "tracker"
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


# Words that mark a line as building what the GM reads (a summary, a label, an error
# message) rather than deciding an outcome.
_MESSAGE = re.compile(r"""summary|text|label|shown|TrackerError|FieldError|raise |help=|notes|parts\.append|head =|(?<!\w)f["']""")


def _kind(diff: str) -> str:
    """text: only string literals change; message: the line builds words for the GM;
    logic: anything else (a number, a comparison, a branch, a value a rule uses)."""
    if _only_text(diff):
        return "text"
    changed = [line[1:] for line in diff.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    if changed and all(_MESSAGE.search(line) for line in changed):
        return "message"
    return "logic"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument("--by-function", action="store_true", help="list survivors by function and kind (for docs/mutation.md)")
    parser.add_argument("--only", default="", help="only modules whose path contains this")
    args = parser.parse_args()
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    per_game: dict[str, Counter[str]] = defaultdict(Counter)
    per_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[tuple[str, str, str]] = []
    metas = sorted(Path("mutants/rulesets").rglob("*.py.meta")) + sorted(Path("mutants/tracker").rglob("*.py.meta"))
    for meta in metas:
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
                kind = _kind(diff)
                survivors.append((kind, name, diff))
            for bucket in (per_game[_game(source)], per_module[str(source.relative_to("mutants"))]):
                bucket[kind] += 1

    def line(label: str, c: Counter[str]) -> str:
        total = sum(c.values())
        logic = c["killed"] + c["logic"]
        return (f"{label:30} {total:5} mutants {c['killed']:5} killed; survivors: {c['logic']:4} logic "
                f"{c['message']:4} message {c['text']:4} text | killed {100 * c['killed'] / max(1, total):5.1f}% "
                f"of all, {100 * c['killed'] / max(1, logic):5.1f}% of logic")

    for game, c in sorted(per_game.items()):
        print(line(game, c))
    print()
    for module, c in sorted(per_module.items()):
        print(line(module, c))
    if args.by_function:
        grouped: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for kind, name, _ in survivors:
            function, _, number = name.rpartition("__mutmut_")
            grouped[function.replace("xǁ", "").replace("ǁ", ".").replace(".x_", ".")][kind].append(number)
        print()
        for function, kinds in sorted(grouped.items()):
            parts = [f"{kind} {', '.join(sorted(numbers, key=int))}" for kind, numbers in sorted(kinds.items())]
            print(f"- `{function}`: " + "; ".join(parts))
    if args.survivors:
        for kind, name, diff in survivors:
            if kind == "logic":
                print(f"\n## {name}\n{diff}")


if __name__ == "__main__":
    main()
