"""Exact classification metrics from per-rank counts, without gathering outputs.

Each rank adds its predictions to an integer confusion matrix while it
evaluates; ``compute()`` sums the matrices over the ranks once, after the
loop. Integer sums do not depend on the order they are added in, so the
accuracy, per-class recall and precision, balanced accuracy and confusion
matrix equal a single process's values exactly -- provided every sample is
counted once. Given the sampler, ``ExactMetrics`` skips the padding
duplicates a padded sampler (``tail="pad"``, PyTorch's ``drop_last=False``)
adds at the end of some ranks' shares, and checks that every rank counted its
whole share.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from numpy.typing import NDArray

from .._distributed.groups import group_of, resolve_group
from .._distributed.world import (
    _collective_device,
    all_gather_objects,
    complete,
    process_group_active,
    retain,
    talks_to_group,
)
from .._errors import ConfigError, ConfigTypeError, RankMismatchError, check_int, check_real
from .shares import ShareMap, describe

__all__ = ["ClassificationMetrics", "ExactMetrics"]


class ClassificationMetrics:
    """Metrics of one evaluation, all derived from an integer confusion matrix.

    Args:
        confusion: (num_classes, num_classes) int64 counts; row = target
            class, column = predicted class (scikit-learn's convention).

    Example:
        >>> m = ClassificationMetrics.from_labels([0, 1, 1, 2], [0, 1, 2, 2], num_classes=3)
        >>> m.accuracy, m.recall.tolist(), m.balanced_accuracy
        (0.75, [1.0, 1.0, 0.5], 0.8333333333333334)
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, confusion: NDArray[np.int64]) -> None:
        self.confusion: NDArray[np.int64] = np.asarray(confusion, dtype=np.int64)

    @classmethod
    def from_labels(cls, preds: Any, targets: Any, num_classes: int) -> ClassificationMetrics:
        """The single-process reference: metrics of predicted and true class labels."""
        metrics = ExactMetrics(num_classes)
        metrics.update(
            torch.as_tensor(np.asarray(preds, dtype=np.int64)),
            torch.as_tensor(np.asarray(targets, dtype=np.int64)),
        )
        return metrics.compute(sync=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassificationMetrics):
            return NotImplemented
        return bool(np.array_equal(self.confusion, other.confusion))

    def __repr__(self) -> str:
        return (
            f"ClassificationMetrics(num_samples={self.num_samples}, "
            f"accuracy={self.accuracy!r}, balanced_accuracy={self.balanced_accuracy!r})"
        )

    @property
    def num_samples(self) -> int:
        """Samples counted."""
        return int(self.confusion.sum())

    @property
    def correct(self) -> int:
        """Samples predicted correctly."""
        return int(np.trace(self.confusion))

    @property
    def support(self) -> NDArray[np.int64]:
        """(num_classes,) samples of each true class."""
        result: NDArray[np.int64] = self.confusion.sum(axis=1)
        return result

    @property
    def accuracy(self) -> float:
        """Fraction predicted correctly (NaN when nothing was counted)."""
        total = self.num_samples
        return self.correct / total if total else float("nan")

    @property
    def recall(self) -> NDArray[np.float64]:
        """(num_classes,) recall per true class; NaN for a class with no samples."""
        with np.errstate(invalid="ignore", divide="ignore"):
            result: NDArray[np.float64] = np.diag(self.confusion) / self.support
        return result

    @property
    def precision(self) -> NDArray[np.float64]:
        """(num_classes,) precision per predicted class; NaN for a class never predicted."""
        with np.errstate(invalid="ignore", divide="ignore"):
            result: NDArray[np.float64] = np.diag(self.confusion) / self.confusion.sum(axis=0)
        return result

    @property
    def balanced_accuracy(self) -> float:
        """Mean recall over the classes present (scikit-learn's definition)."""
        recall = self.recall[self.support > 0]
        return float(np.mean(recall)) if recall.size else float("nan")


def _labels(values: Any, name: str) -> torch.Tensor:
    tensor = torch.from_numpy(np.asarray(values)) if isinstance(values, np.ndarray) else values
    if not isinstance(tensor, torch.Tensor):
        raise ConfigTypeError(
            f"{name} must be a torch.Tensor or numpy array, got {type(values).__name__}"
        )
    return tensor.detach()


