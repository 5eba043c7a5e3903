"""Ray Train: keep ``prepare_data_loader`` from replacing a fairshard batch sampler.

``ray.train.torch.prepare_data_loader(loader)`` (the default
``add_dist_sampler=True``) rebuilds any map-style loader whose ``sampler``
is not a ``torch.utils.data.DistributedSampler`` around a new PyTorch
``DistributedSampler`` and ``batch_size=loader.batch_size``:

* fairshard's index samplers *are* ``DistributedSampler`` subclasses, so
  Ray keeps them (and the loader) as built;
* a fairshard *batch* sampler sits in ``loader.batch_sampler``; the
  loader's ``sampler`` is PyTorch's placeholder, so Ray throws the batch
  sampler away and builds a loader of single samples (``batch_size`` is
  ``None`` for such a loader) over PyTorch's shares. Nothing fairshard
  owns is iterated after that, so only the caller can refuse it.

``prepare_data_loader(loader)`` here is the documented call: it checks the
loader's fairshard sampler was built for Ray's world (``num_replicas`` =
``get_world_size()``, ``rank`` = ``get_world_rank()``) and calls Ray's with
``add_dist_sampler=False``, which keeps every family as built and still
moves batches to the worker's device. Call ``set_epoch`` on the sampler (or
batch sampler) yourself each epoch, as Ray's own examples do.
"""

from __future__ import annotations

from typing import Any

from .._core.base import PlannedSampler
from .._errors import ConfigError

__all__ = ["prepare_data_loader"]


def _fairshard_of(loader: Any) -> PlannedSampler[Any, Any] | None:
    batches = getattr(loader, "batch_sampler", None)
    for obj in (batches, getattr(batches, "sampler", None), getattr(loader, "sampler", None)):
        if isinstance(obj, PlannedSampler):
            return obj
    return None


def prepare_data_loader(loader: Any, **kwargs: Any) -> Any:
    """``ray.train.torch.prepare_data_loader`` for a fairshard loader: shares kept as built.

    Args:
        loader: a DataLoader over a fairshard sampler or batch sampler,
            built inside the training function (after Ray started the workers).
        **kwargs: Ray's other arguments (``move_to_device``, ``auto_transfer``).

    Raises:
        ConfigError: ``add_dist_sampler=True`` was asked for (Ray would replace
            the sampler), the loader has no fairshard sampler, or it was built
            for another world than Ray's.
    """
    from ray.train import get_context
    from ray.train.torch import prepare_data_loader as ray_prepare

    if kwargs.pop("add_dist_sampler", False):
        raise ConfigError(
            "add_dist_sampler=True makes Ray replace the loader's sampler by PyTorch's "
            "DistributedSampler (a fairshard batch sampler is thrown away and the loader "
            "yields single samples); a fairshard loader is sharded already: leave "
            "add_dist_sampler out"
        )
    sampler = _fairshard_of(loader)
    if sampler is None:
        raise ConfigError(
            "fairshard.integrations.ray.prepare_data_loader keeps a fairshard sampler's "
            "shares, but loader has no fairshard sampler or batch sampler; use "
            "ray.train.torch.prepare_data_loader for it"
        )
    context = get_context()
    world, rank = int(context.get_world_size()), int(context.get_world_rank())
    if (sampler.num_replicas, sampler.rank) != (world, rank):
        raise ConfigError(
            f"the fairshard {sampler.kind} was built for num_replicas={sampler.num_replicas}, "
            f"rank={sampler.rank} but this Ray worker is rank {rank} of {world}; build the "
            "loader inside the training function (the process group is up there) or pass "
            "num_replicas=ray.train.get_context().get_world_size(), "
            "rank=ray.train.get_context().get_world_rank()"
        )
    return ray_prepare(loader, add_dist_sampler=False, **kwargs)
