"""``split``: reproducible train/validation/test index splits.

The parts are a pure function of ``(n, sizes, seed, labels)``: no global RNG,
no hash seeds, no dependence on the process, rank, machine or Python version.

NOTE (algorithm): indices are shuffled with the library's
``KeyedPermutation`` keyed by the ``StreamId.SPLIT`` stream (sub-stream 0
unstratified; ``1 + k`` for the ``k``-th class in sorted label order) --
fairshard's own integer arithmetic, so numpy's choice of shuffling algorithm
cannot move a split. Part ``i`` takes the next ``sizes[i]`` shuffled indices;
each part is returned sorted ascending (its contents are the random choice,
its order is for a sampler to decide). ``tests/golden/split.json`` pins the
output; changing it is an order change under docs/compatibility.md.

NOTE (fractions to counts): largest remainder (Hamilton). Part ``i``'s quota
is ``n * f_i / sum(f)`` in exact rational arithmetic (the floats are taken at
their exact binary values); every part gets the floor of its quota and the
leftover units go to the largest fractional remainders, ties to the lower
part index. Each part is within one of its quota.

NOTE (stratified): once the part sizes ``s_i`` are fixed, class ``c`` (with
``n_c`` members) has the quota ``n_c * s_i / n`` in part ``i``. Each cell gets
the floor of its quota or one more, chosen so that every class is shared out
completely and every part has exactly ``s_i`` members: largest remainders
first, then augmenting paths where the greedy choice leaves a part short (the
fractional quotas prove a solution exists; the paths find one). So every class
is in every part within one sample of its proportion.

NOTE (groups): with ``groups``, whole groups are placed (``group_split.py``
says how): the unstratified rule lays the groups end to end in a keyed random
order and cuts at the part sizes by midpoints; with ``stratify`` a greedy
exact chi-square rule places them. ``tests/golden/group_split.json`` pins it.
"""

from __future__ import annotations

import numbers
from collections import deque
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.labels import encode_labels
from .._errors import ConfigError, ConfigTypeError, DegenerateConfigWarning, check_int, warn
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, normalize_seed, stream_words
from .group_split import (
    encode_groups,
    greedy_parts,
    group_order,
    group_table,
    midpoint_parts,
    parts_of_groups,
)

__all__ = ["apportion", "class_codes", "dataset_size", "split"]

_TOLERANCE = Fraction(1, 10**9)


