"""A fake clock for the model runtime: sleeps are recorded, not waited, and advance the clock.

`FakeTime().timing()` is a `cairn.llm.Timing` whose `sleep(s)` returns at once
and moves the clock on by `s`, so a test can assert the waits a retry asked
for (`FakeTime.sleeps`) and the deadlines they add up to, without waiting.
The clock also follows real time, so requests that really take time (a hung
server, a timeout) count too.
"""

from __future__ import annotations

import time

from cairn.llm import Timing


class FakeTime:
    """Recorded sleeps on a clock that adds them to the real monotonic time."""

    def __init__(self, backoff_base_s: float = 1.0) -> None:
        self.sleeps: list[float] = []
        self.backoff_base_s = backoff_base_s
        self._slept = 0.0

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._slept += seconds

    def clock(self) -> float:
        return time.monotonic() + self._slept

    def timing(self) -> Timing:
        return Timing(sleep=self.sleep, clock=self.clock, backoff_base_s=self.backoff_base_s)

    @property
    def waits(self) -> list[float]:
        """The non-zero waits (an empty reply is asked again without waiting)."""
        return [s for s in self.sleeps if s > 0]
