"""MCP tools as agent tools: one `Tool` per server tool, run through the same registry path.

`mcp_tool(spec, catalog)` makes the tool `mcp__server__tool` (a class of
its own: a tool's name is a class attribute). Its arguments are passed to
the server as given (the server validates them against its schema and
answers a mistake as a tool error). A tool that its server does not mark
read-only, and that is not in the server's `allowed_tools`, needs the
user's approval, like `run_command`; so does one the server marks read-only
(`readOnlyHint` is a hint from an untrusted server: it narrows plan mode but
never skips the user), the request naming the server's hints. The result is rendered as text
(`cairn.mcp.results`: images noted by size and kept as artifacts, resource
links as `read_file('mcp:…')` references) and shortened like any tool
output: head and tail inline, the whole in an artifact. A result the server
marks as an error, or a call the server could not complete (it crashed, it
timed out), is a failed outcome the model reads.
"""

from __future__ import annotations

import functools
import json
from typing import Any, ClassVar

from pydantic import ConfigDict

from cairn.agent.tools.approval import check_tool_call
from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolOutcome, shorten_output
from cairn.mcp import McpCatalog, McpToolSpec
from cairn.mcp.results import StoreBinary, render_content
from cairn.mcp.tools import hint_words

# Characters of the arguments shown when asking the user to approve a call.
APPROVAL_ARGS_CHARS = 300
KEY_MCP_TOOL = "mcp_tool"
# Tool classes kept for reuse (one per namespaced name and description).
MAX_TOOL_CLASSES = 4096


class McpArgs(ToolArgs):
    """Any JSON object: the server checks its own arguments."""

    model_config = ConfigDict(extra="allow")

    def arguments(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def approval_text(spec: McpToolSpec, arguments: dict[str, Any]) -> str:
    """What the user is asked about: the tool, its arguments (shortened) and the server's
    hints about it."""
    shown = json.dumps(arguments, ensure_ascii=False)
    if len(shown) > APPROVAL_ARGS_CHARS:
        shown = shown[: APPROVAL_ARGS_CHARS - 1] + "…"
    words = hint_words(spec.read_only, spec.destructive, spec.open_world)
    said = f" (the server's hints: {', '.join(words)})" if words else ""
    return f"MCP tool {spec.server}/{spec.tool} {shown}{said}"


def artifact_store(ctx: ToolContext) -> StoreBinary | None:
    trace = ctx.trace
    if trace is None:
        return None
    return lambda data, kind: trace.write_artifact(data, kind)


class McpTool(Tool[McpArgs]):
    """Base of the tools `mcp_tool` makes (see the module docstring)."""

    name: ClassVar[str] = "mcp"
    description: ClassVar[str] = "A tool of an MCP server."
    args_model = McpArgs

    def __init__(self, spec: McpToolSpec, catalog: McpCatalog) -> None:
        self.spec = spec
        self.catalog = catalog

    def schema(self) -> dict[str, Any]:
        return self.spec.schema()

    async def run(self, args: McpArgs, ctx: ToolContext) -> ToolOutcome:
        spec, arguments = self.spec, args.arguments()
        if not spec.allowed:
            await check_tool_call(
                ctx,
                spec.ref,
                approval_text(spec, arguments),
                f"MCP tools ask first; add {spec.tool!r} to"
                f" mcp.servers.{spec.server}.allowed_tools or approve it",
            )
        result = await self.catalog.call_tool(spec, arguments, ctx.call_id)
        text = render_content(
            spec.server, result.content, result.structured_content, artifact_store(ctx)
        )
        shown, artifact_id = shorten_output(ctx, text)
        data: dict[str, Any] = {KEY_MCP_TOOL: spec.ref}
        if result.is_error:
            return ToolOutcome(
                output=f"error: {shown}", ok=False, artifact_id=artifact_id, data=data
            )
        return ToolOutcome(output=shown, artifact_id=artifact_id, data=data)


@functools.lru_cache(maxsize=MAX_TOOL_CLASSES)
def tool_class(name: str, description: str) -> type[McpTool]:
    """The subclass of `McpTool` named `name` (made once: making a class is slow)."""
    return type(f"McpTool[{name}]", (McpTool,), {"name": name, "description": description})


def mcp_tool(spec: McpToolSpec, catalog: McpCatalog) -> McpTool:
    """The tool `spec.name` (its own subclass of `McpTool`, named after it)."""
    return tool_class(spec.name, spec.description)(spec, catalog)
