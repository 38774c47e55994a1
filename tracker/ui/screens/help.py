"""The help screen: every key of the screen it was opened over, from the command table,
then the verbs of the `:` command language the role may use (tracker.play.verbs.offered)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tracker.reading.roles import GM
from tracker.play.verbs import Verb
from tracker.ui.commands import Command, keymap_of


def help_table(commands: Sequence[Command], play: Sequence[Verb] = (), keymap: Mapping[str, str] | None = None, kind: str = GM) -> Table:
    """Every cell is a Text: usages such as `[target=NAME] [pt=N]` are shown literally.
    Keys as bound (the config's `[keys]` included), and each command's name, the one the
    config's `[keys]` table takes; then `play`, the verbs the `:` line takes (if any), as
    a role of `kind` may use them (a player's without `secret=`)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, style="bold")
    table.add_column(no_wrap=True, style="dim")
    table.add_column()
    table.add_row(Text("key"), Text("config name"), Text("what it does"), style="underline")
    for command in commands:
        table.add_row(Text(command.keys_shown(keymap or {})), Text(command.name), Text(f"{command.label}: {command.help}"))
    table.add_row(Text("ctrl+p"), Text(""), Text("Palette: every command by name"))
    if play:
        table.add_row(Text(""), Text(""), Text(""))
        table.add_row(Text(""), Text(""), Text("The : line takes these commands:"))
        for c in play:
            table.add_row(Text(""), Text(""), Text(f"{c.usage_for(kind)}  ({c.help_for(kind)})"))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
        Binding("down,j", "scroll(1)", "Down", show=False),
        Binding("up,k", "scroll(-1)", "Up", show=False),
        Binding("pagedown,space", "scroll(10)", "Page down", show=False),
        Binding("pageup", "scroll(-10)", "Page up", show=False),
    ]

    def __init__(self, title: str, commands: Sequence[Command], play: Sequence[Verb] = (), kind: str = GM) -> None:
        super().__init__()
        self.title_text = title
        self.commands = commands
        self.play = play
        self.kind = kind  # whose help: the verbs' options as that role may use them

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help", id="help-body"):
            yield Label(Text(f"{self.title_text}: keys (esc closes)"), classes="title")
            yield Static(help_table(self.commands, self.play, keymap_of(self.app), self.kind))

    def action_scroll(self, rows: int) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        body.scroll_to(y=body.scroll_y + rows, animate=False)


class ListingScreen(ModalScreen[None]):
    """A command's answer that is not a change, too long for a notification (`proposals`
    with many waiting, `library` with many sheets): scrollable, Esc closes. A change's
    text is never shown here: the combat log holds it."""

    BINDINGS = HelpScreen.BINDINGS

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="listing-body"):
            yield Label(Text(f"{self.title_text} (esc closes)"), classes="title")
            yield Static(Text("\n".join(self.lines)), id="listing-text")

    def action_scroll(self, rows: int) -> None:
        body = self.query_one("#listing-body", VerticalScroll)
        body.scroll_to(y=body.scroll_y + rows, animate=False)
