"""What litellm's data files say about a model and its provider, read without importing litellm.

litellm ships its model map (windows, output limits, prices, each model's
provider) as a JSON file inside its package, its list of providers in
another, and tiktoken's BPE files in `litellm_core_utils/tokenizers`. All are
found with `importlib.util.find_spec("litellm")`: importing litellm takes
seconds and may try the network. The scripted test model (`scripted/<path>`)
has a fixed window.

A name is looked up whole, then without each leading provider segment
(`openrouter/anthropic/x` → `anthropic/x` → `x`), each also with dots between
digits written as dashes (OpenRouter's `claude-sonnet-4.5` is litellm's
`claude-sonnet-4-5`). The provider of a name is its first segment when that
is a litellm provider, else the provider the map gives the bare name.

`key_variables(provider)` names the environment variables litellm reads a
provider's key from (any one of them will do), `()` for providers that need
none (local servers), None where credentials are not a single variable
(cloud accounts: Bedrock, Vertex AI, …) and Cairn cannot check them.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Model names `scripted/<path>` replay a script (the test and demo model).
SCRIPTED_PROVIDER = "scripted"
# The window assumed for the scripted test model unless configured.
SCRIPTED_CONTEXT_WINDOW = 128_000
# litellm's offline copy of its model map, inside the package folder.
MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"
MODEL_MAP_WINDOW_KEY = "max_input_tokens"
MODEL_MAP_OUTPUT_KEY = "max_output_tokens"
MODEL_MAP_PROVIDER_KEY = "litellm_provider"
# litellm's list of providers, and the JSON-configured OpenAI-compatible ones (with their key).
PROVIDERS_FILE = "provider_endpoints_support_backup.json"
OPENAI_LIKE_FILE = ("llms", "openai_like", "providers.json")

# Environment variables litellm reads each provider's key from (any one will do; the first is
# the one to suggest). Checked against `litellm.validate_environment` by the tests.
PROVIDER_KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "text-completion-openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "codestral": ("CODESTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "cohere_chat": ("COHERE_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "FIREWORKSAI_API_KEY"),
    "perplexity": ("PERPLEXITYAI_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",),
    "nvidia_nim": ("NVIDIA_NIM_API_KEY",),
    "huggingface": ("HUGGINGFACE_API_KEY",),
    "replicate": ("REPLICATE_API_KEY",),
    "novita": ("NOVITA_API_KEY",),
    "nebius": ("NEBIUS_API_KEY",),
    "vercel_ai_gateway": ("VERCEL_AI_GATEWAY_API_KEY",),
    "volcengine": ("VOLCENGINE_API_KEY",),
    "ai21": ("AI21_API_KEY",),
    "ai21_chat": ("AI21_API_KEY",),
    "azure": ("AZURE_API_KEY",),
    "litellm_proxy": ("LITELLM_PROXY_API_KEY",),
}
# Providers that serve models from a local server and need no key.
KEYLESS_PROVIDERS = frozenset(
    {
        SCRIPTED_PROVIDER,
        "ollama",
        "ollama_chat",
        "lm_studio",
        "hosted_vllm",
        "vllm",
        "llamafile",
        "oobabooga",
        "xinference",
        "docker_model_runner",
        "lemonade",
    }
)

_DOTTED_VERSION = re.compile(r"(?<=\d)\.(?=\d)")


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """litellm's metadata for one model (None where the map states nothing)."""

    entry: str
    provider: str | None
    max_input_tokens: int | None
    max_output_tokens: int | None


def is_scripted_model(model: str) -> bool:
    """Whether `model` names the scripted test model (`scripted/<path>`)."""
    return model.strip().startswith(SCRIPTED_PROVIDER + "/")


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


def read_json_object(path: Path | None) -> dict[str, Any]:
    """A JSON file's top-level object; {} when the file is missing, unreadable or not one."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


@functools.cache
def _model_map() -> dict[str, ModelInfo]:
    """model name → its metadata, for every chat-usable entry of the map."""
    infos: dict[str, ModelInfo] = {}
    for name, info in read_json_object(litellm_model_map_path()).items():
        if not isinstance(info, dict):
            continue
        provider = info.get(MODEL_MAP_PROVIDER_KEY)
        infos[name] = ModelInfo(
            entry=name,
            provider=provider if isinstance(provider, str) else None,
            max_input_tokens=_positive(info.get(MODEL_MAP_WINDOW_KEY)),
            max_output_tokens=_positive(info.get(MODEL_MAP_OUTPUT_KEY)),
        )
    return infos


@functools.cache
def _openai_like_keys() -> dict[str, tuple[str, ...]]:
    """Key variables of the OpenAI-compatible providers litellm configures from JSON."""
    folder = litellm_package_dir()
    data = read_json_object(folder.joinpath(*OPENAI_LIKE_FILE) if folder else None)
    keys: dict[str, tuple[str, ...]] = {}
    for name, entry in data.items():
        variable = entry.get("api_key_env") if isinstance(entry, dict) else None
        if isinstance(variable, str) and variable:
            keys[name] = (variable,)
    return keys


@functools.cache
def known_providers() -> frozenset[str]:
    """Every provider name litellm knows (its provider list, the map's providers, ours)."""
    folder = litellm_package_dir()
    listed = read_json_object(folder / PROVIDERS_FILE if folder else None).get("providers") or {}
    names = {str(name) for name in listed}
    names |= {info.provider for info in _model_map().values() if info.provider}
    return frozenset(names | set(PROVIDER_KEY_VARIABLES) | KEYLESS_PROVIDERS)


def _lookup_names(model: str) -> Iterator[str]:
    """The names to try for `model`, most specific first (see the module docstring)."""
    name = model
    while True:
        yield name
        dashed = _DOTTED_VERSION.sub("-", name)
        if dashed != name:
            yield dashed
        if "/" not in name:
            return
        name = name.split("/", 1)[1]


def model_info(model: str) -> ModelInfo | None:
    """litellm's metadata for `model`, or None when its map does not know it."""
    infos = _model_map()
    return next((infos[n] for n in _lookup_names(model) if n in infos), None)


def model_map_window(model: str) -> int | None:
    """`max_input_tokens` of `model` in litellm's map (the first lookup name that has one)."""
    infos = _model_map()
    for name in _lookup_names(model):
        info = infos.get(name)
        if info is not None and info.max_input_tokens is not None:
            return info.max_input_tokens
    return None


def model_max_output(model: str) -> int | None:
    """`max_output_tokens` of `model` in litellm's map, or None when unknown."""
    infos = _model_map()
    for name in _lookup_names(model):
        info = infos.get(name)
        if info is not None and info.max_output_tokens is not None:
            return info.max_output_tokens
    return None


def provider_of(model: str) -> str | None:
    """The litellm provider of `model`: its first segment when that is a provider, else the map's."""
    head = model.split("/", 1)[0] if "/" in model else None
    if head is not None and head in known_providers():
        return head
    info = model_info(model)
    return info.provider if info is not None else None


def key_variables(provider: str | None) -> tuple[str, ...] | None:
    """The variables a provider's key may be in; () when it needs none; None when unknown."""
    if provider is None:
        return None
    if provider in KEYLESS_PROVIDERS:
        return ()
    return PROVIDER_KEY_VARIABLES.get(provider) or _openai_like_keys().get(provider)
