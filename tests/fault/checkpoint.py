"""Atomic JSON checkpoints of the harness, through fairshard's ``write_atomic``.

A temporary file in the same directory, ``fsync``, ``os.replace`` over the
target (atomic on POSIX), ``fsync`` of the directory: a rank killed at any
point leaves either the previous checkpoint or the new one; stray
temporaries are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairshard._distributed.checkpoint import write_atomic

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
    write_atomic(directory / CHECKPOINT, json.dumps(data).encode(), before_replace=before_replace)


def load(directory: Path) -> dict[str, Any] | None:
    """The last complete checkpoint in ``directory``, or ``None``."""
    target = directory / CHECKPOINT
    if not target.exists():
        return None
    data: dict[str, Any] = json.loads(target.read_text())
    return data
