"""Run the rules over files: parse, check, apply ``# noqa``, collect findings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..._errors import ConfigError
from .names import Module
from .rules import RULES

__all__ = ["PARSE_ERROR", "Finding", "iter_python_files", "lint_paths", "lint_source"]

#: Code of the finding reported for a file that does not parse.
PARSE_ERROR = "FS100"

_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "build", "dist", "site-packages"})


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at ``path:line:col`` (line and column count from 1)."""

    path: str
    line: int
    col: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


def _suppressed(lines: Sequence[str]) -> dict[int, frozenset[str] | None]:
    """Line number -> codes silenced there (``None``: every code, a bare ``# noqa``)."""
    out: dict[int, frozenset[str] | None] = {}
    for number, text in enumerate(lines, start=1):
        if "#" not in text:
            continue
        match = _NOQA.search(text)
        if match:
            codes = match.group("codes")
            out[number] = (
                None
                if codes is None
                else frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)
            )
    return out


def _check_codes(codes: Iterable[str] | None, option: str) -> frozenset[str] | None:
    if codes is None:
        return None
    chosen = frozenset(c.strip().upper() for c in codes if c.strip())
    unknown = sorted(chosen - set(RULES) - {PARSE_ERROR})
    if unknown:
        raise ConfigError(
            f"{option} got unknown rule codes {unknown}; known: {', '.join(sorted(RULES))} "
            "(see fairshard lint --list-rules)"
        )
    return chosen


def lint_source(
    source: str,
    path: str = "<string>",
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> list[Finding]:
    r"""Findings of every rule on ``source``, minus ``# noqa`` lines, sorted.

    Args:
        source: Python source text (never executed).
        path: Shown in findings.
        select: Only these codes (default: all).
        ignore: Skip these codes.

    Example:
        >>> src = "from torch.utils.data import WeightedRandomSampler\n"
        >>> src += "s = WeightedRandomSampler(w, 10, replacement=False)\n"
        >>> [f.code for f in lint_source(src)]
        ['FS107']
    """
    chosen = _check_codes(select, "select")
    skipped = _check_codes(ignore, "ignore") or frozenset()
    try:
        module = Module.parse(source, path)
    except SyntaxError as exc:
        return [
            Finding(
                path,
                exc.lineno or 1,
                (exc.offset or 0) + 1 if exc.offset else 1,
                PARSE_ERROR,
                f"file does not parse: {exc.msg}",
            )
        ]
    noqa = _suppressed(source.splitlines())
    found: set[Finding] = set()
    for code, rule in RULES.items():
        if (chosen is not None and code not in chosen) or code in skipped:
            continue
        for node, message in rule.check(module):
            line = getattr(node, "lineno", 1)
            silenced = noqa.get(line, frozenset())
            if silenced is None or code in silenced:
                continue
            found.add(Finding(path, line, getattr(node, "col_offset", 0) + 1, code, message))
    return sorted(found)


def iter_python_files(paths: Sequence[str | Path]) -> Iterator[Path]:
    """Files given directly (any name), and ``*.py`` under directories, sorted.

    Raises:
        ConfigError: a path does not exist.
    """
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            yield path
        elif path.is_dir():
            for found in sorted(path.rglob("*.py")):
                parts = found.relative_to(path).parts[:-1]
                if not any(p.startswith(".") or p in _SKIP_DIRS for p in parts):
                    yield found
        else:
            raise ConfigError(f"path {str(raw)!r} does not exist; give .py files or folders")


def lint_paths(
    paths: Sequence[str | Path],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> tuple[list[Finding], int]:
    """Lint every file under ``paths``; returns the findings and the number of files."""
    select = None if select is None else list(select)
    ignore = None if ignore is None else list(ignore)
    findings: list[Finding] = []
    count = 0
    for file in iter_python_files(paths):
        count += 1
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {file}: {exc}") from None
        findings.extend(lint_source(source, str(file), select=select, ignore=ignore))
    return findings, count
