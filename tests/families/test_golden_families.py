"""Golden sequences for every catalog family (the compatibility policy, docs/compatibility.md).

For a given major version, the order a (config, seed, epoch) produces never
changes. ``tests/golden/families.json`` holds the first items that rank 1 of 3
yields in epoch 2 for the pinned configuration of each catalog family
(``tests/catalog.py``). Existing entries change only with a deliberate,
documented order change (``python -m tests.families.test_golden_families``
rewrites them all); a new family adds its own entry and leaves the others as
they are (``python -m tests.families.test_golden_families --add``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.catalog import CATALOG

GOLDEN = Path(__file__).parents[1] / "golden" / "families.json"
NAMES = sorted(CATALOG)


def plain(items: Any) -> Any:
    """Items as plain JSON values (ints, or nested lists of ints for batches and rows)."""
    if isinstance(items, list | tuple | np.ndarray):
        return [plain(i) for i in items]
    return int(items)


def first_items(name: str) -> list[Any]:
    sampler = CATALOG[name].pinned(3, 1)
    sampler.set_epoch(2)
    return plain(list(sampler)[:12])  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", NAMES)
def test_family_order_is_pinned(name: str) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert first_items(name) == golden[name]


def test_every_family_is_pinned() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == NAMES


def write(add_only: bool) -> None:
    """Rewrite the file; ``add_only`` keeps every existing entry as it is."""
    old = json.loads(GOLDEN.read_text()) if add_only and GOLDEN.exists() else {}
    rows = [f" {json.dumps(n)}: {json.dumps(old.get(n) or first_items(n))}" for n in NAMES]
    GOLDEN.write_text("{\n" + ",\n".join(rows) + "\n}\n")


if __name__ == "__main__":  # regenerate (a deliberate order change only) or --add new families
    write(add_only="--add" in sys.argv[1:])
    sys.exit(0)
