"""The tool offer measures MCP schemas against the window the session's context build uses.

A provider that refused a request stated a smaller window (`Session.remember_limit`):
every later build of the session budgets within it, and so does the share of the input
the MCP schemas may take before they go behind `tool_search`. A calibrated model's input
is counted in the same calibrated tokens as the build's.
"""

from __future__ import annotations

from pathlib import Path

from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.offer import WindowTerms, model_input_tokens
from cairn.context.tool_schemas import schema_text
from cairn.settings import Settings
from cairn.tokens.counter import count_tokens
from tests.unit.test_agent_support import make_engine
from tests.unit.test_mcp_parts import MODEL, catalog_of, specs_for_search


def test_a_window_the_provider_stated_defers_the_schemas_the_settings_window_would_offer(
    tmp_path: Path,
) -> None:
    specs = specs_for_search()
    tokens = sum(count_tokens(schema_text(s.schema()), MODEL) for s in specs)
    engine = make_engine(
        tmp_path,
        [],
        context_window=100_000,
        max_output_tokens=256,
        safety_margin=0,
        mcp={"tool_search_share": 0.05},
    )
    try:
        session = engine.session()
        inputs = TurnInputs(model=str(engine.settings.model), mode="build")
        before = engine.scope(session, inputs, catalog=catalog_of(specs)).offer
        assert before.deferred == ()
        room = tokens * 18  # the schemas take 5.6% of it: more than 5%
        stated = engine.settings.max_output_tokens + room
        session.remember_limit(inputs.model, stated)
        offer = engine.scope(session, inputs, catalog=catalog_of(specs)).offer
        assert [s.name for s in offer.deferred] == [s.name for s in specs]
        assert offer.deferral is not None and f"of {room};" in offer.deferral
        built = engine.contexts.build(engine.scope(session, inputs, catalog=catalog_of(specs)))
        assert built.stats.context_window == stated  # the build's window, the offer's too
    finally:
        engine.close()


def test_a_calibrated_model_has_its_input_in_calibrated_tokens() -> None:
    settings = Settings.model_validate({"context_window": 20_000, "max_output_tokens": 4_000})
    assert model_input_tokens(MODEL, settings) == 16_000
    assert model_input_tokens(MODEL, settings, WindowTerms(calibration=2.0)) == 8_000
    learned = WindowTerms(window_limit=12_000, calibration=2.0)  # stated: in our units already
    assert model_input_tokens(MODEL, settings, learned) == 8_000
    assert model_input_tokens(MODEL, settings, WindowTerms(window_limit=14_000)) == 10_000
