"""Priorities of context sources (higher survives longer) and the share policy.

The order is DESIGN §2.3's: harness rules and the current user message are
never dropped, and neither is the ledger (small and bounded, from the
records) nor the summary (within its reserved share); then explicit references, project rules, mode rules, the
plan, diagnostics/diff/buffers in play, recent history, the compacted
summary, the repository map, the project profile, and last (first to go)
older tool outputs, large logs and low-relevance files.
"""

from __future__ import annotations

from typing import Final

PRIORITY_SYSTEM: Final = 100
PRIORITY_USER: Final = 95
# Required anyway (never dropped): the priority only orders it among the required.
PRIORITY_LEDGER: Final = 92
PRIORITY_REFERENCE: Final = 90
# The turn's latest step (the newest tool calls and their results): what the agent
# just asked for outranks everything but references and the required blocks.
PRIORITY_LATEST_STEP: Final = 88
PRIORITY_RULES: Final = 85
PRIORITY_MODE: Final = 80
PRIORITY_PLAN: Final = 75
PRIORITY_DIAGNOSTICS: Final = 70
PRIORITY_DIFF: Final = 66
PRIORITY_BUFFER: Final = 62
PRIORITY_HISTORY_RECENT: Final = 55
PRIORITY_SUMMARY: Final = 50
PRIORITY_HISTORY_OLD: Final = 45
PRIORITY_REPOMAP: Final = 40
PRIORITY_PROFILE: Final = 35
PRIORITY_LOW_RELEVANCE: Final = 20
PRIORITY_OLD_TOOL_OUTPUT: Final = 10

# Share policy. A single non-required block may use at most this fraction of the
# input budget; a larger one is degraded (outline / log excerpt) or dropped, so one
# huge file cannot crowd out everything below it.
MAX_BLOCK_SHARE: Final = 0.5
# A minified text (very long lines: a bundle, one-line JSON) larger than this is never
# shown whole, whatever the window: whole it costs its size on every call of a turn and
# reads as noise; its one-line form names where the text is and read_file shows a range.
MINIFIED_WHOLE_MAX_TOKENS: Final = 2_000
# The summary's reserved share of the input budget: it is required (never dropped)
# and rendered to fit this share (`cairn.context.sources.summary.fit_summary`).
SUMMARY_SHARE: Final = 0.2
# The repository map's budget (`cairn.context.sources.repomap.repomap_budget`): a fixed
# modest size (Aider's default map is 1k tokens), never above REPOMAP_SHARE of the input
# budget, shrunk by the share of the map's files the session has read; none when under
# REPOMAP_MIN_TOKENS.
REPOMAP_MAX_TOKENS: Final = 1_024
REPOMAP_SHARE: Final = 0.1
REPOMAP_MIN_TOKENS: Final = 256
# The map's cap follows the window and the provider's prompt-cache read price
# (`sources.repomap.map_cap`; `repo_map_tokens` overrides): REPOMAP_MAX_TOKENS under
# REPOMAP_MID_WINDOW; under REPOMAP_LARGE_WINDOW REPOMAP_MID_TOKENS with a prompt cache,
# REPOMAP_MAX_TOKENS without; from there REPOMAP_CACHED_TOKENS with a cache (the map is
# paid in full once, then at the read price) and REPOMAP_UNCACHED_TOKENS without (paid in
# full on every call).
REPOMAP_MID_WINDOW: Final = 64_000
REPOMAP_MID_TOKENS: Final = 2_048
REPOMAP_LARGE_WINDOW: Final = 128_000
REPOMAP_CACHED_TOKENS: Final = 8_192
REPOMAP_UNCACHED_TOKENS: Final = 4_096
# History: messages of this many most recent user turns get PRIORITY_HISTORY_RECENT;
# older ones PRIORITY_HISTORY_OLD (text) or PRIORITY_OLD_TOOL_OUTPUT (tool calls).
RECENT_TURNS: Final = 2
