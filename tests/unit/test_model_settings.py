"""Model settings and metadata: providers and key variables, per-role models, where each
setting came from, sessions keeping their model, the learned window, the no-model text."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from cairn.agent.sessions.session import session_model
from cairn.context.budget import OVERFLOW_SHRINK, learned_window, role_window
from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings
from cairn.llm.guide import EXAMPLE_MODELS, no_model_message
from cairn.llm.lazy import load_litellm
from cairn.models.session import SessionMeta, Turn
from cairn.settings import Settings, role_model, validate_settings, with_flags
from cairn.tokens.model_info import (
    PROVIDER_KEY_VARIABLES,
    key_variables,
    model_info,
    model_map_window,
    model_max_output,
    provider_of,
)

# Providers whose key litellm reads in its own call path but that `validate_environment`
# does not list.
NOT_IN_VALIDATE_ENVIRONMENT = frozenset({"litellm_proxy", "text-completion-openai", "cohere_chat"})


@pytest.mark.parametrize(
    "provider", sorted(set(PROVIDER_KEY_VARIABLES) - NOT_IN_VALIDATE_ENVIRONMENT)
)
def test_key_variables_are_the_ones_litellm_checks(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in {v for names in PROVIDER_KEY_VARIABLES.values() for v in names}:
        monkeypatch.delenv(name, raising=False)
    missing = load_litellm().validate_environment(model=f"{provider}/some-model")["missing_keys"]
    assert PROVIDER_KEY_VARIABLES[provider][0] in missing


def test_providers_windows_and_output_limits_come_from_the_model_map() -> None:
    assert provider_of("gpt-4o") == "openai"
    assert provider_of("openai/my-local-model") == "openai"
    assert provider_of("openrouter/anthropic/claude-sonnet-4.5") == "openrouter"
    assert provider_of("claude-sonnet-4-5") == "anthropic"
    assert provider_of("acme/whatever") is None
    info = model_info("openrouter/anthropic/claude-sonnet-4.5")  # dots written as dashes
    assert info is not None and info.entry == "claude-sonnet-4-5"
    assert model_map_window("deepseek/deepseek-chat") == 131_072
    assert model_max_output("deepseek/deepseek-chat") == 8_192
    assert key_variables("ollama_chat") == () and key_variables("bedrock") is None
    assert key_variables("gemini") == ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def test_there_is_no_default_model_and_blank_means_unset() -> None:
    assert Settings().model is None
    assert validate_settings({"model": "  "}).model is None
    assert validate_settings({"compactionModel": ""}).compaction_model is None


def test_roles_default_to_the_main_model() -> None:
    settings = Settings(model="openai/gpt-4.1", compaction_model="openai/gpt-4.1-mini")
    assert role_model(settings, "main") == "openai/gpt-4.1"
    assert role_model(settings, "compaction") == "openai/gpt-4.1-mini"
    assert role_model(settings, "explore") == "openai/gpt-4.1"
    assert role_model(settings, "explore", main="openai/o3") == "openai/o3"


def test_a_role_model_has_its_own_window() -> None:
    settings = Settings(model="openai/local", context_window=16_000)
    assert role_window("openai/local", "openai/local", settings) == 16_000
    assert role_window("deepseek/deepseek-chat", "openai/local", settings) == 131_072
    assert role_window("openai/other-local", "openai/local", settings) == 16_000


def test_api_key_env_is_a_variable_name_never_a_key() -> None:
    assert validate_settings({"apiKeyEnv": "MY_KEY"}).api_key_env == "MY_KEY"
    with pytest.raises(SettingsError, match="must be the NAME of an environment variable"):
        validate_settings({"api_key_env": "sk-proj-abc123"})


def test_extra_params_cannot_replace_what_cairn_sets() -> None:
    assert validate_settings({"extra_params": {"temperature": 0.2}}).extra_params == {
        "temperature": 0.2
    }
    with pytest.raises(SettingsError, match="'max_tokens' is set by max_output_tokens"):
        validate_settings({"extra_params": {"max_tokens": 10}})
    with pytest.raises(SettingsError, match="'api_base' is set by api_base"):
        validate_settings({"extraParams": {"api_base": "x"}})


def test_provider_settings_load_from_cairn_toml(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text(
        'model = "openai/qwen"\napi_base = "http://127.0.0.1:8000/v1"\n'
        '[extra_headers]\n"X-Team" = "a"\n[extra_params]\ntemperature = 0.3\n',
        encoding="utf-8",
    )
    settings = load_settings(tmp_path, {"exploreModel": "openai/qwen-small"}, trusted=True)
    assert settings.api_base == "http://127.0.0.1:8000/v1"
    assert settings.extra_headers == {"X-Team": "a"}
    assert settings.extra_params == {"temperature": 0.3}
    assert settings.explore_model == "openai/qwen-small"
    origins = with_flags(settings, {"step_limit": 7}).origins
    assert origins["model"] == "cairn.toml" and origins["explore_model"] == "editor"
    assert origins["step_limit"] == "flag" and origins["compaction_model"] == "default"


def test_flags_are_validated_like_every_setting() -> None:
    assert with_flags(Settings(), {"model": "openai/x", "mode": None}).model == "openai/x"
    with pytest.raises(SettingsError, match="command line"):
        with_flags(Settings(), {"mode": "yolo"})


def _meta(model: str | None, configured: str | None, turns: int) -> SessionMeta:
    started = datetime(2026, 1, 1, tzinfo=UTC)
    return SessionMeta(
        id="s",
        model=model,
        configured_model=configured,
        turns=[Turn(id=f"t{i}", user_message_id="m", started_at=started) for i in range(turns)],
    )


def test_a_session_keeps_its_model_until_another_is_chosen() -> None:
    used = _meta("openai/a", "openai/a", 1)
    assert session_model(None, "openai/a", used) == "openai/a"
    assert session_model("openai/b", "openai/a", used) == "openai/b"  # the flag / request
    flagged = _meta("openai/b", "openai/a", 2)  # the last turn ran on a --model
    assert session_model(None, "openai/a", flagged) == "openai/b"
    assert session_model(None, "openai/c", flagged) == "openai/c"  # the setting changed
    assert session_model(None, None, flagged) == "openai/b"  # the setting was removed
    assert session_model(None, "openai/a", _meta("openai/x", None, 0)) == "openai/a"


def test_the_learned_window_is_the_providers_limit_in_our_units() -> None:
    assert learned_window(100_000, None, 90_000, 4_000) == 100_000
    assert learned_window(100_000, 80_000, 90_000, 4_000) == 100_000  # they counted less
    assert learned_window(104_000, 110_000, 99_000, 4_000) == 90_000 + 4_000
    assert learned_window(None, None, 50_000, 4_000) == int(54_000 * OVERFLOW_SHRINK)


def test_the_no_model_text_suggests_the_provider_whose_key_is_set() -> None:
    cli = no_model_message({"GEMINI_API_KEY": "g"})
    assert 'model = "gemini/gemini-2.5-pro"    # GEMINI_API_KEY is set in this environment' in cli
    assert "(or pass --model)" in cli and "docs/MODELS.md" in cli
    assert "`cairn config set model gemini/gemini-2.5-pro`" in cli and "CAIRN_MODEL=" in cli
    first, variable = EXAMPLE_MODELS[0]
    fresh = no_model_message({}, "editor")
    assert fresh.startswith("no model configured. Set `cairn.model` in the editor's settings")
    assert f'model = "{first}"    # then export {variable}=<your key>' in fresh
