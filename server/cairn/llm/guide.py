"""What to tell a user who has not configured a model yet.

Every entry point (`cairn run`, `cairn serve`, the editor) shows the same
text: that no model is configured, a `cairn.toml` example, the variable
its provider reads the key from, and how to choose it once for every folder
(the user's config, `CAIRN_MODEL`). The example is for the first provider
whose key variable is already set in the environment (the user has that
account), else for the first of `EXAMPLE_MODELS`. Pure: the environment is
passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

# (example model, its key variable or None for a local server), the suggestion order.
EXAMPLE_MODELS: tuple[tuple[str, str | None], ...] = (
    ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    ("openai/gpt-4.1", "OPENAI_API_KEY"),
    ("gemini/gemini-2.5-pro", "GEMINI_API_KEY"),
    ("deepseek/deepseek-chat", "DEEPSEEK_API_KEY"),
    ("openrouter/anthropic/claude-sonnet-4.5", "OPENROUTER_API_KEY"),
    ("ollama_chat/qwen2.5-coder:14b", None),
)
MODELS_DOC = "docs/MODELS.md"

Surface = Literal["cli", "editor"]


def suggested_model(env: Mapping[str, str]) -> tuple[str, str | None, bool]:
    """(model, its key variable, whether that variable is set) to show in the example."""
    for model, variable in EXAMPLE_MODELS:
        if variable is not None and env.get(variable, "").strip():
            return model, variable, True
    model, variable = EXAMPLE_MODELS[0]
    return model, variable, False


def _key_line(variable: str | None, present: bool) -> str:
    if variable is None:
        return "no key needed (a local server)"
    if present:
        return f"{variable} is set in this environment"
    return f"then export {variable}=<your key>"


def no_model_message(env: Mapping[str, str], surface: Surface = "cli") -> str:
    """The "no model configured" explanation, with an example for the likeliest provider."""
    model, variable, present = suggested_model(env)
    where = (
        "Set `cairn.model` in the editor's settings, or `model` in cairn.toml"
        if surface == "editor"
        else "Set `model` in cairn.toml (or pass --model)"
    )
    others = ", ".join(
        f"{name} ({key or 'local, no key'})" for name, key in EXAMPLE_MODELS if name != model
    )
    return (
        f"no model configured. {where}, for example:\n"
        f"\n"
        f"    # cairn.toml\n"
        f'    model = "{model}"    # {_key_line(variable, present)}\n'
        f"\n"
        f"To choose it once for every folder: `cairn config set model {model}` (your own "
        f"config.toml), or export CAIRN_MODEL={model}.\n"
        f"Other providers: {others}. `cairn models` shows what is configured; "
        f"{MODELS_DOC} has examples for local servers and proxies."
    )
