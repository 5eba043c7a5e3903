"""Group-aware splits and k-fold: no group on two sides, stratified by label, pinned.

``split(..., groups=)`` and ``kfold``: partition and leak-freedom properties,
size and stratification bounds, side by side with scikit-learn's
``GroupKFold`` / ``StratifiedGroupKFold`` / ``KFold``, golden values
(``tests/golden/group_split.json``, regenerate on purpose with
``python -m tests.streams.test_group_split``) and errors that name the parameter.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import ConfigError, ConfigTypeError, DegenerateConfigWarning, kfold, split

GOLDEN = Path(__file__).parents[1] / "golden" / "group_split.json"


def check_partition(parts: tuple[np.ndarray, ...], n: int) -> None:
    for p in parts:
        assert p.dtype == np.int64 and np.all(np.diff(p) > 0)  # sorted, no duplicates
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(n))


def check_no_leak(parts: tuple[np.ndarray, ...], groups: np.ndarray) -> None:
    seen: dict[Any, int] = {}
    for i, p in enumerate(parts):
        for g in np.unique(groups[p]).tolist():
            assert seen.setdefault(g, i) == i, f"group {g} in parts {seen[g]} and {i}"


def check_folds(folds: tuple[tuple[np.ndarray, np.ndarray], ...], n: int) -> None:
    check_partition(tuple(test for _, test in folds), n)
    for train, test in folds:
        assert train.dtype == np.int64 and np.all(np.diff(train) > 0)
        assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == n


grouped = st.integers(1, 300).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.integers(0, 40), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )
)
fractions = (
    st.lists(st.integers(0, 9), min_size=1, max_size=4)
    .filter(any)
    .map(lambda w: [x / sum(w) for x in w])
)


@given(data=grouped, sizes=fractions, seed=st.integers(-(2**63), 2**64 - 1))
def test_group_split_partitions_without_leaks_within_one_group_of_each_size(
    data: tuple[int, list[int], list[int]], sizes: list[float], seed: int
) -> None:
    n, groups, _ = data
    g = np.asarray(groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)  # empty parts are legal
        parts = split(n, sizes, seed=seed, groups=g)
    check_partition(parts, n)
    check_no_leak(parts, g)
    largest = int(np.bincount(g).max())
    for p, f in zip(parts, sizes, strict=True):
        assert abs(len(p) - n * f) <= largest  # half a group at each end, at most


@given(data=grouped, sizes=fractions, seed=st.integers(0, 50))
def test_stratified_group_split_partitions_without_leaks(
    data: tuple[int, list[int], list[int]], sizes: list[float], seed: int
) -> None:
    n, groups, labels = data
    g = np.asarray(groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        parts = split(n, sizes, seed=seed, groups=g, stratify=labels)
    check_partition(parts, n)
    check_no_leak(parts, g)


@given(data=grouped, k=st.integers(2, 6), seed=st.integers(0, 50), stratified=st.booleans())
def test_group_kfold_partitions_without_leaks_and_no_empty_fold(
    data: tuple[int, list[int], list[int]], k: int, seed: int, stratified: bool
) -> None:
    n, groups, labels = data
    g = np.asarray(groups)
    if len(np.unique(g)) < k:
        with pytest.raises(ConfigError, match=r"n_splits must be at most the number of groups"):
            kfold(n, k, seed=seed, groups=g)
        return
    folds = kfold(n, k, seed=seed, groups=g, stratify=labels if stratified else None)
    check_folds(folds, n)
    check_no_leak(tuple(test for _, test in folds), g)
    assert all(len(test) > 0 for _, test in folds)
    if not stratified:  # largest first into the emptiest fold: spread within one group
        sizes = [len(test) for _, test in folds]
        assert max(sizes) - min(sizes) <= int(np.bincount(g).max()) + 1


@given(
    labels=st.lists(st.integers(0, 4), min_size=2, max_size=200),
    k=st.integers(2, 5),
    seed=st.integers(0, 50),
)
def test_kfold_without_groups_is_exact_per_class_and_per_fold(
    labels: list[int], k: int, seed: int
) -> None:
    n = len(labels)
    if k > n:
        return
    lab = np.asarray(labels)
    folds = kfold(n, k, seed=seed, stratify=lab)
    check_folds(folds, n)
    assert [len(t) for _, t in folds] == [n // k + (i < n % k) for i in range(k)]
    for c in np.unique(lab):
        n_c = int((lab == c).sum())
        for _, test in folds:
            assert abs(int((lab[test] == c).sum()) - n_c * len(test) / n) < 1


@settings(max_examples=30)
@given(data=grouped, seed=st.integers(0, 20), perm_seed=st.integers(0, 20))
def test_parts_follow_group_ids_not_item_order(
    data: tuple[int, list[int], list[int]], seed: int, perm_seed: int
) -> None:
    """Shuffling the items moves no group: the plan is a function of the group ids."""
    n, groups, _ = data
    g = np.asarray(groups)
    perm = np.random.default_rng(perm_seed).permutation(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        a = split(n, [0.5, 0.5], seed=seed, groups=g)
        b = split(n, [0.5, 0.5], seed=seed, groups=g[perm])
    assert [set(g[p].tolist()) for p in a] == [set(g[perm][p].tolist()) for p in b]


def _class_share_spread(tests: list[np.ndarray], y: np.ndarray) -> float:
    """StratifiedGroupKFold's objective: mean over classes of the std of fold shares."""
    counts = np.array([np.bincount(y[t], minlength=y.max() + 1) for t in tests])
    return float((counts / np.bincount(y)).std(axis=0).mean())


