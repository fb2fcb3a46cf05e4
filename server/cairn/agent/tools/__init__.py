"""The agent's tools (DESIGN §2.6), one module per tool, and the registry that runs them.

`from cairn.agent.tools import ToolContext, ToolRegistry, default_registry, READ_ONLY_TOOLS`.
"""

from cairn.agent.tools.base import (
    ArtifactStore,
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
)
from cairn.agent.tools.diagnostics import Diagnostics
from cairn.agent.tools.edit_file import EditFile
from cairn.agent.tools.explore import Explore
from cairn.agent.tools.find_code import FindCode
from cairn.agent.tools.glob_files import Glob
from cairn.agent.tools.goal import Goal
from cairn.agent.tools.grep import Grep
from cairn.agent.tools.list_dir import ListDir
from cairn.agent.tools.read_file import ReadFile
from cairn.agent.tools.registry import ToolRegistry
from cairn.agent.tools.run_command import RunCommand
from cairn.context.sources.mode import READ_TOOLS

# Tools that never change the workspace: explore branches and plan/review modes get these.
READ_ONLY_TOOLS: tuple[str, ...] = tuple(READ_TOOLS)


def default_registry() -> ToolRegistry:
    """A registry of every tool, in the order the model sees them."""
    return ToolRegistry(
        [
            ReadFile(),
            ListDir(),
            Glob(),
            Grep(),
            FindCode(),
            Diagnostics(),
            EditFile(),
            RunCommand(),
            Goal(),
            Explore(),
        ]
    )


__all__ = [
    "READ_ONLY_TOOLS",
    "ArtifactStore",
    "Explore",
    "Goal",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolFailure",
    "ToolOutcome",
    "ToolRegistry",
    "default_registry",
]
