"""The models one can choose from (`cairn/models`): providers, their models, their keys.

Read from litellm's model map; the editor's first-run model picker shows it.
A provider's key is named by its environment variable, never its value.
"""

from __future__ import annotations

from pydantic import Field

from cairn.models.base import WireModel


class CatalogModel(WireModel):
    """One model: its `provider/model` name and its context window when known."""

    model: str
    context_window: int | None = None


class CatalogProvider(WireModel):
    """A provider: the variable its API key is read from, whether it is set, its models."""

    provider: str
    key_env: str | None = None
    key_set: bool = False
    models: list[CatalogModel] = Field(default_factory=list)


class ModelCatalog(WireModel):
    """`cairn/models` result: the configured model (None when none) and the providers."""

    current: str | None
    providers: list[CatalogProvider] = Field(default_factory=list)