def _dataset(trial: int, n: int = 2000, num_groups: int = 150) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(trial)
    g = rng.zipf(1.6, n) % num_groups  # long-tailed group sizes, like patients or speakers
    y = (rng.random(n) < np.where(g % 3 == 0, 0.7, 0.15)).astype(np.int64)  # label tied to group
    return g, y


def test_side_by_side_with_sklearn_stratified_group_kfold() -> None:
    """Both leak no group; ours stratifies as well or better and balances fold sizes better."""
    model_selection = pytest.importorskip("sklearn.model_selection")
    ours_spread, theirs_spread, ours_sizes, theirs_sizes = [], [], [], []
    for trial in range(6):
        g, y = _dataset(trial)
        ours = [t for _, t in kfold(len(g), 5, seed=trial, groups=g, stratify=y)]
        sgkf = model_selection.StratifiedGroupKFold(5, shuffle=True, random_state=trial)
        theirs = [t for _, t in sgkf.split(np.zeros(len(g)), y, g)]
        check_no_leak(tuple(ours), g)
        check_no_leak(tuple(np.asarray(t) for t in theirs), g)
        ours_spread.append(_class_share_spread(ours, y))
        theirs_spread.append(_class_share_spread(theirs, y))
        ours_sizes.append(np.ptp([len(t) for t in ours]))
        theirs_sizes.append(np.ptp([len(t) for t in theirs]))
    assert np.mean(ours_spread) <= np.mean(theirs_spread) * 1.05, (ours_spread, theirs_spread)
    assert np.mean(ours_sizes) <= np.mean(theirs_sizes), (ours_sizes, theirs_sizes)


def test_side_by_side_with_sklearn_group_kfold_and_kfold() -> None:
    model_selection = pytest.importorskip("sklearn.model_selection")
    for trial in range(4):
        g, y = _dataset(trial)
        n = len(g)
        ours = [len(t) for _, t in kfold(n, 5, seed=trial, groups=g)]
        theirs = [len(t) for _, t in model_selection.GroupKFold(5).split(np.zeros(n), y, g)]
        assert np.ptp(ours) <= max(np.ptp(theirs), 1)  # GroupKFold's balance, or better
        # Without groups: scikit-learn's fold sizes exactly (the first n % k one larger).
        plain = [len(t) for _, t in kfold(n + trial, 7, seed=trial)]
        sk = [len(t) for _, t in model_selection.KFold(7).split(np.zeros(n + trial))]
        assert plain == sk


def test_kfold_without_groups_is_split_into_equal_parts() -> None:
    labels = [i % 3 for i in range(100)]
    tests = [t for _, t in kfold(100, 4, seed=9, stratify=labels)]
    parts = split(100, [25, 25, 25, 25], seed=9, stratify=labels)
    assert all(np.array_equal(a, b) for a, b in zip(tests, parts, strict=True))


def test_depends_on_seed_and_string_groups_work() -> None:
    g = np.asarray([f"patient-{i % 37}" for i in range(500)])
    a = split(500, [0.8, 0.2], seed=0, groups=g)
    b = split(500, [0.8, 0.2], seed=1, groups=g)
    assert not np.array_equal(a[1], b[1])
    check_no_leak(a, g)
    folds_a = kfold(500, 5, seed=0, groups=[i % 37 for i in range(500)])
    folds_b = kfold(500, 5, seed=3, groups=[i % 37 for i in range(500)])
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(folds_a, folds_b, strict=True))


