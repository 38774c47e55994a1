"""Direct tests of tracker.ui.background (file work off the event loop), worked from its
docstring: the job runs on a thread, its result or its refusal's message comes back on
the event loop; a bug is reported as a handler's is, never lost; a screen gone by the
time the job ends is not called back; `working` is set while the job runs; with
`latest`, only the last job started in its group is delivered."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tracker.engine import TrackerError
from tracker.ui.background import in_thread
from tests.ui import wait_for

pytestmark = pytest.mark.ui

LOOP = "the event loop"


class Pane(Static):
    working = False


class Bare(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []
        self.told: list[tuple[str, str, float | None]] = []
        self.heard: list[tuple[str, Any, str]] = []
        self.loop_thread = threading.current_thread()

    def compose(self) -> ComposeResult:
        yield Pane(id="pane")
        yield Static(id="plain")

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None, markup: bool = True) -> None:  # type: ignore[override]
        self.told.append((message, severity, timeout))

    def hear(self, what: str) -> Any:
        def call(value: Any) -> None:
            where = LOOP if threading.current_thread() is self.loop_thread else "a thread"
            self.heard.append((what, value, where))

        return call


def _gated(value: Any) -> tuple[threading.Event, Any]:
    gate = threading.Event()

    def job() -> Any:
        assert gate.wait(30)
        if isinstance(value, BaseException):
            raise value
        return value

    return gate, job


async def test_the_result_comes_back_on_the_event_loop_and_working_is_set_meanwhile() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        gate, job = _gated(42)
        in_thread(pane, job, app.hear("done"), app.hear("refused"))
        assert pane.working
        await pilot.pause(0)
        assert pane.working and app.heard == []  # still running: nothing heard yet
        gate.set()
        await wait_for(pilot, lambda: app.heard, "the result")
        assert app.heard == [("done", 42, LOOP)]
        assert pane.working is False  # a bool, as the screens declare it


async def test_a_refusal_is_told_to_refused_or_else_as_an_error_notification() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        in_thread(pane, lambda: (_ for _ in ()).throw(TrackerError("campaign: no such fight")), app.hear("done"), app.hear("refused"))
        await wait_for(pilot, lambda: app.heard, "the refusal")
        assert app.heard == [("refused", "campaign: no such fight", LOOP)]
        assert app.told == [] and app.errors == []
        in_thread(pane, lambda: (_ for _ in ()).throw(TrackerError("locked")), app.hear("done"))
        await wait_for(pilot, lambda: app.told, "the notification")
        assert app.told == [("locked", "error", 8)]
        assert app.heard == [("refused", "campaign: no such fight", LOOP)] and app.errors == []
        assert not pane.working


async def test_a_bug_in_the_job_is_reported_and_kept_never_lost() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        bug = ValueError("boom")
        in_thread(pane, lambda: (_ for _ in ()).throw(bug), app.hear("done"), app.hear("refused"))
        await wait_for(pilot, lambda: app.errors, "the bug kept")
        assert app.errors == [bug] and app.heard == []
        assert len(app.told) == 1 and "boom" in app.told[0][0] and app.told[0][1:] == ("error", 8)
        assert not pane.working


async def test_a_node_without_working_is_left_without_it() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        plain = app.query_one("#plain", Static)
        in_thread(plain, lambda: "x", app.hear("done"))
        await wait_for(pilot, lambda: app.heard, "the result")
        assert app.heard == [("done", "x", LOOP)] and not hasattr(plain, "working")


async def test_a_node_gone_when_the_job_ends_is_not_called_back() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        gate, job = _gated("late")
        in_thread(pane, job, app.hear("done"))
        await pane.remove()
        gate.set()
        # A second job on a node still there is heard; the first never is.
        in_thread(app.query_one("#plain", Static), lambda: "after", app.hear("done"))
        await wait_for(pilot, lambda: app.heard, "the second result")
        await wait_for(pilot, lambda: not pane.working, "the first job ended")
        assert app.heard == [("done", "after", LOOP)]


async def test_a_job_whose_node_goes_at_once_still_runs(tmp_path) -> None:
    # A screen that starts its file work and is closed in the same burst of keys: the
    # work is done (on disk), only the screen is not called back.
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        written = tmp_path / "done"
        in_thread(pane, lambda: written.write_text("kept"), app.hear("done"))
        await pane.remove()
        await wait_for(pilot, lambda: written.exists(), "the job's file written")
        await wait_for(pilot, lambda: not pane.working, "the job ended")
        in_thread(app.query_one("#plain", Static), lambda: "after", app.hear("done"))
        await wait_for(pilot, lambda: app.heard, "a later job's result")
        assert app.heard == [("done", "after", LOOP)] and written.read_text() == "kept"


async def test_latest_delivers_only_the_last_job_started_in_its_group() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        first_gate, first = _gated("old list")
        second_gate, second = _gated("new list")
        in_thread(pane, first, app.hear("done"), group="list", latest=True)
        in_thread(pane, second, app.hear("done"), group="list", latest=True)
        second_gate.set()
        await wait_for(pilot, lambda: app.heard, "the second result")
        assert app.heard == [("done", "new list", LOOP)]
        assert not pane.working  # the last started has ended
        first_gate.set()
        # Another group's job, started after, is heard: by then the first has come back.
        in_thread(pane, lambda: "stats", app.hear("done"), group="stats", latest=True)
        await wait_for(pilot, lambda: len(app.heard) == 2, "the other group's result")
        assert app.heard == [("done", "new list", LOOP), ("done", "stats", LOOP)]


async def test_without_latest_every_job_is_delivered_and_working_waits_for_the_last() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        first_gate, first = _gated("one")
        second_gate, second = _gated("two")
        in_thread(pane, first, app.hear("done"))
        in_thread(pane, second, app.hear("done"))
        first_gate.set()
        await wait_for(pilot, lambda: app.heard, "the first result")
        assert app.heard == [("done", "one", LOOP)]
        assert pane.working  # the second, started later, still runs
        second_gate.set()
        await wait_for(pilot, lambda: len(app.heard) == 2, "the second result")
        assert app.heard[1] == ("done", "two", LOOP) and not pane.working


async def test_jobs_of_two_groups_count_apart() -> None:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(Pane)
        gate, slow = _gated("files")
        in_thread(pane, slow, app.hear("done"), group="files", latest=True)
        in_thread(pane, lambda: "stats", app.hear("done"), group="stats", latest=True)
        await wait_for(pilot, lambda: app.heard, "the stats")
        gate.set()
        await wait_for(pilot, lambda: len(app.heard) == 2, "the files too: the last of their group")
        assert sorted(app.heard) == [("done", "files", LOOP), ("done", "stats", LOOP)]
