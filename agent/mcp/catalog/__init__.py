"""What a server offers besides tools: resources, templates, prompts, their cache and contents."""
