"""Every UI command, defined once: its key, its palette entry and its help line.

davep's "commands as data" idea, kept small: a `Command` row names the action, the
keys that run it, the label shown in the footer and the command palette, and the line
shown on the help screen. Screens build their `BINDINGS` from these tables, the
palette provider lists the rows of the screen it was opened over, and the help screen
prints them, so the three can never disagree.

Decisions: docs/decisions/0028-ui-commands-roles.md
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider

from tracker.reading.roles import Role


@dataclass(frozen=True, slots=True)
class Command:
    """One command of a screen: its keys, its footer label and its line of help."""

    name: str  # the screen runs do_<name>
    keys: str  # Textual key names, comma separated
    label: str  # footer and palette text
    help: str  # help screen line
    edits: bool = True  # changes the encounter: refused for viewers
    footer: bool = False  # shown in the one-line footer (space is short at 80 columns)
    player: bool = False  # changes the encounter, yet a player may use it (for their own)
    gm: bool = True  # offered to the GM (False: a player's own command, such as take back)

    @property
    def key_text(self) -> str:
        return key_text(self.keys)

    def keys_shown(self, keymap: Mapping[str, str]) -> str:
        """The keys as the app binds them: the user's config (`[keys]`, by command name,
        Textual's keymap by binding id) wins over the table's own."""
        return key_text(keymap.get(self.name, self.keys))


def key_text(keys: str) -> str:
    return " / ".join(_KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def keymap_of(app: object) -> Mapping[str, str]:
    """The keys the user's config rebinds (tracker.ui.settings.apply -> `App.update_keymap`):
    Textual keeps them in the app; read here only, in one place."""
    keymap = getattr(app, "_keymap", None)
    return keymap if isinstance(keymap, Mapping) else {}


_KEY_NAMES = {"space": "space", "full_stop": ".", "colon": ":", "question_mark": "?", "slash": "/", "delete": "del", "enter": "enter", "escape": "esc", "left_square_bracket": "[", "right_square_bracket": "]"}

ENCOUNTER: tuple[Command, ...] = (
    Command("next", "n,space", "Next", "jump to the next segment where anything happens", footer=True),
    Command("step", "full_stop", "Step", "move one segment on", footer=True),
    Command("declare", "a", "Declare", "declare an action: actor, template, targets, modifiers, dice", footer=True, player=True),
    Command("maintain", "m", "Maintain", "maintain the selected combatant's attack that just completed", footer=True, player=True),
    Command("abort", "x", "Abort", "abort the selected combatant's action in progress", player=True),
    Command("damage", "d", "Damage", "damage or heal the selected combatant (negative amount heals)", footer=True),
    Command("condition", "c", "Condition", "put a condition with a duration on the selected combatant"),
    Command("schedule", "s", "Schedule", "schedule an event on a future segment"),
    Command("surprise", "S", "Surprise", "the selected combatant may not initiate before a segment"),
    Command("hide", "h", "Hide/show", "hide the selected combatant from viewers, or show it again"),
    Command("keep", "k", "Keep", "let the selected combatant's action interrupted by throwback stand"),
    Command("note", "N", "Note", "write a note in the combat log"),
    Command("roll", "R", "Roll dice", "roll dice in the game's notation (2d10, 5d+1wd, 3D+1) for everyone's log; the GM's may be secret", player=True),
    Command("roster", "e", "Roster", "edit the roster: add, edit or remove combatants"),
    Command("undo", "u", "Undo", "take back the latest change", footer=True),
    Command("takeback", "u", "Take back", "take back your own last declaration (a waiting one, or one the GM has not moved past)", footer=True, player=True, gm=False),
    Command("approvals", "p", "Approvals", "players' declarations waiting for the GM: approve, edit or refuse; switch approval on or off"),
    Command("redo", "r", "Redo", "bring back the latest undone change"),
    Command("history", "H", "History", "the changes undo would take back, newest first", edits=False),
    Command("stats", "t", "Stats", "after the fight: actions, damage, costs, time, luck against the odds shown, charts", edits=False),
    Command("replay", "w", "Replay", "watch the fight again: the whole screen as it stood at any segment; step, jump, play (read-only; esc: back to now)", edits=False),
    Command("end", "E", "End fight", "end this campaign fight: shows what goes back to the party, then asks (u reopens it while nothing later depends on it)"),
    Command("command_line", "colon", "Command", "type a `play` command (add, declare, damage, ...)", footer=True, player=True),
    Command("glance", "g", "Glance", "roster mode: every combatant's resources, conditions and damaged hit locations, full width (again: back); remembered", edits=False, footer=True),
    Command("select_previous", "up", "Previous", "select the previous combatant", edits=False),
    Command("select_next", "down", "Following", "select the next combatant", edits=False),
    Command("log_filter", "f", "Log: only selected", "show only the selected combatant's log lines (again: all)", edits=False),
    Command("log_search", "slash", "Search log", "show only the log lines holding a text (empty: all)", edits=False),
    Command("viewers", "v", "Viewers see", "how enemies' resources show to viewers: exact, label or hidden"),
    Command("log_up", "pageup", "Log up", "scroll the combat log back", edits=False),
    Command("log_down", "pagedown", "Log down", "scroll the combat log forward", edits=False),
    Command("timeline_back", "left", "Earlier", "scroll the timeline window to earlier segments", edits=False),
    Command("timeline_forward", "right", "Later", "scroll the timeline window to later segments", edits=False),
    Command("timeline_now", "home", "Now", "centre the timeline window on now again", edits=False),
    Command("help", "question_mark", "Help", "list every key", edits=False, footer=True),
    Command("close", "escape", "Back", "back to the list of encounters", edits=False),
    Command("quit", "q", "Quit", "quit the tracker", edits=False, footer=True),
)

def _rows(table: tuple[Command, ...], *names: str) -> tuple[Command, ...]:
    """The rows of `table` named, in that order: another screen's same commands (one definition)."""
    by_name = {c.name: c for c in table}
    return tuple(by_name[name] for name in names)


