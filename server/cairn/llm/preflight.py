"""What can be known about a model before calling it, checked before a turn records anything.

A turn whose model cannot work (none configured, a scripted model whose
script does not exist) fails before its prompt is recorded, so it leaves no
session, title or mission behind; the error says how to set a model.
"""

from __future__ import annotations

from pathlib import Path

from cairn.errors import ModelError
from cairn.llm.runtime import ModelRuntime
from cairn.tokens.model_info import SCRIPTED_PROVIDER

SET_A_MODEL = (
    'set `model` in cairn.toml (e.g. `model = "anthropic/claude-sonnet-4-5"`), or choose one '
    'with "Cairn: Choose Model"'
)


def check_model(runtime: ModelRuntime, model: str) -> None:
    """Raise `ModelError` naming the problem and the fix when `model` cannot be called."""
    target = runtime.resolve_model(model)
    prefix = SCRIPTED_PROVIDER + "/"
    if target.startswith(prefix):
        script = Path(target[len(prefix) :])
        if not script.is_file():
            raise ModelError(
                f"the scripted model {model!r} has no script at {script}: create it, or "
                f"{SET_A_MODEL}"
            )
