"""Segment-timeline combat tracker for tabletop role-playing games."""

__version__ = "0.1.0"

from tracker import compiled as _compiled

# Before any dataclass of the tracker's or Textual's is made (tracker.compiled).
_compiled.install()
