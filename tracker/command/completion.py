"""Shell completion for bash, zsh and fish, through argcomplete.

    eval "$(tracker completion bash)"                                   # ~/.bashrc
    eval "$(tracker completion zsh)"                                    # ~/.zshrc
    tracker completion fish > ~/.config/fish/completions/tracker.fish

Completing never changes anything: a user data folder that does not exist yet is not
made (its worked examples are offered by name, as the first command will make them).

Decisions: docs/decisions/0030-completion-argcomplete.md
"""

from __future__ import annotations

import argparse
import os
from typing import Any

PROG = "tracker"

# Arguments that name an encounter, and those that name a ruleset, by `dest`.
ENCOUNTER_ARGS = ("file", "source", "encounter")
RULESET_ARGS = ("ruleset",)


def script(shell: str) -> str:
    """The code to eval (bash, zsh) or save (fish) in the user's shell."""
    import argcomplete

    return argcomplete.shellcode([PROG], shell=shell)


def encounter_names(prefix: str, parsed_args: argparse.Namespace | None = None, **_: Any) -> list[str]:
    """Names of the encounters in the saves folder the line names; a prefix that looks
    like a path completes as a path."""
    from tracker.persistence import paths

    if prefix.startswith((".", "~", os.sep)) or os.sep in prefix:
        import argcomplete

        return list(argcomplete.FilesCompleter()(prefix))
    place = paths.locate(getattr(parsed_args, "saves", None))
    if place.source == "user data folder" and not place.path.exists():
        # what the first command will put there (the campaign file is no encounter)
        names = [p.name.removesuffix(paths.SUFFIX) for p in paths.example_files() if not p.name.endswith(paths.CAMPAIGN_SUFFIX)]
    else:
        names = [p.stem for p in paths.encounter_files(place.path)]
    return [name for name in names if name.startswith(prefix)]


def ruleset_ids(prefix: str, **_: Any) -> list[str]:
    from rulesets import registry

    return [rid for rid in sorted(registry.available()) if rid.startswith(prefix)]


def attach(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give every encounter and ruleset argument, in every command, its completer."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                attach(sub)
        elif action.dest in ENCOUNTER_ARGS:
            action.completer = encounter_names  # type: ignore[attr-defined]
        elif action.dest in RULESET_ARGS:
            action.completer = ruleset_ids  # type: ignore[attr-defined]
    return parser


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell (argcomplete writes the candidates to it and exits)."""
    import argcomplete

    argcomplete.autocomplete(attach(parser), always_complete_options=False)  # options after a "-"
