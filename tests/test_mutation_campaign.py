"""Direct tests of tracker.campaign: what it promises, one case per rule (mutation run)."""
