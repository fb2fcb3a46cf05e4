"""Checks a PROTOCOL.md against the implementation: `cairn.lsp.contract` and the models.

Read from the document: the four method tables (client → server
notifications and requests, server → client requests and notifications), the `Shapes`
block, the list of block sources and the `workspace/executeCommand`
commands. Each documented thing falls in one of three kinds:
- consistent with the models, or a **mismatch** (a field exists on both sides
  but its optionality, nullability, literal values, scalar type or named
  shape differ);
- **undocumented**: the implementation has a method, field, source or
  command the document does not name;
- **missing**: the document names a method, field, shape, source or command
  the implementation does not have yet (the target contract of later issues).
`docs/PROTOCOL.md` documents what is implemented, so its report is empty;
the target contract may be ahead of the code, so only its mismatches and
undocumented items are errors there (`python -m tools.check_protocol FILE`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from cairn.lsp import contract
from cairn.models.manifest import Source
from tools.contracts.doc_shapes import DocField, DocObject, parse_definitions, parse_shape_or_name
from tools.contracts.protocol_ts import command_names, wire_models

Schema = Mapping[str, Any]

# LSP's WorkDoneProgressParams: any request may carry it (PROTOCOL.md's standard-LSP part).
IMPLICIT_PARAMS = frozenset({"workDoneToken"})
# "Any request may omit `sessionId`" (PROTOCOL.md preamble), whatever a table shows.
ALWAYS_OPTIONAL_PARAMS = frozenset({"sessionId"})
TABLE_SECTIONS = {
    "Client → server notifications": "client",
    "Client → server requests": "request",
    "Server → client requests": "server-request",
    "Server → client notifications": "server",
}
SCALAR_TYPES = {"string": {"string"}, "number": {"integer", "number"}, "boolean": {"boolean"}}
DESCRIPTION_SEPARATOR = " — "
SOURCES_INTRO = "`source` is one of:"
COMMANDS_INTRO = "`workspace/executeCommand` —"
BACKTICKED = re.compile(r"`([^`]+)`")
PARENTHESISED = re.compile(r"\([^()]*\)")


@dataclass
class Report:
    mismatches: list[str] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        """Nothing documented contradicts the implementation, and nothing implemented is left out."""
        return not self.mismatches and not self.undocumented


def sections(doc: str) -> dict[str, str]:
    """`{heading: body}` of the `## ` sections."""
    parts = re.split(r"^## +(.+)$", doc, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def table_rows(body: str) -> list[list[str]]:
    """The cells of each `| `cairn/...` | ... |` row (escaped `\\|` kept as `|`)."""
    rows = []
    for line in body.splitlines():
        if not line.startswith("| `"):
            continue
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        rows.append([cell.replace("\\|", "|").strip() for cell in cells])
    return rows


def _shape_cell(cell: str) -> DocObject | str:
    return parse_shape_or_name(cell.split(DESCRIPTION_SEPARATOR, 1)[0])


class Checker:
    """Compares documented shapes with the models' JSON schema (camelCase aliases)."""

    def __init__(self) -> None:
        keys, schema = models_json_schema(wire_models(), by_alias=True)
        self.defs: dict[str, Schema] = schema.get("$defs", {})
        self.refs = dict(keys)
        self.report = Report()

    def model_schema(self, model: type[BaseModel], mode: JsonSchemaMode) -> Schema:
        return self.deref(self.refs[(model, mode)])

    def deref(self, schema: Schema) -> Schema:
        while "$ref" in schema:
            schema = self.defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
        return schema

    @staticmethod
    def non_null(schema: Schema) -> Schema:
        options = schema.get("anyOf")
        if not options:
            return schema
        concrete = [o for o in options if o != {"type": "null"}]
        return concrete[0] if len(concrete) == 1 else schema

    @staticmethod
    def nullable(schema: Schema) -> bool:
        return {"type": "null"} in schema.get("anyOf", ())

    def compare(self, where: str, doc: DocObject, schema: Schema, *, params: bool) -> None:
        properties: Mapping[str, Schema] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        for name, entry in doc.fields.items():
            if name not in properties:
                self.report.missing.append(f"{where}.{name}")
                continue
            self.compare_field(f"{where}.{name}", entry, properties[name], name in required, params)
        skip = IMPLICIT_PARAMS if params else frozenset()
        for name in properties:
            if name not in doc.fields and name not in skip:
                self.report.undocumented.append(f"{where}.{name}")

    def compare_field(
        self, where: str, entry: DocField, schema: Schema, required: bool, params: bool
    ) -> None:
        problems = self.report.mismatches
        if params and entry.name not in ALWAYS_OPTIONAL_PARAMS and entry.optional == required:
            problems.append(f"{where}: documented {'optional' if entry.optional else 'required'}")
        if not params and entry.nullable != self.nullable(schema):
            problems.append(f"{where}: documented {'' if entry.nullable else 'not '}nullable")
        concrete = self.non_null(schema)
        if entry.nested is not None:
            self._compare_nested(where, entry, concrete, params)
        elif entry.map_of is not None:
            self._compare_type(f"{where}[key]", entry.map_of, concrete.get("additionalProperties"))
        else:
            self._compare_type(where, entry.type_text, concrete, entry.literals)

    def _compare_nested(self, where: str, entry: DocField, schema: Schema, params: bool) -> None:
        assert entry.nested is not None
        if entry.array_of_objects:
            if schema.get("type") != "array":
                self.report.mismatches.append(f"{where}: documented a list of objects")
                return
            self.compare(f"{where}[]", entry.nested, self.deref(schema["items"]), params=params)
            return
        self.compare(where, entry.nested, self.deref(schema), params=params)

    def _compare_type(
        self, where: str, text: str, schema: Schema | None, literals: list[str] | None = None
    ) -> None:
        if schema is None:
            self.report.mismatches.append(f"{where}: documented a map, not one in the model")
            return
        plain = "|".join(part for part in text.split("|") if part.strip() != "null").strip()
        values = literals or ([plain] if plain in ("true", "false") else [])
        if values:
            self._compare_literals(where, values, schema)
        elif plain.endswith("[]") or plain in SCALAR_TYPES or plain[:1].isupper():
            self._compare_named(where, plain, schema)

    def _compare_literals(self, where: str, values: list[str], schema: Schema) -> None:
        allowed = schema.get("enum", [schema["const"]] if "const" in schema else None)
        if allowed is None:
            self.report.mismatches.append(
                f"{where}: documented literals {values}, the model has none"
            )
        elif {str(v).lower() if isinstance(v, bool) else str(v) for v in allowed} != set(values):
            self.report.mismatches.append(f"{where}: documented {values}, the model has {allowed}")

    def _compare_named(self, where: str, text: str, schema: Schema) -> None:
        if text.endswith("[]"):
            if schema.get("type") != "array":
                self.report.mismatches.append(f"{where}: documented a list, the model has none")
                return
            self._compare_named(f"{where}[]", text[:-2], self.non_null(schema["items"]))
            return
        if text in SCALAR_TYPES:
            if schema.get("type") not in SCALAR_TYPES[text]:
                self.report.mismatches.append(f"{where}: documented {text}, the model has {schema}")
            return
        name = str(schema.get("$ref", "")).rsplit("/", 1)[-1]
        if name != text:
            self.report.mismatches.append(
                f"{where}: documented {text}, the model has {name or schema}"
            )


