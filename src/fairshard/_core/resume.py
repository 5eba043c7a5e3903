"""What the training loop consumed, as opposed to what the sampler handed out.

A ``DataLoader`` with ``num_workers > 0`` draws indices from its sampler
ahead of the loop (``prefetch_factor * num_workers`` batches), so at any
moment of a pass the sampler has handed out more than the loop has
consumed. A state taken from the sampler's own cursor then marks the
prefetched items as done, and the resumed epoch silently skips them. Three
ways stay exact:

* the loop says how much it took: ``sampler.state_dict(consumed=k)`` (items,
  or batches for a batch sampler, taken from the current pass), or
  :func:`loader_state_dict` ``(loader, batches)``, which does the
  arithmetic from the loader's ``batch_size`` and works for index samplers,
  batch samplers and ``ShardedIterable``;
* the loader does not prefetch (``num_workers=0``);
* the loader snapshots the sampler when it draws a batch (torchdata's
  ``StatefulDataLoader``, which calls ``state_dict()`` itself: a call from
  torchdata's own code is its snapshot).

Everything else is refused loudly: when a pass is driven by a multi-worker
``DataLoader`` (torchdata's included, for a call that is not its own
snapshot) that holds batches the loop has not consumed yet,
``state_dict()`` without ``consumed`` raises, naming the fix; and a loader
that yields batches as they finish (``in_order=False``) has taken batches
that are not the pass's first ``k``, which no ``(epoch, steps)`` state can
say, so a state in the middle of such a pass is refused too.

NOTE (one protocol): ``loader_state_dict`` reads the loader into a
``LoaderView`` and hands it to the object behind it through the
``LoaderResumable`` protocol (``loader_state(batches, view)``), which the
samplers (``PlannedSampler``) and the streams (``ShardedIterable``) both
implement; this module names neither.

NOTE (how the driver is found): ``PlannedSampler.__iter__`` looks up the
call stack, once per pass, for the ``DataLoader`` iterator that asked for
it (a few frames, only torch's and torchdata's own). That iterator is kept
as a weak reference; when ``state_dict()`` is called its batch counters say
how many batches were fetched but not yet yielded. Those counters are
private to torch, so they are used only to refuse an unsafe state and to
tell a pass the loader drew and threw away from a repeated epoch
(``discarded``), never to compute a state: the exact recipes above do not
depend on them. Should torch rename them, a bare mid-epoch ``state_dict()``
under workers is still refused (the gap counts as unknown).

NOTE (a wrapper that fetches ahead): a loader wrapper around the DataLoader
may itself take batches before the loop asks (Ray Train's
``prepare_data_loader`` fetches the next batch as it hands one over), with
``num_workers=0`` too, where no frame says so. Such a wrapper counts what
it handed to the loop, and marks its pass with :func:`hold_pass`: while the
pass is held, a bare ``state_dict()`` of that pass raises with the
wrapper's own fix (its ``state_dict()``, from its count), even once the
wrapper is gone (the fetched batch is lost with it). A new pass of the
sampler is not the held one.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any, NamedTuple, Protocol, TypeGuard, runtime_checkable

from .._errors import ConfigError, ConfigTypeError

__all__ = [
    "Driver",
    "LoaderResumable",
    "LoaderView",
    "check_consumed",
    "discarded",
    "find_driver",
    "finished",
    "held_refusal",
    "hold_pass",
    "loaded_by_torchdata",
    "loader_state_dict",
    "loop_took",
    "refuse_out_of_order",
    "unsafe_gap",
]

_MAX_FRAMES = 12
_LOADER_MODULES = ("torch.utils.data", "torchdata")


class LoaderView(NamedTuple):
    """What ``loader_state_dict`` reads off a ``DataLoader`` for the object behind it."""

    #: Items of the fairshard object that make one loader batch (1 for a batch sampler).
    items_per_batch: int
    #: The loader's own ``batch_size`` (``None``: ``batch_size=None`` or ``batch_sampler=``).
    batch_size: int | None
    drop_last: bool
    num_workers: int
    #: ``False``: the workers' batches are handed over as they finish.
    in_order: bool


@runtime_checkable
class LoaderResumable(Protocol):
    """An object whose state ``loader_state_dict`` can compute from the batches taken."""

    def loader_state(self, batches: int, loader: LoaderView) -> dict[str, Any]:
        """The state after the loop took ``batches`` batches of the current pass."""
        ...


class Driver:
    """The ``DataLoader`` iterator that drives a pass (a weak reference to it).

    A copied or unpickled sampler keeps what was known of the loader, not
    the loader: the reference comes back dead.
    """

    __slots__ = ("in_order", "num_workers", "ref", "stateful")

    def __init__(
        self, ref: Callable[[], Any], num_workers: int, stateful: bool, in_order: bool = True
    ) -> None:
        self.ref = ref
        self.num_workers = num_workers
        self.stateful = stateful
        self.in_order = in_order

    @classmethod
    def of(cls, iterator: Any) -> Driver:
        """The driver record of a live loader iterator."""
        # A loader iterator with its own state_dict snapshots the sampler as it
        # draws each batch (StatefulDataLoader): its own snapshots are exact.
        stateful = callable(getattr(iterator, "state_dict", None))
        workers = int(getattr(iterator, "_num_workers", 0) or 0)
        in_order = bool(getattr(iterator, "_in_order", True))
        return cls(weakref.ref(iterator), workers, stateful, in_order)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Driver, (_gone, self.num_workers, self.stateful, self.in_order))


def _gone() -> None:
    """A reference whose loader iterator no longer exists."""
    return None


class Hold:
    """A wrapper's mark on one pass of a sampler: it holds fetched batches back."""

    __slots__ = ("cursor", "fix", "live", "who")

    def __init__(self, cursor: Any, who: str, fix: str) -> None:
        self.cursor = cursor  # the pass held (the sampler's cursor when it was marked)
        self.who = who
        self.fix = fix
        self.live = True  # False once the wrapper handed the loop the pass's last batch

    def release(self) -> None:
        """The wrapper gave the loop everything it fetched (the pass ran out)."""
        self.live = False


