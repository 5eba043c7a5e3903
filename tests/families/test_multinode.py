"""Two torchrun node agents on 127.0.0.1 (2 nodes x 2 processes, c10d rendezvous).

LOCAL_RANK and RANK differ on node 1, as on a cluster. Every sampler family
runs an epoch checked exactly-once from all-gathered ledgers, with
``verify()``, ``gather_in_order`` and ``ExactMetrics``; ``rank=LOCAL_RANK``
is refused at its first pass on node 1 and a node-local sub-group is not.
On torchrun's default shared store with restarts, ``init_elastic_process_group``
refuses the two-agent job at once and names the launcher fix.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from tests.multinode import Cluster, job_processes

JOB = Path(__file__).with_name("multinode_job.py")


def _c10d_shares_the_agent_store() -> bool:
    """Whether this torch's c10d rendezvous hands its workers the agent's store.

    torch 2.1 shares it only under the static rendezvous; later releases share
    it by default and read ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE`` to opt out.
    """
    spec = importlib.util.find_spec("torch.distributed.elastic.rendezvous.dynamic_rendezvous")
    source = Path(spec.origin).read_text() if spec and spec.origin else ""
    return "TORCH_DISABLE_SHARE_RDZV_TCP_STORE" in source


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.timeout(240)
def test_two_nodes_every_family_exactly_once(tmp_path: Path) -> None:
    with Cluster(JOB, ["all"], tmp_path, nnodes="2", nproc_per_node=2) as cluster:
        agents = [cluster.start(0), cluster.start(1)]
        codes = cluster.wait(agents, timeout=200)
        logs = cluster.tail(20000)
        assert codes == [0, 0], logs
        token = cluster.token
    assert job_processes(token) == []
    assert "MULTINODE OK distributed-pad-lazy," in logs and "token-budget" in logs, logs
    # Ranks of one node share a log; find the list wherever its line landed.
    found = re.search(r"TOPOLOGY (\[[^\]]*\])", logs)
    assert found, logs
    topology = ast.literal_eval(found.group(1))
    assert [(r, local) for r, local, _ in topology] == [(0, 0), (1, 1), (2, 0), (3, 1)]
    assert len({node for r, _, node in topology}) == 2
    for rank, local in ((0, 0), (1, 1)):
        assert f"rank {rank} local {local}: rank=LOCAL_RANK accepted" in logs
    for rank, local in ((2, 0), (3, 1)):
        assert f"rank {rank} local {local}: rank=LOCAL_RANK refused" in logs


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.timeout(240)
@pytest.mark.skipif(
    not _c10d_shares_the_agent_store(),
    reason="this torch's c10d rendezvous gives each round a fresh store: none to refuse",
)
def test_shared_store_with_restarts_is_refused_with_the_launcher_fix(tmp_path: Path) -> None:
    """Two agents on torchrun's default shared store, with restarts: refused at once."""
    with Cluster(
        JOB, ["distributed-pad-lazy"], tmp_path, max_restarts=1, shared_store=True
    ) as cluster:
        agents = [cluster.start(0), cluster.start(1)]
        codes = cluster.wait(agents, timeout=200)
        logs = cluster.tail(200000)
    assert codes != [0, 0], logs
    assert "ConfigError: this job has 2 node agents sharing node 0's store" in logs, logs
    assert "TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1" in logs
    assert "MULTINODE OK" not in logs
