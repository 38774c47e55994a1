"""The SSH server's log as its tests read it: the fixture that keeps it, and its lines."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture
def log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The `tracker.serve` log kept from INFO up."""
    with caplog.at_level(logging.INFO, logger="tracker.serve"):
        yield caplog


def said(caplog: pytest.LogCaptureFixture, level: int | None = None) -> list[str]:
    """The server's log lines, as said: all of them, or those at one level."""
    return [r.getMessage() for r in caplog.records if r.name == "tracker.serve" and level in (None, r.levelno)]
