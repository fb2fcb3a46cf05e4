"""One describer of pydantic validation errors: `where: problem; where: problem`.

Used by the settings model (a key per problem) and by both front ends' params
validation (`cairn.frontends.params`), so a bad field reads the same
everywhere. `where` is the dotted location with the names as sent (the wire's
camelCase for params, the key as written for settings); each caller chooses
how one problem is phrased.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError
from pydantic_core import ErrorDetails

# (where, the error item) → one problem's phrase.
Phrase = Callable[[str, ErrorDetails], str]


def field_problem(where: str, item: ErrorDetails) -> str:
    """`where: message`, pydantic's message as it is."""
    return f"{where}: {item['msg']}"


def describe_validation_error(
    error: ValidationError, *, root: str = "params", phrase: Phrase = field_problem
) -> str:
    """Every problem of `error`, phrased by `phrase`, joined by `; ` (`root` names the whole)."""
    parts: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or root
        parts.append(phrase(where, item))
    return "; ".join(parts)


def setting_problem(key: str, item: ErrorDetails) -> str:
    """`unknown setting 'key'`, or `setting 'key': problem` (a validator's message bare)."""
    if item["type"] == "extra_forbidden":
        return f"unknown setting {key!r}"
    return f"setting {key!r}: {item['msg'].removeprefix('Value error, ')}"


def describe_settings_error(error: ValidationError) -> str:
    """The problems of a settings mapping, one per key (`<root>`: the mapping itself)."""
    return describe_validation_error(error, root="<root>", phrase=setting_problem)
