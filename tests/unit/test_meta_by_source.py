"""Each call's stats are recorded with its manifest; the turn and the session sum them per
context source (`input_by_source` in `meta.json`), and a rebuilt meta sums them again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.unit.test_agent_support import call, make_engine, reply

LIB = "def helper(value: int) -> int:\n    return value * 2\n" * 20


def test_each_call_records_its_stats_and_the_session_sums_them_per_source(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n- be brief\n")
    (tmp_path / "lib.py").write_text(LIB)
    engine = make_engine(tmp_path, [reply("", call("read_file", path="lib.py")), reply("Done.")])
    result = asyncio.run(engine.turn("Read lib.py"))
    assert result.finish_reason == "stop", result.error
    trace = engine.store.open(result.session_id)
    manifests = trace.manifests()
    assert len(manifests) == 2
    total: dict[str, int] = {}
    for manifest in manifests:
        assert manifest.stats is not None
        assert manifest.stats.used_input == manifest.used_input
        for source, tokens in manifest.stats.by_source.items():
            total[source] = total.get(source, 0) + tokens
    meta = trace.meta()
    assert meta.input_by_source == total
    assert meta.turns[-1].input_by_source == total
    assert total["history"] > 0 and total["rules"] > 0
    engine.close()
    # A damaged meta.json is rebuilt from the records with the same sums.
    meta_path = next((tmp_path / ".cairn").rglob("meta.json"))
    meta_path.write_text("{not json")
    reopened = make_engine(tmp_path, [reply("ok")])
    try:
        rebuilt = reopened.store.open(result.session_id).meta()
        assert rebuilt.input_by_source == total
    finally:
        reopened.close()
