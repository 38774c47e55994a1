"""Segment-timeline combat tracker for tabletop role-playing games."""

__version__ = "0.1.0"
