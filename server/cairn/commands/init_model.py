"""The model `cairn init` writes: chosen on a terminal from `cairn/models`' catalogue.

The providers are listed with their key variable and whether it is set; the
user picks one by number (or types any litellm `provider/model` name, e.g. a
local server's), then a model of it: by number when the list is short,
else by typing part of a name to narrow it. Enter takes the default shown
(the example model of `cairn.llm.guide` for that provider, else its first).
The questions and answers go through `ask` and `say`, so a test can drive
the dialogue without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cairn.llm.catalog import model_catalog
from cairn.llm.guide import EXAMPLE_MODELS
from cairn.models.catalog import CatalogProvider

# A question and its default → the answer; a line to show.
Ask = Callable[[str, str], str]
Say = Callable[[str], None]
# The longest list shown numbered; a longer one is narrowed by typing part of a name.
MAX_LISTED = 25


def default_provider(providers: Sequence[CatalogProvider]) -> int:
    """The index of the first provider whose key is set, else of the first."""
    return next((i for i, p in enumerate(providers) if p.key_set), 0)


def provider_default_model(provider: CatalogProvider) -> str:
    """The provider's example model (`EXAMPLE_MODELS`) when it has one, else its first."""
    names = [m.model for m in provider.models]
    example = next((m for m, _ in EXAMPLE_MODELS if m.split("/")[0] == provider.provider), None)
    if example is not None and (example in names or not names):
        return example
    return names[0] if names else f"{provider.provider}/<model>"


def _provider_lines(providers: Sequence[CatalogProvider]) -> list[str]:
    lines = ["Providers (the key is read from the variable named; ✓ when it is set):"]
    for number, provider in enumerate(providers, 1):
        mark = "✓" if provider.key_set else " "
        lines.append(
            f"  {number:>2}. {provider.provider:<13} {provider.key_env or '':<22} {mark}"
            f"  {len(provider.models)} models"
        )
    lines.append("  or type a provider/model name (e.g. ollama_chat/qwen2.5-coder:14b)")
    return lines


def pick_from(names: Sequence[str], default: str, ask: Ask, say: Say) -> str:
    """One of `names` (or any provider/model typed), narrowed until it can be chosen."""
    shown = list(names)
    while True:
        if len(shown) <= MAX_LISTED:
            say("\n".join(f"  {n:>2}. {name}" for n, name in enumerate(shown, 1)))
        else:
            say(f"  {len(shown)} models: type part of a name to narrow them")
        answer = ask("Model", default).strip()
        if not answer or answer == default:
            return default
        if answer.isdigit() and len(shown) <= MAX_LISTED and 1 <= int(answer) <= len(shown):
            return shown[int(answer) - 1]
        exact = [name for name in names if answer in (name, name.partition("/")[2])]
        if exact:
            return exact[0]
        narrowed = [name for name in shown if answer.lower() in name.lower()]
        if not narrowed and "/" in answer:
            return answer
        if not narrowed:
            say(f"  no model matches {answer!r}")
            continue
        shown = narrowed


def choose_model(environ: Mapping[str, str], ask: Ask, say: Say) -> str:
    """The model the user picks from the catalogue (see the module docstring)."""
    providers = model_catalog(None, environ).providers
    first = default_provider(providers)
    say("\n".join(_provider_lines(providers)))
    while True:
        answer = ask("Provider", str(first + 1)).strip() or str(first + 1)
        if "/" in answer:
            return answer
        if answer.isdigit() and 1 <= int(answer) <= len(providers):
            provider = providers[int(answer) - 1]
            break
        match = next((p for p in providers if p.provider == answer), None)
        if match is not None:
            provider = match
            break
        say(f"  {answer!r} is not one of the numbers above, nor a provider/model name")
    names = [m.model for m in provider.models]
    return pick_from(names, provider_default_model(provider), ask, say)
