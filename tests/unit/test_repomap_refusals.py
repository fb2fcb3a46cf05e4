"""What the repository map refuses to read: secret paths, special files, huge, minified and
generated files; none of it reaches the map or its cache."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.code.generated import code_refusal
from cairn.files.secrets import SecretPaths
from cairn.repomap.index import TagIndex
from cairn.repomap.map import RepoMap
from cairn.repomap.reading import MAX_MAP_FILE_BYTES, read_source
from cairn.repomap.store import INDEX_NAME

SECRET_VALUE = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
SECRET_FILES = (".env.py", "id_rsa_tools.py", ".aws/cfg.py")
PEAK_RSS_LIMIT_KB = 400_000
"""A map of a handful of small files stays far below this, whatever else is on disk."""


def count(text: str) -> int:
    return (len(text) + 3) // 4


class Files:
    """Every path under a folder, links and special files included (like a listing)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[Path]:
        return sorted(
            path for path in self.root.rglob("*") if path.is_symlink() or not path.is_dir()
        )


def _project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "app.py").write_text(
        "from settings import load_settings\n\n\n"
        "def run_application():\n"
        "    return load_settings(), SECRET_ACCESS_KEY, deploy_credentials(), cloud_profile()\n"
    )
    (root / "settings.py").write_text(
        "def load_settings():\n    return run_application_helper()\n\n\n"
        "def run_application_helper():\n    return 1\n"
    )
    return root


def _secrets(root: Path) -> None:
    for rel in SECRET_FILES:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'SECRET_ACCESS_KEY = "{SECRET_VALUE}"\n\n\n'
            f"def deploy_credentials():\n    return '{SECRET_VALUE}'\n\n\n"
            f"def cloud_profile():\n    return SECRET_ACCESS_KEY\n"
        )


def _cache_bytes(cache: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(cache.rglob("*")) if path.is_file())


def _render(root: Path, cache: Path | None = None) -> str:
    return RepoMap(root, Files(root), cache).render(
        [root / "app.py"], {"deploy_credentials", "SECRET_ACCESS_KEY"}, 4000, count
    )


