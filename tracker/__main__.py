from tracker.command.cli import main

raise SystemExit(main())
