"""Campaigns: a party that goes from fight to fight (docs/campaigns.md).

`model` folds a campaign's events (pure); `store` keeps its file; `fights` starts and
ends its fights; `rest` recovers between them; `reading` answers `show`, `stats` and
the exports; `command` is the `tracker campaign` command line.
"""
