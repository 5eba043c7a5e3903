"""The versions a linted tree pins for the frameworks whose behaviour the rules depend on.

Some framework behaviour changed between releases: transformers' ``Trainer``
called ``train_dataloader.sampler.set_epoch(epoch)`` itself up to 4.30 (for a
``DataLoader`` with a ``DistributedSampler``), nothing from 4.31 to 4.34, and
from 4.35 only ``train_dataloader.set_epoch`` where the loader object has one
(accelerate's prepared loaders; read in each release's ``trainer.py``). A tree
that pins an old release keeps the old behaviour, so the rule reads the pin.

Read from the requirement files at the root of the linted folder and one
level down (``requirements*.txt``, ``setup.py``, ``setup.cfg``,
``pyproject.toml``, ``environment*.yml``): the highest version a pin allows
(``==4.26.1``, ``<4.30``, ``<=4.29``, ``~=4.28.0``) or ``None`` where nothing
bounds it (``>=4.48.2``, no pin, no file).
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["highest_allowed", "read_pins"]

_FILES = ("requirements*.txt", "setup.py", "setup.cfg", "pyproject.toml", "environment*.y*ml")
_REQUIREMENT = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][\w.-]*)\s*(?:\[[^\]]*\])?"
    r"(?P<specs>(?:\s*,?\s*(?:==|<=|>=|!=|~=|<|>)\s*\d+(?:\.[\d*]+)*)+)"
)
_SPEC = re.compile(r"(==|<=|>=|!=|~=|<|>)\s*(\d+(?:\.\d+)*)")
#: Stands for "any later part" in a bound (``<4.30`` allows 4.29.x, any x).
_ANY = 10**6


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _upper(specs: str) -> tuple[int, ...] | None:
    """The highest version a specifier list allows (``>=4.0,<4.30`` -> 4.29.*), if bounded."""
    bounds: list[tuple[int, ...]] = []
    for op, text in _SPEC.findall(specs):
        version = _version(text)
        if op in {"==", "<="}:
            bounds.append(version)
        elif op == "<":
            bounds.append((*version[:-1], version[-1] - 1, _ANY))
        elif op == "~=" and len(version) > 1:
            bounds.append((*version[:-2], version[-2], _ANY))
    return min(bounds) if bounds else None


def read_pins(folder: Path) -> dict[str, tuple[int, ...]]:
    """Package (lower case) -> the highest version its pins in ``folder`` allow.

    A package no file bounds from above is left out (unbounded); where one
    file bounds it, that bound is the tree's (the version it was run with).
    """
    pins: dict[str, tuple[int, ...]] = {}
    paths = [p for pattern in _FILES for p in folder.glob(pattern)]
    paths += [p for pattern in _FILES for p in folder.glob(f"*/{pattern}")]
    for path in sorted(set(paths)):
        try:
            text = path.read_text(errors="replace")[:200_000]
        except OSError:
            continue
        for match in _REQUIREMENT.finditer(text):
            name = match.group("name").lower().replace("_", "-")
            upper = _upper(match.group("specs"))
            if upper is not None:
                pins[name] = max(pins.get(name, upper), upper)
    return pins


def highest_allowed(pins: dict[str, tuple[int, ...]], package: str) -> tuple[int, ...] | None:
    """The highest version of ``package`` the tree's pins allow, ``None`` where unbounded."""
    return pins.get(package.lower())
