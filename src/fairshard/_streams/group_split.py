"""Group-aware parts: no group (patient, speaker, document) on two sides.

The pure core under ``split(..., groups=...)`` and ``kfold(..., groups=...)``:
it maps each group to a part, and the caller turns that into index arrays.

NOTE (order): groups are coded by ``encode_labels`` (sorted distinct values,
so the codes do not depend on the order the items come in) and put in a
random order by the library's ``KeyedPermutation`` keyed by the
``StreamId.GROUP_SPLIT`` stream -- fairshard's own integer arithmetic, as for
``split``. ``kfold`` then stable-sorts that order by descending group size
(largest first, as scikit-learn's ``GroupKFold`` and bin packing do: the big
groups are placed while every fold still has room); ``split`` keeps the
random order, so that the biggest group is not always in the biggest part.

NOTE (unstratified split: midpoints). Groups laid end to end in their random
order cover ``[0, n)``; part ``i`` owns ``[B_i, B_{i+1})`` where the ``B`` are
the cumulative part sizes, and a group goes to the part that owns its
midpoint. Each part is then within half a group of its size at each of its
two ends, and a group's chance of landing in a part is about that part's
share. Vectorized: O(n) for any number of groups.

NOTE (stratified, and k-fold: a greedy chi-square). Groups are placed one by
one, in the order above, into the part that least increases
``sum_{i,c} (O_ic - E_ic)**2 / E_ic`` -- the chi-square distance of the
(part, class) count table from its target ``E_ic = s_i * N_c / n`` (part size
``s_i``, class size ``N_c``; one class when there are no labels, which makes
k-fold "the fold furthest below its size"). The increase of part ``i`` for a
group with ``a_c`` items of class ``c`` is
``sum_c a_c * (2 * (n * O_ic - s_i * N_c) + n * a_c) / (s_i * N_c)``, compared
exactly in Python integers (cross-multiplied), never in floats: the parts
cannot move with the platform's rounding. Ties go to the part with the
smaller fill ``O_i / s_i``, then to the lower index. For k-fold the first
``n_splits`` groups (the largest) go one to each fold first, so no fold is
left empty. This is the objective of
scikit-learn's ``StratifiedGroupKFold`` (which takes the mean over classes of
the standard deviation of the folds' class shares, in floats) put in exact
arithmetic; tests/streams/test_group_split.py compares the two side by side.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.labels import encode_labels
from .._errors import ConfigError
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words

__all__ = [
    "encode_groups",
    "group_order",
    "greedy_parts",
    "group_table",
    "midpoint_parts",
    "parts_of_groups",
]


def encode_groups(groups: Any, n: int) -> NDArray[np.int64]:
    """``(n,)`` int64 group code of each item (codes follow the sorted group values).

    Raises:
        ConfigError: groups of another length than the data, or not 1-D.
        ConfigTypeError: groups that are not ints or strings.
    """
    _, codes = encode_labels(groups, "groups")
    if len(codes) != n:
        raise ConfigError(
            f"groups must hold one group id per item (shape ({n},)), got shape ({len(codes)},); "
            "pass the group ids (patient, speaker, document) of the same dataset"
        )
    return codes.astype(np.int64, copy=False)


def group_order(sizes: NDArray[np.int64], seed: int, *, largest_first: bool) -> NDArray[np.int64]:
    """The order groups are placed in: keyed-random, then (optionally) largest first.

    Args:
        sizes: ``(G,)`` items per group.
        seed: Normalized root seed.
        largest_first: Stable-sort the random order by descending size.

    Returns:
        ``(G,)`` group codes in placement order.
    """
    num = len(sizes)
    keys = stream_words(StreamId.GROUP_SPLIT, 0, seed, ROUNDS)
    order = KeyedPermutation(num, keys).take(np.arange(num, dtype=np.int64))
    if largest_first:
        order = order[np.argsort(-sizes[order], kind="stable")]
    return order.astype(np.int64, copy=False)


def group_table(codes: NDArray[np.int64], classes: NDArray[np.int64] | None) -> NDArray[np.int64]:
    """``(G, C)`` items of each class in each group (``C = 1`` without classes)."""
    num_groups = int(codes.max()) + 1
    if classes is None:
        return np.bincount(codes, minlength=num_groups).astype(np.int64).reshape(-1, 1)
    num_classes = int(classes.max()) + 1
    flat = np.bincount(codes * num_classes + classes, minlength=num_groups * num_classes)
    return flat.astype(np.int64).reshape(num_groups, num_classes)


def midpoint_parts(
    sizes: NDArray[np.int64], order: NDArray[np.int64], counts: list[int]
) -> NDArray[np.int64]:
    """``(G,)`` part of each group: the part that owns the group's midpoint.

    Args:
        sizes: ``(G,)`` items per group.
        order: ``(G,)`` group codes in layout order.
        counts: Target part sizes (summing to ``n``).

    Returns:
        ``(G,)`` part index of each group code.
    """
    laid = sizes[order]  # (G,) sizes in layout order
    twice_mid = 2 * np.cumsum(laid) - laid  # (G,) 2 * midpoint, exact in integers
    twice_bounds = 2 * np.cumsum(np.asarray(counts, dtype=np.int64))  # (parts,) 2 * B_{i+1}
    part_in_order = np.searchsorted(twice_bounds, twice_mid, side="right")
    out = np.empty(len(sizes), dtype=np.int64)
    out[order] = np.minimum(part_in_order, len(counts) - 1)
    return out


def greedy_parts(
    table: NDArray[np.int64],
    order: NDArray[np.int64],
    counts: list[int],
    *,
    one_each_first: bool = False,
) -> NDArray[np.int64]:
    """``(G,)`` part of each group by the exact greedy chi-square rule (module NOTE).

    Args:
        table: ``(G, C)`` items of each class in each group.
        order: ``(G,)`` group codes in placement order.
        counts: Target part sizes ``s_i`` (summing to ``n``); a part of size 0
            is never given a group.
        one_each_first: The first groups in ``order`` go one to each part of
            positive size, in part order, before the rule applies (so no
            fold is left empty when there are at least as many groups).

    Returns:
        ``(G,)`` part index of each group code.
    """
    n = int(table.sum())
    class_sizes = [int(v) for v in table.sum(axis=0)]  # N_c
    parts = [i for i, s in enumerate(counts) if s > 0]
    observed = [[0] * len(class_sizes) for _ in counts]  # O_ic
    filled = [0] * len(counts)  # O_i
    out = np.empty(len(table), dtype=np.int64)
    for step, g in enumerate(order.tolist()):
        row = table[g]
        present = [(c, int(row[c])) for c in np.flatnonzero(row).tolist()]
        common = math.lcm(*(class_sizes[c] for c, _ in present))
        best = parts[step] if one_each_first and step < len(parts) else -1
        best_x = best_s = 0
        for i in parts if best < 0 else ():
            s = counts[i]
            obs = observed[i]
            # x / (s * common) is the increase of the chi-square distance for part i
            x = sum(
                a * (2 * (n * obs[c] - s * class_sizes[c]) + n * a) * (common // class_sizes[c])
                for c, a in present
            )
            if best < 0:
                best, best_x, best_s = i, x, s
                continue
            lhs, rhs = x * best_s, best_x * s  # compare x/s with best_x/best_s
            if lhs < rhs or (lhs == rhs and filled[i] * best_s < filled[best] * s):
                best, best_x, best_s = i, x, s
        for c, a in present:
            observed[best][c] += a
        filled[best] += int(row.sum())
        out[g] = best
    return out


def parts_of_groups(
    codes: NDArray[np.int64], part_of_group: NDArray[np.int64], num_parts: int
) -> tuple[NDArray[np.int64], ...]:
    """One sorted int64 index array per part, from each item's group's part."""
    part_of_item = part_of_group[codes]  # (n,)
    by_part = np.argsort(part_of_item, kind="stable").astype(np.int64)  # ascending within a part
    ends = np.cumsum(np.bincount(part_of_item, minlength=num_parts))
    return tuple(np.split(by_part, ends[:-1]))