def test_secret_named_files_are_absent_from_the_map_and_its_cache(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    _secrets(root)
    cache = tmp_path / "cache"
    text = _render(root, cache)
    assert "settings.py" in text
    for rel in SECRET_FILES:
        assert rel not in text
    assert SECRET_VALUE not in text and "deploy_credentials" not in text
    stored = _cache_bytes(cache)
    assert stored and SECRET_VALUE.encode() not in stored
    assert not any(rel.encode() in stored for rel in SECRET_FILES)


def test_a_symlink_to_a_secret_file_is_not_read(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    _secrets(root)
    (root / "harmless.py").symlink_to(root / ".env.py")
    text = _render(root, tmp_path / "cache")
    assert "harmless.py" not in text and "deploy_credentials" not in text
    assert SECRET_VALUE.encode() not in _cache_bytes(tmp_path / "cache")


def test_what_an_older_cache_held_of_secret_files_is_dropped(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    _secrets(root)
    cache = tmp_path / "cache"
    trusting = TagIndex(root.resolve(), cache, secrets=lambda: SecretPaths(allow=("*",)))
    trusting.refresh(Files(root).files())
    trusting.save()
    assert SECRET_VALUE.encode() in (cache / INDEX_NAME).read_bytes()
    (cache / "repomap-v3-py311.marshal").write_bytes(marshal.dumps({"leak": SECRET_VALUE}))
    text = _render(root, cache)
    assert "deploy_credentials" not in text
    assert SECRET_VALUE.encode() not in _cache_bytes(cache)
    assert sorted(path.name for path in cache.iterdir()) == [INDEX_NAME]


def test_secret_buffers_are_ignored(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    repomap = RepoMap(root, Files(root))
    repomap.update_buffer(
        root / ".env.py", f"def deploy_credentials():\n    return '{SECRET_VALUE}'\n"
    )
    text = repomap.render([root / "app.py"], {"deploy_credentials"}, 4000, count)
    assert "deploy_credentials" not in text and ".env.py" not in text


def test_the_workspace_rules_apply_and_a_change_of_them_is_followed(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    (root / "config").mkdir()
    (root / "config" / "deploy.py").write_text(
        f"def deploy_credentials():\n    return '{SECRET_VALUE}'\n"
    )
    cache = tmp_path / "cache"
    policy = [SecretPaths()]
    repomap = RepoMap(root, Files(root), cache, secrets=lambda: policy[0])
    repomap.update_buffer(
        root / "config" / "deploy.py", "def deploy_credentials():\n    return 2\n"
    )
    assert "config/deploy.py" in _render_with(repomap, root)
    policy[0] = SecretPaths(deny=("config/",))  # the user's settings changed
    text = _render_with(repomap, root)
    assert "deploy_credentials" not in text and "config/deploy.py" not in text
    assert SECRET_VALUE.encode() not in _cache_bytes(cache) and b"config/deploy.py" not in (
        _cache_bytes(cache)
    )
    repomap.update_buffer(
        root / "config" / "deploy.py", "def deploy_credentials():\n    return 3\n"
    )
    assert "config/deploy.py" not in _render_with(repomap, root)


def _render_with(repomap: RepoMap, root: Path) -> str:
    return repomap.render([root / "app.py"], {"deploy_credentials"}, 4000, count)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_skipped_without_opening_it(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    os.mkfifo(root / "pipe.py")
    repomap = RepoMap(root, Files(root))
    text = repomap.render([root / "app.py"], set(), 4000, count)  # would hang on an open
    assert "settings.py" in text and "pipe.py" not in text
    assert repomap.refused == {"pipe.py": "not_regular"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_reading_a_fifo_swapped_in_after_the_stat_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "late.py")
    assert read_source(str(tmp_path / "late.py")) == "not_regular"


def test_a_file_that_grew_past_the_limit_is_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "grown.py"
    path.write_bytes(b"x = 1\n" * 100)
    assert read_source(str(path), max_bytes=50) == "too_large"
    assert read_source(str(path), max_bytes=600) == b"x = 1\n" * 100


HUGE_PROBE = """
import json, resource, sys
from pathlib import Path
from cairn.repomap.map import RepoMap
root = Path(sys.argv[1])
class Files:
    def files(self):
        return sorted(p for p in root.rglob("*") if p.is_file())
repomap = RepoMap(root, Files())
text = repomap.render([root / "app.py"], set(), 4000, lambda t: len(t) // 4)
try:  # this process's own peak (ru_maxrss keeps the forking parent's across exec)
    status = Path("/proc/self/status").read_text().splitlines()
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"text": text, "refused": repomap.refused, "peak_kb": peak}))
"""


def test_a_huge_sparse_file_is_skipped_with_bounded_memory(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    with open(root / "huge.py", "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GB, sparse: no disk used
    done = subprocess.run(
        [sys.executable, "-c", HUGE_PROBE, str(root)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["refused"] == {"huge.py": "too_large"}
    assert "settings.py" in result["text"] and "huge.py" not in result["text"]
    assert result["peak_kb"] < PEAK_RSS_LIMIT_KB


def test_a_buffer_over_the_limit_is_left_out(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    repomap = RepoMap(root, Files(root))
    big = "def load_settings():\n    return 1\n" + "#" * MAX_MAP_FILE_BYTES
    repomap.update_buffer(root / "settings.py", big)
    assert "settings.py" not in repomap.render([root / "app.py"], set(), 4000, count)
    assert repomap.refused == {"settings.py": "too_large"}
    repomap.update_buffer(root / "settings.py", None)
    assert "settings.py" in repomap.render([root / "app.py"], set(), 4000, count)


def test_symlink_loops_and_dangling_links_are_skipped(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    (root / "loop1.py").symlink_to(root / "loop2.py")
    (root / "loop2.py").symlink_to(root / "loop1.py")
    (root / "gone.py").symlink_to(root / "nowhere.py")
    repomap = RepoMap(root, Files(root))
    text = repomap.render([root / "app.py"], set(), 4000, count)
    assert "settings.py" in text and "loop" not in text and "gone.py" not in text
    repomap.update_buffer(root / "loop1.py", "def looped():\n    return 1\n")  # no error
    assert "looped" not in repomap.render([root / "app.py"], {"looped"}, 4000, count)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_skipped(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    locked = root / "locked.py"
    locked.write_text("def locked_away():\n    return 1\n")
    locked.chmod(0)
    try:
        text = _render(root)
    finally:
        locked.chmod(0o644)
    assert "settings.py" in text and "locked.py" not in text


def _bundle(size: int) -> str:
    """A one-line minified bundle of about `size` bytes defining many functions."""
    pieces: list[str] = []
    index = 0
    while sum(map(len, pieces)) < size:
        pieces.append(f"function load_settings{index}(a){{return a+{index}}}var v{index}=1;")
        index += 1
    return "".join(pieces) + "\n"


def test_a_minified_bundle_leaves_the_map_as_it_is_without_it(tmp_path: Path) -> None:
    plain = _project(tmp_path / "plain")
    with_bundle = _project(tmp_path / "bundle")
    (with_bundle / "static").mkdir()
    (with_bundle / "static" / "app.bundle.js").write_text(_bundle(360_000))
    (with_bundle / "vendor.min.js").write_text("function tiny(){return 1}\n")
    repomap = RepoMap(with_bundle, Files(with_bundle))
    for mentioned in (set(), {"load_settings7"}):
        expected = RepoMap(plain, Files(plain)).render([plain / "app.py"], mentioned, 4000, count)
        got = repomap.render([with_bundle / "app.py"], mentioned, 4000, count)
        assert got == expected
    assert repomap.refused == {"static/app.bundle.js": "minified", "vendor.min.js": "minified"}


def test_generated_files_are_left_out(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    (root / "api_pb2.py").write_text(
        "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n"
        "def load_settings_message():\n    return 1\n"
    )
    (root / "writer.py").write_text(
        'BANNER = "# Code generated by writer. DO NOT EDIT."\n\n\n'
        "def write_banner():\n    return BANNER\n"
    )
    repomap = RepoMap(root, Files(root))
    text = repomap.render([root / "app.py"], {"load_settings_message", "write_banner"}, 4000, count)
    assert "api_pb2.py" not in text and "writer.py" in text
    assert repomap.refused == {"api_pb2.py": "generated"}


GENERATED_HEADERS = [
    b"// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n",
    b"# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\nx = 1\n",
    b'/*\n\tMIT License\n*/\n\n"use strict";\n\n// AUTO-GENERATED by tooling/gen.js\nmodule.exports = {}\n',
    b"/**\n * @since 4.0.0\n */\n\n// @barrel: Auto-generated exports. Do not edit manually.\nexport * from './a'\n",
    b'"""This module was automatically generated from schema.json."""\nX = 1\n',
    b"// <auto-generated>\n//   by a tool\n// </auto-generated>\nclass A {}\n",
]
HAND_WRITTEN = [
    b"def f():\n    # Note: no auto-generated frame is created here.\n    return 1\n",
    b"import os\n\nheader = '''\\\n# *** GENERATED BY `setup.py antlr`, DO NOT EDIT BY HAND ***\n'''\n",
    b"x = 1\n# do not edit this list by hand: keep it sorted\n",
    b"# Tables of long expressions\n" + (b"c = " + b"x*y + " * 130 + b"1\n") * 50,
]


def test_generated_files_are_recognised_by_their_header_only() -> None:
    for data in GENERATED_HEADERS:
        assert code_refusal("module.py", data) == "generated", data
    for data in HAND_WRITTEN:
        assert code_refusal("module.py", data) is None, data[:60]


def test_minified_files_are_recognised_by_name_or_line_length() -> None:
    assert code_refusal("vendor.min.js", b"function a(){}\n") == "minified"
    assert code_refusal("app.js", _bundle(20_000).encode()) == "minified"
    assert code_refusal("app.js", b"function a() {\n  return 1\n}\n") is None
