"""Workspace trust: which folders the user trusts to run and send what their files name.

Opening a folder is not consent (docs/SECURITY.md). The user grants trust per
folder (`cairn trust DIR`, a prompt or `--trust` on `cairn run`, the editor's
Workspace Trust); the grant is recorded in the user's state folder, outside
every workspace (`state_dir()/trusted.json`, written whole and atomically,
mode 0600), keyed by the folder's real path, together with `config_hash`:
a hash of the exec-relevant part of its `cairn.toml` (`EXEC_KEYS`). When
that part changes — an edit by the agent, a `git pull` — the folder is no
longer trusted until the user grants it again.

An untrusted folder keeps every read-only feature; its `cairn.toml`'s
`EXEC_KEYS` are ignored (`load_settings(trusted=False)`), and the settings
say which (`Settings.ignored_keys`), for every front end to show in the one
sentence `untrusted_notice` makes. Commands its AGENTS.md names are not
pre-approved (`cairn.agent.turn.runner.allowed_commands`).

`workspace_settings` is the front ends' loader: the editor's word on trust
(`workspaceTrusted`: true or false) wins; without one the record decides.
The user's own settings (`cairn.files.user_config`) are not the workspace's:
they apply in full, trusted or not, and no grant covers them
(`cairn.files.settings_layers`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.files.settings_layers import load_settings
from cairn.files.user_state import FILE_MODE, state_dir
from cairn.settings import EXEC_KEYS, SETTINGS_FILE, Settings, field_name, read_settings_file

TRUST_FILE = "trusted.json"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class TrustRecord:
    """One trusted folder: its real path and the hash of its exec-relevant config then."""

    folder: str
    config_hash: str


def real_folder(folder: Path) -> Path:
    """The folder's real path (symlinks resolved), the key of its record."""
    return folder.expanduser().resolve()


def exec_config(folder: Path) -> dict[str, Any]:
    """The exec-relevant part of the folder's `cairn.toml` (`EXEC_KEYS`), by field name."""
    raw = read_settings_file(folder)
    return {name: raw[key] for key in raw if (name := field_name(key)) in EXEC_KEYS}


def config_hash(folder: Path) -> str:
    """A SHA-256 over the exec-relevant config, canonically serialised (hex)."""
    text = json.dumps(exec_config(folder), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def trust_path() -> Path:
    """The user's record of trusted folders."""
    return state_dir() / TRUST_FILE


def trusted_records() -> list[TrustRecord]:
    """Every recorded grant (an unreadable or malformed record counts as none)."""
    try:
        data = json.loads(trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return []
    return [
        TrustRecord(folder, digest)
        for folder, digest in entries.items()
        if isinstance(folder, str) and isinstance(digest, str)
    ]


def _save(records: Sequence[TrustRecord]) -> None:
    """Write the whole record atomically (a temporary file, mode 0600, then a rename)."""
    path = trust_path()
    body = {"version": FORMAT_VERSION, "folders": {r.folder: r.config_hash for r in records}}
    data = (json.dumps(body, indent=2, sort_keys=True) + "\n").encode("utf-8")
    temporary = path.with_name(f".{TRUST_FILE}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def grant(folder: Path) -> TrustRecord:
    """Trust `folder` with its current exec-relevant config (replacing an older grant)."""
    real = real_folder(folder)
    record = TrustRecord(str(real), config_hash(real))
    others = [r for r in trusted_records() if r.folder != record.folder]
    _save([*others, record])
    return record


def revoke(folder: Path) -> bool:
    """Forget the grant of `folder`; whether there was one."""
    key = str(real_folder(folder))
    records = trusted_records()
    kept = [r for r in records if r.folder != key]
    if len(kept) == len(records):
        return False
    _save(kept)
    return True


def is_trusted(folder: Path) -> bool:
    """Whether the user granted `folder` and its exec-relevant config is unchanged since."""
    key = str(real_folder(folder))
    for record in trusted_records():
        if record.folder == key:
            return record.config_hash == config_hash(Path(key))
    return False


def resolve_trust(folder: Path, editor_trust: bool | None = None) -> bool:
    """The editor's word when it gave one (`workspaceTrusted`), else the record's."""
    return editor_trust if editor_trust is not None else is_trusted(folder)


def workspace_settings(
    folder: Path, overrides: Mapping[str, Any] | None = None, editor_trust: bool | None = None
) -> Settings:
    """`load_settings` of `folder` with its trust resolved (`resolve_trust`)."""
    trusted = resolve_trust(folder, editor_trust)
    return load_settings(folder, dict(overrides) if overrides else None, trusted=trusted)


def untrusted_notice(ignored: Sequence[str], folder: Path | None = None) -> str:
    """The one sentence saying what an untrusted folder's settings lost, and how to trust it."""
    where = shlex.quote(str(folder)) if folder is not None else "<dir>"
    keys = ", ".join(ignored)
    verb = "is" if len(ignored) == 1 else "are"
    return (
        f"{SETTINGS_FILE}'s {keys} {verb} ignored: this folder is not trusted"
        f" (run `cairn trust {where}` to trust it)"
    )


def trust_question(folder: Path, ignored: Sequence[str]) -> str:
    """The question that asks the user to trust `folder` (the CLI's prompt, ACP's request)."""
    return (
        f"Trust {real_folder(folder)}? Its {SETTINGS_FILE} sets {', '.join(ignored)}, which can"
        " run programs or send data and secrets."
    )


def trust_notes(settings: Settings, folder: Path | None = None) -> list[str]:
    """`untrusted_notice` of `settings` as a list of notes (empty when nothing was ignored)."""
    return [untrusted_notice(settings.ignored_keys, folder)] if settings.ignored_keys else []
