"""The `[where_to_look]` settings table: the named weights of the where-to-look ranking.

A file's score is the weighted sum of its parts (`cairn.repomap.where_parts`), times its
role's factor unless the message names it by path. The defaults were fitted on
`bench/localize.py`'s development set leave-one-repository-out (docs/REPOMAP.md, "Where
to look"): change them to tune the ranking for one workspace. `cairn.settings` re-exports
the model; the ranking takes it as is (`cairn.repomap.where.rank_files`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from cairn.models.mcp_settings import SETTINGS_MODEL_CONFIG

ROLES = ("source", "test", "fixture", "docs", "example", "vendored", "generated", "stub")
"""The file roles of `cairn.repomap.file_roles.role_of`."""


class RoleFactors(BaseModel):
    """A file's score is multiplied by its role's factor (1 keeps it, 0 drops it)."""

    model_config = SETTINGS_MODEL_CONFIG

    source: float = Field(default=1.0, ge=0, le=1)
    """Source files."""
    test: float = Field(default=0.3, ge=0, le=1)
    """Tests (`tests/`, `test_*.py`, `*.spec.ts`, `conftest.py`)."""
    fixture: float = Field(default=0.2, ge=0, le=1)
    """Test data and fixtures (`fixtures/`, `testdata/`, `test-data/`)."""
    docs: float = Field(default=0.3, ge=0, le=1)
    """Documentation sources (`docs/`)."""
    example: float = Field(default=0.3, ge=0, le=1)
    """Examples and demos."""
    vendored: float = Field(default=0.2, ge=0, le=1)
    """Vendored code (`vendor/`, `third_party/`, `typeshed/`, `node_modules/`)."""
    generated: float = Field(default=0.2, ge=0, le=1)
    """Generated code (`*_pb2.py`, `*.generated.ts`)."""
    stub: float = Field(default=0.6, ge=0, le=1)
    """Type stubs (`*.pyi`, `*.d.ts`) of a workspace that has the code they describe."""


class WhereWeights(BaseModel):
    """The weight of each part of a file's where-to-look score (0 turns a part off)."""

    model_config = SETTINGS_MODEL_CONFIG

    path: float = Field(default=3.0, ge=0)
    """Per workspace path or traceback frame the message names (shared among the files a
    path suffix matches)."""
    last_frame: float = Field(default=1.0, ge=0)
    """Extra for the last traceback frame (where the error was raised), as a share of a
    path mention."""
    weak_path: float = Field(default=0.3, ge=0)
    """A path of the message that shares only its file name with a workspace file counts
    this share of a path mention (`other/cli.py` names `examples/cli.py` weakly)."""
    dotted: float = Field(default=0.0, ge=0)
    """For the module a dotted name of the message names (`pkg.mod.func` → `pkg/mod.py`)."""
    stem: float = Field(default=0.5, ge=0)
    """For a file whose name (without extension) is a code name of the message (`L060` →
    `rules/L060.py`)."""
    defines: float = Field(default=0.5, ge=0)
    """For the message's identifiers the file defines, each by how rare its definition is
    (one code name defined in one file ≈ 1)."""
    plain_word: float = Field(default=0.1, ge=0)
    """A defined name the message uses only as a plain word counts this share of a code
    name."""
    qualified: float = Field(default=0.0, ge=0)
    """For a name the message qualifies (`Parser.parse`, `pkg.mod.func`, `from pkg.mod
    import func`) that the file defines next to its qualifier (the same class or the
    qualifier's package)."""
    phrase: float = Field(default=0.0, ge=0)
    """For an error message or quoted text of the message whose words the file holds in a
    row (a string it raises or prints)."""
    lexical: float = Field(default=3.0, ge=0)
    """For BM25 of the message's words over the file's path, names and identifiers (best
    file = 1)."""
    path_words: float = Field(default=1.0, ge=0)
    """For the message's words among the file's folder and file-name parts, each weighted
    by how few paths hold it (best file = 1)."""
    prior: float = Field(default=0.3, ge=0)
    """For the file's PageRank in the repository map's graph (best file = 1)."""
    session: float = Field(default=1.5, ge=0)
    """For a file in play (read, edited, open)."""
    roles: RoleFactors = Field(default_factory=RoleFactors)
    """The factor of each file role (unless the message names the file by path)."""


DEFAULT_WHERE_WEIGHTS = WhereWeights()
