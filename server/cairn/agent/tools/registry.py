"""The tool registry: schemas for the model, and running a call without ever raising.

`run` turns every way a call can go wrong — an unknown tool, arguments that
do not validate, a refused path, a failing command, a bug in a tool — into a
failed `ToolOutcome` whose text the model reads (`error: ...`), so the turn
goes on. Only cancellation propagates.

The engine's registry holds the built-in tools; a turn's registry adds the
tools of its MCP servers (`with_tools`), one `Tool` class per MCP tool
(their names are only known at run time).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from cairn.agent.tools.base import Tool, ToolContext, ToolOutcome
from cairn.errors import CairnError, InvalidRequestError

_log = logging.getLogger(__name__)

# Validation problems listed in one error message; the rest are counted.
MAX_REPORTED_ARG_ERRORS = 5


def summarize_validation(name: str, error: ValidationError) -> str:
    """`invalid arguments for read_file: path: Field required; ...` (one line)."""
    problems = []
    for item in error.errors()[:MAX_REPORTED_ARG_ERRORS]:
        where = ".".join(str(p) for p in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown argument"
        problems.append(f"{where}: {message}" if where else message)
    extra = error.error_count() - len(problems)
    more = f"; and {extra} more" if extra > 0 else ""
    return f"invalid arguments for {name}: " + "; ".join(problems) + more


class ToolRegistry:
    """The tools a session can call, by name."""

    def __init__(self, tools: Iterable[Tool[Any]]) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools named {tool.name!r}")
            self._tools[tool.name] = tool

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def with_tools(self, extra: Iterable[Tool[Any]]) -> ToolRegistry:
        """A registry of these tools and `extra` (a turn's MCP tools); names must not clash."""
        return ToolRegistry([*self._tools.values(), *extra])

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of `names` (all tools when None), in that order."""
        chosen = self.names() if names is None else list(names)
        unknown = [n for n in chosen if n not in self._tools]
        if unknown:
            raise InvalidRequestError(f"unknown tools: {', '.join(unknown)}")
        return [self._tools[n].schema() for n in chosen]

    async def run(
        self, name: str, raw_args: Mapping[str, Any] | None, ctx: ToolContext
    ) -> ToolOutcome:
        """Validate and run one call; every failure becomes `ToolOutcome(ok=False)`."""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self.names())
            return ToolOutcome.failure(f"unknown tool {name!r}; available: {available}")
        if raw_args is not None and not isinstance(raw_args, Mapping):
            return ToolOutcome.failure(f"arguments for {name} must be a JSON object")
        try:
            args = tool.args_model.model_validate(dict(raw_args or {}))
        except ValidationError as exc:
            return ToolOutcome.failure(summarize_validation(name, exc))
        try:
            return await tool.run(args, ctx)
        except CairnError as exc:
            return ToolOutcome.failure(str(exc))
        except Exception as exc:
            _log.exception("tool %s failed", name)
            return ToolOutcome.failure(f"{name} failed: {type(exc).__name__}: {exc}")
