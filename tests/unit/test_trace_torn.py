"""Torn and corrupt JSONL lines: skipped, counted, logged; valid lines around them kept."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cairn.models.manifest import Manifest
from cairn.models.messages import Message, TextPart
from cairn.trace import Trace, TraceStore, files
from cairn.trace.records import dump_manifest, dump_message


def _msg(message_id: str) -> Message:
    return Message(id=message_id, role="user", parts=[TextPart(text=f"text {message_id}")])


def _line(message_id: str) -> bytes:
    return dump_message(_msg(message_id)) + b"\n"


@pytest.fixture
def trace(tmp_path: Path) -> Trace:
    trace = TraceStore(tmp_path / ".cairn").create()
    trace.close()
    return trace


def _reopen(trace: Trace) -> Trace:
    return TraceStore(trace.dir.parent.parent).open(trace.id)


def _write(trace: Trace, data: bytes) -> None:
    (trace.dir / "messages.jsonl").write_bytes(data)


def test_torn_last_line_is_skipped_and_counted(
    trace: Trace, caplog: pytest.LogCaptureFixture
) -> None:
    _write(trace, _line("a") + _line("b") + _line("c")[:25])
    with caplog.at_level(logging.WARNING, logger="cairn.trace"):
        loaded = _reopen(trace)
        assert [m.id for m in loaded.messages()] == ["a", "b"]
    report = loaded.load_report.messages
    assert (report.loaded, report.corrupt, report.torn_tail) == (2, 1, True)
    assert loaded.load_report.skipped == 1
    assert any("messages.jsonl:3: torn last line" in r.getMessage() for r in caplog.records)


def test_corrupt_middle_lines_do_not_take_neighbours(trace: Trace) -> None:
    _write(
        trace,
        _line("a") + b"{not json\n" + b'{"id": "x"}\n' + b"\xff\xfe\n" + _line("b") + b"\n",
    )
    loaded = _reopen(trace)
    assert [m.id for m in loaded.messages()] == ["a", "b"]
    report = loaded.load_report.messages
    assert (report.corrupt, report.torn_tail) == (3, False)


def test_append_after_torn_tail_starts_a_fresh_line(trace: Trace) -> None:
    _write(trace, _line("a") + _line("b")[:30])
    writer = _reopen(trace)
    writer.append_message(_msg("c"))
    writer.append_message(_msg("d"))
    writer.close()
    loaded = _reopen(trace)
    assert [m.id for m in loaded.messages()] == ["a", "c", "d"]
    assert loaded.load_report.messages.corrupt == 1
    assert loaded.load_report.messages.torn_tail is False  # the fragment is now a middle line


def test_complete_last_line_without_newline_is_kept(trace: Trace) -> None:
    _write(trace, _line("a") + _line("b").rstrip(b"\n"))
    writer = _reopen(trace)
    assert [m.id for m in writer.messages()] == ["a", "b"]
    writer.append_message(_msg("c"))
    writer.close()
    loaded = _reopen(trace)
    assert [m.id for m in loaded.messages()] == ["a", "b", "c"]
    assert loaded.load_report.skipped == 0


def test_duplicate_ids_on_disk_keep_the_first(trace: Trace) -> None:
    first = _line("a")
    second = dump_message(Message(id="a", role="assistant")) + b"\n"
    _write(trace, first + second + _line("b"))
    loaded = _reopen(trace)
    assert [(m.id, m.role) for m in loaded.messages()] == [("a", "user"), ("b", "user")]
    assert loaded.load_report.messages.duplicates == 1


def test_torn_manifest_line(trace: Trace) -> None:
    manifest = Manifest(session_id=trace.id, model="m", available_input=1, used_input=1)
    line = dump_manifest(manifest) + b"\n"
    (trace.dir / "manifests.jsonl").write_bytes(line + line[:10])
    loaded = _reopen(trace)
    assert loaded.manifests() == [manifest]
    assert loaded.load_report.manifests.torn_tail
    loaded.append_manifest(manifest)
    loaded.close()
    assert _reopen(trace).manifests() == [manifest, manifest]


def test_failed_append_does_not_corrupt_the_next_one(
    trace: Trace, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = _reopen(trace)
    writer.append_message(_msg("a"))
    real_write_all = files.write_all

    def half_then_fail(fd: int, data: bytes) -> None:
        real_write_all(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "write_all", half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        writer.append_message(_msg("b"))
    monkeypatch.setattr(files, "write_all", real_write_all)
    writer.append_message(_msg("b"))  # the id was not taken by the failed append
    writer.close()
    loaded = _reopen(trace)
    assert [m.id for m in loaded.messages()] == ["a", "b"]
    assert loaded.load_report.messages.corrupt == 1
