"""Direct tests of tracker.play.verbs: how one line of the command language becomes a call
(module docstring: positional arguments in order, the last may take the rest of the
line; options `key=value`; `note` takes the rest of the line as typed; a verb in any
case), and the numbers typed in it (README: "at most 10^12")."""

from __future__ import annotations

import pytest

from tracker.engine import CommandError
from tracker.reading.roles import GM, PLAYER, VIEWER
from tracker.play.verbs import Call, at_least, completions, copies, find, number, offered, read, split_command, whole


# ------------------------------------------------------------------ words
def test_a_line_splits_into_verb_words_and_options() -> None:
    assert split_command("declare Seraph punch target=Sphinx") == ("declare", ["Seraph", "punch"], {"target": "Sphinx"})
    assert split_command('DECLARE "Goblin 1" punch PT=3') == ("declare", ["Goblin 1", "punch"], {"pt": "3"})
    # an option's key is a word (letters, digits, _ and -), not starting with a digit
    assert split_command("x a_b=1 c-d=2 1x=3 =4 e+f=5 g=") == ("x", ["1x=3", "=4", "e+f=5"], {"a_b": "1", "c-d": "2", "g": ""})


def test_a_hash_is_part_of_a_word_and_a_value_keeps_its_own_equals_signs() -> None:
    # a `#` starts no comment: "Goblin #2" is a name as typed; the value is all after the first `=`
    assert split_command('declare Ann "jab #2" #3 target=Bo') == ("declare", ["Ann", "jab #2", "#3"], {"target": "Bo"})
    assert split_command("declare Ann jab style=a=b") == ("declare", ["Ann", "jab"], {"style": "a=b"})


def test_an_empty_or_unreadable_line_is_refused() -> None:
    with pytest.raises(CommandError, match="^empty command$"):
        split_command("   ")
    with pytest.raises(CommandError, match="^cannot read the command: No closing quotation$"):
        split_command('add "Ann')


# ------------------------------------------------------------------ numbers
def test_whole_numbers_are_bounded_like_a_segment() -> None:
    assert whole("12", "segments") == 12
    assert whole("-3", "segments") == -3
    assert whole(str(10**12), "segments") == 10**12
    assert whole(str(-(10**12)), "segments") == -(10**12)
    with pytest.raises(CommandError, match=r"^segments: expected a whole number of at most 1,000,000,000,000 in size, got 1000000000001$"):
        whole(str(10**12 + 1), "segments")
    with pytest.raises(CommandError, match=r"^segments: expected a whole number, got '2\.5'$"):
        whole("2.5", "segments")


def test_at_least_names_what_was_expected() -> None:
    assert at_least("1", "pt", 1, "a whole number of segments", "at least 1 segment") == 1
    assert at_least("7", "pt", 1, "a whole number of segments", "at least 1 segment") == 7
    with pytest.raises(CommandError, match=r"^pt: expected at least 1 segment, got 0$"):
        at_least("0", "pt", 1, "a whole number of segments", "at least 1 segment")
    with pytest.raises(CommandError, match=r"^pt: expected a whole number of segments, got 'x'$"):
        at_least("x", "pt", 1, "a whole number of segments", "at least 1 segment")


def test_numbers_stay_exact_when_whole() -> None:
    assert number("2.5", "amount") == 2.5
    three = number("3", "amount")
    assert three == 3 and isinstance(three, int)
    also = number("4.0", "amount")
    assert also == 4 and isinstance(also, int)
    big = 10**12
    assert number(str(big), "amount") == big  # float() would be exact here too; the type is int
    assert isinstance(number("1e3", "amount"), int) and number("1e3", "amount") == 1000
    with pytest.raises(CommandError, match=r"^amount: expected a number, got 'lots'$"):
        number("lots", "amount")
    with pytest.raises(Exception, match="amount: expected a finite number"):
        number("inf", "amount")


@pytest.mark.parametrize(("word", "count"), [("x4", 4), ("×4", 4), ("x1", 1), ("x100", 100), ("x", None), ("4", None), ("xa", None), ("Goblin", None)])
def test_copies_are_x_and_a_count(word: str, count: int | None) -> None:
    assert copies(word) == count


