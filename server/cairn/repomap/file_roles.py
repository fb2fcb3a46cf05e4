"""The role of a workspace file by its path: source, test, fixture, docs, example,
vendored, generated or stub (pure; the where-to-look ranking demotes all but source)."""

from __future__ import annotations

import re
from functools import lru_cache

ROLE_CACHE_SIZE = 65_536

_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
_FIXTURE_DIRS = frozenset(
    {"fixtures", "fixture", "testdata", "test_data", "test-data", "snapshots"}
)
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "site"})
_EXAMPLE_DIRS = frozenset({"example", "examples", "demo", "demos", "samples", "sample"})
_VENDORED_DIRS = frozenset(
    {"vendor", "vendored", "_vendor", "third_party", "node_modules", "typeshed"}
)
_GENERATED = re.compile(r"(_pb2(_grpc)?\.py|\.min\.js|\.generated\.\w+|_generated\.\w+)$")
_STUB = re.compile(r"(\.pyi|\.d\.ts|\.d\.mts|\.d\.cts)$")


def path_stem(rel: str) -> str:
    """A path's file name without its last extension (`PurePosixPath(rel).stem`)."""
    name = rel.rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


@lru_cache(maxsize=ROLE_CACHE_SIZE)
def role_of(rel: str) -> str:
    """The file's role: test, fixture, docs, example, vendored, generated, stub or source."""
    *folders, name = rel.split("/")
    dirs = {part.lower() for part in folders}
    stem = path_stem(name).lower()
    name = name.lower()
    if dirs & _VENDORED_DIRS:
        return "vendored"
    if _GENERATED.search(name):
        return "generated"
    if dirs & _FIXTURE_DIRS:
        return "fixture"
    if (
        dirs & _TEST_DIRS
        or name.startswith("test_")
        or stem.endswith(("_test", ".test", ".spec"))
        or name == "conftest.py"
    ):
        return "test"
    if dirs & _DOC_DIRS:
        return "docs"
    if dirs & _EXAMPLE_DIRS:
        return "example"
    if _STUB.search(name):
        return "stub"
    return "source"
