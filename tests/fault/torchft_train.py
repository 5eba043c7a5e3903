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
a step's compute takes, seconds the group waits before its Manager (a joiner:
once it is let in). The first groups build their Managers, then wait for
each other (``ready.*`` files) before their first quorum, so that quorum
holds them all. A group that joins later imports everything, then waits for
the file ``join`` before it starts its Manager, and touches ``joined.RANK``
once it has; the first groups hold before their next quorum until it does,
so the joiner always meets live groups.
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


def _hold_for_the_joiner(directory: Path, world: int, limit_s: float = 90.0) -> None:
    """Once the joiner is let in, wait for its Manager before the next quorum.

    The job is about a group that joins *live* groups: without the hold, a
    joiner slow to build its Manager (a loaded machine) can find every
    survivor finished, form a quorum alone at step 0 and train the whole job
    again. The hold is taken once (a ``held`` marker) and gives up after
    ``limit_s``; the job then reports that the joiner never healed.
    """
    if not (directory / "join").exists() or (directory / "held").exists():
        return
    deadline = time.monotonic() + limit_s
    while len(list(directory.glob("joined.*"))) < world and time.monotonic() < deadline:
        time.sleep(0.01)
    (directory / "held").touch()


def main() -> int:
    from torchft import Manager, ProcessGroupGloo  # the torchft venv only (not at collection)

    args = sys.argv[1:12]
    directory, names, n, seed, epochs, replica, die_at, per_rank, wait, step_s, delay_s = args
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

    if not int(wait):
        while not (Path(directory) / "join").exists():
            time.sleep(0.01)  # a joiner starts its Manager when it is let in
    time.sleep(float(delay_s))  # a group slow to start (a loaded machine), when asked
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
    if int(wait):
        # The first groups' first quorum holds them all: each waits, its Manager already
        # heartbeating to the lighthouse, until every first group's Manager is. A group
        # that raced ahead alone and died would take commits no one carries on with it.
        (Path(directory) / f"ready.{replica}.{rank}").touch()
        while len(list(Path(directory).glob("ready.*"))) < int(wait) * world:
            time.sleep(0.01)
    else:
        (Path(directory) / f"joined.{rank}").touch()  # this Manager heartbeats: hold no longer
    while True:
        if int(wait):
            _hold_for_the_joiner(Path(directory), world)
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
