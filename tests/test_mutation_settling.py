"""Direct tests of tracker.engine.settling.settle, with the collector's calls recorded
instead of made (the test process's own collector is left as it was). Expected values
are worked from the module docstring: collect first, then freeze; the young threshold
raised to SETTLED_YOUNG, never lowered, and left at 0 (automatic collection off);
nothing at all when the collector is off."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from tracker.engine import settling


def _recorded(monkeypatch: pytest.MonkeyPatch, enabled: bool, threshold: tuple[int, int, int]) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(gc, "isenabled", lambda: enabled)

    def collect(*a: Any) -> int:
        calls.append(("collect", *a))
        return 0
    monkeypatch.setattr(gc, "collect", collect)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(("freeze",)))
    monkeypatch.setattr(gc, "get_threshold", lambda: threshold)
    monkeypatch.setattr(gc, "set_threshold", lambda *a: calls.append(("set_threshold", *a)))
    return calls


def test_the_figures() -> None:
    assert (settling.SETTLE_EVERY, settling.SETTLED_YOUNG) == (512, 10_000)


def test_a_settle_collects_then_freezes_and_raises_the_young_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recorded(monkeypatch, True, (700, 10, 10))
    assert settling.settle() is True
    assert calls == [("collect",), ("freeze",), ("set_threshold", 10_000, 10, 10)]


def test_the_threshold_is_raised_up_to_just_below_and_never_lowered(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recorded(monkeypatch, True, (9_999, 5, 7))
    assert settling.settle() is True
    assert calls[-1] == ("set_threshold", 10_000, 5, 7)
    calls = _recorded(monkeypatch, True, (1, 5, 7))
    assert settling.settle() is True
    assert calls[-1] == ("set_threshold", 10_000, 5, 7)
    for young in (10_000, 20_000, 0):
        calls = _recorded(monkeypatch, True, (young, 5, 7))
        assert settling.settle() is True
        assert calls == [("collect",), ("freeze",)]


def test_a_collector_that_is_off_is_left_off(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recorded(monkeypatch, False, (700, 10, 10))
    assert settling.settle() is False
    assert calls == []
