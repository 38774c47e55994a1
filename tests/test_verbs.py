"""The table of verbs (tracker.play.verbs): each verb is defined once, and what speaks the
command language agrees with it: the typed Session methods it names, the role guard,
its usage strings, the user guide's list (docs/guide/verbs.md) and the session
docstring's, the app's keys."""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import pytest

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.play import fights
from tracker.play import session as session_module
from tracker.play import verbs
from tracker.engine import CommandError, RuleRefusal, TrackerError
from tracker.persistence.library import Library
from tracker.reading.roles import GM, PLAYER, VIEWER, Role
from tracker.play.session import Outcome, Session
from tracker.ui.commands import ENCOUNTER
from tests.helpers import session_for

ROOT = Path(__file__).resolve().parent.parent
NAMES = [v.name for v in verbs.VERBS]

# For each verb: lines the GM runs first, lines the session under test runs first (the
# GM's session for a viewer, who may run none), and the line itself ("{last}" is the
# number of the latest change). A freeform fight: Seraph (the player's) and Sphinx.
EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "add": ((), (), "add Nyx hp=5"),
    "declare": ((), (), "declare Seraph attack target=Sphinx pt=3 damage=2"),
    "maintain": (("declare Seraph attack target=Sphinx pt=3 damage=2", "step 3"), (), "maintain Seraph damage=1"),
    "abort": (("declare Seraph attack target=Sphinx pt=3",), (), "abort Seraph"),
    "damage": ((), (), "damage Sphinx 1"),
    "heal": (("damage Sphinx 3",), (), "heal Sphinx 1"),
    "set": ((), (), "set Sphinx hp 4"),
    "condition": ((), (), "condition Sphinx prone 3"),
    "schedule": ((), (), "schedule 5 the bell rings"),
    "surprise": ((), (), "surprise Sphinx 2"),
    "hide": ((), (), "hide Sphinx"),
    "unhide": (("hide Seraph",), (), "unhide Seraph"),
    "keep": ((), (), "keep Sphinx"),
    "remove": ((), (), "remove Sphinx"),
    "rename": ((), (), "rename Sphinx Sphinxy"),
    "side": ((), (), "side Sphinx foes"),
    "reorder": ((), (), "reorder Sphinx 1"),
    "library": ((), (), "library"),
    "next": (("schedule 4 bell",), (), "next"),
    "step": ((), (), "step 2"),
    "undo": ((), ("declare Seraph attack target=Sphinx pt=3",), "undo"),
    "redo": ((), ("declare Seraph attack target=Sphinx pt=3", "undo"), "redo"),
    "note": ((), (), "note the bridge creaks"),
    "roll": ((), (), "roll 2d6"),
    "proposals": ((), (), "proposals"),
    "approve": (("setting player_declarations approval", "@declare Seraph attack target=Sphinx pt=3"), (), "approve {last}"),
    "refuse": (("setting player_declarations approval", "@declare Seraph attack target=Sphinx pt=3"), (), "refuse {last} not now"),
    "takeback": ((), ("declare Seraph attack target=Sphinx pt=3",), "takeback"),
    "reroll": ((), (), "reroll Seraph"),
    "end": ((), (), "end outcome=won"),
    "setting": ((), (), "setting player_declarations approval"),
}
# Refused for the GM too, by the rules rather than by role: freeform has no throwback,
# so nothing is ever interrupted for `keep` to let stand.
GM_REFUSED = {"keep": "has no interrupted action to keep (rule: throwback)", "end": "this fight is not kept in a file (rule: campaign)"}

ROLES = {GM: Role.gm(), PLAYER: Role.player(["Seraph"]), VIEWER: Role.viewer()}


def run_example(verb: str, role: str, tmp_path: Path) -> Outcome:
    """The verb's example line, run by a session of `role` after its set-up."""
    gm_lines, own_lines, line = EXAMPLES[verb]
    gm = session_for(registry.get("freeform"), "add Seraph hp=10", "add Sphinx hp=10")
    player = Session(gm.encounter, gm.ruleset, RandomDice(1), user="bob", role=ROLES[PLAYER])
    for setup in gm_lines:
        (player if setup.startswith("@") else gm).execute(setup.lstrip("@"))
    library = Library.in_folder(tmp_path, "freeform")
    me = Session(gm.encounter, gm.ruleset, RandomDice(2), user="alice" if role == GM else "bob", role=ROLES[role], library=library)
    for setup in own_lines:
        (gm if role == VIEWER else me).execute(setup)
    return me.execute(line.format(last=len(gm.encounter.events)))


def role_refusal(exc: TrackerError) -> bool:
    """A refusal by the session's role (tracker.reading.roles), not by the rules."""
    return isinstance(exc, RuleRefusal) and exc.rule in (PLAYER, VIEWER)


