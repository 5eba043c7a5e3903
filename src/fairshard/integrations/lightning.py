"""Lightning: detect a fairshard sampler that Lightning sharded a second time.

A fairshard sampler already gives each rank its own share. Lightning's
``Trainer`` (with ``use_distributed_sampler=True``, its default) replaces
every training sampler that is not a ``torch.utils.data.DistributedSampler``
with ``DistributedSamplerWrapper(sampler)``, which splits each rank's share
again across the ranks: every rank then sees about ``1/world_size`` of its
share per epoch and the rest of the dataset is silently never visited.
Nothing fails; the model just trains on a fraction of the data.

Build the Trainer with ``use_distributed_sampler=False`` and call
``check_lightning(self.trainer)`` from ``on_train_start`` to be sure.
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
    return list(flattened) if flattened is not None else [loaders]


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
        ConfigError: a fairshard sampler was wrapped by Lightning (so each
            rank's share is sharded twice), or it was built for another world
            size or rank than the trainer's (built before the processes were
            launched). The message says what to change.
    """
    world, rank = int(trainer.world_size), int(trainer.global_rank)
    for loader in _loaders(trainer):
        for sampler, wrapper in samplers_of(loader):
            if not isinstance(sampler, PlannedSampler):
                continue
            if wrapper is not None:
                raise ConfigError(
                    f"Lightning wrapped the fairshard {sampler.kind} in its "
                    f"{type(wrapper).__name__}, so each of the {world} ranks takes a share "
                    f"of its own share: every rank sees about 1/{world} of its samples per "
                    "epoch and the rest are never used. Build the Trainer with "
                    "use_distributed_sampler=False; the fairshard sampler already shards"
                )
            if (sampler.num_replicas, sampler.rank) != (world, rank):
                raise ConfigError(
                    f"the fairshard {sampler.kind} was built for num_replicas="
                    f"{sampler.num_replicas}, rank={sampler.rank} but the trainer runs "
                    f"world_size={world}, global_rank={rank}; build the sampler inside "
                    "train_dataloader() (after the processes start) or pass "
                    "num_replicas=trainer.world_size, rank=trainer.global_rank"
                )
