"""Direct tests of tracker.reading.campaign_export: `tracker campaign export NAME --format
md|html [--viewer]` (docs/campaigns.md, "Statistics and exports": "the party, the fights
with what each cost, the rests and the totals; in HTML two charts as inline SVG (damage
each character dealt in each fight; each character's main resource after each fight)").

Text is escaped as the fight's export escapes it (decision 0027: Markdown backslashes
every character that could start markup, HTML escapes quotes too); the charts are laid
out as the fight export's (`charts.grouped_bars_svg`: a 640 by 140 plot right of a
40-pixel margin, a legend line of 14 pixels a character below it). The campaigns are
built from their events in memory; a fight's file, where its state matters, is written
by hand (only its last `# revision N` mark is read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracker.engine.model import Event
from tracker.persistence.campaign import Campaign
from tracker.reading import campaign_export

SVG = 'xmlns="http://www.w3.org/2000/svg" role="img" font-family="sans-serif"'
BLUE, RED, GREEN = "#1f77b4", "#d62728", "#2ca02c"  # the palette's first three


def _party(camp: Campaign) -> Campaign:
    """Ann (mp 4 before hp 10, str 12), Bo|b (hp 8) and Cy (mp 0, no maximum)."""
    camp.apply(Event("join", {"pc": "pc1", "name": "Ann", "resources": {"mp": 4, "hp": 10}, "stats": {"str": 12}, "side": "party"}))
    camp.apply(Event("join", {"pc": "pc2", "name": "Bo|b", "resources": {"hp": 8}, "side": "party"}))
    camp.apply(Event("join", {"pc": "pc3", "name": "Cy", "resources": {"mp": 0}, "side": "party"}))
    return camp


def road() -> Campaign:
    """Two fights ended (the docks: Ann to hp 6, Bo to hp 2; the roof, Ann alone: mp 3 and
    hp 12, over her maximum), two rests between them, and a third fight under way."""
    camp = _party(Campaign("The <Road>", "freeform"))
    camp.apply(Event("fight", {"file": "road-1.toml", "name": "The docks", "pcs": ["pc1", "pc2", "pc3"]}))
    camp.apply(Event("end", {
        "file": "road-1.toml", "revision": 4, "segment": 45, "outcome": "the thugs flee",
        "party": {"pc1": {"resources": {"hp": 6}}, "pc2": {"resources": {"hp": 2}}, "pc3": {"resources": {"mp": 0}}},
        "stats": {"pc1": {"gm": {"declared": 3, "succeeded": 2, "missed": 1, "dealt": {"hp": 7}, "luck": {"1/2": [2, 1]}},
                          "viewer": {"declared": 3, "dealt": {"hp": 5}}},
                  "pc2": {"gm": {"declared": 1, "dealt": {"hp": 2, "stun": 1.5}}}},
    }))
    camp.apply(Event("rest", {"hours": 8, "rule": "stated by the GM", "party": {}, "rolls": [], "note": "at the inn"}))
    camp.apply(Event("rest", {"hours": 1.5, "rule": "stated by the GM", "party": {}, "rolls": []}))
    camp.apply(Event("fight", {"file": "road-2.toml", "name": "The roof", "pcs": ["pc1"]}))
    camp.apply(Event("end", {
        "file": "road-2.toml", "revision": 3, "segment": 12, "party": {"pc1": {"resources": {"mp": 3, "hp": 12}}},
        "stats": {"pc1": {"gm": {"declared": 2, "dealt": {"hp": 4}, "taken": {"hp": 2}, "costs": {"mp": 1}, "acting": 5, "idle": 6, "down": 1}}},
    }))
    camp.apply(Event("fight", {"file": "road-3.toml", "name": "The gate", "pcs": ["pc1", "pc2"]}))
    return camp


def _folder(tmp_path: Path) -> Path:
    """The roof's file as it ended (revision 3): listed as "ended" (it has no outcome of its
    own); the gate's file is there, under way."""
    (tmp_path / "road-2.toml").write_bytes(b"# revision 3\n")
    (tmp_path / "road-3.toml").write_bytes(b"# revision 1\n")
    return tmp_path


