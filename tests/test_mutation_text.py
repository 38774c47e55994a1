"""Direct tests of tracker.text: what it promises, one case per rule (mutation run)."""
