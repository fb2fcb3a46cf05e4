"""An MCP elicitation's form: its fields read from the requested schema, and answers checked.

MCP's form mode asks the user for a flat object whose properties are
primitives (the spec's restricted JSON Schema): a string (optionally with
`format` email, uri, date or date-time, and length limits), a number or
integer (with bounds), a boolean, a single choice (`enum`, or `oneOf` of
`{const, title}`) or a multiple choice (`type: array` whose `items` have
`enum` or `anyOf`). `form_fields` reads them (a property of another shape is a
`FormError` naming it: the request is refused, never half-shown);
`field_value` turns what the user typed at a terminal into the field's value;
`checked_content` checks an answer a client sent (types, choices, bounds,
required fields) and returns it with only the form's fields. Nothing here
does I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
Value = str | int | float | bool | list[str]

TRUE_WORDS = frozenset({"y", "yes", "true", "1", "on"})
FALSE_WORDS = frozenset({"n", "no", "false", "0", "off"})


class FormError(ValueError):
    """A requested schema or an answer that does not fit the form (the message names it)."""


@dataclass(frozen=True)
class FormField:
    """One property of the form."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    # (value, label) of each option of a choice.
    options: tuple[tuple[str, str], ...] = ()
    default: Value | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None


def _options(schema: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(schema.get("enum"), list):
        names = schema.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(schema["enum"]) else None
        return tuple(
            (str(value), str(labels[i]) if labels else str(value))
            for i, value in enumerate(schema["enum"])
        )
    choices = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(choices, list):
        return tuple(
            (str(c["const"]), str(c.get("title") or c["const"]))
            for c in choices
            if isinstance(c, dict) and "const" in c
        )
    return ()


def _kind(name: str, schema: dict[str, Any]) -> tuple[FieldKind, tuple[tuple[str, str], ...]]:
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        options = _options(items) if isinstance(items, dict) else ()
        if not options:
            raise FormError(f"the field {name!r} is a list without choices")
        return "choices", options
    options = _options(schema)
    if options and kind in ("string", None):
        return "choice", options
    if kind in ("string", "number", "integer", "boolean"):
        return kind, ()
    raise FormError(f"the field {name!r} has the type {kind!r}, which a form cannot ask for")


def _number(schema: dict[str, Any], key: str) -> float | None:
    value = schema.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _length(schema: dict[str, Any], key: str) -> int | None:
    value = schema.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def form_fields(requested: dict[str, Any]) -> tuple[FormField, ...]:
    """The fields of a requested schema, in its order; `FormError` for what a form cannot ask."""
    properties = requested.get("properties")
    properties = {} if properties is None else properties
    if not isinstance(properties, dict):
        raise FormError("the form's properties are not an object")
    required = requested.get("required") or []
    fields: list[FormField] = []
    for name, schema in properties.items():
        if not isinstance(schema, dict):
            raise FormError(f"the field {name!r} has no schema")
        kind, options = _kind(name, schema)
        fields.append(
            FormField(
                name=name,
                kind=kind,
                title=str(schema.get("title") or name),
                description=str(schema.get("description") or ""),
                required=name in required,
                options=options,
                default=schema.get("default"),
                minimum=_number(schema, "minimum"),
                maximum=_number(schema, "maximum"),
                min_length=_length(schema, "minLength" if kind != "choices" else "minItems"),
                max_length=_length(schema, "maxLength" if kind != "choices" else "maxItems"),
                format=schema.get("format") if isinstance(schema.get("format"), str) else None,
            )
        )
    return tuple(fields)


def _bounded(field: FormField, value: float) -> None:
    if not math.isfinite(value):
        raise FormError(f"{field.title}: {value} is not a number")
    if field.minimum is not None and value < field.minimum:
        raise FormError(f"{field.title}: {value:g} is below the minimum {field.minimum:g}")
    if field.maximum is not None and value > field.maximum:
        raise FormError(f"{field.title}: {value:g} is above the maximum {field.maximum:g}")


def _sized(field: FormField, size: int, unit: str) -> None:
    if field.min_length is not None and size < field.min_length:
        raise FormError(f"{field.title}: at least {field.min_length} {unit}, got {size}")
    if field.max_length is not None and size > field.max_length:
        raise FormError(f"{field.title}: at most {field.max_length} {unit}, got {size}")


def _checked(field: FormField, value: Any) -> Value:
    """`value` when it fits `field`; else `FormError` naming the field and the problem."""
    allowed = [option for option, _ in field.options]
    if field.kind == "boolean":
        if not isinstance(value, bool):
            raise FormError(f"{field.title}: expected true or false, got {value!r}")
        return value
    if field.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise FormError(f"{field.title}: expected a number, got {value!r}")
        if field.kind == "integer" and not float(value).is_integer():
            raise FormError(f"{field.title}: expected a whole number, got {value!r}")
        _bounded(field, float(value))
        return int(value) if field.kind == "integer" else value
    if field.kind == "choices":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise FormError(f"{field.title}: expected a list of choices, got {value!r}")
        wrong = [v for v in value if v not in allowed]
        if wrong:
            raise FormError(f"{field.title}: {wrong[0]!r} is not one of {', '.join(allowed)}")
        _sized(field, len(value), "choices")
        return list(value)
    if not isinstance(value, str):
        raise FormError(f"{field.title}: expected text, got {value!r}")
    if field.kind == "choice" and value not in allowed:
        raise FormError(f"{field.title}: {value!r} is not one of {', '.join(allowed)}")
    _sized(field, len(value), "characters")
    return value


def field_value(field: FormField, typed: str) -> Value:
    """What the user typed for `field` as its value (a choice by its value, label or number;
    several choices separated by commas); `FormError` saying what is expected."""
    text = typed.strip()
    if field.kind == "boolean":
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise FormError(f"{field.title}: answer yes or no")
    if field.kind in ("number", "integer"):
        try:
            number = float(text)
        except ValueError:
            raise FormError(f"{field.title}: {text!r} is not a number") from None
        return _checked(
            field, int(number) if field.kind == "integer" and number.is_integer() else number
        )
    if field.kind == "choice":
        return _checked(field, _choice(field, text))
    if field.kind == "choices":
        picked = [_choice(field, part.strip()) for part in text.split(",") if part.strip()]
        return _checked(field, picked)
    return _checked(field, typed)


def _choice(field: FormField, text: str) -> str:
    for index, (value, label) in enumerate(field.options, start=1):
        if text in (value, label, str(index)):
            return value
    return text


def checked_content(fields: tuple[FormField, ...], content: Any) -> dict[str, Value]:
    """An answer's content checked against the form: only its fields, each of the right type
    and within its limits, every required one present; else `FormError`."""
    if not isinstance(content, dict):
        raise FormError(f"the answer is not an object: {content!r}")
    checked: dict[str, Value] = {}
    for field in fields:
        if content.get(field.name) is None:
            if field.required:
                raise FormError(f"{field.title}: required, but not answered")
            continue
        checked[field.name] = _checked(field, content[field.name])
    return checked
