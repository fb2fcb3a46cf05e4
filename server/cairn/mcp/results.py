"""MCP tool results and resources as text for the model, the way built-in tools answer.

Text content is kept as it is. Images and audio are not sent to the model:
each is noted with its type and size (and kept as a trace artifact when a
store is given). A resource link becomes a reference the model can read with
`read_file(path='mcp:<server>/<uri>')`; an embedded text resource is shown
under its URI, an embedded binary one is noted like an image. Structured
content is shown as JSON when the result has no text. The caller shortens the
text like any tool output (head and tail inline, the whole in an artifact).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cairn.mcp.tools import MCP_REF_PREFIX

if TYPE_CHECKING:
    import mcp_types

# Stores binary content (bytes, artifact kind) and returns its artifact id, or None.
StoreBinary = Callable[[bytes, str], str | None]

NO_OUTPUT = "(no output)"
KIB = 1024
BYTE_UNITS = ("B", "KB", "MB", "GB")


def format_size(size: int) -> str:
    """`812 B`, `12.3 KB`, `4.1 MB`."""
    value = float(size)
    for unit in BYTE_UNITS[:-1]:
        if value < KIB:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= KIB
    return f"{value:.1f} {BYTE_UNITS[-1]}"


def resource_ref(server: str, uri: str) -> str:
    """The `read_file` path of a resource: `mcp:<server>/<uri>`."""
    return f"{MCP_REF_PREFIX}{server}/{uri}"


def _decode(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def binary_note(kind: str, mime: str | None, data: str, store: StoreBinary | None) -> str:
    """`[image image/png, 12.3 KB, kept as artifact image-…; not shown to the model]`."""
    raw = _decode(data)
    if raw is None:
        return f"[{kind} {mime or ''}: not valid base64; not shown to the model]"
    artifact = store(raw, kind) if store is not None else None
    kept = f", kept as artifact {artifact}" if artifact else ""
    label = f"{kind} {mime}" if mime else kind
    return f"[{label}, {format_size(len(raw))}{kept}; not shown to the model]"


def _link(server: str, block: mcp_types.ResourceLink) -> str:
    facts = [f for f in (block.mime_type, format_size(block.size) if block.size else None) if f]
    detail = f" ({', '.join(facts)})" if facts else ""
    about = f": {block.description}" if block.description else ""
    ref = resource_ref(server, str(block.uri))
    return f"[resource {block.name}{detail}{about} — read it with read_file(path='{ref}')]"


def _embedded(block: mcp_types.EmbeddedResource, store: StoreBinary | None) -> str:
    resource = block.resource
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f"[resource {resource.uri}]\n{text}"
    blob = str(getattr(resource, "blob", ""))
    return f"[resource {resource.uri}] " + binary_note("blob", resource.mime_type, blob, store)


def render_block(server: str, block: Any, store: StoreBinary | None) -> str:
    """One content block as text (see the module docstring)."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return binary_note(kind, block.mime_type, block.data, store)
    if kind == "resource_link":
        return _link(server, block)
    if kind == "resource":
        return _embedded(block, store)
    return f"[{kind or 'unknown'} content; not shown to the model]"


def render_content(
    server: str,
    blocks: Sequence[Any],
    structured: Any = None,
    store: StoreBinary | None = None,
) -> str:
    """A result's content blocks as one text; structured content when there is no text."""
    parts = [render_block(server, block, store) for block in blocks]
    has_text = any(getattr(block, "type", None) == "text" for block in blocks)
    if structured is not None and not has_text:
        parts.append(json.dumps(structured, indent=2, ensure_ascii=False, default=str))
    text = "\n".join(p for p in parts if p)
    return text if text.strip() else NO_OUTPUT


def render_resource(contents: Sequence[Any], store: StoreBinary | None = None) -> str:
    """A read resource's contents as text (text parts as they are, binary parts noted)."""
    parts: list[str] = []
    for item in contents:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            note = binary_note("blob", item.mime_type, str(getattr(item, "blob", "")), store)
            parts.append(f"[{item.uri}] {note}")
    return "\n".join(parts)
