"""Compaction policy as small pure functions: prune, structured summary, goal folding.

Nothing here does I/O or calls a model. The agent (`cairn.agent.compaction.compactor`)
decides when to run them, makes the compaction model call and records the
resulting `CompactionPart` markers in the trace; the context builder applies
the markers when it renders history. The trace always keeps the originals.
"""
