"""`cairn serve`: the stdout guard, and `--tcp --port N` on 127.0.0.1 (its token: test_serve_auth)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import (
    READ_TIMEOUT_S,
    RawConnection,
    connect,
    free_port,
    listening_on,
    spawn_tcp,
)

PROC_NET_TCP = Path("/proc/net/tcp")
TCP_LISTEN = "0A"
LOOPBACK_HEX = "0100007F"  # 127.0.0.1, little-endian
GUARD_PROBE = """
import os, sys
from cairn.commands.serve import guard_stdout
protocol = guard_stdout()
print("a stray print")
os.write(1, b"a stray fd write\\n")
protocol.write(b"PROTOCOL")
protocol.flush()
"""


def test_stdout_guard_keeps_stray_output_off_the_protocol_stream() -> None:
    done = subprocess.run(
        [sys.executable, "-c", GUARD_PROBE], capture_output=True, timeout=READ_TIMEOUT_S, check=True
    )
    assert done.stdout == b"PROTOCOL"
    assert b"a stray print" in done.stderr and b"a stray fd write" in done.stderr


def listening_addresses(port: int) -> set[str]:
    """Hex IPv4 addresses listening on `port`, from /proc/net/tcp (Linux)."""
    found: set[str] = set()
    for line in PROC_NET_TCP.read_text().splitlines()[1:]:
        fields = line.split()
        address, hex_port = fields[1].split(":")
        if int(hex_port, 16) == port and fields[3] == TCP_LISTEN:
            found.add(address)
    return found


async def test_tcp_serves_one_client_on_localhost(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    port = free_port()
    process = await spawn_tcp(
        root, tmp_path / "stderr.log", tmp_path / "state", "--port", str(port)
    )
    try:
        listening_port, token_file = await listening_on(process)
        assert listening_port == port
        assert token_file == tmp_path / "state" / "cairn" / "serve" / f"{port}.token"
        reader, writer = await connect(port)
        if PROC_NET_TCP.exists():
            assert listening_addresses(port) == {LOOPBACK_HEX}
        connection = RawConnection(reader, writer, token_file.read_text(encoding="utf-8"))
        answer = await connection.initialize(root)
        assert answer["result"]["serverInfo"]["name"] == "cairn"
        tree = await connection.request("cairn/goalTree", {})
        assert set(tree["result"]) == {"sessionId", "tree", "rendered"}
        await connection.shutdown()
        writer.close()
        assert await asyncio.wait_for(process.wait(), READ_TIMEOUT_S) == 0
        assert not token_file.exists()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
