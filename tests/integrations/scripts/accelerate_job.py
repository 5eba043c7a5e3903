"""HF accelerate on 2 CPU processes (run under torchrun) with fairshard samplers.

Usage: torchrun --nproc-per-node 2 accelerate_job.py OUT_DIR

Three ways, each rank writes OUT_DIR/rank{r}.json:

* ``right``: prepare the model and optimizer, iterate the fairshard
  DataLoader as built (each rank: exactly its fairshard share);
* ``prepared``: pass the same DataLoader to ``prepare`` (default
  configuration): accelerate shards it again, and the sampler refuses with
  an error on the first batch instead of losing half of its share;
* ``global``: a sampler built for one process (``num_replicas=1``) passed to
  ``prepare``: accelerate's sharding is the only one, and accelerate calls
  the sampler's ``set_epoch`` itself.
"""

import json
import sys
from pathlib import Path

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

import fairshard
from fairshard.integrations import check_accelerate

N = 40


def main():
    out = Path(sys.argv[1])
    accelerator = Accelerator(cpu=True)
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model, optimizer = accelerator.prepare(model, optimizer)

    data = list(range(N))
    sampler = fairshard.DistributedSampler(data, seed=4)
    loader = DataLoader(data, batch_size=4, sampler=sampler)
    right = []
    for epoch in range(2):
        sampler.set_epoch(epoch)
        seen = []
        for batch in loader:
            x = batch.to(accelerator.device).float().unsqueeze(1)
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            seen.extend(batch.tolist())
        right.append(seen)
    check_accelerate(loader)  # a plain DataLoader: nothing to report

    prepared = accelerator.prepare(
        DataLoader(data, batch_size=4, sampler=fairshard.DistributedSampler(data, seed=4))
    )
    try:
        next(iter(prepared))
        refused = "no error"
    except fairshard.ConfigError as exc:
        refused = str(exc)
    try:
        check_accelerate(prepared)
        verdict = "ok"
    except fairshard.ConfigError as exc:
        verdict = str(exc)

    one = fairshard.DistributedSampler(data, num_replicas=1, rank=0, seed=4)
    shared = accelerator.prepare(DataLoader(data, batch_size=4, sampler=one))
    global_seen = [[i for batch in shared for i in batch.tolist()] for _ in range(2)]
    payload = {
        "rank": accelerator.process_index,
        "world": accelerator.num_processes,
        "right": right,
        "refused": refused,
        "check": verdict,
        "global": global_seen,
        "global_epoch": one.epoch,
    }
    (out / f"rank{accelerator.process_index}.json").write_text(json.dumps(payload))


if __name__ == "__main__":
    main()
