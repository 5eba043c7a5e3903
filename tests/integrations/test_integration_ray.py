"""Ray Train (``TorchTrainer``, 2 CPU workers): ``prepare_data_loader`` with every family.

Ray's own ``prepare_data_loader`` keeps fairshard's index samplers (they
are ``DistributedSampler`` subclasses) but replaces a fairshard batch
sampler by PyTorch's ``DistributedSampler`` with no batching: the first
batch then fails in ``collate``. ``fairshard.integrations.ray.prepare_data_loader``
(``add_dist_sampler=False``) keeps every family's shares, epoch by epoch.
One Ray job checks all of it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fairshard._batching.base import BatchPlanSampler
from tests.catalog import sampler_families

from .._launch import child_env, failure_text, run_job

#: Every sampler family whose items a DataLoader reads as they are (packed rows aside).
FAMILIES = {f.name: f.make for f in sampler_families() if f.items in ("index", "batch")}


pytest.importorskip(
    "ray.train.torch", reason="the [integrations] extra (ray[train]) is not installed"
)

SCRIPT = Path(__file__).parent / "scripts" / "ray_job.py"
ROOT = Path(__file__).parents[2]
N = 60


def _expected(name: str, rank: int, epoch: int) -> list[list[int]]:
    sampler = FAMILIES[name](N, rank, 2)
    sampler.set_epoch(epoch)
    items = list(sampler)
    if isinstance(sampler, BatchPlanSampler):
        return [list(b) for b in items]
    return [items[k : k + 4] for k in range(0, len(items), 4)]


@pytest.fixture(scope="module")
def ray_reports(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """One Ray job (about a minute here): every rank's report."""
    out = tmp_path_factory.mktemp("ray")
    env = child_env(RAY_USAGE_STATS_ENABLED="0")
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{ROOT}"
    proc = run_job(
        [sys.executable, str(SCRIPT), str(out)],
        env=env,
        timeout=360,
        cwd=out,
    )
    assert proc.returncode == 0, failure_text(proc)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


@pytest.mark.distributed
@pytest.mark.timeout(400)
@pytest.mark.filterwarnings("ignore::fairshard.DegenerateConfigWarning")
def test_ray_prepare_data_loader_with_every_family(ray_reports: list[dict[str, Any]]) -> None:
    ranks = ray_reports
    assert [r["world"] for r in ranks] == [2, 2]
    for rank, report in enumerate(ranks):
        for name in FAMILIES:
            batch = isinstance(FAMILIES[name](N, 0, 2), BatchPlanSampler)
            raw = report["ray"][name]
            if batch:  # Ray threw the batch sampler away: single samples, a crash
                assert raw["sampler"] == "torch.utils.data.distributed.DistributedSampler"
                assert raw["batch_sampler"] is None
                assert raw["first"].startswith("TypeError"), raw
            else:  # kept as built
                assert raw["sampler"].startswith("fairshard."), raw
                assert raw["first"] == _expected(name, rank, 0)[0]
            for epoch in (0, 1):
                assert report["helper"][name][epoch] == _expected(name, rank, epoch), name
        assert "leave add_dist_sampler out" in report["refused"]


@pytest.mark.distributed
@pytest.mark.timeout(400)
def test_ray_resume_is_exact_per_rank(ray_reports: list[dict[str, Any]]) -> None:
    """Stopped after 3 batches of epoch 0 and resumed: each rank's ledger is its share.

    Ray's loader wrapper fetches the next batch before the loop asks for it,
    so the sampler has handed out one batch more than the loop received
    (with ``num_workers=0`` too): docs/resume.md's bare ``sampler.state_dict()``
    recipe lost those 4 items per rank, silently. It is refused now, naming
    the wrapper's ``loader.state_dict()``, whose state is exact.
    """
    for rank, report in enumerate(ray_reports):
        for cell, got in report["resume"].items():
            name = cell.rsplit("-w", 1)[0]
            assert got["refused"] is not None, f"rank {rank} {cell}: bare state taken"
            assert "loader.state_dict()" in got["refused"], got["refused"]
            assert got["seen"] is not None, f"rank {rank} {cell}: {got['refused']}"
            for epoch in (0, 1):
                want = [i for b in _expected(name, rank, epoch) for i in b]
                assert got["seen"][epoch] == want, (rank, cell, epoch)
