"""The frame reader alone: every framing defect is one problem, and the next frame is read."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.frontends.codes import INVALID_REQUEST, PARSE_ERROR
from cairn.lsp.framing import (
    HEADER_NAME,
    MAX_HEADER_LINE,
    Event,
    Frame,
    FrameReader,
    FramingProblem,
    frame,
)

LIMIT = 1024 * 1024
BODY = b'{"jsonrpc":"2.0","id":1,"method":"cairn/goalTree","params":{}}'
OTHER = b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}'


def is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def events(*chunks: bytes, limit: int = LIMIT) -> list[Event]:
    """The events of a stream, with bodies that are not JSON handed back as the transport does."""
    reader = FrameReader(lambda: limit)
    found: list[Event] = []
    for chunk in chunks:
        reader.feed(chunk)
        while (event := reader.next_event()) is not None:
            found.append(event)
            if isinstance(event, Frame) and not is_json(event.body):
                reader.reread_last_body()
    return found


def bodies(found: list[Event]) -> list[bytes]:
    return [event.body for event in found if isinstance(event, Frame)]


def problems(found: list[Event]) -> list[FramingProblem]:
    return [event for event in found if isinstance(event, FramingProblem)]


def test_a_frame_split_into_single_bytes_is_read_once() -> None:
    stream = frame(BODY) + frame(OTHER)
    assert bodies(events(*(stream[i : i + 1] for i in range(len(stream))))) == [BODY, OTHER]


def test_headers_are_case_insensitive_lf_only_and_other_headers_ignored() -> None:
    stream = (
        b"content-length: %d\n\n" % len(BODY)
        + BODY
        + b"\r\n"  # a stray blank line between messages
        + b"CONTENT-TYPE: application/vscode-jsonrpc; charset=utf-8\r\n"
        + b"CoNtEnT-LeNgTh:%d  \r\n\r\n" % len(OTHER)
        + OTHER
    )
    found = events(stream)
    assert bodies(found) == [BODY, OTHER] and problems(found) == []


def test_a_huge_length_is_refused_without_keeping_its_body() -> None:
    reader = FrameReader(lambda: LIMIT)
    reader.feed(b"Content-Length: 1099511627776\r\n\r\n")
    problem = reader.next_event()
    assert isinstance(problem, FramingProblem) and problem.code == INVALID_REQUEST
    assert "1099511627776" in problem.message and str(LIMIT) in problem.message
    assert "max_message_bytes" in problem.message
    for _ in range(64):  # 64 MiB of body: nothing of it is kept
        reader.feed(b"x" * (1 << 20))
        assert reader.next_event() is None
        assert reader.buffered < len(HEADER_NAME)
    reader.feed(frame(BODY))
    assert reader.next_event() == Frame(BODY)


def test_twenty_digit_length_is_too_large_not_an_overflow() -> None:
    found = events(b"Content-Length: 99999999999999999999\r\n\r\n" + frame(BODY))
    assert [p.code for p in problems(found)] == [INVALID_REQUEST]
    assert bodies(found) == [BODY]


def test_a_length_just_above_the_limit_is_refused_and_at_the_limit_read() -> None:
    at_limit = b" " * (LIMIT - len(BODY)) + BODY
    found = events(frame(at_limit) + frame(at_limit + b" ") + frame(BODY))
    assert bodies(found) == [at_limit, BODY]
    assert [p.code for p in problems(found)] == [INVALID_REQUEST]


def test_bad_length_values_are_problems_and_reading_resumes() -> None:
    for value in (b"-5", b"abc", b"5.0", b"+5", b"0x10", b""):
        found = events(b"Content-Length: " + value + b"\r\n\r\n{}" + frame(BODY))
        assert bodies(found) == [BODY], value
        assert [p.code for p in problems(found)] == [PARSE_ERROR], value
        assert "Content-Length" in problems(found)[0].message


def test_random_bytes_before_a_frame() -> None:
    garbage = bytes(range(256)) * 4
    found = events(garbage + frame(BODY) + frame(OTHER))
    assert bodies(found) == [BODY, OTHER]
    assert len(problems(found)) >= 1


def test_garbage_on_the_same_line_as_the_header() -> None:
    for garbage in (b"xyz", b"xyz:", b"a: b c ", b"\x00\xff"):
        found = events(garbage + frame(BODY))
        assert bodies(found) == [BODY], garbage


def test_a_header_without_body_gives_way_to_the_next_header_at_once() -> None:
    reader = FrameReader(lambda: LIMIT)
    reader.feed(b"Content-Length: 500\r\n\r\n" + frame(BODY))
    first = reader.next_event()
    assert isinstance(first, FramingProblem) and "cut short" in first.message
    assert reader.next_event() == Frame(BODY)  # no need to wait for 500 bytes
    assert reader.next_event() is None


def test_a_length_a_little_too_large_loses_only_that_frame() -> None:
    for extra in (1, 10, 17, 20, 30):
        found = events(b"Content-Length: %d\r\n\r\n" % (len(BODY) + extra) + BODY + frame(OTHER))
        assert bodies(found)[-1] == OTHER, extra


def test_a_length_too_small_gives_a_truncated_body_then_recovers() -> None:
    found = events(b"Content-Length: 10\r\n\r\n" + BODY + frame(OTHER))
    assert bodies(found)[0] == BODY[:10]  # the message layer answers it as invalid JSON
    assert bodies(found)[-1] == OTHER


def test_a_header_block_without_content_length() -> None:
    found = events(b"Content-Type: x\r\n\r\n" + frame(BODY))
    assert problems(found)[0].message == "a header block without Content-Length"
    assert bodies(found) == [BODY]


def test_an_endless_header_line_is_garbage() -> None:
    found = events(b"x" * (MAX_HEADER_LINE + 1), frame(BODY))
    assert "longer than" in problems(found)[0].message
    assert bodies(found) == [BODY]


def test_a_body_may_hold_the_header_name_inside_a_string() -> None:
    body = json.dumps({"text": "Content-Length: 5\r\n\r\nhello\nContent-Length: 7"}).encode()
    assert bodies(events(frame(body))) == [body]


JSON_BODIES = st.dictionaries(st.text(max_size=8), st.text(max_size=40), max_size=4).map(
    lambda value: json.dumps(value).encode()
)
GARBAGE = st.binary(max_size=300).filter(lambda data: HEADER_NAME not in data.lower())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(GARBAGE, JSON_BODIES), min_size=1, max_size=5),
    st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=20),
)
def test_every_frame_after_any_garbage_is_read_however_the_stream_is_cut(
    pieces: list[tuple[bytes, bytes]], cuts: list[int]
) -> None:
    stream = b"".join(garbage + frame(body) for garbage, body in pieces)
    chunks, at = [], 0
    for size in cuts * (len(stream) // max(1, sum(cuts)) + 1):
        chunks.append(stream[at : at + size])
        at += size
    assert b"".join(chunks) == stream
    assert bodies(events(*chunks)) == [body for _, body in pieces]
