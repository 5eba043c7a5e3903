"""``fairshard demo`` end to end: real torchrun launches, then the JSON summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairshard._cli.main import main

pytestmark = [pytest.mark.distributed, pytest.mark.timeout(400)]


def _demo(tmp_path: Path, *argv: str) -> dict[str, Any]:
    out = tmp_path / "demo"
    code = main(["demo", "--ranks", "2", "--output", str(out), "--quiet", *argv])
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    assert code == (0 if summary["ok"] else 1)
    for name in summary["plots"]:
        assert (out / name).stat().st_size > 1000
    return summary


def test_plain_covers_every_sample_exactly_once_every_epoch_and_resumes_on_fewer_ranks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = _demo(tmp_path, "--epochs", "3", "--methods", "plain")
    assert summary["ok"]
    plain = summary["methods"]["plain"]
    assert plain["exactly_once_every_epoch"] and plain["coverage_ok_every_epoch"]
    n = sum(summary["config"]["train_class_counts"])
    assert len(plain["epochs"]) == 3
    for epoch in plain["epochs"]:
        cov = epoch["coverage"]
        assert cov["ok"] and cov["ranks_off_plan"] == [] and cov["equal_steps"]
        assert cov["positions_missing"] == 0 and cov["distinct_indices"] == n
        assert cov["positions_repeated"] == cov["declared_padding"] == (-n) % 2
    assert len(plain["class_mix"]["last"]) == 2
    assert sum(map(sum, plain["class_mix"]["last"])) == n + (-n) % 2
    assert 0.0 <= plain["balanced_accuracy"] <= 1.0
    resume = summary["resume"]["plain"]
    assert resume["ok"] and resume["same_samples_as_uninterrupted"]
    assert (resume["saved_world_size"], resume["world_size"]) == (2, 1)
    assert resume["steps_before"] > 0 and resume["coverage"]["positions_missing"] == 0
    assert "all checks passed" in capsys.readouterr().out


SEEDS = (0, 1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_balanced_sampling_beats_plain_on_the_long_tail(tmp_path: Path, seed: int) -> None:
    summary = _demo(
        tmp_path, "--epochs", "12", "--seed", str(seed), "--methods", "plain,balanced,hard"
    )
    assert summary["ok"], json.dumps(summary["resume"], indent=1)
    methods = summary["methods"]
    assert set(methods) == {"plain", "balanced", "hard"}
    for m in methods.values():
        assert m["coverage_ok_every_epoch"]
    assert methods["balanced"]["balanced_accuracy"] > methods["plain"]["balanced_accuracy"]
    assert set(summary["resume"]) == {"plain", "balanced", "hard"}
    assert all(r["ok"] for r in summary["resume"].values())
