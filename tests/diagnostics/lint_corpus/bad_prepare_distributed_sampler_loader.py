# An evaluation loader over a DistributedSampler cut for this process, handed to
# accelerator.prepare: accelerate's BatchSamplerShard splits each rank's share again, so
# each process scores 1/W of its share and (W-1)/W of the set is never scored.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, eval_set):
    accelerator = Accelerator()
    sampler = DistributedSampler(
        eval_set,
        num_replicas=accelerator.num_processes,
        rank=accelerator.process_index,
        shuffle=False,
    )
    loader = DataLoader(eval_set, sampler=sampler, batch_size=8, drop_last=True)
    model, loader = accelerator.prepare(model, loader)  # expect: FS115
    with torch.no_grad():
        return [model(batch).mean().item() for batch in loader]
