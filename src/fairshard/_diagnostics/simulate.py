"""Run a sampler for virtual ranks 0..W-1 in one process and check the shares.

The simulator builds one sampler per virtual rank -- through a factory
``make(rank, world_size)``, or from a name such as ``"DistributedSampler"``
or ``"torch.utils.data:DistributedSampler"`` plus keyword arguments --
iterates each for the requested epochs and reports, per epoch and rank:
``len()`` against what was actually yielded, unique items and duplicates,
coverage of the dataset, pairwise overlap between ranks, the first indices,
per-class counts (given labels) and how much the order changed since the
previous epoch. Batch samplers are flattened (their batch counts are
reported too). Invariants are checked against what the sampler declares
(see ``_sim_checks``); the failures are ``report.problems``.

The same report backs ``fairshard simulate``, ``fairshard demo`` and the tests.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._distributed.local_rank import virtual_ranks
from .._errors import ConfigError, ConfigTypeError, check_int
from .checks import declared_for, find_problems
from .progress import ProgressBar
from .quality import adjacent_correlation, batch_entropy, block_spread
from .report import Declared, EpochReport, RankReport, SimulationReport
from .spec import SamplerSpec

_P = ParamSpec("_P")
_R = TypeVar("_R")

__all__ = [
    "MAX_ITEMS",
    "MAX_WORLD_SIZE",
    "Declared",
    "EpochReport",
    "RankReport",
    "SimulationReport",
    "flatten_items",
    "overlap_matrix",
    "simulate",
]

SamplerFactory = Callable[[int, int], Any]

_CHUNK = 65536
#: Most virtual ranks simulated (the overlap matrix is W x W).
MAX_WORLD_SIZE = 1024
#: Most items simulated in one run, over all ranks and epochs (each kept as int64, plus
#: sorting copies: under 1 GB at the limit).
MAX_ITEMS = 10_000_000


def _is_batch(item: Any) -> bool:
    return (isinstance(item, Sequence | np.ndarray) and not isinstance(item, str)) or (
        hasattr(item, "ndim") and getattr(item, "ndim", 0) == 1
    )


def flatten_items(
    items: Iterable[Any], progress: ProgressBar | None = None
) -> tuple[NDArray[np.int64], int | None]:
    """Flatten what a sampler yielded: ints, batches of ints, or batches of rows of ints.

    Returns:
        The indices as an int64 array, and the number of batches (``None``
        when the sampler yields single indices).

    Example:
        >>> flatten_items([[3, 1], [2]])
        (array([3, 1, 2]), 2)
        >>> flatten_items([[[3], [1, 4]], [[2]]])
        (array([3, 1, 4, 2]), 2)
    """
    iterator = iter(items)
    parts: list[NDArray[np.int64]] = []
    batches: int | None = None
    while True:
        chunk = list(itertools.islice(iterator, _CHUNK))
        if not chunk:
            break
        if batches is None and parts == [] and _is_batch(chunk[0]):
            batches = 0
        if batches is not None:
            batches += len(chunk)
            # A batch holds indices, or rows of indices (PackingBatchSampler).
            flat = [int(j) for batch in chunk for i in batch for j in (i if _is_batch(i) else (i,))]
            parts.append(np.asarray(flat, dtype=np.int64))
        else:
            parts.append(np.asarray([int(i) for i in chunk], dtype=np.int64))
        if progress is not None:
            progress.advance(len(chunk))
    if not parts:
        return np.empty(0, dtype=np.int64), None
    return np.concatenate(parts), batches


def overlap_matrix(shares: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
    """(W, W) counts of distinct indices shared by ranks i and j (diagonal: own unique).

    Only indices owned by more than one rank enter the pairwise product, so
    disjoint shares cost O(n log n) regardless of ``W``.

    Example:
        >>> overlap_matrix([np.array([0, 1, 2]), np.array([2, 3]), np.array([2, 0])]).tolist()
        [[3, 1, 2], [1, 2, 1], [2, 1, 2]]
    """
    world = len(shares)
    uniques = [np.unique(s) for s in shares]
    matrix = np.zeros((world, world), dtype=np.int64)
    for rank, u in enumerate(uniques):
        matrix[rank, rank] = u.size
    if world < 2:
        return matrix
    values = np.concatenate(uniques)
    owners = np.repeat(np.arange(world), [u.size for u in uniques])
    order = np.argsort(values, kind="stable")
    values, owners = values[order], owners[order]
    distinct, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    shared = counts[inverse] > 1
    if not shared.any():
        return matrix
    rows = np.searchsorted(distinct[counts > 1], values[shared])  # (k,) shared-index id
    step = 1 << 20
    for begin in range(0, int(rows.max()) + 1, step):
        sel = (rows >= begin) & (rows < begin + step)
        incidence = np.zeros((world, min(step, int(rows.max()) + 1 - begin)), dtype=np.float32)
        incidence[owners[shared][sel], rows[sel] - begin] = 1.0
        pairs = np.rint(incidence @ incidence.T).astype(np.int64)
        np.fill_diagonal(pairs, 0)
        matrix += pairs
    return matrix


def _order_change(previous: NDArray[np.int64] | None, current: NDArray[np.int64]) -> float | None:
    """Fraction of positions whose item differs from the previous epoch's."""
    if previous is None:
        return None
    longest = max(previous.size, current.size)
    if longest == 0:
        return 0.0
    common = min(previous.size, current.size)
    changed = int(np.count_nonzero(previous[:common] != current[:common])) + longest - common
    return changed / longest


