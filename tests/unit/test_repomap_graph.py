"""Repository-map graph: in-place file updates give exactly the floats of a fresh graph."""

from __future__ import annotations

from cairn.context.repomap_graph import RankGraph
from cairn.context.repomap_rank import rank_definitions
from cairn.context.repomap_tags import FileTags

IN_PLAY = frozenset({"app.py"})
MENTIONED = frozenset({"Store"})


def _tags(names: tuple[str, ...], references: dict[str, int]) -> FileTags:
    return FileTags(names, references, None)


def _corpus() -> dict[str, FileTags]:
    return {
        "app.py": _tags(("main",), {"Store": 2, "load_config": 1}),
        "store.py": _tags(("Store", "open_store"), {"load_config": 3}),
        "config.py": _tags(("load_config", "Settings"), {"Settings": 1}),
        "util.py": _tags(("helper", "_private"), {}),
        "cli.py": _tags(("run",), {"main": 1, "helper": 2, "Store": 1}),
    }


def _ranked(graph: RankGraph) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    ranking = rank_definitions(graph, IN_PLAY, MENTIONED)
    return ranking.used, ranking.unused()


def test_updates_that_move_rows_between_layouts_match_a_fresh_graph() -> None:
    tags = _corpus()
    graph = RankGraph(tags)
    _ranked(graph)  # builds the layouts that updates then patch or rebuild
    edits = [
        # a row gains its first user, then a second one, then loses both
        ("util.py", _tags(("helper", "_private"), {"open_store": 1})),
        ("config.py", _tags(("load_config", "Settings"), {"Settings": 1, "open_store": 4})),
        ("util.py", _tags(("helper", "_private"), {})),
        ("config.py", _tags(("load_config", "Settings"), {"Settings": 2})),
        # rows keep their kind (the layout is patched in place): a one-user row's weight,
        # a several-user row's users
        ("util.py", _tags(("helper", "_private"), {"open_store": 1})),
        ("util.py", _tags(("helper", "_private"), {"open_store": 3})),
        ("util.py", _tags(("helper", "_private"), {"open_store": 3, "Store": 1})),
        ("app.py", _tags(("main",), {"Store": 5, "load_config": 1})),
        ("app.py", _tags(("main",), {"Store": 5, "load_config": 1, "undefined_name": 3})),
    ]
    for rel, new in edits:
        assert graph.update_file(rel, new)
        tags[rel] = new
        fresh = RankGraph(tags)
        assert _ranked(graph) == _ranked(fresh)
        factors = fresh.multipliers(MENTIONED)
        inverse = fresh.inverse_totals(factors)
        rank = [0.5 / len(fresh.files)] * len(fresh.files)
        assert graph.flow(rank, factors, inverse) == fresh.flow(rank, factors, inverse)
        assert graph.group_flow(rank, inverse, {}) == fresh.group_flow(rank, inverse, {})


def test_changing_the_defined_names_needs_a_rebuild() -> None:
    graph = RankGraph(_corpus())
    assert not graph.update_file("util.py", _tags(("helper",), {}))
    assert not graph.update_file("missing.py", _tags((), {}))
    assert _ranked(graph) == _ranked(RankGraph(_corpus()))
