"""The base of every wire model: snake_case in Python, camelCase on the wire."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Accepts either spelling; `wire()` dumps the camelCase JSON shape.

    `wire()` dumps every field, defaulted or not, so the serialization JSON
    schema (what the TypeScript types are generated from) marks them all required.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        json_schema_serialization_defaults_required=True,
    )

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict with camelCase keys, as sent over LSP or written to disk."""
        return self.model_dump(mode="json", by_alias=True)


def utc_now() -> datetime:
    """Timezone-aware current time (every timestamp Cairn records is UTC)."""
    return datetime.now(UTC)
