"""One replica group of a torchft job: a tiny model trained on a ReplicaGroupSampler.

Launched by ``tests/fault/torchft_job.py`` under torchrun (one torchrun per
replica group, ``--nproc-per-node`` = the group's processes), in the torchft
venv (``make venv-torchft``). Every process writes an fsync-ed ledger
(``tests/fault/ledger.py``): an ``items`` record before the step's
``should_commit`` (plan positions, dataset indices, declared padding, the
Manager's step and quorum id) and a ``commit`` record after it returned
``True``. ``die-at-step S`` SIGKILLs the whole group (the torchrun agent
and each of its processes) once the Manager reaches step ``S``, right after the
``items`` record, so the step is never committed.

Args (positional): ledger directory, family names (comma-separated: one
ReplicaGroupSampler each, all read in every step), dataset size, seed, epochs,
replica id, die-at-step (-1: never), items per rank, the number of groups to
wait for before the first quorum (0 for a group that joins later), seconds
a step's compute takes. A group that joins later imports everything, then
waits for the file ``join`` before it starts its Manager.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path

import torch

from fairshard.integrations.torchft import ReplicaGroupSampler
from tests.catalog import sampler_families
from tests.fault.ledger import Ledger
from tests.fault.torchft_job import flat


def main() -> int:
    from torchft import Manager, ProcessGroupGloo  # the torchft venv only (not at collection)

    directory, names, n, seed, epochs, replica, die_at, per_rank, wait, step_s = sys.argv[1:11]
    logging.disable(logging.WARNING)
    entries = {e.name: e for e in sampler_families()}
    families = names.split(",")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    ledger = Ledger(Path(directory), int(replica), 0, rank)
    model = torch.nn.Linear(4, 1)
    samplers: dict[str, ReplicaGroupSampler] = {}

    def load(state: dict[str, object]) -> None:
        model.load_state_dict(state)  # type: ignore[arg-type]
        ledger.append("healed", epochs={f: s.epoch for f, s in samplers.items()})

    (Path(directory) / f"ready.{replica}.{rank}").touch()
    while (
        len(list(Path(directory).glob("ready.*"))) < int(wait) * world
        if int(wait)
        else not (Path(directory) / "join").exists()
    ):
        time.sleep(0.01)  # the first groups start together; a joiner when it is let in
    ledger.append("start", t0=time.time())
    manager = Manager(
        pg=ProcessGroupGloo(timeout=timedelta(seconds=5)),
        load_state_dict=load,
        state_dict=model.state_dict,
        min_replica_size=1,
        use_async_quorum=False,
        replica_id=f"group{replica}",
        timeout=timedelta(seconds=5),
        quorum_timeout=timedelta(seconds=30),
        connect_timeout=timedelta(seconds=10),
    )
    for family in families:
        sampler = entries[family].make(int(n), 0, 1, seed=int(seed))
        samplers[family] = ReplicaGroupSampler(sampler, manager, items_per_rank=int(per_rank))
        samplers[family].register(key=f"fairshard.{family}")  # the cursor travels with the model
    while True:
        manager.start_quorum()
        steps = {f: s.step_items() for f, s in samplers.items()}
        live = [f for f, s in samplers.items() if s.epoch < int(epochs)]
        if not live:
            break
        step = manager.current_step()
        quorum = int(manager._quorum_id)
        count = 0
        for family in live:
            items, sampler = steps[family], samplers[family]
            if items is None:
                continue
            indices = [i for item in items for i in flat(item)]
            count += len(indices)
            ledger.append(
                "items",
                family=family,
                epoch=sampler.epoch,
                step=step,
                quorum=quorum,
                groups=manager.num_participants(),
                positions=[int(p) for p in sampler.last_positions],
                padded=sampler.last_padded,
                dropped=sampler.num_dropped(),
                indices=indices,
                time=time.time(),
            )
        time.sleep(float(step_s))  # the step's compute
        grad = torch.full((4,), float(count))
        if int(die_at) >= 0 and step >= int(die_at):
            if rank == 0:
                os.kill(os.getppid(), signal.SIGKILL)  # the torchrun agent: no restart
            os.kill(os.getpid(), signal.SIGKILL)  # every process of the group, before commit
        manager.allreduce(grad).wait()
        if manager.should_commit():
            with torch.no_grad():
                model.weight -= 1e-3 * grad
            ledger.append("commit", step=step, quorum=quorum, time=time.time())
    ledger.append("done", step=manager.current_step())
    ledger.close()
    manager.shutdown(wait=False)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
