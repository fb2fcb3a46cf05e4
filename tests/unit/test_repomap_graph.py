"""Repository-map graph: in-place file updates give exactly the arrays (so the floats) of a
fresh graph."""

from __future__ import annotations

import numpy as np

from cairn.repomap.graph import RankGraph
from cairn.repomap.rank import rank_definitions
from cairn.repomap.tags import FileTags

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


def test_file_updates_match_a_fresh_graph() -> None:
    tags = _corpus()
    graph = RankGraph(tags)
    edits = [
        # an identifier gains its first user, then a second one, then loses both
        ("util.py", _tags(("helper", "_private"), {"open_store": 1})),
        ("config.py", _tags(("load_config", "Settings"), {"Settings": 1, "open_store": 4})),
        ("util.py", _tags(("helper", "_private"), {})),
        ("config.py", _tags(("load_config", "Settings"), {"Settings": 2})),
        # weights and users change; a file's uses grow and shrink
        ("util.py", _tags(("helper", "_private"), {"open_store": 1})),
        ("util.py", _tags(("helper", "_private"), {"open_store": 3})),
        ("util.py", _tags(("helper", "_private"), {"open_store": 3, "Store": 1})),
        ("app.py", _tags(("main",), {"Store": 5, "load_config": 1})),
        ("app.py", _tags(("main",), {"Store": 5, "load_config": 1, "undefined_name": 3})),
        ("cli.py", _tags(("run",), {})),
    ]
    for rel, new in edits:
        assert graph.update_file(rel, new)
        tags[rel] = new
        fresh = RankGraph(tags)
        for ours, theirs in zip(graph.uses(), fresh.uses(), strict=True):
            assert ours.dtype == theirs.dtype
            assert np.array_equal(ours, theirs)
        assert _ranked(graph) == _ranked(fresh)
        factors = fresh.factors(MENTIONED)
        weights = fresh.edge_weights(factors)
        assert np.array_equal(graph.edge_weights(factors), weights)
        scaled = np.full(len(fresh.files), 0.5 / len(fresh.files)) * fresh.inverse_totals(weights)
        assert np.array_equal(graph.flow(scaled, weights), fresh.flow(scaled, weights))


def test_rank_follows_the_references() -> None:
    used, unused = _ranked(RankGraph(_corpus()))
    # mentioned first, then what the file in play uses; nothing from the file in play
    assert used[0] == ("store.py", "Store")
    assert ("config.py", "load_config") in used
    assert all(rel != "app.py" for rel, _name in used + unused)
    # nobody with any rank uses these: they come after, by their file's rank
    assert set(unused) == {
        ("store.py", "open_store"),
        ("util.py", "_private"),
        ("util.py", "helper"),
        ("cli.py", "run"),
    }
    assert unused[0] == ("store.py", "open_store")


def test_an_empty_graph_ranks_nothing() -> None:
    assert _ranked(RankGraph({})) == ([], [])


def test_changing_the_defined_names_needs_a_rebuild() -> None:
    graph = RankGraph(_corpus())
    assert not graph.update_file("util.py", _tags(("helper",), {}))
    assert not graph.update_file("missing.py", _tags((), {}))
    assert _ranked(graph) == _ranked(RankGraph(_corpus()))