class ExactMetrics:
    """Accumulate a confusion matrix per rank; sum it over ranks once, exactly.

    Call ``update`` for every batch of the evaluation loop and ``compute`` on
    every rank after it (its collectives come after the loop, so ranks with
    different numbers of batches cannot deadlock).

    Args:
        num_classes: Number of classes ``K``; labels are ``0 .. K-1``.
        sampler: The evaluation sampler (fairshard, or PyTorch's
            ``DistributedSampler``). When given, padding duplicates are not
            counted and ``compute`` checks that every rank counted its whole
            share. Build the metrics after ``set_epoch`` (or ``reset()`` them).
            ``None`` counts everything passed to ``update``.
        group: The data-parallel group to sum over (``ProcessGroup`` or
            ``DeviceMesh``); default: the group the sampler was built with,
            else the default group.

    Raises:
        ConfigError: the sampler drops samples (``tail="drop"``), so no rank
            would count them.
    """

    def __init__(self, num_classes: int, sampler: Any = None, *, group: Any = None) -> None:
        self.num_classes = check_int("num_classes", num_classes, minimum=1)
        self.sampler = sampler
        self._group = group_of(sampler) if group is None else resolve_group(group).pg
        self.reset()

    def reset(self) -> None:
        """Forget all counts (and re-read the sampler's current epoch)."""
        self._shares: ShareMap | None = None
        if self.sampler is not None:
            self._shares = describe(self.sampler)
            self._shares.check_complete("ExactMetrics")
        self._counts: torch.Tensor | None = None
        self.seen = 0  # samples passed to update on this rank, padding included

    def update(self, preds: Any, targets: Any, indices: Any = None) -> None:
        """Count one batch.

        Args:
            preds: (B,) predicted class labels, or (B, K) scores (argmax is taken).
            targets: (B,) true class labels.
            indices: Optional (B,) dataset indices of the batch; checked against
                the sampler's order, to catch a loader that does not use it.

        Raises:
            ConfigError: shapes disagree, a label is outside ``[0, K)``, more
                samples arrive than the rank's share has, or ``indices``
                differ from the sampler's order.
        """
        k = self.num_classes
        pred = _labels(preds, "preds")
        raw_target = _labels(targets, "targets")
        if raw_target.is_floating_point() or raw_target.dtype == torch.bool:
            raise ConfigTypeError(
                f"targets must hold integer class labels, got dtype {raw_target.dtype}; "
                "pass class indices (e.g. targets.long() if they are whole numbers)"
            )
        target = raw_target.reshape(-1).long()
        if pred.dim() == 2 and pred.shape[1] == k:
            pred = pred.argmax(dim=1)
        elif pred.dim() != 1 or pred.is_floating_point():
            raise ConfigError(
                f"preds must be (B,) integer labels or (B, {k}) scores, got shape "
                f"{tuple(pred.shape)} of dtype {pred.dtype}"
            )
        pred = pred.long().to(target.device)
        if pred.shape[0] != target.shape[0]:
            raise ConfigError(
                f"preds has {pred.shape[0]} samples but targets has {target.shape[0]}"
            )
        count = int(target.shape[0])
        keep = self._keep(count, indices)
        pred, target = pred[:keep], target[:keep]
        bad = (target < 0) | (target >= k) | (pred < 0) | (pred >= k)
        if bool(bad.any()):
            where = int(bad.nonzero()[0, 0])
            raise ConfigError(
                f"labels must be in [0, {k}) for num_classes={k}, got target="
                f"{int(target[where])}, pred={int(pred[where])} at sample {self.seen + where}"
            )
        binned = torch.bincount(target * k + pred, minlength=k * k)
        self._counts = (
            binned if self._counts is None else self._counts + binned.to(self._counts.device)
        )
        self.seen += count

    def _keep(self, count: int, indices: Any) -> int:
        """How many leading samples of the next ``count`` are real (not padding)."""
        shares = self._shares
        if shares is None:
            if indices is not None:
                raise ConfigError("indices can only be checked against a sampler; pass sampler=")
            return count
        rank, begin = shares.rank, self.seen
        size = shares.size(rank)
        if begin + count > size:
            raise ConfigError(
                f"update received {begin + count} samples in total but rank {rank}'s share "
                f"has {size}; call reset() before evaluating again"
            )
        if indices is not None:
            given = np.asarray(_labels(indices, "indices").cpu(), dtype=np.int64).reshape(-1)
            expected = shares.indices(rank, begin, begin + count)
            if given.shape != expected.shape or not np.array_equal(given, expected):
                j = int(np.argmax(given != expected)) if given.shape == expected.shape else 0
                raise ConfigError(
                    f"indices differ from the sampler's order at sample {begin + j} of rank "
                    f"{rank}: got {given[j : j + 3].tolist()}, expected "
                    f"{expected[j : j + 3].tolist()}; the DataLoader must use this sampler "
                    "(sampler=..., shuffle=False) and every batch must be counted, in order"
                )
        return max(0, min(count, shares.num_real(rank) - begin))

    def compute(self, sync: bool = True, *, timeout: float | None = None) -> ClassificationMetrics:
        """The metrics of everything counted, summed over all ranks when ``sync``.

        Args:
            sync: Sum over the ranks of the process group (every rank must
                call it); ``False`` returns this rank's counts alone.
            timeout: Seconds to wait for the other ranks; ``None`` uses the
                process group's timeout.

        Raises:
            ConfigError: a rank did not count its whole share (every rank raises).
            RankMismatchError: ranks disagree on ``num_classes`` or the sampler,
                or a peer did not arrive within ``timeout``.
        """
        if timeout is not None:
            check_real("timeout", timeout, minimum=0.0, strict_minimum=True)
        k = self.num_classes
        counts = self._counts if self._counts is not None else torch.zeros(k * k, dtype=torch.int64)
        shares = self._shares
        size = None if shares is None else shares.size(shares.rank)
        identity = None if shares is None else shares.identity
        # A sampler of one process or of another world never syncs (world.talks_to_group).
        group = self._group
        talks = process_group_active() and (
            shares is None or talks_to_group(shares.world_size, group)
        )
        if sync and talks:
            rank = dist.get_rank(group)
            reports = all_gather_objects(
                (k, self.seen, size, identity, rank), timeout=timeout, group=group
            )
            _check_reports(reports)
            counts = _all_reduce(counts, timeout, group)
        else:
            if sync and shares is not None and shares.world_size > 1:
                raise ConfigError(
                    f"compute(sync=True) needs a process group of the sampler's "
                    f"num_replicas={shares.world_size} ranks; call init_process_group first "
                    "(or build the sampler for the group), or compute(sync=False) for this "
                    "rank's counts alone"
                )
            _check_reports([(k, self.seen, size, identity, 0 if shares is None else shares.rank)])
        return ClassificationMetrics(counts.cpu().numpy().reshape(k, k))


