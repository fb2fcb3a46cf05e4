"""What a turn is asked to do, fixed at its start: models, mode, message, references, fix.

`TurnInputs` is frozen; it names the model of each role (the main model;
the compaction and explore models, each the main one unless set). What
changes while a turn runs (the files it edited, read, searched or listed)
lives in its `TurnScope`.

Files in play select the nearer `AGENTS.md` rules, the diagnostics and
the repository map's ranking. They are, in this order: the active editor
file (the `active_buffers` most recently opened or edited buffers), the
referenced files, the files the turn edited, the file of the diagnostic
being fixed (`files_in_play`: these are also shown as buffers), then the
files the turn read, searched into or listed (`seen_in_play`: their text
is already in the history, so only their rules, diagnostics and ranking
come into play — from the call after the read). The editor's other open
tabs are not in play (`cairn.context.sources.buffers` shows a few of
them, small and last). A fix turn also carries the diagnostic with
`FIX_CONTEXT_LINES` lines around it.
`user_parts` is the user's message as recorded: its text, then one file part
(path and content hash) per referenced file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.agent.api import FixTarget
from cairn.context.blocks import make_block
from cairn.context.mentions import turn_references
from cairn.context.priorities import PRIORITY_REFERENCE
from cairn.context.sources.diagnostics import format_diagnostic
from cairn.errors import CairnError, NoModelError
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.llm.guide import no_model_message
from cairn.models.manifest import ContextBlock
from cairn.models.messages import FilePart, Part, TextPart
from cairn.settings import DEFAULT_ACTIVE_BUFFERS, Mode, Role, Settings
from cairn.tokens.counter import counter_for

FIX_CONTEXT_LINES = 20


@dataclass(frozen=True)
class TurnInputs:
    """The request of one turn (or explore branch, or dry run); never changed once made."""

    model: str
    mode: Mode
    user_message: str = ""
    references: tuple[str, ...] = ()
    fix: FixTarget | None = None
    # The other roles' models; None means the main model.
    compaction_model: str | None = None
    explore_model: str | None = None
    # An explore branch's parent model (the branch runs on `model`, the explore model):
    # the provider settings belong to the main agent's provider.
    parent_model: str | None = None

    @property
    def main_model(self) -> str:
        """The main agent's model (whose provider the provider settings are for)."""
        return self.parent_model or self.model

    def model_for(self, role: Role) -> str:
        """The model of `role` in this turn."""
        if role == "compaction":
            return self.compaction_model or self.model
        if role == "explore":
            return self.explore_model or self.model
        return self.model


def turn_inputs(
    settings: Settings,
    workspace: Workspace,
    env: Mapping[str, str],
    model: str | None,
    mode: Mode | None = None,
    message: str = "",
    references: Sequence[str] = (),
    fix: FixTarget | None = None,
) -> TurnInputs:
    """The inputs of a main-agent turn on `model` (the settings' mode unless `mode`; the
    message's `@` references joined to `references`); no model is NoModelError with the
    setup guide for `env`."""
    if model is None:
        raise NoModelError(no_model_message(env))
    return TurnInputs(
        model=model,
        mode=mode or settings.mode,
        user_message=message,
        references=turn_references(workspace, message, references),
        fix=fix,
        compaction_model=settings.compaction_model,
        explore_model=settings.explore_model,
    )


def referenced_files(workspace: Workspace, references: Sequence[str]) -> list[Path]:
    """The references that name files inside the workspace (others are the builder's to report)."""
    out: list[Path] = []
    for ref in references:
        try:
            path = workspace.resolve(ref.lstrip("@"))
        except CairnError:
            continue
        if path.is_file():
            out.append(path)
    return out


def active_buffers(workspace: Workspace, how_many: int = DEFAULT_ACTIVE_BUFFERS) -> list[Path]:
    """The `how_many` most recently opened or edited editor buffers, the latest first."""
    if how_many <= 0:
        return []
    return list(reversed(list(workspace.open_paths())))[:how_many]


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: set[Path] = set()
    return [p for p in paths if not (p in seen or seen.add(p))]


def user_parts(workspace: Workspace, message: str, references: Sequence[str]) -> list[Part]:
    """The user's message as recorded: the text, then each readable referenced file's hash."""
    parts: list[Part] = [TextPart(text=message)]
    for path in referenced_files(workspace, list(references)):
        try:
            text = workspace.read_text(path)
        except OSError:
            continue
        parts.append(FilePart(path=workspace.relative(path), hash=content_hash(text)))
    return parts


def files_in_play(
    workspace: Workspace,
    inputs: TurnInputs,
    edited: Sequence[Path] = (),
    *,
    active: int = DEFAULT_ACTIVE_BUFFERS,
) -> list[Path]:
    """The active editor file(s), referenced files, edited files and the fix target, once each
    (the files in play that are shown as buffers)."""
    ordered: list[Path] = active_buffers(workspace, active)
    ordered += referenced_files(workspace, inputs.references)
    ordered += edited
    if inputs.fix is not None:
        ordered.append(inputs.fix.path)
    return _unique(ordered)


def seen_in_play(shown: Sequence[Path], seen: Sequence[Path]) -> list[Path]:
    """The files (and folders) the turn read, searched or listed that are not already in
    play as `shown`: in play for their rules, diagnostics and ranking, not shown again."""
    known = set(shown)
    return [p for p in _unique(seen) if p not in known]


def fix_block(workspace: Workspace, fix: FixTarget, model: str) -> ContextBlock:
    """The diagnostic to fix, with the numbered lines around it."""
    diagnostic = fix.diagnostic
    line = diagnostic.range.start.line
    try:
        lines = workspace.read_text(fix.path).splitlines()
    except OSError:
        lines = []
    first = max(line - FIX_CONTEXT_LINES, 0)
    last = min(line + FIX_CONTEXT_LINES, len(lines) - 1)
    width = len(str(last + 1))
    excerpt = "\n".join(f"{n + 1:>{width}}| {lines[n]}" for n in range(first, last + 1))
    rel = workspace.relative(fix.path)
    text = f"## Fix this diagnostic\n{format_diagnostic(diagnostic, rel)}\n```\n{excerpt}\n```"
    return make_block(
        "diagnostics",
        PRIORITY_REFERENCE,
        text,
        count=counter_for(model),
        ref=rel,
        required=True,
    )