# The replay screen (tracker.ui.screens.replay): read-only, so every row is `edits=False`.
REPLAY: tuple[Command, ...] = (
    Command("replay_back", "left,comma", "Back", "one segment back", edits=False, footer=True),
    Command("replay_forward", "right,full_stop", "On", "one segment on", edits=False, footer=True),
    Command("replay_previous", "p,shift+left", "Prev", "back to the previous segment where anything happened", edits=False),
    Command("replay_next", "n,shift+right", "Next", "on to the next segment where anything happened", edits=False, footer=True),
    Command("replay_first", "home", "First", "the first segment (0)", edits=False),
    Command("replay_last", "end", "Last", "the last segment: the fight as it stands now", edits=False),
    Command("replay_play", "space", "Play", "play or pause: on to the next segment where anything happened, at the speed set, to the last", edits=False, footer=True),
    Command("replay_faster", "plus,equals_sign", "Faster", "play faster (up to 8 moves a second)", edits=False),
    Command("replay_slower", "minus", "Slower", "play slower (down to one move every 4 seconds)", edits=False),
    Command("replay_go", "j,colon", "Go to", "type a segment to go to", edits=False),
    *_rows(ENCOUNTER, "select_previous", "select_next", "glance", "log_filter", "log_search", "log_up", "log_down"),
    Command("history", "H", "History", "the changes in effect at this segment, newest first", edits=False),
    Command("stats", "t", "Stats", "the fight's figures and charts up to this segment", edits=False),
    *_rows(ENCOUNTER, "help"),
    Command("close", "escape", "Now", "leave the replay: back to the fight as it stands now", edits=False, footer=True),
    *_rows(ENCOUNTER, "quit"),
)
# A player's or viewer's screen following the GM's replay at a served table: what does
# not move it; esc says who leads it (it ends with the GM's).
FOLLOWING: tuple[Command, ...] = tuple(
    Command("close", "escape", "GM's replay", "the GM leads this replay: your screen moves with the GM's and goes back to now with it", edits=False, footer=True)
    if c.name == "close" else c
    for c in REPLAY
    if c.name in ("select_previous", "select_next", "glance", "log_filter", "log_search", "log_up", "log_down", "history", "stats", "help", "close", "quit")
)

