"""File work for the screens, off the event loop.

A campaign change reads and writes its file (and a fight's) under their locks: the
screens hand that work to a thread (`in_thread`) and hear of the result, or of the
refusal's message, back on the event loop. A bug in the job is reported as any handler's
is (tracker.ui.guard), never lost with the thread. A screen gone by the time the job
ends is not called back: what the job did is on disk, and the screen under it reads it
again when it shows. A screen with a `working` attribute has it set while its job runs:
the key hold keeps the keys typed meanwhile for when it is done (tracker.ui.guard.busy),
so a burst lands where slow typing would. A job started with `latest=True` is one
reading among others in its group (the folder listed again, the statistics computed
again): only the last one started is delivered, since an older one finishing later
would show what was there before (a save just deleted, listed again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.dom import DOMNode

from tracker.engine import TrackerError
from tracker.ui import guard

T = TypeVar("T")


def in_thread(
    node: DOMNode, job: Callable[[], T], done: Callable[[T], None], refused: Callable[[str], None] | None = None, group: str = "files", latest: bool = False
) -> None:
    """Run `job` on a thread; then `done(result)`, or `refused(message)` for a
    TrackerError (default: a notification), on the event loop, while `node` is mounted
    (and, with `latest`, while no later job of its group has been started)."""
    app = node.app
    started: dict[str, int] = node.__dict__.setdefault("_in_thread_started", {})
    started[group] = number = started.get(group, 0) + 1

    def back(call: Callable[..., None], *args: Any) -> None:
        def deliver() -> None:
            last = started[group] == number  # no later job of the group is under way
            if last and hasattr(node, "working"):
                setattr(node, "working", False)
            if latest and not last:
                return
            if node.is_attached:
                call(*args)

        try:
            app.call_from_thread(deliver)
        except RuntimeError:  # the app has stopped
            pass

    def tell(message: str) -> None:
        if refused is not None:
            refused(message)
        else:
            app.notify(message, severity="error", timeout=8)

    def run() -> None:
        try:
            result = job()
        except TrackerError as exc:
            back(tell, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a bug: reported, as in any handler
            back(guard.report, app, exc)
            return
        back(done, result)

    if hasattr(node, "working"):
        setattr(node, "working", True)
    # A worker of the app, not of `node`: Textual cancels a node's workers as it goes,
    # and a job whose thread had not started yet would never run (its file work lost).
    app.run_worker(run, thread=True, group=group, exit_on_error=False)
