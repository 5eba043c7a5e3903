"""Per-sample losses of ``HardExampleSampler``: checks, score updates, sampling weights.

Pure functions over numpy arrays: ``as_indices``/``as_losses`` check what
``record``/``set_losses`` are given, ``apply_records`` folds records into the
scores (``s_i = loss`` the first time, then ``s_i = m * s_i + (1 - m) * loss``,
in canonical order: sorted by index, stably) and ``replace_scores`` sets
scores to the mean of whole-epoch losses; ``encode_scores``/``decode_scores``
keep scores in a state (base64 of little-endian float64, NaN = unseen).
``hard_weights`` turns the scores into sampling weights.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from .._core import state as S
from .._errors import ConfigError, ConfigTypeError, StateDictError

__all__ = [
    "Losses",
    "apply_records",
    "as_indices",
    "as_losses",
    "check_losses",
    "decode_scores",
    "encode_scores",
    "joined",
    "replace_scores",
]

#: ``(indices, losses)`` of some steps: (r,) int64 and (r,) float64.
Losses = tuple[NDArray[np.int64], NDArray[np.float64]]

#: Fewest samples in a level of records that ``apply_records`` applies as one numpy step.
_VECTOR_MIN = 32


def _as_1d(values: Any, name: str) -> NDArray[Any]:
    """``values`` (tensor, array, list or scalar) as a 1-D numpy array, dtype kept."""
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu()
        if values.is_floating_point() and values.dtype not in (torch.float32, torch.float64):
            values = values.double()  # numpy has no bfloat16
        values = values.numpy()
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ConfigTypeError(f"{name} must be a 1-D sequence of numbers: {exc}") from None
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise ConfigError(f"{name} must be 1-D, got shape {tuple(array.shape)}")
    return array


def as_indices(values: Any) -> NDArray[np.int64]:
    """Integer dataset indices: floats, bools, strings and objects are rejected."""
    array = _as_1d(values, "indices")
    if array.size and array.dtype.kind not in "iu":
        raise ConfigTypeError(
            f"indices must be integers, got dtype {array.dtype} (first: {array[0]!r}); pass "
            "the int dataset indices of the step (an int tensor or list of int)"
        )
    return array


def as_losses(values: Any) -> NDArray[np.float64]:
    """Real-valued losses as float64: bools, complex, strings and objects are rejected."""
    array = _as_1d(values, "losses")
    if array.size and array.dtype.kind not in "iuf":
        raise ConfigTypeError(
            f"losses must be real numbers, got dtype {array.dtype} (first: {array[0]!r}); pass "
            "the unreduced per-sample losses (reduction='none')"
        )
    return array.astype(np.float64)


def check_losses(caller: str, indices: Any, losses: Any, n: int, *, nonnegative: bool) -> Losses:
    """``(indices, losses)`` of ``record``/``set_losses`` as arrays, after checking them.

    Raises:
        ConfigTypeError: indices that are not integers, or losses that are
            not real numbers (the message names the dtype).
        ConfigError: lengths differ, an index is outside ``[0, n)``, a loss is
            NaN or infinite, or negative when ``nonnegative`` (the message
            names the first such position, its sample and value).
    """
    idx = as_indices(indices)
    loss = as_losses(losses)
    if idx.shape != loss.shape:
        raise ConfigError(
            f"{caller} got {idx.size} indices but {loss.size} losses; pass one loss per "
            "sample (use reduction='none')"
        )
    bad = np.flatnonzero((idx < 0) | (idx >= n))
    if bad.size:
        raise ConfigError(
            f"indices[{bad[0]}]={idx[bad[0]]} is outside [0, {n}); {caller} dataset "
            "indices (wrap the dataset in fairshard.IndexedDataset)"
        )
    bad = np.flatnonzero(~np.isfinite(loss))
    if bad.size:
        raise ConfigError(
            f"losses[{bad[0]}]={float(loss[bad[0]])!r} (sample {idx[bad[0]]}) is not finite; "
            "skip such steps or clip the loss"
        )
    if nonnegative:
        bad = np.flatnonzero(loss < 0)
        if bad.size:
            raise ConfigError(
                f"losses[{bad[0]}]={float(loss[bad[0]])!r} (sample {idx[bad[0]]}) is "
                "negative; weighting='proportional' draws in proportion to the loss, so "
                "losses must be >= 0 (use weighting='softmax' for signed scores)"
            )
    return idx.astype(np.int64), loss


def joined(parts: list[Losses]) -> Losses:
    """The ``(indices, losses)`` pairs of ``parts`` concatenated, in order."""
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def apply_records(
    scores: NDArray[np.float64],
    idx: NDArray[np.int64],
    loss: NDArray[np.float64],
    momentum: float,
) -> NDArray[np.float64]:
    """New (n,) scores: a copy of ``scores`` with the records applied in canonical order.

    NOTE (cost): the EMA is a sequential recurrence per sample, and every
    step must round exactly as ``m * s + (1 - m) * loss`` so that all
    ranks (and all versions) agree bit for bit. Records are grouped by
    *level* (the j-th record of each sample); a level is one vectorized
    step over the samples recorded at least ``j + 1`` times. Once fewer
    than ``_VECTOR_MIN`` samples remain, their remaining records run as a
    plain float loop per sample (the same IEEE operations). Total cost:
    O(records log records) plus O(records / _VECTOR_MIN) numpy calls.
    """
    scores = scores.copy()
    order = np.argsort(idx, kind="stable")
    idx, loss = idx[order], loss[order]  # (r,) canonical order
    first = np.ones(idx.size, dtype=bool)
    first[1:] = idx[1:] != idx[:-1]
    starts = np.flatnonzero(first)  # (u,) first record of each sample
    counts = np.diff(np.append(starts, idx.size))  # (u,) records per sample
    occurrence = np.arange(idx.size) - np.repeat(starts, counts)  # (r,) level of each record
    by_level = np.argsort(occurrence, kind="stable")  # (r,) level-major order
    level_idx, level_loss = idx[by_level], loss[by_level]
    per_level = np.bincount(occurrence)  # (levels,) samples active at each level
    bounds = np.concatenate(([0], np.cumsum(per_level)))
    m = momentum
    level = 0
    while level < per_level.size and per_level[level] >= _VECTOR_MIN:
        lo, hi = int(bounds[level]), int(bounds[level + 1])
        i, value = level_idx[lo:hi], level_loss[lo:hi]
        current = scores[i]
        scores[i] = np.where(np.isnan(current), value, m * current + (1 - m) * value)
        level += 1
    for at in np.flatnonzero(counts > level).tolist():  # the few long runs left
        start, count = int(starts[at]), int(counts[at])
        sample = int(idx[start])
        score = float(scores[sample])
        for later in loss[start + level : start + count].tolist():
            score = later if score != score else m * score + (1 - m) * later
        scores[sample] = score
    return scores


def replace_scores(
    scores: NDArray[np.float64], idx: NDArray[np.int64], loss: NDArray[np.float64]
) -> NDArray[np.float64]:
    """New (n,) scores: each sample in ``idx`` scores the mean of its losses in ``loss``.

    Samples not in ``idx`` keep their score. The sums run in canonical order
    (sorted by index, stably), so every rank holding the same gathered
    arrays gets bit-identical scores.
    """
    scores = scores.copy()
    order = np.argsort(idx, kind="stable")
    idx, loss = idx[order], loss[order]  # (r,) canonical order
    samples, starts, counts = np.unique(idx, return_index=True, return_counts=True)
    with np.errstate(over="ignore"):
        sums = np.add.reduceat(loss, starts) if idx.size else np.empty(0)  # (u,)
        means = sums / counts
    overflow = ~np.isfinite(means)  # sums near the float64 limit: divide first
    if overflow.any():
        for at in np.flatnonzero(overflow).tolist():
            part = loss[starts[at] : starts[at] + counts[at]]
            means[at] = float(np.sum(part / counts[at]))
    scores[samples] = means
    return scores


def encode_scores(scores: NDArray[np.float64]) -> str:
    """``scores`` as base64 of little-endian float64 (NaN = unseen), for a state."""
    raw = np.ascontiguousarray(scores, dtype="<f8").tobytes()
    return base64.b64encode(raw).decode("ascii")


def decode_scores(extra: dict[str, Any], n: int, kind: str) -> NDArray[np.float64]:
    """The (n,) scores of ``state_dict['extra']``, checked.

    Raises:
        StateDictError: unknown entries, data that is not base64 float64, or
            a number of scores other than ``n``.
    """
    unknown = sorted(set(extra) - {"scores"})
    if unknown:
        raise StateDictError(
            f"state_dict['extra'] has entries {unknown} a {kind} never saves; pass "
            "the dict returned by sampler.state_dict() unchanged"
        )
    encoded = S.field(extra, "scores")
    try:
        scores = np.frombuffer(base64.b64decode(encoded, validate=True), dtype="<f8")
    except (TypeError, ValueError):
        raise StateDictError(
            "state_dict['extra']['scores'] is not base64 float64 data; pass the dict "
            "returned by sampler.state_dict() unchanged"
        ) from None
    if scores.shape[0] != n:
        raise StateDictError(
            f"state_dict holds {scores.shape[0]} scores but the sampler has "
            f"len(dataset)={n}; resume with the same dataset"
        )
    return scores.astype(np.float64)
