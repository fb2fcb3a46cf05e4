"""The record types a trace stores, one module-level pydantic `TypeAdapter` each.

JSONL lines and JSON documents are validated with `validate_json` (fast, and
a bad line raises `ValidationError`, which the loader skips and counts).
Everything is written camelCase, the wire shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from cairn.errors import InvalidRequestError
from cairn.models.goals import GoalTree
from cairn.models.manifest import Manifest
from cairn.models.messages import MESSAGE_ADAPTER, Message
from cairn.models.session import JournalRecord, SessionMeta
from cairn.trace.names import check_name

MANIFEST_ADAPTER: TypeAdapter[Manifest] = TypeAdapter(Manifest)
META_ADAPTER: TypeAdapter[SessionMeta] = TypeAdapter(SessionMeta)
GOALS_ADAPTER: TypeAdapter[GoalTree] = TypeAdapter(GoalTree)
JOURNAL_ADAPTER: TypeAdapter[JournalRecord] = TypeAdapter(JournalRecord)

GOAL_FILE = "goal.json"
MESSAGES_FILE = "messages.jsonl"
META_FILE = "meta.json"
MANIFESTS_FILE = "manifests.jsonl"
JOURNAL_FILE = "journal.jsonl"
ARTIFACTS_DIR = "artifacts"
BRANCHES_DIR = "branches"
LOCK_FILE = "lock"
# Names a trace's small documents (`Trace.read_doc`) may not take.
RESERVED_NAMES = frozenset(
    {
        GOAL_FILE,
        MESSAGES_FILE,
        META_FILE,
        MANIFESTS_FILE,
        JOURNAL_FILE,
        ARTIFACTS_DIR,
        BRANCHES_DIR,
        LOCK_FILE,
    }
)
DOC_SUFFIX = ".json"

T = TypeVar("T")


class DamagedRecordError(InvalidRequestError):
    """A trace document (`meta.json`, `goal.json`) exists but cannot be read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: not a valid {path.name}: {reason}")
        self.path = path
        self.reason = reason


def load_document(path: Path, adapter: TypeAdapter[T]) -> T | None:
    """A JSON document, None when absent; `DamagedRecordError` naming the file when corrupt."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DamagedRecordError(path, exc.strerror or str(exc)) from None
    try:
        return adapter.validate_json(data)
    except ValidationError as exc:
        raise DamagedRecordError(path, exc.errors()[0]["msg"]) from None


def check_doc_name(name: str) -> str:
    """`name` if it may name a trace's small document (`<plain name>.json`, not a record file)."""
    check_name(name, "document")
    if name in RESERVED_NAMES or not name.endswith(DOC_SUFFIX):
        raise InvalidRequestError(
            f"invalid trace document name {name!r}: use a plain `<name>.json` other than "
            f"{', '.join(sorted(RESERVED_NAMES))}"
        )
    return name


def dump_message(message: Message) -> bytes:
    return MESSAGE_ADAPTER.dump_json(message, by_alias=True)


def dump_manifest(manifest: Manifest) -> bytes:
    return MANIFEST_ADAPTER.dump_json(manifest, by_alias=True)


def dump_meta(meta: SessionMeta) -> bytes:
    return META_ADAPTER.dump_json(meta, by_alias=True, indent=2)


def dump_record(record: JournalRecord) -> bytes:
    return JOURNAL_ADAPTER.dump_json(record, by_alias=True)


def dump_goals(tree: GoalTree) -> bytes:
    return GOALS_ADAPTER.dump_json(tree, by_alias=True, indent=2)
