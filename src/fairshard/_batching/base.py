"""What every fairshard batch sampler shares: a base class and plan helpers.

A batch sampler's plan is a :class:`~fairshard._core.plans.BatchPlan`: a
deterministic sequence of whole batches. The base ``PlannedSampler``
partitions *batch positions* over ranks, so every rank takes whole batches,
``len()`` counts batches, ``state_dict`` counts batches and elastic resume
re-partitions the batches not yet consumed.

NOTE (tail): the default tail of a training batch sampler is ``"pad"``: when
the epoch's batch count is not a multiple of the world size, the last step
recycles whole batches from the head of the epoch (declared in
``num_padded_batches``). ``"drop"`` leaves the last ``num_dropped_batches``
batches out instead. ``"uneven"`` (ranks differ by one batch) must be asked
for explicitly: unequal step counts hang DDP.

NOTE (``sampler=`` instead of ``batch_sampler=``): ``DataLoader(ds,
sampler=batch_sampler)`` wraps the batch sampler in its own ``BatchSampler``,
which groups ``batch_size`` *batches* into one step and fetches them all:
nothing fails, training silently runs on huge mixed batches. At ``iter()``
a batch sampler looks at its caller: when that is a method of an object
holding it as its ``sampler``, with a ``batch_size`` (an attribute or a
local; torch's ``BatchSampler``, torchdata's batch iterator, any
look-alike), it is being iterated as an index sampler, and it raises naming
``batch_sampler=`` as the fix. A ``DataLoader(batch_size=None,
sampler=...)``, which hands each batch to the dataset as one list (bulk
loading), is left alone.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._core.base import PlannedSampler
from .._core.inputs import to_numpy
from .._core.plans import BatchPlan
from .._errors import ConfigError, ConfigTypeError

__all__ = [
    "BatchPlanSampler",
    "EpochLink",
    "check_lengths",
    "refuse_index_sampler_use",
    "reorder_batches",
    "reorder_into",
]

BP = TypeVar("BP", bound=BatchPlan)

_REORDER_CHUNK = 1 << 16


class EpochLink:
    """A batch sampler's ``sampler``: only ``set_epoch``, forwarded to the batch sampler.

    NOTE (why): training frameworks call ``set_epoch`` on
    ``loader.sampler`` and ``loader.batch_sampler.sampler``, never on
    ``loader.batch_sampler`` itself (Lightning's ``_set_sampler_epoch``). With
    ``DataLoader(batch_sampler=...)``, ``loader.sampler`` is PyTorch's
    placeholder, so without this link such a framework repeats epoch 0's
    batches every epoch, silently. The link is not iterable: nothing can
    draw indices through it.
    """

    __slots__ = ("_owner",)

    def __init__(self, owner: BatchPlanSampler[Any]) -> None:
        self._owner = owner

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch of the batch sampler this link belongs to."""
        self._owner.set_epoch(epoch)

    def __repr__(self) -> str:
        return f"EpochLink({self._owner.kind})"


class BatchPlanSampler(PlannedSampler[list[int], BP], Generic[BP], register=False):
    """Base of samplers whose items are batches (lists of dataset indices).

    Generic over the family's plan class (a ``BatchPlan``).
    """

    kind = "BatchPlanSampler"
    _yields_batches = True

    def __iter__(self) -> Iterator[list[int]]:
        refuse_index_sampler_use(self, sys._getframe(1))
        return super().__iter__()

    @property
    def sampler(self) -> EpochLink:
        """What frameworks call ``set_epoch`` on (``loader.batch_sampler.sampler``)."""
        return EpochLink(self)

    @property
    def num_batches(self) -> int:
        """Batches in the current epoch's plan (all ranks together, before padding)."""
        return len(self.plan())

    @property
    def num_padded_batches(self) -> int:
        """Batches recycled from the head so every rank takes equal steps (``pad``)."""
        return self.partition().num_padded()

    @property
    def num_dropped_batches(self) -> int:
        """Batches at the end of the epoch that no rank takes (``drop``)."""
        return self.partition().num_dropped()


def refuse_index_sampler_use(sampler: object, caller: FrameType | None) -> None:
    """Raise when ``caller`` iterates ``sampler`` as the index sampler of a batcher.

    Args:
        sampler: A sampler that yields whole batches.
        caller: The frame that called ``iter(sampler)``.

    Raises:
        ConfigError: the caller's ``self`` holds ``sampler`` as its ``sampler``
            and has a ``batch_size`` (see the module NOTE).
    """
    owner = caller.f_locals.get("self") if caller is not None else None
    if owner is None or owner is sampler or getattr(owner, "sampler", None) is not sampler:
        return
    batch_size = getattr(owner, "batch_size", None)
    if batch_size is None:  # torchdata's iterator calls iter() before storing it
        batch_size = caller.f_locals.get("batch_size") if caller is not None else None
    if batch_size is None:
        return
    name = type(sampler).__name__
    raise ConfigError(
        f"{name} yields whole batches, but {type(owner).__name__}(batch_size={batch_size!r}) "
        f"is iterating it as an index sampler, so each step would hold {batch_size!r} of its "
        f"batches. Pass it as DataLoader(dataset, batch_sampler=sampler) instead of "
        "sampler=sampler (and drop batch_size, shuffle and drop_last)"
    )


def check_lengths(
    lengths: Any, *, name: str = "lengths", positive: bool = False
) -> NDArray[np.int64] | NDArray[np.float64]:
    """Validate per-item lengths and return them as a 1-D numpy array.

    Integer lengths (token counts) stay int64; real ones (durations) become
    float64. A torch tensor, numpy array or sequence of numbers is accepted.

    NOTE (memory): an int64 or float64 array (or CPU tensor) is returned as
    is, not copied, as sampling weights are: at 10**7 items a copy is one
    more input array held for the sampler's lifetime. Like the weights, the
    lengths must not be changed in place while the sampler uses them.

    Args:
        lengths: One non-negative (or positive) finite number per dataset item.
        name: Parameter name for messages.
        positive: Require every length to be > 0.

    Raises:
        ConfigTypeError: not numbers, or booleans.
        ConfigError: wrong shape, empty, negative, zero (when ``positive``),
            NaN or infinite.
    """
    lengths = to_numpy(lengths, name)
    if isinstance(lengths, str | bytes) or not hasattr(lengths, "__len__"):
        raise ConfigTypeError(
            f"{name} must be a 1-D sequence of numbers (one per dataset item), got "
            f"{type(lengths).__name__}"
        )
    array = np.asarray(lengths)
    if array.ndim != 1:
        raise ConfigError(
            f"{name} must be 1-D (one length per dataset item), got shape {array.shape}"
        )
    if array.size == 0:
        raise ConfigError(f"{name} is empty; pass one length per dataset item")
    if array.dtype == object and all(isinstance(v, numbers.Real) for v in array.tolist()):
        array = np.asarray(array.tolist())
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf":
        raise ConfigTypeError(
            f"{name} must hold ints or floats, got dtype {array.dtype} "
            f"(first value {array.tolist()[0]!r})"
        )
    out: NDArray[Any] = np.asarray(array, np.int64 if array.dtype.kind in "iu" else np.float64)
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        bad = int(np.flatnonzero(~np.isfinite(out))[0])
        raise ConfigError(f"{name}[{bad}] is {out[bad]}; every length must be finite")
    low = out <= 0 if positive else out < 0
    if np.any(low):
        bad = int(np.flatnonzero(low)[0])
        requirement = "> 0" if positive else ">= 0"
        raise ConfigError(
            f"{name}[{bad}] is {out[bad].item()!r}; every length must be {requirement}"
        )
    return out


def reorder_batches(
    flat: NDArray[np.int64] | NDArray[np.int32],
    offsets: NDArray[np.int64],
    order: NDArray[np.int64],
) -> BatchPlan:
    """The CSR batches ``(flat, offsets)`` put in the batch order ``order``.

    Args:
        flat: (total,) concatenated indices (int64, or int32: the plan's
            ``flat`` is int64 either way).
        offsets: (num_batches + 1,) batch boundaries.
        order: (new_num_batches,) batch numbers: new batch ``j`` is old batch
            ``order[j]`` (usually a permutation; a batch may also repeat or be
            left out, as ``bucket_plan``'s runs of one key do).
    """
    out = np.empty(int(np.diff(offsets)[order].sum()), dtype=np.int64)
    return BatchPlan(out, reorder_into(flat, offsets, order, out))


def reorder_into(
    flat: NDArray[Any], offsets: NDArray[np.int64], order: NDArray[np.int64], out: NDArray[Any]
) -> NDArray[np.int64]:
    """Write the CSR batches ``(flat, offsets)`` in the batch order ``order`` into ``out``.

    ``out`` (as many items as the reordered batches hold, any integer
    dtype that holds the indices, not overlapping ``flat``) receives the new
    ``flat``; the new (num_batches + 1,) offsets are returned. The gather
    runs over chunks of about ``_REORDER_CHUNK`` items, so beyond ``out`` it
    needs O(chunk) memory, not two more arrays of the plan's size.
    """
    sizes = np.diff(offsets)[order]  # (num_batches,)
    new_offsets = np.zeros(order.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=new_offsets[1:])
    starts = offsets[:-1][order] - new_offsets[:-1]  # old position - new position, per batch
    a = 0
    while a < order.size:
        b = int(np.searchsorted(new_offsets, new_offsets[a] + _REORDER_CHUNK, side="right")) - 1
        b = min(max(b, a + 1), order.size)
        lo, hi = int(new_offsets[a]), int(new_offsets[b])
        gather = np.repeat(starts[a:b], sizes[a:b])  # (hi - lo,)
        gather += np.arange(lo, hi, dtype=np.int64)
        out[lo:hi] = flat[gather]
        a = b
    return new_offsets
