"""Helper processes for the repository map's big jobs (a cold scan, the first parses).

`Workers.run(job, items, sizes)` cuts the items (files) into batches of about equal
bytes, BATCHES_PER_PROCESS per process; this process and every helper process (one
fewer than the cores) take batches in turn until none are left, so every core works,
none waits for a pool to start, and a helper that starts late simply does fewer
batches. A helper is a plain `python -m cairn.repomap.workers` that imports only
the scanner (about 50 ms), not the caller's main module as `multiprocessing`'s spawn
does; requests and results cross its stdin/stdout as length-prefixed `marshal` frames.

Small jobs (fewer than PARALLEL_MIN_FILES items while no helper runs) are done in this
process. A helper that fails in any way (cannot start, dies, answers garbage, has not
finished HELPER_DEADLINE_S after this process ran out of batches) is stopped and its
batch is done here: the result is the same, only slower. Helpers live until `close()`.

Run as a module, this file is the helper: it answers requests until its stdin closes.
"""

from __future__ import annotations

import marshal
import os
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from cairn.repomap.documents import Memo, tag_document
from cairn.repomap.entries import Packed, pack, unpack
from cairn.repomap.reading import Refusal, as_refusal
from cairn.repomap.tags import FileTags, parse_files, scan_files

PARALLEL_MIN_FILES = 64
"""Jobs of fewer files than this are done in this process while no helper runs (starting
one costs about 50 ms); once helpers run, any job with a file for each process uses them."""
HELPER_DEADLINE_S = 600.0
"""A helper still busy this long after this process ran out of batches is stopped (its
batch is then done here)."""
STOP_WAIT_S = 5.0
"""How long `close()` waits for a helper to exit after its stdin closes, before killing it."""
MARSHAL_VERSION = 4
SHARE_MARSHAL_VERSION = 2
"""Document shares are written without back-references (version 3 on): the same share
gives the same bytes whichever files were counted before it in its batch."""
FRAME_HEADER = struct.Struct("<Q")
"""Each frame: its length as 8 little-endian bytes, then a `marshal` payload."""

BATCHES_PER_PROCESS = 8
"""A run is cut into this many batches per process (this one and each helper)."""
MAX_FRAME_BYTES = 1 << 34
"""Larger announced frames are refused as garbage (16 GiB: no real answer comes close)."""
READ_PIECE_BYTES = 1 << 20

SCAN = "scan"
PARSE = "parse"

ScanResult = tuple[object, bytes, bytes] | str
"""A scanned file as it crosses the pipe: its tags packed as the index stores them
(`repomap_entries`: the caller keeps the bytes and decodes them only when read) and the
tags' share of its lexical document (`marshal` bytes of `repomap_documents.tag_document`,
counted here so the caller need not decode the tags to count it), or the reason it is
not mapped (`cairn.repomap.reading.Refusal`)."""


def _scan_job(paths: list[str]) -> list[ScanResult]:
    results: list[ScanResult] = []
    memo: Memo = {}
    for tags in scan_files(paths):
        if isinstance(tags, str):
            results.append(tags)
        else:
            packed = pack(tags)  # first: the memo below must not change its bytes
            share = tag_document(tags.names, tags.references, memo)
            results.append((*packed, marshal.dumps(share, SHARE_MARSHAL_VERSION)))
    return results


JOBS: dict[str, Callable[[list[Any]], list[Any]]] = {SCAN: _scan_job, PARSE: parse_files}


def scan_result(result: object) -> Packed | Refusal:
    """A scan result as the index keeps it (checked: garbage raises ValueError)."""
    if isinstance(result, str):
        return as_refusal(result)
    if isinstance(result, tuple) and len(result) == 3 and isinstance(result[1], bytes):
        return result[0], result[1]
    raise ValueError("a scan result is neither tags nor a refusal")


def scan_document(result: object) -> bytes | None:
    """The document share of a scan result (None: a refusal, or garbage)."""
    if isinstance(result, tuple) and len(result) == 3 and isinstance(result[2], bytes):
        return result[2]
    return None


def scan_result_tags(result: ScanResult) -> FileTags | Refusal:
    """The FileTags of a scan result (a refusal stays a refusal)."""
    kept = scan_result(result)
    return kept if isinstance(kept, str) else unpack(kept)