START: tuple[Command, ...] = (
    Command("open", "enter,o", "Open", "open the highlighted encounter", edits=False, footer=True),
    Command("new", "n", "New", "create an encounter: name, ruleset, then its roster", footer=True),
    Command("duplicate", "c", "Duplicate", "copy the highlighted encounter (or only its roster, without the log) to a new file", footer=True),
    Command("delete", "delete,D", "Delete", "delete the highlighted encounter (asks first)", footer=True),
    Command("reload", "g", "Reload", "read the saves folder again", edits=False),
    Command("new_campaign", "C", "New campaign", "create a campaign: a party that goes from fight to fight (then add its characters)"),
    Command("help", "question_mark", "Help", "list every key", edits=False, footer=True),
    Command("quit", "q", "Quit", "quit the tracker", edits=False, footer=True),
)

ROSTER: tuple[Command, ...] = (
    Command("add", "a", "Add", "add a combatant from the ruleset's sheet", footer=True),
    Command("edit", "enter,e", "Edit", "edit the highlighted combatant's sheet", footer=True),
    Command("remove", "delete,x", "Remove", "take the highlighted combatant out (asks first)", footer=True),
    Command("rename", "r", "Rename", "rename the highlighted combatant"),
    Command("side", "s", "Side", "change the highlighted combatant's side"),
    Command("move_up", "left_square_bracket", "Move up", "move the highlighted combatant up the roster"),
    Command("move_down", "right_square_bracket", "Move down", "move the highlighted combatant down the roster"),
    Command("library_add", "l", "From library", "add a combatant (or N copies) from the ruleset's library of sheets", footer=True),
    Command("library_save", "w", "To library", "save the highlighted combatant's sheet in the library"),
    Command("done", "escape,ctrl+s", "Done", "back to the encounter", edits=False, footer=True),
    Command("help", "question_mark", "Help", "list every key", edits=False, footer=True),
)

CAMPAIGN: tuple[Command, ...] = (
    Command("open", "enter,o", "Open", "open the highlighted fight (on a character: change it)", edits=False),
    Command("next_fight", "n", "Next fight", "start the campaign's next fight with the party as it stands: its name, then its foes", footer=True),
    Command("add", "a", "Add", "a character joins the party: the game's sheet", footer=True),
    Command("library_add", "l", "From library", "a character joins the party from the library of sheets"),
    Command("change", "e", "Change", "change the highlighted character: figures, maxima, conditions, name, side"),
    Command("leave", "delete,x", "Leaves/dies", "the highlighted character leaves the party, or dies"),
    Command("rest", "z", "Rest", "the party rests: hours, what the GM states, then the game's own recovery dice", footer=True),
    Command("stats", "t", "Stats", "each character's figures over every ended fight", edits=False, footer=True),
    Command("undo", "u", "Undo", "take back the campaign's latest change (an end taken back reopens its fight)", footer=True),
    Command("redo", "r", "Redo", "bring back the campaign's latest undone change"),
    Command("reload", "g", "Reload", "read the campaign file again", edits=False),
    Command("help", "question_mark", "Help", "list every key", edits=False, footer=True),
    Command("close", "escape", "Back", "back to the list of encounters", edits=False),
    Command("quit", "q", "Quit", "quit the tracker", edits=False, footer=True),
)

APPROVALS: tuple[Command, ...] = (
    Command("approve", "a,enter", "Approve", "apply the highlighted proposal as the player made it (their dice)", footer=True),
    Command("edit", "e", "Edit", "change targets, PT or modifiers in the declare form, then approve (the player's dice kept)", footer=True),
    Command("refuse", "r", "Refuse", "refuse the highlighted proposal; the reason asked for is shown to the player", footer=True),
    Command("mode", "t", "At once/approval", "switch players' declarations between applying at once and waiting here", footer=True),
    Command("help", "question_mark", "Help", "list every key", edits=False, footer=True),
    Command("close", "escape,p", "Back", "back to the encounter", edits=False, footer=True),
)


