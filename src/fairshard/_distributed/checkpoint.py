"""Atomic checkpoint files: a reader sees the previous file or the new one, never half.

A job killed while ``torch.save`` writes straight to ``ckpt.pt`` leaves a
torn file, and the restarted job either fails to load it or, worse, has
already lost the previous one. The protocol: write a temporary file in the
same directory, ``fsync`` it, ``os.replace`` it over the target (atomic on
POSIX) and ``fsync`` the directory so that the rename itself survives a
power loss. Stray temporaries of a killed writer are never read.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

__all__ = ["save_atomic", "write_atomic"]


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, before_replace: Callable[[], None] | None = None
) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    Args:
        path: The target file; its directory is created if needed.
        data: The complete new contents.
        before_replace: Called once the temporary file is durable and before
            the rename (fault-injection tests die there).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    if before_replace is not None:
        before_replace()
    os.replace(tmp, target)
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_atomic(obj: Any, path: str | os.PathLike[str]) -> None:
    """``torch.save(obj, path)``, but a kill at any moment leaves the old file or the new one.

    Use it for training checkpoints (sampler ``state_dict``, model, optimizer,
    step), written by one rank, at a step boundary: see "Checkpoints for
    elastic jobs" in docs/faults.md.

    Args:
        obj: Anything ``torch.save`` accepts (a sampler state is plain data,
            so ``torch.load(path, weights_only=True)`` reads it back).
        path: The checkpoint file.

    Example:
        >>> import tempfile, pathlib, torch, fairshard
        >>> sampler = fairshard.DistributedSampler(10, num_replicas=2, rank=0)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ckpt.pt"
        >>> fairshard.save_atomic({"sampler": sampler.state_dict(), "step": 0}, path)
        >>> torch.load(path, weights_only=True)["step"]
        0
    """
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    write_atomic(path, buffer.getvalue())
