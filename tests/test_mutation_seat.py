"""Direct tests of tracker.ui.seat: what Esc tells a player or viewer at a served table,
worked from the module docstring and the web guide (docs/guide/web.md: "Esc says where
the tab is; `q` says to close the tab")."""

from __future__ import annotations

from tracker.ui.seat import Seat


def test_a_seat_is_a_viewer_of_no_fight_by_default() -> None:
    seat = Seat()
    assert (seat.kind, seat.fight, seat.notice, seat.web, seat.replaying) == ("viewer", "", "", False, None)
    assert seat.moved is seat.replayed is seat.listen is None


def test_before_the_gm_opens_a_fight_esc_says_the_screen_will_change() -> None:
    assert Seat().where() == "No fight yet: this screen changes when the GM opens one (q leaves)"
    assert Seat(web=True).where() == "No fight yet: this screen changes when the GM opens one (close the tab to leave)"


def test_at_a_fight_esc_names_it_and_says_the_gm_chooses() -> None:
    assert Seat(kind="player", fight="Ford [2]").where() == "The GM chooses the table's fight: this is Ford [2] (q leaves)"
    assert Seat(fight="Ford", web=True).where() == "The GM chooses the table's fight: this is Ford (close the tab to leave)"
