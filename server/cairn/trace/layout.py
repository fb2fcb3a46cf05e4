"""Creating a trace folder atomically: build it under a hidden temp name, then rename.

A crash while creating or forking a session leaves at most a hidden
`.tmp-*` folder (ignored by listings), never a half-made trace. Every new
trace starts its journal with where it comes from (a `SessionRecord`, with
what a fork inherits: allowed commands, context limits, the model setting)
and a record of each turn it already has (a fork's).
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cairn.models.session import SessionMeta, SessionRecord, TurnRecord
from cairn.trace import records
from cairn.trace.files import atomic_write, fsync_dir

TEMP_DIR_PREFIX = ".tmp-"
TEMP_DIR_RANDOM_BYTES = 4


@dataclass
class Pending:
    """A session not written yet: its metadata, and what to do before its folder is made
    (`create_atomically` makes it on the session's first write)."""

    meta: SessionMeta
    prepare: Callable[[], None]


def create_atomically(
    target: Path, meta: SessionMeta, populate: Callable[[Path], None] | None = None
) -> None:
    """Create the trace folder `target` with `meta.json` (and whatever `populate` writes)."""
    tmp = (
        target.parent / f"{TEMP_DIR_PREFIX}{target.name}-{secrets.token_hex(TEMP_DIR_RANDOM_BYTES)}"
    )
    tmp.mkdir()
    try:
        atomic_write(tmp / records.META_FILE, records.dump_meta(meta))
        atomic_write(tmp / records.JOURNAL_FILE, journal_start(meta))
        if populate is not None:
            populate(tmp)
        fsync_dir(tmp)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(target.parent)


def journal_start(meta: SessionMeta) -> bytes:
    """The first lines of a new trace's journal: its origin, then the turns it starts with."""
    origin = SessionRecord(
        id=meta.id,
        title=meta.title,
        parent_id=meta.parent_id,
        fork_message_id=meta.fork_message_id,
        created_at=meta.created_at,
        model=meta.model,
        configured_model=meta.configured_model,
        context_limits=meta.context_limits,
        allowed_commands=meta.allowed_commands,
    )
    lines = [
        records.dump_record(origin),
        *(records.dump_record(TurnRecord(turn=t)) for t in meta.turns),
    ]
    return b"".join(line + b"\n" for line in lines)


def folder_created_at(folder: Path) -> datetime:
    """When a trace folder was made, as far as the file system knows (its oldest timestamp)."""
    try:
        stat = folder.stat()
    except OSError:
        return datetime.now(UTC)
    return datetime.fromtimestamp(min(stat.st_mtime, stat.st_ctime), UTC)
