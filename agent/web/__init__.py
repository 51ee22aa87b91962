"""The browser front end: the MCP console's bridge (Starlette on uvicorn) and its static page."""
