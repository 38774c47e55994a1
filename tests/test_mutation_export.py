"""Direct tests of tracker.reading.export: the document's rows, its escaping (docs/decisions/0027:
"every character that could start markup (`* _ [ ] < > | # ~ &` and backquote) is
backslash-escaped", HTML-escaped "quotes too") and the choice of format (docs/guide/export.md:
"`--format`, else from OUT's suffix, else Markdown")."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import advance, cli as run, declare, encounter
from tracker.reading import export, report
from tracker.engine import Encounter, Event, Resolution
from tracker.engine.effects import Adjust, Damage


def _fight(name: str = "Bob") -> Encounter:
    """Ann punches (PT 3) at Bob; at segment 5 Bob takes 4 hp and is stunned for 3 segments."""
    enc = encounter("Ann", name)
    declare(enc, "Ann", "punch", 3, targets=(name,))
    advance(enc, 5)
    enc.apply(Event("damage", {"target": name, "amount": 4, "resource": "hp"}))
    enc.apply(Event("condition", {"target": name, "name": "stunned", "duration": 3}))
    return enc


def _section(text: str, head: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(head) + 2
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    return [line for line in lines[start:end] if line]


# ------------------------------------------------------------------ the format
@pytest.mark.parametrize(("given", "output", "chosen"), [
    ("md", "page.html", "md"),  # --format wins over the suffix
    ("html", None, "html"),
    (None, "page.html", "html"),
    (None, "PAGE.HTM", "html"),  # the suffix in any case
    (None, "page.md", "md"),
    (None, "page.html.txt", "md"),
    (None, None, "md"),
])
def test_the_format_is_the_option_else_the_suffix_else_markdown(given: str | None, output: str | None, chosen: str) -> None:
    assert export.chosen_format(given, output) == chosen


# ------------------------------------------------------------------ Markdown
def test_markdown_holds_the_roster_the_state_every_action_and_the_log() -> None:
    text = export.render(_fight(), "md", viewer=False)
    lines = text.splitlines()
    assert lines[0] == "# test (freeform)"
    assert lines[2] == "At segment 5 · round 1, segment 5."
    assert _section(text, "## Roster") == ["| Name | Side | Sheet |", "|---|---|---|", "| Ann | - | - |", "| Bob | - | - |"]
    # hp 20 less 4; the stun lasts 3 segments from segment 5
    assert _section(text, "## Final state")[2:] == [
        "| Ann | idle | hp 20/20, ep 30/30 | - |",
        "| Bob | idle | hp 16/20, ep 30/30 | stunned until 8 |",
    ]
    # started at 0, PT 3: completes on segment 3 ("->" escaped: ">" could start markup)
    assert _section(text, "## Actions") == ["- Ann: active punch on Bob, 0 -\\> 3, completed"]
    log = _section(text, "## Combat log")
    assert log[0] == "- \\[0\\] Ann joins the fight"
    assert "- \\[5\\] Bob takes 4 hp (hp 20 -\\> 16)" in log
    assert log[-1] == "- \\[5\\] Bob is stunned until segment 8"
    assert "## After the fight" in lines
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_an_empty_fight_says_so() -> None:
    enc = encounter()
    text = export.render(enc, "md", viewer=False)
    assert _section(text, "## Actions") == ["(none)"]
    assert _section(text, "## Combat log") == ["(empty)"]
    assert _section(text, "## Roster") == ["| Name | Side | Sheet |", "|---|---|---|"]


@pytest.mark.parametrize(("name", "shown"), [
    ("a*b", "a\\*b"), ("a_b", "a\\_b"), ("[x](y)", "\\[x\\](y)"), ("<b>", "\\<b\\>"),
    ("a|b", "a\\|b"), ("#1", "\\#1"), ("a~b", "a\\~b"), ("a&b", "a\\&b"), ("a`b", "a\\`b"),
    ("a\\b", "a\\\\b"), ("a\x1bb", "a\u241bb"), ("plain-name+1", "plain-name+1"),
])
def test_markdown_escapes_every_character_that_could_start_markup(name: str, shown: str) -> None:
    """Decision 0027, character by character; a control character is made printable
    first (ESC: U+241B); `-` and `+` are left, as no line starts with saved text."""
    data = report.to_json(encounter(name))
    text = export.markdown(data)
    assert f"| {shown} | - | - |" in text.splitlines()


def test_a_side_stats_and_a_maintained_action_in_their_cells() -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Orc", "side": "raiders", "stats": {"str": 14, "dex": 9}, "resources": {"hp": 7}}))
    data = report.to_json(enc)
    doc = export.document(data)
    assert doc["roster"] == [("Orc", "raiders", "str 14, dex 9")]
    action = {"actor": "Orc", "mode": "active", "template": "chop", "targets": ["Ann", "Bob"], "maintained": 2,
              "start": 4, "completes": 9, "status": "in progress", "summary": "hit by 3"}
    data["actions"] = [action]
    assert export.document(data)["actions"] == ["Orc: active chop on Ann, Bob (maintained x2), 4 -> 9, in progress: hit by 3"]
    data["actions"] = [{**action, "targets": [], "maintained": 0, "summary": ""}]
    assert export.document(data)["actions"] == ["Orc: active chop, 4 -> 9, in progress"]


def test_resources_with_and_without_a_maximum_and_the_health_label() -> None:
    """"hp 16/20" when there is a maximum and a number; the value alone otherwise; the
    health label (Healthy / Bloodied / Down, label mode) after them; "-" when none."""
    data = report.to_json(encounter("Ann"))
    row = data["combatants"][0]
    row["resources"] = {"hp": 16, "mood": "grim", "ep": 3}
    row["maxima"] = {"hp": 20, "mood": 5}
    assert export.document(data)["state"][0][2] == "hp 16/20, mood grim, ep 3"
    row["health"] = "Bloodied"
    assert export.document(data)["state"][0][2] == "hp 16/20, mood grim, ep 3, Bloodied"
    row["resources"], row["health"] = {}, ""
    assert export.document(data)["state"][0][2] == "-"
    row["health"] = "Down"
    assert export.document(data)["state"][0][2] == "Down"
    row["conditions"] = {"prone": 7, "stunned": 9}
    assert export.document(data)["state"][0][3] == "prone until 7, stunned until 9"


# ------------------------------------------------------------------ HTML
def test_html_escapes_names_quotes_too_and_holds_the_charts() -> None:
    enc = _fight(name="<i>\"Bo'b\"&")
    page = export.render(enc, "html", viewer=False)
    escaped = "&lt;i&gt;&quot;Bo&#x27;b&quot;&amp;"
    assert f"<tr><td>{escaped}</td><td>-</td><td>-</td></tr>" in page
    assert "<i>" not in page and "Bo'b" not in page
    assert page.startswith("<!DOCTYPE html>\n")
    assert "<title>test (freeform)</title>" in page and "<h1>test (freeform)</h1>" in page
    assert "<h2>Final state</h2>" in page
    assert f"<li>[5] {escaped} takes 4 hp (hp 20 -&gt; 16)</li>" in page
    assert "<h2>After the fight</h2>" in page
    assert page.count("<svg") == 3  # the three charts, inline
    assert page.endswith("</body>\n</html>\n")


def test_a_viewers_page_lists_what_is_not_shown() -> None:
    enc = encounter("Ann", "Bob")
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    gm = export.render(enc, "html", viewer=False)
    viewer = export.render(enc, "html", viewer=True)
    assert "Spy" in gm
    assert "Spy" not in viewer


# ------------------------------------------------------------------ a replay, writing OUT
_PLAYED = "add Ann hp=20\nadd Bob hp=20\nstep 3\ndamage Bob 4\nstep 2\ncondition Bob stunned 3\n"


def test_at_a_segment_the_document_says_it_is_a_replay(saves: Path) -> None:
    """`--at SEGMENT`: the fight as it stood at the end of that segment, and it says so:
    Bob was hurt at segment 3 and stunned at 5, so at 3 he is hurt and not yet stunned."""
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    assert run("play", "fight", stdin=_PLAYED)[0] == 0
    out = saves / "out.md"
    assert run("export", "fight", "--at", "3", "-o", str(out)) == (0, f"wrote {out}\n")
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[2] == "At segment 3 · round 1, segment 3, as the fight stood at the end of that segment (a replay of segments 0 to 5)."
    assert "## State at the end of that segment" in text and "## Final state" not in text
    assert "| Bob | idle | hp 16/20 | - |" in text
    code, whole = run("export", "fight")
    assert code == 0
    assert whole.splitlines()[2] == "At segment 5 · round 1, segment 5."
    assert "## Final state" in whole and "| Bob | idle | hp 16/20 | stunned until 8 |" in whole


def test_a_link_at_out_is_replaced_and_its_target_untouched(saves: Path) -> None:
    """Decision 0027: a symbolic link at OUT is replaced by the document itself; whatever
    it pointed to is never written; the format follows OUT's suffix."""
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    assert run("play", "fight", stdin=_PLAYED)[0] == 0
    target = saves / "precious.txt"
    target.write_text("keep me", encoding="utf-8")
    link = saves / "page.html"
    link.symlink_to(target)
    code, said = run("export", "fight", "-o", str(link))
    assert code == 0
    assert said == f"wrote {link} (it replaced a symbolic link that was there; the link's target is untouched)\n"
    assert target.read_text(encoding="utf-8") == "keep me"
    assert not link.is_symlink() and link.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_segment_outside_the_fight_is_refused_naming_the_option(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/replay.md: "A segment before 0 or past the fight's last is refused,
    naming the range" (and the option that gave it); nothing is written."""
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    assert run("play", "fight", stdin=_PLAYED)[0] == 0
    capsys.readouterr()
    out = saves / "late.md"
    assert run("export", "fight", "--at", "9", "-o", str(out)) == (1, "")
    assert capsys.readouterr().err == "tracker: --at 9: this fight's segments run from 0 to 5\n"
    assert not out.exists()


# ------------------------------------------------------------------ the HTML page's shape
class _Outline(HTMLParser):
    """The page as a browser reads it: the start tags in order (names and attributes
    lowercased, as HTML's are case-insensitive), and every piece of text a reader would
    see with the elements it stands in."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.open: list[str] = []
        self.text: list[tuple[tuple[str, ...], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: (v or "").lower() for k, v in attrs}))
        if tag not in ("meta",):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:] or 'nothing'}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.text.append((tuple(self.open), data.strip()))


_READ_IN = {"title", "style", "h1", "h2", "h3", "p", "th", "td", "li", "svg"}


def _label_fight() -> Encounter:
    """Ann (party) punches Orc (an enemy shown to viewers by label, decision 0017), PT 3;
    on 3 Orc takes 4 HP."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": "party", "resources": {"hp": 20}}))
    enc.apply(Event("add", {"name": "Orc", "side": "orcs", "resources": {"hp": 10}}))
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    declare(enc, "Ann", "punch", 3, targets=("Orc",))
    advance(enc, 3)
    enc.apply(Event("damage", {"target": "Orc", "amount": 4, "resource": "hp"}))
    return enc


