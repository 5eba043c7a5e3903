"""Refuse to be sharded a second time by HF accelerate's prepared DataLoader.

``Accelerator.prepare(loader)`` shards every map-style DataLoader it is
given on more than one process, without looking at the sampler: it wraps
the loader's batch sampler in ``BatchSamplerShard`` (process ``p`` keeps
every ``W``-th batch) or, with ``dispatch_batches=True``, lets process 0
read and split the batches (``DataLoaderDispatcher``). No property of a
sampler can opt out. A fairshard sampler built for ``W > 1`` ranks already
yields only this rank's share, so the prepared loader would use ``1/W`` of
it and silently never visit the rest of the data.

NOTE (detection): when an index sampler starts a pass, the frames that are
iterating it are on the stack; one of them belongs to accelerate's shard
or dispatch wrapper exactly when the loader was prepared. Walking at most
``_DEPTH`` frames once per epoch costs microseconds, needs no import of
accelerate and no change to the user's code, and turns silent data loss
into an error that says what to do. A sampler built for one process
(``num_replicas=1``) is left alone: then accelerate's sharding is the only
one, which is a legitimate (if not elastic) way to run.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from .._errors import ConfigError

__all__ = ["refuse_resharding"]

_WRAPPERS = ("BatchSamplerShard", "DataLoaderDispatcher")
_DEPTH = 40


def _resharder() -> tuple[str, int] | None:
    """``(wrapper class name, process count)`` of an accelerate wrapper iterating us, or None."""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(_DEPTH):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        cls = type(owner)
        if cls.__name__ in _WRAPPERS and cls.__module__.startswith("accelerate."):
            count: Any = getattr(owner, "num_processes", None)
            if count is None:  # the dispatcher keeps it in its state
                count = getattr(getattr(owner, "state", None), "num_processes", 1)
            return cls.__name__, int(count)
        frame = frame.f_back
    return None


def _in_hf_trainer() -> bool:
    """Whether a ``transformers.Trainer`` method is on the stack (it prepared the loader)."""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(2 * _DEPTH):
        if frame is None:
            return False
        cls = type(frame.f_locals.get("self"))
        if any(
            k.__name__ == "Trainer" and k.__module__.startswith("transformers.")
            for k in cls.__mro__
        ):
            return True
        frame = frame.f_back
    return False


def refuse_resharding(sampler: Any) -> None:
    """Raise if accelerate's prepared DataLoader is about to shard ``sampler``'s share again.

    Raises:
        ConfigError: the sampler was built for more than one rank and is
            being iterated by accelerate's ``BatchSamplerShard`` or
            ``DataLoaderDispatcher`` on more than one process.
    """
    if sampler.num_replicas == 1:
        return
    found = _resharder()
    if found is None or found[1] <= 1:
        return
    wrapper, processes = found
    if _in_hf_trainer():
        fix = (
            "transformers.Trainer prepares every loader it builds, so do not return a "
            "fairshard sampler from _get_train_sampler: use "
            "fairshard.integrations.transformers.FairshardTrainer(..., train_sampler=...), "
            "which keeps the shares and resumes mid-epoch without skipping batches"
        )
    else:
        fix = (
            "Do not pass this DataLoader to accelerator.prepare: hand it to "
            "fairshard.integrations.accelerate.prepare_data_loader(accelerator, loader), "
            "which keeps the shares and everything else accelerate does for a loader (or "
            "build the sampler with num_replicas=1, rank=0 to let accelerate do the sharding)"
        )
    raise ConfigError(
        f"accelerate's prepare() wrapped this DataLoader in {wrapper}, which shards it across "
        f"{processes} processes, but the fairshard {sampler.kind} (num_replicas="
        f"{sampler.num_replicas}) already yields only this rank's share: about "
        f"{processes - 1}/{processes} of it would never be used. {fix}"
    )
