"""The MCP documents people write and what we keep of them, up to the launch a server expands to."""
