"""The terminal: input, rendering, dialogs. The only package that imports prompt_toolkit."""