def _golden_cases() -> list[dict[str, Any]]:
    g1 = [(7 * i) % 53 for i in range(1000)]
    y1 = [(i // 3) % 4 for i in range(1000)]
    g2 = [f"doc{(i * i) % 211}" for i in range(5000)]
    y2 = [("pos" if (i % 7) < 2 else "neg") for i in range(5000)]
    return [
        {"fn": "split", "n": 1000, "sizes": [0.7, 0.15, 0.15], "seed": 1, "groups": g1},
        {"fn": "split", "n": 1000, "sizes": [0.8, 0.2], "seed": 2, "groups": g1, "stratify": y1},
        {"fn": "split", "n": 5000, "sizes": [0.9, 0.1], "seed": 12345, "groups": g2},
        {"fn": "kfold", "n": 1000, "n_splits": 5, "seed": 0, "groups": g1},
        {"fn": "kfold", "n": 1000, "n_splits": 4, "seed": 3, "groups": g1, "stratify": y1},
        {"fn": "kfold", "n": 5000, "n_splits": 5, "seed": 7, "groups": g2, "stratify": y2},
        {"fn": "kfold", "n": 1000, "n_splits": 3, "seed": 5, "stratify": y1},
    ]


def _run(case: dict[str, Any]) -> list[np.ndarray]:
    groups, stratify = case.get("groups"), case.get("stratify")
    if case["fn"] == "split":
        return list(
            split(case["n"], case["sizes"], seed=case["seed"], groups=groups, stratify=stratify)
        )
    folds = kfold(case["n"], case["n_splits"], seed=case["seed"], groups=groups, stratify=stratify)
    return [test for _, test in folds]


def _digest(parts: list[np.ndarray]) -> dict[str, Any]:
    return {
        "part_sizes": [len(p) for p in parts],
        "heads": [p[:8].tolist() for p in parts],
        "sha256": [hashlib.sha256(p.astype("<i8").tobytes()).hexdigest() for p in parts],
    }


def test_golden_values() -> None:
    pinned = json.loads(GOLDEN.read_text())["cases"]
    cases = _golden_cases()
    assert len(pinned) == len(cases) == 7
    for case, want in zip(cases, pinned, strict=True):
        assert _digest(_run(case)) == want, case["fn"]


def test_bad_inputs_name_the_parameter() -> None:
    with pytest.raises(
        ConfigError, match=r"groups must hold one group id per item \(shape \(10,\)\)"
    ):
        split(10, [0.5, 0.5], groups=[0, 1, 2])
    with pytest.raises(ConfigError, match=r"groups must hold one group id per item"):
        kfold(10, 2, groups=[0, 1])
    with pytest.raises(ConfigTypeError, match="groups"):
        split(4, [0.5, 0.5], groups=[0.5, 1.5, 2.5, 3.5])
    with pytest.raises(ConfigError, match=r"stratify must hold one label per item"):
        split(4, [0.5, 0.5], groups=[0, 0, 1, 1], stratify=[0, 1])
    with pytest.raises(
        ConfigError,
        match=r"n_splits must be at most the number of groups, got "
        r"n_splits=3 for 2 distinct groups",
    ):
        kfold(6, 3, groups=[0, 0, 0, 1, 1, 1])
    with pytest.raises(
        ConfigError,
        match=r"n_splits must be at most the number of items, got "
        r"n_splits=6 for n=5",
    ):
        kfold(5, 6)
    with pytest.raises(ConfigError, match=r"n_splits.*>= 2.*n_splits=1"):
        kfold(5, 1)
    with pytest.raises(ConfigTypeError, match=r"n_splits"):
        kfold(5, 2.0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="empty dataset"):
        kfold(0, 2)
    with pytest.warns(DegenerateConfigWarning, match=r"part [01] got no group"):
        split(10, [0.5, 0.5], groups=[7] * 10)  # one group cannot fill two parts


if __name__ == "__main__":  # regenerate the golden file (an order change: on purpose only)
    about = (
        "fairshard.split(groups=) and fairshard.kfold test folds for fixed configs: first "
        "indices and a SHA-256 of each part (int64 little-endian). A change here breaks "
        "reproducibility across versions."
    )
    out = {"about": about, "cases": [_digest(_run(c)) for c in _golden_cases()]}
    GOLDEN.write_text(json.dumps(out, indent=1) + "\n")
    sys.stdout.write(f"wrote {GOLDEN}\n")
