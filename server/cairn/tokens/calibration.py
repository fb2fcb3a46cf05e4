"""Calibrating token counts per model from the input usage providers report.

Cairn counts with the model's own tokenizer where it has one, and with
`o200k_base` otherwise (Claude, Gemini…: `cairn.tokens.counter.tokenizer_for`
says which). Either way the provider may bill a request differently (its own
tokenizer, its chat template, how it renders tool schemas). After every call
whose usage the provider reported, the ratio `reported input / counted input`
is folded into a per-model factor (`observe`): the plain mean of the first
`FULL_WEIGHT_SAMPLES` calls, then an exponential moving average, each ratio
clamped to [`MIN_FACTOR`, `MAX_FACTOR`] and calls under `MIN_SAMPLE_TOKENS`
ignored (their fixed overhead says nothing about the tokenizer).

The factor is applied to the budget, not to the counts: block tokens stay
what the tokenizer says (cached by content, stable from call to call), and
the room for input is divided by the factor (`cairn.context.budget.Budget`),
so the blocks chosen fit what the provider will count. Dry runs and real
runs read the same factor (`Calibrations`), kept in the workspace's trace
folder as `token_calibration.json` (written through the trace store; a
read-only engine reads it and never writes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import Field, ValidationError

from cairn.models.base import WireModel
from cairn.tokens.model_info import SCRIPTED_PROVIDER

CALIBRATION_DOC = "token_calibration.json"
# Calls whose counted input is smaller than this teach nothing (fixed overhead dominates).
MIN_SAMPLE_TOKENS = 1_000
# A ratio outside these bounds is a misreport, not a tokenizer difference: clamped.
MIN_FACTOR = 0.5
MAX_FACTOR = 2.0
# The first calls are averaged with equal weight; later ones move the factor by this share.
FULL_WEIGHT_SAMPLES = 10
EMA_WEIGHT = 1 / FULL_WEIGHT_SAMPLES
# Factors are kept at this many decimals (the document stays readable and stable).
FACTOR_DECIMALS = 4


class ModelCalibration(WireModel):
    """One model's factor: provider input tokens per counted token, from `samples` calls."""

    factor: float = 1.0
    samples: int = 0


class CalibrationDoc(WireModel):
    """The `token_calibration.json` document: model → its calibration."""

    models: dict[str, ModelCalibration] = Field(default_factory=dict)


class Docs(Protocol):
    """Where the document lives (the trace store, or a read-only view of it)."""

    def read_doc(self, name: str) -> dict[str, Any] | None: ...

    def write_doc(self, name: str, data: dict[str, Any]) -> None: ...


def calibrates(model: str) -> bool:
    """Whether a model's reported usage is a measurement (the scripted model counts with
    Cairn's own counter, so its usage says nothing about a provider)."""
    return not model.startswith(SCRIPTED_PROVIDER + "/")


def observe(entry: ModelCalibration, counted: int, reported: int) -> ModelCalibration:
    """`entry` after one call of `counted` tokens (ours) that the provider reported as
    `reported` input tokens; unchanged when the call is too small to say anything."""
    if counted < MIN_SAMPLE_TOKENS or reported <= 0:
        return entry
    ratio = min(max(reported / counted, MIN_FACTOR), MAX_FACTOR)
    weight = max(1 / (entry.samples + 1), EMA_WEIGHT)
    factor = entry.factor + weight * (ratio - entry.factor)
    return ModelCalibration(factor=round(factor, FACTOR_DECIMALS), samples=entry.samples + 1)


def parse_doc(data: Mapping[str, Any] | None) -> CalibrationDoc:
    """The document, or an empty one when absent or unreadable (it is a cache of ratios:
    a damaged one is relearned, never an error)."""
    if data is None:
        return CalibrationDoc()
    try:
        return CalibrationDoc.model_validate(data)
    except ValidationError:
        return CalibrationDoc()


class Calibrations:
    """The workspace's per-model factors, read from and written to its document."""

    def __init__(self, docs: Docs | None) -> None:
        self.docs = docs

    def _doc(self) -> CalibrationDoc:
        if self.docs is None:
            return CalibrationDoc()
        try:
            return parse_doc(self.docs.read_doc(CALIBRATION_DOC))
        except (OSError, ValueError):  # unreadable: relearned
            return CalibrationDoc()

    def get(self, model: str) -> ModelCalibration:
        """The model's calibration (factor 1.0 before any reported call)."""
        return self._doc().models.get(model, ModelCalibration())

    def record(self, model: str, counted: int, reported: int) -> ModelCalibration:
        """Fold one reported call into the model's factor and save it; the new calibration."""
        doc = self._doc()
        before = doc.models.get(model, ModelCalibration())
        after = observe(before, counted, reported) if calibrates(model) else before
        if after != before and self.docs is not None:
            doc.models[model] = after
            self.docs.write_doc(CALIBRATION_DOC, doc.wire())
        return after
