"""Fixtures shared by the unit tests of the agent's tools."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.tools import ToolContext
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.settings import Settings, SettingsRef
from cairn.trace import Trace, TraceStore


@pytest.fixture
def trace(tmp_path: Path) -> Iterator[Trace]:
    """A fresh session trace (outside the workspace) for tool artifacts."""
    created = TraceStore(tmp_path / "traces").create(title="tool tests")
    yield created
    created.close()


def tool_context(
    root: Path, trace: Trace, allowed_commands: list[str] | None = None
) -> ToolContext:
    """A tool context on the single-folder workspace `root`, with default settings."""
    return ToolContext(
        workspace=Workspace([root]),
        config=SettingsRef(Settings()),
        trace=trace,
        ignore=IgnoreRules.for_folder(root),
        allowed_commands=list(allowed_commands or []),
    )
