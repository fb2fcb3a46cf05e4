"""What litellm's model map says about a model, read without importing litellm.

litellm ships its model map (windows, output limits, prices) as a JSON file
inside its package, and tiktoken's BPE files in `litellm_core_utils/tokenizers`.
Both are found with `importlib.util.find_spec("litellm")`: importing litellm
takes seconds and may try the network. The scripted test model
(`scripted/<path>`) has a fixed window.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

# Model names `scripted/<path>` replay a script (the test and demo model).
SCRIPTED_PROVIDER = "scripted"
# The window assumed for the scripted test model unless configured.
SCRIPTED_CONTEXT_WINDOW = 128_000
# litellm's offline copy of its model map, inside the package folder.
MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"
MODEL_MAP_WINDOW_KEY = "max_input_tokens"


def litellm_package_dir() -> Path | None:
    """The installed litellm package folder, located without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def litellm_model_map_path() -> Path | None:
    """Path of litellm's bundled model map, found without importing litellm."""
    folder = litellm_package_dir()
    if folder is None:
        return None
    path = folder / MODEL_MAP_FILE
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
