"""Direct tests of tracker.charts: what it promises, one case per rule (mutation run)."""
