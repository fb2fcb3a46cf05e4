"""Where `cairn serve` listens: a TCP port on 127.0.0.1 with its token, or a unix socket.

`listening` binds synchronously (so a bad port, a port in use or an unsafe
socket path is a `ServeError` — one line, no traceback — before the server is
built) and yields a `Listening`: the socket, the address and, for TCP, the
`ServeToken` every client must send (`cairn.lsp.admission`). On leaving it
closes the socket and removes what it created.
- TCP: port 0 (the default) lets the system choose. The token is
  `$CAIRN_SERVE_TOKEN` when the launcher sets it (at least
  `MIN_TOKEN_CHARS` characters; it is then removed from the environment, so
  the programs the agent runs never see it), otherwise
  `secrets.token_urlsafe(32)` written, alone, to
  `<state dir>/serve/<port>.token` (mode 0600 in 0700 folders).
- Unix socket: a missing folder is created mode 0700; an existing one must be
  the user's and not writable by group or others. A stale socket at the path
  is replaced, anything else there is refused; the socket is made mode 0600.
`listening_line` is the one line printed on stdout once listening, for a
launcher to parse: `cairn: listening on 127.0.0.1:<port>; token in <where>`
(or `cairn: listening on unix:<path>`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import ServeError
from cairn.files.user_state import DIR_MODE, FILE_MODE, state_dir
from cairn.lsp.admission import ServeToken

LOCALHOST = "127.0.0.1"
TOKEN_ENV = "CAIRN_SERVE_TOKEN"
MIN_TOKEN_CHARS = 16
TOKEN_BYTES = 32
TOKEN_FOLDER = "serve"
MAX_PORT = 65535
BACKLOG = 16
UNIX_PREFIX = "unix:"
# Bits that let others write to (or replace entries of) a folder.
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


@dataclass
class Listening:
    """A bound, listening socket; `token` None means none is asked (a unix socket)."""

    sock: socket.socket
    address: str
    token: ServeToken | None
    created: list[Path] = field(default_factory=list)  # removed on leaving `listening`


def listening_line(listening: Listening) -> str:
    """The line printed once listening (a launcher parses it)."""
    line = f"cairn: listening on {listening.address}"
    return line if listening.token is None else f"{line}; token in {listening.token.where}"


def check_port(port: int) -> None:
    if not 0 <= port <= MAX_PORT:
        raise ServeError(
            f"invalid port {port}: choose one from 1 to {MAX_PORT} with --port, "
            "or leave --port out to let the system choose a free one"
        )


def bind_tcp(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (0: any free port)."""
    check_port(port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"{host}:{port} is already in use by another program: choose another --port, "
                "or leave --port out to let the system choose a free one"
            ) from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path`, mode 0600 from the start (through a temporary name)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(temporary, FILE_MODE)  # an existing temporary kept its mode
    os.replace(temporary, path)


def make_token(port: int, created: list[Path]) -> ServeToken:
    """The launcher's token from the environment, or a new one written to a 0600 file."""
    given = os.environ.pop(TOKEN_ENV, None)
    if given is not None:
        if len(given) < MIN_TOKEN_CHARS:
            raise ServeError(
                f"{TOKEN_ENV} is {len(given)} characters long: set at least {MIN_TOKEN_CHARS} "
                "random characters, or unset it to let cairn make a token"
            )
        return ServeToken(given, f"${TOKEN_ENV}")
    folder = state_dir() / TOKEN_FOLDER
    folder.mkdir(mode=DIR_MODE, exist_ok=True)
    os.chmod(folder, DIR_MODE)
    path = folder / f"{port}.token"
    value = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(path, value)
    created.append(path)
    return ServeToken(value, str(path))


def tcp_listening(host: str, port: int) -> Listening:
    sock = bind_tcp(host, port)
    bound = sock.getsockname()[1]
    created: list[Path] = []
    try:
        token = make_token(bound, created)
    except BaseException:
        sock.close()
        remove(created)
        raise
    return Listening(sock, f"{host}:{bound}", token, created)


def check_socket_folder(folder: Path) -> None:
    """Create `folder` mode 0700, or check an existing one is the user's alone to write."""
    if not folder.exists():
        try:
            folder.mkdir(parents=True, mode=DIR_MODE)
            os.chmod(folder, DIR_MODE)
        except OSError as exc:
            raise ServeError(f"cannot create the socket folder {folder}: {exc.strerror}") from None
        return
    info = folder.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise ServeError(f"{folder} is not a folder: choose a --socket path in a folder")
    if info.st_uid != os.getuid():
        raise ServeError(
            f"the socket folder {folder} belongs to another user (uid {info.st_uid}): "
            "choose a --socket path in a folder of your own"
        )
    if info.st_mode & OTHERS_WRITE:
        raise ServeError(
            f"the socket folder {folder} is writable by other users "
            f"(mode {stat.S_IMODE(info.st_mode):o}): run `chmod go-w {folder}`, "
            "or choose a --socket path in a folder only you can write to"
        )


def clear_stale_socket(path: Path) -> None:
    """Remove a socket nobody listens on at `path`; refuse anything else there."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise ServeError(f"{path} exists and is not a socket: remove it or choose another --socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink(missing_ok=True)  # stale: its server is gone
            return
    raise ServeError(f"{path} is in use by another server: stop it or choose another --socket")


def unix_listening(path: Path) -> Listening:
    path = Path(os.path.abspath(path))
    check_socket_folder(path.parent)
    clear_stale_socket(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)  # the socket is never reachable with wider permissions
    try:
        sock.bind(str(path))
        os.chmod(path, FILE_MODE)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(previous)
    return Listening(sock, f"{UNIX_PREFIX}{path}", None, [path])


def remove(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


@contextlib.contextmanager
def listening(port: int | None = None, socket_path: Path | None = None) -> Iterator[Listening]:
    """Listen on a unix socket at `socket_path`, or on 127.0.0.1:`port` (see the module doc)."""
    opened = unix_listening(socket_path) if socket_path else tcp_listening(LOCALHOST, port or 0)
    try:
        yield opened
    finally:
        opened.sock.close()
        remove(opened.created)
