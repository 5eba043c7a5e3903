"""Loaders a framework prepares: the sampler they end up with is the framework's.

``fabric.setup_dataloaders`` and ``accelerator.prepare`` (or
``prepare_data_loader``) replace a plain loader's sampler with a distributed
one, and accelerate also copies rank 0's generator state to every rank at
each pass. So a ``shuffle=True`` loader handed to them is sharded (FS103),
and a per-rank seed of the global generator no longer decides its order
(FS104).
"""

from __future__ import annotations

import ast

from .context import target_names
from .names import Module, dotted, tail

__all__ = ["framework_shards"]

#: Calls of training frameworks that re-shard the loaders handed to them.
_SHARDING_SETUP = frozenset({"setup_dataloaders", "prepare", "prepare_data_loader"})


def framework_shards(mod: Module, call: ast.Call) -> bool:
    """The loader ``call`` builds is handed to ``setup_dataloaders`` or ``prepare``."""
    names = set(target_names(mod, call))
    for other in mod.calls:
        if tail(other) not in _SHARDING_SETUP:
            continue
        for arg in other.args:
            if arg is call or dotted(arg) in names:
                return True
    return False
