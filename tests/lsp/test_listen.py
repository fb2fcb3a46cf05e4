"""`cairn.lsp.listen`: the token's source and file, the socket folder's checks, the line printed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cairn.errors import ServeError
from cairn.lsp.listen import TOKEN_ENV, listening, listening_line

LAUNCHER_TOKEN = "0123456789abcdef-launcher"


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    return tmp_path / "state"


def test_a_new_token_lives_in_a_private_file_while_listening(state: Path) -> None:
    with listening(0) as opened:
        port = opened.sock.getsockname()[1]
        assert opened.token is not None
        path = Path(opened.token.where)
        assert path == state / "cairn" / "serve" / f"{port}.token"
        assert path.read_text(encoding="utf-8") == opened.token.value
        assert len(opened.token.value) >= 40
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert listening_line(opened) == f"cairn: listening on 127.0.0.1:{port}; token in {path}"
    assert not path.exists()


def test_the_launchers_token_is_taken_out_of_the_environment(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, LAUNCHER_TOKEN)
    with listening(0) as opened:
        assert opened.token is not None and opened.token.value == LAUNCHER_TOKEN
        assert listening_line(opened).endswith("; token in $CAIRN_SERVE_TOKEN")
        assert TOKEN_ENV not in os.environ  # the agent's commands never see it
        assert not (state / "cairn" / "serve").exists()


def test_a_short_launcher_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, "short")
    with pytest.raises(ServeError, match="CAIRN_SERVE_TOKEN is 5 characters long"), listening(0):
        pass


def test_a_socket_path_holding_a_file_is_refused(tmp_path: Path) -> None:
    taken = tmp_path / "run" / "s.sock"
    taken.parent.mkdir(mode=0o700)
    taken.write_text("not a socket")
    with (
        pytest.raises(ServeError, match="exists and is not a socket"),
        listening(socket_path=taken),
    ):
        pass


def test_a_stale_socket_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "run" / "s.sock"
    with listening(socket_path=path) as first:
        first.sock.close()  # its server is gone, the file stays
        assert stat.S_ISSOCK(path.stat().st_mode)
        with listening(socket_path=path) as second:
            assert listening_line(second) == f"cairn: listening on unix:{path}"
            assert stat.S_ISSOCK(path.stat().st_mode)
    assert not path.exists()
