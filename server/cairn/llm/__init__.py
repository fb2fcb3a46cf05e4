"""Model runtime: litellm calls (imported lazily), streaming, retries, the scripted model.

`from cairn.llm import ModelRuntime, ModelReply, ToolCall`. Importing this
package does not import litellm; the first `ModelRuntime.complete` does.
"""

from cairn.llm.reply import ModelReply, ToolCall
from cairn.llm.runtime import ModelRuntime

__all__ = ["ModelReply", "ModelRuntime", "ToolCall"]


def reset_scripts() -> None:
    """Rewind every `scripted/<path>` script to its first line (for tests)."""
    from cairn.llm.lazy import is_loaded

    if is_loaded():
        from cairn.llm.scripted import reset_scripts as reset

        reset()
