"""A file's bytes as text and back, byte for byte: its encoding found, kept, or the edit refused.

`decode(data)` finds the encoding: a BOM names it (UTF-8, UTF-16 LE/BE,
UTF-32 LE/BE; the BOM is kept on writing), else strict UTF-8, else cp1252
when every byte is one of its characters, else Latin-1 (which holds any
byte). The result is used only when encoding its text again gives back
exactly `data` — otherwise `EncodingRefusal` says why, so an edit never
rewrites bytes it was not asked to change (a Latin-1 `é` as U+FFFD).
`encode(text, decoded)` writes the edited text in the same encoding, BOM
included, or refuses with the characters it cannot hold.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

UTF8 = "utf-8"
# BOMs, longest first (UTF-32 LE starts with UTF-16 LE's BOM).
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, UTF8),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Tried in order after UTF-8 for a file without a BOM.
SINGLE_BYTE = ("cp1252", "latin-1")
SHOWN_CHARACTERS = 5


class EncodingRefusal(ValueError):
    """The bytes, or the new text, cannot be written back exactly; the message says why."""


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str
    bom: bytes = b""

    @property
    def is_utf8(self) -> bool:
        return self.encoding == UTF8 and not self.bom


def _try(data: bytes, encoding: str, bom: bytes) -> Decoded | None:
    try:
        text = data[len(bom) :].decode(encoding)
    except UnicodeDecodeError:
        return None
    return Decoded(text, encoding, bom) if bom + text.encode(encoding) == data else None


def decode(data: bytes, name: str = "the file") -> Decoded:
    """The text of `data` in the encoding that gives its bytes back exactly."""
    for bom, encoding in BOMS:
        if data.startswith(bom):
            found = _try(data, encoding, bom)
            if found is None:
                raise EncodingRefusal(
                    f"{name}: starts with a {encoding} byte-order mark but is not valid {encoding}"
                )
            return found
    for encoding in (UTF8, *SINGLE_BYTE):
        found = _try(data, encoding, b"")
        if found is not None:
            return found
    raise EncodingRefusal(f"{name}: its bytes cannot be read and written back exactly")


def encode(text: str, decoded: Decoded, name: str = "the file") -> bytes:
    """`text` in `decoded`'s encoding, BOM first; a refusal naming what it cannot hold."""
    try:
        return decoded.bom + text.encode(decoded.encoding)
    except UnicodeEncodeError:
        lost = sorted({c for c in text if not _encodable(c, decoded.encoding)})
        shown = ", ".join(f"U+{ord(c):04X}" for c in lost[:SHOWN_CHARACTERS])
        raise EncodingRefusal(
            f"{name} is {decoded.encoding}, which cannot hold {shown} of the new text;"
            " write those characters another way (an escape) or keep them out"
        ) from None


def _encodable(char: str, encoding: str) -> bool:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True
