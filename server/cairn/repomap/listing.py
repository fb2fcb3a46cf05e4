"""What the repository map needs of a workspace's file list (`cairn.files.ignore.IgnoreRules`
fits): the files, as paths — or, from a lister of the map's own folder, as folder-relative
names, which spares making a `Path` of each of tens of thousands of files."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable


class FileLister(Protocol):
    """The files of a folder (absolute paths)."""

    def files(self) -> list[Path]: ...


@runtime_checkable
class NameLister(Protocol):
    """A lister that also gives its files relative to its (resolved) `root`."""

    root: Path

    def files(self) -> list[Path]: ...

    def relative_files(self) -> list[str]: ...


def listing(lister: FileLister, folder: Path) -> list[Path] | list[str]:
    """The listed files of `folder` (resolved): folder-relative POSIX names when the lister
    lists that folder and can give them, else its paths."""
    if isinstance(lister, NameLister) and lister.root == folder:
        return lister.relative_files()
    return lister.files()
