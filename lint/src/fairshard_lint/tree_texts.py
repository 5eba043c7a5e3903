"""The text of a linted tree's non-Python files (configs, shell scripts, READMEs).

Several facts a tree ships outside its Python code decide a finding: the
devices its YAML configs give Lightning (``cli_configs``), the process
counts its launch lines name (``launch_counts``). They are read as text,
bounded (a few hundred files, none over 200 kB), hidden folders aside.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_FILES", "TooManyFiles", "tree_files", "tree_texts"]

MAX_FILES = 400
_MAX_BYTES = 200_000


class TooManyFiles(Exception):
    """More than ``MAX_FILES`` matched: what was read says nothing of the whole tree."""


def tree_texts(folder: Path, patterns: tuple[str, ...]) -> Iterator[str]:
    """The text of every file under ``folder`` matching ``patterns``, in a stable order.

    Raises :class:`TooManyFiles` after ``MAX_FILES`` files.
    """
    for _, text in tree_files(folder, patterns):
        yield text


def tree_files(folder: Path, patterns: tuple[str, ...]) -> Iterator[tuple[Path, str]]:
    """Each file under ``folder`` matching ``patterns`` with its text (see ``tree_texts``)."""
    seen = 0
    for pattern in patterns:
        for path in sorted(folder.rglob(pattern)):
            if any(part.startswith(".") for part in path.relative_to(folder).parts):
                continue
            seen += 1
            if seen > MAX_FILES:
                raise TooManyFiles(str(folder))
            try:
                if not path.is_file() or path.stat().st_size > _MAX_BYTES:
                    continue  # a named pipe, a socket, a folder named *.md: never opened
                yield path, path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
