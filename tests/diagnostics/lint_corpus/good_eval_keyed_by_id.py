# Padded evaluation whose predictions are gathered with their sample ids and kept in a dict
# keyed by id: a repeated sample overwrites its own entry, so each counts once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def generate(model, valid_data, world_size):
    valid_sampler = DistributedSampler(valid_data, shuffle=False)
    valid_loader = DataLoader(valid_data, sampler=valid_sampler, batch_size=8)
    all_predictions = {}
    for batch in valid_loader:
        ids = [torch.zeros_like(batch["id"]) for _ in range(world_size)]
        dist.all_gather(ids, batch["id"])
        outputs = [torch.zeros_like(batch["x"]) for _ in range(world_size)]
        dist.all_gather(outputs, model(batch["x"]))
        flat_ids, flat_out = torch.cat(ids), torch.cat(outputs)
        for b in range(flat_ids.shape[0]):
            i = int(flat_ids[b].item())
            all_predictions[i] = flat_out[b].tolist()
    return [all_predictions[i] for i in sorted(all_predictions)]
