"""Command-line programs as MCP tools: filling the command line, running it, the server."""
