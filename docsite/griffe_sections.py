"""A griffe extension: read fairshard's docstrings the way its tests and Napoleon do.

Two habits of the docstrings that griffe's Google parser does not know:
``Example:`` (Napoleon's singular name of the examples section, whose
``>>>`` lines the doctests run) and an ``Args`` entry naming several
parameters at once (``num_replicas, rank, seed: As WeightedSampler.``).
Before a docstring is parsed, the first is renamed ``Examples:`` and the
second written as one entry per parameter; the source keeps its text.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.M)
_SHARED = re.compile(r"^(\s+)(\w+(?:, \w+)+): (.*)$", re.M)


def _rewrite(text: str) -> str:
    text = _EXAMPLE.sub(r"\1Examples:", text)

    def split(match: re.Match[str]) -> str:
        indent, names, rest = match.groups()
        return "\n".join(f"{indent}{name}: {rest}" for name in names.split(", "))

    return _SHARED.sub(split, text)


class FairshardDocstrings(griffe.Extension):
    """Rewrite each docstring (see the module's docstring) before griffe parses it."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place, before its first parse."""
        if obj.docstring is not None:
            obj.docstring.value = _rewrite(obj.docstring.value)