_HOLD = "_fairshard_hold"


def hold_pass(sampler: Any, who: str, fix: str) -> Hold:
    """Mark ``sampler``'s current pass as driven by a wrapper that fetches ahead.

    Args:
        sampler: the fairshard sampler whose pass has started.
        who: the wrapper, as the error names it.
        fix: what to save instead of the bare state.

    Returns:
        The mark; ``release()`` it when the wrapper's pass ran out.
    """
    hold = Hold(getattr(sampler, "_cursor", None), who, fix)
    sampler.__dict__[_HOLD] = hold
    return hold


def held_refusal(sampler: Any, kind: str, cursor: Any) -> ConfigError | None:
    """The error for a bare state of a pass a wrapper holds batches of (None: not held)."""
    hold = sampler.__dict__.get(_HOLD)
    if hold is None or not hold.live or cursor is None or hold.cursor is not cursor:
        return None
    return ConfigError(
        f"{kind}.state_dict() in the middle of a pass driven by {hold.who}, which fetches "
        "the next batch before the training loop asks for it (with num_workers=0 too): "
        "the sampler has handed out a batch the loop has not received, so this state "
        f"would skip it on resume. {hold.fix}"
    )


def _is_loader_iterator(obj: Any) -> bool:
    return any(c.__name__ == "_BaseDataLoaderIter" for c in type(obj).__mro__)


def _frames(frame: FrameType | None) -> list[FrameType]:
    out = []
    for _ in range(_MAX_FRAMES):
        if frame is None:
            break
        out.append(frame)
        frame = frame.f_back
    return out


_LIGHTNING_LOOPS = ("lightning.pytorch.loops", "pytorch_lightning.loops")


