"""Subcommands (`agent mcp ...`), one module per family; cli.py parses and dispatches."""