def _unescaped(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md)


@pytest.mark.parametrize("viewer", [False, True])
def test_the_html_page_is_the_markdown_document_in_html(viewer: bool) -> None:
    """One document, two formats (docs/guide/export.md: "Markdown or a standalone HTML
    page"): the same section headings, the same column heads, the same clock line, the
    same actions and log lines, and for a viewer the same list of what is not shown
    (decision 0009: "each withheld figure is named")."""
    enc = _label_fight()
    md = export.render(enc, "md", viewer=viewer).splitlines()
    outline = _Outline()
    outline.feed(export.render(enc, "html", viewer=viewer))
    texts = outline.text
    assert [t for where, t in texts if where[-1] == "h2"] == [line[3:] for line in md if line.startswith("## ")]
    heads = [[c.strip() for c in line.strip("|").split("|")] for i, line in enumerate(md) if md[i + 1:i + 2] and md[i + 1].startswith("|---")]
    assert [h[0] for h in heads] == ["Name", "Name", "Who"]
    html_cells = [t for where, t in texts if where[-1] == "th"]
    assert html_cells == [c for h in heads for c in h]
    clock = next(line for line in md if line.startswith("At "))
    assert [t for where, t in texts if where[-1] == "p"][0] == _unescaped(clock)
    items = [t for where, t in texts if where[-1] == "li"]
    listed = [_unescaped(line[2:]) for line in md if line.startswith("- ")]
    assert items == listed
    assert any(t.startswith("Ann: active punch on Orc") for t in items)
    assert ("[3] Orc: figures withheld from viewers" if viewer else "[3] Orc takes 4 hp (hp 10 -> 6)") in items
    if viewer:
        assert items[-1].startswith("Orc: figures withheld from viewers (")
        assert "not shown to viewers:" in [t.lower() for where, t in texts if where[-1] == "p"]
    assert not any("None" in t for _, t in texts)


