"""A real node loss on a two-agent elastic torchrun job (``--nnodes 1:2``).

One of two node agents is SIGKILLed with all its workers mid-epoch; the
survivor re-rendezvouses on 2 ranks, reloads the last checkpoint and
finishes: the ledgers show nothing lost and nothing repeated beyond declared
padding and the counted redo window, and no process is left behind. The
full matrix (every family, node losses and grows) is ``make faults``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.fault.elastic import ElasticSpec, run_elastic
from tests.fault.families import REGISTRY
from tests.multinode import Cluster, job_processes


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.timeout(240)
def test_node_loss_shrinks_to_two_ranks_exactly_once(tmp_path: Path) -> None:
    spec = ElasticSpec(
        REGISTRY["distributed-pad-lazy"], cycles=1, seed=2, grow=False, dataset_size=120
    )
    job = run_elastic(spec, tmp_path, timeout=180)
    assert job.ok, (job.problems, job.replay)
    assert (job.kills, job.grows, job.leftover) == (1, 0, [])
    assert job.worlds[0] == 4 and job.worlds[-1] == 2, job.worlds
    assert job.replay.lost == 0 and job.replay.repeated == 0
    assert job.replay.generations >= 2


EXAMPLE = Path(__file__).parents[2] / "examples" / "train_elastic.py"


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.matrix  # 21-25 s; `make faults` runs it (make test: the shrink test below)
@pytest.mark.timeout(240)
def test_elastic_example_survives_a_node_loss(tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt.pt"
    args = ["--epochs", "2", "--samples", "4000", "--batch-size", "8", "--checkpoint", str(ckpt)]
    with Cluster(EXAMPLE, args, tmp_path, nnodes="1:2", max_restarts=2) as cluster:
        agents = [cluster.start(0), cluster.start(1)]
        deadline = time.monotonic() + 150
        while not ckpt.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ckpt.exists(), cluster.tail()
        cluster.kill_node(agents[1])  # mid-epoch: the first checkpoint was just written
        codes = cluster.wait(agents[:1], timeout=180)
        logs = cluster.tail(20000)
        token = cluster.token
    assert codes == [0], logs
    assert job_processes(token) == []
    assert re.search(r"resumed epoch [01] at step \d+ on 2 ranks \(saved on 4\)", logs), logs
    assert "epoch 1: 4000 distinct of 4000 on 2 ranks, 4000 consumed" in logs, logs