def check_tables(checker: Checker, found: Mapping[str, str]) -> set[str]:
    """Compares every table row with the contract; returns the documented methods."""
    requests = {r.method: r for r in contract.REQUESTS}
    server_requests = {r.method: r for r in contract.SERVER_REQUESTS}
    notes = {(n.method, n.sender): n for n in contract.NOTIFICATIONS}
    documented: set[str] = set()
    for heading, kind in TABLE_SECTIONS.items():
        for row in table_rows(found.get(heading, "")):
            method = row[0].strip("`")
            documented.add(method)
            if kind == "request" and method in requests:
                request = requests[method]
                _check_cell(checker, f"{method} params", row[1], request.params, "validation")
                _check_cell(checker, f"{method} result", row[2], request.result, "serialization")
            elif kind == "server-request" and method in server_requests:
                asked = server_requests[method]
                _check_cell(checker, f"{method} params", row[1], asked.params, "serialization")
                _check_cell(checker, f"{method} result", row[2], asked.result, "validation")
            elif kind != "request" and (method, kind) in notes:
                mode: JsonSchemaMode = "validation" if kind == "client" else "serialization"
                _check_cell(checker, method, row[1], notes[(method, kind)].params, mode)
            else:
                checker.report.missing.append(method)
    return documented


def _check_cell(
    checker: Checker, where: str, cell: str, model: type[BaseModel], mode: JsonSchemaMode
) -> None:
    shape = _shape_cell(cell)
    if isinstance(shape, str):
        if shape != model.__name__:
            checker.report.mismatches.append(f"{where}: documented {shape}, is {model.__name__}")
        return
    schema = checker.model_schema(model, mode)
    checker.compare(where, shape, schema, params=mode == "validation")


def check_shapes(checker: Checker, body: str) -> None:
    block = body.split("```")[1] if body.count("```") >= 2 else ""
    for name, shape in parse_definitions(block).items():
        if name not in checker.defs:
            checker.report.missing.append(name)
            continue
        checker.compare(name, shape, checker.defs[name], params=False)


def _listed(doc: str, intro: str) -> set[str]:
    if intro not in doc:
        return set()
    text = doc.split(intro, 1)[1]
    sentence = re.split(r"\.(?:\s|$)", PARENTHESISED.sub("", text), maxsplit=1)[0]
    return set(BACKTICKED.findall(sentence))


def _compare_sets(report: Report, what: str, documented: set[str], actual: set[str]) -> None:
    report.missing += [f"{what} {name}" for name in sorted(documented - actual)]
    report.undocumented += [f"{what} {name}" for name in sorted(actual - documented)]


def check(doc: str) -> Report:
    """The report of one PROTOCOL.md text."""
    checker = Checker()
    found = sections(doc)
    documented = check_tables(checker, found)
    public = (
        {r.method for r in contract.REQUESTS}
        | {r.method for r in contract.SERVER_REQUESTS}
        | {n.method for n in contract.NOTIFICATIONS}
    )
    checker.report.undocumented += sorted(public - documented)
    check_shapes(checker, found.get("Shapes", ""))
    _compare_sets(checker.report, "source", _listed(doc, SOURCES_INTRO), set(get_args(Source)))
    commands = set(command_names().values())
    _compare_sets(checker.report, "command", _listed(doc, COMMANDS_INTRO), commands)
    return checker.report
