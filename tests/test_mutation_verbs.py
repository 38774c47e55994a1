"""Direct tests of tracker.verbs: what it promises, one case per rule (mutation run)."""
