"""Widgets of the encounter screen. Lists that grow with the fight (roster, timeline,
log) use Textual's line API (`ScrollView.render_line`) so only the rows on screen are
built, whatever the size of the encounter."""
