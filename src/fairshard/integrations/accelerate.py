"""HF accelerate: keep ``Accelerator.prepare`` away from a fairshard DataLoader.

``Accelerator.prepare(loader)`` shards any map-style DataLoader it is given
on more than one process, whatever the ``DataLoaderConfiguration``: by
default with ``BatchSamplerShard`` (process ``p`` keeps every ``W``-th batch
of its own loader), with ``split_batches=True`` by slicing every batch, with
``dispatch_batches=True`` by sending process 0's batches to everyone. A
fairshard sampler already gave each process its share, so each of these
shards the share again and ``(W - 1) / W`` of the data is never used.

The right way: prepare the model and optimizer, not the loader, and move
each batch to ``accelerator.device``::

    model, optimizer = accelerator.prepare(model, optimizer)
    loader = DataLoader(dataset, batch_size=32, sampler=fairshard.DistributedSampler(dataset))
    for batch in loader:
        x, y = (t.to(accelerator.device) for t in batch)

``check_accelerate(loader)`` raises when a prepared loader wraps a fairshard
sampler, right after ``prepare``; the index samplers also refuse by
themselves at the first batch of such a loader (``_samplers.reshard_guard``).
"""

from __future__ import annotations

from typing import Any

from .._core.base import PlannedSampler
from .._errors import ConfigError

__all__ = ["check_accelerate"]

_SHARDING = ("BatchSamplerShard", "DataLoaderDispatcher", "DataLoaderShard")


def _fairshard_inside(obj: Any, depth: int = 0) -> PlannedSampler[Any, Any] | None:
    if isinstance(obj, PlannedSampler):
        return obj
    if obj is None or depth > 4:
        return None
    for name in ("sampler", "batch_sampler"):
        found = _fairshard_inside(getattr(obj, name, None), depth + 1)
        if found is not None:
            return found
    return None


def check_accelerate(loader: Any) -> None:
    """Raise if ``loader`` came out of ``Accelerator.prepare`` around a fairshard sampler.

    Raises:
        ConfigError: the loader shards a fairshard sampler's share again (on
            more than one process); the message says what to do instead.
    """
    layers = [loader, getattr(loader, "batch_sampler", None)]
    wrappers = [type(x).__name__ for x in layers if type(x).__name__ in _SHARDING]
    sampler = _fairshard_inside(loader)
    shards = int(getattr(getattr(loader, "batch_sampler", None), "num_processes", 1) or 1)
    if type(loader).__name__ == "DataLoaderDispatcher":
        shards = max(shards, 2)  # process 0's batches are split among all processes
    if sampler is None or not wrappers or (shards <= 1 and sampler.num_replicas <= 1):
        return
    raise ConfigError(
        f"Accelerator.prepare wrapped the DataLoader of a fairshard {sampler.kind} "
        f"({', '.join(wrappers)}), which shards each process's share a second time: "
        "most samples are never used. Do not pass this DataLoader to accelerator.prepare; "
        "prepare the model and optimizer only and move batches to accelerator.device"
    )
