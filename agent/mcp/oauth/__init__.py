"""Signing in to remote servers: login, callback, probe, revoke, tokens, the plain-http rule."""
