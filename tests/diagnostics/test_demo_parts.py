"""The demo's pure parts: the split, the coverage check, method parsing, the CLI guards."""

from __future__ import annotations

import importlib.util
import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import DistributedSampler, Partition
from fairshard._cli.main import main
from fairshard._diagnostics.coverage import CoverageSegment as Segment
from fairshard._diagnostics.coverage import check_coverage, exactly_once
from fairshard_demo.data import load_long_tailed_digits, long_tailed_counts, make_split
from fairshard_demo.methods import parse_methods, unavailable


def test_long_tailed_counts_decay_about_fifty_to_one() -> None:
    counts = long_tailed_counts(144, 50.0)
    assert counts[0] == 144 and counts[-1] == 3
    assert all(a >= b for a, b in itertools.pairwise(counts))
    with pytest.raises(ValueError, match=r"imbalance=0\.5"):
        long_tailed_counts(10, 0.5)


def test_split_is_deterministic_long_tailed_and_balanced_in_test() -> None:
    a, b = load_long_tailed_digits(seed=3), load_long_tailed_digits(seed=3)
    assert np.array_equal(a.train_x, b.train_x) and np.array_equal(a.train_y, b.train_y)
    assert a.class_counts()[0] / a.class_counts()[-1] >= 40
    assert np.bincount(a.test_y).tolist() == [30] * 10
    other = load_long_tailed_digits(seed=4)
    assert not np.array_equal(a.train_y, other.train_y)
    assert a.train_x.min() >= 0 and a.train_x.max() <= 1


def test_split_rejects_a_test_size_the_data_cannot_give() -> None:
    x, y = np.zeros((20, 64)), np.repeat(np.arange(10), 2)
    with pytest.raises(ValueError, match="test_per_class=5"):
        make_split(x, y, test_per_class=5)


def _observe(sampler_of: Any, world: int, epoch: int, steps: int | None = None) -> list[list[int]]:
    out = []
    for rank in range(world):
        s = sampler_of(rank, world)
        s.set_epoch(epoch)
        items = list(s)
        out.append(items if steps is None else items[:steps])
    return out


@given(
    n=st.integers(1, 300),
    world=st.integers(1, 5),
    new_world=st.integers(1, 5),
    frac=st.floats(0.0, 1.0),
    epoch=st.integers(0, 3),
)
def test_elastic_resume_segments_cover_the_epoch(
    n: int, world: int, new_world: int, frac: float, epoch: int
) -> None:
    def make(rank: int, w: int) -> DistributedSampler:
        return DistributedSampler(n, w, rank, seed=11)

    full = make(0, world)
    part = full.partition(epoch)
    steps = min(int(frac * part.max_items), part.max_items - 1)  # a complete state starts over
    before = _observe(make, world, epoch, steps)
    state = make(0, world)
    state.set_epoch(epoch)
    it = iter(state)
    for _ in range(steps):
        next(it)
    saved = state.state_dict()
    after = []
    resumed_part = None
    begin = 0
    for rank in range(new_world):
        s = make(rank, new_world)
        s.load_state_dict(saved)
        resumed_part = s.partition(epoch)
        begin = resumed_part.num_items(rank) - s.remaining  # len() is the whole epoch's
        after.append(list(s))
    assert resumed_part is not None
    plan = full.plan(epoch)
    verdict = check_coverage(
        plan, [Segment(part, before), Segment(resumed_part, after, begin=begin)], n
    )
    assert verdict["ok"], verdict
    assert verdict["positions_missing"] == 0
    assert exactly_once(verdict)


def test_coverage_flags_a_rank_off_the_plan_and_a_lost_sample() -> None:
    n, world = 20, 4
    observed = _observe(lambda r, w: DistributedSampler(n, w, r, seed=1), world, 0)
    plan = DistributedSampler(n, world, 0, seed=1).plan(0)
    part = Partition(n, world)
    assert check_coverage(plan, [Segment(part, observed)], n)["ok"]
    swapped = [observed[1], observed[0], *observed[2:]]
    verdict = check_coverage(plan, [Segment(part, swapped)], n)
    assert not verdict["ok"] and verdict["ranks_off_plan"] == [0, 1]
    short = [o[:-1] if r == 2 else o for r, o in enumerate(observed)]
    verdict = check_coverage(plan, [Segment(part, short)], n)
    assert not verdict["ok"]
    assert verdict["positions_missing"] == 1 and not verdict["equal_steps"]
    assert not exactly_once(verdict)


def test_parse_methods_names_the_problem() -> None:
    assert parse_methods("plain") == ["plain"]
    with pytest.raises(ValueError, match="unknown method 'fast'"):
        parse_methods("plain,fast")
    with pytest.raises(ValueError, match="at least one"):
        parse_methods(" , ")
    with pytest.raises(ValueError, match="twice"):
        parse_methods("plain,plain")
    assert unavailable("balanced") is None  # every method's sampler is exported


def test_demo_without_the_extra_names_the_pip_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    real = importlib.util.find_spec

    def fake(name: str, *args: Any) -> Any:
        return None if name == "sklearn" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    assert main(["demo", "--output", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "scikit-learn" in err and "pip install 'fairshard[demo]'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ranks", "0"], "--ranks must be >= 1, got --ranks 0"),
        (["--epochs", "0"], "--epochs must be >= 1"),
        (["--methods", "plain,nope"], "unknown method 'nope'"),
    ],
)
def test_demo_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    assert main(["demo", "--output", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err
