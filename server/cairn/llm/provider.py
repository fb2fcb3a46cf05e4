"""Provider settings of one model: endpoint, key variable, headers, extra arguments.

`provider_setup(settings, model, env)` works out, without importing
litellm, what a call to `model` would use. The provider settings
(`api_base`, `api_key_env`, `extra_headers`, `extra_params`) belong to the
main model's provider: they apply to every role whose model has that
provider, and a role model of another provider uses that provider's usual
endpoint and variable. `extra_params` apply to every call.

The key: with `api_key_env`, the key is read from that variable and passed
to litellm (it must be set); otherwise litellm reads the provider's usual
variable itself, and Cairn checks that one of them is set before calling
(`cairn.tokens.model_info.key_variables`). Local providers need none. With
an `api_base` and no key anywhere, a placeholder key is sent: local
OpenAI-compatible servers ignore it, and one that wants a key answers 401,
whose message names the variable to set. The key itself is never logged,
recorded or shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cairn.settings import Settings
from cairn.tokens.model_info import SCRIPTED_PROVIDER, key_variables, provider_of

# Sent as the key to an `api_base` when no key variable is set (local servers ignore it).
PLACEHOLDER_KEY = "no-key-configured"

# Where the key of a call comes from.
KeySource = Literal["api_key_env", "provider", "none_needed", "placeholder", "unchecked"]


@dataclass(frozen=True, slots=True)
class ProviderSetup:
    """What a call to one model would use (see the module docstring)."""

    model: str
    provider: str | None
    # Whether the workspace's provider settings apply (the main model's provider).
    own_settings: bool
    api_base: str | None
    # The variable the key is (or would be) read from; None when no variable applies.
    key_variable: str | None
    key_source: KeySource
    key_present: bool
    # Every variable that would do, for messages ("set OPENAI_API_KEY").
    key_candidates: tuple[str, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def problem(self) -> str | None:
        """Why a call cannot be made as configured (a missing key), or None."""
        if self.key_present or self.key_source in ("none_needed", "placeholder", "unchecked"):
            return None
        if self.key_source == "api_key_env":
            return (
                f"{self.key_variable} is not set (api_key_env names it): export it with your "
                f"{self.provider or 'provider'} API key"
            )
        names = " or ".join(self.key_candidates)
        return (
            f"{names} is not set: export it with your {self.provider} API key, or set "
            f"api_key_env in cairn.toml to the variable that holds it"
        )

    def key_hint(self) -> str:
        """Which variable the key came from, for a message about a refused key."""
        if self.key_source == "placeholder":
            candidates = " or ".join(self.key_candidates) or "a key variable"
            return f"no key was sent ({candidates} is not set; set it or api_key_env)"
        if self.key_variable is not None:
            origin = "api_key_env" if self.key_source == "api_key_env" else "the provider's"
            return f"check {self.key_variable} ({origin} key variable)"
        return "check the provider's credentials"


def _present(env: Mapping[str, str], name: str) -> bool:
    return bool(env.get(name, "").strip())


def same_provider(model: str, main: str | None) -> bool:
    """Whether `model` belongs to the main model's provider (then the provider settings apply)."""
    if main is None or model == main:
        return True
    return provider_of(model) == provider_of(main)


def provider_setup(
    settings: Settings, model: str, env: Mapping[str, str], main: str | None = None
) -> ProviderSetup:
    """What a call to `model` would use; `main` is the main model (default: the settings')."""
    provider = (
        SCRIPTED_PROVIDER if model.startswith(SCRIPTED_PROVIDER + "/") else provider_of(model)
    )
    own = same_provider(model, main or settings.model)
    api_base = settings.api_base if own else None
    headers = dict(settings.extra_headers) if own else {}
    params = dict(settings.extra_params)
    common = {"model": model, "provider": provider, "own_settings": own, "api_base": api_base}
    if own and settings.api_key_env is not None:
        variable = settings.api_key_env
        return ProviderSetup(
            **common,
            key_variable=variable,
            key_source="api_key_env",
            key_present=_present(env, variable),
            key_candidates=(variable,),
            headers=headers,
            params=params,
        )
    candidates = key_variables(provider)
    if candidates == ():
        source: KeySource = "none_needed"
        variable, present = None, True
    elif candidates is None:
        source, variable, present = "unchecked", None, False
    else:
        variable = next((name for name in candidates if _present(env, name)), candidates[0])
        present = _present(env, variable)
        source = "provider" if present or api_base is None else "placeholder"
    return ProviderSetup(
        **common,
        key_variable=variable,
        key_source=source,
        key_present=present,
        key_candidates=candidates or (),
        headers=headers,
        params=params,
    )


def request_options(setup: ProviderSetup, env: Mapping[str, str]) -> dict[str, Any]:
    """The litellm arguments of the provider settings (the SDK's own retries off)."""
    options: dict[str, Any] = {**setup.params, "max_retries": 0}
    if setup.api_base is not None:
        options["api_base"] = setup.api_base
    if setup.key_source == "api_key_env" and setup.key_variable is not None:
        options["api_key"] = env.get(setup.key_variable, "").strip()
    elif setup.key_source == "placeholder":
        options["api_key"] = PLACEHOLDER_KEY
    if setup.headers:
        options["extra_headers"] = dict(setup.headers)
    return options