def test_every_verb_has_an_example_and_every_example_a_verb() -> None:
    assert sorted(EXAMPLES) == sorted(NAMES)
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("verb", verbs.VERBS, ids=NAMES)
def test_every_verb_calls_a_typed_session_method_that_exists(verb: verbs.Verb) -> None:
    for name in verb.methods:
        method = getattr(Session, name, None)
        assert callable(method), f"{verb.name}: Session has no method {name}"
        # The session names a campaign's Preview for the type checker only (it loads fights
        # when a fight is ended, not at every start): its hints are read with fights' names too.
        assert typing.get_type_hints(method, {**vars(fights), **vars(session_module)})["return"] is Outcome, f"{verb.name}: {name} does not return an Outcome"
    # The example's words become a call the method accepts, argument for argument.
    call = verbs.read(EXAMPLES[verb.name][2].format(last=7))
    assert call.method in verb.methods
    inspect.signature(getattr(Session, call.method)).bind(None, *call.args, **call.kwargs)


def test_no_verb_is_parsed_inside_the_session() -> None:
    assert not [name for name in vars(Session) if name.startswith("_cmd_")]


@pytest.mark.parametrize("role", [GM, PLAYER, VIEWER])
@pytest.mark.parametrize("verb", verbs.VERBS, ids=NAMES)
def test_the_roles_of_a_verb_agree_with_the_role_guard(verb: verbs.Verb, role: str, tmp_path: Path) -> None:
    try:
        outcome = run_example(verb.name, role, tmp_path)
    except TrackerError as exc:
        assert role_refusal(exc) == (role not in verb.roles), f"{verb.name} as {role}: {exc}"
        if role == GM:
            assert verb.name in GM_REFUSED and GM_REFUSED[verb.name] in str(exc), str(exc)
        return
    assert role in verb.roles, f"{verb.name} as {role} was not refused: {outcome.lines}"
    assert verb.name not in GM_REFUSED


def _placeholders(usage: str) -> tuple[list[str], set[str]]:
    """The positional placeholders (NAME, [N], NAME[,NAME|GLOB*]) and option keys of a usage."""
    positional, options = [], set()
    for word in usage.split()[1:]:
        key = re.match(r"\[?([a-z_]+)=", word)
        if key:
            options.add(key.group(1))
            continue
        name = re.match(r"\[?([A-Z][A-Z-]*|xN)\b", word)
        if name:
            positional.append(name.group(1))
    return positional, options


@pytest.mark.parametrize("verb", [v for v in verbs.VERBS if v.name != "library"], ids=[n for n in NAMES if n != "library"])
def test_each_usage_names_the_arguments_and_options_the_verb_reads(verb: verbs.Verb) -> None:
    """(`library`'s usage is three sub-commands; its example runs in the tests above.)"""
    assert verbs.split_command(verb.usage)[0] == verb.name
    positional, options = _placeholders(verb.usage)
    assert positional == [a.name for a in verb.args]
    read = {o.key for o in verb.options} | ({"key"} if verb.params or verb.name == "add" else set())
    assert options <= read, f"{verb.name}: the usage shows options it does not read: {options - read}"
    for opt in verb.options:
        assert f"{opt.key}=" in verb.usage + verb.help, f"{verb.name}: {opt.key}= is read but neither usage nor help says so"
    # Too few words are refused with the verb's own usage line.
    least = sum(1 for a in verb.args if not a.optional)
    if least:
        with pytest.raises(CommandError, match=re.escape(verb.refusal)):
            verbs.read(verb.name)


def _commands_named(block: list[str]) -> set[str]:
    """The first word of each command a hand-written list shows: at a line's start, after
    `|`, `/` or a column gap, or quoted in backticks."""
    return {m.group(1) for line in block for m in re.finditer(r"(?:^|\| |/ |\s{2}|`)([a-z]+)\b", line.strip())}


def _guide_block() -> list[str]:
    """The list in the user guide's page on the `:` line (docs/guide/verbs.md)."""
    text = (ROOT / "docs" / "guide" / "verbs.md").read_text(encoding="utf-8")
    section = text[text.index("## The command language") :]
    start = section.index("```\n") + 4
    return section[start : section.index("\n```", start)].splitlines()


def _docstring_block() -> list[str]:
    lines = (session_module.__doc__ or "").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    add "))
    block = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        if not line.startswith("     "):  # not a continuation of the line above
            block.append(line)
    return block


