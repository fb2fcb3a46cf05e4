"""From an `[mcp.servers.NAME]` table to the SDK transport that reaches the server.

Every string of the table (`command`, `args`, `env` values, `cwd`, `url`,
`headers` values) may name environment variables as `${VAR}` or
`${VAR:-default}`; an unset variable without a default is a configuration
error naming the variable and the key, and the server is then an excluded
source (it is not started). A stdio server runs in `cwd` (relative to the
workspace root, which is the default) with the SDK's minimal environment
plus `env` (`cairn.mcp.stdio`); its stderr goes to `errlog`. A URL server is reached over
streamable HTTP with `headers` on every request.

The SDK is imported here only when a transport is opened, never when Cairn
starts (importing it takes about a second).
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cairn.errors import CairnError
from cairn.mcp.stdio import ServerProcess, stdio_transport
from cairn.settings import McpServerSettings

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

# `${VAR}` or `${VAR:-default}`.
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# Streamable HTTP: seconds to connect / write, and to wait for a reply (a stream may stay open).
HTTP_CONNECT_TIMEOUT_S = 30.0
HTTP_READ_TIMEOUT_S = 300.0


class McpConfigError(CairnError):
    """A server's table cannot be used as it is (an unset variable, a missing folder)."""


def expand(value: str, where: str, environ: Mapping[str, str]) -> str:
    """`value` with its `${VAR}` / `${VAR:-default}` references replaced."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise McpConfigError(
            f"environment variable {name} is not set (used in {where}); set it or give"
            f" a default as ${{{name}:-value}}"
        )

    # Only up to the last `}`: past it no reference can end, and a default's `[^}]*` that
    # reaches a `}` always matches, so the scan stays linear (a long run of unclosed
    # `${A:-` once made it quadratic).
    end = value.rfind("}") + 1
    return _VARIABLE.sub(replace, value[:end]) + value[end:]


def expanded(
    name: str, settings: McpServerSettings, environ: Mapping[str, str] | None = None
) -> McpServerSettings:
    """The server's settings with every variable reference expanded."""
    env = os.environ if environ is None else environ
    key = f"mcp.servers.{name}"

    def one(value: str | None, field: str) -> str | None:
        return None if value is None else expand(value, f"{key}.{field}", env)

    def table(values: dict[str, str], field: str) -> dict[str, str]:
        return {k: expand(v, f"{key}.{field}.{k}", env) for k, v in values.items()}

    return settings.model_copy(
        update={
            "command": one(settings.command, "command"),
            "args": [expand(a, f"{key}.args", env) for a in settings.args],
            "env": table(settings.env, "env"),
            "cwd": one(settings.cwd, "cwd"),
            "url": one(settings.url, "url"),
            "headers": table(settings.headers, "headers"),
        }
    )


def server_cwd(name: str, root: Path, cwd: str | None) -> Path:
    """The folder a stdio server runs in: `cwd` relative to the workspace root, or the root."""
    folder = (root / cwd).resolve() if cwd else root
    if not folder.is_dir():
        raise McpConfigError(f"mcp.servers.{name}.cwd: no such folder: {folder}")
    return folder


def describe_target(settings: McpServerSettings) -> str:
    """What `cairn mcp list` shows as the server's address (no header or env values)."""
    if settings.url is not None:
        return settings.url
    return " ".join([settings.command or "", *settings.args]).strip()


@asynccontextmanager
async def _http(url: str, headers: dict[str, str]) -> AsyncIterator[TransportStreams]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(HTTP_CONNECT_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


def open_transport(
    name: str,
    settings: McpServerSettings,
    root: Path,
    errlog: TextIO,
    process: ServerProcess | None = None,
) -> Any:
    """The transport (an async context manager of the server's streams) for one server: a
    stdio server's process is `process` (`cairn.mcp.stdio`).

    `settings` must be `expanded` already."""
    if settings.url is not None:
        return _http(settings.url, dict(settings.headers))
    return stdio_transport(
        settings.command or "",
        list(settings.args),
        dict(settings.env),
        server_cwd(name, root, settings.cwd),
        errlog,
        process if process is not None else ServerProcess(),
    )
