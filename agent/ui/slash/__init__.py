"""Slash commands in the chat and what they show: /mcp, /context, MCP prompts as commands."""
