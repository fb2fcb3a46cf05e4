"""Which paths are secret: the one rule every reader of files obeys (references, buffers,
tools, diffs, the profile).

Built in: file names that hold credentials or private keys
(`SECRET_NAME_PATTERNS`, case-insensitive, minus the `.env` templates in
`SECRET_EXEMPT_NAMES`) and folders whose every file is secret
(`SECRET_DIR_NAMES`). On top of them a `SecretPaths` carries the user's
lists (settings `secret_paths` and `secret_path_exemptions`,
gitignore-style patterns matched against the folder-relative path):

1. a path matching `secret_paths` is secret (the deny list wins: adding a
   path can only hide more);
2. else a path matching `secret_path_exemptions` is not (e.g. a test
   fixture `tests/fixtures/server.key`);
3. else the built-in rules decide.

`SecretPaths.rule_for(relative)` names the rule that makes a path secret
(for the refusal message), or None. Secret *values* inside ordinary files
are `cairn.files.redaction`'s business.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

import pathspec

# File names (matched case-insensitively) that hold credentials or private keys.
SECRET_NAME_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".htpasswd",
)
# `.env` templates that are documentation, not secrets (they match `.env.*`).
SECRET_EXEMPT_NAMES: frozenset[str] = frozenset(
    {".env.example", ".env.sample", ".env.template", ".env.dist"}
)
# Folders whose every file is treated as secret.
SECRET_DIR_NAMES: frozenset[str] = frozenset({".ssh", ".gnupg", ".aws"})


def builtin_rule(path: PurePath) -> str | None:
    """The built-in secret pattern `path` matches (its name or a folder on it), or None."""
    name = path.name.lower()
    if name not in SECRET_EXEMPT_NAMES:
        for pattern in SECRET_NAME_PATTERNS:
            if fnmatch.fnmatchcase(name, pattern):
                return pattern
    for part in path.parts:
        if part.lower() in SECRET_DIR_NAMES:
            return f"{part}/"
    return None


def compile_path_patterns(patterns: Sequence[str], origin: str) -> pathspec.GitIgnoreSpec:
    """Gitignore-style patterns as one matcher; `ValueError` naming `origin` when invalid."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(list(patterns))
    except (ValueError, TypeError) as error:
        raise ValueError(f"{origin}: invalid pattern: {error}") from None


@dataclass(frozen=True)
class SecretPaths:
    """The secret-path rules of one workspace: the user's deny and allow lists, then built-ins."""

    deny: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    _deny: pathspec.GitIgnoreSpec | None = field(default=None, init=False, repr=False)
    _allow: pathspec.GitIgnoreSpec | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.deny:
            object.__setattr__(self, "_deny", compile_path_patterns(self.deny, "secret_paths"))
        if self.allow:
            spec = compile_path_patterns(self.allow, "secret_path_exemptions")
            object.__setattr__(self, "_allow", spec)

    def rule_for(self, relative: PurePath) -> str | None:
        """The rule making this folder-relative path secret (a pattern), or None."""
        posix = relative.as_posix()
        if self._deny is not None:
            hit = self._deny.check_file(posix)
            if hit.include and hit.index is not None:
                return self.deny[hit.index]
        if self._allow is not None and self._allow.check_file(posix).include:
            return None
        return builtin_rule(relative)

    def is_secret(self, relative: PurePath) -> bool:
        return self.rule_for(relative) is not None


# The rules with no user lists (tests, and readers that have no settings).
DEFAULT_SECRET_PATHS = SecretPaths()