ROAD_MD = """\
# The \\<Road\\>

A campaign of freeform.

## The party

| Character | As they stand |
|---|---|
| Ann | mp 3/4, hp 12/10 |
| Bo\\|b | hp 2/8 |
| Cy | mp 0 |

## Fights

| # | Fight | File | Outcome | Segments | What it cost the party |
|---|---|---|---|---|---|
| 1 | The docks | road-1.toml | the thugs flee | 45 | Ann: hp 10 -\\> 6; Bo\\|b: hp 8 -\\> 2 |
| 2 | The roof | road-2.toml | ended | 12 | Ann: mp 4 -\\> 3, hp 6 -\\> 12 |
| 3 | The gate | road-3.toml | under way |  | nothing |

## Rests

| Hours | Rule | Note |
|---|---|---|
| 8 | stated by the GM | at the inn |
| 1.5 | stated by the GM |  |

## Over the whole campaign

| Character | Fights | Actions | Succeeded | Missed | Dealt | Taken | Costs | Acting/idle/down | Luck |
|---|---|---|---|---|---|---|---|---|---|
| Ann | 2 | 5 | 2 | 1 | hp 11 | hp 2 | mp 1 | 5/6/1 | exactly as expected (1 of 2) |
| Bo\\|b | 1 | 1 | 0 | 0 | hp 2, stun 1.5 | none | none | 0/0/0 | no rolls (0 of 0) |
"""


# ------------------------------------------------------------------ Markdown
def test_markdown_holds_the_party_the_fights_with_their_cost_the_rests_and_the_totals(tmp_path: Path) -> None:
    assert campaign_export.markdown(road(), _folder(tmp_path)) == ROAD_MD


def test_a_fight_whose_file_is_gone_says_so_where_it_has_no_outcome(tmp_path: Path) -> None:
    text = campaign_export.markdown(road(), tmp_path)
    assert "| 2 | The roof | road-2.toml | missing | 12 | Ann: mp 4 -\\> 3, hp 6 -\\> 12 |" in text.splitlines()


def test_a_new_campaign_has_none_yet_under_every_heading(tmp_path: Path) -> None:
    camp = Campaign("Empty | road", "freeform")
    assert campaign_export.markdown(camp, tmp_path) == (
        "# Empty \\| road\n\nA campaign of freeform.\n\n"
        "## The party\n\nNone yet.\n\n## Fights\n\nNone yet.\n\n## Rests\n\nNone yet.\n\n## Over the whole campaign\n\nNone yet.\n"
    )


def test_the_viewers_export_counts_the_viewers_figures(tmp_path: Path) -> None:
    # Ann's first fight kept a viewers' view (hp 5 dealt); Bo's kept only the GM's.
    lines = campaign_export.markdown(road(), tmp_path, viewer=True).splitlines()
    totals = lines[lines.index("## Over the whole campaign") + 4:]
    assert totals == ["| Ann | 1 | 3 | 0 | 0 | hp 5 | none | none | 0/0/0 | no rolls (0 of 0) |"]


def test_what_a_fight_cost_names_each_character_as_they_are_called_now(tmp_path: Path) -> None:
    camp = road()
    camp.pcs["pc2"].name = "Bo the Bold"
    text = campaign_export.markdown(camp, tmp_path)
    assert "| 1 | The docks | road-1.toml | the thugs flee | 45 | Ann: hp 10 -\\> 6; Bo the Bold: hp 8 -\\> 2 |" in text.splitlines()


def test_a_character_the_campaign_no_longer_knows_is_named_by_id_and_unchanged_resources_cost_nothing(tmp_path: Path) -> None:
    camp = road()
    docks = camp.fights[0]
    docks.after["pc9"] = {"name": "Gone", "resources": {"hp": 1}, "maxima": {"hp": 3}}
    docks.before["pc9"] = {"name": "Gone", "resources": {"hp": 3}, "maxima": {"hp": 3}}
    docks.after["pc8"] = {"name": "New", "resources": {"hp": 1}, "maxima": {"hp": 3}}  # no state before: nothing to compare
    row = next(line for line in campaign_export.markdown(camp, tmp_path).splitlines() if line.startswith("| 1 |"))
    assert row.endswith("| Ann: hp 10 -\\> 6; Bo\\|b: hp 8 -\\> 2; pc9: hp 3 -\\> 1 |")


