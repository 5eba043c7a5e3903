"""Which files ``fairshard lint`` reads, and how: discovery, exclusion, decoding.

Folders are walked for ``*.py``; files named on the command line are linted
when they are Python (``.py``/``.pyw``, or no suffix and a ``python``
shebang) and skipped otherwise (``fairshard lint README.md`` is not a parse
error). Files found by walking a folder are matched against exclusion globs
(:data:`DEFAULT_EXCLUDES`: virtual environments, build output, and test
files, whose fixtures and mocks are not training scripts); files named
explicitly are always linted.

NOTE (decoding): sources are decoded as Python itself does — a PEP 263
declaration (``# -*- coding: latin-1 -*-``) or a BOM, else UTF-8 — so a
valid Latin-1 script is linted, and an undecodable one becomes one finding
for that file instead of aborting the whole run.
"""

from __future__ import annotations

import fnmatch
import io
import stat
import tokenize
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from ._errors import LintConfigError

__all__ = ["DEFAULT_EXCLUDES", "decode", "excluded", "iter_python_files", "kind_of"]

#: Globs skipped while walking folders (matched against every path part and
#: the path relative to the folder given).
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
    "site-packages",
    "venv",
    "*.egg-info",
    "tests",
    "test",
    "test_*.py",
    "*_test.py",
    "conftest.py",
)

_PYTHON_SUFFIXES = frozenset({".py", ".pyw"})


def kind_of(path: Path) -> str:
    """What a path that is neither a regular file nor a folder is, in words."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "does not exist"
    for test, word in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return f"is {word}, not a file or folder"
    return "is not a regular file or folder"


def excluded(relative: PurePosixPath, globs: Sequence[str]) -> bool:
    """``relative`` (to the folder walked) or any of its parts matches a glob."""
    text = relative.as_posix()
    return any(
        fnmatch.fnmatchcase(text, glob) or any(fnmatch.fnmatchcase(p, glob) for p in relative.parts)
        for glob in globs
    )


def _is_python(path: Path) -> bool:
    if path.suffix.lower() in _PYTHON_SUFFIXES:
        return True
    if path.suffix:
        return False
    try:
        with path.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def iter_python_files(
    paths: Sequence[str | Path], excludes: Sequence[str] = DEFAULT_EXCLUDES
) -> Iterator[tuple[Path, bool, Path | None]]:
    """``(file, is_python, folder)`` for each path given and each ``*.py`` under folders, sorted.

    ``folder`` is the folder argument a file was found under (``None`` for a
    file named on its own): the files of one folder are linted as a project.

    Files named explicitly come back even when they are not Python (flagged
    ``False``, so the caller can say it skipped them); folder contents are
    filtered by ``excludes`` and never include pipes or devices.

    Raises:
        LintConfigError: a path does not exist or is not a file or folder (the
            message says which it is).
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in sorted(path.rglob("*.py")):
                relative = PurePosixPath(found.relative_to(path).as_posix())
                if found.is_file() and not excluded(relative, excludes):
                    yield found, True, path
        elif path.is_file():
            yield path, _is_python(path), None
        else:
            what = kind_of(path)
            hint = "" if what.startswith("is ") else "; give .py files or folders"
            raise LintConfigError(f"path {str(raw)!r} {what}{hint}")


def decode(data: bytes) -> str:
    """Source text as Python decodes it (PEP 263 declaration or BOM, else UTF-8).

    Raises:
        SyntaxError: an unknown encoding declared (``tokenize``'s wording).
        UnicodeDecodeError: bytes that are invalid in the encoding in force.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)
