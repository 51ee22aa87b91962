"""The chat engine: conversation and its turn, events, approval, system prompt, one chat's
state, and building a chat from settings. It knows no terminal: nothing here imports
agent.ui, agent.web, agent.commands or agent.cli."""
