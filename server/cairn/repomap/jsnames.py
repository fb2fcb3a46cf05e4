"""The names a JavaScript or TypeScript file defines, found without parsing it.

The repository map ranks files by the names they define and use; parsing every file of a
cold build only to learn those names costs most of the build (tree-sitter parses 5-10 MB/s).
This finder looks, in the file's bytes with comments blanked, for the kinds of
definitions the tags queries (`grammars/javascript-tags.scm`, `typescript-tags.scm`)
capture:

- declarations: `class`, `function` (and TypeScript overload signatures), `interface`,
  `type X =`, `enum`, `namespace` / `module`;
- `const` / `let` / `var` and assignments (`a.b.name = ...`) whose value is a function,
  an arrow function or a class;
- members: methods and method signatures of class bodies, method signatures of
  interfaces and object types, methods and `key: function-or-arrow` pairs of object
  literals assigned to a name.

Like the Python finder, each keyword is searched for on its own (a literal the regular
expression engine skips to quickly) and kept when only indentation and modifiers
(`export`, `default`, `declare`, `abstract`, `async`) precede it on its line. Nesting is
read from indentation, as formatted code shows it: declarations nested more than
MAX_LEVEL indentation levels deep (locals of callbacks inside function bodies) are left
out, as the query, run with `MAX_DEFINITION_DEPTH`, leaves deep definitions out. Members
are the lines one level inside a class, interface, object type or object literal, up to
its closing brace at the opening line's indentation.

The names are close to the query's, not equal to them (code laid out unusually, or
where the grammar recovers from a syntax error). The map ranks with these names only;
the outlines it shows come from parsing the files it shows.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from cairn.code.tags import short_name

JS_LANGUAGES = ("javascript", "typescript", "tsx")
MAX_LEVEL = 2
"""Deepest indentation level (in the file's indentation unit) of a declaration kept."""
MAX_CONTAINER_LEVEL = 2
"""Deepest indentation level of a class, interface or object whose members are kept."""
DEFAULT_UNIT = 2

JS_NOISE = re.compile(rb"/(?<![\w\"'*/.:\\]/)(?:/[^\n]*|\*.*?\*/)", re.DOTALL)
# Its line comments alone (`cairn.repomap.comments.sub_comments`).
JS_LINE_NOISE = re.compile(rb"/(?<![\w\"'*/.:\\]/)/[^\n]*")
"""Comments, but not a `//` or `/*` right after a word, a quote, `*`, `/`, `.`, `:` or a
backslash: inside a string (`"/*"`, `"http://..."`, `"src/**/*.ts"`), not a comment,
which would hide the code up to the next `*/`. Blanked (to one space) before counting
uses and finding names."""
_NAME = rb"[A-Za-z_$][\w$]*"
_PREFIX = re.compile(rb"([ \t]*)(?:(?:export|default|declare|abstract|async|const)[ \t]+)*")
"""What may precede a declaration keyword on its line."""
_DECLARATIONS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    ("class", re.compile(rb"class[ \t]+(" + _NAME + rb")")),
    ("type", re.compile(rb"interface[ \t]+(" + _NAME + rb")")),
    ("enum", re.compile(rb"enum[ \t]+(" + _NAME + rb")")),
    ("module", re.compile(rb"namespace[ \t]+(" + _NAME + rb"(?:\." + _NAME + rb")*)")),
    ("module", re.compile(rb"module[ \t]+(" + _NAME + rb"(?:\." + _NAME + rb")*|\"[^\"\n]*\"|'[^'\n]*')")),
    ("alias", re.compile(rb"type[ \t]+(" + _NAME + rb")[ \t]*(?:<[^\n]*?>)?[ \t]*=(?![=>])")),
    ("function", re.compile(rb"function[ \t]*\*?[ \t]*(" + _NAME + rb")")),
)  # fmt: skip
_ASSIGNED = re.compile(
    rb"=(?![=>])[ \t]*(?=(?:async\b|function\b|class\b|<|\(|\{[ \t]*\n|" + _NAME + rb"[ \t]*=>))"
)
"""An `=` whose value may be a function, a class or an object literal (literal first: the
engine skips to each `=` quickly)."""
_COMPOUND = frozenset(b"=!<>+-*/%&|^?")
"""An `=` after one of these is a comparison or a compound assignment."""
_DECLARED = re.compile(
    rb"([ \t]*)(?:(?:export|declare)[ \t]+)*(?:const|let|var)[ \t]+(" + _NAME + rb")[ \t]*"
    rb"(?::(?:[^=\n]|=>)*)?"
)
_ASSIGNMENT = re.compile(
    rb"([ \t]*)((?:" + _NAME + rb")(?:[ \t]*\.[ \t]*#?" + _NAME + rb")*)[ \t]*"
)
_FUNCTION = re.compile(
    rb"(?:async[ \t]+)?(?:function|class)(?![\w$])"
    rb"|(?:async[ \t]+)?" + _NAME + rb"[ \t]*=>"
    rb"|(?:async[ \t]*)?(?:<[^\n]*?>[ \t]*)?\((?:[^()\n]|\([^()\n]*\))*\)[ \t]*(?::[^\n]*?)?=>"
)
_OPEN_PARAMS = re.compile(rb"(?:async[ \t]*)?(?:<[^\n]*?>[ \t]*)?\([^\n]*\n")
"""A parenthesis whose contents may continue on the next lines (arrow parameters)."""
_OBJECT = re.compile(rb"\{[ \t]*\n")
_INDENTED = re.compile(rb"\n([ \t]*)(?=[^ \t\n])")
_FIRST_INDENT = re.compile(rb"\n([ \t]+)[^ \t\n]")
_MODIFIERS = (
    rb"(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract|declare"
    rb"|accessor)[ \t]+)*"
)

