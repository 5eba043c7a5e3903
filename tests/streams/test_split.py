from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import ConfigError, ConfigTypeError, DegenerateConfigWarning, split
from fairshard._streams.split import apportion

GOLDEN = Path(__file__).parents[1] / "golden" / "split.json"
ROOT = Path(__file__).parents[2]


def check_partition(parts: tuple[np.ndarray, ...], n: int) -> None:
    for p in parts:
        assert p.dtype == np.int64 and np.all(np.diff(p) > 0)  # sorted, no duplicates
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(n))


fractions = (
    st.lists(st.integers(0, 20), min_size=1, max_size=5)
    .filter(any)
    .map(lambda w: [x / sum(w) for x in w])
)


@given(n=st.integers(1, 300), sizes=fractions, seed=st.integers(-(2**63), 2**64 - 1))
def test_parts_are_disjoint_covering_and_largest_remainder(
    n: int, sizes: list[float], seed: int
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)  # empty parts are legal
        parts = split(n, sizes, seed=seed)
    check_partition(parts, n)
    for p, f in zip(parts, sizes, strict=True):
        assert abs(len(p) - n * f) < 1


@given(
    labels=st.lists(st.integers(0, 5), min_size=1, max_size=200),
    weights=st.lists(st.integers(1, 9), min_size=1, max_size=4),
    seed=st.integers(0, 50),
    as_counts=st.booleans(),
)
def test_stratified_within_one_sample_per_class_per_part(
    labels: list[int], weights: list[int], seed: int, as_counts: bool
) -> None:
    n = len(labels)
    sizes: list[float] | list[int] = [w / sum(weights) for w in weights]
    if as_counts:
        sizes = apportion(n, sizes)
    lab = np.asarray(labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)  # empty parts are legal
        parts = split(n, sizes, seed=seed, stratify=lab)
    check_partition(parts, n)
    assert [len(p) for p in parts] == apportion(n, sizes)
    for k in np.unique(lab):
        n_k = int((lab == k).sum())
        for p in parts:
            assert abs(int((lab[p] == k).sum()) - n_k * len(p) / n) < 1


def test_apportion_rule() -> None:
    assert apportion(10, [0.8, 0.1, 0.1]) == [8, 1, 1]
    assert apportion(10, [1 / 3] * 3) == [4, 3, 3]  # ties go to the lower part
    assert apportion(7, [0.5, 0.5]) == [4, 3]
    assert apportion(100, [0.1] * 10) == [10] * 10  # sums to 0.999... within 1e-9
    assert apportion(5, [5, 0]) == [5, 0]


def test_golden_values() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) == 5
    for case in cases:
        parts = split(case["n"], case["sizes"], seed=case["seed"], stratify=case.get("stratify"))
        assert [len(p) for p in parts] == case["part_sizes"]
        assert [p[:12].tolist() for p in parts] == case["heads"]
        assert [hashlib.sha256(p.astype("<i8").tobytes()).hexdigest() for p in parts] == case[
            "sha256"
        ]


CHILD = """
import json, random, sys
import numpy as np, torch
random.seed(99); np.random.seed(99); torch.manual_seed(99)
np.random.permutation(10); random.random(); torch.rand(3)
from fairshard import split
labels = [f"class{i % 4}" for i in range(300)]
out = [p.tolist() for p in split(300, [0.5, 0.3, 0.2], seed=11)]
out += [p.tolist() for p in split(300, [100, 200], seed=11, stratify=labels)]
json.dump(out, sys.stdout)
"""


def test_same_split_in_another_process_with_other_hash_and_global_seeds() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    theirs = json.loads(result.stdout)
    np.random.seed(1)
    labels = [f"class{i % 4}" for i in range(300)]
    ours = [p.tolist() for p in split(300, [0.5, 0.3, 0.2], seed=11)]
    ours += [p.tolist() for p in split(300, [100, 200], seed=11, stratify=labels)]
    assert theirs == ours


def test_depends_on_seed_and_accepts_datasets() -> None:
    a = split(100, [0.5, 0.5], seed=0)
    b = split(100, [0.5, 0.5], seed=1)
    assert not np.array_equal(a[0], b[0])
    c = split(list(range(100)), [0.5, 0.5], seed=0)
    assert all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    check_partition(split(1, [1.0]), 1)


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ConfigError, match=r"fractions must sum to 1.*sum\(sizes\)=0.9"):
        split(10, [0.5, 0.4])
    with pytest.raises(ConfigError, match=r"non-negative, got sizes\[1\]=-0.2"):
        split(10, [1.2, -0.2])
    with pytest.raises(ConfigError, match=r"non-negative, got sizes\[0\]=-1"):
        split(10, [-1, 11])
    with pytest.raises(ConfigError, match=r"integer sizes must sum to n=10, got sum\(sizes\)=9"):
        split(10, [5, 4])
    with pytest.raises(ConfigError, match=r"one label per item \(shape \(10,\)\), got shape"):
        split(10, [0.5, 0.5], stratify=[0, 1, 0])
    with pytest.raises(ConfigError, match="empty dataset"):
        split(0, [0.5, 0.5])
    with pytest.raises(ConfigError, match="empty dataset"):
        split([], [1.0])
    with pytest.raises(ConfigError, match="at least one part"):
        split(10, [])
    with pytest.raises(ConfigTypeError, match=r"sizes\[0\] must be a number"):
        split(10, ["a"])
    with pytest.raises(ConfigTypeError, match="int or a sized dataset"):
        split(object(), [1.0])
    with pytest.raises(ConfigError, match="non-negative"):
        split(10, [float("nan"), 1.0])
    with pytest.warns(DegenerateConfigWarning, match="part 1 is empty"):
        split(10, [0.99, 0.01])
