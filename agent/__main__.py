"""`python -m agent` runs the same entry point as the `agent` script."""

from agent.cli import main

raise SystemExit(main())
