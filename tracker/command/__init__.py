"""The command line: the `tracker` command (cli.py), its words (parser.py), shell
completion, the hints for a missing extra and the `tracker campaign` command. The top
floor: it stands on everything else (docs/contributing/architecture.md)."""