_BODY_OPENERS = (b" {", b"){", b">{")
"""How a line opening a body ends (`<{` and `({` open a type or an argument instead)."""

_CONTINUED = (b"({", b"[{", b"<{", b"(", b"[", b"<", b",")
"""A closing line ending like this opens brackets again (`})({`): the header goes on."""

Container = Literal["class", "type", "object"]


@cache
def _members(indent: bytes) -> re.Pattern[bytes]:
    """Member lines at exactly `indent`: (name, what follows it)."""
    return re.compile(
        rb"\n" + re.escape(indent) + rb"(?![ \t])" + _MODIFIERS + rb"\*?[ \t]*"
        rb"(#?" + _NAME + rb"|\[[^\]\n]*\]|\"[^\"\n]*\"|'[^'\n]*')[ \t]*[?!]?[ \t]*([(<:])"
    )


@cache
def _outdented(width: int) -> re.Pattern[bytes]:
    """The next line indented `width` columns or less: (its indentation, its text)."""
    return re.compile(rb"\n([ \t]{0,%d})([^ \t\n][^\n]*)" % width)


def javascript_definitions(code: bytes) -> list[tuple[int, str]]:
    """(offset in `code`, name) of every definition found, in file order; `code` is the
    file's bytes with comments blanked by JS_NOISE."""
    return [(at - 1, name) for at, name in _Finder(code).run()]


def javascript_defined_names(code: bytes) -> list[str]:
    """Names a JavaScript or TypeScript file defines, in file order (see the module);
    `code` is the file's bytes with comments blanked by JS_NOISE."""
    return [name for _at, name in _Finder(code).run()]


