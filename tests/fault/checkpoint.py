"""Atomic checkpoints: a reader sees the old file or the new one, never half.

``save`` writes a temporary file in the same directory, ``fsync``-s it,
``os.replace``-s it over the target (atomic on POSIX) and ``fsync``-s the
directory so the rename itself is durable. A rank killed at any point leaves
either the previous checkpoint or the new one; stray temporaries are ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["CHECKPOINT", "load", "save"]

CHECKPOINT = "checkpoint.json"


def save(
    directory: Path, data: dict[str, Any], before_replace: Callable[[], None] | None = None
) -> None:
    """Atomically replace ``directory/CHECKPOINT`` with ``data`` (JSON).

    Args:
        directory: Checkpoint directory (created if needed).
        data: Plain JSON data (a sampler ``state_dict`` is plain data).
        before_replace: Called after the temporary file is durable and
            before the rename; the harness uses it to die mid-checkpoint.
    """
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / CHECKPOINT
    tmp = directory / f".{CHECKPOINT}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    if before_replace is not None:
        before_replace()
    os.replace(tmp, target)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load(directory: Path) -> dict[str, Any] | None:
    """The last complete checkpoint in ``directory``, or ``None``."""
    target = directory / CHECKPOINT
    if not target.exists():
        return None
    data: dict[str, Any] = json.loads(target.read_text())
    return data
