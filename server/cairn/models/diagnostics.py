"""Editor diagnostics as the core sees them (translated from LSP by the server)."""

from __future__ import annotations

from typing import Literal

from cairn.models.base import WireModel

# LSP severities: 1 error, 2 warning, 3 information, 4 hint.
Severity = Literal[1, 2, 3, 4]


class Position(WireModel):
    line: int
    character: int


class Range(WireModel):
    start: Position
    end: Position


class Diagnostic(WireModel):
    """One diagnostic of one provider for one document (shape of LSP `Diagnostic`)."""

    range: Range
    message: str
    severity: Severity | None = None
    source: str | None = None
    code: str | int | None = None