@pytest.mark.parametrize("word", ["x0", "x101"])
def test_copies_are_one_to_a_hundred(word: str) -> None:
    with pytest.raises(CommandError, match=f"^copies: expected x1 to x100, got {word}$"):
        copies(word)


# ------------------------------------------------------------------ lines to calls
def test_a_verb_is_read_in_any_case_and_unknown_ones_list_the_verbs() -> None:
    assert read("STEP 3") == Call("step", (3,), {})
    assert read("step") == Call("step", (1,), {})  # the default
    assert read("next 3") == Call("next", (), {})  # words beyond ignored
    with pytest.raises(CommandError, match=r"^unknown command 'fly' \(commands: add, declare, maintain, "):
        read("fly away")
    assert find("Damage").name == "damage"


def test_positional_arguments_in_order_and_the_rest_of_the_line() -> None:
    assert read("damage Ann 5") == Call("damage", ("Ann", 5), {"resource": None})
    assert read("damage Ann -2.5 resource=ep") == Call("damage", ("Ann", -2.5), {"resource": "ep"})
    assert read("schedule 10 the bridge falls") == Call("schedule", (10, "the bridge falls"), {})
    assert read("abort Ann") == Call("abort", ("Ann", None), {})
    assert read("side Ann") == Call("set_side", ("Ann", ""), {})
    with pytest.raises(CommandError, match=r"^usage: set NAME KEY VALUE$"):
        read("set Ann hp")  # too few
    with pytest.raises(CommandError, match=r"^usage: set NAME KEY VALUE$"):
        read("set Ann hp 3 4")  # too many
    with pytest.raises(CommandError, match=r"^usage: damage NAME\[,NAME\|GLOB\] AMOUNT \[resource=R\]$"):
        read("damage Ann")
    with pytest.raises(CommandError, match=r"^segments: expected a whole number, got 'soon'$"):
        read("condition Ann stunned soon")  # the argument's name (SEGMENTS) in the refusal
    with pytest.raises(CommandError, match=r"^position: expected a whole number, got 'top'$"):
        read("reorder Ann top")
    with pytest.raises(CommandError, match=r"^segments: expected a whole number, got 'two'$"):
        read("step two")  # N's label
    with pytest.raises(CommandError, match=r"^amount: expected a number, got 'lots'$"):
        read("damage Ann lots")  # AMOUNT's name


def test_options_and_other_options_as_params() -> None:
    call = read("declare Ann big punch target=Bo,,Cy pt=4 faces=5,6 secret=yes style=wild")
    assert call.method == "declare"
    assert call.args == ("Ann", "big punch")
    assert call.kwargs == {"targets": ["Bo", "Cy"], "pt": 4, "faces": "5,6", "secret": True, "params": {"style": "wild"}}
    call = read("declare Ann punch targets=Bo")  # the second spelling
    assert call.kwargs["targets"] == ["Bo"] and call.kwargs["secret"] is False and call.kwargs["pt"] is None
    assert read("declare Ann punch target=Bo targets=Cy").kwargs["targets"] == ["Bo"]  # the first wins
    assert read("damage Ann 3 style=x").kwargs == {"resource": None}  # others ignored without params


def test_add_copies_and_its_options() -> None:
    assert read("add Goblin x3 hp=7 side=red") == Call("add", ("Goblin", {"hp": "7"}), {"side": "red", "hidden": False, "surprised_until": 0, "copies": 3})
    assert read("add Ann hidden=true surprised=4") == Call("add", ("Ann", {}), {"side": "", "hidden": True, "surprised_until": 4, "copies": 1})
    with pytest.raises(CommandError, match=r"^usage: add NAME \[xN\] key=value \.\.\. \(quote a name with spaces\)$"):
        read("add Big Goblin")
    with pytest.raises(CommandError, match="quote a name"):
        read("add")


