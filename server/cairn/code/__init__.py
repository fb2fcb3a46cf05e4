"""Tree-sitter code intelligence: languages, outlines, whole-block chunks, incremental
parsing, and recognising minified or generated files (`generated`).

Names are exported lazily: importing `cairn.code` loads no grammar and no parser module;
each grammar is loaded the first time a file of its language is handled.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.code.chunking import Chunk, chunk_text
    from cairn.code.incremental import ParsedDocument, TextEdit
    from cairn.code.languages import LANGUAGES, language_for_path
    from cairn.code.outlines import outline
    from cairn.code.tags import Definition, find_definitions

_EXPORTS: dict[str, str] = {
    "Chunk": "cairn.code.chunking",
    "chunk_text": "cairn.code.chunking",
    "ParsedDocument": "cairn.code.incremental",
    "TextEdit": "cairn.code.incremental",
    "LANGUAGES": "cairn.code.languages",
    "language_for_path": "cairn.code.languages",
    "outline": "cairn.code.outlines",
    "Definition": "cairn.code.tags",
    "find_definitions": "cairn.code.tags",
}

__all__ = [
    "LANGUAGES",
    "Chunk",
    "Definition",
    "ParsedDocument",
    "TextEdit",
    "chunk_text",
    "find_definitions",
    "language_for_path",
    "outline",
]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'cairn.code' has no attribute {name!r}")
    return getattr(importlib.import_module(module_name), name)
