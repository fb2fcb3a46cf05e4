"""Compaction orchestration: when a session compacts, the compaction call, and the prompt-cache state it weighs."""