def _largest_remainder(quotas: Sequence[Fraction], units: int) -> list[int]:
    floors = [q.numerator // q.denominator for q in quotas]
    left = units - sum(floors)
    order = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return floors


def apportion(n: int, sizes: Sequence[Any]) -> list[int]:
    """Turn ``sizes`` (fractions summing to 1, or ints summing to ``n``) into counts.

    Args:
        n: Number of items, ``>= 1``.
        sizes: Non-negative fractions summing to 1 (within 1e-9), or
            non-negative ints summing to ``n``. All-int sizes are counts.

    Returns:
        One count per part, summing to ``n`` (largest remainder rule).

    Raises:
        ConfigError: negative sizes, a wrong sum, or no parts.
        ConfigTypeError: a size is not a number.

    Example:
        >>> apportion(10, [0.8, 0.1, 0.1])
        [8, 1, 1]
        >>> apportion(10, [1/3, 1/3, 1/3])
        [4, 3, 3]
        >>> apportion(10, [7, 3])
        [7, 3]
    """
    if isinstance(sizes, str | bytes) or not isinstance(sizes, Sequence | np.ndarray):
        raise ConfigTypeError(
            f"sizes must be a list of fractions or of counts, got {type(sizes).__name__}"
        )
    values = list(sizes)
    if not values:
        raise ConfigError("sizes must name at least one part, got sizes=[]")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ConfigTypeError(
                f"sizes[{i}] must be a number, got {v!r} of type {type(v).__name__}"
            )
        if not np.isfinite(float(v)) or v < 0:
            raise ConfigError(
                f"sizes must be non-negative, got sizes[{i}]={v!r}; give fractions in [0, 1] "
                "or counts >= 0"
            )
    if all(isinstance(v, numbers.Integral) for v in values):
        counts = [int(v) for v in values]
        if sum(counts) != n:
            raise ConfigError(
                f"integer sizes must sum to n={n}, got sum(sizes)={sum(counts)} for "
                f"sizes={counts}; pass counts that add up to n, or fractions that add up to 1"
            )
        return counts
    exact = [Fraction(float(v)) for v in values]
    total = sum(exact, Fraction(0))
    if abs(total - 1) > _TOLERANCE:
        raise ConfigError(
            f"fractions must sum to 1 (within 1e-9), got sum(sizes)={float(total)!r} for "
            f"sizes={values}; rescale them, or pass integer counts"
        )
    return _largest_remainder([f * n / total for f in exact], n)


def _permuted(indices: NDArray[np.int64], seed: int, sub_id: int) -> NDArray[np.int64]:
    keys = stream_words(StreamId.SPLIT, 0, seed, ROUNDS, sub_id=sub_id)
    perm = KeyedPermutation(len(indices), keys)
    return indices[perm.take(np.arange(len(indices), dtype=np.int64))]


def _augment(
    cells: NDArray[np.int64],
    floors: NDArray[np.int64],
    open_: NDArray[np.bool_],
    short: list[int],
    extra: list[int],
) -> bool:
    """Move +1s along one alternating path from a part with too many to one short.

    ``cells``, ``floors``, ``open_``: (classes, parts). A class "has a +1" in a
    part when its cell exceeds the floor; it may take one where ``open_``
    (quota not an integer) and it has none yet. Returns False if no path.
    """
    parts = cells.shape[1]
    start = [p for p in range(parts) if extra[p] > 0]
    parent: dict[int, tuple[int, int] | None] = {p: None for p in start}
    queue = deque(start)
    while queue:
        p = queue.popleft()
        for c in np.flatnonzero(cells[:, p] > floors[:, p]).tolist():
            free = open_[c] & (cells[c] == floors[c])  # (parts,) where class c may take a +1
            for q in np.flatnonzero(free).tolist():
                if q in parent:
                    continue
                parent[q] = (p, c)
                if short[q] > 0:
                    step = parent[q]
                    while step is not None:
                        p0, c0 = step
                        cells[c0, p0] -= 1
                        cells[c0, q] += 1
                        q, step = p0, parent[p0]
                    return True
                queue.append(q)
    return False


def _stratified_counts(class_sizes: list[int], part_sizes: list[int]) -> NDArray[np.int64]:
    """Per-class counts of each part, shape (classes, parts).

    Rows sum to the class sizes, columns to the part sizes, and each cell is
    the floor or the ceiling of ``n_c * s_i / n``.
    """
    n = sum(class_sizes)
    sizes = np.asarray(part_sizes, dtype=object)
    numer = np.outer(np.asarray(class_sizes, dtype=object), sizes)  # exact ints: n_c * s_i
    floors = (numer // n).astype(np.int64)
    rems = (numer % n).astype(object)  # remainder * n: compares like the fractional part
    open_ = (rems != 0).astype(bool)
    cells = floors.copy()
    for c in range(len(class_sizes)):  # each class: leftover units to its largest remainders
        left = class_sizes[c] - int(cells[c].sum())
        order = sorted(range(len(part_sizes)), key=lambda i: (-rems[c, i], i))
        cells[c, order[:left]] += 1
    while True:
        have = cells.sum(axis=0)
        short = [int(s - h) if s > h else 0 for s, h in zip(part_sizes, have, strict=True)]
        extra = [int(h - s) if h > s else 0 for s, h in zip(part_sizes, have, strict=True)]
        if not any(short):
            return np.asarray(cells, dtype=np.int64)
        if not _augment(cells, floors, open_, short, extra):  # pragma: no cover
            raise AssertionError("stratified rounding found no solution; please report")


def dataset_size(n_or_dataset: Any) -> int:
    """``n`` from an int or a sized dataset; an empty one is an error."""
    if isinstance(n_or_dataset, numbers.Integral) and not isinstance(n_or_dataset, bool):
        n = check_int("n", n_or_dataset, minimum=0)
    elif hasattr(n_or_dataset, "__len__"):
        n = len(n_or_dataset)
    else:
        raise ConfigTypeError(
            f"n_or_dataset must be an int or a sized dataset, got {type(n_or_dataset).__name__}"
        )
    if n == 0:
        raise ConfigError("cannot split an empty dataset (n=0); check the data path or filter")
    return n


def class_codes(stratify: Any, n: int) -> NDArray[np.int64]:
    _, inverse = encode_labels(stratify, "stratify")  # (n,) class code of each item
    if len(inverse) != n:
        raise ConfigError(
            f"stratify must hold one label per item (shape ({n},)), got shape "
            f"({len(inverse)},); pass the labels of the same dataset"
        )
    return inverse.astype(np.int64, copy=False)


def _group_split(
    n: int, counts: list[int], root: int, stratify: Any, groups: Any
) -> tuple[NDArray[np.int64], ...]:
    codes = encode_groups(groups, n)
    classes = None if stratify is None else class_codes(stratify, n)
    table = group_table(codes, classes)
    sizes = table.sum(axis=1)
    order = group_order(sizes, root, largest_first=False)
    if classes is None:
        part_of_group = midpoint_parts(sizes, order, counts)
    else:
        part_of_group = greedy_parts(table, order, counts)
    parts = parts_of_groups(codes, part_of_group, len(counts))
    for i, (p, c) in enumerate(zip(parts, counts, strict=True)):
        if c > 0 and len(p) == 0:
            warn(
                f"split: part {i} got no group (wanted {c} of n={n} items in {len(sizes)} "
                "groups); the groups are too few or too large for this part: enlarge it, "
                "or split without groups",
                DegenerateConfigWarning,
            )
    return parts


def split(
    n_or_dataset: Any,
    sizes: Sequence[Any],
    *,
    seed: int = 0,
    stratify: Any = None,
    groups: Any = None,
) -> tuple[NDArray[np.int64], ...]:
    """Split ``range(n)`` into disjoint, covering parts, reproducibly.

    Args:
        n_or_dataset: The number of items, or a sized dataset (its ``len()``).
        sizes: Fractions summing to 1 (within 1e-9), or ints summing to ``n``.
            Fractions become counts by the largest remainder rule.
        seed: The split's seed (any int; a negative one is taken modulo 2**64).
        stratify: Optional labels, one per item: every class is then shared
            out so that its count in each part is within one sample of
            ``n_c * size_i / n`` (without ``groups``), or as close as whole
            groups allow (with them).
        groups: Optional group ids (ints or strings), one per item: all the
            items of a group land in the same part (a patient, speaker or
            document is never on two sides). Part sizes are then met as
            closely as whole groups allow (docs/changes.md); with
            ``stratify`` too, groups are placed to keep every class's share
            of each part close to its share of the data.

    Returns:
        One int64 index array per part, each sorted ascending; together they
        are a partition of ``range(n)``.

    Raises:
        ConfigError: empty data, bad sizes, or labels or groups of the wrong length.
        ConfigTypeError: wrong types.

    Example:
        >>> import numpy as np
        >>> train, val = split(10, [0.8, 0.2], seed=0)
        >>> len(train), len(val), sorted(np.concatenate([train, val]).tolist()) == list(range(10))
        (8, 2, True)
    """
    n = dataset_size(n_or_dataset)
    root = normalize_seed(seed)
    counts = apportion(n, sizes)
    for i, c in enumerate(counts):
        if c == 0:
            warn(
                f"split: part {i} is empty (sizes={list(sizes)} of n={n}); enlarge it or drop it",
                DegenerateConfigWarning,
            )
    if groups is not None:
        return _group_split(n, counts, root, stratify, groups)
    if stratify is None:
        shuffled = _permuted(np.arange(n, dtype=np.int64), root, 0)
        bounds = np.cumsum([0, *counts])
        return tuple(np.sort(shuffled[bounds[i] : bounds[i + 1]]) for i in range(len(counts)))
    inverse = class_codes(stratify, n)
    by_class = np.argsort(inverse, kind="stable")  # (n,) indices grouped by class, ascending
    ends = np.cumsum(np.bincount(inverse))
    members = np.split(by_class, ends[:-1])
    cells = _stratified_counts([len(m) for m in members], counts)
    parts: list[list[NDArray[np.int64]]] = [[] for _ in counts]
    for k, m in enumerate(members):
        shuffled = _permuted(m.astype(np.int64), root, 1 + k)
        bounds = np.cumsum([0, *cells[k]])
        for i in range(len(counts)):
            parts[i].append(shuffled[bounds[i] : bounds[i + 1]])
    return tuple(np.sort(np.concatenate(p)).astype(np.int64, copy=False) for p in parts)
