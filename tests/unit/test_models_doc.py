"""Every `cairn.toml` snippet of docs/MODELS.md and the README is valid and callable.

Each ```toml block is loaded as a workspace's `cairn.toml`; with the key
variables of the providers set, `cairn models` must find every role's model
callable (a known provider, a known window, the key there). This is as far
as a check can go without the providers' networks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.commands.models_report import models_report
from cairn.files.settings_layers import load_settings
from cairn.tokens.model_info import PROVIDER_KEY_VARIABLES

REPO = Path(__file__).resolve().parents[2]
DOCS = (REPO / "docs" / "MODELS.md", REPO / "README.md")
_TOML_BLOCK = re.compile(r"```toml\n(.*?)```", re.DOTALL)
# Keys a reader exports as the snippets' comments say (values are placeholders).
ENV = {name: "sk-placeholder" for names in PROVIDER_KEY_VARIABLES.values() for name in names}
ENV["TEAM_LLM_KEY"] = "sk-placeholder"


def snippets() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for number, block in enumerate(_TOML_BLOCK.findall(text), start=1):
            found.append((f"{doc.name}#{number}", block))
    return found


def test_the_docs_have_a_snippet_per_provider() -> None:
    models = " ".join(block for _, block in snippets())
    for prefix in (
        "openai/",
        "anthropic/",
        "gemini/",
        "deepseek/",
        "openrouter/",
        "ollama_chat/",
        "litellm_proxy/",
    ):
        assert f'"{prefix}' in models, prefix
    assert "localhost:1234" in models and "localhost:8000" in models and "localhost:8080" in models


@pytest.mark.parametrize(("where", "block"), snippets(), ids=[w for w, _ in snippets()])
def test_a_snippet_loads_and_every_role_can_be_called(
    where: str, block: str, tmp_path: Path
) -> None:
    (tmp_path / "cairn.toml").write_text(block, encoding="utf-8")
    settings = load_settings(tmp_path)
    for report in models_report(settings, settings.origins, ENV, tmp_path):
        assert report.possible, (where, report.role, report.problems)
