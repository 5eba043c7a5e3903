"""HF accelerate: hand a fairshard DataLoader to accelerate without sharding it again.

``Accelerator.prepare(loader)`` shards any map-style DataLoader it is given
on more than one process, whatever the ``DataLoaderConfiguration``: by
default with ``BatchSamplerShard`` (process ``p`` keeps every ``W``-th batch
of its own loader), with ``split_batches=True`` by slicing every batch, with
``dispatch_batches=True`` by sending process 0's batches to everyone. A
fairshard sampler already gave each process its share, so each of these
shards the share again and ``(W - 1) / W`` of the data is never used.

``prepare_data_loader(accelerator, loader)`` is the supported way: it builds
accelerate's own ``DataLoaderShard`` around the loader's sampler or batch
sampler *without* a ``BatchSamplerShard``, so the loader keeps fairshard's
shares and gets everything else accelerate gives a prepared loader:

* device placement of every batch (``accelerator.device``);
* ``set_epoch`` at every pass (accelerate's pass counter drives the
  sampler's epoch; a ``set_epoch`` of your own on the sampler is overridden);
* the end-of-dataloader signal that gradient accumulation
  (``accelerator.accumulate``) and ``gather_for_metrics`` use;
* state for ``accelerator.save_state`` / ``load_state``: the loader is a
  torchdata ``StatefulDataLoader`` inside, which stores the sampler's own
  ``state_dict()`` (O(1), exact with workers), so a mid-epoch resume
  restarts at the next batch without iterating the consumed ones.

The loader is registered with the accelerator (``accelerator.prepare`` of
it later returns it unchanged, as for any prepared loader), so code that
prepares every loader it sees -- ``transformers.Trainer`` -- keeps it too.

A ``DistributedEvalSampler`` loader is made ``gather_for_metrics``-ready:
its ranks hold shares that differ by one sample, so the batches are laid
out for equal shapes on every rank at every step (see ``_EvalBatches``),
and ``gather_for_metrics`` returns every sample exactly once (in dataset
order, except that the last sample of each longer share comes at the end).

NOTE (learning-rate schedules): accelerate's prepared scheduler steps
``num_processes`` times per optimizer step, because it assumes the
schedule was built from the length of the *unprepared*, global loader. A
fairshard loader's ``len()`` is already this rank's share, so build the
schedule with ``len(loader) * epochs * accelerator.num_processes`` steps
(divided by the gradient accumulation steps), or
``scheduler_steps(accelerator, loader, epochs)``.

``check_accelerate(loader)`` raises when ``Accelerator.prepare`` itself
wrapped a multi-rank fairshard sampler; the index samplers also refuse by
themselves at the first batch of such a loader (``_samplers.reshard_guard``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from torch.utils.data import BatchSampler, DataLoader

from .._core.base import PlannedSampler
from .._core.endless import StepSampler
from .._errors import ConfigError, ConfigTypeError

__all__ = ["batches_done", "check_accelerate", "prepare_data_loader", "scheduler_steps"]

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


def _endless(loader: Any) -> bool:
    """Whether ``loader`` draws from a ``StepSampler`` (a stream addressed by steps)."""
    batches = getattr(loader, "batch_sampler", None)
    candidates = (getattr(loader, "sampler", None), batches, getattr(batches, "sampler", None))
    return any(isinstance(obj, StepSampler) for obj in candidates)


def check_accelerate(loader: Any) -> None:
    """Raise if ``loader`` came out of ``Accelerator.prepare`` around a fairshard sampler.

    A loader from :func:`prepare_data_loader` passes: it does not shard.

    Raises:
        ConfigError: the loader shards a fairshard sampler's share again (on
            more than one process); the message says what to do instead.
    """
    if getattr(loader, "_fairshard_prepared", False):
        return
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
        "hand it to fairshard.integrations.accelerate.prepare_data_loader(accelerator, "
        "loader) instead (or prepare the model and optimizer only and move batches to "
        "accelerator.device)"
    )


def scheduler_steps(accelerator: Any, loader: Any, epochs: int, accumulation: int = 1) -> int:
    """``num_training_steps`` for a schedule accelerate's prepared scheduler will step.

    accelerate's ``AcceleratedScheduler`` steps the wrapped scheduler
    ``num_processes`` times per optimizer step; a fairshard loader's
    ``len()`` is this rank's number of batches, so the schedule needs
    ``len(loader) * epochs * num_processes / accumulation`` steps to reach
    its end with the last batch (and not halfway).

    Args:
        accelerator: the ``Accelerator``.
        loader: the training loader (fairshard-sharded, this rank's batches).
        epochs: the number of epochs trained.
        accumulation: gradient accumulation steps.
    """
    if epochs < 1 or accumulation < 1:
        raise ConfigError(
            f"scheduler_steps needs epochs >= 1 and accumulation >= 1, got epochs={epochs}, "
            f"accumulation={accumulation}"
        )
    per_epoch = -(-len(loader) // accumulation)
    return int(per_epoch * epochs * accelerator.num_processes)


class _EvalBatches:
    """Batches of a ``DistributedEvalSampler`` with equal shapes on every rank at every step.

    NOTE (why this layout): the eval shares are contiguous blocks, the first
    ``n % W`` ranks holding one sample more. ``gather_for_metrics`` needs
    tensors of one shape on every rank at every step and, at the end of the
    loader, keeps the first ``remainder`` items of the last gathered batch.
    So every rank first yields batches over its first ``m = n // W``
    samples (the same sizes on every rank); then, when ``n % W > 0``, one
    more batch of a single sample: the longer ranks' last sample, a repeat
    on the others. Gathered in rank order that last step reads the real
    samples first, and ``remainder = n % W`` drops exactly the repeats.
    """

    def __init__(self, sampler: Any, batch_size: int) -> None:
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = False
        total, world = int(sampler.n), int(sampler.num_replicas)
        self.common, self.remainder = divmod(total, world)

    def set_epoch(self, epoch: int) -> None:
        self.sampler.set_epoch(epoch)

    def __len__(self) -> int:
        return -(-self.common // self.batch_size) + (1 if self.remainder else 0)

    def __iter__(self) -> Iterator[list[int]]:
        indices = list(self.sampler)
        for begin in range(0, self.common, self.batch_size):
            yield indices[begin : min(begin + self.batch_size, self.common)]
        if self.remainder:
            yield [indices[self.common] if len(indices) > self.common else indices[-1]]


def _loader_kwargs(loader: DataLoader[Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "collate_fn": loader.collate_fn,
        "num_workers": loader.num_workers,
        "pin_memory": loader.pin_memory,
        "timeout": loader.timeout,
        "worker_init_fn": loader.worker_init_fn,
        "persistent_workers": loader.persistent_workers,
        "generator": loader.generator,  # the workers' base seed (and any random sampler)
        "pin_memory_device": loader.pin_memory_device,
        "in_order": loader.in_order,
    }
    if loader.num_workers > 0:
        kwargs["prefetch_factor"] = loader.prefetch_factor
    if loader.multiprocessing_context is not None:
        kwargs["multiprocessing_context"] = loader.multiprocessing_context
    return kwargs


def batches_done(state: dict[str, Any]) -> int | None:
    """Batches a torchdata ``StatefulDataLoader`` state has yielded in its epoch (None: unknown)."""
    if "_num_yielded" in state:  # no workers
        return int(state["_num_yielded"])
    snapshot = state.get("_snapshot")
    if isinstance(snapshot, dict) and "_snapshot_step" in snapshot:  # workers
        return int(snapshot["_snapshot_step"]) + int(state.get("_steps_since_snapshot", 0))
    return None


def _skip_first_batches(original: Any) -> Any:
    """The ``skip_first_batches`` of accelerate, returning a restored fairshard loader as is."""

    def skip_first_batches(dataloader: Any, num_batches: int = 0) -> Any:
        if not getattr(dataloader, "_fairshard_prepared", False):
            return original(dataloader, num_batches)
        restored = dataloader.fairshard_restored
        if num_batches == 0 or restored == num_batches:
            return dataloader  # load_state put it there: the next batch is the next one
        where = (
            "no state was loaded into it"
            if restored is None
            else f"accelerator.load_state put it {restored} batch(es) into the epoch"
        )
        raise ConfigError(
            f"accelerator.skip_first_batches(loader, num_batches={num_batches}) on a fairshard "
            f"loader, but {where}. A fairshard loader is resumed by accelerator.load_state "
            "alone (its next batch is the one after the checkpoint, nothing drawn again); "
            "skipping by drawing would start its next epoch at the wrong place. Call "
            "accelerator.load_state(checkpoint) first and skip the number of batches the "
            "checkpoint was taken after (or iterate the loader without skip_first_batches)"
        )

    skip_first_batches._fairshard = True  # type: ignore[attr-defined]
    skip_first_batches.__wrapped__ = original  # type: ignore[attr-defined]
    return skip_first_batches


def _install_skip() -> None:
    """Route ``Accelerator.skip_first_batches`` of a fairshard loader through ours (once).

    NOTE (why a module name): ``Accelerator.skip_first_batches`` calls the
    ``skip_first_batches`` that ``accelerate.accelerator`` imported; a loop
    such as accelerate's ``complete_nlp_example`` calls it after
    ``load_state`` to skip the consumed batches, which a fairshard loader
    does not need (its state was restored) and which, by drawing, leaves the
    next epoch at the wrong place. Every other loader goes to accelerate's
    own function unchanged.
    """
    import accelerate.accelerator as accelerator_module

    current = getattr(accelerator_module, "skip_first_batches", None)
    if current is not None and not getattr(current, "_fairshard", False):
        accelerator_module.skip_first_batches = _skip_first_batches(current)


@lru_cache(maxsize=1)
def _shard_class() -> type[Any]:
    from accelerate.data_loader import DataLoaderShard

    class FairshardDataLoaderShard(DataLoaderShard):  # type: ignore[misc]
        """accelerate's ``DataLoaderShard`` over a fairshard share: no second sharding."""

        _fairshard_prepared = True
        iteration: int

        def __init__(self, *args: Any, fairshard_remainder: int = -1, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.fairshard_remainder = fairshard_remainder
            self.fairshard_restored: int | None = None
            # NOTE: accelerate takes the StatefulDataLoader's state when it builds the
            # wrapper; with no iterator yet, torchdata makes one for that state -- a pass of
            # the sampler at its epoch then -- and hands it to the first iter(). A
            # set_epoch(e) in between would be ignored (epoch e never seen). Drop it: the
            # first iter() starts its pass at the epoch set by then.
            base = self.base_dataloader
            # A StepSampler's stream has no epoch to set, and what a dropped iterator's
            # workers prefetched would be consumed from it: keep that iterator.
            if getattr(base, "_initial_iter_for_state_dict", False) and not _endless(base):
                shutdown = getattr(base._iterator, "_shutdown_workers", None)
                if callable(shutdown):  # its workers were prefetching that pass
                    shutdown()
                base._iterator = None
                base._initial_iter_for_state_dict = False

        def begin(self) -> None:
            super().begin()
            # accelerate's guess (len(dataset) % total batch size) assumes its own
            # sharding; ours is exact for the eval layout and unknown (-1: keep all) else.
            self.remainder = self.fairshard_remainder

        def __iter__(self) -> Iterator[Any]:
            self.fairshard_restored = None  # a state loaded before is this pass's start
            for batch in super().__iter__():
                if self.end_of_dataloader:  # the last batch: the next pass is the next epoch
                    self._fairshard_last = self.iteration
                yield batch

        def state_dict(self) -> dict[str, Any]:
            # Saved after the pass's last batch and before the loop asked for more, the
            # pass counter has not moved on yet; the next pass is the next epoch.
            iteration = self.iteration
            if self.end_of_dataloader and self.__dict__.get("_fairshard_last") == iteration:
                iteration += 1
            return {**self.dl_state_dict, "fairshard_iteration": iteration}

        def load_state_dict(self, state_dict: dict[str, Any]) -> None:
            state = dict(state_dict)
            self.iteration = int(state.pop("fairshard_iteration", self.iteration))
            super().load_state_dict(state)
            # Where the next pass starts in its epoch (skip_first_batches checks it).
            done = batches_done(state)
            self.fairshard_restored = 0 if state.get("_iterator_finished") else done

        def __reduce__(self) -> Any:
            raise TypeError(
                "a fairshard DataLoaderShard is not picklable; build it again with "
                "fairshard.integrations.accelerate.prepare_data_loader in the new process"
            )

    return FairshardDataLoaderShard


def prepare_data_loader(
    accelerator: Any, loader: DataLoader[Any], *, device_placement: bool | None = None
) -> Any:
    """Wrap a fairshard DataLoader in accelerate's ``DataLoaderShard``, keeping its shares.

    Use it instead of ``accelerator.prepare(loader)`` (prepare the model,
    optimizer and scheduler as usual). The result is registered with the
    accelerator, so ``save_state``/``load_state`` store and restore the
    sampler's position and a later ``accelerator.prepare`` of it is a no-op.

    Args:
        accelerator: the ``accelerate.Accelerator``.
        loader: a ``torch.utils.data.DataLoader`` whose ``sampler`` or
            ``batch_sampler`` is a fairshard sampler, not yet prepared.
        device_placement: move batches to ``accelerator.device``; defaults
            to the accelerator's ``device_placement``.

    Returns:
        accelerate's ``DataLoaderShard`` (a ``DataLoader`` to ``isinstance``).

    Raises:
        ConfigTypeError: ``loader`` is not a DataLoader, or was prepared already.
        ConfigError: the loader has no fairshard sampler, or its sampler was
            built for another world than the accelerator's.
    """
    try:
        from torchdata.stateful_dataloader import StatefulDataLoader  # noqa: F401
    except ImportError as exc:  # pragma: no cover - torchdata is in the extra
        raise ImportError(
            "fairshard.integrations.accelerate needs torchdata for save_state/load_state; "
            "pip install 'fairshard[integrations]'"
        ) from exc
    if not isinstance(loader, DataLoader) or getattr(loader, "_is_accelerate_prepared", False):
        raise ConfigTypeError(
            f"prepare_data_loader needs the plain torch DataLoader you built, got "
            f"loader={type(loader).__name__}"
            + (" (prepared already)" if isinstance(loader, DataLoader) else "")
            + "; pass the DataLoader before any accelerator.prepare"
        )
    sampler = _fairshard_inside(loader)
    if sampler is None:
        raise ConfigError(
            "prepare_data_loader keeps a fairshard sampler's shares, but loader has no "
            "fairshard sampler or batch sampler; use accelerator.prepare(loader) for it"
        )
    world, rank = int(accelerator.num_processes), int(accelerator.process_index)
    if (sampler.num_replicas, sampler.rank) != (world, rank):
        raise ConfigError(
            f"the fairshard {sampler.kind} was built for num_replicas={sampler.num_replicas}, "
            f"rank={sampler.rank} but the accelerator runs num_processes={world}, "
            f"process_index={rank}; build the sampler after Accelerator() (or pass "
            "num_replicas=accelerator.num_processes, rank=accelerator.process_index)"
        )
    if device_placement is None:
        device_placement = bool(accelerator.device_placement)
    kwargs = _loader_kwargs(loader)
    remainder = -1
    batches: Any = loader.batch_sampler
    if type(batches) is BatchSampler and sampler.kind == "DistributedEvalSampler":
        if batches.drop_last:
            raise ConfigError(
                "an evaluation loader with drop_last=True never scores the last samples; "
                "build the DataLoader of a DistributedEvalSampler with drop_last=False"
            )
        batches = _EvalBatches(sampler, batches.batch_size)
        remainder = batches.remainder
        kwargs["batch_sampler"] = batches
    elif type(batches) is BatchSampler:  # torchdata then builds its stateful BatchSampler
        kwargs.update(sampler=batches.sampler, batch_size=batches.batch_size)
        kwargs["drop_last"] = batches.drop_last
    else:
        kwargs["batch_sampler"] = batches
    shard = _shard_class()(
        loader.dataset,
        device=accelerator.device if device_placement else None,
        use_stateful_dataloader=True,
        _drop_last=bool(getattr(batches, "drop_last", False)),
        _non_blocking=bool(getattr(accelerator, "non_blocking", False)),
        fairshard_remainder=remainder,
        **kwargs,
    )
    shard.iteration = int(sampler.epoch)
    shard._is_accelerate_prepared = True
    _install_skip()
    return accelerator.prepare_data_loader(shard)  # registers it (save_state/load_state)