# ------------------------------------------------------------------ HTML
ROAD_TABLES = [
    "<h2>The party</h2>",
    "<table>",
    "<tr><th>Character</th><th>As they stand</th></tr>",
    "<tr><td>Ann</td><td>mp 3/4, hp 12/10</td></tr>",
    "<tr><td>Bo|b</td><td>hp 2/8</td></tr>",
    "<tr><td>Cy</td><td>mp 0</td></tr>",
    "</table>",
    "<h2>Fights</h2>",
    "<table>",
    "<tr><th>#</th><th>Fight</th><th>File</th><th>Outcome</th><th>Segments</th><th>What it cost the party</th></tr>",
    "<tr><td>1</td><td>The docks</td><td>road-1.toml</td><td>the thugs flee</td><td>45</td><td>Ann: hp 10 -&gt; 6; Bo|b: hp 8 -&gt; 2</td></tr>",
    "<tr><td>2</td><td>The roof</td><td>road-2.toml</td><td>ended</td><td>12</td><td>Ann: mp 4 -&gt; 3, hp 6 -&gt; 12</td></tr>",
    "<tr><td>3</td><td>The gate</td><td>road-3.toml</td><td>under way</td><td></td><td>nothing</td></tr>",
    "</table>",
    "<h2>Rests</h2>",
    "<table>",
    "<tr><th>Hours</th><th>Rule</th><th>Note</th></tr>",
    "<tr><td>8</td><td>stated by the GM</td><td>at the inn</td></tr>",
    "<tr><td>1.5</td><td>stated by the GM</td><td></td></tr>",
    "</table>",
    "<h2>Over the whole campaign</h2>",
    "<table>",
    "<tr><th>Character</th><th>Fights</th><th>Actions</th><th>Succeeded</th><th>Missed</th><th>Dealt</th><th>Taken</th><th>Costs</th>"
    "<th>Acting/idle/down</th><th>Luck</th></tr>",
    "<tr><td>Ann</td><td>2</td><td>5</td><td>2</td><td>1</td><td>hp 11</td><td>hp 2</td><td>mp 1</td><td>5/6/1</td><td>exactly as expected (1 of 2)</td></tr>",
    "<tr><td>Bo|b</td><td>1</td><td>1</td><td>0</td><td>0</td><td>hp 2, stun 1.5</td><td>none</td><td>none</td><td>0/0/0</td><td>no rolls (0 of 0)</td></tr>",
    "</table>",
]


def _page_parts(page: str) -> tuple[list[str], list[str], list[str]]:
    """The head and the tables, the dealt chart, the standing chart (each as its lines)."""
    lines = page.splitlines()
    dealt = lines.index("<h3>Damage dealt in each fight</h3>")
    standing = lines.index("<h3>The party after each fight</h3>")
    return lines[:dealt], lines[dealt + 1:standing], lines[standing + 1:]


def test_the_html_page_is_one_document_with_the_same_tables_escaped_for_html(tmp_path: Path) -> None:
    page = campaign_export.html_page(road(), _folder(tmp_path))
    assert page.endswith("</svg>\n</body>\n</html>\n")
    head, dealt, standing = _page_parts(page)
    assert head == [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">', "<title>The &lt;Road&gt;</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:.2em .5em;text-align:left}</style>",
        "</head>", "<body>", "<h1>The &lt;Road&gt;</h1>", "<p>A campaign of freeform.</p>", *ROAD_TABLES,
    ]
    assert dealt[0].startswith("<svg ") and dealt[-1] == "</svg>"
    assert standing[-3:] == ["</svg>", "</body>", "</html>"]
    assert "<script" not in page and "href" not in page  # no script, no external reference


def test_html_escapes_quotes_and_markup_in_every_cell(tmp_path: Path) -> None:
    camp = Campaign('A "quoted" & <b>bold</b> road', "freeform")
    camp.apply(Event("rest", {"hours": 2, "rule": "stated by the GM", "party": {}, "rolls": [], "note": "<i>'rain'</i>"}))
    head, _, _ = _page_parts(campaign_export.html_page(camp, tmp_path))
    assert head[4] == "<title>A &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; road</title>"
    assert head[8] == "<h1>A &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; road</h1>"
    assert head[10:] == [
        "<h2>The party</h2>", "<p>None yet.</p>", "<h2>Fights</h2>", "<p>None yet.</p>",
        "<h2>Rests</h2>", "<table>", "<tr><th>Hours</th><th>Rule</th><th>Note</th></tr>",
        "<tr><td>2</td><td>stated by the GM</td><td>&lt;i&gt;&#x27;rain&#x27;&lt;/i&gt;</td></tr>", "</table>",
        "<h2>Over the whole campaign</h2>", "<p>None yet.</p>",
    ]


