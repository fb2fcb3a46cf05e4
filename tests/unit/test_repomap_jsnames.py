"""JavaScript and TypeScript names found without parsing, and files parsed in parts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cairn.repomap.jsnames import JS_NOISE, javascript_defined_names
from cairn.repomap.jsparts import js_parts
from cairn.repomap.parts import parse_whole
from cairn.repomap.render import file_block
from cairn.repomap.tags import FileTags, definitions_for, scan, with_found

WORKSPACES = Path(__file__).resolve().parents[1] / "workspaces"

SAMPLE = b"""\
/// <reference lib="esnext" />
import { pipe } from "./Function.js"

/**
 * A documented interface.
 * export function notAFunction() {}
 */
export interface Store<A> {
  readonly size: number
  get(key: string): A | undefined
  set?(key: string, value: A): void
  readonly onChange: (listener: () => void) => void
}

export type Options = {
  readonly limit: number
  validate(input: unknown): boolean
}

export type Alias = string | number

export enum Color { Red, Green }

export declare namespace Store {
  export type Key = string
  export interface Entry {
    readonly key: Key
  }
}

export abstract class Base<A> implements Store<A> {
  readonly size = 0
  private handler = () => this.size
  constructor(readonly name: string) {}
  abstract get(key: string): A | undefined
  set(key: string, value: A): void {
    const local = (item: A) => item
    local(value)
  }
  static create<B>(): Base<B> | undefined {
    return undefined
  }
  get label(): string {
    return "/*" + this.name
  }
  [Symbol.iterator]() {
    return [][Symbol.iterator]()
  }
}

export class Tagged extends Data.TaggedError("Tagged")<{
  readonly reason: string
}> {
  get isRetryable(): boolean {
    return false
  }
}

export const make = <A>(name: string): Store<A> => new Map() as never

export const layer = (
  options: { readonly size: number }
): number => options.size

export const notAFunction = pipe(1, (n) => n + 1)

export const handlers = {
  onOpen: () => 1,
  onClose(code: number) {
    return code
  },
  label: "x",
}

export function overloaded(a: string): string
export function overloaded(a: number): number
export function overloaded(a: unknown): unknown {
  function nested() {
    return a
  }
  return nested()
}

exports.legacy = function (value) {
  return value
}
"""


def _lexical(data: bytes) -> Counter[str]:
    return Counter(javascript_defined_names(JS_NOISE.sub(b" ", data)))


def _query(data: bytes, language: str = "typescript") -> Counter[str]:
    return Counter(record[0] for record in parse_whole(data, language))


def test_sample_names_equal_the_tags_query() -> None:
    assert _lexical(SAMPLE) == _query(SAMPLE)
    assert "notAFunction" not in _lexical(SAMPLE)  # a value that is a call, and a docstring


def test_fixture_workspaces_names_equal_the_tags_query() -> None:
    sources = [
        path
        for path in sorted(WORKSPACES.rglob("*"))
        if path.suffix in (".ts", ".js", ".tsx") and path.is_file()
    ]
    assert sources
    for path in sources:
        data = path.read_bytes()
        language = "javascript" if path.suffix == ".js" else "typescript"
        assert _lexical(data) == _query(data, language), path


def test_a_comment_marker_inside_a_string_hides_nothing() -> None:
    data = b'const glob = "src/**/*.ts"\nconst url = "http://x"\n\nexport function after() {}\n'
    assert _lexical(data) == Counter({"after": 1})


def test_locals_of_deeply_nested_callbacks_are_left_out() -> None:
    data = (
        b"export const run = () => {\n"
        b"  const top = () => 1\n"
        b"  describe(() => {\n"
        b"    it(() => {\n"
        b"      const deep = () => 2\n"
        b"    })\n"
        b"  })\n"
        b"}\n"
    )
    assert _lexical(data) == Counter({"run": 1, "top": 1})


def test_scan_of_typescript_parses_nothing() -> None:
    tags = scan(SAMPLE, "typescript")
    assert tags.definitions is None and tags.name_parts is None
    assert "Base" in tags.names and "make" in tags.names


def _outline(data: bytes, names: set[str], parts: bool) -> str:
    tags = scan(data, "typescript")
    if parts:
        tags = with_found(tags, definitions_for(data, "typescript", names, None))
    else:
        tags = FileTags(tags.names, tags.references, parse_whole(data, "typescript"))
    return file_block("sample.ts", tags.shown_definitions(names), names)


def test_outlines_from_parts_equal_a_whole_parse() -> None:
    for names in ({"get"}, {"isRetryable", "make"}, {"Entry", "Key"}, {"onClose", "nested"}):
        assert _outline(SAMPLE, names, parts=True) == _outline(SAMPLE, names, parts=False)


def test_parts_are_the_top_level_statements_holding_each_name() -> None:
    parts = js_parts(SAMPLE)
    (span,) = parts["isRetryable"]
    assert SAMPLE[span[0] : span[1]].startswith(b"export class Tagged")
    assert len(parts["overloaded"]) == 3
    assert "notAFunction" not in parts


def test_parts_hold_exactly_the_names_the_scan_found() -> None:
    commented = SAMPLE.replace(b"export const make", b"/* a\n long\n comment */ export const make")
    for data in (SAMPLE, commented):
        assert set(js_parts(data)) == set(scan(data, "typescript").names)
    (span,) = js_parts(commented)["make"]
    assert commented[span[0] : span[1]].startswith(b"/* a")
