"""``fairshard simulate --mesh``: each (dp, tp) rank's share, identical across tp."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fairshard._cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["simulate", "--quiet", "-n", "40", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def mesh_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out = run(capsys, "--json", *argv)
    return code, json.loads(out)


def test_dp2_tp2_shows_every_rank_identical_across_tp(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = mesh_json(capsys, "--mesh", "dp=2,tp=2", "--check")
    assert code == 0
    mesh = doc["mesh"]
    assert mesh["group_dims"] == ["dp"] and mesh["sampler_world"] == 2 and not mesh["problems"]
    ranks = mesh["ranks"]
    assert [r["coords"] for r in ranks] == [
        {"dp": 0, "tp": 0},
        {"dp": 0, "tp": 1},
        {"dp": 1, "tp": 0},
        {"dp": 1, "tp": 1},
    ]
    assert [r["sampler_rank"] for r in ranks] == [0, 0, 1, 1]
    assert ranks[0]["first"] == ranks[1]["first"] != ranks[2]["first"] == ranks[3]["first"]
    assert doc["epochs"][0]["overlap"] == 0 and doc["epochs"][0]["missing"] == 0


def test_three_dims_hsdp_times_tp(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--mesh", "dp_replicate=2,dp_shard=2,tp=2", "--check")
    assert code == 0, out
    assert "the sampler's world is (dp_replicate, dp_shard), 4 ranks" in out
    assert out.count("\n") > 8 and "identical within each model-parallel group" in out


def test_check_fails_for_a_global_world_sampler(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--mesh", "dp=2,tp=2", "--group", "world", "--check")
    assert code == 1
    assert "replicas differ: global ranks [0, 1] (dp=0)" in out and "group=" in out
    code, out = run(capsys, "--mesh", "dp=2,tp=2", "--group", "world")
    assert code == 0  # shown, but only --check turns problems into the exit code


def test_check_fails_when_the_group_misses_a_data_dim(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        capsys, "--mesh", "dp_replicate=2,dp_shard=2,tp=2", "--group", "dp_shard", "--check"
    )
    assert code == 1
    assert "misses data-parallel dims (dp_replicate)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mesh", "dp=2,tp"], "each dim is NAME=SIZE"),
        (["--mesh", "dp=2,dp=2"], "given twice"),
        (["--mesh", "dp=2,tp=2", "--group", "pp"], "not among the mesh dims"),
        (["--mesh", "dp=2,tp=2", "-w", "4"], "--world-size 4 conflicts with --mesh"),
        (["--group", "dp"], "--group needs --mesh"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out = run(capsys, *argv)
    assert code == 2 and message in out


def test_help_examples_do_what_they_say(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--mesh DIMS" in out and "--group DIMS" in out
    examples = [line.split("#") for line in out.splitlines() if "--mesh dp=2" in line]
    assert len(examples) == 2
    for command, comment in examples:
        argv = command.split()[2:]  # after "fairshard simulate"
        assert main(["simulate", "--quiet", *argv]) == (1 if "exit 1" in comment else 0)
