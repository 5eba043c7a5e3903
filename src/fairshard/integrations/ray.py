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

NOTE (resume): Ray's loader (``move_to_device=True``, the default) fetches
the next batch as it hands one to the loop, so in the middle of a pass the
sampler has handed out one batch more than the loop received -- with
``num_workers=0`` too, where a bare ``sampler.state_dict()`` is otherwise
exact. The loader returned here counts the batches it handed to the loop:
its ``state_dict()`` is exact (any ``num_workers``), and a bare
``sampler.state_dict()`` in the middle of its pass raises, naming it
(``_core.resume``'s ``hold_pass``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from torch.utils.data import DataLoader

from .._core.base import PlannedSampler
from .._core.endless import StepSampler
from .._core.resume import Hold, hold_pass, loader_state_dict
from .._errors import ConfigError

__all__ = ["ResumableLoader", "prepare_data_loader"]


def _fairshard_of(loader: Any) -> Any:
    batches = getattr(loader, "batch_sampler", None)
    for obj in (batches, getattr(batches, "sampler", None), getattr(loader, "sampler", None)):
        if isinstance(obj, (PlannedSampler, StepSampler)):
            return obj
    return None


def prepare_data_loader(loader: Any, **kwargs: Any) -> Any:
    """``ray.train.torch.prepare_data_loader`` for a fairshard loader: shares kept as built.

    Args:
        loader: a DataLoader over a fairshard sampler or batch sampler,
            built inside the training function (after Ray started the workers).
        **kwargs: Ray's other arguments (``move_to_device``, ``auto_transfer``).

    Returns:
        A :class:`ResumableLoader` around Ray's prepared loader: save its
        ``state_dict()`` to resume mid-epoch.

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
    return ResumableLoader(ray_prepare(loader, add_dist_sampler=False, **kwargs), loader, sampler)


_FIX = (
    "Save loader.state_dict() of the loader fairshard.integrations.ray.prepare_data_loader "
    "returned (it counts the batches the loop received) and resume with "
    "sampler.load_state_dict(state) (or loader.load_state_dict(state))"
)


class ResumableLoader(DataLoader):  # type: ignore[type-arg]
    """Ray's prepared loader, counting the batches it handed to the training loop.

    Iterates as Ray's loader does (device placement included) and reads as
    the DataLoader that was prepared (``sampler``, ``batch_size``...).
    ``state_dict()`` is the fairshard sampler's state after the batches the
    loop received this pass; load it with ``load_state_dict`` (or the
    sampler's own).
    """

    def __init__(self, prepared: Any, base: Any, sampler: Any) -> None:
        # As Ray's own wrapper does: read as the loader it wraps (no DataLoader.__init__).
        self.__dict__.update(getattr(base, "__dict__", {}))
        self._fairshard_prepared_loader = prepared
        self._fairshard_base = base
        self._fairshard_sampler = sampler
        self._fairshard_taken = 0
        self._fairshard_hold: Hold | None = None

    def __len__(self) -> int:
        return len(self._fairshard_prepared_loader)

    def __iter__(self) -> Iterator[Any]:  # type: ignore[override]  # Ray's wrapper does too
        if self._fairshard_hold is not None:
            self._fairshard_hold.release()  # a new pass: the old one is abandoned
        self._fairshard_hold, self._fairshard_taken = None, 0
        return self._batches()

    def _batches(self) -> Iterator[Any]:
        for batch in self._fairshard_prepared_loader:
            if self._fairshard_hold is None:  # the sampler's pass has started by now
                who = "Ray Train's prepare_data_loader"
                self._fairshard_hold = hold_pass(self._fairshard_sampler, who, _FIX)
            self._fairshard_taken += 1
            yield batch
        if self._fairshard_hold is not None:
            self._fairshard_hold.release()
        self._fairshard_hold = None

    def state_dict(self) -> dict[str, Any]:
        """The sampler's state after the batches the loop received this pass (exact)."""
        if isinstance(self._fairshard_sampler, StepSampler):
            raise ConfigError(
                "a StepSampler resumes from the steps the loop completed, which this loader "
                "cannot count (a step is several micro-batches with accumulation): save "
                "sampler.state_dict(step=<steps completed>) instead"
            )
        if self._fairshard_hold is None or not self._fairshard_hold.live:
            state: dict[str, Any] = self._fairshard_sampler.state_dict()  # nothing ahead
            return state
        return loader_state_dict(self._fairshard_base, self._fairshard_taken)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Resume the sampler from ``state_dict``: the next pass continues there."""
        self._fairshard_sampler.load_state_dict(state_dict)
