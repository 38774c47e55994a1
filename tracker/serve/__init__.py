"""The shared table over SSH (`tracker serve`): see server.py for the decisions taken."""

from tracker.serve.server import serve

__all__ = ["serve"]
