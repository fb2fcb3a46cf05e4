"""A `session/prompt`'s content blocks → the turn's message, references and editor texts.

Pure: no I/O. Files the client mentions become references, so they pass the
same path guard (inside a workspace folder after symlinks, not a secret, not
ignored, under the size limit) and are reported with the same reasons as an
`@path` in `cairn/turn`:

- a `resource_link` or embedded `resource` naming a file (`file://…`, a bare
  absolute path, or Zed's `zed:///agent/file|directory|selection|symbol?path=…`)
  → a reference, and `@<path>` at its place in the message. A line range
  (`#L10:25`) is named in the message ("lines 10-25"); the file is referenced
  whole. A directory yields the builder's tree listing.
- an embedded text resource of a whole file also carries the client's current
  text (unsaved edits included) in `editor_texts`, for the front end to show
  the engine during the turn.
- an embedded text resource that is not a file (another thread, a rule, an
  untitled buffer, a fetched page) is attached to the message under its
  name, up to `ATTACHMENT_MAX_CHARS` (longer ones are left out with a note).
- a link that is not a file is kept as a Markdown link; images, audio and
  binary blobs are left out with a note (Cairn's prompts are text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from cairn.acp.schema import (
    AudioBlock,
    BlobResource,
    ContentBlock,
    EmbeddedResourceBlock,
    ImageBlock,
    ResourceLinkBlock,
    TextBlock,
)

# Longest non-file attachment (another thread, a rule, a web page) put into a message.
ATTACHMENT_MAX_CHARS = 200_000
TEXT_ONLY = "Cairn reads text only"
ZED_SCHEME = "zed"
ZED_PATH_KINDS = frozenset({"file", "directory", "selection", "symbol"})
_LINES = re.compile(r"^L(\d+)(?:[:\-]L?(\d+))?")


@dataclass(frozen=True)
class FileMention:
    """A file (or directory) a URI names, with the lines it points at when it does."""

    path: Path
    lines: tuple[int, int] | None = None


@dataclass
class PromptInput:
    """What one prompt asks: the message text, its references and the client's file texts."""

    message: str = ""
    references: list[str] = field(default_factory=list)
    editor_texts: dict[Path, str] = field(default_factory=dict)
    # Content left out, one line each (images, blobs, over-long attachments), for the log.
    omitted: list[str] = field(default_factory=list)


def _lines(fragment: str) -> tuple[int, int] | None:
    match = _LINES.match(fragment)
    if match is None:
        return None
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) else start
    return (start, max(start, end))


def file_mention(uri: str) -> FileMention | None:
    """The file a URI names, or None when it names something else."""
    if uri.startswith("/"):
        path, _, fragment = uri.partition("#")
        return FileMention(Path(path), _lines(fragment))
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return FileMention(Path(unquote(parsed.path)), _lines(parsed.fragment))
    if parsed.scheme == ZED_SCHEME:
        kind = parsed.path.rstrip("/").rsplit("/", 2)
        query = parse_qs(parsed.query).get("path")
        if query and len(kind) >= 2 and (kind[-1] in ZED_PATH_KINDS or kind[-2] == "symbol"):
            path = Path(query[0])
            if path.is_absolute():
                return FileMention(path, _lines(parsed.fragment))
    return None


def _mention_text(mention: FileMention, show: Callable[[Path], str]) -> str:
    text = f"@{show(mention.path)}"
    if mention.lines is not None:
        start, end = mention.lines
        text += f" (line {start})" if start == end else f" (lines {start}-{end})"
    return text


def _join(pieces: Sequence[str]) -> str:
    """Concatenate text pieces, keeping a space between a mention and the words around it."""
    out = ""
    for piece in pieces:
        if out and piece and not out[-1].isspace() and not piece[0].isspace():
            out += " "
        out += piece
    return out


class _Builder:
    def __init__(self, show: Callable[[Path], str]) -> None:
        self.show = show
        self.result = PromptInput()
        self.pieces: list[str] = []
        self.attachments: list[str] = []

    def mention(self, mention: FileMention) -> None:
        reference = str(mention.path)
        if reference not in self.result.references:
            self.result.references.append(reference)
        self.pieces.append(_mention_text(mention, self.show))

    def link(self, block: ResourceLinkBlock) -> None:
        mention = file_mention(block.uri)
        if mention is not None:
            self.mention(mention)
        else:
            self.pieces.append(f"[{block.title or block.name or block.uri}]({block.uri})")

    def resource(self, block: EmbeddedResourceBlock) -> None:
        resource = block.resource
        mention = file_mention(resource.uri)
        if isinstance(resource, BlobResource):
            self.omit(f"binary resource {resource.uri}")
            if mention is not None:
                self.mention(mention)
            return
        if mention is not None:
            self.mention(mention)
            if mention.lines is None:
                self.result.editor_texts[mention.path] = resource.text
            return
        if len(resource.text) > ATTACHMENT_MAX_CHARS:
            self.omit(
                f"attachment {resource.uri}",
                f"{len(resource.text)} characters, the limit is {ATTACHMENT_MAX_CHARS}",
            )
            return
        self.attachments.append(f"Attached {resource.uri}:\n```\n{resource.text}\n```")

    def omit(self, what: str, why: str = TEXT_ONLY) -> None:
        self.result.omitted.append(f"{what}: {why}")
        self.pieces.append(f"[{what} left out: {why}]")

    def add(self, block: ContentBlock) -> None:
        if isinstance(block, TextBlock):
            self.pieces.append(block.text)
        elif isinstance(block, ResourceLinkBlock):
            self.link(block)
        elif isinstance(block, EmbeddedResourceBlock):
            self.resource(block)
        elif isinstance(block, ImageBlock | AudioBlock):
            self.omit(f"{block.type} {block.mime_type}".strip())

    def build(self) -> PromptInput:
        text = _join(self.pieces).strip()
        self.result.message = "\n\n".join([text, *self.attachments]) if self.attachments else text
        return self.result


def prompt_input(blocks: Sequence[ContentBlock], show: Callable[[Path], str]) -> PromptInput:
    """The turn's inputs from `blocks`; `show` names a path in the message (workspace-relative)."""
    builder = _Builder(show)
    for block in blocks:
        builder.add(block)
    return builder.build()
