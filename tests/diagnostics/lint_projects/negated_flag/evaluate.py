# The evaluation gathers every rank's activations and scores them all.
import torch
import torch.distributed as dist
from dataset import get_dataloader_from_config


def evaluate(cfg, model, val_set):
    loader = get_dataloader_from_config(cfg, val_set)
    feats = torch.cat([model(batch) for batch in loader])
    gathered = [torch.empty_like(feats) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, feats)
    return torch.cat(gathered).mean()
