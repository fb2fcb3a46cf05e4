"""Cairn: a context engine for in-editor coding agents.

The package is split into a pure core (models, goals, context, code,
compaction) and edges that do I/O (trace, llm, agent, lsp, cli).
"""

__version__ = "0.1.0"
