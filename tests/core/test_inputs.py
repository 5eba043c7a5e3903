"""One reader for array-like inputs and one label validator (issue 12 seams, issue 14 item 12).

The class of defect: an input accepted by one family and refused, wrapped or
coerced by another. Each case runs through every family that reads that kind
of input, so a family that stops using the shared reader fails here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import fairshard as fs
from fairshard import ConfigError, ConfigTypeError
from fairshard._core.inputs import dataset_length, to_numpy
from tests.catalog import input_readers

ONE = {"num_replicas": 1, "rank": 0}

#: Every reader of one input: the catalog's families whose first parameter takes it
#: (tests/catalog.py), plus ``split``'s stratification labels.
LABEL_FAMILIES: dict[str, Callable[[Any], object]] = {
    **input_readers("labels"),
    "split(stratify=)": lambda labels: fs.split(len(labels), [0.5, 0.5], stratify=labels),
}
LENGTH_FAMILIES: dict[str, Callable[[Any], object]] = input_readers("lengths")
WEIGHT_FAMILIES: dict[str, Callable[[Any], object]] = input_readers("weights")


@pytest.mark.parametrize("family", LABEL_FAMILIES)
@pytest.mark.parametrize(
    ("labels", "error", "match"),
    [
        ([0, "a", 1, 1], ConfigTypeError, r"all ints or all strings, got \w+\[1\]='a'"),
        ([2**70, 0, 1, 1], ConfigError, r"\[0\]=1180591620717411303424 does not fit in int64"),
        (
            np.array([2**64 - 1, 0, 1, 1], dtype=np.uint64),
            ConfigError,
            r"\[0\]=18446744073709551615 does not fit in int64",
        ),
        ([None, None, None, None], ConfigTypeError, r"all ints or all strings.*None"),
        ([b"x", b"y", b"x", b"y"], ConfigTypeError, r"got bytes.*decode"),
        ([0.5, 1.5, 0.5, 1.5], ConfigTypeError, "all ints or all strings"),
    ],
)
def test_every_label_reader_refuses_the_same_inputs(
    family: str, labels: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        LABEL_FAMILIES[family](labels)


@pytest.mark.parametrize("family", LABEL_FAMILIES)
def test_every_label_reader_accepts_the_same_inputs(family: str) -> None:
    for labels in (
        [3, 1, 3, 1],
        ["b", "a", "b", "a"],
        np.array([3, 1, 3, 1], dtype=np.uint8),
        torch.tensor([3, 1, 3, 1]),
        np.array([2**63 - 1, 0, 2**63 - 1, 0], dtype=np.uint64),
    ):
        LABEL_FAMILIES[family](labels)


def _dtype_cases() -> list[Any]:
    cases = []
    for name in (*LENGTH_FAMILIES, *WEIGHT_FAMILIES):
        for dtype in (torch.bfloat16, torch.float16, torch.float32, torch.int32):
            cases.append(pytest.param(name, dtype, id=f"{name}-{dtype}"))
    return cases


@pytest.mark.parametrize(("family", "dtype"), _dtype_cases())
def test_tensors_of_any_dtype_work_as_lengths_and_weights(family: str, dtype: torch.dtype) -> None:
    values = torch.tensor([3, 5, 7, 2, 9, 4], dtype=dtype)
    sampler = {**LENGTH_FAMILIES, **WEIGHT_FAMILIES}[family](values)
    assert len(list(sampler)) == len(sampler)  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [*LENGTH_FAMILIES.values(), *WEIGHT_FAMILIES.values()])
def test_a_zero_d_tensor_is_refused_with_the_fix(make: Callable[[Any], object]) -> None:
    with pytest.raises(ConfigError, match=r"0-d tensor \(5\.0\); pass a 1-D tensor"):
        make(torch.tensor(5.0))


@pytest.mark.parametrize(
    "make",
    [
        lambda d: fs.DistributedSampler(d, **ONE),
        lambda d: fs.DistributedEvalSampler(d, **ONE),
    ],
)
def test_a_zero_d_tensor_dataset_is_refused_with_the_fix(make: Callable[[Any], object]) -> None:
    with pytest.raises(ConfigTypeError, match=r"dataset is a 0-d tensor \(5\).*int\(t\)"):
        make(torch.tensor(5))


def test_to_numpy_leaves_non_tensors_alone_and_reads_tensors_on_the_cpu() -> None:
    marker = [1, 2]
    assert to_numpy(marker, "x") is marker
    out = to_numpy(torch.tensor([1.5, 2.5], dtype=torch.bfloat16), "x")
    assert out.dtype == np.float64 and out.tolist() == [1.5, 2.5]
    assert to_numpy(torch.tensor([1, 2], dtype=torch.int16), "x").dtype == np.int16
    assert dataset_length(7) == 7 and dataset_length(np.int64(3)) == 3


def test_batch_shard_sampler_refuses_wrapping_and_ragged_batches() -> None:
    with pytest.raises(ConfigError, match=r"index 9223372036854775813 .* would wrap"):
        list(fs.BatchShardSampler([np.array([2**63 + 5, 1], dtype=np.uint64)], **ONE))
    with pytest.raises(ConfigTypeError, match=r"\[2, \[3, 4\]\] as batch 1"):
        list(fs.BatchShardSampler([[0, 1], [2, [3, 4]]], **ONE))


def test_one_reader_for_tensors_in_the_package() -> None:
    # The tensor sniffers that used to be copied across modules stay merged.
    from pathlib import Path

    src = Path(fs.__file__).parent
    offenders = [
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if "hasattr(" in p.read_text() and '"detach")' in p.read_text()
    ]
    assert not offenders, f"read tensors with fairshard._core.inputs.to_numpy in {offenders}"


def test_packing_refuses_fractional_lengths_naming_the_first() -> None:
    with pytest.raises(ConfigError, match=r"lengths\[2\]=2.5"):
        fs.PackingBatchSampler([3.0, 4.0, 2.5], 8, 1, num_replicas=1, rank=0)