def test_a_campaign_with_no_fight_ended_draws_two_empty_charts(tmp_path: Path) -> None:
    camp = _party(Campaign("Quiet", "freeform"))
    camp.apply(Event("fight", {"file": "q-1.toml", "name": "Soon", "pcs": ["pc1"]}))
    _, dealt, standing = _page_parts(campaign_export.html_page(camp, tmp_path))
    assert dealt == [f'<svg {SVG} aria-label="Damage dealt per fight" width="300" height="20"><text x="2" y="14" font-size="12">no fight ended yet</text></svg>']
    assert standing == [f'<svg {SVG} aria-label="The party after each fight" width="300" height="20"><text x="2" y="14" font-size="12">no fight ended yet</text></svg>',
                        "</body>", "</html>"]


# ------------------------------------------------------------------ the dealt chart
def test_the_dealt_chart_a_bar_per_character_per_fight_every_resource_summed(tmp_path: Path) -> None:
    # Two fights: a slot of 320 px each; three bars' width in a slot (2 characters + 1): 106.7.
    # The top is Ann's 7 at the docks (140 px); Bo's 2 hp + 1.5 stun = 3.5 is half of it; Ann's 4
    # on the roof 80 px; Bo dealt nothing on the roof: no bar.
    _, dealt, _ = _page_parts(campaign_export.html_page(road(), tmp_path))
    assert dealt == [
        f'<svg {SVG} aria-label="Damage dealt per fight" width="690" height="208" viewBox="0 0 690 208">',
        '<line x1="40" y1="150" x2="680" y2="150" stroke="#999"/>',
        '<text x="36" y="18" font-size="10" text-anchor="end">7</text>',
        '<text x="200.0" y="164" font-size="10" text-anchor="middle">1</text>',
        f'<rect x="93.3" y="10.0" width="106.7" height="140.0" fill="{BLUE}"><title>Ann, The docks: 7</title></rect>',
        f'<rect x="200.0" y="80.0" width="106.7" height="70.0" fill="{RED}"><title>Bo|b, The docks: 3.5</title></rect>',
        '<text x="520.0" y="164" font-size="10" text-anchor="middle">2</text>',
        f'<rect x="413.3" y="70.0" width="106.7" height="80.0" fill="{BLUE}"><title>Ann, The roof: 4</title></rect>',
        f'<rect x="40" y="171" width="10" height="10" fill="{BLUE}"/><text x="54" y="180" font-size="11">Ann</text>',
        f'<rect x="40" y="185" width="10" height="10" fill="{RED}"/><text x="54" y="194" font-size="11">Bo|b</text>',
        "</svg>",
    ]


def test_the_viewers_dealt_chart_uses_the_viewers_figures(tmp_path: Path) -> None:
    # Viewers: Ann dealt hp 5 at the docks (the top) and nothing on the roof (no viewers' view);
    # Bo has no viewers' figures, so Ann alone: two bars' width in a 320-pixel slot, 160.
    _, dealt, _ = _page_parts(campaign_export.export(road(), tmp_path, "html", viewer=True))
    assert dealt[2] == '<text x="36" y="18" font-size="10" text-anchor="end">5</text>'
    assert [line for line in dealt if "<title>" in line] == [
        f'<rect x="120.0" y="10.0" width="160.0" height="140.0" fill="{BLUE}"><title>Ann, The docks: 5</title></rect>',
    ]


def test_dealt_svg_names_the_fight_and_the_character_in_each_bar() -> None:
    figures: dict[str, Any] = {
        "party": [{"pc": "pc1", "name": "<Ann>"}, {"pc": "pc2", "name": "Bo"}],
        "per_fight": [{"name": "One & two", "party": {"pc2": {"dealt": {"hp": 2, "stun": 2}}, "pc1": {"dealt": {}}}}],
    }
    svg = campaign_export.dealt_svg(figures).splitlines()
    assert svg[2] == '<text x="36" y="18" font-size="10" text-anchor="end">4</text>'
    assert svg[4:] == [
        f'<rect x="360.0" y="10.0" width="213.3" height="140.0" fill="{RED}"><title>Bo, One &amp; two: 4</title></rect>',
        f'<rect x="40" y="171" width="10" height="10" fill="{BLUE}"/><text x="54" y="180" font-size="11">&lt;Ann&gt;</text>',
        f'<rect x="40" y="185" width="10" height="10" fill="{RED}"/><text x="54" y="194" font-size="11">Bo</text>',
        "</svg>",
    ]