@pytest.mark.parametrize("where", ["user guide", "session docstring"])
def test_the_written_lists_of_commands_name_every_verb_and_no_other(where: str) -> None:
    block = _guide_block() if where == "user guide" else _docstring_block()
    missing = set(NAMES) - _commands_named(block)
    assert not missing, f"the {where}'s list of commands lacks {sorted(missing)}"
    unknown = {line.split()[0] for line in block} - set(NAMES)
    assert not unknown, f"the {where}'s list of commands shows {sorted(unknown)}, which are not verbs"


def test_the_apps_keys_offer_a_player_only_verbs_a_player_may_use() -> None:
    for command in ENCOUNTER:
        verb = verbs.BY_NAME.get(command.name)
        if verb is None or not command.edits:
            continue
        if command.player:
            assert PLAYER in verb.roles, f"key {command.key_text} offers players {verb.name}, which the guard refuses them"
        if command.gm:
            assert GM in verb.roles, command.name


def test_the_command_line_offers_names_only_after_verbs_that_take_one() -> None:
    offered = verbs.completions(["Sun Ruler"])
    assert "damage 'Sun Ruler' " in offered and "declare 'Sun Ruler' " in offered
    assert "next 'Sun Ruler' " not in offered and "schedule 'Sun Ruler' " not in offered
    assert [w for w in offered if "Sun" not in w] == [f"{n} " for n in NAMES]


def test_each_role_is_offered_only_the_verbs_its_row_allows() -> None:
    """The table's `roles` decide what the help and the `:` line offer: the GM every
    verb, a player those a player may use, a viewer none (it changes nothing)."""
    assert verbs.offered(GM) == verbs.VERBS
    player = [v.name for v in verbs.offered(PLAYER)]
    assert player == ["declare", "maintain", "abort", "undo", "redo", "roll", "proposals", "takeback"]
    assert verbs.offered(VIEWER) == () and verbs.completions(["Sun Ruler"], VIEWER) == []
    offered = verbs.completions(["Sun Ruler"], PLAYER)
    assert [w for w in offered if "Sun" not in w] == [f"{n} " for n in player]
    assert "declare 'Sun Ruler' " in offered and "damage 'Sun Ruler' " not in offered and "damage " not in offered


def test_a_key_and_a_typed_line_make_the_same_change() -> None:
    """The app's keys call the typed methods; the `:` line reaches the same ones."""
    typed = session_for(registry.get("freeform"), "add Ann hp=10", "add Bob hp=10")
    keyed = session_for(registry.get("freeform"), "add Ann hp=10", "add Bob hp=10")
    for line, key in [
        ("schedule 5 the bell rings", lambda s: s.schedule(5, "the bell rings")),
        ("condition Ann,Bob prone 3", lambda s: s.condition("Ann,Bob", "prone", 3)),
        ("surprise Bob 4", lambda s: s.surprise("Bob", 4)),
        ("damage Ann 2", lambda s: s.damage("Ann", 2)),
        ("heal Ann 0.5", lambda s: s.heal("Ann", 0.5)),
        ("unhide Bob", lambda s: s.unhide("Bob")),
    ]:
        a, b = typed.execute(line), key(keyed)
        assert a.event is not None and b.event is not None
        assert (a.event.kind, a.event.args, a.lines) == (b.event.kind, b.event.args, b.lines)


def test_an_unknown_verb_is_refused_with_the_list_from_the_table() -> None:
    with pytest.raises(CommandError) as refused:
        verbs.read("Frobnicate Ann")
    assert str(refused.value) == f"unknown command 'frobnicate' (commands: {', '.join(NAMES)})"


def test_the_rest_of_the_line_is_passed_as_typed_even_when_empty() -> None:
    """A required text argument typed as '' reaches the method as '' (the method says
    what is wrong with it); an optional one left empty takes its default."""
    assert verbs.read("declare Ann ''").args == ("Ann", "")
    assert verbs.read("declare Ann big  swing").args == ("Ann", "big swing")
    assert verbs.read("abort Ann ''").args == ("Ann", None)
    assert verbs.read("schedule 5 ''").args == (5, "")
    assert verbs.read("roll").args == ("",)


def test_a_note_is_taken_as_typed_in_any_case() -> None:
    assert verbs.read('note  a "quoted" x=1 ').args == ('a "quoted" x=1',)
    assert verbs.read('NOTE the "gate" holds x=1').args == ('the "gate" holds x=1',)


def test_only_the_command_line_runs_a_line_of_the_language_in_the_app() -> None:
    """Keys, forms and the palette call typed Session methods; the `:` line is the one
    place the app hands the session a line to parse."""
    found = []
    for path in sorted((ROOT / "tracker" / "ui").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {line.strip()}" for line in text.splitlines() if ".execute(" in line or "shlex" in line]
    assert len(found) == 1 and 's.execute(values["line"])' in found[0], found
