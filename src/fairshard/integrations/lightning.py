"""Lightning: fairshard index samplers work with the default ``Trainer`` flags.

Lightning's ``Trainer`` (and Fabric) with ``use_distributed_sampler=True``,
the default, wraps every sampler that is not a
``torch.utils.data.DistributedSampler`` in its ``DistributedSamplerWrapper``.
fairshard's index samplers are ``DistributedSampler`` subclasses, so Lightning
leaves them as built and calls their ``set_epoch`` at every epoch: nothing to
configure. Two mistakes remain possible, and silent, which
``check_lightning(self.trainer)`` (e.g. from ``on_train_start``) catches:

* a sampler wrapped by hand in Lightning's ``DistributedSamplerWrapper``,
  which shards each rank's share again (every rank then sees about
  ``1/world_size`` of its share, the rest of the data never);
* a sampler built before the processes were launched (in ``__init__`` of
  the module, say), whose ``num_replicas``/``rank`` are not the trainer's.

fairshard *batch* samplers (``batch_sampler=``) are not index samplers, and
Lightning's default cannot tell that such a loader is sharded already (it
tests ``loader.sampler``, PyTorch's placeholder); it fails loudly when it
tries to inject its own sampler. Build the ``Trainer`` with
``use_distributed_sampler=False`` for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._core.base import PlannedSampler
from .._errors import ConfigError

__all__ = ["check_lightning", "samplers_of"]


def _loaders(trainer: Any) -> list[Any]:
    loaders = getattr(trainer, "train_dataloader", None)
    if loaders is None:
        return []
    flattened = getattr(loaders, "flattened", None)  # Lightning's CombinedLoader
    if flattened is not None:
        return list(flattened)
    if isinstance(loaders, dict):
        return list(loaders.values())
    if isinstance(loaders, list | tuple):
        return list(loaders)
    return [loaders]


def samplers_of(loader: Any) -> Iterator[tuple[Any, Any | None]]:
    """``(sampler, wrapper)`` pairs of a DataLoader: wrapper is Lightning's, or None."""
    batch_sampler = getattr(loader, "batch_sampler", None)
    for obj in (
        getattr(loader, "sampler", None),
        batch_sampler,
        getattr(batch_sampler, "sampler", None),
    ):
        if obj is None:
            continue
        inner = getattr(getattr(obj, "dataset", None), "_sampler", None)
        if inner is not None:  # lightning.fabric's DistributedSamplerWrapper
            yield inner, obj
        else:
            yield obj, None


def check_lightning(trainer: Any) -> None:
    """Raise if the trainer's training loaders do not use fairshard samplers as built.

    Call it once the loaders exist, e.g. from ``LightningModule.on_train_start``
    (``check_lightning(self.trainer)``). Only fairshard samplers are checked.

    Raises:
        ConfigError: a fairshard sampler was wrapped in Lightning's
            ``DistributedSamplerWrapper`` (so each rank's share is sharded
            twice), or it was built for another world size or rank than the
            trainer's (built before the processes were launched). The
            message says what to change.
    """
    world, rank = int(trainer.world_size), int(trainer.global_rank)
    for loader in _loaders(trainer):
        for sampler, wrapper in samplers_of(loader):
            if not isinstance(sampler, PlannedSampler):
                continue
            if wrapper is not None:
                raise ConfigError(
                    f"the fairshard {sampler.kind} is wrapped in Lightning's "
                    f"{type(wrapper).__name__}, which shards its share again: each of the "
                    f"{world} ranks sees about 1/{world} of its samples per epoch and the "
                    "rest are never used. Pass the fairshard sampler to the DataLoader "
                    "directly; Lightning's default flags leave it as built"
                )
            if (sampler.num_replicas, sampler.rank) != (world, rank):
                raise ConfigError(
                    f"the fairshard {sampler.kind} was built for num_replicas="
                    f"{sampler.num_replicas}, rank={sampler.rank} but the trainer runs "
                    f"world_size={world}, global_rank={rank}; build the sampler inside "
                    "train_dataloader() (after the processes start) or pass "
                    "num_replicas=trainer.world_size, rank=trainer.global_rank"
                )
