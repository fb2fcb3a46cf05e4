"""Ids and names used as file names in the trace store, and their validation.

Everything that becomes part of a path is checked against a strict pattern,
so no id or name can reach outside its folder.
"""

from __future__ import annotations

import re
import secrets

from cairn.errors import InvalidRequestError
from cairn.models.base import utc_now

SESSION_RANDOM_BYTES = 3
MICROS_PER_MILLI = 1000

# A doc, cache or branch name: a plain file name, no leading dot, no separators.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
ARTIFACT_KIND_PATTERN = re.compile(r"[a-z0-9_]{1,32}")
# An artifact id is `<kind>-<digest>`: the xxh3-64 of the content in this many hex digits
# (`Trace.write_artifact`); traces written before 2026-12 have 32 (xxh3-128).
ARTIFACT_DIGEST_CHARS = 16
LEGACY_ARTIFACT_DIGEST_CHARS = 32
ARTIFACT_ID_PATTERN = re.compile(
    rf"[a-z0-9_]{{1,32}}-(?:[0-9a-f]{{{ARTIFACT_DIGEST_CHARS}}}"
    rf"|[0-9a-f]{{{LEGACY_ARTIFACT_DIGEST_CHARS}}})"
)


def new_session_id() -> str:
    """A sortable, unique id: UTC time to the millisecond, then random hex.

    e.g. `20261129-221414123-a1b2c3`; ids sort in creation order (to the ms).
    """
    now = utc_now()
    millis = now.microsecond // MICROS_PER_MILLI
    return f"{now:%Y%m%d-%H%M%S}{millis:03d}-{secrets.token_hex(SESSION_RANDOM_BYTES)}"


def check_name(name: str, what: str) -> str:
    """`name` if it is a safe plain file name, else InvalidRequestError."""
    if not NAME_PATTERN.fullmatch(name) or ".." in name:
        raise InvalidRequestError(
            f"invalid {what} name {name!r}: use letters, digits, '.', '_' or '-' "
            "(no leading dot, no path separators)"
        )
    return name


def placeholder_artifact_id(kind: str = "text") -> str:
    """An id as long as a real one of `kind`, for a text measured before it is stored."""
    return f"{kind}-" + "0" * ARTIFACT_DIGEST_CHARS


def check_artifact_kind(kind: str) -> str:
    """`kind` if it is a valid artifact kind (`text`, `patch`, `log`...)."""
    if not ARTIFACT_KIND_PATTERN.fullmatch(kind):
        raise InvalidRequestError(f"invalid artifact kind {kind!r}: use a-z, 0-9 and '_'")
    return kind


def check_artifact_id(artifact_id: str) -> str:
    """`artifact_id` if it has the shape of an artifact id (`<kind>-<16 hex>`, or 32 hex in older traces)."""
    if not ARTIFACT_ID_PATTERN.fullmatch(artifact_id):
        raise InvalidRequestError(f"invalid artifact id {artifact_id!r}")
    return artifact_id
