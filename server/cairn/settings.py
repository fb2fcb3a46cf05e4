"""The one settings model, and what a load says about it: trust, ignored keys, origins.

Files (the user's `config.toml`, the workspace's `cairn.toml`) use snake_case
keys; the editor's `initializationOptions` use the same names in camelCase.
All are validated by `Settings`; a wrong value raises `SettingsError` naming
the key and where it came from. The parts of one engine share one
`SettingsRef`, so a settings change is one assignment that every part sees.
The layers, their order and the loader are `cairn.files.settings_layers`.

There is no default model: `model` is None until a layer or a `--model` flag
sets it (the scripted test model is always chosen explicitly).
`compaction_model` and `explore_model` default to the main model. The
provider settings (`api_base`, `api_key_env`, `extra_headers`,
`extra_params`) belong to the main model's provider. `Settings.origins` says
where each value came from (`Origin`). The workspace file's `EXEC_KEYS` count
only for a trusted workspace: the rest are ignored, and the settings say which
(`ignored_keys`; trust is `cairn.files.trust`), bar sandbox keys that only
tighten the sandbox (`cairn.models.sandbox_mode.tightens`).

MCP servers (`[mcp.servers.NAME]`, `McpServerSettings`; the editor's replace the
file's of the same name) and the prompt-cache prices (`cache_prices`) are defined
in `cairn.models.mcp_settings` and `cairn.models.cache_prices`, re-exported here.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pathspec
from pydantic import BaseModel, Field, PrivateAttr, ValidationError, field_validator

from cairn.errors import SettingsError
from cairn.models.cache_prices import DEFAULT_CACHE_PRICES as DEFAULT_CACHE_PRICES  # re-exported
from cairn.models.cache_prices import CacheFamily as CacheFamily  # re-exported
from cairn.models.cache_prices import CachePrice as CachePrice  # re-exported
from cairn.models.mcp_settings import SETTINGS_MODEL_CONFIG, McpSettings
from cairn.models.mcp_settings import McpServerSettings as McpServerSettings  # re-exported
from cairn.models.mcp_settings import merge_mcp as merge_mcp  # re-exported
from cairn.models.request_params import RESERVED_REQUEST_PARAMS as RESERVED_REQUEST_PARAMS
from cairn.models.sandbox_mode import DEFAULT_SANDBOX, SandboxMode
from cairn.models.session import Mode
from cairn.models.shell_words import entry_problem
from cairn.models.trace_location import trace_dir_problem
from cairn.models.validation import describe_settings_error
from cairn.models.where_weights import WhereWeights as WhereWeights  # re-exported

SETTINGS_FILE = "cairn.toml"

DEFAULT_MAX_OUTPUT_TOKENS = 4_096
DEFAULT_SAFETY_MARGIN = 2_048
DEFAULT_PROTECTED_TOOLS: tuple[str, ...] = ("goal",)
DEFAULT_EXPLORE_CONCURRENCY = 3
DEFAULT_STEP_LIMIT = 50
DEFAULT_TRACE_DIR = ".cairn"
DEFAULT_MODEL_TIMEOUT_S = 120.0
DEFAULT_MODEL_RETRIES = 3
DEFAULT_CALL_DEADLINE_S = 600.0
DEFAULT_TURN_DEADLINE_S = 3_600.0
DEFAULT_COMMAND_TIMEOUT_S = 120.0
# The largest LSP message the server reads (a bigger one is refused unread); the bounds keep
# an ordinary document readable and a hostile length from being allocated.
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MIN_MAX_MESSAGE_BYTES = 1024 * 1024
MAX_MAX_MESSAGE_BYTES = 1024 * 1024 * 1024
# How long a provider keeps a cached prompt prefix without a hit (Anthropic: 5 minutes).
DEFAULT_CACHE_LIFETIME_S = 300.0
# Editor buffers in play as the active file(s), and other open tabs shown at most.
DEFAULT_ACTIVE_BUFFERS = 1
DEFAULT_OPEN_TABS_MAX = 8
MAX_OPEN_TABS = 200

# An environment variable's name (what `api_key_env` holds: never the key itself).
_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Role = Literal["main", "compaction", "explore"]
# Where a value came from, lowest layer first (`cairn.files.settings_layers`).
Origin = Literal["default", "user config", "cairn.toml", "environment", "editor", "flag"]
# How open editor tabs that are not in play are shown: outlines, whole text, or not at all.
OpenTabs = Literal["outline", "whole", "off"]
ROLES: tuple[Role, ...] = ("main", "compaction", "explore")
# The `cairn.toml` keys that make Cairn run, send or write something, or show secrets: those
# of an untrusted workspace are ignored (`cairn.files.trust`, docs/SECURITY.md).
EXEC_KEYS: tuple[str, ...] = (
    "mcp", "api_base", "api_key_env", "extra_headers", "extra_params", "allowed_commands", "sandbox",
    "trace_dir", "redact_secrets", "secret_path_exemptions", "redaction_exemptions", "sandbox_network",
)  # fmt: skip


class Settings(BaseModel):
    """Every user-settable option, fully defaulted. Each field's docstring is its description:
    the editor's settings UI shows it (`client-vscode/package.json` is generated from this
    model by `python -m tools.gen_contracts`)."""

    model_config = SETTINGS_MODEL_CONFIG
    # Set by the load, never by the user: whether the workspace is trusted (a `Settings` built
    # directly names no workspace) and the `cairn.toml` keys ignored because it is not.
    _trusted: bool = PrivateAttr(default=True)
    _ignored_keys: tuple[str, ...] = PrivateAttr(default=())
    _origins: dict[str, Origin] = PrivateAttr(default_factory=dict)

    model: str | None = None
    """The model, as a litellm `provider/model` name (e.g. `anthropic/claude-sonnet-4-5`), or
    `scripted/<path>` for a scripted model. No default: a turn needs one (see docs/MODELS.md)."""
    compaction_model: str | None = None
    """The model that writes compaction summaries (a cheaper one will do); empty means the
    main model."""
    explore_model: str | None = None
    """The model of read-only explore branches; empty means the main model."""
    api_base: str | None = None
    """The endpoint of the main model's provider (a local server, a gateway, a litellm proxy);
    empty means the provider's usual endpoint."""
    api_key_env: str | None = None
    """The name of the environment variable holding the API key (never the key itself);
    empty means the provider's usual variable (`OPENAI_API_KEY`, …)."""
    extra_headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request to the main model's provider."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Extra litellm arguments for every call (`temperature`, `reasoning_effort`, …)."""
    context_window: int | None = Field(default=None, gt=0)
    """The model's context window in tokens; empty means the model's known window."""
    max_output_tokens: int = Field(default=DEFAULT_MAX_OUTPUT_TOKENS, gt=0)
    """Tokens reserved for the model's reply."""
    safety_margin: int = Field(default=DEFAULT_SAFETY_MARGIN, ge=0)
    """Tokens kept free to absorb tokenizer differences."""
    repo_map_tokens: int | None = Field(default=None, gt=0)
    """Tokens of the "Where to look" block and map together; empty: by window and prompt cache."""
    where_to_look: WhereWeights = Field(default_factory=WhereWeights)
    """The weights of the "Where to look" ranking (`[where_to_look]`, docs/REPOMAP.md)."""
    compaction_threshold: float | None = Field(default=None, gt=0, le=1)
    """Fraction of the available input at which compaction starts (empty: 0.7, or 0.55 with
    a provider that caches no prompt prefix)."""
    summary_keep_recent: float | None = Field(default=None, ge=0, le=0.5)
    """Fraction of the available input a summary keeps verbatim as the most recent history,
    the older messages being what it summarises (empty: 0.25, or 0.1 without a prompt
    cache)."""
    prune_minimum: int | None = Field(default=None, ge=0)
    """Prune old tool outputs only when at least this many tokens can be freed (empty:
    20,000 capped at 10% of the context window, or 1.5% of it without a prompt cache)."""
    prune_protect: int | None = Field(default=None, ge=0)
    """The most recent tool outputs up to this many tokens are never pruned (empty: 40,000
    capped at 20% of the context window, or 3% of it without a prompt cache)."""
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
    """Where sessions, manifests and artifacts are stored: a folder in the workspace's `.cairn/`."""
    model_timeout_s: float = Field(default=DEFAULT_MODEL_TIMEOUT_S, gt=0)
    """Seconds one request may wait for the provider's first byte, and a stream may stay
    silent, before it counts as timed out."""
    model_retries: int = Field(default=DEFAULT_MODEL_RETRIES, ge=0)
    """Retries of a model call on rate limits, server errors, timeouts and connection errors
    (the only retries: litellm's and the SDK's own are off)."""
    call_deadline_s: float = Field(default=DEFAULT_CALL_DEADLINE_S, gt=0)
    """Seconds one model call may take in all, its retries and waits included."""
    turn_deadline_s: float = Field(default=DEFAULT_TURN_DEADLINE_S, gt=0)
    """Seconds the agent's model calls in one turn may take together, retries and waits
    included (running tools and compaction are not counted)."""
    command_timeout_s: float = Field(default=DEFAULT_COMMAND_TIMEOUT_S, gt=0)
    """Seconds before a shell command the agent runs is stopped."""
    sandbox: SandboxMode = DEFAULT_SANDBOX
    """Run the agent's commands in a sandbox (bubblewrap: only the workspace writable, secrets
    hidden, no network): `auto` when one works here, `required` refuses to run without one."""
    sandbox_network: bool = False
    """Let sandboxed commands use the network."""
    max_message_bytes: int = Field(
        default=DEFAULT_MAX_MESSAGE_BYTES, ge=MIN_MAX_MESSAGE_BYTES, le=MAX_MAX_MESSAGE_BYTES
    )
    """The largest message the language server reads, in bytes (1 MiB to 1 GiB); a larger
    one is refused unread and the server goes on with the next."""
    mode: Mode = "build"
    """The mode of a turn that names none, such as a "Fix with Cairn" quick fix: `build`
    edits files and runs commands, `plan` and `review` only read. The chat and `Cairn: Ask`
    choose their own mode."""
    active_buffers: int = Field(default=DEFAULT_ACTIVE_BUFFERS, ge=0, le=MAX_OPEN_TABS)
    """How many editor buffers count as the active file, in play and shown whole: the most
    recently opened or edited ones. The turn's references, edits, reads and searches, and
    the file being fixed, are in play besides them."""
    open_tabs: OpenTabs = "outline"
    """How the other open editor tabs are shown: `outline` (signatures with line ranges),
    `whole` (their text) or `off`. Either way they come last, after the turn's own history,
    and are the first to go when the budget is short."""
    open_tabs_max: int = Field(default=DEFAULT_OPEN_TABS_MAX, ge=0, le=MAX_OPEN_TABS)
    """At most this many other open tabs are shown, the most recently active first."""
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
    cache_lifetime_s: float = Field(default=DEFAULT_CACHE_LIFETIME_S, gt=0)
    """Idle seconds after which the provider's prompt cache is taken to be cold (pending
    prunes and goal folds are then applied at once)."""
    cache_prices: dict[CacheFamily, CachePrice] = Field(default_factory=dict)
    """Prompt-cache prices per cache family (`anthropic`, `openai`, `automatic`, `none`):
    `read` and `write` as multiples of the input price, replacing the defaults (Anthropic
    0.1 and 1.25, OpenAI 0.1 and 1); e.g. `openai = {read = 0.5, write = 1}` for gpt-4o."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers (`[mcp.servers.NAME]`: `command`/`args`/`env`/`cwd` for stdio, `url`/
    `headers` for HTTP) and `toolSearchShare`/`Limit`/`Threshold`; see docs/MCP.md."""

    @field_validator("secret_paths", "secret_path_exemptions")
    @classmethod
    def _path_patterns(cls, patterns: list[str]) -> list[str]:
        try:
            pathspec.GitIgnoreSpec.from_lines(patterns)
        except (ValueError, TypeError) as error:
            raise ValueError(f"invalid gitignore-style pattern: {error}") from None
        return patterns

    @field_validator("allowed_commands")
    @classmethod
    def _argv_patterns(cls, entries: list[str] | None) -> list[str] | None:
        for entry in entries or ():
            if problem := entry_problem(entry):
                raise ValueError(problem)
        return entries

    @field_validator("trace_dir")
    @classmethod
    def _inside_state_folder(cls, value: str) -> str:
        if problem := trace_dir_problem(value):
            raise ValueError(problem)
        return value

    @field_validator("secret_value_patterns")
    @classmethod
    def _regular_expressions(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None
        return patterns

    @field_validator("model", "compaction_model", "explore_model", "api_base", "api_key_env")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:  # the editor's empty field
        if value is None:
            return None
        return value.strip() or None

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, value: str | None) -> str | None:
        if value is not None and not _VARIABLE_NAME.match(value):
            raise ValueError(
                "must be the NAME of an environment variable (e.g. OPENAI_API_KEY), "
                "never the key itself"
            )
        return value

    @field_validator("extra_params")
    @classmethod
    def _not_reserved(cls, value: dict[str, Any]) -> dict[str, Any]:
        for key in value:
            if key in RESERVED_REQUEST_PARAMS:
                raise ValueError(f"{key!r} is set by {RESERVED_REQUEST_PARAMS[key]}, not here")
        return value

    @property
    def workspace_trusted(self) -> bool:
        """Whether the workspace's own files may run or send something (see `EXEC_KEYS`)."""
        return self._trusted

    @property
    def ignored_keys(self) -> tuple[str, ...]:
        """The workspace's `cairn.toml` keys left out because the folder is not trusted."""
        return self._ignored_keys

    @property
    def origins(self) -> dict[str, Origin]:
        """Where each field's value came from (every field; "default" unless a layer set it)."""
        return {name: self._origins.get(name, "default") for name in Settings.model_fields}

    def with_origins(self, origins: Mapping[str, Origin]) -> Settings:
        """These settings, with the origins of the fields a load or a flag set."""
        self._origins = dict(origins)
        return self

    def with_trust(self, trusted: bool, ignored: Iterable[str] = ()) -> Settings:
        """These settings, marked as those of a trusted or untrusted workspace."""
        self._trusted, self._ignored_keys = trusted, tuple(ignored)
        return self

    def cache_price(self, family: CacheFamily) -> CachePrice:
        """The prompt-cache prices of a cache family: configured, else the default."""
        return self.cache_prices.get(family) or DEFAULT_CACHE_PRICES[family]


