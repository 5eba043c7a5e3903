# The padded validation is scored by rank 0 alone ("not distributed or rank 0"), and the
# config file is written there too: no rank's results are combined or merged, and rank 0's
# share holds no repeat.
import json

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main_distributed(args, model, dev_set, score):
    dist.init_process_group("nccl")
    if not args.distributed or args.local_rank == 0:
        with open("config.json", "w") as f:
            f.write(json.dumps(vars(args)))
    dev_loader = DataLoader(dev_set, sampler=DistributedSampler(dev_set, shuffle=False))
    outputs = []
    for batch in dev_loader:
        outputs.append(model(batch))
    if not args.distributed or args.local_rank == 0:
        print(score(outputs))