def test_the_three_charts_are_headed_by_what_they_show() -> None:
    """docs/guide/stats.md: "the whole fight's timeline ..., each combatant's main resource
    over the segments, and damage per round by side" (a freeform round is a round)."""
    outline = _Outline()
    outline.feed(export.render(_fight(), "html", viewer=False))
    charts = [t.lower() for where, t in outline.text if where[-1] == "h3"]
    assert len(charts) == 3
    assert "timeline" in charts[0] and "whole fight" in charts[0]
    assert "main resource" in charts[1]
    assert "damage" in charts[2] and "per round" in charts[2] and "by side" in charts[2]


def test_the_markdown_document_holds_only_headings_tables_lists_and_its_sentences() -> None:
    """Every line of the Markdown is blank, a heading (followed by a blank line), a table
    row, a list item, the clock line, "(none)"/"(empty)" or the luck note: no stray text."""
    for viewer in (False, True):
        lines = export.render(_label_fight(), "md", viewer=viewer).splitlines()
        for i, line in enumerate(lines):
            assert (line == "" or line.startswith(("# ", "## ", "- ")) or (line.startswith("| ") and line.endswith(" |"))
                    or line.startswith("|---") or line.startswith(("At ", "Luck: ")) or line in ("(none)", "(empty)")), line
            if line.startswith("#"):
                assert lines[i + 1] == "" and lines[i - 1:i] in ([], [""])
            if line.startswith("|---"):
                assert lines[i - 1].startswith("| ") and lines[i - 1].count("|") == line.count("|")


