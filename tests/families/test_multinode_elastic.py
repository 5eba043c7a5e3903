"""A real node loss on a two-agent elastic torchrun job (``--nnodes 1:2``).

One of two node agents is SIGKILLed with all its workers mid-epoch; the
survivor re-rendezvouses on 2 ranks, reloads the last checkpoint and
finishes: the ledgers show nothing lost and nothing repeated beyond declared
padding and the counted redo window, and no process is left behind. The
full matrix (every family, node losses and grows) is ``make faults``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fault.elastic import ElasticSpec, run_elastic
from tests.fault.families import REGISTRY


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
