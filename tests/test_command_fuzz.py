"""Hypothesis over the command language (what `play` and the app's `:` line run).

Random command lines, built from the real verbs with names, numbers and text that hold
control characters, brackets, quotes and out-of-range numbers. After each line: either
it was applied, or it was refused with a TrackerError and the state is exactly as it
was. At the end, the save written from the session loads back to the same state and log.
"""

from __future__ import annotations

import shlex

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesets import registry
from tracker.engine import TrackerError
from tracker.persistence import codec
from tracker.play.session import COMMANDS, Session
from tests.helpers import session_for

NASTY = ["\x1b", "\x1b[2J", "\x1b]52;c;eA==\x07", "\x9b", "\u202e", "\x00", "\n", "\t", "[", "]", "[/]", "[b]", "[@click=app.quit]x[/]", '"', "'", "=", ",", "\\"]
NUMBERS = ["0", "1", "3", "-2", "7.5", "1e20", "nan", "inf", "-inf", "99999999999999999999", "1000000000000", "abc", "", "x4", "x0", "x999"]
NAMES = ["Ann", "ann", "Bob", "Goblin 1", "Ogre [/]", "[PC]", "Ann 2"]

word = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(NUMBERS),
    st.sampled_from(NASTY),
    st.text(alphabet=st.sampled_from(list("aB1 [/]=\x1b\x07\"'-x")), min_size=1, max_size=8),
)
verbs = st.sampled_from([c.verb for c in COMMANDS] + ["frobnicate", ":", ""])
option = st.tuples(st.sampled_from(["hp", "side", "target", "pt", "faces", "mode", "hidden", "resource", "damage", "as", "note"]), word).map(lambda kv: f"{kv[0]}={kv[1]}")
noise = st.tuples(verbs, st.lists(st.one_of(word, option), max_size=5)).map(lambda t: " ".join([t[0], *t[1]]))

name = st.one_of(st.just("Ann"), st.just("Bob"), st.sampled_from(NAMES), word)
q = name.map(shlex.quote)
num = st.one_of(st.sampled_from(NUMBERS), st.integers(-5, 40).map(str))
small = st.integers(-1, 30).map(str)
text = st.one_of(word, st.lists(word, min_size=1, max_size=3).map(" ".join))
shaped = st.one_of(
    st.tuples(q, st.sampled_from(["", " x2", " x3", " x0"]), num).map(lambda t: f"add {t[0]}{t[1]} hp={t[2]}"),
    st.tuples(q, num).map(lambda t: f"damage {t[0]} {t[1]}"),
    st.tuples(q, num).map(lambda t: f"heal {t[0]} {t[1]}"),
    st.tuples(q, num).map(lambda t: f"set {t[0]} hp {t[1]}"),
    st.tuples(q, q).map(lambda t: f"rename {t[0]} {t[1]}"),
    st.tuples(q, name).map(lambda t: f"side {t[0]} {shlex.quote(t[1])}"),
    st.tuples(q, small).map(lambda t: f"reorder {t[0]} {t[1]}"),
    st.tuples(q, name, small).map(lambda t: f"condition {t[0]} {shlex.quote(t[1])} {t[2]}"),
    st.tuples(small, text).map(lambda t: f"schedule {t[0]} {t[1]}"),
    text.map(lambda t: f"note {t}"),
    st.tuples(q, q, small, num).map(lambda t: f"declare {t[0]} strike target={t[1]} pt={t[2]} damage={t[3]}"),
    st.tuples(q, q).map(lambda t: f"declare {t[0]} punch target={t[1]}"),
    st.tuples(q, small).map(lambda t: f"surprise {t[0]} {t[1]}"),
    st.tuples(st.sampled_from(["remove", "hide", "unhide", "keep", "abort", "maintain"]), q).map(" ".join),
    st.sampled_from(["next", "step", "step 5", "step 100000", "undo", "redo", "undo", "library"]),
)
line = st.one_of(shaped, shaped, shaped, noise)


def snapshot(s: Session) -> tuple:
    enc = s.encounter
    return (
        codec.state_summary(enc),
        [(c.name, c.side, dict(c.stats), dict(c.maxima), tuple(c.upkeep.items())) for c in enc.combatants.values()],
        [(e.segment, e.text, e.about, e.secret) for e in enc.log],
        len(enc.events),
        enc.can_undo(),
        enc.can_redo(),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, min_size=1, max_size=25), st.sampled_from(["freeform", "brandx", "d6"]))
def test_random_command_lines_never_corrupt_state(lines: list[str], ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    s = session_for(ruleset, "add Ann", "add Bob")
    applied = refused = 0
    for text in lines:
        before = snapshot(s)
        try:
            s.execute(text)
            applied += 1
        except TrackerError:
            refused += 1
            assert snapshot(s) == before, text
    # Nothing typed reached the state with a control character in it.
    for c in s.encounter.combatants.values():
        assert "\x1b" not in c.name + c.side
    for entry in s.encounter.log:
        assert "\x1b" not in entry.text
    # Save then load is the identity.
    loaded = codec.loads(codec.dumps(s.encounter, 1))
    assert snapshot(Session(loaded.encounter, loaded.ruleset)) == snapshot(s)
    assert applied + refused == len(lines)
