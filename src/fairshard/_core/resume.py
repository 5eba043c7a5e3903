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
  ``StatefulDataLoader``, which calls ``state_dict()`` itself).

Everything else is refused loudly: when a pass is driven by a plain
multi-worker ``DataLoader`` that holds batches the loop has not consumed
yet, ``state_dict()`` without ``consumed`` raises, naming the fix.

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
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

from .._errors import ConfigError, ConfigTypeError

__all__ = [
    "Driver",
    "check_consumed",
    "discarded",
    "find_driver",
    "loader_state_dict",
    "unsafe_gap",
]

_MAX_FRAMES = 12
_LOADER_MODULES = ("torch.utils.data", "torchdata")


class Driver:
    """The ``DataLoader`` iterator that drives a pass (a weak reference to it).

    A copied or unpickled sampler keeps what was known of the loader, not
    the loader: the reference comes back dead.
    """

    __slots__ = ("num_workers", "ref", "stateful")

    def __init__(self, ref: Callable[[], Any], num_workers: int, stateful: bool) -> None:
        self.ref = ref
        self.num_workers = num_workers
        self.stateful = stateful

    @classmethod
    def of(cls, iterator: Any) -> Driver:
        """The driver record of a live loader iterator."""
        # A loader iterator with its own state_dict snapshots the sampler as it
        # draws each batch (StatefulDataLoader): the sampler's cursor is exact there.
        stateful = callable(getattr(iterator, "state_dict", None))
        workers = int(getattr(iterator, "_num_workers", 0) or 0)
        return cls(weakref.ref(iterator), workers, stateful)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Driver, (_gone, self.num_workers, self.stateful))


def _gone() -> None:
    """A reference whose loader iterator no longer exists."""
    return None


def _is_loader_iterator(obj: Any) -> bool:
    return any(c.__name__ == "_BaseDataLoaderIter" for c in type(obj).__mro__)


def find_driver(frame: FrameType | None = None) -> Driver | None:
    """The DataLoader iterator on the call stack above ``frame``, if any."""
    frame = sys._getframe(2) if frame is None else frame
    for _ in range(_MAX_FRAMES):
        if frame is None:
            return None
        if str(frame.f_globals.get("__name__", "")).startswith(_LOADER_MODULES):
            candidate = frame.f_locals.get("self")
            if candidate is not None and _is_loader_iterator(candidate):
                return Driver.of(candidate)
        frame = frame.f_back
    return None


def unsafe_gap(driver: Driver | None, complete: bool) -> int | None:
    """Batches a plain multi-worker DataLoader fetched that the loop has not consumed.

    ``None`` when the sampler's cursor is what the loop consumed: no loader,
    no workers, a stateful loader, or a finished pass whose loader is gone.
    ``-1`` when the pass is unfinished, its loader is gone and the gap is
    unknown (the loop left early; prefetched items were never consumed).
    """
    if driver is None or driver.num_workers == 0 or driver.stateful:
        return None
    iterator = driver.ref()
    if iterator is None:
        return None if complete else -1
    sent = getattr(iterator, "_send_idx", None)
    yielded = getattr(iterator, "_num_yielded", None)
    if not isinstance(sent, int) or not isinstance(yielded, int):
        return None if complete else -1
    gap = sent - yielded
    return gap if gap > 0 else None


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


def refuse(kind: str, handed_out: int, gap: int, num_workers: int) -> ConfigError:
    """The error for a state that would mark prefetched items as consumed."""
    what = f"{gap} batch(es)" if gap > 0 else "batches"
    return ConfigError(
        f"{kind}.state_dict() mid-epoch while a DataLoader with num_workers={num_workers} "
        f"prefetches from it: the sampler has handed out {handed_out} items but the "
        f"loader still holds {what} the training loop has not consumed, so this state "
        "would skip them on resume. Say what the loop took: "
        "fairshard.loader_state_dict(loader, batches=<batches consumed this pass>) or "
        "sampler.state_dict(consumed=<items consumed this pass>); or use torchdata's "
        "StatefulDataLoader, or num_workers=0"
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
        ConfigError: ``batches`` is negative or more than the pass holds.
    """
    if isinstance(batches, bool) or not isinstance(batches, int):
        raise ConfigTypeError(
            f"batches must be an int (batches the loop took from the current pass), "
            f"got batches={batches!r}"
        )
    if batches < 0:
        raise ConfigError(f"batches must be >= 0, got batches={batches}")
    dataset = getattr(loader, "dataset", None)
    if callable(getattr(dataset, "_loader_state", None)):
        stream_state: dict[str, Any] = dataset._loader_state(  # type: ignore[union-attr]
            batches,
            batch_size=getattr(loader, "batch_size", None),
            drop_last=bool(getattr(loader, "drop_last", False)),
            num_workers=int(getattr(loader, "num_workers", 0)),
        )
        return stream_state
    sampler, size = _sampler_and_batch_size(loader)
    items = sampler._pass_items()
    most = -(-items // size)
    if batches > most:
        raise ConfigError(
            f"batches={batches} but the current pass holds {items} item(s), at most {most} "
            f"batch(es) of {size}; count the batches the loop took since the `for` over this "
            "pass started"
        )
    state: dict[str, Any] = sampler.state_dict(consumed=min(batches * size, items))
    return state


def _sampler_and_batch_size(loader: Any) -> tuple[Any, int]:
    """The fairshard sampler behind ``loader`` and how many of its items make a batch."""
    batch_sampler = getattr(loader, "batch_sampler", None)
    if _fairshard_sampler(batch_sampler):  # batch_sampler=<a fairshard batch sampler>
        return batch_sampler, 1
    inner = getattr(batch_sampler, "sampler", None)
    if _fairshard_sampler(inner):  # sampler= and batch_size=, or a torch BatchSampler
        return inner, int(getattr(batch_sampler, "batch_size", 1))
    sampler = getattr(loader, "sampler", None)
    if batch_sampler is None and _fairshard_sampler(sampler):  # batch_size=None
        return sampler, 1
    raise ConfigTypeError(
        "loader_state_dict needs a DataLoader over a fairshard sampler (sampler=, "
        "batch_sampler=, or a BatchSampler around one) or a ShardedIterable dataset; got "
        f"sampler={type(sampler).__name__}, batch_sampler={type(batch_sampler).__name__}, "
        f"dataset={type(getattr(loader, 'dataset', None)).__name__}"
    )


def _fairshard_sampler(obj: Any) -> bool:
    from .registry import is_fairshard

    return obj is not None and is_fairshard(obj) and callable(getattr(obj, "_pass_items", None))
