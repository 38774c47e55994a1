"""Direct tests of tracker.recent: what it promises, one case per rule (mutation run)."""
