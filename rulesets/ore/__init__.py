"""One-Roll Engine ruleset adapter; see `rulesets.ore.ruleset` for the rules and decisions."""

from rulesets.ore.ruleset import OreRuleset

__all__ = ["OreRuleset"]
