"""Drop a file from the page cache without root: ``fsync``, then ``POSIX_FADV_DONTNEED``.

Standard library only, so the cold-read bench and its streaming peer (which
runs in a venv of its own) share it.
"""

from __future__ import annotations

import os
from pathlib import Path


def evict(path: str | Path) -> None:
    """Write back and drop ``path``'s cached pages, so the next read comes from the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def evict_tree(folder: str | Path) -> None:
    """``evict`` every file under ``folder``."""
    for path in Path(folder).rglob("*"):
        if path.is_file():
            evict(path)
