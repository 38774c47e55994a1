"""What a role sees of a fight: who may know what (roles, viewing), the words of the
log and the changes, recent actions, the report, statistics, charts and exports, a
campaign's reading. No Textual here (docs/contributing/architecture.md)."""
