"""The budget arithmetic and each model's context window (configured, model map, errors)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cairn.context.budget import Budget, context_window_for
from cairn.errors import BudgetError
from cairn.settings import Settings
from cairn.tokens.model_info import (
    SCRIPTED_CONTEXT_WINDOW,
    litellm_model_map_path,
    model_map_window,
)


def test_available_input_subtracts_output_schemas_and_margin() -> None:
    budget = Budget(
        context_window=10_000, max_output_tokens=1_000, tool_schema_tokens=500, safety_margin=250
    )
    assert budget.available_input == 8_250
    assert budget.require_positive("m") == 8_250


def test_no_room_for_input_is_a_clear_error_naming_the_numbers() -> None:
    budget = Budget(
        context_window=4_000, max_output_tokens=4_096, tool_schema_tokens=10, safety_margin=0
    )
    with pytest.raises(BudgetError) as error:
        budget.require_positive("tiny-model")
    message = str(error.value)
    assert "'tiny-model'" in message and "4000" in message and "4096" in message
    assert "-106" in message


def test_configured_window_wins_over_the_model_map() -> None:
    assert context_window_for("gpt-4o", Settings(context_window=5_000)) == 5_000


def test_window_comes_from_litellm_model_map() -> None:
    path = litellm_model_map_path()
    assert path is not None
    data = json.loads(path.read_text(encoding="utf-8"))
    expected = data["gpt-4o"]["max_input_tokens"]
    assert context_window_for("gpt-4o", Settings()) == expected
    # With a provider prefix the map has no entry; the bare name is found.
    assert "openai/gpt-4o" not in data
    assert context_window_for("openai/gpt-4o", Settings()) == expected


def test_provider_prefixed_entries_are_found_as_written() -> None:
    path = litellm_model_map_path()
    assert path is not None
    data = json.loads(path.read_text(encoding="utf-8"))
    name = next(k for k, v in data.items() if k.startswith("gemini/") and v.get("max_input_tokens"))
    assert model_map_window(name) == data[name]["max_input_tokens"]


def test_scripted_model_gets_the_documented_default_unless_configured() -> None:
    assert context_window_for("scripted/x.jsonl", Settings()) == SCRIPTED_CONTEXT_WINDOW
    assert context_window_for("scripted/x.jsonl", Settings(context_window=9_000)) == 9_000


def test_unknown_model_without_configured_window_is_an_error() -> None:
    with pytest.raises(
        BudgetError,
        match=r"unknown context window for model 'acme/nope-1' .*: set context_window in cairn.toml",
    ):
        context_window_for("acme/nope-1", Settings())


def test_window_lookup_does_not_import_litellm() -> None:
    script = (
        "import sys\n"
        "from cairn.context.budget import context_window_for\n"
        "print(context_window_for('gpt-4o'), 'litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    window, imported = done.stdout.split()
    assert int(window) > 0
    assert imported == "False"
