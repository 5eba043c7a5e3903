"""HF accelerate on 2 CPU processes (run under torchrun) with a fairshard sampler.

Usage: torchrun --nproc-per-node 2 accelerate_job.py OUT_DIR

The right way: prepare the model and optimizer, iterate the fairshard
DataLoader yourself. The wrong way (recorded for comparison): pass the
DataLoader to ``prepare``, which shards each rank's share again. Each rank
writes OUT_DIR/rank{r}.json.
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

    wrong_sampler = fairshard.DistributedSampler(data, seed=4)
    prepared = accelerator.prepare(DataLoader(data, batch_size=4, sampler=wrong_sampler))
    wrong = [i for batch in prepared for i in batch.tolist()]
    try:
        check_accelerate(prepared)
        verdict = "ok"
    except fairshard.ConfigError as exc:
        verdict = str(exc)
    payload = {
        "rank": accelerator.process_index,
        "world": accelerator.num_processes,
        "right": right,
        "wrong": wrong,
        "check": verdict,
    }
    (out / f"rank{accelerator.process_index}.json").write_text(json.dumps(payload))


if __name__ == "__main__":
    main()