def test_library_sub_commands() -> None:
    assert read("library") == Call("library_sheets")
    assert read("library save Ann as=hero") == Call("save_sheet", ("Ann", "hero"))
    assert read("library save Ann") == Call("save_sheet", ("Ann", None))
    assert read("library add orc") == Call("add_from_library", ("orc", None), {"copies": 1, "side": None, "hidden": False})
    assert read("LIBRARY ADD orc Grunt x2 side=red hidden=yes") == Call(
        "add_from_library", ("orc", "Grunt"), {"copies": 2, "side": "red", "hidden": True})
    assert read("library add orc x2") == Call("add_from_library", ("orc", None), {"copies": 2, "side": None, "hidden": False})
    assert read("library delete orc") == Call("delete_sheet", ("orc",))
    # the first word after `add` is always the entry, even one named like a count
    assert read("library add x3") == Call("add_from_library", ("x3", None), {"copies": 1, "side": None, "hidden": False})
    assert read("library add x3 x2") == Call("add_from_library", ("x3", None), {"copies": 2, "side": None, "hidden": False})
    for bad in ("library save", "library delete", "library add", "library add orc Grunt Extra", "library burn orc"):
        with pytest.raises(CommandError, match=r"^usage: library \["):
            read(bad)


def test_refuse_keeps_its_reason_as_typed() -> None:
    assert read("refuse 3 not now, hp=0 is down") == Call("refuse", (3, "not now, is down hp=0"))
    assert read("refuse 3") == Call("refuse", (3, ""))
    with pytest.raises(CommandError, match=r"^usage: refuse N REASON"):
        read("refuse")
    with pytest.raises(CommandError, match=r"^refuse: proposal: expected a whole number, got 'x'$"):
        read("refuse x because")


def test_roll_takes_only_secret() -> None:
    assert read("roll 2d10 + 3") == Call("roll", ("2d10 + 3",), {"secret": False})
    assert read("roll 1d6 secret=true") == Call("roll", ("1d6",), {"secret": True})
    with pytest.raises(CommandError, match=r"^roll: unknown option 'hidden' \(only secret=true\)$"):
        read("roll 1d6 hidden=true")


def test_note_takes_the_rest_of_the_line_as_typed() -> None:
    assert read('note  the "bridge" is out, hp=0 ') == Call("note", ('the "bridge" is out, hp=0',))
    assert read("NOTE\thi") == Call("note", ("hi",))
    assert read("note") == Call("note", ("",))
    # tabs count as spaces, inside quotes and in a note too
    assert read("note a\tb") == Call("note", ("a b",))
    assert read('rename\t"Big\tBo"\tBo') == Call("rename", ("Big Bo", "Bo"), {})


# ------------------------------------------------------------------ who is offered what
def test_each_role_is_offered_its_verbs_and_names() -> None:
    gm, player, viewer = offered(GM), offered(PLAYER), offered(VIEWER)
    assert viewer == ()
    assert [v.name for v in player] == ["declare", "maintain", "abort", "undo", "redo", "roll", "proposals", "takeback"]
    assert len(gm) == len({v.name for v in gm}) and {v.name for v in player} < {v.name for v in gm}
    offered_player = completions(["Ann", "Big Bo"], PLAYER)
    assert offered_player[:2] == ["declare ", "maintain "]
    assert "declare Ann " in offered_player and "declare 'Big Bo' " in offered_player
    assert "abort 'Big Bo' " in offered_player
    assert "undo Ann " not in offered_player and "roll Ann " not in offered_player
    assert "damage Ann " in completions(["Ann"]) and "damage Ann " not in offered_player
    assert completions(["Ann"], VIEWER) == []


def test_a_players_usage_and_help_leave_out_the_gms_options() -> None:
    declare = find("declare")
    assert "[secret=true]" in declare.usage_for(GM)
    assert declare.usage_for(PLAYER) == "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [key=value]"
    assert declare.help_for(GM) == "initiate an action (secret: the roll is hidden from viewers)"
    assert declare.help_for(PLAYER) == "initiate an action"
    assert find("roll").usage_for(PLAYER) == "roll DICE"
    assert find("step").refusal == "usage: step [N]"
    assert find("library").methods == ("library_sheets", "save_sheet", "add_from_library", "delete_sheet")
    assert find("damage").takes_name and find("declare").takes_name and not find("step").takes_name
    assert not find("next").takes_name and not find("schedule").takes_name
