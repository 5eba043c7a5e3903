# A script whose epoch loop sits at module level: the validation predictions are gathered
# and cut back to the set's length, so the sampler's tail padding is dropped.
import torch
import torch.distributed as dist
from data import load_sets, model
from torch.utils.data import DataLoader, DistributedSampler
from utils import distributed_concat

dist.init_process_group("nccl")
world_size = dist.get_world_size()
train_set, val_set = load_sets()
train_sampler = DistributedSampler(train_set)
val_sampler = DistributedSampler(val_set, shuffle=False)
train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
val_loader = DataLoader(val_set, batch_size=8, sampler=val_sampler)
for epoch in range(10):
    train_sampler.set_epoch(epoch)
    for x, y in train_loader:
        model(x).sum().backward()
    predictions, truths = [], []
    with torch.no_grad():
        for x, y in val_loader:
            predictions.append(model(x).argmax(-1))
            truths.append(y)
        predictions = distributed_concat(
            torch.cat(predictions), len(val_sampler.dataset), world_size
        )
        truths = distributed_concat(torch.cat(truths), len(val_sampler.dataset), world_size)
    if dist.get_rank() == 0:
        print(epoch, (predictions == truths).float().mean().item())
