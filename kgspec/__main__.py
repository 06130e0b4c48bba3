from kgspec.cli import main

raise SystemExit(main())
