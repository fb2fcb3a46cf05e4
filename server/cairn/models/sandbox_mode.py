"""The command sandbox's settings as data, and which values a workspace may set alone.

`sandbox` says whether `run_command` runs commands in a sandbox: `auto` (when
one works here), `required` (refuse to run without one) or `off`;
`sandbox_network` lets sandboxed commands use the network. Both are
exec-relevant (`cairn.settings.EXEC_KEYS`): an untrusted workspace's
`cairn.toml` may only make the sandbox stricter — `sandbox = "required"`,
`sandbox_network = false` — never turn it off or the network on
(`tightens`: stricter than the default or the user's own
`config.toml`); a trusted workspace's file, the editor's settings and
flags set them freely, and a change to them in a trusted `cairn.toml`
revokes the trust (docs/SECURITY.md).
"""

from __future__ import annotations

from typing import Any, Literal

SandboxMode = Literal["auto", "off", "required"]
# How strict each mode is: a workspace alone may only raise it above the default.
SANDBOX_STRICTNESS: dict[str, int] = {"off": 0, "auto": 1, "required": 2}
DEFAULT_SANDBOX: SandboxMode = "auto"


def tightens(field: str, value: Any, baseline: Any = None) -> bool:
    """Whether a workspace's `field = value` can only make the sandbox stricter than
    `baseline` (what the layers below it chose; None: the default), so an untrusted
    `cairn.toml` may set it."""
    if field == "sandbox":
        below = baseline if isinstance(baseline, str) else DEFAULT_SANDBOX
        strictness = SANDBOX_STRICTNESS.get(value) if isinstance(value, str) else None
        return strictness is not None and strictness >= SANDBOX_STRICTNESS.get(below, 0)
    if field == "sandbox_network":
        return value is False
    return False
