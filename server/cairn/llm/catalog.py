"""The models one can choose (`cairn/models`): hosted providers, their chat models, their keys.

Read from litellm's model map without importing litellm
(`cairn.tokens.model_info`): every chat model of the providers in
`PROVIDER_KEYS`, named as litellm takes it (`provider/model`), with its
context window. A provider's key is named by its environment variable; the
catalogue says whether the server's environment sets it, never its value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.models.catalog import CatalogModel, CatalogProvider, ModelCatalog
from cairn.tokens.model_info import (
    MODEL_MAP_PROVIDER_KEY,
    MODEL_MAP_WINDOW_KEY,
    litellm_model_map_path,
    read_json_object,
)

# Hosted providers offered first-hand, in the order shown, and their API key variables.
PROVIDER_KEYS: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "groq": "GROQ_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
}
CHAT_MODE = "chat"
# Fine-tuned and sample entries of the map are not models one picks.
SKIPPED_MARKERS = ("ft:", "sample_spec")


def litellm_name(provider: str, key: str) -> str:
    """The name litellm routes to `provider`: the map's key, prefixed when it is not."""
    return key if key.startswith(provider + "/") else f"{provider}/{key}"


def provider_models(data: Mapping[str, Any], provider: str) -> list[CatalogModel]:
    """The chat models of `provider` in the map, by name."""
    found: dict[str, CatalogModel] = {}
    for key, info in data.items():
        if not isinstance(info, dict) or info.get(MODEL_MAP_PROVIDER_KEY) != provider:
            continue
        if info.get("mode") != CHAT_MODE or any(mark in key for mark in SKIPPED_MARKERS):
            continue
        window = info.get(MODEL_MAP_WINDOW_KEY)
        name = litellm_name(provider, key)
        found[name] = CatalogModel(
            model=name, context_window=window if isinstance(window, int) else None
        )
    return [found[name] for name in sorted(found)]


def model_catalog(current: str | None, environ: Mapping[str, str]) -> ModelCatalog:
    """The configured model and every provider of `PROVIDER_KEYS` with its models."""
    data = read_json_object(litellm_model_map_path())
    providers = [
        CatalogProvider(
            provider=provider,
            key_env=key,
            key_set=bool(environ.get(key)),
            models=provider_models(data, provider),
        )
        for provider, key in PROVIDER_KEYS.items()
    ]
    return ModelCatalog(current=current, providers=providers)
