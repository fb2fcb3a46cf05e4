"""What an explore branch is offered and what it may run: the parent's tools, read-only per call.

A branch's request starts with its parent's prefix (tools, system, preamble,
history) so the provider serves that prefix from the cache the parent's calls
wrote (DESIGN §2.3, "Explore branches"): its tool offer is therefore the
parent's offer, the same schemas in the same order (`branch_offer`: a copy, so
a tool a branch's `tool_search` reveals is not offered to the parent), not a
read-only subset. Read-only is enforced when a call arrives instead
(`branch_refusal`): the read tools, `tool_search` and MCP tools their server
marks read-only run; a call that would change the workspace, run a command,
change the plan or explore further is refused with a result that says so and
names the tools that do run, so the model can go on reading.
"""

from __future__ import annotations

from dataclasses import replace

from cairn.agent.scope.offer import ToolOffer
from cairn.agent.tools import READ_ONLY_TOOLS
from cairn.agent.tools.mcp_tool import McpTool
from cairn.agent.tools.tool_search import ToolSearch

BRANCH_REFUSAL = (
    "tool {name!r} is not available in a read-only explore branch: a branch reads and"
    " searches, it does not change files, run commands, change the plan or explore further."
    " Investigate with {allowed} and end with your conclusion; the main agent acts on it."
)


def branch_offer(parent: ToolOffer) -> ToolOffer:
    """The parent's offer for a branch: the same tools in the same order, its own `found`."""
    return replace(parent, found=list(parent.found))


def runs_in_branch(offer: ToolOffer, name: str) -> bool:
    """Whether a branch runs `name`: a read tool, `tool_search`, or a read-only MCP tool."""
    if name in READ_ONLY_TOOLS or name == ToolSearch.name:
        return True
    tool = offer.registry.get(name)
    return isinstance(tool, McpTool) and tool.spec.read_only


def branch_refusal(offer: ToolOffer, name: str) -> str | None:
    """Why a branch does not run a call of `name` (None when it does)."""
    if runs_in_branch(offer, name):
        return None
    allowed = [n for n in offer.offered() if runs_in_branch(offer, n)]
    return BRANCH_REFUSAL.format(name=name, allowed=", ".join(allowed) or "the read tools")
