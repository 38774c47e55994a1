"""`tracker.persistence.campaign_file`, as docs/campaigns.md ("The file") and the module
docstring promise: a header, then `[[events]]` tables each change appended after the
last `# revision N` line; a torn tail ignored and cut by the next change; everything
checked when read and refused naming the file, the line of the event and the field; a
new file written whole; a file that does not load never written.

The files are written by hand here (the bytes a person or a crash could leave), and every
file the module writes is read back with a fresh `CampaignFile(...).load()`.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tracker.engine.errors import TrackerError
from tracker.engine.model import Event
from tracker.persistence import campaign_file as cf
from tracker.persistence.campaign import Campaign
from tracker.persistence.campaign_file import CampaignError, CampaignFile

HEAD = 'kind = "campaign"\nschema_version = 1\nname = "Road"\nruleset = "freeform"\n'
ANN = '[[events]]\nseq = 1\nkind = "join"\npc = "pc1"\nname = "Ann"\n\n[events.resources]\nhp = 10\n'
BO = '[[events]]\nseq = 2\nkind = "join"\nby = "gm"\npc = "pc2"\nname = "Bo"\n'


def decoded(text: str, source: str = "road.campaign.toml", base_dir: Path | None = None) -> tuple[Campaign, int]:
    return cf.decode(text.encode("utf-8"), source, base_dir)


def refusal(text: str | bytes, source: str = "road.campaign.toml", base_dir: Path | None = None) -> str:
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    with pytest.raises(CampaignError) as said:
        cf.decode(data, source, base_dir)
    return str(said.value)


# ------------------------------------------------------------------ small pieces
def test_a_campaign_file_is_named_for_one() -> None:
    assert cf.is_campaign("road.campaign.toml") and cf.is_campaign(Path("saves/road.campaign.toml"))
    assert not cf.is_campaign("road.toml") and not cf.is_campaign("road.campaign.toml.bak")


def test_an_events_time_is_utc_to_the_second() -> None:
    said = cf.now()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", said), said
    when = datetime.strptime(said, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert abs(datetime.now(timezone.utc) - when) < timedelta(seconds=5)


def test_the_line_of_an_event_is_that_of_its_own_table() -> None:
    data = (HEAD + "\n" + ANN + "\n[[events]]  \r\nseq = 2\n [[events]]\n[[events.party]]\n[[events]]\n").encode()
    assert [cf._line_of(data, i) for i in range(4)] == [6, 15, 19, 0]
    assert cf._line_of(b"[[events]]\n", 0) == 1
    assert cf._line_of(b"\n[[events]]\n", 0) == 2  # a hand-edited file may start with a blank line


def test_new_events_are_appended_as_tables_after_a_blank_line_then_their_mark() -> None:
    payload = cf._encode([Event("note", {"text": "rain"}, 3, "gm")], 3)
    assert payload == b'\n[[events]]\nseq = 3\nkind = "note"\nby = "gm"\ntext = "rain"\n# revision 3\n'


# ------------------------------------------------------------------ decode: the header
def test_a_whole_file_is_read_with_its_revision_and_a_torn_tail_is_not() -> None:
    text = "# a comment\n" + HEAD + "# revision 0\n\n" + ANN + "# revision 1\n\n" + BO + "# revision 2\n" + '\n[[events]]\nseq = 3\nkind = "no'
    camp, revision = decoded(text)
    assert revision == 2
    assert [(e.seq, e.kind, e.by, e.args) for e in camp.events] == [
        (1, "join", "", {"pc": "pc1", "name": "Ann", "resources": {"hp": 10}}), (2, "join", "gm", {"pc": "pc2", "name": "Bo"})]
    assert (camp.name, camp.ruleset, camp.house_rules) == ("Road", "freeform", "")


def test_a_file_with_no_mark_yet_is_revision_0() -> None:
    camp, revision = decoded(HEAD)
    assert revision == 0 and camp.events == []


@pytest.mark.parametrize(("text", "said"), [
    (HEAD.replace('kind = "campaign"', 'kind = "fight"'), 'road.campaign.toml: kind: expected "campaign" (a campaign file), got \'fight\''),
    (HEAD.replace('kind = "campaign"\n', ""), 'road.campaign.toml: kind: expected "campaign" (a campaign file), got None'),
    (HEAD.replace("schema_version = 1", "schema_version = 2"), "road.campaign.toml: schema_version: expected 1, got 2 (a newer tracker wrote this file?)"),
    (HEAD.replace("schema_version = 1", 'schema_version = "1"'), "road.campaign.toml: schema_version: expected a whole number, got '1'"),
    (HEAD.replace("schema_version = 1", "schema_version = true"), "road.campaign.toml: schema_version: expected a whole number, got True"),
    (HEAD.replace("schema_version = 1\n", ""), "road.campaign.toml: schema_version: expected a whole number, got None"),
    (HEAD.replace('name = "Road"', "name = 5"), "road.campaign.toml: name: expected text, got 5"),
    (HEAD.replace('name = "Road"\n', ""), "road.campaign.toml: name: expected text, got None"),
    (HEAD.replace('ruleset = "freeform"', "ruleset = true"), "road.campaign.toml: ruleset: expected text, got True"),
    (HEAD + "house_rules = 3\n", "road.campaign.toml: house_rules: expected text, got 3"),
    (HEAD + 'title = "x"\nzzz = 1\n', "road.campaign.toml: unexpected key 'title' (a campaign file has kind, schema_version, name, ruleset, house_rules and [[events]])"),
    (HEAD + "events = 3\n", "road.campaign.toml: events: expected an array of tables [[events]]"),
    (HEAD + "events = [1]\n", "road.campaign.toml: events: expected an array of tables [[events]]"),
    (HEAD.replace('"freeform"', '"nosuchgame"'), "road.campaign.toml: ruleset: "),
])
def test_a_broken_header_is_refused_naming_the_file_and_the_field(text: str, said: str) -> None:
    assert refusal(text).startswith(said), refusal(text)


def test_a_file_that_is_not_utf8_or_not_toml_is_refused_by_name() -> None:
    assert refusal(HEAD.encode() + b"# \xff\n") == "road.campaign.toml: not UTF-8 text (byte 74)"
    said = refusal(HEAD + "[[events]\n")
    assert said.startswith("road.campaign.toml") and "not valid TOML" in said and "line 5" in said


def test_house_rules_are_read_from_the_campaigns_folder(tmp_path: Path) -> None:
    text = HEAD + 'house_rules = "house.toml"\n'
    assert refusal(text, base_dir=tmp_path) == f"road.campaign.toml: ruleset: road.campaign.toml: house_rules: {tmp_path / 'house.toml'}: file not found"
    (tmp_path / "house.toml").write_text("")
    camp, _ = decoded(text, base_dir=tmp_path)
    assert camp.house_rules == "house.toml"


# ------------------------------------------------------------------ decode: each event
@pytest.mark.parametrize(("event", "said"), [
    ('[[events]]\nseq = 2\nkind = "note"\ntext = "x"\n', "road.campaign.toml:6: event 1: seq: expected 1 (events are numbered in order), got 2"),
    ('[[events]]\nseq = true\nkind = "note"\ntext = "x"\n', "road.campaign.toml:6: event 1: seq: expected 1 (events are numbered in order), got True"),
    ('[[events]]\nseq = "1"\nkind = "note"\ntext = "x"\n', "road.campaign.toml:6: event 1: seq: expected 1 (events are numbered in order), got '1'"),
    ('[[events]]\nkind = "note"\ntext = "x"\n', "road.campaign.toml:6: event 1: seq: expected 1 (events are numbered in order), got None"),
    ('[[events]]\nseq = 1\nkind = "jion"\n', "road.campaign.toml:6: event 1: kind: expected one of join, leave, set, note, fight, end, rest, undo, redo, got 'jion'"),
    ('[[events]]\nseq = 1\nkind = 5\n', "road.campaign.toml:6: event 1: kind: expected one of join, leave, set, note, fight, end, rest, undo, redo, got 5"),
    ('[[events]]\nseq = 1\nkind = ["note"]\n', "road.campaign.toml:6: event 1: kind: expected one of join, leave, set, note, fight, end, rest, undo, redo, got ['note']"),
    ('[[events]]\nseq = 1\nkind = "note"\nby = 5\ntext = "x"\n', "road.campaign.toml:6: event 1: by: expected text, got 5"),
    ('[[events]]\nseq = 1\nkind = "note"\ntext = "x"\nmood = "wet"\n', "road.campaign.toml:6: event 1 (note): unexpected key 'mood' (a note event has text, at)"),
    ('[[events]]\nseq = 1\nkind = "note"\ntext = 5\n', "road.campaign.toml:6: event 1 (note).text: expected text, got 5"),
    ('[[events]]\nseq = 1\nkind = "note"\n', "road.campaign.toml:6: event 1 (note): missing key 'text' (text)"),
    ('[[events]]\nseq = 1\nkind = "leave"\npc = "pc1"\n', "road.campaign.toml:6: event 1 (leave): no character 'pc1' in the campaign Road (the party: nobody yet)"),
])
def test_a_broken_event_is_refused_naming_file_line_event_and_field(event: str, said: str) -> None:
    assert refusal(HEAD + "\n" + event) == said


def test_the_line_named_is_the_broken_events_own() -> None:
    text = HEAD + "\n" + ANN + "\n" + BO.replace('name = "Bo"', "name = 5")
    assert refusal(text) == "road.campaign.toml:15: event 2 (join).name: expected text, got 5"


def test_an_event_written_inline_is_refused_without_a_line() -> None:
    text = HEAD + 'events = [{seq = 1, kind = "note", text = 5}]\n'
    assert refusal(text) == "road.campaign.toml: event 1 (note).text: expected text, got 5"


def test_a_number_no_save_can_hold_is_refused_but_a_characters_figures_by_the_campaign() -> None:
    fight = '[[events]]\nseq = 1\nkind = "fight"\nfile = "f.toml"\nname = "F"\n\n'
    big = fight + '[[events]]\nseq = 2\nkind = "end"\nfile = "f.toml"\nrevision = 1\nsegment = 1e400\n'
    assert refusal(HEAD + "\n" + big).startswith("road.campaign.toml:12: event 2 (end).segment: expected an integer, got inf")
    huge = '[[events]]\nseq = 1\nkind = "rest"\nhours = 1\nrule = "x"\n\n[[events.rolls]]\ndice = [3, 99999999999999999999]\n'
    assert refusal(HEAD + "\n" + huge) == "road.campaign.toml:6: event 1 (rest).rolls[0].dice[1]: 99999999999999999999 cannot be saved (integers must fit 64 bits, numbers must be finite)"
    fight = '\n[[events]]\nseq = 2\nkind = "fight"\nfile = "f.toml"\nname = "F"\npcs = ["pc1"]\n'
    end = '\n[[events]]\nseq = 3\nkind = "end"\nfile = "f.toml"\nrevision = 1\n\n[events.party.pc1.resources]\nhp = 99999999999999999999\n'
    said = refusal(HEAD + "\n" + ANN + fight + end)
    assert said.startswith("road.campaign.toml:22: event 3 (end): end: party.pc1.resources.hp: ") and "cannot be saved" not in said, said
    stats = end.replace("[events.party.pc1.resources]\nhp = 99999999999999999999", "[events.stats.pc1.gm]\ndeclared = inf")
    said = refusal(HEAD + "\n" + ANN + fight + stats)
    assert said == "road.campaign.toml:22: event 3 (end): end: stats.pc1.gm.declared: expected a whole number of at least 0, got inf"


def test_every_sheet_is_checked_by_the_campaigns_own_game() -> None:
    head = HEAD.replace('"freeform"', '"brandx"')
    join = '[[events]]\nseq = 1\nkind = "join"\npc = "pc1"\nname = "Ann"\n\n[events.stats]\nconstitution = "tall"\n'
    said = refusal(head + "\n" + join)
    assert said.startswith("road.campaign.toml:6: event 1 (join)") and "constitution" in said, said
    ok = '[[events]]\nseq = 1\nkind = "join"\npc = "pc1"\nname = "Ann"\n\n[events.stats]\nconstitution = 10\n\n[events.resources]\nvp = 10\n'
    for kind, table in (("set", "stats"), ("set", "resources"), ("set", "maxima")):
        event = f'\n[[events]]\nseq = 2\nkind = "{kind}"\npc = "pc1"\n\n[events.{table}]\nconstitution = "tall"\n'
        said = refusal(head + "\n" + ok + event)
        assert said.startswith("road.campaign.toml:18: event 2 (set)") and "constitution" in said, (table, said)
    fight = '\n[[events]]\nseq = 2\nkind = "fight"\nfile = "f.toml"\nname = "F"\npcs = ["pc1"]\n'
    for table in ("stats", "maxima", "resources"):
        end = f'\n[[events]]\nseq = 3\nkind = "end"\nfile = "f.toml"\nrevision = 1\n\n[events.party.pc1.{table}]\nconstitution = "tall"\n'
        said = refusal(head + "\n" + ok + fight + end)
        assert said.startswith("road.campaign.toml:25: event 3 (end).party.pc1") and "constitution" in said, (table, said)
    rest = '\n[[events]]\nseq = 2\nkind = "rest"\nhours = 1\nrule = "x"\n\n[events.party.pc1.stats]\nconstitution = "tall"\n'
    said = refusal(head + "\n" + ok + rest)
    assert said.startswith("road.campaign.toml:18: event 2 (rest).party.pc1") and "constitution" in said, said


def test_a_resource_the_game_does_not_know_is_refused_where_it_joins_or_is_set() -> None:
    # Brand X's sheet names its resources; the campaign alone would take any name.
    head = HEAD.replace('"freeform"', '"brandx"')
    join = '[[events]]\nseq = 1\nkind = "join"\npc = "pc1"\nname = "Ann"\n\n[events.resources]\nmana = 3\n'
    known = "expected one of the known resources (vp, dp, ep, penetrating_dp, injury_dp, pushback), got 'mana'"
    assert refusal(head + "\n" + join) == f"road.campaign.toml:6: event 1 (join).resources.mana: {known}"
    ok = join.replace("mana = 3", "vp = 10")
    for table in ("maxima", "resources"):
        event = f'\n[[events]]\nseq = 2\nkind = "set"\npc = "pc1"\n\n[events.{table}]\nmana = 3\n'
        assert refusal(head + "\n" + ok + event) == f"road.campaign.toml:15: event 2 (set).resources.mana: {known}", table


def test_a_party_entry_that_is_not_a_table_is_left_to_the_campaign() -> None:
    head = HEAD.replace('"freeform"', '"brandx"')
    ok = '[[events]]\nseq = 1\nkind = "join"\npc = "pc1"\nname = "Ann"\n\n[events.resources]\nvp = 10\n'
    rest = '\n[[events]]\nseq = 2\nkind = "rest"\nhours = 1\nrule = "x"\n\n[events.party]\npc1 = 3\n'
    assert refusal(head + "\n" + ok + rest) == "road.campaign.toml:15: event 2 (rest): rest: party.pc1: expected a table"


# ------------------------------------------------------------------ the file
def test_a_new_campaign_is_written_whole_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "deeper" / "road.campaign.toml"
    store = CampaignFile.create(path, "Road", "freeform")
    assert store.revision == 0 and store.path == path
    assert path.read_text() == cf.HEADER + 'kind = "campaign"\nschema_version = 1\nname = "Road"\nruleset = "freeform"\n# revision 0\n'
    again = CampaignFile(path)
    assert again.revision == -1
    camp = again.load()
    assert (camp.name, camp.ruleset, camp.house_rules, again.revision) == ("Road", "freeform", "", 0)


def test_a_new_campaign_keeps_its_house_rules(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("")
    path = tmp_path / "road.campaign.toml"
    CampaignFile.create(str(path), "Road", "freeform", "house.toml")
    assert 'house_rules = "house.toml"\n# revision 0\n' in path.read_text()
    assert CampaignFile(path).load().house_rules == "house.toml"


def test_a_new_campaign_is_refused_a_wrong_name_an_existing_file_or_a_viewer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TrackerError, match=r"road\.toml: a campaign file's name ends with \.campaign\.toml$"):
        CampaignFile.create(tmp_path / "road.toml", "Road", "freeform")
    path = tmp_path / "road.campaign.toml"
    path.write_text("mine")
    with pytest.raises(TrackerError, match="already exists; choose another name or delete it first$"):
        CampaignFile.create(path, "Road", "freeform")
    assert path.read_text() == "mine"
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    with pytest.raises(TrackerError) as said:
        CampaignFile.create(tmp_path / "new.campaign.toml", "New", "freeform")
    assert str(said.value) == f"{tmp_path / 'new.campaign.toml'}: this is a read-only (viewer) session; changes are refused"
    assert not (tmp_path / "new.campaign.toml").exists()


def test_a_file_that_is_missing_or_not_a_regular_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(CampaignError, match=r"road\.campaign\.toml: no such campaign file$"):
        CampaignFile(tmp_path / "road.campaign.toml").load()
    os.mkfifo(tmp_path / "pipe.campaign.toml")
    with pytest.raises(CampaignError, match=r"pipe\.campaign\.toml: expected a regular campaign, found a FIFO"):
        CampaignFile(tmp_path / "pipe.campaign.toml").load()
    (tmp_path / "dir.campaign.toml").mkdir()
    with pytest.raises(CampaignError, match=r"dir\.campaign\.toml"):
        CampaignFile(tmp_path / "dir.campaign.toml").load()
    (tmp_path / "huge.campaign.toml").write_bytes(b"#" * (4 * 1024 * 1024 + 1))
    with pytest.raises(CampaignError, match=r"huge\.campaign\.toml: 4,194,305 bytes \(4 MB\); campaigns over 4,194,304 bytes \(4 MB\) are refused before they are read$"):
        CampaignFile(tmp_path / "huge.campaign.toml").load()


def test_a_file_that_cannot_be_opened_is_refused_with_the_systems_words(tmp_path: Path) -> None:
    path = tmp_path / ("x" * 300 + ".campaign.toml")
    with pytest.raises(CampaignError) as said:
        CampaignFile(path).load()
    assert str(said.value) == f"{path}: cannot be read: File name too long"


def test_a_broken_file_loaded_is_refused_naming_its_path(tmp_path: Path) -> None:
    path = tmp_path / "road.campaign.toml"
    path.write_text(HEAD.replace("schema_version = 1", "schema_version = 2"))
    with pytest.raises(CampaignError) as said:
        CampaignFile(path).load()
    assert str(said.value) == f"{path}: schema_version: expected 1, got 2 (a newer tracker wrote this file?)"


def test_a_file_of_four_mib_is_read(tmp_path: Path) -> None:
    path = tmp_path / "road.campaign.toml"
    head = (HEAD + "# revision 0\n").encode()
    path.write_bytes(head + b"#" * (4 * 1024 * 1024 - len(head) - 1) + b"\n")
    assert CampaignFile(path).load().name == "Road"


@pytest.fixture
def road(tmp_path: Path) -> Path:
    path = tmp_path / "road.campaign.toml"
    CampaignFile.create(path, "Road", "freeform")
    return path


def test_a_change_is_appended_signed_and_timed_and_the_file_never_rewritten(road: Path) -> None:
    before = road.read_bytes()
    store = CampaignFile(road)
    camp, events = store.change(lambda c: [Event("note", {"text": "rain"}), Event("note", {"text": "sun", "at": "2026-01-01T00:00:00Z"}, by="ann")], "gm")
    assert store.revision == 1
    after = road.read_bytes()
    assert after.startswith(before) and after.endswith(b"# revision 1\n")
    assert [(e.seq, e.by) for e in events] == [(1, "gm"), (2, "ann")]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", events[0].args["at"])
    assert events[1].args["at"] == "2026-01-01T00:00:00Z"
    again = CampaignFile(road)
    loaded = again.load()
    assert again.revision == 1 and loaded.notes == [(1, "rain"), (2, "sun")] == camp.notes
    assert [(e.by, e.args) for e in loaded.events] == [(e.by, e.args) for e in events]
    store.change(lambda c: [Event("note", {"text": "snow"})])
    assert CampaignFile(road).load().events[-1].by == "" and store.revision == 2
    assert b'text = "snow"\nat = "' in road.read_bytes() and road.read_bytes().endswith(b'"\n# revision 2\n')


def test_a_change_is_built_against_the_campaign_as_it_stands(road: Path) -> None:
    CampaignFile(road).change(lambda c: [Event("join", {"pc": c.next_id(), "name": "Ann"})])
    _, events = CampaignFile(road).change(lambda c: [Event("join", {"pc": c.next_id(), "name": "Bo"})])
    assert events[0].args["pc"] == "pc2"
    assert list(CampaignFile(road).load().pcs) == ["pc1", "pc2"]


def test_a_change_that_adds_nothing_writes_nothing(road: Path) -> None:
    before = road.read_bytes()
    store = CampaignFile(road)
    camp, events = store.change(lambda c: [])
    assert events == [] and road.read_bytes() == before and store.revision == -1


def test_a_torn_tail_is_cut_by_the_next_change(road: Path) -> None:
    CampaignFile(road).change(lambda c: [Event("note", {"text": "one"})])
    whole = road.read_bytes()
    with road.open("ab") as out:  # longer than the change that follows
        out.write(b'\n[[events]]\nseq = 2\nkind = "note"\ntext = "ha' + b"a" * 500)
    assert len(CampaignFile(road).load().events) == 1
    CampaignFile(road).change(lambda c: [Event("note", {"text": "two"})])
    data = road.read_bytes()
    assert data.startswith(whole) and b"ha\n" not in data and b'"ha' not in data and data.endswith(b"# revision 2\n")
    assert [n for _, n in CampaignFile(road).load().notes] == ["one", "two"]


def test_a_refused_change_writes_nothing(road: Path) -> None:
    before = road.read_bytes()
    with pytest.raises(TrackerError):
        CampaignFile(road).change(lambda c: [Event("leave", {"pc": "pc9"})])
    assert road.read_bytes() == before


def test_a_viewer_changes_nothing(road: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = road.read_bytes()
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    with pytest.raises(TrackerError, match="read-only"):
        CampaignFile(road).change(lambda c: [Event("note", {"text": "x"})])
    assert road.read_bytes() == before


def test_a_full_campaign_file_refuses_the_change_that_would_pass_its_limit(road: Path) -> None:
    store = CampaignFile(road)
    size = len(road.read_bytes())
    filler = "x" * (4 * 1024 * 1024 - size - 200)
    store.change(lambda c: [Event("note", {"text": filler}, by="gm")])
    full = road.read_bytes()
    with pytest.raises(TrackerError, match=r"road\.campaign\.toml: the campaign file is full \(over 4,194,304 bytes \(4 MB\)\); start a new campaign$"):
        store.change(lambda c: [Event("note", {"text": "y" * 300})])
    assert road.read_bytes() == full
    store.change(lambda c: [Event("note", {"text": "z", "at": "t"}, by="g")])
    assert len(road.read_bytes()) <= 4 * 1024 * 1024
    assert CampaignFile(road).load().notes[-1][1] == "z"


def test_a_long_append_is_written_whole(road: Path) -> None:
    text = "w" * (1 << 20)
    CampaignFile(road).change(lambda c: [Event("note", {"text": text})])
    assert CampaignFile(road).load().notes == [(1, text)]
