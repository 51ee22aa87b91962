"""MCP servers: configuration documents, the versioned store, and (later) the runtime.

Only the runtime modules import the `mcp` SDK, and they are imported lazily, so configuration
commands stay fast.
"""
