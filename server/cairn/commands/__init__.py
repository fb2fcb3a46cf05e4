"""Implementations of the CLI commands, one module per command (wired in `cairn.cli`)."""
