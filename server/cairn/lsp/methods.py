"""The name of every `cairn/*` method and `cairn.*` command (PROTOCOL.md), defined once.

Plain strings with no imports, so `features.py` can register the handlers
before pydantic or the engine are loaded. `contract.py` pairs each method
with its params and result models; the extension's `Method` and
`ServerCommand` constants are generated from this module
(`tools/gen_contracts.py`).
"""

from __future__ import annotations

from typing import Final

# Client → server notifications.
DIAGNOSTICS: Final = "cairn/diagnostics"

# Client → server requests.
TURN: Final = "cairn/turn"
CONTEXT_STATS: Final = "cairn/contextStats"
CONTEXT_MANIFEST: Final = "cairn/contextManifest"
GOAL_TREE: Final = "cairn/goalTree"
GOAL: Final = "cairn/goal"
COMPACT: Final = "cairn/compact"
SESSIONS: Final = "cairn/sessions"
FORK: Final = "cairn/fork"
DELETE_SESSION: Final = "cairn/deleteSession"
NEW_SESSION: Final = "cairn/newSession"
TRANSCRIPT: Final = "cairn/transcript"
RESTORE: Final = "cairn/restore"
MODELS: Final = "cairn/models"
PROJECT_PROFILE: Final = "cairn/projectProfile"
MCP_SERVERS: Final = "cairn/mcpServers"
MCP_CONTROL: Final = "cairn/mcpControl"

# Server → client requests (sent only to a client that declares them, see below).
APPROVAL: Final = "cairn/approval"

# Server → client notifications.
GOAL_TREE_CHANGED: Final = "cairn/goalTreeChanged"
COMPACTION: Final = "cairn/compaction"
TURN_EVENT: Final = "cairn/turnEvent"
CONTEXT_STATS_CHANGED: Final = "cairn/contextStatsChanged"
MCP_STATUS: Final = "cairn/mcpStatus"

# Test builds only (`CAIRN_LSP_DEBUG=1`): not part of the protocol.
DEBUG: Final = "cairn/_debug"

# `initialize`: the client capabilities Cairn reads from `capabilities.experimental`.
EXPERIMENTAL_SECTION: Final = "cairn"
APPROVALS_CAPABILITY: Final = "approvals"

# `workspace/applyEdit` labels: the agent's own edits, and a checkpoint restore's.
AGENT_EDIT_LABEL: Final = "Cairn"
RESTORE_EDIT_LABEL: Final = "Cairn: restore"

# `workspace/executeCommand` commands.
FIX_COMMAND: Final = "cairn.fix"
COMPACT_COMMAND: Final = "cairn.compact"
FORK_COMMAND: Final = "cairn.fork"