def batches_by_size(sizes: Sequence[int], count: int) -> list[list[int]]:
    """Indexes 0..len(sizes)-1 cut, in order, into at most `count` runs of about equal
    total size (every index in exactly one run; the cut depends only on the sizes)."""
    total = sum(size + 1 for size in sizes)
    target = total / max(1, count)
    batches: list[list[int]] = []
    current: list[int] = []
    filled = 0.0
    for index, size in enumerate(sizes):
        current.append(index)
        filled += size + 1
        if filled >= target * (len(batches) + 1) and len(batches) < count - 1:
            batches.append(current)
            current = []
    if current:
        batches.append(current)
    return batches


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


class _Batches:
    """The batches of one run, handed out to whichever process asks next."""

    def __init__(self, batches: list[list[int]]) -> None:
        self._batches = deque(batches)
        self._lock = threading.Lock()

    def take(self) -> list[int] | None:
        with self._lock:
            return self._batches.popleft() if self._batches else None


class _Helper:
    """One helper process, and the thread that feeds it batches during a run."""

    def __init__(self, command: Sequence[str]) -> None:
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (package_root, path)))}
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.failed: list[int] | None = None
        """The batch this helper failed on (its work is then done elsewhere)."""
        self._thread: threading.Thread | None = None

    def start(self, job: str, items: Sequence[Any], batches: _Batches, results: list[Any]) -> None:
        """Feed the helper batches until none are left or it fails (in a thread)."""
        self.failed = None
        self._thread = threading.Thread(
            target=self._serve, args=(job, items, batches, results), daemon=True
        )
        self._thread.start()

    def _serve(self, job: str, items: Sequence[Any], batches: _Batches, results: list[Any]) -> None:
        stdin, stdout = self.process.stdin, self.process.stdout
        while (batch := batches.take()) is not None:
            try:
                if stdin is None or stdout is None:
                    raise EOFError("the helper has no pipes")
                _write_frame(stdin, (job, [items[i] for i in batch]))
                answer = _read_frame(stdout)
                if not isinstance(answer, list) or len(answer) != len(batch):
                    raise ValueError("the helper's answer does not match its batch")
            except (OSError, EOFError, ValueError, TypeError):
                self.failed = batch
                return
            for index, result in zip(batch, answer, strict=True):
                results[index] = result

    def finish(self, deadline_s: float) -> list[int] | None:
        """Wait for the helper's last batch; the batch it failed on (it is then stopped),
        if any. One still running after `deadline_s` is stopped too."""
        if self._thread is not None:
            self._thread.join(deadline_s)
            if self._thread.is_alive():
                self.stop(graceful=False)  # its pipe closes: the thread ends with a failure
                self._thread.join()
        if self.failed is not None:
            self.stop(graceful=False)
        return self.failed

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
    """Helper processes (started on need) plus this process, sharing one run at a time."""

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

    def run(self, job: str, items: Sequence[Any], sizes: Sequence[int]) -> list[Any]:
        """`JOBS[job](items)`, shared with the helpers when there are enough items.

        The items are cut into batches of about equal size (`sizes`: one per item, e.g.
        file bytes) that this process and every helper take in turn until none are left,
        so a helper that starts late or gets slow batches simply does fewer of them.
        """
        work = JOBS[job]
        least = PARALLEL_MIN_FILES if not self._helpers else self._wanted + 1
        if self._wanted == 0 or len(items) < least:
            return work(list(items))
        self._start()
        if not self._helpers:
            return work(list(items))
        batches = _Batches(batches_by_size(sizes, BATCHES_PER_PROCESS * (len(self._helpers) + 1)))
        results: list[Any] = [None] * len(items)
        for helper in self._helpers:
            helper.start(job, items, batches, results)
        redo: list[int] = []
        while True:
            batch = batches.take()
            if batch is None:
                break
            for index, result in zip(batch, work([items[i] for i in batch]), strict=True):
                results[index] = result
        for helper in list(self._helpers):
            failed = helper.finish(self._deadline_s)
            if failed is not None:
                self._helpers.remove(helper)
                redo.extend(failed)
        if redo:
            for index, result in zip(redo, work([items[i] for i in redo]), strict=True):
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
