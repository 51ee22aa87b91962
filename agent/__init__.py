"""agent: an MCP-native terminal chat agent."""

__version__ = "0.1.0"
