"""The family of each kind the seam matrix trains, its loader and the ids of a batch.

The kinds are the catalog's entries (``tests/catalog.py``), so the matrix
trains the configurations every other suite checks, plus ``steps``: a
``StepSampler`` over the index entry (micro batch 4, global batch 8 on two
ranks), whose "epoch" here is the 6 steps that hold one pass of the data.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import torch
from torch.utils.data import DataLoader

import fairshard
from tests.catalog import CATALOG, loader_parts, make_loader
from tests.seams.cells import BATCH, FAMILIES, N

# The drivers' processes already run threads (gloo's, Lightning's, Ray's) when
# the loader starts its workers. A fork copies a lock one of those threads
# held, and a worker that waits on it never sends a batch: the fit hangs
# until the test's timeout (seen once in CI, a Lightning resume with two
# workers). Workers started from a fork server come from a process that runs
# no such thread; the server imports torch and the catalog once, so each
# worker need not. A worker that still sends nothing within WORKER_TIMEOUT
# seconds fails its cell with DataLoader's timeout error instead of a hang.
WORKER_CONTEXT = "forkserver"
WORKER_TIMEOUT = 120.0
multiprocessing.set_forkserver_preload(["torch", "fairshard", "tests.catalog"])


def build(kind: str, rank: int, world: int) -> Any:
    """A fresh sampler of ``kind`` for ``rank`` of ``world`` over ``N`` samples."""
    if kind == "steps":
        inner = CATALOG["distributed"].make(N, rank, world)
        return fairshard.StepSampler(inner, micro_batch_size=BATCH, global_batch_size=BATCH * world)
    return CATALOG[FAMILIES[kind]].make(N, rank, world)


def loader(kind: str, sampler: Any, workers: int, loader_class: Any = DataLoader) -> Any:
    """The DataLoader (or ``loader_class``) the drivers train on."""
    if kind == "steps":
        dataset, common, _ = loader_parts(CATALOG["distributed"], N, BATCH)
        if workers:
            common.update(multiprocessing_context=WORKER_CONTEXT, timeout=WORKER_TIMEOUT)
        return loader_class(dataset, sampler=sampler, num_workers=workers, **common)
    return make_loader(
        CATALOG[FAMILIES[kind]],
        sampler,
        N,
        loader_class=loader_class,
        workers=workers,
        batch_size=BATCH,
        context=WORKER_CONTEXT,
        **({"timeout": WORKER_TIMEOUT} if workers else {}),
    )


def ids_of(kind: str, batch: Any) -> list[int]:
    """The sample ids of one loaded batch, in order."""
    name = "distributed" if kind == "steps" else FAMILIES[kind]
    _, _, ids = loader_parts(CATALOG[name], N, BATCH)
    if isinstance(batch, dict) and "input_ids" not in batch and "idx" in batch:
        batch = batch["idx"]
    if isinstance(batch, list):
        batch = torch.as_tensor(batch)
    return ids(batch)
