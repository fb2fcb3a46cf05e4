"""The token budget of one model call, and each model's context window.

`available_input = context_window - max_output_tokens - tool_schema_tokens -
safety_margin` (DESIGN §2.3). The context window is `settings.context_window`
when configured, else `max_input_tokens` from litellm's model map, read from
the JSON file shipped inside the litellm package (never importing litellm,
which takes seconds and may try the network).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.errors import BudgetError
from cairn.settings import DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_SAFETY_MARGIN, Settings

# The window assumed for the scripted test model (`scripted/<path>`) unless configured.
SCRIPTED_CONTEXT_WINDOW = 128_000
SCRIPTED_PREFIX = "scripted/"
# litellm's offline copy of its model map, inside the package folder.
MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"
MODEL_MAP_WINDOW_KEY = "max_input_tokens"
# Named defaults mirrored from the settings, for callers without a Settings object.
DEFAULT_OUTPUT_TOKENS = DEFAULT_MAX_OUTPUT_TOKENS
DEFAULT_MARGIN_TOKENS = DEFAULT_SAFETY_MARGIN


@dataclass(frozen=True, slots=True)
class Budget:
    """The numbers of one call; `available_input` is what the context blocks may use."""

    context_window: int
    max_output_tokens: int = DEFAULT_OUTPUT_TOKENS
    tool_schema_tokens: int = 0
    safety_margin: int = DEFAULT_MARGIN_TOKENS

    @property
    def available_input(self) -> int:
        return (
            self.context_window
            - self.max_output_tokens
            - self.tool_schema_tokens
            - self.safety_margin
        )

    def require_positive(self, model: str) -> int:
        """`available_input`, or BudgetError naming every term when nothing is left for input."""
        available = self.available_input
        if available <= 0:
            raise BudgetError(
                f"no room for input with model {model!r}: context window {self.context_window}"
                f" - max output {self.max_output_tokens} - tool schemas {self.tool_schema_tokens}"
                f" - safety margin {self.safety_margin} = {available} tokens;"
                " lower max_output_tokens or safety_margin, or raise context_window"
            )
        return available


def litellm_model_map_path() -> Path | None:
    """Path of litellm's bundled model map, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_MAP_FILE
    return path if path.is_file() else None


@functools.cache
def _model_windows() -> dict[str, int]:
    """model name → max input tokens, for every model of the map that states one."""
    path = litellm_model_map_path()
    if path is None:
        return {}
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    windows: dict[str, int] = {}
    for name, info in data.items():
        value = info.get(MODEL_MAP_WINDOW_KEY) if isinstance(info, dict) else None
        if isinstance(value, int) and value > 0:
            windows[name] = value
    return windows


def model_map_window(model: str) -> int | None:
    """`max_input_tokens` of `model` in litellm's map: the full name, then without
    each leading provider segment (`openrouter/anthropic/x` → `anthropic/x` → `x`)."""
    windows = _model_windows()
    name = model
    while True:
        if name in windows:
            return windows[name]
        if "/" not in name:
            return None
        name = name.split("/", 1)[1]


def context_window_for(model: str, settings: Settings | None = None) -> int:
    """The context window for `model`: configured, else from the model map.

    Raises BudgetError for an unknown model without a configured window.
    """
    if settings is not None and settings.context_window is not None:
        return settings.context_window
    if model.startswith(SCRIPTED_PREFIX):
        return SCRIPTED_CONTEXT_WINDOW
    window = model_map_window(model)
    if window is None:
        raise BudgetError(f"unknown model {model!r}: set context_window in cairn.toml")
    return window
