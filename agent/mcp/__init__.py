"""MCP servers: configuration documents, the versioned store, and (later) the runtime.

Only the runtime modules import the `mcp` SDK, and they are imported lazily, so configuration
commands stay fast.
"""

from agent.mcp.client.sdk_packages import defer_package_inits

# Before any module of ours imports the SDK: its package __init__ files wait until a name is
# asked of them (client/sdk_packages.py), so a client imports none of the SDK's server side.
defer_package_inits()
