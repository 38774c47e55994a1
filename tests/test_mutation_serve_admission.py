"""Direct tests of tracker.serve.admission: who gets in when the table is busy, against
docs/decisions/0025-admission.md and docs/guide/serve.md ("Seats and logging in"): OpenSSH's
MaxStartups START:RATE:FULL, the per-source limit, the penalties, the connections closed
to make room for a newcomer, the seats kept for GM keys. Pure functions: no server."""

from __future__ import annotations

import pytest

from tracker.engine import TrackerError
from tracker.serve.admission import PENALTY, PENALTY_MOST, PENALTY_SOURCES, SILENT_MIN, STALL_MIN, Admission, Entry, LoggingIn, Penalties, Startups

NOW = 1000.0


@pytest.fixture
def unlucky(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any draw made here would refuse: a draw given is the one used, no other is made."""
    monkeypatch.setattr("random.random", lambda: 0.0)
BUSY = "too many connections are logging in"
FROM_YOU = "too many connections from your address are logging in"


def test_the_decisions_numbers() -> None:
    assert (SILENT_MIN, STALL_MIN, PENALTY, PENALTY_MOST, PENALTY_SOURCES) == (1.0, 5.0, 10.0, 60.0, 10_000)
    assert Admission() == Admission(Startups(10, 30, 100), per_source=30, max_connections=32, gm_seats=2)


# ------------------------------------------------------------------ --max-startups


@pytest.mark.parametrize(("text", "read"), [("10:30:100", (10, 30, 100)), ("4", (4, 100, 4)), ("1:0:1", (1, 0, 1)),
                                            ("10:100:10", (10, 100, 10)), ("1:0:100", (1, 0, 100))])
def test_max_startups_read_as_openssh_reads_it(text: str, read: tuple[int, int, int]) -> None:
    got = Startups.parse(text)
    assert (got.start, got.rate, got.full) == read
    assert str(got) == ":".join(str(n) for n in read)


@pytest.mark.parametrize("text", ["", "ten", "a:b:c", "10:30", "10:30:100:5", "0:30:100", "0", "11:30:10", "10:101:100",
                                  "10:-1:100", "10:30:x", "-1"])
def test_max_startups_that_cannot_be_read_is_refused(text: str) -> None:
    with pytest.raises(TrackerError) as refused:
        Startups.parse(text)
    assert str(refused.value) == f"--max-startups: expected N or START:RATE:FULL with 1 <= START <= FULL and RATE 0-100, got {text}"


def test_refused_at_random_past_start_rising_to_certain_at_full() -> None:
    """RATE percent at START, rising linearly to certain at FULL."""
    s = Startups(10, 30, 100)
    assert [s.refusal_chance(n) for n in (0, 9)] == [0.0, 0.0]
    assert s.refusal_chance(10) == pytest.approx(0.30)
    assert s.refusal_chance(40) == pytest.approx(0.30 + 0.70 * 30 / 90)
    assert s.refusal_chance(99) == pytest.approx(0.30 + 0.70 * 89 / 90)
    assert [s.refusal_chance(n) for n in (100, 101, 500)] == [1.0, 1.0, 1.0]
    # Another rate and start: 50% at 4, 75% half way to 8.
    assert Startups(4, 50, 8).refusal_chance(6) == pytest.approx(0.75)
    assert Startups(4, 0, 8).refusal_chance(4) == 0.0
    assert Startups(4, 0, 8).refusal_chance(7) == pytest.approx(0.75)
    # N alone is N:100:N: always refused from N on, never before.
    assert (Startups.parse("4").refusal_chance(3), Startups.parse("4").refusal_chance(4)) == (0.0, 1.0)


def test_a_startup_refused_by_the_draw_against_the_chance(unlucky: None) -> None:
    a = Admission(Startups(10, 30, 100), per_source=3)
    assert a.startup_refusal(10, 0, draw=0.29) == f"{BUSY} (10); try again in a moment"
    assert a.startup_refusal(10, 0, draw=0.30) == ""  # below the chance is refused, not at it
    assert a.startup_refusal(9, 0, draw=0.0) == ""  # below START nobody is refused
    assert a.startup_refusal(100, 0, draw=0.999) == f"{BUSY} (100); try again in a moment"


def test_a_startup_with_no_draw_given_draws_one(monkeypatch: pytest.MonkeyPatch) -> None:
    a = Admission(Startups(10, 30, 100))
    monkeypatch.setattr("random.random", lambda: 0.1)
    assert a.startup_refusal(10, 0) == f"{BUSY} (10); try again in a moment"
    monkeypatch.setattr("random.random", lambda: 0.5)
    assert a.startup_refusal(10, 0) == ""


def test_the_per_source_limit() -> None:
    a = Admission(Startups(10, 30, 100), per_source=3)
    assert a.startup_refusal(2, 3, draw=0.99) == f"{FROM_YOU} (3); try again in a moment"
    assert a.startup_refusal(50, 4, draw=0.99) == f"{FROM_YOU} (4); try again in a moment"
    assert a.startup_refusal(2, 2, draw=0.0) == ""


# ------------------------------------------------------------------ penalties


def test_each_close_adds_ten_seconds_never_more_than_sixty_ahead() -> None:
    p = Penalties()
    p.add("10.0.0.9", NOW)
    assert p.until == {"10.0.0.9": NOW + 10}
    p.add("10.0.0.9", NOW + 2)
    assert p.until["10.0.0.9"] == NOW + 20  # added to what is left, not from now
    for _ in range(10):
        p.add("10.0.0.9", NOW + 2)
    assert p.until["10.0.0.9"] == NOW + 62
    # A penalty run out starts again from now.
    p.add("10.0.0.9", NOW + 500)
    assert p.until["10.0.0.9"] == NOW + 510


def test_a_penalty_is_active_until_its_end() -> None:
    p = Penalties()
    p.add("10.0.0.9", NOW)
    assert p.active("10.0.0.9", NOW) and p.active("10.0.0.9", NOW + 9.99)
    assert not p.active("10.0.0.9", NOW + 10)
    assert not p.active("10.0.0.8", 0.5)  # an address never closed has none, from the clock's start


def _full_of_penalties(ends: list[float]) -> Penalties:
    p = Penalties()
    p.until.update({f"10.9.{n // 250}.{n % 250}": NOW + 5 + (n % 40) for n in range(PENALTY_SOURCES - len(ends))})
    p.until.update({f"10.8.0.{n}": end for n, end in enumerate(ends)})
    return p


def test_at_most_ten_thousand_addresses_the_soonest_to_end_forgotten_first() -> None:
    p = _full_of_penalties([NOW + 1, NOW + 2])
    p.add("10.0.0.9", NOW)
    assert len(p.until) == PENALTY_SOURCES
    assert "10.8.0.0" not in p.until and p.until["10.8.0.1"] == NOW + 2 and p.until["10.0.0.9"] == NOW + 10


def test_ended_penalties_are_forgotten_first_every_one_of_them() -> None:
    p = _full_of_penalties([NOW - 1, NOW, NOW + 1])
    p.add("10.0.0.9", NOW)
    assert len(p.until) == PENALTY_SOURCES - 1
    assert "10.8.0.0" not in p.until and "10.8.0.1" not in p.until and p.until["10.8.0.2"] == NOW + 1


def test_nothing_forgotten_at_the_limit() -> None:
    p = _full_of_penalties([NOW - 1])
    del p.until["10.9.0.0"]
    p.add("10.0.0.9", NOW)
    assert len(p.until) == PENALTY_SOURCES and p.until["10.8.0.0"] == NOW - 1
    # An address already remembered takes no new place.
    p = _full_of_penalties([NOW - 1])
    p.add("10.9.0.3", NOW)
    assert len(p.until) == PENALTY_SOURCES and "10.8.0.0" in p.until


# ------------------------------------------------------------------ entry


def _c(n: int, source: str = "10.0.0.2", age: float = 0.5, spoke: bool = True, accepted: bool = False) -> LoggingIn:
    return LoggingIn(n, source, NOW - age, spoke=spoke, accepted=accepted)


def test_a_quiet_table_lets_a_newcomer_in(unlucky: None) -> None:
    assert Admission().entry("10.0.0.1", [], Penalties(), NOW, draw=0.0) == Entry()
    assert Admission().entry("10.0.0.1", iter([_c(1), _c(2)]), Penalties(), NOW, draw=0.0) == Entry()


def test_the_random_refusal_counts_only_those_that_spoke_and_wait_for_a_key(unlucky: None) -> None:
    a = Admission(Startups(3, 50, 100))
    penalties = Penalties()
    assert a.entry("10.0.0.1", [_c(n) for n in range(3)], penalties, NOW, draw=0.49) == Entry(f"{BUSY} (3); try again in a moment")
    assert a.entry("10.0.0.1", [_c(n) for n in range(3)], penalties, NOW, draw=0.5) == Entry()
    # One of the three silent, accepted, or from a penalized address: two count, below START.
    assert a.entry("10.0.0.1", [_c(0), _c(1), _c(2, spoke=False)], penalties, NOW, draw=0.0) == Entry()
    assert a.entry("10.0.0.1", [_c(0), _c(1), _c(2, accepted=True)], penalties, NOW, draw=0.0) == Entry()
    penalties.add("10.0.0.7", NOW)
    assert a.entry("10.0.0.1", [_c(0), _c(1), _c(2, source="10.0.0.7")], penalties, NOW, draw=0.0) == Entry()


def test_the_per_source_limit_counts_every_one_and_makes_no_room() -> None:
    a = Admission(Startups(10, 30, 100), per_source=3)
    old = [_c(n, age=30, spoke=False) for n in range(3)]
    assert a.entry("10.0.0.2", old, Penalties(), NOW, draw=0.99) == Entry(f"{FROM_YOU} (3); try again in a moment")
    assert a.entry("10.0.0.2", old[:2], Penalties(), NOW, draw=0.99) == Entry()
    assert a.entry("10.0.0.3", old, Penalties(), NOW, draw=0.99) == Entry()


def test_a_newcomer_is_not_counted_against_its_own_address_limit() -> None:
    """The random refusal asks only about the table: the newcomer's own address was counted before."""
    a = Admission(Startups(10, 30, 100), per_source=1)
    assert a.entry("10.0.0.1", [_c(1)], Penalties(), NOW, draw=0.0) == Entry()


def test_at_full_every_one_counts_silent_or_not() -> None:
    a = Admission(Startups(10, 30, 20))
    young = [_c(n, source=f"10.1.0.{n}", spoke=False, age=0.2) for n in range(20)]
    assert a.entry("10.0.0.1", young, Penalties(), NOW, draw=0.999) == Entry(f"{BUSY} (20); try again in a moment")
    assert a.entry("10.0.0.1", young[:19], Penalties(), NOW, draw=0.0) == Entry()


def test_a_refused_newcomer_takes_the_place_of_one_wasting_its_own() -> None:
    a = Admission(Startups(10, 30, 20))
    waiting = [_c(n, source=f"10.1.0.{n}", spoke=False, age=0.2) for n in range(20)]
    waiting[7] = _c(7, source="10.1.0.7", spoke=False, age=SILENT_MIN)
    assert a.entry("10.0.0.1", waiting, Penalties(), NOW, draw=0.999) == Entry("", waiting[7], "silent for 1.0s")
    # A newcomer from a penalized address never makes room: refused.
    penalties = Penalties()
    penalties.add("10.0.0.1", NOW)
    assert a.entry("10.0.0.1", waiting, penalties, NOW, draw=0.999) == Entry(f"{BUSY} (20); try again in a moment")
    # Nothing to close: refused, nothing named.
    waiting[7] = _c(7, source="10.1.0.7", spoke=False, age=0.2)
    assert a.entry("10.0.0.1", waiting, Penalties(), NOW, draw=0.999) == Entry(f"{BUSY} (20); try again in a moment", None)


def test_room_made_by_a_random_refusal_too() -> None:
    a = Admission(Startups(2, 100, 50))
    waiting = [_c(0, age=STALL_MIN + 2), _c(1, age=0.1)]
    assert a.entry("10.0.0.1", waiting, Penalties(), NOW, draw=0.5) == Entry("", waiting[0], "not logged in after 7.0s")


# ------------------------------------------------------------------ which connection makes room


def _room(waiting: list[LoggingIn], penalties: Penalties | None = None) -> tuple[LoggingIn | None, str]:
    entry = Admission(Startups(1, 100, 1)).entry("10.0.0.1", waiting, penalties or Penalties(), NOW, draw=0.0)
    assert entry.refusal == ("" if entry.room else f"{BUSY} ({len(waiting)}); try again in a moment")
    return entry.room, entry.why


def test_first_a_connection_from_a_penalized_address_the_oldest_young_or_not() -> None:
    penalties = Penalties()
    penalties.add("10.0.0.7", NOW)
    waiting = [_c(0, age=30, spoke=False), _c(1, "10.0.0.7", age=0.1), _c(2, "10.0.0.7", age=0.3), _c(3, "10.0.0.7", age=0.2)]
    assert _room(waiting, penalties) == (waiting[2], "its address has had connections that did not log in")
    # One whose key was accepted is never closed, penalized or not.
    accepted = [_c(1, "10.0.0.7", age=9, accepted=True), _c(2, age=0.1)]
    assert _room(accepted, penalties) == (None, "")


def test_then_one_silent_for_a_second_the_oldest() -> None:
    waiting = [_c(0, age=30), _c(1, spoke=False, age=1.5), _c(2, spoke=False, age=2.25), _c(3, spoke=False, age=0.99)]
    assert _room(waiting) == (waiting[2], "silent for 2.2s")
    assert _room([_c(3, spoke=False, age=0.99)]) == (None, "")
    assert _room([_c(3, spoke=False, age=1.0)]) == (_c(3, spoke=False, age=1.0), "silent for 1.0s")
    # A connection that spoke is not silent, however old (until it has stalled).
    assert _room([_c(0, age=4.9)]) == (None, "")


def test_then_one_logging_in_for_five_seconds_the_oldest() -> None:
    waiting = [_c(0, age=5.0), _c(1, age=6.5), _c(2, age=4.0), _c(3, age=60, accepted=True)]
    assert _room(waiting) == (waiting[1], "not logged in after 6.5s")
    assert _room([_c(0, age=5.0)]) == (_c(0, age=5.0), "not logged in after 5.0s")
    assert _room([_c(0, age=4.99)]) == (None, "")


# ------------------------------------------------------------------ seats


def test_the_table_full() -> None:
    a = Admission(max_connections=4, gm_seats=2)
    assert a.seat_refusal(gm=True, seated=4, seated_gms=1) == "the table is full (4 seats); try again later"
    assert a.seat_refusal(gm=True, seated=5, seated_gms=0) == "the table is full (4 seats); try again later"
    assert a.seat_refusal(gm=False, seated=4, seated_gms=4) == "the table is full (4 seats); try again later"
    assert a.seat_refusal(gm=True, seated=3, seated_gms=0) == ""


def test_seats_kept_for_gm_keys() -> None:
    """Players and viewers take at most max-connections - gm-seats, a GM any free seat."""
    a = Admission(max_connections=4, gm_seats=2)
    assert a.seat_refusal(gm=False, seated=1, seated_gms=0) == ""
    assert a.seat_refusal(gm=False, seated=2, seated_gms=0) == "the table is full (4 seats, 2 kept for the GM); try again later"
    assert a.seat_refusal(gm=True, seated=2, seated_gms=0) == ""
    assert a.seat_refusal(gm=False, seated=3, seated_gms=2) == ""  # two GMs seated: a seat left for one more
    assert a.seat_refusal(gm=False, seated=3, seated_gms=1) == "the table is full (4 seats, 2 kept for the GM); try again later"
    none_kept = Admission(max_connections=3, gm_seats=0)
    assert none_kept.seat_refusal(gm=False, seated=2, seated_gms=0) == ""
    assert none_kept.seat_refusal(gm=False, seated=3, seated_gms=0) == "the table is full (3 seats); try again later"
    one_kept = Admission(max_connections=3, gm_seats=1)
    assert one_kept.seat_refusal(gm=False, seated=2, seated_gms=0) == "the table is full (3 seats, 1 kept for the GM); try again later"
    every_seat_kept = Admission(max_connections=2, gm_seats=2)
    assert every_seat_kept.seat_refusal(gm=False, seated=0, seated_gms=0) == "the table is full (2 seats, 2 kept for the GM); try again later"
    no_seat_kept = Admission(max_connections=2, gm_seats=0)
    assert no_seat_kept.seat_refusal(gm=False, seated=1, seated_gms=0) == ""
