"""``kfold``: reproducible k-fold cross-validation folds, by group and by label.

One function for scikit-learn's four splitters -- ``KFold(shuffle=True)``,
``StratifiedKFold``, ``GroupKFold`` and ``StratifiedGroupKFold`` -- as a pure
function of ``(n, n_splits, seed, stratify, groups)``, pinned across versions
like ``split`` (``tests/golden/group_split.json``; a change is an order change under
docs/compatibility.md).

NOTE (without groups): the test folds are ``split(n, counts, seed=seed,
stratify=stratify)`` with ``counts`` the equal division of ``n`` (the first
``n % n_splits`` folds one larger, as scikit-learn's ``KFold``): every fold
within one item of ``n / n_splits``, and every class within one item of its
share in each fold.

NOTE (with groups): whole groups are placed largest first (ties in a keyed
random order), each into the fold that least increases the exact chi-square
distance of the (fold, class) table from its target (``group_split.py``):
the objective of ``StratifiedGroupKFold``, in integers. The first
``n_splits`` groups seed one fold each, so no fold is empty. Without ``stratify``
all items are one class, and the rule reduces to "the fold furthest below its
size", scikit-learn's ``GroupKFold``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, check_int
from .._random.seeding import normalize_seed
from .group_split import encode_groups, greedy_parts, group_order, group_table, parts_of_groups
from .split import class_codes, dataset_size, split

__all__ = ["kfold"]


def kfold(
    n_or_dataset: Any,
    n_splits: int,
    *,
    seed: int = 0,
    stratify: Any = None,
    groups: Any = None,
) -> tuple[tuple[NDArray[np.int64], NDArray[np.int64]], ...]:
    """Split ``range(n)`` into ``n_splits`` folds; return each fold's (train, test).

    Args:
        n_or_dataset: The number of items, or a sized dataset (its ``len()``).
        n_splits: Number of folds, ``>= 2`` and at most the number of items
            (of groups, with ``groups``).
        seed: The folds' seed (any int; a negative one is taken modulo 2**64).
        stratify: Optional labels, one per item: every class is shared out
            evenly over the folds (within one item without groups, as close
            as whole groups allow with them).
        groups: Optional group ids (ints or strings), one per item: a group's
            items are all in one fold, so a group is never in a fold's train
            and test at once.

    Returns:
        ``n_splits`` pairs ``(train, test)`` of sorted int64 index arrays;
        the tests are a partition of ``range(n)`` and each train is the rest.

    Raises:
        ConfigError: empty data, ``n_splits`` out of range, or labels or
            groups of the wrong length.
        ConfigTypeError: wrong types.

    Example:
        >>> folds = kfold(10, 5, seed=0, groups=[0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
        >>> [len(test) for _, test in folds]
        [2, 2, 2, 2, 2]
        >>> train, test = folds[0]
        >>> sorted(train.tolist() + test.tolist()) == list(range(10))
        True
    """
    n = dataset_size(n_or_dataset)
    k = check_int("n_splits", n_splits, minimum=2)
    root = normalize_seed(seed)
    if groups is None:
        if k > n:
            raise ConfigError(
                f"n_splits must be at most the number of items, got n_splits={k} for n={n}; "
                "use fewer folds"
            )
        counts = [n // k + (1 if i < n % k else 0) for i in range(k)]
        tests = split(n, counts, seed=root, stratify=stratify)
        return _pairs(tests, n)
    codes = encode_groups(groups, n)
    classes = None if stratify is None else class_codes(stratify, n)
    table = group_table(codes, classes)
    if k > len(table):
        raise ConfigError(
            f"n_splits must be at most the number of groups, got n_splits={k} for "
            f"{len(table)} distinct groups; use fewer folds, or finer groups"
        )
    counts = [n // k + (1 if i < n % k else 0) for i in range(k)]
    order = group_order(table.sum(axis=1), root, largest_first=True)
    part_of_group = greedy_parts(table, order, counts, one_each_first=True)
    return _pairs(parts_of_groups(codes, part_of_group, k), n)


def _pairs(
    tests: tuple[NDArray[np.int64], ...], n: int
) -> tuple[tuple[NDArray[np.int64], NDArray[np.int64]], ...]:
    out = []
    for test in tests:
        keep = np.ones(n, dtype=bool)
        keep[test] = False
        out.append((np.flatnonzero(keep).astype(np.int64), test))
    return tuple(out)
