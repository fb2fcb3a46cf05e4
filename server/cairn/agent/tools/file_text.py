"""What the model saw of a file, and the file's text with its encoding, for read_file and edit_file.

`current_text` is the text a tool works on: the editor's (unsaved text an ACP
client holds, or an open buffer: already text, written back through the
editor), else the disk's bytes decoded by `cairn.files.encoding` (BOM,
UTF-16, cp1252/Latin-1 kept: the `Decoded` says how to write it back).

`last_seen_hash` is the content hash of a file as the model last saw it in
this session — its last `read_file` of it or its own last `edit_file` — from
this turn's calls (`ToolContext.seen_hashes`, set as each call ends) and
then the session's recorded tool results. edit_file refuses to change a
file whose text differs from it (`stale_refusal`): someone changed it since.
"""

from __future__ import annotations

from pathlib import Path

from cairn.agent.tools.base import ToolContext, ToolFailure
from cairn.agent.tools.paths import read_refusal
from cairn.files.encoding import Decoded, EncodingRefusal, decode
from cairn.files.reading import MAX_FILE_BYTES, read_bytes_bounded
from cairn.files.text import content_hash
from cairn.models.messages import ToolResultPart

READ_TOOL = "read_file"
EDIT_TOOL = "edit_file"
KEY_PATH = "path"
KEY_HASH = "hash"
STALE = (
    "{name} changed since you last read it (someone edited or saved it, or a command rewrote"
    " it); read it again and make the edit on its current text"
)


async def current_text(
    ctx: ToolContext, path: Path, name: str, max_bytes: int = MAX_FILE_BYTES
) -> tuple[str, Decoded | None]:
    """(the text, how the disk holds it — None when the editor holds the text)."""
    text = await ctx.editor_text(path)
    if text is not None:
        return text, None
    buffer = ctx.workspace.buffers.get(path)
    if buffer is not None:
        return buffer.text, None
    try:
        data = read_bytes_bounded(path, max_bytes)
    except OSError as error:
        raise read_refusal(name, error) from error
    try:
        decoded = decode(data, name)
    except EncodingRefusal as refusal:
        raise ToolFailure(str(refusal)) from None
    return decoded.text, decoded


def last_seen_hash(ctx: ToolContext, name: str) -> str | None:
    """The hash of `name`'s text as the model last read or wrote it (None: never)."""
    if name in ctx.seen_hashes:
        return ctx.seen_hashes[name]
    if ctx.scope is None:
        return None
    for message in reversed(ctx.scope.session.messages()):
        for part in reversed(message.parts):
            if not isinstance(part, ToolResultPart):
                continue
            data = part.data or {}
            if part.ok and part.name in (READ_TOOL, EDIT_TOOL) and data.get(KEY_PATH) == name:
                seen = data.get(KEY_HASH)
                return str(seen) if seen is not None else None
    return None


def check_not_stale(ctx: ToolContext, name: str, text: str) -> None:
    """A refusal when the model last saw `name` with other text than `text`."""
    seen = last_seen_hash(ctx, name)
    if seen is not None and seen != content_hash(text):
        raise ToolFailure(STALE.format(name=name))


def saw(ctx: ToolContext, name: str, text: str) -> None:
    """Record that the model has seen (read or written) `text` as `name` in this turn."""
    ctx.seen_hashes[name] = content_hash(text)
