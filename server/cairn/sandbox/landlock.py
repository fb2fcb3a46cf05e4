"""Landlock: the sandbox where bubblewrap is missing or cannot create namespaces.

Landlock (Linux 5.13+, network rules from its ABI 4, Linux 6.7) lets a process
give up file-system and network rights for itself and everything it starts,
without privileges or namespaces. `python -m cairn.sandbox.landlock SPEC --
ARGV...` restricts itself to the policy SPEC (JSON, `landlock_spec`) and
execs ARGV; the syscalls are made through ctypes (no dependency).

The policy: read and execute on every path but the hidden ones (Landlock only
grants, so the grant goes to each entry of each folder on the way to a hidden
path but the hidden one; those folders themselves can be listed, not read
beneath); everything in the workspace folders and in a temporary folder of
this Cairn process (`TMPDIR` points there; `/tmp` itself is read-only); read
and write on a few devices (`/dev/null`, ...) and `/dev/shm`; no TCP bind or
connect unless the network is allowed; with ABI 6, no abstract unix socket
or signal outside the sandbox. Weaker than bubblewrap (docs/SECURITY.md): the
workspace's `.cairn/` stays writable, unix sockets by path (a session bus)
and UDP stay reachable, and a process that leaves the process group is not
killed with it.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38
# The ABI that can also forbid TCP: below it there is no Landlock sandbox here.
MIN_ABI = 4
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
# Rights of ABI 1 (bits 0-12), then REFER (2), TRUNCATE (3), IOCTL_DEV (5).
FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
TRUNCATE, IOCTL_DEV = 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
READ = EXECUTE | READ_FILE | READ_DIR
# Devices a command may read and write.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
SHARED_MEMORY = "/dev/shm"


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI (0: none, or not Linux x86-64/arm64)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def fs_rights(abi: int) -> int:
    """Every file-system right the ABI knows."""
    return FS_RIGHTS_BY_ABI[max(k for k in FS_RIGHTS_BY_ABI if k <= abi)]


def _under(path: Path, other: Path) -> bool:
    return path == other or other in path.parents


def readable_roots(hidden: Sequence[Path]) -> tuple[list[str], list[str]]:
    """(paths readable with everything beneath, folders only listable): the whole file
    system but `hidden`, as Landlock grants it."""
    readable: list[str] = []
    listable: list[str] = []

    def visit(folder: Path) -> None:
        listable.append(str(folder))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            if any(_under(path, h) for h in hidden):
                continue
            if any(_under(h, path) for h in hidden) and entry.is_dir(follow_symlinks=False):
                visit(path)
            else:
                readable.append(str(path))

    if not hidden:
        return ["/"], []
    visit(Path("/"))
    return readable, listable


def landlock_spec(
    folders: Sequence[Path], hidden: Sequence[Path], tmp: Path, network: bool
) -> dict[str, object]:
    """The policy `main` applies (JSON-able)."""
    readable, listable = readable_roots(hidden)
    writable = [os.path.realpath(f) for f in folders] + [str(tmp), SHARED_MEMORY]
    return {
        "read": readable,
        "list": listable,
        "write": writable,
        "devices": list(DEVICES),
        "network": network,
        "tmp": str(tmp),
    }


def _add_rule(libc: ctypes.CDLL, ruleset: int, path: str, access: int, file_access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        allowed = access if os.path.isdir(path) else access & file_access
        attr = _PathBeneathAttr(allowed, fd)
        if libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(attr), 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"landlock_add_rule {path}: {os.strerror(error)}")
    finally:
        os.close(fd)


def restrict(spec: dict[str, object]) -> None:
    """Apply the policy `spec` to this process (and all it starts); OSError when it fails."""
    abi = abi_version()
    if abi < MIN_ABI:
        raise OSError(0, f"Landlock ABI {abi} is below {MIN_ABI}")
    libc = _libc()
    handled = fs_rights(abi)
    file_access = (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV) & handled
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    net = 0 if spec["network"] else NET_BIND_TCP | NET_CONNECT_TCP
    attr = _RulesetAttr(handled, net, scoped)
    size = 24 if abi >= 6 else 16
    ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"landlock_create_ruleset: {os.strerror(error)}")
    device = READ_FILE | WRITE_FILE | IOCTL_DEV
    grants = (("read", READ), ("list", READ_DIR), ("write", handled), ("devices", device))
    for key, access in grants:
        paths = spec[key]
        assert isinstance(paths, list)
        for path in paths:
            _add_rule(libc, ruleset, str(path), access & handled, file_access)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.syscall(SYS_RESTRICT_SELF, ruleset, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"landlock_restrict_self: {os.strerror(error)}")
    os.close(ruleset)


def main(argv: Sequence[str]) -> None:
    """`SPEC -- ARGV...`: restrict this process to SPEC, then exec ARGV."""
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: python -m cairn.sandbox.landlock SPEC -- ARGV...")
    spec = json.loads(argv[0])
    try:
        restrict(spec)
    except OSError as error:
        sys.exit(f"cairn: the Landlock sandbox failed: {error.strerror or error}")
    os.environ["TMPDIR"] = str(spec["tmp"])
    os.execvp(argv[2], list(argv[2:]))


if __name__ == "__main__":
    main(sys.argv[1:])
