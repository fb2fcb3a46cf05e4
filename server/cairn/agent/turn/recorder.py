"""What the turn loop records about tool calls besides their output.

The tools themselves report the ledger facts in `ToolOutcome.data` (the
path and content hash a `read_file` saw, the patch artifact of an
`edit_file`, the command, exit code and test flag of a `run_command`: keys
of `cairn.compaction.ledger`); they are stored as `ToolResultPart.data`.
`EditCapture` sits between the edit tool and the editor to keep each file's
text before and after, for the turn's patch. Outputs long enough to be worth
pruning get an artifact, so a prune stub can always name the full output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cairn.agent.api import CallSite, EditApplier, FileEdit, TextReader
from cairn.agent.sessions.snapshot import EditLog, current_text
from cairn.agent.tools import ToolOutcome
from cairn.files.workspace import Workspace
from cairn.trace import Trace

# Outputs at least this long get an artifact (shorter ones are not worth a prune stub).
ARTIFACT_MIN_CHARS = 400
OUTPUT_ARTIFACT_KIND = "tool"


@dataclass
class EditCapture:
    """Wraps the engine's `EditApplier` to see every whole-file edit a tool makes.

    The text before is the editor's when it serves reads (`reader`), else the
    workspace's; None for a file that does not exist yet.
    """

    workspace: Workspace
    inner: EditApplier | None
    reader: TextReader | None = None
    edits: list[FileEdit] = field(default_factory=list)

    async def _before(self, site: CallSite, path: Path) -> str | None:
        if self.reader is not None:
            text = await self.reader(site, path)
            if text is not None:
                return text
        return current_text(self.workspace, path)

    async def __call__(self, site: CallSite, path: Path, text: str) -> bool:
        before = await self._before(site, path)
        applied = await self.inner(site, path, text) if self.inner is not None else False
        self.edits.append(FileEdit(path, before, text))
        return applied

    def take(self) -> list[FileEdit]:
        edits, self.edits = self.edits, []
        return edits


def record_edits(workspace: Workspace, edits: list[FileEdit], edit_log: EditLog) -> None:
    """Add a call's whole-file edits to the turn's edit log (for the turn's patch)."""
    for edit in edits:
        edit_log.record(workspace.relative(edit.path), edit.before, edit.after)


def output_artifact(trace: Trace, outcome: ToolOutcome) -> str | None:
    """The artifact holding the full output: the tool's own, or a new one for long outputs."""
    if outcome.artifact_id is not None:
        return outcome.artifact_id
    if len(outcome.output) >= ARTIFACT_MIN_CHARS:
        return trace.write_artifact(outcome.output, OUTPUT_ARTIFACT_KIND)
    return None
