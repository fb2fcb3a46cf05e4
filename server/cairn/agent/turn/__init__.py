"""The turn loop: model calls, tool calls and their records, explore branches, overflow recovery."""