def role_model(settings: Settings, role: Role, main: str | None = None) -> str | None:
    """The model of `role`: its own setting, else the main model (`main`, else `settings.model`)."""
    main_model = main or settings.model
    if role == "compaction":
        return settings.compaction_model or main_model
    if role == "explore":
        return settings.explore_model or main_model
    return main_model


# Settings a running server cannot take over (the trace store stays where it was opened):
# an editor restarts the server when one of these changes, and applies the rest live.
RESTART_SETTINGS: frozenset[str] = frozenset({"trace_dir"})


@dataclass
class SettingsRef:
    """The current settings of one engine, shared by its parts (they read `current`)."""

    current: Settings


def shared(settings: Settings | SettingsRef) -> SettingsRef:
    """`settings` as a reference: the one given, or a new one for a part used on its own."""
    return settings if isinstance(settings, SettingsRef) else SettingsRef(settings)


def validate_settings(data: dict[str, Any], origin: str = "settings") -> Settings:
    """Validate a mapping of settings (snake_case or camelCase keys)."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError(f"{origin}: {describe_settings_error(exc)}") from None


def read_settings_file(workspace: Path) -> dict[str, Any]:
    """The raw contents of `<workspace>/cairn.toml`, or {} when there is none."""
    return read_settings_toml(workspace / SETTINGS_FILE)


def read_settings_toml(path: Path) -> dict[str, Any]:
    """The raw contents of a settings file, or {} when there is none."""
    if not path.exists():
        return {}
    if not path.is_file():  # a folder, FIFO or device: never opened (a FIFO would block)
        raise SettingsError(f"{path}: not a regular file; remove it or make it a TOML file")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read: {exc.strerror}") from None


def field_name(key: str) -> str | None:
    """The snake_case field of a settings key (snake_case or camelCase), or None if unknown."""
    for name, info in Settings.model_fields.items():
        if key in (name, info.alias):
            return name
    return None


def with_flags(settings: Settings, flags: Mapping[str, Any]) -> Settings:
    """`settings` with the command-line values that were given (None means not given)."""
    given = {key: value for key, value in flags.items() if value is not None}
    if not given:
        return settings
    flagged = validate_settings({**settings.model_dump(), **given}, origin="command line")
    flagged_origins: dict[str, Origin] = {field_name(key) or key: "flag" for key in given}
    flagged.with_origins({**settings.origins, **flagged_origins})
    return flagged.with_trust(settings.workspace_trusted, settings.ignored_keys)
