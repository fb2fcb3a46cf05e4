"""Helper processes for the repository map's big batches (a cold scan, the first parses).

`Workers.run(job, paths)` splits the paths into shares of about equal bytes, hands one
share to each helper process (one fewer than the cores) and does the last share itself,
so every core works and no core waits for a pool to start: a helper is a plain
`python -m cairn.context.repomap_workers` that imports only the scanner (about 50 ms),
not the caller's main module as `multiprocessing`'s spawn does. Requests and results go
over the helper's stdin/stdout as length-prefixed `marshal` frames.

Small batches (fewer than PARALLEL_MIN_FILES while no helper runs) are done in this
process. A helper that fails in any way (cannot start, dies, answers garbage, takes
longer than HELPER_DEADLINE_S) is stopped and its share is done here: the result is
the same, only slower. Helpers live until `close()`.

Run as a module, this file is the helper: it answers requests until its stdin closes.
"""

from __future__ import annotations

import marshal
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from cairn.context.repomap_tags import (
    DefRecord,
    FileTags,
    ParseRequest,
    PartsFound,
    parse_files,
    scan_files,
)

PARALLEL_MIN_FILES = 64
"""Fewer files than this are done in this process while no helper runs (starting one
costs about 50 ms); once helpers run, any batch with a file for each process uses them."""
HELPER_DEADLINE_S = 600.0
"""A helper that has not answered a request after this long is stopped (its share is
then done here)."""
STOP_WAIT_S = 5.0
"""How long `close()` waits for a helper to exit after its stdin closes, before killing it."""
MARSHAL_VERSION = 4
FRAME_HEADER = struct.Struct("<Q")
"""Each frame: its length as 8 little-endian bytes, then a `marshal` payload."""

MAX_FRAME_BYTES = 1 << 34
"""Larger announced frames are refused as garbage (16 GiB: no real answer comes close)."""
READ_PIECE_BYTES = 1 << 20

SCAN = "scan"
PARSE = "parse"

ScanResult = tuple[list[str], dict[str, int], list[DefRecord] | None] | None
"""A scanned file as it crosses the pipe: names, references, definitions (None: not
parsed), or None for a file that could not be read."""


def _scan_job(paths: list[str]) -> list[ScanResult]:
    return [
        None if tags is None else (list(tags.names), tags.references, _listed(tags.definitions))
        for tags in scan_files(paths)
    ]


def _parse_job(requests: list[ParseRequest]) -> list[PartsFound]:
    return parse_files([(path, list(names), list(done)) for path, names, done in requests])


def _listed(definitions: tuple[DefRecord, ...] | None) -> list[DefRecord] | None:
    return None if definitions is None else list(definitions)


JOBS: dict[str, Callable[[list[Any]], list[Any]]] = {SCAN: _scan_job, PARSE: _parse_job}


def scan_result_tags(result: ScanResult) -> FileTags | None:
    """The FileTags of a scan result (None stays None)."""
    if result is None:
        return None
    names, references, definitions = result
    return FileTags(
        tuple(names),
        references,
        None if definitions is None else tuple(tuple(d) for d in definitions),  # type: ignore[misc]
    )


def split_by_size(paths: Sequence[object], sizes: Sequence[int], shares: int) -> list[list[int]]:
    """Indexes of `paths` in `shares` groups of about equal total size (largest file
    first to the lightest group; ties by position, so the split is deterministic)."""
    groups: list[list[int]] = [[] for _ in range(shares)]
    loads = [0] * shares
    for index in sorted(range(len(paths)), key=lambda i: (-sizes[i], i)):
        lightest = loads.index(min(loads))
        groups[lightest].append(index)
        loads[lightest] += sizes[index] + 1
    return [sorted(group) for group in groups]


def _write_frame(stream: IO[bytes], value: Any) -> None:
    payload = marshal.dumps(value, MARSHAL_VERSION)
    stream.write(FRAME_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> object:
    header = stream.read(FRAME_HEADER.size)
    if len(header) != FRAME_HEADER.size:
        raise EOFError("the other side closed the pipe")
    (size,) = FRAME_HEADER.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"a frame of {size} bytes is more than any answer can be")
    payload = bytearray()
    while len(payload) < size:  # in pieces: memory follows the bytes that really came
        piece = stream.read(min(READ_PIECE_BYTES, size - len(payload)))
        if not piece:
            raise EOFError("the answer was cut short")
        payload += piece
    return marshal.loads(payload)


