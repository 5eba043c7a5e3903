"""A ramp-up job under torchrun: run some steps, save, or resume and run more.

``python -m torch.distributed.run ... steps_job.py OUT STEPS [STATE]`` runs
``STEPS`` global steps of a ramp-up schedule on every rank (resuming from the
state file ``STATE`` when given), all-gathers what each step held, and rank 0
writes ``{"first", "steps", "accumulation", "state"}`` to ``OUT``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEDULE = {"start": 4, "increment": 4, "ramp_samples": 48, "final": 16}
MICRO = 2
N = 50
SEED = 7


def build(world: int | None = None, rank: int | None = None) -> object:
    import fairshard

    inner = fairshard.DistributedSampler(N, num_replicas=world, rank=rank, seed=SEED)
    schedule = fairshard.BatchSchedule.ramp(**SCHEDULE)
    return fairshard.StepSampler(inner, micro_batch_size=MICRO, schedule=schedule)


def main(out: str, count: int, state_path: str | None) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo")
    sampler: object = build()
    if state_path is not None:
        with open(state_path) as f:
            sampler.load_state_dict(json.load(f))  # type: ignore[attr-defined]
    first = sampler.step_of(sampler.consumed_samples)  # type: ignore[attr-defined]
    stream = iter(sampler)  # type: ignore[call-overload]
    steps, accumulation = [], []
    for step in range(first, first + count):
        micro = sampler.accumulation_steps(step)  # type: ignore[attr-defined]
        mine = [next(stream) for _ in range(micro * MICRO)]
        gathered: list[object] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, mine)
        steps.append(sorted(i for part in gathered for i in part))  # type: ignore[attr-defined]
        accumulation.append(micro)
    state = sampler.state_dict(step=first + count)  # type: ignore[attr-defined]
    if dist.get_rank() == 0:
        with open(out, "w") as f:
            json.dump(
                {"first": first, "steps": steps, "accumulation": accumulation, "state": state}, f
            )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: tests._job_end
    from tests._job_end import end_job

    end_job()  # together, the group torn down, no finalization
