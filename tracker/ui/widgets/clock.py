"""The clock bar: encounter name, ruleset, and the segment clock in both units.

Beside the clock: players' declarations waiting for the GM (the GM's: all of them, with
the key of the approvals screen; a player's: their own), and whose screen this is
when it is not the GM's ([viewer], [player: Seraph]); a campaign's fight names its
campaign ("campaign: The Long Road"), and says "ended" once its campaign ended it; last a reminder of what is due next
("next 15: Seraph's punch completes") and who may act now (idle: not acting, surprised,
airborne or down), combatants hidden from this screen left out."""

from __future__ import annotations

from rich.text import Text

from tracker.engine.text import printable
from tracker.ui.widgets.redraw import LivePane, update_if_changed


class ClockBar(LivePane):
    """`Seraph vs Sphinx (brandx) · segment 137 · round 3, segment 37`; marks viewers."""

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        enc = self.live.encounter
        text = Text()
        if self.live.banner:  # a replay says so first (tracker.ui.screens.replay)
            text.append(f"{self.live.banner} ", style="bold reverse")
        text.append(enc.time.clock(enc.now), style="bold")
        if enc.ended:
            text.append("  ended", style="bold reverse")
        role = self.live.seen_as
        pending = enc.pending() if enc.proposals else []
        if role.is_gm and pending:
            text.append(f"  {len(pending)} waiting for approval (p)", style="bold reverse")
        elif role.is_player:
            mine = [p for p in pending if role.owns(p.actor)]
            if mine:
                text.append(f"  {len(mine)} waiting for the GM", style="bold reverse")
        text.append(Text(printable(f"  {enc.setup.name} ({enc.setup.ruleset})")))
        if enc.setup.campaign:
            title = self.live.campaign_title or enc.setup.campaign.removesuffix(".campaign.toml")
            text.append(Text(printable(f"  campaign: {title}"), style="italic"))
        if role.is_player:
            text.append(Text(printable(f"  [player: {', '.join(role.combatants)}]"), style="italic"))
        elif role.is_viewer:
            text.append("  [viewer]", style="italic")
        # Which fight this is comes first (after a move of the table it is what a reader
        # checks); the reminder follows, cut first where the line runs out.
        if not enc.ended:  # an ended fight has nothing due
            text.append_text(self._reminder())
        text.no_wrap, text.overflow = True, "ellipsis"
        update_if_changed(self, text)

    def _reminder(self) -> Text:
        enc = self.live.encounter
        hidden = [n for n, c in enc.combatants.items() if c.hidden and self.live.as_viewer(n)]
        text = Text()
        # Who may act first: at 80 columns the line is cut at its end, and the names are
        # what the GM looks for; the next completion is also in the upcoming list.
        idle = [n for n, c in enc.combatants.items() if n not in hidden and c.state(enc.now) == "idle"]
        if idle:
            text.append(Text(printable(f"  may act: {', '.join(idle)}")))
        due = next(((s, what) for s, what in enc.upcoming(limit=10) if not any(n in what for n in hidden)), None)
        if due is not None:
            text.append(Text(printable(f"  next {due[0]}: {due[1]}"), style="bold"))
        return text