@pytest.mark.parametrize("viewer", [False, True])
def test_the_html_page_is_a_well_formed_page_with_no_stray_text(viewer: bool) -> None:
    """A "standalone HTML page" (docs/guide/export.md): an `html` element (in English)
    holding a `head` (UTF-8, its title, its style) and a `body`; every element closed in
    order; the roster a table whose first row heads its columns (Name, Side, Sheet, as in
    the Markdown) and whose other rows are one per combatant; no text anywhere but in a
    title, heading, paragraph, cell, list item or chart."""
    page = export.render(_fight() if not viewer else _label_fight(), "html", viewer=viewer)
    outline = _Outline()
    outline.feed(page)
    outline.close()
    assert outline.open == []
    names = [tag for tag, _ in outline.tags]
    assert names[:5] == ["html", "head", "meta", "title", "style"]
    assert names[5] == "body" and names.count("html") == names.count("head") == names.count("body") == 1
    assert outline.tags[0][1] == {"lang": "en"}
    assert outline.tags[2][1] == {"charset": "utf-8"}
    stray = [(where, text) for where, text in outline.text if not _READ_IN & set(where)]
    assert stray == []
    assert all(where[:2] == ("html", "head") for where, _ in outline.text[:2])
    # the roster: the table after "Roster", row by row
    start = names.index("table")
    assert names[start:start + 12] == ["table", "tr", "th", "th", "th", "tr", "td", "td", "td", "tr", "td", "td"]
    cells = [text for where, text in outline.text if where[-3:-1] == ("table", "tr")]
    assert cells[:9] == ["Name", "Side", "Sheet", "Ann", "-", "-", "Bob", "-", "-"] if not viewer else cells[:9] == [
        "Name", "Side", "Sheet", "Ann", "party", "-", "Orc", "orcs", "-"]
    if viewer:
        assert "ul" in names[names.index("p"):]  # the list of what is not shown



