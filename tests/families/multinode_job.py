"""The job ``test_multinode.py`` runs on two torchrun node agents (2 x 2 processes).

Every rank checks that it is on a real multi-node topology (its LOCAL_RANK
differs from its RANK on node 1), that ``rank=LOCAL_RANK`` is refused and a
node-local sub-group is not, then runs one epoch of every sampler family,
all-gathers the ledgers and checks, on every rank, that the epoch was
consumed exactly once beyond the declared padding and drops; then
``verify()``, ``gather_in_order`` and ``ExactMetrics`` on an evaluation
sampler. Rank 0 prints ``MULTINODE OK <families>`` at the end.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any

import torch
import torch.distributed as dist

import fairshard
from tests._job_end import end_job
from tests.fault.families import REGISTRY, resolve


def _flat(items: list[Any]) -> list[int]:
    out: list[int] = []
    for item in items:
        out.extend(int(i) for i in item) if isinstance(item, list) else out.append(int(item))
    return out


def check_local_rank_mistake(rank: int, local: int, local_world: int) -> str:
    """``rank=LOCAL_RANK`` fails on node 1, a node-local sub-group works everywhere."""
    try:
        iter(fairshard.DistributedSampler(100, rank=local))  # refused at its first pass
        refused = False
    except fairshard.ConfigError as error:
        assert "LOCAL_RANK" in str(error), error
        refused = True
    assert refused == (local != rank), (rank, local, refused)
    sub = fairshard.DistributedSampler(100, num_replicas=local_world, rank=local)
    assert len(sub) == 100 // local_world
    return "refused" if refused else "accepted"


def check_family(name: str, size: int, seed: int, rank: int, world: int) -> None:
    family = REGISTRY[name]
    sampler = family.build(size, world, rank, seed)
    sampler.set_epoch(1)
    declared = family.declared(sampler)
    fairshard.verify(sampler, timeout=60)
    items = list(sampler)
    assert len(items) == len(sampler), name
    ledgers: list[Any] = [None] * world
    dist.all_gather_object(ledgers, (len(items), _flat(items)))
    if sampler.tail != "uneven":  # an uneven tail differs by one step by design
        assert len({steps for steps, _ in ledgers}) == 1, (name, ledgers)  # equal steps
    seen = Counter(i for _, ledger in ledgers for i in ledger)
    expected = family.expected_epoch(size, seed, 1)
    lost = sum((expected - seen).values()) - declared["dropped"]
    repeated = sum((seen - expected).values()) - declared["padded"]
    assert (lost, repeated) == (0, 0), (name, lost, repeated, declared)


def check_evaluation(rank: int, world: int) -> None:
    size, classes = 103, 5
    sampler = fairshard.DistributedEvalSampler(size)
    labels = torch.arange(size) % classes
    metrics = fairshard.ExactMetrics(classes, sampler=sampler)
    share = torch.tensor(list(sampler), dtype=torch.int64)
    preds = torch.where(share % 4 == 0, (labels[share] + 1) % classes, labels[share])
    metrics.update(preds, labels[share], indices=share)
    result = metrics.compute()
    assert int(result.confusion.sum()) == size, result.confusion
    wrong = len(range(0, size, 4))
    assert abs(result.accuracy - (size - wrong) / size) < 1e-12, result.accuracy
    gathered = fairshard.gather_in_order(share * 10, sampler)
    assert gathered is not None and gathered.tolist() == [10 * i for i in range(size)]


def say(line: str) -> None:
    """One line in one write: the processes of a node share their agent's log.

    ``print`` under ``PYTHONUNBUFFERED`` writes the text and its newline
    separately, so another rank's line could land between them.
    """
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), (line + "\n").encode())


def main() -> int:
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local, local_world = int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"])
    fairshard.init_elastic_process_group("gloo", timeout=60)
    names = sys.argv[1] if len(sys.argv) > 1 else "all"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 53
    topology: list[Any] = [None] * world
    dist.all_gather_object(topology, (rank, local, os.environ["GROUP_RANK"]))
    verdict = check_local_rank_mistake(rank, local, local_world)
    families = resolve(names)
    for family in families:
        check_family(family.name, size, 7, rank, world)
    check_evaluation(rank, world)
    dist.barrier()
    if rank == 0:
        say(f"TOPOLOGY {sorted(topology)}")
        say(f"MULTINODE OK {','.join(f.name for f in families)} local-rank:{verdict}")
    say(f"rank {rank} local {local}: rank=LOCAL_RANK {verdict}")
    end_job()  # together, the group torn down, no finalization


if __name__ == "__main__":
    sys.exit(main())
