"""Direct tests of tracker.stats: what it promises, one case per rule (mutation run)."""