# ------------------------------------------------------------------ the standing chart
def _standing_campaign(ruleset: str = "freeform") -> Campaign:
    """Three ended fights and one under way: Ann's hp (after mp on her sheet) 6 of 10, then 12
    (over), then -2 (under); Bo in the first only; Cy's mp has no maximum."""
    camp = _party(Campaign("Standing", ruleset))
    ends = [{"pc1": {"resources": {"hp": 6}}, "pc2": {"resources": {"hp": 2}}, "pc3": {"resources": {"mp": 0}}},
            {"pc1": {"resources": {"hp": 12}}}, {"pc1": {"resources": {"hp": -2, "mp": 1}}}]
    for n, party in enumerate(ends, 1):
        camp.apply(Event("fight", {"file": f"s-{n}.toml", "name": f"F{n}", "pcs": list(party)}))
        camp.apply(Event("end", {"file": f"s-{n}.toml", "revision": 2, "segment": 10, "party": party}))
    camp.apply(Event("fight", {"file": "s-4.toml", "name": "F4", "pcs": ["pc1"]}))
    return camp


def test_the_standing_chart_puts_each_characters_main_resource_as_a_share_of_its_maximum() -> None:
    # Three ended fights: 640 px / 2 steps = 320 px apart. A share of 0.6 is 84 px above the
    # line at 150; over the maximum stays at the top (10), below zero on the line (150).
    svg = campaign_export.standing_svg(_standing_campaign(), ("hp",)).splitlines()
    assert svg == [
        f'<svg {SVG} aria-label="The party after each fight" width="690" height="222" viewBox="0 0 690 222">',
        '<text x="36" y="18" font-size="10" text-anchor="end">100%</text>',
        '<line x1="40" y1="150" x2="680" y2="150" stroke="#999"/>',
        f'<polyline fill="none" stroke="{BLUE}" stroke-width="2" points="40.0,66.0 360.0,10.0 680.0,150.0"/>',
        f'<circle cx="40.0" cy="66.0" r="3" fill="{BLUE}"><title>Ann, F1: hp 6/10</title></circle>',
        f'<circle cx="360.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, F2: hp 12/10</title></circle>',
        f'<circle cx="680.0" cy="150.0" r="3" fill="{BLUE}"><title>Ann, F3: hp -2/10</title></circle>',
        f'<rect x="40" y="171" width="10" height="10" fill="{BLUE}"/><text x="54" y="180" font-size="11">Ann</text>',
        # Bo: one point, no line; 2 of 8 is a quarter: 35 px up.
        f'<circle cx="40.0" cy="115.0" r="3" fill="{RED}"><title>Bo|b, F1: hp 2/8</title></circle>',
        f'<rect x="40" y="185" width="10" height="10" fill="{RED}"/><text x="54" y="194" font-size="11">Bo|b</text>',
        # Cy: mp of no maximum has no share: no point, only the legend.
        f'<rect x="40" y="199" width="10" height="10" fill="{GREEN}"/><text x="54" y="208" font-size="11">Cy</text>',
        "</svg>",
    ]


def test_two_ended_fights_are_the_plots_two_ends(tmp_path: Path) -> None:
    # The road: two ended fights, 640 px apart. Ann 6 of 10, then 12 of 10 (the top); Bo 2 of 8
    # at the docks; Cy's mp of no maximum: no point.
    _, _, standing = _page_parts(campaign_export.html_page(road(), tmp_path))
    assert standing[:-2] == [
        f'<svg {SVG} aria-label="The party after each fight" width="690" height="222" viewBox="0 0 690 222">',
        '<text x="36" y="18" font-size="10" text-anchor="end">100%</text>',
        '<line x1="40" y1="150" x2="680" y2="150" stroke="#999"/>',
        f'<polyline fill="none" stroke="{BLUE}" stroke-width="2" points="40.0,66.0 680.0,10.0"/>',
        f'<circle cx="40.0" cy="66.0" r="3" fill="{BLUE}"><title>Ann, The docks: hp 6/10</title></circle>',
        f'<circle cx="680.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, The roof: hp 12/10</title></circle>',
        f'<rect x="40" y="171" width="10" height="10" fill="{BLUE}"/><text x="54" y="180" font-size="11">Ann</text>',
        f'<circle cx="40.0" cy="115.0" r="3" fill="{RED}"><title>Bo|b, The docks: hp 2/8</title></circle>',
        f'<rect x="40" y="185" width="10" height="10" fill="{RED}"/><text x="54" y="194" font-size="11">Bo|b</text>',
        f'<rect x="40" y="199" width="10" height="10" fill="{GREEN}"/><text x="54" y="208" font-size="11">Cy</text>',
        "</svg>",
    ]


