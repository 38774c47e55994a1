"""The table of proposals (tracker/engine/proposals.py).

Expected values come from the module docstring (read as a mapping, seq -> Proposal,
oldest first; holds no reference to the encounter), its methods' docstrings (a copy's
proposals are copies: approving, refusing or lapsing one changes its status in place;
a refusal names those waiting) and `Proposal.what` (the words for a log line).
"""

from __future__ import annotations

import pytest

from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import APPROVED, LAPSED, PENDING, REFUSED, Proposal
from tracker.engine.proposals import Proposals


def _table() -> Proposals:
    table = Proposals()
    table.add(Proposal(3, "declare", "Ann", {"actor": "Ann", "template": "hit", "targets": ["Bo"]}, 0))
    table.add(Proposal(5, "abort", "Bo", {"actor": "Bo"}, 0, status=REFUSED))
    table.add(Proposal(7, "maintain", "Cy", {"actor": "Cy", "targets": ["Ann", "Bo"]}, 1))
    return table


def test_a_table_is_a_mapping_by_seq_oldest_first() -> None:
    table = _table()
    assert list(table) == [3, 5, 7] and len(table) == 3
    assert table[5].actor == "Bo"
    assert 7 in table and 4 not in table
    with pytest.raises(KeyError):
        table[4]
    assert Proposals() == {} and len(Proposals()) == 0
    assert repr(Proposals()) == "Proposals({})"
    one = Proposals()
    p = Proposal(2, "abort", "Bo", {}, 0)
    one.add(p)
    assert repr(one) == f"Proposals({{2: {p!r}}})"


def test_a_table_given_its_proposals_holds_them() -> None:
    by_seq = {4: Proposal(4, "abort", "Bo", {}, 0)}
    table = Proposals(by_seq)
    assert table[4] is by_seq[4]
    table.add(Proposal(6, "abort", "Bo", {}, 0))
    assert list(by_seq) == [4, 6]  # the same table, not a copy


def test_tables_do_not_share_their_proposals() -> None:
    a, b = Proposals(), Proposals()
    a.add(Proposal(1, "abort", "Bo", {}, 0))
    assert len(b) == 0


def test_a_copy_has_its_own_proposals() -> None:
    table = _table()
    copied = table.copy()
    assert list(copied) == [3, 5, 7]
    assert copied[3] is not table[3] and copied[3].actor == "Ann"
    copied[3].status = APPROVED
    assert table[3].status == PENDING
    copied.add(Proposal(9, "abort", "Bo", {}, 0))
    assert 9 not in table


def test_the_pending_proposals_oldest_first() -> None:
    table = _table()
    assert [p.seq for p in table.pending()] == [3, 7]


def test_a_proposal_is_found_or_the_refusal_names_those_waiting() -> None:
    table = _table()
    assert table.proposal(5).actor == "Bo"
    with pytest.raises(RuleRefusal) as missing:
        table.proposal(4)
    assert str(missing.value) == "no proposal 4 (waiting: 3, 7) (rule: approval)"
    with pytest.raises(RuleRefusal) as none:
        Proposals().proposal(1)
    assert str(none.value) == "no proposal 1 (waiting: none) (rule: approval)"


def test_only_a_waiting_proposal_may_be_answered() -> None:
    table = _table()
    assert table.waiting(3, "approve") is table[3]
    with pytest.raises(RuleRefusal) as closed:
        table.waiting(5, "withdraw")
    assert str(closed.value) == "withdraw: proposal 5 (Bo, aborting an action) is already refused (rule: approval)"
    for bad in (True, "3", 3.0, None):
        with pytest.raises(TrackerError) as refused:
            table.waiting(bad, "refuse")
        assert str(refused.value) == f"refuse: target: expected the number of a proposal, got {bad!r}"
        assert not isinstance(refused.value, RuleRefusal)
    with pytest.raises(RuleRefusal, match=r"^no proposal 8 \(waiting: 3, 7\)"):
        table.waiting(8, "approve")


def test_lapsing_closes_every_pending_proposal_and_names_them() -> None:
    table = _table()
    lapsed = table.lapse()
    assert [p.seq for p in lapsed] == [3, 7]
    assert [p.status for p in table.values()] == [LAPSED, REFUSED, LAPSED]
    assert table.lapse() == []


def test_a_rename_follows_the_proposals_of_the_combatant() -> None:
    table = _table()
    args, cys = table[3].args, table[7].args
    table.renamed("Ann", "Ada")
    assert table[3].actor == "Ada"
    assert table[3].args == {"actor": "Ada", "template": "hit", "targets": ["Bo"]}
    assert args == {"actor": "Ann", "template": "hit", "targets": ["Bo"]}  # a new table of arguments
    # another's proposal aimed at the combatant follows it too (its actor stays)
    assert table[7].actor == "Cy" and table[7].args == {"actor": "Cy", "targets": ["Ada", "Bo"]}
    assert cys == {"actor": "Cy", "targets": ["Ann", "Bo"]}  # a new table of arguments
    table.renamed("Bo", "Bea")
    assert table[5].actor == "Bea" and table[5].args == {"actor": "Bea", "targets": []}
    assert table[3].args == {"actor": "Ada", "template": "hit", "targets": ["Bea"]}
    assert table[7].args == {"actor": "Cy", "targets": ["Ada", "Bea"]}


def test_a_rename_leaves_the_proposals_about_others_as_they_are() -> None:
    table = _table()
    args = {seq: p.args for seq, p in table.items()}
    table.renamed("Di", "Dee")
    assert {seq: p.args for seq, p in table.items()} == args
    assert all(table[seq].args is args[seq] for seq in table)
    assert "targets" not in table[5].args


def test_a_rename_follows_the_effects_a_proposals_roll_aims() -> None:
    from tracker.engine.effects import Damage, Note, Resolution

    table = Proposals()
    roll = Resolution(3, effects=(Note("Ann is hit"), Damage("Ann", 2, "hp"), Damage("Bo", 1, "hp")))
    table.add(Proposal(3, "declare", "Bo", {"actor": "Bo", "targets": ["Ann"], "resolution": roll}, 0))
    other = Resolution(2, effects=(Damage("Bo", 1, "hp"),))
    table.add(Proposal(4, "declare", "Bo", {"actor": "Bo", "targets": ["Ann"], "resolution": other}, 0))
    table.renamed("Ann", "Ada")
    assert table[3].args["resolution"] == Resolution(3, effects=(Note("Ann is hit"), Damage("Ada", 2, "hp"), Damage("Bo", 1, "hp")))
    assert roll.effects[1] == Damage("Ann", 2, "hp")  # the proposal's roll as made is not changed in place
    assert table[4].args["resolution"] is other


def test_a_proposal_a_combatant_aims_at_itself_follows_its_rename() -> None:
    table = Proposals()
    table.add(Proposal(3, "declare", "Ann", {"actor": "Ann", "template": "rally", "targets": ["Ann", "Bo"]}, 0))
    table.renamed("Ann", "Ada")
    assert table[3].args == {"actor": "Ada", "template": "rally", "targets": ["Ada", "Bo"]}