def _set_epoch(sampler: Any, epoch: int) -> None:
    target = sampler if hasattr(sampler, "set_epoch") else getattr(sampler, "sampler", None)
    if target is not None and hasattr(target, "set_epoch"):
        target.set_epoch(epoch)


def _factory(
    make: SamplerFactory | str | type,
    kwargs: dict[str, Any] | None,
    dataset_size: int | None,
    labels: NDArray[np.int64] | None,
    batch_size: int | None,
    drop_last_batch: bool,
    files: dict[str, Any],
) -> tuple[SamplerFactory, str | None, int | None]:
    if isinstance(make, str) or inspect.isclass(make):
        name = make if isinstance(make, str) else f"{make.__module__}:{make.__qualname__}"
        spec = SamplerSpec(
            name,
            dict(kwargs or {}),
            dataset_size,
            labels,
            batch_size,
            drop_last_batch,
            weights=files.get("weights"),
            lengths=files.get("lengths"),
        )
        return spec.make, spec.describe(), spec.dataset_size
    if not callable(make):
        raise ConfigTypeError(
            f"make must be a callable make(rank, world_size) -> sampler, a sampler name or a "
            f"class, got make={make!r} of type {type(make).__name__}"
        )
    if kwargs:
        raise ConfigError("kwargs apply only when make is a sampler name or class, not a factory")
    if batch_size is None:
        return make, None, dataset_size
    from torch.utils.data import BatchSampler

    size = check_int("batch_size", batch_size, minimum=1, maximum=sys.maxsize)

    def batched(rank: int, world: int) -> Any:
        return BatchSampler(make(rank, world), size, drop_last_batch)

    return batched, f"BatchSampler(factory, batch_size={size})", dataset_size


