"""Each rank writes its predictions to a file of its own, for a merge of every rank's file.

The merged predictions hold the samples the padded sampler repeats.
"""

import json
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, eval_set, out_dir):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    sampler = DistributedSampler(eval_set, shuffle=False)  # expect: FS109
    eval_loader = DataLoader(eval_set, batch_size=8, sampler=sampler)
    predictions = []
    with torch.no_grad():
        for batch in eval_loader:
            predictions += model(batch).argmax(-1).tolist()
    with open(os.path.join(out_dir, f"predictions_rank{rank}.json"), "w") as f:
        f.write(json.dumps(predictions))