def for_viewer(table: Iterable[Command]) -> tuple[Command, ...]:
    """The rows a read-only viewer may use: nothing that changes the encounter."""
    return tuple(c for c in table if not c.edits)


def viewer_may(table: Iterable[Command], name: str) -> bool:
    return any(c.name == name and not c.edits for c in table)


def offered(command: Command, role: Role) -> bool:
    """Whether `role` is offered `command` (docs/decisions/0028-ui-commands-roles.md)."""
    if role.is_gm:
        return command.gm
    if not command.edits:
        return True
    return role.is_player and command.player


def for_role(table: Iterable[Command], role: Role) -> tuple[Command, ...]:
    """The rows `role` is offered, in the table's order."""
    return tuple(c for c in table if offered(c, role))


def role_may(table: Iterable[Command], role: Role, name: str) -> bool:
    return any(c.name == name and offered(c, role) for c in table)


def in_table_order(active: dict[str, Any], table: Iterable[Command]) -> dict[str, Any]:
    """A screen's active bindings in its table's order. Textual moves a binding the
    config remaps to the end (its keymap re-adds it), and the footer draws them in order:
    at 80 columns a remapped `declare` fell off the footer's end."""
    rank = {c.name: i for i, c in enumerate(table)}
    last = len(rank)
    return dict(sorted(active.items(), key=lambda item: rank.get(getattr(item[1].binding, "id", None) or "", last)))


def shown_keys(screen: Any) -> dict[str, str]:
    """Each command's key as the footer draws it: the first of its bindings active on
    `screen` (a key the focused widget claims, such as a list's enter, is not), in the
    app's words for it ("del"). A hint line built from this says what the footer says."""
    keys: dict[str, str] = {}
    for _, binding, _enabled, _tooltip in screen.active_bindings.values():
        name = getattr(binding, "id", None)
        if name and name not in keys:
            keys[name] = screen.app.get_key_display(binding)
    return keys


def hint(screen: Any, table: Iterable[Command]) -> str:
    """The keys the footer leaves out (a row not shown there), each with its label, as
    one line: 'r rename  s side  [ move up ...'."""
    keys = shown_keys(screen)
    return "  ".join(f"{keys[c.name]} {c.label.lower()}" for c in table if not c.footer and c.name in keys)


def bindings(table: Iterable[Command]) -> list[BindingType]:
    """Textual bindings for a table: one Binding per row, all keys of the row together."""
    out: list[BindingType] = []
    for command in table:
        out.append(Binding(command.keys, f"cmd('{command.name}')", command.label, show=command.footer, id=command.name))
    return out


class CommandTable(Provider):
    """The command palette: the rows of the screen it was opened over."""

    def commands(self) -> tuple[Command, ...]:
        """The rows the palette offers over its screen, to this reader (role or viewer)."""
        table = tuple(getattr(self.screen, "COMMAND_TABLE", ()))
        role = getattr(self.screen, "role", None)  # a screen showing an encounter says whose
        if isinstance(role, Role):
            return for_role(table, role)
        return for_viewer(table) if getattr(self.app, "viewer", False) else table

    async def _run(self, name: str) -> None:
        # The palette calls this once it has closed (through `call_later`, which awaits
        # what it returns): run the row's action on the screen it was opened over.
        await self.screen.run_action(f"cmd('{name}')")

    def _text(self, command: Command) -> str:
        return f"{command.label} ({command.keys_shown(keymap_of(self.app))})"

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(self._text(command), partial(self._run, command.name), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            text = self._text(command)
            # The label matches fuzzily; the help line only by its words (a long line
            # matches almost any letters in order: "Screensh" found Glance's help).
            in_help = all(word in command.help.lower() for word in query.lower().split())
            score = max(matcher.match(text), matcher.match(command.help) * 0.8 if in_help else 0)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._run, command.name), help=command.help)


def tables() -> list[tuple[Command, ...]]:
    """Every screen's command table: the rows a key can be bound to (tracker.persistence.config
    checks a config file's `[keys]` against them)."""
    return [
        value for value in globals().values()
        if isinstance(value, tuple) and value and all(isinstance(c, Command) for c in value)
    ]
