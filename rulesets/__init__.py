"""Ruleset adapters: one package per game, each with its data tables as TOML."""