def test_an_out_that_cannot_be_written_is_refused_naming_it(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input never crashes: "a clear message naming the file" (the developers' guide);
    OUT in a folder that does not exist is refused naming OUT, and nothing is written."""
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    assert run("play", "fight", stdin=_PLAYED)[0] == 0
    capsys.readouterr()
    out = saves / "no-such-folder" / "out.md"
    assert run("export", "fight", "-o", str(out)) == (1, "")
    err = capsys.readouterr().err
    assert err.startswith(f"tracker: {out}: cannot be written: ") and err.endswith("\n") and "None" not in err
    assert not out.parent.exists()


def _after_the_fight(text: str) -> list[list[str]]:
    lines = _section(text, "## After the fight")
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:] if line.startswith("| ")]


def test_after_the_fight_each_combatant_and_side_with_its_figures() -> None:
    """docs/guide/stats.md and decision 0009. Ann (party) cuts Orc (orcs, shown to viewers
    by label) in secret, chance 1/2, PT 2 from 0: a hit for 4 HP costing her 3 EP; Orc
    growls (PT 2, no roll). The GM sees the hit, the 4 HP dealt and taken, the 3 EP
    spent, each acting both segments; a viewer sees the cut "rolled in secret" and Orc's
    taken and costs "withheld" (as is the damage dealt to it), each side after its members."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": "party", "resources": {"hp": 20, "ep": 10}}))
    enc.apply(Event("add", {"name": "Orc", "side": "orcs", "resources": {"hp": 10}}))
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "secret": True, "chance": "1/2", "targets": ["Orc"],
                                "resolution": Resolution(pt=2, success=True, effects=(Adjust("Ann", "ep", -3), Damage("Orc", 4, "hp")))}))
    enc.apply(Event("declare", {"actor": "Orc", "template": "growl", "mode": "active", "resolution": Resolution(pt=2)}))
    advance(enc, 2)
    gm = [row[:9] for row in _after_the_fight(export.render(enc, "md", viewer=False))]
    assert gm[:2] == [["Ann", "1", "1", "0", "0", "hp 4", "-", "ep 3", "2/0/0"],
                      ["Orc", "1", "0", "0", "1", "-", "hp 4", "-", "2/0/0"]]
    assert [row[0].lower() for row in gm[2:]] == ["side party", "side orcs"]
    assert [row[1:] for row in gm[2:]] == [row[1:] for row in gm[:2]]  # one member each
    seen = [row[:9] for row in _after_the_fight(export.render(enc, "md", viewer=True))]
    assert seen[:2] == [["Ann", "1", "0", "0", "1", "-", "-", "ep 3", "2/0/0"],
                        ["Orc", "1", "0", "0", "1", "-", "withheld", "withheld", "2/0/0"]]
