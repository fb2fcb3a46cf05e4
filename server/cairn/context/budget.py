"""The token budget of one model call, and each model's context window.

`available_input = context_window - max_output_tokens - tool_schema_tokens -
safety_margin` (DESIGN §2.3), in the units of Cairn's token counter: with a
calibration factor `f` (provider input tokens per counted token, learned from
reported usage: `cairn.tokens.calibration`) the provider's room for input,
`context_window - max_output_tokens - safety_margin`, is divided by `f`
before the tool schemas (counted) are taken off. The context window is `settings.context_window`
when configured, else `max_input_tokens` from litellm's model map
(`cairn.tokens.model_info`, read without importing litellm). A role's own
model (compaction, explore) has its own window from the map.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import floor

from cairn.errors import BudgetError
from cairn.settings import DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_SAFETY_MARGIN, Settings
from cairn.tokens.model_info import SCRIPTED_CONTEXT_WINDOW, SCRIPTED_PROVIDER, model_map_window

# When a provider refuses a request as too long without saying its limit, the next build aims
# this much below what was refused.
OVERFLOW_SHRINK = 0.9


@dataclass(frozen=True, slots=True)
class Budget:
    """The numbers of one call; `available_input` is what the context blocks may use."""

    context_window: int
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    tool_schema_tokens: int = 0
    safety_margin: int = DEFAULT_SAFETY_MARGIN
    # Provider input tokens per counted token (1.0: counts taken as the provider's).
    calibration: float = 1.0

    @classmethod
    def of(
        cls,
        window: int,
        settings: Settings,
        *,
        tool_schema_tokens: int = 0,
        calibration: float = 1.0,
    ) -> Budget:
        """The budget of a call in a `window`-token context with the settings' reserved output
        and safety margin."""
        return cls(
            context_window=window,
            max_output_tokens=settings.max_output_tokens,
            tool_schema_tokens=tool_schema_tokens,
            safety_margin=settings.safety_margin,
            calibration=calibration,
        )

    @property
    def input_window(self) -> int:
        """The window less the reserved output: what the request's input may hold."""
        return self.context_window - self.max_output_tokens

    @property
    def input_room(self) -> int:
        """`input_window` in our counter's units: divided by the calibration factor."""
        if self.calibration == 1.0:
            return self.input_window
        return floor(self.input_window / self.calibration)

    @property
    def available_input(self) -> int:
        room = self.context_window - self.max_output_tokens - self.safety_margin
        if self.calibration != 1.0:
            room = floor(room / self.calibration)
        return room - self.tool_schema_tokens

    def require_positive(self, model: str) -> int:
        """`available_input`, or BudgetError naming every term when nothing is left for input."""
        available = self.available_input
        if available <= 0:
            raise BudgetError(
                f"no room for input with model {model!r}: context window {self.context_window}"
                f" - max output {self.max_output_tokens} - tool schemas {self.tool_schema_tokens}"
                f" - safety margin {self.safety_margin}{self._calibrated()} = {available} tokens;"
                " lower max_output_tokens or safety_margin, or raise context_window"
            )
        return available

    def _calibrated(self) -> str:
        return (
            f" (input room / calibration {self.calibration:g})" if self.calibration != 1.0 else ""
        )


def context_window_for(model: str, settings: Settings | None = None) -> int:
    """The context window for `model`: configured, else from the model map.

    Raises BudgetError for an unknown model without a configured window.
    """
    if settings is not None and settings.context_window is not None:
        return settings.context_window
    if model.startswith(SCRIPTED_PROVIDER + "/"):
        return SCRIPTED_CONTEXT_WINDOW
    window = model_map_window(model)
    if window is None:
        raise BudgetError(
            f"unknown context window for model {model!r} (litellm's model map does not list it):"
            " set context_window in cairn.toml"
        )
    return window


def role_window(model: str, main: str, settings: Settings) -> int:
    """The window of a role's model (compaction, explore): the main model's when it is the
    same, else its own from the model map, else the configured `context_window`."""
    if model == main:
        return context_window_for(model, settings)
    if model.startswith(SCRIPTED_PROVIDER + "/"):
        return SCRIPTED_CONTEXT_WINDOW
    return model_map_window(model) or context_window_for(model, settings)


def learned_window(
    limit: int | None, provider_input: int | None, our_input: int, reserved_output: int
) -> int:
    """The window to build for after a provider refused a request of `our_input` tokens (by
    our count), `reserved_output` more being asked for the reply.

    The provider's `limit`, with its input part scaled to our tokenizer's units when the
    provider counted more input (`provider_input`) than we did; without a stated limit,
    `OVERFLOW_SHRINK` of the refused request's total."""
    if limit is None:
        return floor((our_input + reserved_output) * OVERFLOW_SHRINK)
    input_room = limit - reserved_output
    if provider_input is not None and our_input > 0 and provider_input > our_input > 0:
        input_room = floor(input_room * our_input / provider_input)
    return max(input_room, 0) + reserved_output