def _check_reports(reports: list[tuple[Any, ...]]) -> None:
    """Raise the same error on every rank if the ranks' counts cannot be combined."""
    for field, name in ((0, "num_classes"), (3, "sampler (kind, config, seed, epoch)")):
        values = [rep[field] for rep in reports]
        if len(set(values)) > 1:
            other = next(r for r, v in enumerate(values) if v != values[0])
            raise RankMismatchError(
                f"ranks disagree on {name}: rank 0 has {values[0]!r}, rank {other} has "
                f"{values[other]!r}; build ExactMetrics identically on every rank"
            )
    short = [
        (r, seen, size) for _, seen, size, _, r in reports if size is not None and seen != size
    ]
    if short:
        detail = ", ".join(f"rank {r} counted {seen} of {size}" for r, seen, size in short)
        raise ConfigError(
            f"ExactMetrics did not see every sample of the share: {detail}; call update for "
            "every batch of the sampler's pass (including the padded end) before compute()"
        )


def _all_reduce(counts: torch.Tensor, timeout: float | None, group: Any = None) -> torch.Tensor:
    device = _collective_device(dist.get_backend(group))
    total = counts.to(device, copy=True)
    work = dist.all_reduce(total, op=dist.ReduceOp.SUM, group=group, async_op=True)
    retain(total)
    complete(work, timeout, "ExactMetrics.compute's all_reduce")
    return total