def driven_by_lightning() -> bool:
    """Whether Lightning's training loop is on the call stack (it asked for this item)."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(48):  # Lightning's loop sits 10-20 frames above a sampler's pass
        if frame is None:
            return False
        if str(frame.f_globals.get("__name__", "")).startswith(_LIGHTNING_LOOPS):
            return True
        frame = frame.f_back
    return False


def find_driver(frame: FrameType | None = None) -> Driver | None:
    """The DataLoader iterator on the call stack above ``frame``, if any."""
    for f in _frames(sys._getframe(2) if frame is None else frame):
        if str(f.f_globals.get("__name__", "")).startswith(_LOADER_MODULES):
            candidate = f.f_locals.get("self")
            if candidate is not None and _is_loader_iterator(candidate):
                return Driver.of(candidate)
    return None


def loaded_by_torchdata(frame: FrameType | None) -> bool:
    """Whether torchdata's own code made this call (a snapshot, or a restore it drives).

    ``StatefulDataLoader`` and ``torchdata.nodes`` call ``state_dict()`` when
    they snapshot a sampler, and ``iter()`` when they restore one; their
    calls are exact by construction, a user's call under them is checked.
    """
    return any(str(f.f_globals.get("__name__", "")).startswith("torchdata") for f in _frames(frame))


def unsafe_gap(driver: Driver | None, complete: bool, snapshot: bool = False) -> int | None:
    """Batches a multi-worker DataLoader fetched that the loop has not consumed.

    ``None`` when the sampler's cursor is what the loop consumed: no loader,
    no workers, a stateful loader's own snapshot (``snapshot``), or a
    finished pass whose loader is gone. ``-1`` when the pass is unfinished,
    its loader is gone and the gap is unknown (the loop left early;
    prefetched items were never consumed).
    """
    if driver is None or driver.num_workers == 0 or (driver.stateful and snapshot):
        return None
    iterator = driver.ref()
    if iterator is None:
        return None if complete else -1
    sent = getattr(iterator, "_send_idx", None)
    # The batches this iterator returned, in order: its own count, which a restored
    # StatefulDataLoader iterator does not offset by the saved step (_num_yielded is).
    yielded = getattr(iterator, "_rcvd_idx", None)
    if not isinstance(yielded, int):
        yielded = getattr(iterator, "_num_yielded", None)
    if not isinstance(sent, int) or not isinstance(yielded, int):
        return None if complete else -1
    gap = sent - yielded
    return gap if gap > 0 else None


def loop_took(driver: Driver | None, handed_out: int, sampler: Any) -> int:
    """Of the ``handed_out`` items (batches) of a pass, those the loader gave the loop.

    All of them without workers or once the loader's iterator is gone (then
    what it held back is unknown: the count is an upper bound); else the
    batches the live iterator returned, in ``sampler``'s units (a torch
    ``BatchSampler`` around an index sampler makes ``batch_size`` items a
    batch).
    """
    if driver is None or driver.num_workers == 0 or unsafe_gap(driver, True) is None:
        return handed_out
    iterator = driver.ref()
    yielded = getattr(iterator, "_rcvd_idx", None)
    if not isinstance(yielded, int):
        yielded = getattr(iterator, "_num_yielded", None)
    if not isinstance(yielded, int):
        return handed_out
    batches = getattr(iterator, "_index_sampler", None)
    size = getattr(batches, "batch_size", None) if batches is not sampler else 1
    per = size if isinstance(size, int) and size > 0 else 1
    return min(handed_out, yielded * per)


def discarded(driver: Driver | None) -> bool:
    """Whether a multi-worker loader drew the pass but gave the loop none of it.

    A ``StatefulDataLoader`` restoring a finished iterator prefetches from
    the sampler and then replaces that iterator by a new one; the next pass
    over the same epoch is then not a repeat (no warning, no ``auto_epoch``
    step).
    """
    if driver is None or driver.num_workers == 0:
        return False
    iterator = driver.ref()
    return iterator is not None and getattr(iterator, "_rcvd_idx", None) == 0


def finished(driver: Driver | None, ran_out: bool) -> bool:
    """Whether the loop took a pass to its end (as far as can be told).

    The sampler's pass ran out (``ran_out``: everything handed out, or its
    end seen), and the loader that drove it, while it lives, gave the loop
    every batch it drew (a probe ``next(iter(loader))`` or a ``break``
    leaves prefetched batches behind) and did not throw the pass away.
    """
    if not ran_out or discarded(driver):
        return False
    return unsafe_gap(driver, True) is None


def refuse(kind: str, handed_out: int, gap: int, num_workers: int) -> ConfigError:
    """The error for a state that would mark prefetched items as consumed."""
    what = f"{gap} batch(es)" if gap > 0 else "batches"
    return ConfigError(
        f"{kind}.state_dict() mid-epoch while a DataLoader with num_workers={num_workers} "
        f"prefetches from it: the sampler has handed out {handed_out} items but the "
        f"loader still holds {what} the training loop has not consumed, so this state "
        "would skip them on resume. Say what the loop took: "
        "fairshard.loader_state_dict(loader, batches=<batches consumed this pass>) or "
        "sampler.state_dict(consumed=<items consumed this pass>); under torchdata's "
        "StatefulDataLoader save loader.state_dict(), which holds the sampler's state at "
        "the batch the loop took; or num_workers=0"
    )


def refuse_out_of_order(kind: str, taken: int, of: str, num_workers: int) -> ConfigError:
    """The error for a state mid-pass under a loader that yields batches as they finish."""
    return ConfigError(
        f"{kind}: a state after the loop took {taken} ({of}) under a DataLoader with "
        f"num_workers={num_workers} and in_order=False: that loader hands batches over "
        "as the workers finish them, so what the loop took is not the pass's first "
        f"{taken} and a resume would lose some and repeat others. Build the DataLoader "
        "with in_order=True (the default) to checkpoint mid-epoch, or checkpoint at the "
        "end of the epoch"
    )


def check_consumed(consumed: Any, handed_out: int) -> int:
    """Validate ``consumed`` against what the current pass handed out (``None``: all of it)."""
    if consumed is None:
        return handed_out
    if isinstance(consumed, bool) or not isinstance(consumed, int):
        raise ConfigTypeError(
            f"consumed must be an int (items, or batches for a batch sampler, the loop took "
            f"from the current pass), got consumed={consumed!r}"
        )
    if consumed < 0 or consumed > handed_out:
        raise ConfigError(
            f"consumed={consumed} but the current pass has handed out {handed_out} "
            f"item(s) so far; the loop cannot have consumed more than that, nor fewer "
            "than 0. Count what the loop took since the `for` over this pass started"
        )
    return consumed


def loader_state_dict(loader: Any, batches: int) -> dict[str, Any]:
    """The state of the fairshard sampler (or stream) behind ``loader``, exact.

    Use it with a plain ``torch.utils.data.DataLoader`` and any
    ``num_workers``: the loader's workers prefetch ahead of the loop, so the
    sampler's own cursor overcounts; this state counts what the loop took.

    Args:
        loader: The ``DataLoader`` whose current pass the loop is consuming.
            Its ``batch_sampler`` (a fairshard batch sampler, or a torch
            ``BatchSampler`` around a fairshard index sampler -- what
            ``sampler=`` with ``batch_size=`` builds), its ``sampler``
            (``batch_size=None``) or its ``dataset`` (a ``ShardedIterable``)
            is the fairshard object.
        batches: Batches the loop has taken from the current pass (since its
            ``for`` started); ``step + 1`` in ``for step, batch in
            enumerate(loader)``.

    Returns:
        That object's ``state_dict``; load it with its ``load_state_dict``.

    Raises:
        ConfigTypeError: no fairshard sampler or stream behind ``loader``, or
            ``batches`` is not an int.
        ConfigError: ``batches`` is negative or more than the pass holds; or
            the loader has workers and ``in_order=False`` and the loop is in
            the middle of the pass.
    """
    if isinstance(batches, bool) or not isinstance(batches, int):
        raise ConfigTypeError(
            f"batches must be an int (batches the loop took from the current pass), "
            f"got batches={batches!r}"
        )
    if batches < 0:
        raise ConfigError(f"batches must be >= 0, got batches={batches}")
    target, size = _resumable_behind(loader)
    view = LoaderView(
        items_per_batch=size,
        batch_size=getattr(loader, "batch_size", None),
        drop_last=bool(getattr(loader, "drop_last", False)),
        num_workers=int(getattr(loader, "num_workers", 0) or 0),
        in_order=bool(getattr(loader, "in_order", True)),
    )
    return target.loader_state(batches, view)


def _resumable_behind(loader: Any) -> tuple[LoaderResumable, int]:
    """The fairshard object behind ``loader`` and how many of its items make a batch."""
    dataset = getattr(loader, "dataset", None)
    if _fairshard(dataset):  # an IterableDataset: a ShardedIterable
        return dataset, 1
    batch_sampler = getattr(loader, "batch_sampler", None)
    if _fairshard(batch_sampler):  # batch_sampler=<a fairshard batch sampler>
        return batch_sampler, 1
    inner = getattr(batch_sampler, "sampler", None)
    if _fairshard(inner):  # sampler= and batch_size=, or a torch BatchSampler
        return inner, int(getattr(batch_sampler, "batch_size", 1))
    sampler = getattr(loader, "sampler", None)
    if batch_sampler is None and _fairshard(sampler):  # batch_size=None
        return sampler, 1
    raise ConfigTypeError(
        "loader_state_dict needs a DataLoader over a fairshard sampler (sampler=, "
        "batch_sampler=, or a BatchSampler around one) or a ShardedIterable dataset; got "
        f"sampler={type(sampler).__name__}, batch_sampler={type(batch_sampler).__name__}, "
        f"dataset={type(dataset).__name__}"
    )


def _fairshard(obj: Any) -> TypeGuard[LoaderResumable]:
    from .registry import is_fairshard

    return obj is not None and is_fairshard(obj) and isinstance(obj, LoaderResumable)
