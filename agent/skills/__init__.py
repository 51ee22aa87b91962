"""Agent Skills (agentskills.io): SKILL.md parsing, discovery, trust, catalog and activation."""
