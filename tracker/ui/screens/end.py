"""Ending a campaign's fight from the app, and taking its end back.

E on the encounter screen, or `end [outcome=TEXT]` on the `:` line (the GM's): the
fight's own writes are flushed, then `EndScreen` shows what the end would send back
(`Session.end_preview`: each character before and after, what the fight cost). y or
Enter ends it with `Session.end_fight(expect=preview)`, refused if the fight changed
since it was shown; n or Esc changes nothing. The encounter then hears of the end as of
any change to its file (the follower): it shows that it has ended, and refuses changes
with the engine's message.

`u` on an ended campaign fight reopens it when its end is the campaign's latest change
(`fights.walk(..., "undo")`, which undoes the fight file's own end with it), and says
why not otherwise; `r` on a fight whose next redo is its end closes it again the same
way. Undoing or redoing the fight file's end alone would leave the campaign saying
otherwise (tracker.play.fights).

Decisions: docs/decisions/0051-campaign-in-the-app.md
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tracker.play import fights
from tracker.play.fights import Preview
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import Encounter
from tracker.engine.errors import RuleRefusal
from tracker.play.session import Outcome
from tracker.engine.text import printable, printable_lines
from tracker.ui.background import in_thread
from tracker.play.live import Live


def of_campaign(enc: Encounter) -> None:
    """Refuse, saying why, to end a fight that is not a campaign's or has ended."""
    if not enc.setup.campaign:
        raise RuleRefusal("end", f"{enc.setup.name} is a fight of its own, not of a campaign: nothing to end")
    if enc.ended:
        raise RuleRefusal("end", f"this fight has already ended (campaign {enc.ended}); u reopens it while its end is the campaign's latest change")


class EndScreen(ModalScreen[Outcome | None]):
    """The end's preview, then the GM's answer (see the module docstring)."""

    BINDINGS = [Binding("y,enter", "confirm", "End it"), Binding("n,escape", "cancel", "Change nothing")]

    def __init__(self, live: Live, outcome: str = "") -> None:
        super().__init__()
        self.live = live
        self.outcome = outcome
        self.preview: Preview | None = None
        self.working = False
        self.shown_text = ""  # what the body shows (tests read it)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="end"):
            yield Label(Text(printable(f"End {self.live.encounter.setup.name}?"), no_wrap=True, overflow="ellipsis"), classes="title")
            yield Static(Text("working out what goes back to the campaign…"), id="end-body")
            yield Label("y / enter: end the fight and send this back · n / esc: change nothing", classes="hint", id="end-hint")

    def on_mount(self) -> None:
        live, outcome = self.live, self.outcome

        def look() -> Preview:
            live.store.flush()  # the fight's own writes first: the preview reads the file
            return live.session.end_preview(outcome)

        in_thread(self, look, self._shown, self._refused)

    def _body(self, text: str) -> None:
        self.shown_text = text
        self.query_one("#end-body", Static).update(Text(printable_lines(text)))

    def _shown(self, preview: Preview) -> None:
        self.preview = preview
        self._body(preview.text())

    def _refused(self, message: str) -> None:
        self.preview = None
        self._body(f"{message}\n\nNothing was changed.")
        self.query_one("#end-hint", Label).update("esc: back")

    def action_confirm(self) -> None:
        preview, live, outcome = self.preview, self.live, self.outcome
        if self.working or preview is None:
            return
        in_thread(self, lambda: live.session.end_fight(outcome, expect=preview), self._ended, self._refused)

    def _ended(self, outcome: Outcome) -> None:
        self.dismiss(outcome)

    def action_cancel(self) -> None:
        if not self.working:
            self.dismiss(None)


def walks_campaign(enc: Encounter, kind: str) -> bool:
    """Whether `u` / `r` here is the campaign's to make: undoing an ended campaign fight,
    or redoing its end."""
    if not enc.setup.campaign:
        return False
    if kind == "undo":
        return bool(enc.ended)
    top = enc.redo_target()
    return not enc.ended and top is not None and top.kind == "end"


def walk_end(node: DOMNode, live: Live, kind: str, by: str) -> None:
    """Take back (or bring back) this fight's end through its campaign, on a thread."""
    path, enc = live.path, live.encounter

    def job() -> str:
        live.store.flush()
        cpath = fights.campaign_of(path, enc)
        camp = CampaignFile(cpath).load()
        top = camp.undo_target() if kind == "undo" else camp.redo_target()
        mine = top is not None and top.kind == "end" and top.args.get("file") == path.name
        if top is None or not mine:
            latest = f"change {top.seq}: {camp.describe(top)}" if top is not None else f"nothing to {kind}"
            what = "reopened" if kind == "undo" else "closed again"
            raise RuleRefusal(kind, f"this fight can be {what} only while its end is the campaign {camp.name}'s latest change to {kind} ({latest}): "
                                    f"{kind} that first on the campaign screen")
        return fights.walk(cpath, kind, by, target=top.seq)[1]

    app: Any = node.app
    in_thread(node, job, lambda said: app.notify(printable(said), timeout=6))
