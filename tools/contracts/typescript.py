"""Pydantic JSON schema (camelCase aliases) → TypeScript declarations.

Covers what the wire models use: objects with properties (interfaces),
`$ref`, `anyOf` unions, `enum`/`const` literals, arrays, string-keyed maps
(`additionalProperties`) and the JSON scalars. A literal union equal to a
named alias (`GoalStatus`, `Mode`, ...) is written as that alias. Anything
else is an error naming the schema, so a new kind of field cannot slip
through as `any`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Schema = Mapping[str, Any]

SCALARS = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
REF_PREFIX = "#/$defs/"
INDENT = "  "


class SchemaError(ValueError):
    """A JSON schema construct the generator does not translate."""


def literal(value: object) -> str:
    """A TypeScript literal type for a JSON value (`'text'`, `3`, `true`)."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    raise SchemaError(f"no TypeScript literal for {value!r}")


def doc_comment(text: str | None, indent: str = "") -> list[str]:
    """`/** text */` lines (nothing for no text)."""
    if not text:
        return []
    lines = text.strip().replace("*/", "*\\/").splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


@dataclass
class Translator:
    """Translates schemas to TypeScript types; `aliases` maps literal tuples to alias names."""

    aliases: Mapping[tuple[object, ...], str] = field(default_factory=dict)

    def union(self, members: Sequence[str]) -> str:
        unique = list(dict.fromkeys(members))
        return " | ".join(unique)

    def type_of(self, schema: Schema) -> str:
        """The TypeScript type of one (property or item) schema."""
        if "$ref" in schema:
            ref = str(schema["$ref"])
            if not ref.startswith(REF_PREFIX):
                raise SchemaError(f"unsupported $ref {ref!r}")
            return ref[len(REF_PREFIX) :]
        if "anyOf" in schema:
            return self.union([self.type_of(option) for option in schema["anyOf"]])
        if "const" in schema:
            return literal(schema["const"])
        if "enum" in schema:
            values = tuple(schema["enum"])
            return self.aliases.get(values) or self.union([literal(v) for v in values])
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.union([self.type_of({**schema, "type": k}) for k in kind])
        if kind == "array":
            return self._array(schema)
        if kind == "object":
            return self._map(schema)
        if isinstance(kind, str) and kind in SCALARS:
            return SCALARS[kind]
        raise SchemaError(f"no TypeScript type for schema {dict(schema)!r}")

    def _array(self, schema: Schema) -> str:
        items = schema.get("items")
        if not isinstance(items, Mapping):
            raise SchemaError(f"array without one item schema: {dict(schema)!r}")
        inner = self.type_of(items)
        return f"({inner})[]" if " " in inner else f"{inner}[]"

    def _map(self, schema: Schema) -> str:
        values = schema.get("additionalProperties")
        if schema.get("properties") or not isinstance(values, Mapping):
            raise SchemaError(f"inline object types are not supported: {dict(schema)!r}")
        return f"Record<string, {self.type_of(values)}>"

    def interface(self, name: str, schema: Schema) -> list[str]:
        """`export interface Name { ... }` for an object schema with properties."""
        if schema.get("type") != "object":
            raise SchemaError(f"{name}: not an object schema")
        required = set(schema.get("required", ()))
        lines = doc_comment(schema.get("description"))
        properties: Mapping[str, Schema] = schema.get("properties", {})
        if not properties:
            lines.append(f"export type {name} = Record<string, never>;")
            return lines
        lines.append(f"export interface {name} {{")
        for key, prop in properties.items():
            lines.extend(doc_comment(prop.get("description"), INDENT))
            optional = "" if key in required else "?"
            lines.append(f"{INDENT}{key}{optional}: {self.type_of(prop)};")
        lines.append("}")
        return lines

    def alias_declarations(self) -> list[str]:
        """`export type Alias = 'a' | 'b';` for every alias, in name order."""
        by_name = sorted((name, values) for values, name in self.aliases.items())
        return [
            f"export type {name} = {self.union([literal(v) for v in values])};"
            for name, values in by_name
        ]