def test_a_character_away_from_a_fight_is_drawn_in_the_fights_they_were_in() -> None:
    camp = _standing_campaign()
    camp.fights[2].after["pc2"] = {"name": "Bo|b", "resources": {"hp": 4}, "maxima": {"hp": 8}}  # Bo back for the third
    bo = [line for line in campaign_export.standing_svg(camp, ("hp",)).splitlines() if RED in line]
    assert bo == [
        f'<polyline fill="none" stroke="{RED}" stroke-width="2" points="40.0,115.0 680.0,80.0"/>',
        f'<circle cx="40.0" cy="115.0" r="3" fill="{RED}"><title>Bo|b, F1: hp 2/8</title></circle>',
        f'<circle cx="680.0" cy="80.0" r="3" fill="{RED}"><title>Bo|b, F3: hp 4/8</title></circle>',
        f'<rect x="40" y="185" width="10" height="10" fill="{RED}"/><text x="54" y="194" font-size="11">Bo|b</text>',
    ]


def test_a_fight_where_the_main_resource_had_no_maximum_is_left_out_not_the_later_ones() -> None:
    camp = _standing_campaign()
    camp.fights[0].after["pc1"]["maxima"] = {"mp": 4, "hp": 0}
    ann = [line for line in campaign_export.standing_svg(camp, ("hp",)).splitlines() if BLUE in line]
    assert ann[:3] == [
        f'<polyline fill="none" stroke="{BLUE}" stroke-width="2" points="360.0,10.0 680.0,150.0"/>',
        f'<circle cx="360.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, F2: hp 12/10</title></circle>',
        f'<circle cx="680.0" cy="150.0" r="3" fill="{BLUE}"><title>Ann, F3: hp -2/10</title></circle>',
    ]


def test_the_totals_say_none_for_nothing_dealt_and_list_every_resource_taken_and_paid(tmp_path: Path) -> None:
    camp = _party(Campaign("Totals", "freeform"))
    camp.apply(Event("fight", {"file": "t-1.toml", "name": "T", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "t-1.toml", "revision": 2, "segment": 3,
                             "stats": {"pc1": {"gm": {"declared": 1, "taken": {"hp": 1, "mp": 2}, "costs": {"mp": 1, "ep": 0.5}}}}}))
    lines = campaign_export.markdown(camp, tmp_path).splitlines()
    assert lines[-1] == "| Ann | 1 | 1 | 0 | 0 | none | hp 1, mp 2 | mp 1, ep 0.5 | 0/0/0 | no rolls (0 of 0) |"


def test_the_main_resource_is_the_first_that_puts_them_down_else_the_first_they_have() -> None:
    camp = _standing_campaign()
    # None of these puts Ann down: her first resource, mp (4, 4, 1 of 4).
    ann = [line for line in campaign_export.standing_svg(camp, ("vp", "dp")).splitlines() if "Ann," in line]
    assert ann == [
        f'<circle cx="40.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, F1: mp 4/4</title></circle>',
        f'<circle cx="360.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, F2: mp 4/4</title></circle>',
        f'<circle cx="680.0" cy="115.0" r="3" fill="{BLUE}"><title>Ann, F3: mp 1/4</title></circle>',
    ]
    # The first of the game's that she has wins, whatever the order on her sheet.
    first = [line for line in campaign_export.standing_svg(camp, ("vp", "hp", "mp")).splitlines() if "Ann, F1" in line]
    assert first == [f'<circle cx="40.0" cy="66.0" r="3" fill="{BLUE}"><title>Ann, F1: hp 6/10</title></circle>']


def test_a_resource_missing_at_the_end_counts_as_none_left() -> None:
    camp = _standing_campaign()
    camp.fights[0].after["pc1"]["resources"].pop("hp")
    lines = campaign_export.standing_svg(camp, ("hp",)).splitlines()
    assert f'<circle cx="40.0" cy="150.0" r="3" fill="{BLUE}"><title>Ann, F1: hp 0/10</title></circle>' in lines


