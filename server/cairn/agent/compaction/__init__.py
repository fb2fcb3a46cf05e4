"""Compaction orchestration: when a session compacts, the compaction call, and the cache breaks it weighs."""
