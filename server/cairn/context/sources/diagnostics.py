"""Source: the editor's diagnostics (every provider), most severe and nearest first.

One block per file, so selection keeps or drops a file's diagnostics whole.
Files are ordered by their most severe diagnostic, then by how near they are
to the files in play (the file itself, then its folder, then by the folder
steps between them). Diagnostics of files in play and of their folders get
`PRIORITY_DIAGNOSTICS`, the others `PRIORITY_LOW_RELEVANCE` (with no file in
play, all count as in play). A diagnostic without a severity counts as an
error (LSP leaves it to the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_DIAGNOSTICS, PRIORITY_LOW_RELEVANCE
from cairn.files.workspace import Workspace
from cairn.models.diagnostics import Diagnostic

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
DEFAULT_SEVERITY = 1
# Distance of a file that shares no folder with any file in play.
FAR_AWAY = 1_000
# Files at most this far from a file in play (same folder) count as in play.
NEAR_DISTANCE = 1


def _severity(diagnostic: Diagnostic) -> int:
    return diagnostic.severity or DEFAULT_SEVERITY


def distance(path: Path, files_in_play: Sequence[Path]) -> int:
    """0 for a file in play, 1 for a file in the same folder, else 1 + the folder steps between."""
    best = FAR_AWAY
    for target in files_in_play:
        if path == target:
            return 0
        if path.parent == target.parent:
            best = min(best, 1)
            continue
        common = 0
        for a, b in zip(path.parent.parts, target.parent.parts, strict=False):
            if a != b:
                break
            common += 1
        steps = (len(path.parent.parts) - common) + (len(target.parent.parts) - common)
        best = min(best, 1 + steps)
    return best


def format_diagnostic(diagnostic: Diagnostic, rel: str) -> str:
    start = diagnostic.range.start
    severity = SEVERITY_NAMES.get(_severity(diagnostic), "error")
    origin = " ".join(
        str(x) for x in (diagnostic.source, diagnostic.code) if x is not None and x != ""
    )
    suffix = f" [{origin}]" if origin else ""
    return f"{rel}:{start.line + 1}:{start.character + 1}: {severity}: {diagnostic.message}{suffix}"


def diagnostics_candidates(
    workspace: Workspace, files_in_play: Sequence[Path], count: Count
) -> list[Candidate]:
    """One section per file with diagnostics, most severe and nearest first."""
    ranked: list[tuple[int, int, str, Path, list[Diagnostic]]] = []
    for path, diagnostics in workspace.diagnostics_for().items():
        if not diagnostics:
            continue
        worst = min(_severity(d) for d in diagnostics)
        ranked.append((worst, distance(path, files_in_play), str(path), path, diagnostics))
    ranked.sort(key=lambda item: item[:3])
    out: list[Candidate] = []
    for _, near, _, path, diagnostics in ranked:
        rel = workspace.relative(path)
        ordered = sorted(
            diagnostics, key=lambda d: (_severity(d), d.range.start.line, d.range.start.character)
        )
        body = "\n".join(format_diagnostic(d, rel) for d in ordered)
        relevant = not files_in_play or near <= NEAR_DISTANCE
        priority = PRIORITY_DIAGNOSTICS if relevant else PRIORITY_LOW_RELEVANCE
        out.append(
            section(
                "diagnostics",
                priority,
                f"Diagnostics: {rel}",
                body,
                count=count,
                ref=rel,
                kind="log",
            )
        )
    return out
