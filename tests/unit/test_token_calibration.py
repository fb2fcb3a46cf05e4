"""Token counts calibrated per model from the input usage a provider reports.

The factor is learned from real calls (a local OpenAI-compatible server on
127.0.0.1 that bills more tokens than Cairn counts), kept under `.cairn/`,
applied to the budget from the next turn on, shown in the stats, and read the
same way by a dry run (`cairn context`) as by a real run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from math import floor
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.agent.read_only import ReadOnlyEngine
from cairn.context.budget import Budget
from cairn.context.gather import budget_for
from cairn.settings import Settings
from cairn.tokens.calibration import (
    CALIBRATION_DOC,
    FULL_WEIGHT_SAMPLES,
    MAX_FACTOR,
    MIN_SAMPLE_TOKENS,
    Calibrations,
    ModelCalibration,
    observe,
)
from cairn.trace import TraceStore
from tests.fakes.openai_server import OpenAIServer, Reply

MODEL = "openai/fixture-model"
# The fake provider bills this many times what it would count itself.
BILLING_SCALE = 1.5
WINDOW = 60_000
OUTPUT = 1_000
RULES = "# Rules\n" + "".join(f"- rule {i}: keep the code tidy and tested.\n" for i in range(80))
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(120))


class BillingServer(OpenAIServer):
    """A provider whose tokenizer counts `BILLING_SCALE` times more than o200k_base."""

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        usage = super()._usage(body, reply)
        usage["prompt_tokens"] = round(usage["prompt_tokens"] * BILLING_SCALE)
        return usage


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with BillingServer() as running:
        monkeypatch.setenv("OPENAI_API_BASE", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield running


def _settings() -> Settings:
    return Settings.model_validate(
        {
            "model": MODEL,
            "context_window": WINDOW,
            "max_output_tokens": OUTPUT,
            "allowed_commands": [],
        }
    )


def test_the_first_calls_are_averaged_then_a_moving_average_follows() -> None:
    entry = ModelCalibration()
    ratios = [1.2, 1.4, 1.3]
    for ratio in ratios:
        entry = observe(entry, 10_000, round(10_000 * ratio))
    assert entry.samples == len(ratios)
    assert entry.factor == pytest.approx(sum(ratios) / len(ratios), abs=1e-3)
    for _ in range(FULL_WEIGHT_SAMPLES * 5):
        entry = observe(entry, 10_000, 20_000 - 1)
    assert entry.factor == pytest.approx(2.0, abs=0.01)


def test_small_calls_and_misreports_do_not_move_the_factor_far() -> None:
    entry = ModelCalibration(factor=1.1, samples=3)
    assert observe(entry, MIN_SAMPLE_TOKENS - 1, 10 * MIN_SAMPLE_TOKENS) == entry
    assert observe(entry, 5_000, 0) == entry
    wild = observe(ModelCalibration(), 5_000, 500_000)
    assert wild.factor == MAX_FACTOR


def test_the_factor_divides_the_room_for_input() -> None:
    plain = Budget(context_window=10_000, max_output_tokens=1_000, tool_schema_tokens=500)
    calibrated = Budget(
        context_window=10_000, max_output_tokens=1_000, tool_schema_tokens=500, calibration=1.25
    )
    room = 10_000 - 1_000 - plain.safety_margin
    assert plain.available_input == room - 500
    assert calibrated.available_input == floor(room / 1.25) - 500


def test_a_window_the_provider_stated_is_not_scaled_again() -> None:
    """A learned window is already in our counter's units (`learned_window`)."""
    settings = _settings()
    scaled, _ = budget_for(MODEL, settings, [], calibration=1.25)
    learned, _ = budget_for(MODEL, settings, [], window_limit=20_000, calibration=1.25)
    assert learned.available_input == 20_000 - OUTPUT - settings.safety_margin
    assert learned.available_input < scaled.available_input
    loose, _ = budget_for(MODEL, settings, [], window_limit=WINDOW - 10, calibration=1.25)
    assert loose.available_input == scaled.available_input


def test_a_damaged_document_is_relearned(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / ".cairn")
    (tmp_path / ".cairn").mkdir()
    (tmp_path / ".cairn" / CALIBRATION_DOC).write_text('{"models": {"m": {"factor": "x"}}}')
    calibrations = Calibrations(store)
    assert calibrations.get("m") == ModelCalibration()
    calibrations.record("m", 10_000, 12_000)
    assert calibrations.get("m").samples == 1


def test_scripted_usage_never_calibrates(tmp_path: Path) -> None:
    calibrations = Calibrations(TraceStore(tmp_path / ".cairn"))
    calibrations.record("scripted/x.jsonl", 10_000, 30_000)
    assert calibrations.get("scripted/x.jsonl") == ModelCalibration()
    assert not (tmp_path / ".cairn" / CALIBRATION_DOC).exists()


def test_reported_usage_calibrates_the_next_turn_and_the_dry_run_alike(
    tmp_path: Path, server: OpenAIServer
) -> None:
    (tmp_path / "AGENTS.md").write_text(RULES)
    (tmp_path / "mod.py").write_text(MODULE)
    engine = Engine([tmp_path], _settings())
    server.queue(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "mod.py"}}]),
        Reply(text="Read."),
        Reply(text="Again."),
    )
    first = asyncio.run(engine.turn("Read mod.py."))
    assert first.finish_reason == "stop", first.error
    manifests = engine.store.open(first.session_id).manifests()
    assert len(manifests) == 2
    ratios = []
    for manifest in manifests:
        stats = manifest.stats
        assert stats is not None and manifest.usage is not None
        # Frozen for the turn: the factor learned from call 1 waits for the next turn.
        assert stats.tokens.factor == 1.0
        assert stats.tokens.exact is False and stats.tokens.tokenizer == "o200k_base"
        counted = stats.used_input + stats.tool_schema_tokens
        assert counted >= MIN_SAMPLE_TOKENS
        ratios.append(manifest.usage.input_tokens / counted)
    doc = json.loads((tmp_path / ".cairn" / CALIBRATION_DOC).read_text())
    learned = ModelCalibration.model_validate(doc["models"][MODEL])
    assert learned.samples == 2
    assert min(ratios) - 1e-3 <= learned.factor <= max(ratios) + 1e-3
    assert learned.factor > 1.0

    # A dry run reads the same factor, and its budget is the calibrated one.
    dry = ReadOnlyEngine([tmp_path], _settings()).next_context("Again", session_id=first.session_id)
    stats = dry.stats
    assert stats.tokens.factor == learned.factor and stats.tokens.samples == learned.samples
    room = WINDOW - OUTPUT - stats.safety_margin
    assert stats.available_input == floor(room / learned.factor) - stats.tool_schema_tokens
    assert dry.manifest.stats == stats
    assert stats.tokens.estimated_input == round(
        (stats.used_input + stats.tool_schema_tokens) * learned.factor
    )

    # The next real turn builds with the factor the dry run showed.
    second = asyncio.run(engine.turn("Again", session_id=first.session_id))
    assert second.finish_reason == "stop", second.error
    last = engine.store.open(first.session_id).manifests()[-1]
    assert last.stats is not None
    assert last.stats.tokens.factor == learned.factor
    assert last.available_input == stats.available_input
