"""The one settings model: `cairn.toml` in the workspace, overridden by the editor.

`cairn.toml` uses snake_case keys; the editor's `initializationOptions` use the
same names in camelCase. Both are validated by `Settings`; a wrong value raises
`SettingsError` naming the key. The parts of one engine share one
`SettingsRef`, so a settings change is one assignment that every part sees.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pathspec
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from cairn.errors import SettingsError

SETTINGS_FILE = "cairn.toml"

DEFAULT_MODEL = "scripted/script.jsonl"
DEFAULT_MAX_OUTPUT_TOKENS = 4_096
DEFAULT_SAFETY_MARGIN = 2_048
DEFAULT_COMPACTION_THRESHOLD = 0.7
DEFAULT_PRUNE_MINIMUM = 20_000
DEFAULT_PRUNE_PROTECT = 40_000
DEFAULT_PROTECTED_TOOLS: tuple[str, ...] = ("goal",)
DEFAULT_EXPLORE_CONCURRENCY = 3
DEFAULT_STEP_LIMIT = 50
DEFAULT_TRACE_DIR = ".cairn"
DEFAULT_MODEL_TIMEOUT_S = 120.0
DEFAULT_MODEL_RETRIES = 3
DEFAULT_COMMAND_TIMEOUT_S = 120.0
# The largest LSP message the server reads (a bigger one is refused unread); the bounds keep
# an ordinary document readable and a hostile length from being allocated.
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MIN_MAX_MESSAGE_BYTES = 1024 * 1024
MAX_MAX_MESSAGE_BYTES = 1024 * 1024 * 1024

Mode = Literal["build", "plan", "review"]


class Settings(BaseModel):
    """Every user-settable option, fully defaulted.

    Each field's docstring is its description: the editor's settings UI shows
    it (`client-vscode/package.json` is generated from this model by
    `python -m tools.gen_contracts`).
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
    )

    model: str = DEFAULT_MODEL
    """The model, as a litellm `provider/model` name (e.g. `anthropic/claude-sonnet-4-5`),
    or `scripted/<path>` for a scripted model."""
    context_window: int | None = Field(default=None, gt=0)
    """The model's context window in tokens; empty means the model's known window."""
    max_output_tokens: int = Field(default=DEFAULT_MAX_OUTPUT_TOKENS, gt=0)
    """Tokens reserved for the model's reply."""
    safety_margin: int = Field(default=DEFAULT_SAFETY_MARGIN, ge=0)
    """Tokens kept free to absorb tokenizer differences."""
    compaction_threshold: float = Field(default=DEFAULT_COMPACTION_THRESHOLD, gt=0, le=1)
    """Fraction of the available input at which compaction starts."""
    prune_minimum: int = Field(default=DEFAULT_PRUNE_MINIMUM, ge=0)
    """Prune old tool outputs only when at least this many tokens can be freed."""
    prune_protect: int = Field(default=DEFAULT_PRUNE_PROTECT, ge=0)
    """The most recent tool outputs up to this many tokens are never pruned."""
    protected_tools: list[str] = Field(default_factory=lambda: list(DEFAULT_PROTECTED_TOOLS))
    """Tools whose outputs are never pruned."""
    explore_concurrency: int = Field(default=DEFAULT_EXPLORE_CONCURRENCY, ge=1, le=32)
    """How many explore branches run at the same time."""
    allowed_commands: list[str] | None = None
    """Shell commands the agent may run without asking; empty means the project's test
    commands."""
    step_limit: int = Field(default=DEFAULT_STEP_LIMIT, ge=1)
    """The most model calls one turn may make."""
    trace_dir: str = DEFAULT_TRACE_DIR
    """Where sessions, manifests and artifacts are stored, relative to the workspace folder."""
    model_timeout_s: float = Field(default=DEFAULT_MODEL_TIMEOUT_S, gt=0)
    """Seconds before one model call times out."""
    model_retries: int = Field(default=DEFAULT_MODEL_RETRIES, ge=0)
    """Retries of a model call on rate limits and server errors."""
    command_timeout_s: float = Field(default=DEFAULT_COMMAND_TIMEOUT_S, gt=0)
    """Seconds before a shell command the agent runs is stopped."""
    max_message_bytes: int = Field(
        default=DEFAULT_MAX_MESSAGE_BYTES, ge=MIN_MAX_MESSAGE_BYTES, le=MAX_MAX_MESSAGE_BYTES
    )
    """The largest message the language server reads, in bytes (1 MiB to 1 GiB); a larger
    one is refused unread and the server goes on with the next."""
    mode: Mode = "build"
    """The mode of a turn that names none, such as a "Fix with Cairn" quick fix: `build`
    edits files and runs commands, `plan` and `review` only read. The chat and `Cairn: Ask`
    choose their own mode."""
    secret_paths: list[str] = Field(default_factory=list)
    """Paths treated as secret (gitignore-style patterns, e.g. `config/prod/**`): never read,
    never shown to the model, listed as secret."""
    secret_path_exemptions: list[str] = Field(default_factory=list)
    """Paths exempt from the built-in secret names such as `.env*` and `*.key` (gitignore-style
    patterns, e.g. `tests/fixtures/*.pem`); `secretPaths` wins over them."""
    redact_secrets: bool = True
    """Replace secret values (cloud keys, private keys, service tokens) in everything sent to
    the model by `[redacted: <kind>]`."""
    redaction_exemptions: list[str] = Field(default_factory=list)
    """Values never redacted: the exact value, or a regular expression matching all of it."""
    secret_value_patterns: list[str] = Field(default_factory=list)
    """Extra regular expressions whose matches are redacted from what is sent to the model."""

    @field_validator("secret_paths", "secret_path_exemptions")
    @classmethod
    def _path_patterns(cls, patterns: list[str]) -> list[str]:
        try:
            pathspec.GitIgnoreSpec.from_lines(patterns)
        except (ValueError, TypeError) as error:
            raise ValueError(f"invalid gitignore-style pattern: {error}") from None
        return patterns

    @field_validator("secret_value_patterns")
    @classmethod
    def _regular_expressions(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None
        return patterns


@dataclass
class SettingsRef:
    """The current settings of one engine, shared by its parts (they read `current`)."""

    current: Settings


def shared(settings: Settings | SettingsRef) -> SettingsRef:
    """`settings` as a reference: the one given, or a new one for a part used on its own."""
    return settings if isinstance(settings, SettingsRef) else SettingsRef(settings)


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        key = ".".join(str(p) for p in item["loc"]) or "<root>"
        if item["type"] == "extra_forbidden":
            parts.append(f"unknown setting {key!r}")
        else:
            parts.append(f"setting {key!r}: {item['msg']}")
    return "; ".join(parts)


def validate_settings(data: dict[str, Any], origin: str = "settings") -> Settings:
    """Validate a mapping of settings (snake_case or camelCase keys)."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError(f"{origin}: {_describe(exc)}") from None


def read_settings_file(workspace: Path) -> dict[str, Any]:
    """The raw contents of `<workspace>/cairn.toml`, or {} when there is none."""
    path = workspace / SETTINGS_FILE
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None


def load_settings(workspace: Path, overrides: dict[str, Any] | None = None) -> Settings:
    """`cairn.toml` of the workspace, then `overrides` (e.g. the editor's) on top."""
    base = validate_settings(read_settings_file(workspace), origin=str(workspace / SETTINGS_FILE))
    if not overrides:
        return base
    merged = base.model_dump()
    merged.update(
        validate_settings(overrides, origin="initializationOptions").model_dump(exclude_unset=True)
    )
    return Settings.model_validate(merged)
