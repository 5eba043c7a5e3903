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
``use_distributed_sampler=False`` for them. Lightning then calls
``set_epoch`` on ``loader.batch_sampler.sampler``, which for a fairshard
batch sampler is a link to its own ``set_epoch``: every epoch reshuffles.

Mid-epoch resume with a plain DataLoader: the ``ExactResume`` callback.
Lightning restores its loop counters from a checkpoint (``k`` batches of
the epoch done) and stops the epoch when that count reaches
``len(train_loader)``; a fairshard sampler restored from its state keeps
``len()`` the whole epoch's (``n``) and yields the rest (``n - k``), so the
resumed epoch ends where the interrupted one would have. What a state must
hold is the batches the *loop* consumed: a multi-worker loader has fetched
more, and Lightning's checkpoint does not say how many.
``ExactResume`` saves the sampler state at the batches the loop consumed
(``loader_state_dict``) and restores it before Lightning draws the first
batch, so the resumed epoch is exactly the rest of the interrupted one.
Hand it each training DataLoader with ``resume.loader(loader)`` (before
``fit``, or inside ``train_dataloader()``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .._core.base import PlannedSampler
from .._core.endless import StepSampler
from .._core.resume import loader_state_dict
from .._errors import ConfigError

# ExactResume is built by the module's __getattr__ on first use (it subclasses Lightning's).
__all__ = ["ExactResume", "check_lightning", "samplers_of"]  # noqa: F822

_KEY = "fairshard_exact_resume"


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


def _target(loader: Any) -> Any:
    """The fairshard object whose state ``loader_state_dict(loader, ...)`` returns."""
    batches = getattr(loader, "batch_sampler", None)
    for obj in (batches, getattr(batches, "sampler", None), getattr(loader, "sampler", None)):
        if isinstance(obj, PlannedSampler):
            return obj
    dataset = getattr(loader, "dataset", None)
    if callable(getattr(dataset, "_loader_state", None)):
        return dataset
    if isinstance(getattr(loader, "sampler", None), StepSampler):
        raise ConfigError(
            "ExactResume resumes an epoch's pass, and a StepSampler is one endless stream "
            "that resumes from the step count alone: leave ExactResume out and build the "
            "loader in LightningModule.train_dataloader() with "
            "fairshard.StepSampler(..., start_step=self.trainer.global_step)"
        )
    raise ConfigError(
        f"ExactResume.loader needs a DataLoader over a fairshard sampler, batch sampler or "
        f"ShardedIterable, got a {type(loader).__name__} without one"
    )


@lru_cache(maxsize=1)
def _exact_resume_class() -> type[Any]:
    from lightning.pytorch.callbacks import Callback

    class ExactResume(Callback):
        """Exact mid-epoch resume of a plain DataLoader over a fairshard sampler.

        Example::

            resume = ExactResume()
            trainer = L.Trainer(..., callbacks=[resume, ModelCheckpoint(...)])
            loader = resume.loader(DataLoader(dataset, batch_size=8, sampler=sampler))
            trainer.fit(model, loader, ckpt_path=path_or_None)

        One training loader; any ``num_workers``.
        """

        def __init__(self) -> None:
            super().__init__()
            self._loaders: list[Any] = []
            self._pending: dict[str, Any] | None = None
            self._offset: tuple[int, int] | None = None  # (epoch, batches) restored

        def loader(self, loader: Any) -> Any:
            """Register the training DataLoader (returned unchanged) for save and restore."""
            _target(loader)
            self._loaders = [loader]
            self._apply()
            return loader

        def _apply(self) -> None:
            pending = self._pending
            if pending is None or not self._loaders:
                return
            self._pending = None
            if pending["state"] is None:  # saved at an epoch's end: the next epoch is next
                if pending.get("ended"):
                    # NOTE: set now, before Lightning makes the loader's iterator (it does
                    # so before its own set_epoch on a restart; a batch sampler's epoch it
                    # never sets): the fresh sampler would read epoch 0's order again.
                    _target(self._loaders[0]).set_epoch(int(pending["epoch"]) + 1)
                return
            _target(self._loaders[0]).load_state_dict(pending["state"])
            self._offset = (int(pending["epoch"]), int(pending["batches"]))

        def on_save_checkpoint(self, trainer: Any, pl_module: Any, checkpoint: Any) -> None:
            if not self._loaders:
                raise ConfigError(
                    "ExactResume has no training loader to save: pass it with "
                    "resume.loader(loader) before fit (or inside train_dataloader())"
                )
            loader = self._loaders[0]
            epoch = int(trainer.current_epoch)
            taken = int(trainer.fit_loop.epoch_loop.batch_progress.current.processed)
            offset = self._offset[1] if self._offset and self._offset[0] == epoch else 0
            total = trainer.fit_loop.max_batches
            mid_epoch = 0 < taken < total
            state = loader_state_dict(loader, taken - offset) if mid_epoch else None
            ended = taken > 0 and taken >= total
            checkpoint[_KEY] = {"epoch": epoch, "batches": taken, "state": state, "ended": ended}

        def on_load_checkpoint(self, trainer: Any, pl_module: Any, checkpoint: Any) -> None:
            self._pending = checkpoint.get(_KEY)
            self._apply()

        def on_train_start(self, trainer: Any, pl_module: Any) -> None:
            if self._pending is not None:
                raise ConfigError(
                    "ExactResume loaded a sampler state from the checkpoint but was given no "
                    "training loader: pass it with resume.loader(loader) before fit (or inside "
                    "train_dataloader()), else the resumed epoch restarts from its beginning"
                )

    ExactResume.__module__ = __name__
    return ExactResume


def __getattr__(name: str) -> Any:
    if name == "ExactResume":  # built on first use: importing this module needs no Lightning
        return _exact_resume_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
