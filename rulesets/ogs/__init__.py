"""OGS ruleset adapter; see `rulesets.ogs.ruleset` for the rules and decisions."""

from rulesets.ogs.ruleset import OgsRuleset

__all__ = ["OgsRuleset"]
