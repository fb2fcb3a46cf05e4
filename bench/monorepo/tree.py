"""The trees `python -m bench.monorepo` measures, built from registry packages (git-ignored).

- the monorepo (`bench/.work/monorepo/tree`, about 19,600 mapped files): the Python
  sources and C++ headers of the torch wheel (the CPU build on this machine's disk, taken
  by `pip download`), the django, sympy, pandas and numpy wheels from PyPI, and the
  `effect` and `rxjs` packages from npm (`npm pack`: TypeScript sources, JavaScript and
  declaration files) — one folder per package under `py/` and `js/`;
- the sympy-sized tree (`bench/.work/monorepo/sympy`): the sympy wheel alone, copied
  afresh for each cold run by the caller.

Everything a wheel or a package holds is unpacked but compiled libraries (`.so`, `.a`,
...) and the wheel's `.dist-info`; each tree gets its own empty git repository
(`git init`), so its own ignore rules apply, not this repository's. A tree is built once
(a marker file says it is complete) and re-used; delete `bench/.work/monorepo` to rebuild.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from bench.harness.paths import WORK

HOME = WORK / "monorepo"
DOWNLOADS = HOME / "downloads"
MONOREPO = HOME / "tree"
SYMPY = HOME / "sympy"
DONE_MARK = ".git/monorepo-complete"

WHEELS = (
    ("torch", "2.13.0"),
    ("django", "5.2.20"),
    ("sympy", "1.14.0"),
    ("pandas", "3.1.1"),
    ("numpy", "2.4.6"),
)
"""PyPI packages (name, version) unpacked under `py/<name>`."""
NPM_PACKAGES = (("effect", "4.1.0"), ("rxjs", "7.8.2"))
"""npm packages (name, version) unpacked under `js/<name>`."""
PIP_DOWNLOAD = (sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:")
BINARY_SUFFIXES = frozenset({".so", ".a", ".dylib", ".dll", ".pyd", ".lib", ".exe"})


def _wheel(name: str, version: str) -> Path:
    """The wheel of `name==version` in DOWNLOADS (downloaded when missing)."""
    found = sorted(DOWNLOADS.glob(f"{name}-{version}*.whl"))
    if not found:
        subprocess.run(
            [*PIP_DOWNLOAD, "-d", str(DOWNLOADS), f"{name}=={version}"],
            check=True,
        )
        found = sorted(DOWNLOADS.glob(f"{name}-{version}*.whl"))
    if not found:
        raise SystemExit(f"pip download {name}=={version} left no wheel in {DOWNLOADS}")
    return found[0]


def _npm_tarball(name: str, version: str) -> Path:
    """The `npm pack` tarball of `name@version` in DOWNLOADS (packed when missing)."""
    tarball = DOWNLOADS / f"{name}-{version}.tgz"
    if not tarball.exists():
        subprocess.run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=DOWNLOADS, check=True)
    return tarball


def _kept(member: str) -> bool:
    """True for a wheel member the tree holds (no compiled library, no metadata)."""
    first = member.split("/", 1)[0]
    if first.endswith((".dist-info", ".data")):
        return False
    suffixes = Path(member).suffixes
    return not BINARY_SUFFIXES.intersection(suffixes)


def _unpack_wheel(wheel: Path, target: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if not member.endswith("/") and _kept(member):
                archive.extract(member, target)


def _unpack_npm(tarball: Path, target: Path) -> None:
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if not member.isfile() or not member.name.startswith("package/"):
                continue
            member.name = member.name.removeprefix("package/")
            archive.extract(member, target, filter="data")


def _git_init(tree: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)


def _fresh(tree: Path) -> bool:
    """True when `tree` must be built (it is then emptied)."""
    if (tree / DONE_MARK).exists():
        return False
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    return True


def monorepo() -> Path:
    """The monorepo tree (built on first use)."""
    if _fresh(MONOREPO):
        print(f"building {MONOREPO} ...", file=sys.stderr)
        for name, version in WHEELS:
            _unpack_wheel(_wheel(name, version), MONOREPO / "py" / name)
        for name, version in NPM_PACKAGES:
            _unpack_npm(_npm_tarball(name, version), MONOREPO / "js" / name)
        _git_init(MONOREPO)
        (MONOREPO / DONE_MARK).touch()
    return MONOREPO


def sympy_tree() -> Path:
    """The sympy-sized tree: the sympy wheel's files alone (built on first use)."""
    if _fresh(SYMPY):
        name, version = next(w for w in WHEELS if w[0] == "sympy")
        _unpack_wheel(_wheel(name, version), SYMPY)
        _git_init(SYMPY)
        (SYMPY / DONE_MARK).touch()
    return SYMPY


def fresh_copy_of(tree: Path, target: Path) -> Path:
    """`target` replaced by a copy of `tree` (its git repository included, no index)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(tree, target, symlinks=True)
    return target
