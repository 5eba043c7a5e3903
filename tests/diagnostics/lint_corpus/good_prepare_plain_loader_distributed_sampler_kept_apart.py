# accelerate splits the plain loader it prepares once; the DistributedSampler loader is
# iterated as built, never prepared: each is split once.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, eval_set, probe_set):
    accelerator = Accelerator()
    loader = DataLoader(eval_set, batch_size=8, drop_last=True)
    model, loader = accelerator.prepare(model, loader)
    sampler = DistributedSampler(probe_set, shuffle=False, drop_last=True)
    probe = DataLoader(probe_set, sampler=sampler, batch_size=8)
    with torch.no_grad():
        scores = [model(batch).mean().item() for batch in loader]
        return scores, [model(batch).mean().item() for batch in probe]
