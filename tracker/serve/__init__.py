"""The shared table over SSH (`tracker serve`): see server.py for what it is and its parts."""
