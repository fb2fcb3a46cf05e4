"""Creating a trace folder atomically: build it under a hidden temp name, then rename.

A crash while creating or forking a session leaves at most a hidden
`.tmp-*` folder (ignored by listings), never a half-made trace.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

from cairn.models.session import SessionMeta
from cairn.trace import records
from cairn.trace.files import atomic_write, fsync_dir

TEMP_DIR_PREFIX = ".tmp-"
TEMP_DIR_RANDOM_BYTES = 4


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
        if populate is not None:
            populate(tmp)
        fsync_dir(tmp)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(target.parent)