def test_one_ended_fight_puts_its_points_at_the_left() -> None:
    camp = _party(Campaign("One", "freeform"))
    camp.apply(Event("fight", {"file": "o-1.toml", "name": "Only", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "o-1.toml", "revision": 2, "segment": 3, "party": {"pc1": {"resources": {"hp": 5}}}}))
    lines = campaign_export.standing_svg(camp, ("hp",)).splitlines()
    assert [line for line in lines if "<circle" in line or "<polyline" in line] == [
        f'<circle cx="40.0" cy="80.0" r="3" fill="{BLUE}"><title>Ann, Only: hp 5/10</title></circle>',
    ]


def test_a_character_with_no_resource_has_no_point() -> None:
    camp = Campaign("Bare", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": "Dee", "resources": {}, "side": "party"}))
    camp.apply(Event("fight", {"file": "b-1.toml", "name": "B", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "b-1.toml", "revision": 2, "segment": 3, "party": {"pc1": {"resources": {}}}}))
    camp.fights[0].after["pc1"] = {"name": "Dee", "resources": {}, "maxima": {}}
    lines = campaign_export.standing_svg(camp, ("hp",)).splitlines()
    assert not [line for line in lines if "<circle" in line]
    assert lines[-2] == f'<rect x="40" y="171" width="10" height="10" fill="{BLUE}"/><text x="54" y="180" font-size="11">Dee</text>'


def test_the_page_takes_the_main_resource_from_the_campaigns_game(tmp_path: Path) -> None:
    # Freeform's down_when is hp: Ann's hp, not her first resource (mp).
    _, _, standing = _page_parts(campaign_export.html_page(_standing_campaign(), tmp_path))
    assert f'<circle cx="40.0" cy="66.0" r="3" fill="{BLUE}"><title>Ann, F1: hp 6/10</title></circle>' in standing


def test_a_game_not_installed_takes_each_characters_first_resource(tmp_path: Path) -> None:
    camp = _standing_campaign()
    camp.ruleset = "not-installed"
    _, _, standing = _page_parts(campaign_export.html_page(camp, tmp_path))
    assert f'<circle cx="40.0" cy="10.0" r="3" fill="{BLUE}"><title>Ann, F1: mp 4/4</title></circle>' in standing


# ------------------------------------------------------------------ the format
@pytest.mark.parametrize("viewer", [False, True])
def test_export_gives_html_for_html_and_markdown_otherwise(tmp_path: Path, viewer: bool) -> None:
    camp = road()
    assert campaign_export.export(camp, tmp_path, "html", viewer) == campaign_export.html_page(camp, tmp_path, viewer)
    assert campaign_export.export(camp, tmp_path, "md", viewer) == campaign_export.markdown(camp, tmp_path, viewer)
    assert campaign_export.export(camp, tmp_path, "HTML", viewer) == campaign_export.markdown(camp, tmp_path, viewer)


def test_export_defaults_to_the_gms_view(tmp_path: Path) -> None:
    camp = road()
    assert campaign_export.export(camp, tmp_path, "md") == campaign_export.markdown(camp, tmp_path, False)
    assert campaign_export.markdown(camp, tmp_path) != campaign_export.markdown(camp, tmp_path, True)
    assert campaign_export.html_page(camp, tmp_path) == campaign_export.html_page(camp, tmp_path, False)
    assert campaign_export.html_page(camp, tmp_path) != campaign_export.html_page(camp, tmp_path, True)


def test_a_character_the_fight_left_as_it_was_is_not_listed_in_what_it_cost(tmp_path: Path) -> None:
    # `campaign end` says "Cy: unchanged"; the export's cost column does not list "Cy: " with nothing.
    row = next(line for line in campaign_export.markdown(road(), tmp_path).splitlines() if line.startswith("| 1 |"))
    assert row == "| 1 | The docks | road-1.toml | the thugs flee | 45 | Ann: hp 10 -\\> 6; Bo\\|b: hp 8 -\\> 2 |"
    camp = road()
    camp.fights[0].after = {"pc3": camp.fights[0].after["pc3"]}
    row = next(line for line in campaign_export.markdown(camp, tmp_path).splitlines() if line.startswith("| 1 |"))
    assert row == "| 1 | The docks | road-1.toml | the thugs flee | 45 | nothing |"
