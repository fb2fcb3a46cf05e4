"""Scratch workspaces for the benchmarks: a fresh folder, a copied fixture, a scripted model."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCRIPT = "script.jsonl"
# The model name that plays `SCRIPT` (the scripted provider, `cairn.llm.script`).
SCRIPTED_MODEL = f"scripted/{SCRIPT}"


def scratch(prefix: str) -> Path:
    """A new empty folder under the system's temporary directory; the caller removes it."""
    return Path(tempfile.mkdtemp(prefix=prefix))


def fresh_copy(source: Path, target: Path) -> Path:
    """`target` replaced by a copy of `source`."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    return target


def write_script(folder: Path, replies: Sequence[dict[str, Any]]) -> str:
    """Write the scripted model's `replies` (one JSON object a line) into `folder`; returns
    the model name that plays them."""
    text = "".join(json.dumps(reply) + "\n" for reply in replies)
    (folder / SCRIPT).write_text(text, encoding="utf-8")
    return SCRIPTED_MODEL
