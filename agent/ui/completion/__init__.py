"""Tab completion at the prompt: commands, @mentions, prompt arguments, URI templates."""
