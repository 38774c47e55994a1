"""Opening a save reads its events a piece at a time (tracker.persistence.codec `read_in_pieces`):
exactly what reading the whole file gives, or the whole file is read instead; and the
memory it peaks at stays within twice what `tomllib` alone needs for the same file.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution, Setup, TrackerError
from tracker.engine.effects import Damage
from tracker.persistence import codec
from tracker.persistence.header import SCHEMA_VERSION
from rulesets.freeform import FreeformRuleset

ROOT = Path(__file__).resolve().parent.parent
SAVES = sorted(p for p in (ROOT / "saves").glob("*.toml") if not p.name.endswith(".campaign.toml"))


def long_fight(changes: int, seed: int = 1) -> Encounter:
    """A freeform fight of a table's mix: attacks with damage, heals, notes, time moving on."""
    rng = random.Random(seed)
    enc = Encounter(Setup("long", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    names = ["Kestrel", "Brother-Oak", "Bandit Chief", "Archer", "Wolf", "Sergeant"]
    for name in names:
        enc.apply(Event("add", {"name": name, "side": "party" if len(name) % 2 else "bandits", "resources": {"hp": 10**6}}))
    while len(enc.events) < changes:
        roll = rng.random()
        idle = [n for n in names if enc.combatants[n].active is None]
        if idle and roll < 0.45:
            actor = rng.choice(idle)
            target = rng.choice([n for n in names if n != actor])
            hit = Damage(target=target, amount=rng.randint(1, 8), resource="hp")
            enc.apply(Event("declare", {"actor": actor, "template": "charge", "mode": "active", "targets": [target],
                                        "resolution": Resolution(rng.randint(2, 9), summary="stated by the GM", effects=(hit,))}))
        elif roll < 0.55:
            enc.apply(Event("set", {"target": rng.choice(names), "key": "hp", "value": 10**6}))
        elif roll < 0.6:
            enc.apply(Event("note", {"text": f"round {len(enc.events)} goes on"}))
        else:
            to = enc.next_happening()
            enc.apply(Event("advance", {"to": to if to is not None else enc.now + 1}))
    return enc


def outcome(load: Any) -> tuple[Any, ...]:
    """What a reading gives: the whole state as plain data, or its refusal's words."""
    try:
        loaded = load()
    except TrackerError as exc:
        return ("refused", str(exc))
    enc = loaded.encounter
    return (
        "read", loaded.revision, loaded.schema, [e.to_dict() for e in enc.events], [(e.segment, e.kind, e.text, e.about, e.seq) for e in enc.log],
        codec.state_summary(enc), [(a.id, a.status, a.completes, a.ended) for a in enc.actions],
    )


def both(text: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The loader's reading, and the whole file's (parsed at once, then built)."""
    piecewise = outcome(lambda: codec.loads(text, "fight.toml"))

    def whole() -> codec.Loaded:
        loaded = codec.from_document(codec.parse(text, "fight.toml"), "fight.toml")
        cut = codec.split(text.encode())
        if loaded.schema == SCHEMA_VERSION:
            assert cut.revision is not None
            loaded.revision = cut.revision
        return loaded

    return piecewise, outcome(whole)


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "PIECE_CHARS", 300)  # a piece every few events


@pytest.mark.parametrize("path", SAVES, ids=[p.stem for p in SAVES])
def test_each_shipped_save_reads_in_pieces_as_it_reads_whole(path: Path, small_pieces: None) -> None:
    text = path.read_text()
    first = codec.EVENTS_LINE.search(text)
    tables = re.findall(r"^\[+ *([\w.]+)", text[first.start():] if first else "", re.MULTILINE)
    if first is not None and all(t == "events" or t.startswith("events.") for t in tables):
        assert codec.read_in_pieces(text, "fight.toml", None) is not None, "read in pieces, not whole"
    piecewise, whole = both(text)
    assert piecewise[0] == "read" and piecewise == whole


def test_a_long_fight_reads_in_many_pieces_as_it_reads_whole(small_pieces: None) -> None:
    enc = long_fight(1500)
    text = codec.dumps(enc, 7)
    pieces = codec.read_in_pieces(text, "fight.toml", None)
    assert pieces is not None and len(pieces[1]) == len(enc.events)
    piecewise, whole = both(text)
    assert piecewise[0] == "read" and piecewise == whole
    assert piecewise[1] == 7 and len(piecewise[3]) == 1500


def with_note(text: str, note: str) -> str:
    """`text` with one more change, a note written as given (a hand edit)."""
    body, mark = text.rsplit("# revision", 1)
    seq = body.count("[[events]]\n") + 1
    return f'{body}\n[[events]]\nseq = {seq}\nkind = "note"\ntext = {note}\n# revision 99\n'


def small_text() -> str:
    return codec.dumps(long_fight(40), 3)


def test_an_events_line_inside_a_multiline_string_is_read_whole(small_pieces: None) -> None:
    # A cut there would leave half a string: the pieces refuse, and the whole file decides.
    text = with_note(small_text(), '"""a note\n[[events]]\nseq = 1000\n"""') + '\n[[events]]\nseq = 1\nkind = "note"\ntext = "x"\n# revision 100\n'
    assert codec.read_in_pieces(text, "fight.toml", None) is None
    piecewise, whole = both(text)
    assert piecewise == whole


def test_a_multiline_note_with_an_events_line_reads_as_the_whole_file_reads_it(small_pieces: None) -> None:
    text = with_note(small_text(), '"""a note\n[[events]]\nin the middle"""')
    piecewise, whole = both(text)
    assert piecewise == whole
    if piecewise[0] == "read":
        assert piecewise[3][-1]["text"] == "a note\n[[events]]\nin the middle"


def test_a_table_after_the_events_is_read_whole(small_pieces: None) -> None:
    text = small_text().replace("[settings]\n", "", 1)
    text = text.replace("# revision 3\n", '[settings]\nviewer_resources = "all"\n# revision 3\n')
    assert codec.read_in_pieces(text, "fight.toml", None) is None
    piecewise, whole = both(text)
    assert piecewise == whole


def test_a_bad_event_early_and_bad_toml_later_is_named_as_the_whole_file_names_it(small_pieces: None) -> None:
    text = small_text()
    first = text.index('kind = "declare"')
    text = text[:first] + 'kind = "declare"\nbogus = 1' + text[first + len('kind = "declare"'):]
    text = text.replace("# revision 3\n", "[[events]]\nseq = = 2\n# revision 3\n")
    piecewise, whole = both(text)
    assert piecewise[0] == "refused" and "not valid TOML" in piecewise[1]
    assert piecewise == whole


def test_events_headers_written_otherwise_read_as_the_whole_file_reads_them(small_pieces: None) -> None:
    text = small_text().replace("[[events]]\n", "[[ events ]]\n", 5)
    piecewise, whole = both(text)
    assert piecewise[0] == "read" and piecewise == whole


def test_a_bad_event_is_named_as_before(small_pieces: None) -> None:
    text = small_text()
    text = text.replace("seq = 12\n", "seq = 13\n", 1)
    piecewise, whole = both(text)
    assert piecewise == whole
    assert piecewise[0] == "refused" and "events[11].seq: expected 12" in piecewise[1]


PEAK = """
import resource, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import tomllib
from tracker.persistence.store import EncounterFile

def resident() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()

path = Path(sys.argv[2])
before = resident()
if sys.argv[3] == "tomllib":
    kept = tomllib.loads(path.read_text(encoding="utf-8"))
else:
    kept = EncounterFile(path).load()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
"""


def peak(path: Path, reader: str) -> int:
    """Bytes the process's resident high-water mark rose by while `reader` read `path`
    (a process of its own: the compiled reader's memory is not Python's to trace)."""
    out = subprocess.run([sys.executable, "-c", PEAK, str(ROOT), str(path), reader], capture_output=True, text=True, check=True, cwd=ROOT)
    return int(out.stdout)


DECLARE = """
[[events]]
seq = {seq}
kind = "declare"
actor = "{actor}"
template = "charge"
mode = "active"
targets = [
    "{target}",
]
maintainable = false

[events.resolution]
pt = 5
summary = "stated by the GM"

[[events.resolution.effects]]
kind = "damage"
target = "{target}"
amount = 3
resource = "hp"
overflow = ""
timing = "complete"
"""
NOTE = """
[[events]]
seq = {seq}
kind = "note"
text = "round {round} goes on"
"""
ADVANCE = """
[[events]]
seq = {seq}
kind = "advance"
to = {to}
#   the round's charges land
# revision {seq}
"""


def long_save(rounds: int) -> str:
    """A long fight as the tracker writes it, written out directly (encoding thousands of
    changes one by one would take most of the test): six combatants charge each round."""
    head = long_fight(0)
    parts = [codec.dumps(head, len(head.events))]
    names = list(head.combatants)
    seq = len(head.events)
    for r in range(rounds):
        for i, actor in enumerate(names):
            seq += 1
            parts.append(DECLARE.format(seq=seq, actor=actor, target=names[(i + 1) % len(names)]))
        seq += 1
        parts.append(NOTE.format(seq=seq, round=r))
        seq += 1
        parts.append(ADVANCE.format(seq=seq, to=(r + 1) * 10))
    return "".join(parts)


def test_the_long_save_written_directly_is_a_fight_that_replays() -> None:
    loaded = codec.loads(long_save(20))
    assert len(loaded.encounter.events) == 6 + 20 * 8 and loaded.revision == 6 + 20 * 8
    assert sum(a.status == "completed" for a in loaded.encounter.actions) == 20 * 6
    assert loaded.encounter.combatants["Kestrel"].resources["hp"] == 10**6 - 20 * 3


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the resident size from /proc")
def test_opening_a_long_save_peaks_within_twice_what_tomllib_needs(tmp_path: Path) -> None:
    """Opening the largest save peaks at most 2x what `tomllib` needs for the same file;
    here a 3 MB fight (reading the whole file at once peaked at about 2.3x on this size,
    3.8x on the largest)."""
    path = tmp_path / "long.toml"
    path.write_text(long_save(1_700))
    assert path.stat().st_size > 3_000_000
    parser, loader = peak(path, "tomllib"), peak(path, "load")
    assert parser > 20_000_000, "tomllib's own figure is a real one"
    assert loader <= 2 * parser, f"the loader peaked at {loader / 1e6:.0f} MB, tomllib at {parser / 1e6:.0f} MB"
