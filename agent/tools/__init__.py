"""Tools the model can call: the protocol, argument validation and built-in tools."""