class _Finder:
    def __init__(self, code: bytes) -> None:
        self.code = b"\n" + code
        first = _FIRST_INDENT.search(self.code)
        self.unit = len(first.group(1)) if first is not None else DEFAULT_UNIT
        """Indentation unit: that of the first indented line (a tab counts one)."""
        self.found: list[tuple[int, str]] = []
        self.classes: list[tuple[int, int, bytes]] = []
        """(body start, body end, member indentation) of each class body seen."""

    def run(self) -> list[tuple[int, str]]:
        for kind, pattern in _DECLARATIONS:
            for match in pattern.finditer(self.code):
                self._declaration(kind, match)
        for match in _ASSIGNED.finditer(self.code):
            self._assigned(match)
        return sorted(self.found)

    def _line(self, at: int) -> tuple[int, bytes]:
        """(start of the line holding `at`, the text from there to `at`)."""
        start = self.code.rfind(b"\n", 0, at) + 1
        return start, self.code[start:at]

    def _level(self, indent: bytes) -> int:
        return len(indent) // self.unit

    def _add(self, at: int, raw: bytes) -> None:
        name = short_name(raw.decode("utf-8", errors="replace"))
        if name:
            self.found.append((at, name))

    def _declaration(self, kind: str, match: re.Match[bytes]) -> None:
        _start, before = self._line(match.start())
        prefix = _PREFIX.fullmatch(before)
        if prefix is None:
            return
        indent = prefix.group(1)
        level = self._level(indent)
        if level > MAX_LEVEL:
            return
        self._add(match.start(1), match.group(1))
        if level > MAX_CONTAINER_LEVEL:
            return
        if kind == "class":
            self._container("class", indent, match.end())
        elif kind == "type" or (
            kind == "alias" and _OBJECT.match(self.code, self._skip_blanks(match.end()))
        ):
            self._container("type", indent, match.end())

    def _skip_blanks(self, at: int) -> int:
        while at < len(self.code) and self.code[at] in b" \t":
            at += 1
        return at

    def _assigned(self, match: re.Match[bytes]) -> None:
        """`const name = <function>` or `a.b.name = <function>` at the start of a line."""
        if self.code[match.start() - 1] in _COMPOUND:
            return
        start, before = self._line(match.start())
        declared = _DECLARED.fullmatch(before)
        target = declared or _ASSIGNMENT.fullmatch(before)
        if target is None:
            return
        indent, left = target.group(1), target.group(2)
        value = match.end()
        if self._level(indent) > MAX_LEVEL or (declared is None and self._in_class(start, indent)):
            return
        if _OBJECT.match(self.code, value):
            if self._level(indent) <= MAX_CONTAINER_LEVEL:
                self._container("object", indent, value)
            return
        if self._function(value, indent):
            self._add(match.start(), left.rsplit(b".", 1)[-1].strip())

    def _in_class(self, at: int, indent: bytes) -> bool:
        """True for a line at the member indentation of a class body (a field)."""
        return any(start <= at < end and indent == inner for start, end, inner in self.classes)

    def _function(self, at: int, indent: bytes) -> bool:
        """True when the value at `at` is a function, an arrow function or a class."""
        if _FUNCTION.match(self.code, at):
            return True
        if not _OPEN_PARAMS.match(self.code, at):
            return False
        closing = self._closing_line(at, indent)
        return closing is not None and b"=>" in closing.group(2)

    def _closing_line(self, at: int, indent: bytes) -> re.Match[bytes] | None:
        """The line at `indent` that closes the brackets opened on the line of `at`
        (`}): T => {` after multi-line parameters; group 2 is its text), or None."""
        line_end = self.code.find(b"\n", at)
        if line_end < 0:
            return None
        for line in _outdented(len(indent)).finditer(self.code, line_end):
            text = line.group(2).rstrip()
            if line.group(1) != indent or text[:1] not in b")}]>":
                return None
            if not text.endswith(_CONTINUED):
                return line
        return None

    def _container(self, kind: Container, indent: bytes, at: int) -> None:
        """The members one level inside the body opened after `at` (on that line or the
        next ones) and closed by a `}` at `indent`."""
        code = self.code
        line_end = self._body_start(at, indent)
        if line_end < 0:
            return
        close = code.find(b"\n" + indent + b"}", line_end)
        end = close if close >= 0 else len(code)
        inner = _INDENTED.search(code, line_end, end)
        if inner is None or len(inner.group(1)) <= len(indent):
            return
        if kind == "class":
            self.classes.append((line_end, end, inner.group(1)))
        for member in _members(inner.group(1)).finditer(code, inner.start(), end):
            self._member(kind, member)

    def _body_start(self, at: int, indent: bytes) -> int:
        """End of the line opening the body of a declaration whose header starts at `at`:
        its own line ending with ` {`, or the line at its indentation closing the header's
        brackets (`}) {`, `}> {`, as `class A extends B({ ... }) {` is laid out); -1 when
        the body closes on its own line or none follows."""
        code = self.code
        line_end = code.find(b"\n", at)
        if line_end < 0:
            return -1
        header = code[at:line_end].rstrip()
        if header.endswith(_BODY_OPENERS) or header == b"{":
            return line_end
        if not header.endswith((b"{", b"(", b"[", b"<")):
            return -1
        closing = self._closing_line(at, indent)
        if closing is None or not closing.group(2).rstrip().endswith(_BODY_OPENERS):
            return -1
        return closing.end()

    def _member(self, kind: Container, match: re.Match[bytes]) -> None:
        raw, follows = match.group(1), match.group(2)
        at = match.start(1)
        if follows == b":":
            if kind == "object" and raw[:1] not in b"[\"'#":
                value = self._skip_blanks(match.end())
                if _FUNCTION.match(self.code, value):
                    self._add(at, raw)
            return
        if kind == "type" and raw == b"new":
            return
        self._add(at, raw)
