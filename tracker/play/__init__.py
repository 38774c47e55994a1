"""Playing a fight: what a role may do, the requests a declaration makes, the session
that makes every change, the declare flow and the open encounter the screens share.
No Textual here (docs/contributing/architecture.md)."""
