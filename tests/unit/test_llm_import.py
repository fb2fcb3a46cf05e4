"""litellm stays out of the process until a model is called, and never writes to stdout."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

SUBPROCESS_TIMEOUT_S = 240


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )


def test_importing_cairn_llm_and_tools_does_not_import_litellm(tmp_path: Path) -> None:
    result = _run(
        """
        import sys
        import cairn.llm
        import cairn.agent.tools
        from cairn.llm import ModelRuntime
        from cairn.settings import Settings
        ModelRuntime(Settings())
        sys.exit(3 if "litellm" in sys.modules else 0)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr.decode()


def test_a_scripted_call_prints_nothing_on_stdout_and_never_imports_litellm(tmp_path: Path) -> None:
    (tmp_path / "script.jsonl").write_text(
        json.dumps({"text": "hello", "toolCalls": [{"name": "goal", "arguments": "{bad"}]})
        + "\n"
        + json.dumps({"error": "auth"})
        + "\n"
    )
    result = _run(
        """
        import asyncio, sys
        from pathlib import Path
        from cairn.errors import ModelError
        from cairn.llm import ModelRuntime
        from cairn.settings import Settings

        async def main() -> None:
            runtime = ModelRuntime(Settings(), workspace_root=Path.cwd())
            reply = await runtime.complete("scripted/script.jsonl", [{"role": "user", "content": "hi"}], [])
            assert reply.text == "hello", reply
            try:
                await runtime.complete("scripted/script.jsonl", [{"role": "user", "content": "hi"}], [])
            except ModelError as exc:
                sys.stderr.write(f"expected: {exc}\\n")
            assert "litellm" not in sys.modules, "the scripted model never needs litellm"

        asyncio.run(main())
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == b""
    assert b"expected: model scripted/script.jsonl: authentication failed" in result.stderr