class _Helper:
    """One helper process and the exchange of one request with it."""

    def __init__(self, command: Sequence[str]) -> None:
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (package_root, path)))}
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self._answer: object = None
        self._failed = True
        self._thread: threading.Thread | None = None

    def send(self, job: str, paths: list[Any]) -> None:
        """Start the exchange (in a thread: the helper may still be starting)."""
        self._failed = True
        self._thread = threading.Thread(target=self._exchange, args=(job, paths), daemon=True)
        self._thread.start()

    def _exchange(self, job: str, paths: list[Any]) -> None:
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:
            return
        try:
            _write_frame(stdin, (job, paths))
            answer = _read_frame(stdout)
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(answer, list):
            self._answer, self._failed = answer, False

    def receive(self, expected: int, deadline_s: float) -> list[Any] | None:
        """The helper's results, or None when it failed or did not answer within
        `deadline_s` (it is then stopped)."""
        if self._thread is not None:
            self._thread.join(deadline_s)
            if self._thread.is_alive():
                self._failed = True
        answer = self._answer
        self._answer = None
        if self._failed or not isinstance(answer, list) or len(answer) != expected:
            self.stop(graceful=False)
            return None
        return answer

    def close_input(self) -> None:
        """Close the helper's stdin: it exits once it has answered what it was sent."""
        if self.process.stdin is not None:
            with suppress(OSError):
                self.process.stdin.close()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, graceful: bool = True) -> None:
        self.close_input()
        if graceful:
            try:
                self.process.wait(STOP_WAIT_S)
                return
            except subprocess.TimeoutExpired:
                pass
        self.process.kill()
        self.process.wait()


class Workers:
    """Helper processes (started on need) plus this process, doing one batch at a time."""

    def __init__(
        self,
        helpers: int | None = None,
        command: Sequence[str] | None = None,
        deadline_s: float = HELPER_DEADLINE_S,
    ) -> None:
        cores = os.cpu_count() or 1
        self._wanted = max(0, cores - 1) if helpers is None else helpers
        self._deadline_s = deadline_s
        self._command = list(command or (sys.executable, "-m", __name__))
        self._helpers: list[_Helper] = []

    @property
    def running(self) -> int:
        """How many helper processes run now."""
        return len(self._helpers)

    def run(self, job: str, paths: Sequence[Any], sizes: Sequence[int]) -> list[Any]:
        """`JOBS[job](paths)`, shared with the helpers when the batch is big enough (a path
        may be a request holding one)."""
        work = JOBS[job]
        least = PARALLEL_MIN_FILES if not self._helpers else self._wanted + 1
        if self._wanted == 0 or len(paths) < least:
            return work(list(paths))
        self._start()
        groups = split_by_size(paths, sizes, len(self._helpers) + 1)
        for helper, group in zip(self._helpers, groups, strict=False):
            helper.send(job, [paths[i] for i in group])
        own = groups[-1]
        results: list[Any] = [None] * len(paths)
        for index, result in zip(own, work([paths[i] for i in own]), strict=True):
            results[index] = result
        for helper, group in zip(list(self._helpers), groups, strict=False):
            answer = helper.receive(len(group), self._deadline_s)
            if answer is None:
                self._helpers.remove(helper)
                answer = work([paths[i] for i in group])
            for index, result in zip(group, answer, strict=True):
                results[index] = result
        return results

    def _start(self) -> None:
        self._helpers = [helper for helper in self._helpers if helper.alive]
        while len(self._helpers) < self._wanted:
            try:
                self._helpers.append(_Helper(self._command))
            except OSError:
                break

    def close(self) -> None:
        """Stop every helper (they are started again on need)."""
        helpers, self._helpers = self._helpers, []
        for helper in helpers:
            helper.close_input()
        for helper in helpers:
            helper.stop()


def serve(source: IO[bytes], sink: IO[bytes]) -> None:
    """The helper's loop: answer each (job, paths) frame until the input closes."""
    while True:
        try:
            request = _read_frame(source)
        except EOFError:
            return
        job, paths = request  # type: ignore[misc]
        _write_frame(sink, JOBS[job](paths))


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