def _virtual(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with its samplers as virtual ranks (never taken for ``rank=LOCAL_RANK``)."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with virtual_ranks():
            return fn(*args, **kwargs)

    return wrapper


@_virtual
def simulate(
    make: SamplerFactory | str | type,
    world_size: int,
    *,
    epochs: int = 1,
    dataset_size: int | None = None,
    first: int = 8,
    labels: NDArray[np.int64] | Sequence[int] | None = None,
    set_epoch: bool = True,
    batch_size: int | None = None,
    drop_last_batch: bool = False,
    kwargs: dict[str, Any] | None = None,
    progress: bool | None = False,
    weights: NDArray[np.float64] | Sequence[float] | None = None,
    lengths: NDArray[np.int64] | Sequence[int] | None = None,
    quality_batch: int = 64,
    spread_block: int = 256,
) -> SimulationReport:
    """Run every virtual rank's sampler and check the shares.

    Args:
        make: A factory ``make(rank, world_size) -> sampler``, a fairshard
            sampler name (``"DistributedSampler"``), ``"module:Class"`` or a
            class; names and classes get ``kwargs`` plus ``num_replicas``,
            ``rank``, ``dataset`` and ``labels`` filled in.
        world_size: Number of virtual ranks.
        epochs: Epochs to run.
        dataset_size: Dataset length, for coverage and ``missing``.
        first: How many first indices to report per rank.
        labels: ``labels[i]`` is the class of index ``i``; adds per-rank class counts.
        set_epoch: Call ``set_epoch(e)`` before epoch ``e`` (``False`` shows
            what forgetting it does).
        batch_size: Wrap each rank's sampler in ``torch.utils.data.BatchSampler``.
        drop_last_batch: That ``BatchSampler``'s ``drop_last``.
        kwargs: Keyword arguments for a sampler given by name or class.
        progress: Draw a progress bar on stderr (``None``: only on a terminal).
        weights: Per-sample weights, for a sampler given by name that takes ``weights``.
        lengths: Per-sample lengths, for a sampler given by name that takes ``lengths``.
        quality_batch: Batch size of the per-batch class entropy (given labels).
        spread_block: Neighbouring indices per block for the block spread.

    Returns:
        The report; ``report.problems`` lists the invariants that failed,
        preceded by their cause when arguments differ between ranks.

    Raises:
        ConfigError: bad arguments, a sampler that cannot be built, or a run
            beyond :data:`MAX_WORLD_SIZE` ranks or :data:`MAX_ITEMS` items.

    Example:
        >>> rep = simulate("DistributedSampler", 4, dataset_size=10)
        >>> [r.yielded for r in rep.epochs[0].ranks], rep.epochs[0].missing, rep.ok
        ([3, 3, 3, 3], 0, True)
    """
    world_size = check_int("world_size", world_size, minimum=1)
    if world_size > MAX_WORLD_SIZE:
        raise ConfigError(
            f"world_size={world_size} is more than the simulator's limit of {MAX_WORLD_SIZE} "
            "virtual ranks; shares scale, so simulate fewer ranks with a proportional dataset"
        )
    epochs = check_int("epochs", epochs, minimum=1)
    first = check_int("first", first, minimum=0)
    quality = (
        check_int("quality_batch", quality_batch, minimum=1),
        check_int("spread_block", spread_block, minimum=1),
    )
    if dataset_size is not None:
        dataset_size = check_int("dataset_size", dataset_size, minimum=0)
    label_array = None if labels is None else np.asarray(labels, dtype=np.int64)
    if dataset_size is not None and dataset_size * epochs > MAX_ITEMS:
        raise ConfigError(
            f"dataset_size={dataset_size} x epochs={epochs} is more than the simulator's limit "
            f"of {MAX_ITEMS:,} items; simulate a smaller dataset (the layout scales) or fewer "
            "epochs"
        )
    files = {
        "weights": None if weights is None else np.asarray(weights, dtype=np.float64),
        "lengths": None if lengths is None else np.asarray(lengths, dtype=np.int64),
    }
    factory, description, dataset_size = _factory(
        make, kwargs, dataset_size, label_array, batch_size, drop_last_batch, files
    )
    samplers = [factory(rank, world_size) for rank in range(world_size)]
    per_rank = _per_rank(samplers)
    if description is None:
        description = f"{type(samplers[0]).__name__} (from a factory)"
    num_classes = None if label_array is None else int(label_array.max(initial=-1)) + 1
    report = SimulationReport(
        world_size,
        sampler=description,
        dataset_size=dataset_size,
        num_classes=num_classes,
        set_epoch=set_epoch,
    )
    report.per_rank = per_rank
    total = sum(len(s) for s in samplers) * epochs
    if total > MAX_ITEMS:
        raise ConfigError(
            f"the samplers would yield {total:,} items or batches over {epochs} epochs, more "
            f"than the simulator's limit of {MAX_ITEMS:,}; simulate a smaller dataset or "
            "fewer epochs"
        )
    bar = ProgressBar(total, "simulate", enabled=None if progress is None else progress)
    previous: list[NDArray[np.int64] | None] = [None] * world_size
    seen_warnings: dict[str, None] = {}
    try:
        for epoch in range(epochs):
            ranks: list[RankReport] = []
            shares: list[NDArray[np.int64]] = []
            for rank, sampler in enumerate(samplers):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    if set_epoch:
                        _set_epoch(sampler, epoch)
                    length = len(sampler)
                    flat, batches = flatten_items(iter(sampler), bar)
                for w in caught:
                    seen_warnings.setdefault(
                        f"epoch {epoch} rank {rank}: {w.category.__name__}: {w.message}"
                    )
                ranks.append(
                    _rank_report(
                        rank,
                        length,
                        flat,
                        batches,
                        first,
                        dataset_size,
                        label_array,
                        num_classes,
                        previous[rank],
                        quality,
                    )
                )
                previous[rank] = flat
                shares.append(flat)
            report.shares.append(shares)
            declared = declared_for(samplers, dataset_size, epoch)
            report.epochs.append(_epoch_report(epoch, dataset_size, ranks, shares, declared))
    finally:
        bar.close()
    report.warnings = list(seen_warnings)
    report.problems = find_problems(report)
    return report


def _per_rank(samplers: Sequence[Any]) -> dict[str, list[Any]]:
    """Arguments that differ between the ranks' samplers (today: ``seed``)."""
    from .checks import inner_sampler

    seeds = [getattr(inner_sampler(s), "seed", None) for s in samplers]
    if len(set(map(repr, seeds))) > 1:
        return {"seed": seeds}
    return {}


def _rank_report(
    rank: int,
    length: int,
    flat: NDArray[np.int64],
    batches: int | None,
    first: int,
    dataset_size: int | None,
    labels: NDArray[np.int64] | None,
    num_classes: int | None,
    previous: NDArray[np.int64] | None,
    quality: tuple[int, int] = (64, 256),
) -> RankReport:
    unique = int(np.unique(flat).size)
    counts = None
    if labels is not None and num_classes is not None:
        if flat.size and (flat.min() < 0 or flat.max() >= labels.size):
            bad = int(flat.max()) if flat.max() >= labels.size else int(flat.min())
            raise ConfigError(
                f"rank {rank} yielded index {bad} but labels cover indices 0..{labels.size - 1}; "
                "give one label per dataset sample"
            )
        counts = np.bincount(labels[flat], minlength=num_classes).tolist()
    coverage = None if not dataset_size else unique / dataset_size
    return RankReport(
        rank,
        int(length),
        int(flat.size),
        batches,
        unique,
        int(flat.size) - unique,
        flat[:first].tolist(),
        coverage,
        counts,
        _order_change(previous, flat),
        None if labels is None else batch_entropy(flat, labels, quality[0]),
        adjacent_correlation(flat),
        block_spread(flat, quality[1]),
    )


def _epoch_report(
    epoch: int,
    dataset_size: int | None,
    ranks: list[RankReport],
    shares: list[NDArray[np.int64]],
    declared: Declared,
) -> EpochReport:
    merged = np.concatenate([np.unique(s) for s in shares]) if shares else np.empty(0, np.int64)
    distinct, owners = np.unique(merged, return_counts=True)
    missing = None
    if dataset_size is not None:
        inside = distinct[(distinct >= 0) & (distinct < dataset_size)]
        missing = dataset_size - int(inside.size)
    return EpochReport(
        epoch=epoch,
        dataset_size=dataset_size,
        ranks=ranks,
        covered=int(distinct.size),
        missing=missing,
        overlap=int((owners > 1).sum()),
        total_yielded=sum(r.yielded for r in ranks),
        overlap_matrix=overlap_matrix(shares).tolist(),
        declared=declared,
    )
